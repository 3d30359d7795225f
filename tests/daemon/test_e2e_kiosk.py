"""The exhibit on the REAL daemon in Debian's chromium: the kiosk is the only page, a visitor
plays a move on the simulated board, teach mode explains the relay and the capture it had,
and the players' New game starts again (tests/web has the same pages on a fake link)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from controller.daemon.run import Daemon
from tests.browser import needs_chromium
from tests.daemon.conftest import make_config
from tests.daemon.test_undo import first_move_with_a_relay_and_a_capture

pytestmark = needs_chromium


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    config = make_config(
        tmp_path,
        web={"port": 0, "kiosk": True},
        game={"mode": "teach"},
        buttons={"locked": ["mode"]},
    )
    daemon = Daemon(config, out=lambda _text: None, speed=10.0).start()
    yield daemon
    daemon.stop()


def test_a_visitor_plays_on_the_kiosk_and_teach_mode_explains_it(
    browser: Browser, daemon: Daemon
) -> None:
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    context.set_default_timeout(20000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(daemon.url + "/")
    assert page.url == daemon.url + "/kiosk"
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    pit = first_move_with_a_relay_and_a_capture()
    page.locator(f'#board [data-place="0,{pit}"]').click()
    explain = page.locator("#explain")
    # The line shows the newest event: the capture that ends the move (the relay's sentence
    # may come and go between two snapshots the page gets on a busy machine).
    expect(explain).to_contain_text("Player 1 captures")
    events = page.request.get(daemon.url + "/api/state").json()["game"]["events"]
    assert [e["kind"] for e in events][-2:] == ["relay", "capture"]
    expect(page.locator(".kiosk-line")).to_contain_text("Player 2's turn")
    page.get_by_role("button", name="New game").click()
    page.get_by_role("button", name="Click again to start a new game").click()
    expect(page.locator(".kiosk-line")).to_contain_text("Player 1's turn", timeout=30000)
    expect(explain).to_be_hidden()  # a new game: nothing has happened to explain
    assert errors == []
    context.close()
