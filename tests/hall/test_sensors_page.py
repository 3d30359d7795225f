"""A board whose broker is away shows it and its drops on its sensors page (issue 16)."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.browser import needs_chromium
from tests.web.conftest import TEST_CONFIG
from tests.web.fake_link import FakeLink
from web_ui.app import create_app, stop_streams
from web_ui.serve import WebServer


@needs_chromium
def test_the_sensors_page_shows_the_broker_and_the_drops_live(browser: Browser) -> None:
    link = FakeLink()
    app = create_app(link, dict(TEST_CONFIG))
    mqtt = {
        "url": "mqtt://hall.local:1883",
        "board_id": "pair-3",
        "connected": True,
        "dropped": 0,
        "connects": 1,
        "error": None,
    }
    try:
        with WebServer(app, "127.0.0.1", 0) as server:
            page = browser.new_page(locale="en-US")
            page.goto(server.url + "/sensors")
            line = page.locator("#mqtt")
            expect(line).to_be_hidden()  # (no [mqtt] url: nothing to say)
            link.update(lambda s: s["daemon"].__setitem__("mqtt", mqtt))
            expect(line).to_have_text(
                "Hall broker mqtt://hall.local:1883 as “pair-3”: connected. Messages dropped: 0."
            )
            away = {**mqtt, "connected": False, "dropped": 17, "error": "connection lost"}
            link.update(lambda s: s["daemon"].__setitem__("mqtt", away))
            expect(line).to_contain_text("not connected (connection lost). Messages dropped: 17.")
            page.goto(server.url + "/sensors?lang=ja")
            expect(page.locator("#mqtt")).to_contain_text("送れずに捨てたメッセージ:17")
            page.close()
    finally:
        stop_streams(app)
