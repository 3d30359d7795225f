"""The status page in a real Chromium on the REAL daemon (tests/web/test_e2e.py uses a fake
link): a visitor clicks a pit, the virtual hand sows it on the simulated board, the referee
follows the weights, and the page shows the new counts and lights; then a mistake on purpose.
Skipped only when no chromium can be found (Debian's, as in tests/web/test_e2e.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.daemon.run import Daemon
from controller.leds.patterns import BLUE, ORANGE, hex_color
from controller.rules import Game
from tests.browser import needs_chromium
from tests.daemon.conftest import make_config

pytestmark = needs_chromium


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    messages: list[str] = []
    config = make_config(tmp_path, web={"port": 0})
    daemon = Daemon(config, out=messages.append, speed=10.0).start()
    yield daemon
    daemon.stop()


def count(page: Page, player: int, where: int | str) -> str:
    return f'#board [data-place="{player},{where}"] .count'


def test_a_visitor_clicks_a_pit_and_the_real_board_plays_it(
    browser: Browser, daemon: Daemon
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, locale="en-US")
    context.set_default_timeout(15000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(daemon.url + "/")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    pit = page.locator('#board [data-place="0,3"]')
    expect(pit).to_have_attribute("data-color", hex_color(BLUE))
    expect(pit).to_have_attribute("data-effect", "pulse")
    expect(page.locator(count(page, 0, 3))).to_have_text("7")

    pit.click()
    expect(page.locator("#history li")).to_have_text(["Player 1 played pit 4"])
    reference = Game("congkak")
    reference.play(3)
    position = reference.position()
    for player in (0, 1):
        for i in range(7):
            expect(page.locator(count(page, player, i))).to_have_text(str(position.pits[player][i]))
        expect(page.locator(count(page, player, "store"))).to_have_text(
            str(position.stores[player])
        )
    mover = position.to_move
    assert mover is not None
    playable = next(i for i in range(7) if position.pits[mover][i])
    expect(page.locator(f'#board [data-place="{mover},{playable}"]')).to_have_attribute(
        "data-color", hex_color((BLUE, ORANGE)[mover])
    )

    page.get_by_role("button", name="Sow into the wrong pit").click()
    # (at speed 10 the virtual hand may have put it right already: then it is in the folded
    # history of fixed problems)
    expect(page.locator("#flags-panel .flag .flag-text").first).to_contain_text("A seed went into")
    expect(page.locator("#history li")).to_have_count(2)
    assert errors == []
    context.close()
