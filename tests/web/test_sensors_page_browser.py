"""The sensor page in Debian's chromium: what the daemon lost by falling behind its scales
(`daemon.behind`) is a notice while it goes on, a plain line once it stopped, and nothing when
it never happened."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, expect

from tests.browser import needs_chromium, watched_page
from tests.web.fake_link import FakeLink
from web_ui.serve import WebServer

pytestmark = needs_chromium


@pytest.fixture
def served(app: Flask) -> Iterator[WebServer]:
    with WebServer(app, "127.0.0.1", 0) as server:
        yield server


def behind(link: FakeLink, **figures: Any) -> None:
    link.update(lambda s: s["daemon"]["behind"].update(figures))


def test_dropped_readings_are_a_notice_while_they_go_on(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    context, page, errors = watched_page(browser, timeout_ms=5000)
    page.goto(served.url + "/sensors")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    line = page.locator("#behind")
    expect(line).to_be_hidden()  # nothing lost

    behind(link, dropped_frames=12, dropped_frames_last_minute=12)
    expect(line).to_have_text(
        "Scale readings lost: 12 in the last minute, 12 since the start. The board's computer"
        " is not keeping up with the scales, so a seed may go unseen."
    )
    expect(line).to_have_class("notice")

    behind(link, dropped_frames_last_minute=0)  # a minute later
    expect(line).to_have_text("Scale readings lost since the start: 12 (none in the last minute).")
    expect(line).not_to_have_class("notice")

    behind(link, dropped_frames=0, skipped_s=3.2, skipped_s_last_minute=3.2)
    expect(line).to_have_text(
        "The simulated board skipped 3.2 s in the last minute, 3.2 s since the start: the"
        " computer is not keeping up with it."
    )
    expect(line).to_have_class("notice")
    assert errors == []
    context.close()
