"""Live pages share each snapshot's encoding (issue 13: 50 live pages must fit in memory)."""

from __future__ import annotations

import json
from unittest import mock

from web_ui import events
from web_ui.events import SharedEvents


def test_a_snapshot_is_encoded_once_for_every_page() -> None:
    shared = SharedEvents()
    status = {"version": 7, "game": {"pits": [[4] * 7, [4] * 7]}}
    with mock.patch.object(events, "status_event", wraps=events.status_event) as encode:
        pages = [shared.event(status) for _ in range(50)]
    assert encode.call_count == 1
    assert all(page is pages[0] for page in pages)  # one copy in memory, not 50
    data = pages[0].decode().split("data: ", 1)[1]
    assert json.loads(data) == status


def test_a_newer_snapshot_is_encoded_again() -> None:
    shared = SharedEvents()
    first = shared.event({"version": 1})
    second = shared.event({"version": 2})
    assert b"id: 1\n" in first
    assert b"id: 2\n" in second
