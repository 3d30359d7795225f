"""bench fuzz: it fuzzes every route there is, and tells an admin action by what was sent."""

from __future__ import annotations

import random

from controller.bench import fuzz


def test_every_route_of_the_page_is_fuzzed() -> None:
    paths = {path for path, _methods in fuzz.routes()}
    assert {"/api/state", "/api/events", "/api/admin/mode", "/api/sim/actions", "/admin"} <= paths


def test_an_admin_action_is_told_by_the_request_line_as_sent() -> None:
    mode = b'POST /api/admin/mode HTTP/1.1\r\nHost: x\r\n\r\n{"mode":"demo"}'
    assert fuzz.is_admin_action(200, mode)
    assert not fuzz.is_admin_action(403, mode)
    # a malformed request line drawn for /api/admin/mode is a request for another path
    assert not fuzz.is_admin_action(200, b"GET / HTTP/9.9\r\nHost: x\r\n\r\n")
    press = b'POST /api/sim/actions HTTP/1.1\r\n\r\n{"actions":[{"name":"new_game"}]}'
    assert fuzz.is_admin_action(200, press)
    play = b'POST /api/sim/actions HTTP/1.1\r\n\r\n{"actions":[{"action":"grab"}]}'
    assert not fuzz.is_admin_action(200, play)


def test_requests_are_built_for_every_kind_of_body() -> None:
    rng = random.Random(1)
    kinds = {fuzz.body_bytes("/api/sim/actions", rng)[0] for _ in range(400)}
    assert {"nested", "huge", "truncated", "garbage", "typed", "numbers"} <= kinds
    method, _path, _kind, data = fuzz.request_bytes(0, "/api/admin/mode", ("POST",), rng, "h:1")
    assert data.endswith(b"\r\n\r\n") or b"Content-Length" in data
    assert method in fuzz.METHODS
