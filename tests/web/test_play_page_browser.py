"""The play page, the kiosk and the admin form in Debian's chromium (issue 15): the board and
the active problem on the first screen with a game's worth of fixed problems, the players'
New game button, the exhibit's kiosk, the admin's option fields.

Screenshots for a person to look at: /tmp/sowboard-first-screen-<width>.png and
/tmp/sowboard-kiosk.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, Page, Response, expect

from tests.browser import needs_chromium
from tests.web.conftest import PIN, TEST_CONFIG
from tests.web.fake_link import FakeLink
from web_ui.app import create_app, stop_streams
from web_ui.serve import WebServer

pytestmark = needs_chromium

VIEWPORTS = ((390, 844), (1280, 900), (1920, 1080))
MISTAKES = ("wrong_pit", "extra_seed", "opponent_store", "not_all_lifted")


def game_with_flags(link: FakeLink, fixed: int = 8) -> None:
    """A move played, `fixed` mistakes made and put right, then one that waits to be fixed."""
    link.command("sim_move", {"pit": 2})
    for k in range(fixed):
        link.command("sim_mistake", {"kind": MISTAKES[k % len(MISTAKES)]})
        link.update(lambda s: [f.update(active=False) for f in s["flags"]])
        for flag in link.flags:
            flag["active"] = False
    link.command("sim_mistake", {"kind": "opponent_store"})


def serve(link: FakeLink, **config: Any) -> Iterator[WebServer]:
    app = create_app(link, {**TEST_CONFIG, **config})
    with WebServer(app, "127.0.0.1", 0) as server:
        yield server
    stop_streams(app)


@pytest.fixture
def served(app: Flask) -> Iterator[WebServer]:
    with WebServer(app, "127.0.0.1", 0) as server:
        yield server


def open_page(browser: Browser, url: str, size: tuple[int, int], live: bool = True) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.set_default_timeout(5000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    if live:  # (the admin page holds no event stream)
        expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def inside_first_screen(page: Page, selector: str) -> dict[str, float]:
    """The element's box; asserts that all of it is inside the viewport as first shown."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    view = page.viewport_size
    assert view is not None
    where = f"{selector} at {box} in {view['width']}x{view['height']}"
    assert box["x"] >= 0 and box["y"] >= 0, where
    assert box["x"] + box["width"] <= view["width"] + 0.5, where
    assert box["y"] + box["height"] <= view["height"] + 0.5, where
    return box


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_board_and_the_active_problem_are_on_the_first_screen(
    browser: Browser, served: WebServer, link: FakeLink, size: tuple[int, int]
) -> None:
    game_with_flags(link)
    assert len(link.get_status()["flags"]) == 9
    page = open_page(browser, served.url + "/", size)
    expect(page.locator("#flags .flag.active")).to_have_count(1)
    # The fixed ones are folded into a short history, closed at first.
    expect(page.locator("#flags-fixed-summary")).to_have_text("Fixed problems (8)")
    expect(page.locator("#flags-history .flag.fixed").first).to_be_hidden()
    inside_first_screen(page, "#board svg")
    inside_first_screen(page, "#flags .flag.active")
    page.screenshot(path=f"/tmp/sowboard-first-screen-{size[0]}.png")
    page.locator("#flags-fixed-summary").click()
    expect(page.locator("#flags-history .flag.fixed")).to_have_count(8)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_a_flag_is_worded_for_the_player_who_made_the_mistake(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    link.command("sim_move", {"pit": 2})  # player 2 to move
    link.command("sim_mistake", {"kind": "opponent_store"})  # player 2's seed, player 1's store
    flag = link.get_status()["flags"][-1]
    assert (flag["player"], flag["at"]) == (1, [0, "store"])
    # Shown on player 1's turn it still speaks to player 2, of player 1's store.
    link.update(lambda s: s["game"]["position"].update(to_move=0))
    page = open_page(browser, served.url + "/", (1280, 900))
    expect(page.locator("#flags .flag.active .flag-text")).to_have_text(
        "Player 2: A seed went into Player 1's store. "
        "Nobody sows into the other player's store: take it back."
    )
    expect(page.locator("#flags .flag.active")).to_have_attribute("data-player", "1")
    page.goto(served.url + "/?lang=ja")
    expect(page.locator("#flags .flag.active .flag-text")).to_have_text(
        "プレイヤー2:種がプレイヤー1のゴールに入りました。相手のゴールには入れません。取り戻してください。"
    )
    page.context.close()


def test_the_players_start_a_new_game_with_the_button(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    page = open_page(browser, served.url + "/", (1280, 900))
    page.locator('#board [data-place="0,2"]').click()
    expect(page.locator("#history li")).to_have_count(1)
    button = page.get_by_role("button", name="New game")
    button.click()  # half-played: a second click confirms
    expect(button).to_have_text("Click again to start a new game")
    assert [c for c in link.commands if c[0] == "new_game"] == []
    button.click()
    expect(page.locator("#history li.none")).to_have_text("No moves yet.")
    assert [c for c in link.commands if c[0] == "new_game"] == [("new_game", {})]
    expect(page.locator("#new-game")).to_have_text("New game")
    page.context.close()


def test_an_exhibit_turns_the_new_game_button_off(browser: Browser, link: FakeLink) -> None:
    for server in serve(link, PLAYER_NEW_GAME=False):
        page = open_page(browser, server.url + "/", (1280, 900))
        expect(page.locator("#board svg")).to_be_visible()
        expect(page.locator("#new-game")).to_have_count(0)
        answer = page.request.post(
            server.url + "/api/new_game",
            data="{}",
            headers={"Content-Type": "application/json", "Origin": server.url},
        )
        assert answer.status == 403
        assert "[web] new_game_button = false" in answer.json()["error"]
        assert [c for c in link.commands if c[0] == "new_game"] == []
        page.context.close()


def test_mistake_buttons_are_disabled_while_they_cannot_run(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    page = open_page(browser, served.url + "/", (1280, 900))
    mistake = page.get_by_role("button", name="Sow into the wrong pit")
    expect(mistake).to_be_enabled()
    link.update(lambda s: s["daemon"].update(sim_busy=True))
    expect(mistake).to_be_disabled()
    expect(page.locator("#sim-wait")).to_have_text("Wait until the move is done.")
    link.update(lambda s: s["daemon"].update(sim_busy=False))
    expect(mistake).to_be_enabled()
    page.context.close()


def test_the_kiosk_shows_the_board_one_line_and_the_active_problem_only(
    browser: Browser, link: FakeLink
) -> None:
    game_with_flags(link)
    for server in serve(link, KIOSK=True):
        page = open_page(browser, server.url + "/", (1920, 1080))
        assert page.url == server.url + "/kiosk"  # the only page
        inside_first_screen(page, "#board svg")
        inside_first_screen(page, "#flags .flag.active")
        expect(page.locator("#flags .flag")).to_have_count(1)  # no history of fixed ones
        link.command("sim_mistake", {"kind": "wrong_pit"})  # a second one to put right
        expect(page.locator("#flags .flag.active")).to_have_attribute(
            "data-kind", "wrong_pit"
        )  # the newest only
        expect(page.locator("#flags .flag")).to_have_count(1)
        for absent in ("nav", "#sim-panel", "button.mistake", "a[href='/admin']", "#history"):
            expect(page.locator(absent)).to_have_count(0)
        line = page.locator(".kiosk-line")
        expect(line).to_have_text(
            "Player 2's turn (top row) Player 2: pick up all the seeds from one of your lit pits."
        )
        font = page.locator(".kiosk-line").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert font >= 32, font  # large type, read across a room
        switch = page.locator(".kiosk-lang a[data-lang='ja']")
        height = switch.evaluate("e => e.getBoundingClientRect().height")
        assert height >= 44, height  # a big target for a finger
        page.screenshot(path="/tmp/sowboard-kiosk.png")
        switch.click()
        expect(line).to_contain_text("プレイヤー2の番です")
        assert page.url.startswith(server.url + "/kiosk")
        for path in ("/admin", "/sensors"):
            page.goto(server.url + path)
            assert page.url.split("?")[0] == server.url + "/kiosk"
        assert page.errors == []  # type: ignore[attr-defined]
        page.context.close()


def test_the_admin_form_has_a_field_for_each_option_that_applies(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    page = open_page(browser, served.url + "/admin", (1280, 900), live=False)
    page.get_by_label("PIN").fill(PIN)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#admin-state")).to_have_attribute("data-admin", "yes")
    expect(page.locator("#login-form")).to_be_hidden()  # (it stayed shown before)
    page.locator("#variant").select_option("kalah")
    grand_slam = page.locator("#opt-grand_slam")
    expect(grand_slam).to_be_hidden()  # kalah captures the opposite pit: no grand slam rule
    page.get_by_label("Capture", exact=True).select_option(label="2 or 3 seeds")
    expect(grand_slam).to_be_visible()
    expect(page.locator("#opt-capture_counts")).to_have_value("2, 3")
    page.get_by_label("Capture", exact=True).select_option(label="the opposite pit")
    page.get_by_label("Seeds in each pit at the start").fill("5")
    with page.expect_response("**/api/admin/new_game") as answer:
        page.get_by_role("button", name="Start a new game").click()
    assert answer.value.ok
    # (with the computer-player and match choices the same form makes, at their defaults)
    assert link.commands[-1] == (
        "new_game",
        {"variant": "kalah", "options": {"seeds": 5}, "opponent": None, "match": False},
    )
    page.get_by_label("Seeds in each pit at the start").fill("")
    page.get_by_role("button", name="Start a new game").click()
    expect(page.locator("#admin-result")).to_contain_text("seeds: a whole number is needed")
    page.context.close()


def test_the_admin_undo_is_disabled_while_there_is_nothing_to_undo(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    # (it was enabled, and pressing it got a 409: "there is no move to undo")
    page = open_page(browser, served.url + "/admin", (1280, 900), live=False)
    refused: list[str] = []

    def note(response: Response) -> None:
        if response.status == 409:
            refused.append(response.url)

    page.on("response", note)
    page.get_by_label("PIN").fill(PIN)
    page.get_by_role("button", name="Log in").click()
    undo = page.get_by_role("button", name="Take back the last move")
    expect(undo).to_be_disabled()
    expect(page.locator("#undo-wait")).to_have_text("There is no move to take back yet.")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    link.command("sim_move", {"pit": 2})  # a move on the board: the page follows it live
    expect(undo).to_be_enabled()
    expect(page.locator("#undo-wait")).to_have_text("")
    with page.expect_response("**/api/admin/undo") as answer:
        undo.click()
    assert answer.value.ok and link.commands[-1] == ("undo", {})
    expect(undo).to_be_disabled()  # the only move was taken back
    page.get_by_role("button", name="Log out").click()
    expect(page.locator("#conn")).to_be_hidden()  # (and its stream closed)
    assert refused == [] and page.errors == []  # type: ignore[attr-defined]
    page.context.close()


EVENTS = {
    "relay": "Player 1: the last seed fell into a pit with seeds. "
    "Pick them all up again and keep sowing.",
    "capture": "Player 1 captures: the last seed fell into their own empty pit, "
    "so it and the seeds opposite go to their store.",
    "extra_turn": "Player 1's last seed fell into their own store: Player 1 plays again.",
    "pass": "Player 1 has no seeds to play and passes.",
    "sweep": "The game is over: the seeds left in the pits go to the stores.",
    "grand_slam": "Player 1's move would take all of Player 2's seeds (a grand slam), "
    "so it takes none.",
}


def test_teach_mode_explains_each_rule_event_as_it_happens(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    page = open_page(browser, served.url + "/", (1280, 900))
    explain = page.locator("#explain")
    link.update(lambda s: s["game"].update(events=[event(0, "relay")]))
    expect(explain).to_be_hidden()  # play mode: no explanations
    link.command("mode", {"mode": "teach"})
    for n, (kind, text) in enumerate(EVENTS.items()):
        link.update(lambda s, n=n, kind=kind: s["game"]["events"].append(event(n + 1, kind)))
        expect(explain).to_have_text(text)
        expect(explain).to_have_attribute("data-event", str(n + 1))
    inside_first_screen(page, "#explain")
    page.goto(served.url + "/?lang=ja")
    expect(explain).to_have_text(
        "プレイヤー1の手でプレイヤー2の種がぜんぶなくなってしまうので(グランドスラム)、何もとれません。"
    )
    page.context.close()


def test_teach_mode_says_an_empty_opponent_must_be_fed(browser: Browser) -> None:
    link = FakeLink(variant="oware")
    link.command("mode", {"mode": "teach"})
    link.update(lambda s: s["game"]["position"].update(pits=[[4, 4, 4, 4, 4, 4], [0] * 6]))
    for server in serve(link):
        page = open_page(browser, server.url + "/", (1280, 900))
        expect(page.locator("#explain")).to_have_text(
            "Player 2 has no seeds: Player 1 must play a pit that gives them some."
        )
        page.context.close()


def event(n: int, kind: str) -> dict[str, Any]:
    rule = "opposite" if kind == "capture" else ""
    return {"n": n, "kind": kind, "player": 0, "at": [0, 1], "places": 1, "rule": rule}


def test_the_legend_tells_teach_modes_dim_path_from_the_white_target(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    def teach_lights(status: dict[str, Any]) -> None:
        status["leds"]["places"]["0,3"] = {"color": "#ffffff", "effect": "steady"}
        status["leds"]["places"]["0,4"] = {"color": "#464646", "effect": "steady"}

    link.update(teach_lights)
    page = open_page(browser, served.url + "/", (1280, 900))
    legend = page.locator("#lights li strong")
    expect(legend.filter(has_text="dim white")).to_have_text(
        "dim white, steady (the path the seeds in the hand will take)"
    )
    expect(legend.filter(has_text="white, steady").filter(has_not_text="dim")).to_have_count(1)
    expect(page.locator('#board [data-place="0,4"] .color-name')).to_have_text("dim white")
    page.context.close()


def test_the_idle_kiosk_explains_sowing_in_turn_with_a_seed_going_round(
    browser: Browser, link: FakeLink
) -> None:
    for server in serve(link, KIOSK=True):
        page = open_page(browser, server.url + "/kiosk", (1920, 1080))
        attract = page.locator("#attract")
        expect(attract).to_be_hidden()
        link.update(lambda s: s["daemon"].update(idle=True))  # the LEDs run their chase
        expect(attract).to_have_text(
            "Come and play! Pick up all the seeds from one pit on your side."
        )
        expect(page.locator("#board .attract-seed")).to_have_count(1)
        first = attract.get_attribute("data-place")
        expect(attract).not_to_have_attribute("data-place", first or "")  # the seed moves on
        expect(attract).to_contain_text("the white light shows where", timeout=8000)
        inside_first_screen(page, "#board svg")
        link.update(lambda s: s["daemon"].update(idle=False))  # a visitor
        expect(attract).to_be_hidden()
        expect(page.locator("#board .attract-seed")).to_have_count(0)
        page.context.close()


def test_a_guided_undo_says_what_the_lit_place_asks(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    def undoing(color: str) -> Any:
        def change(status: dict[str, Any]) -> None:
            status["game"].update(expected=[[0, 3]], expected_kind="undo", phase="undoing")
            status["leds"]["places"]["0,3"] = {"color": color, "effect": "fast_blink"}

        return change

    page = open_page(browser, served.url + "/", (1280, 900))
    link.update(undoing("#cc79a7"))  # purple, too many: take seeds out
    expect(page.locator("#expect")).to_have_text(
        "Taking back the last move: take seeds out of Player 1, pit 4, one at a time, "
        "until its light moves on."
    )
    link.update(undoing("#56b4e9"))  # sky blue, too few: put them back
    expect(page.locator("#expect")).to_contain_text("put the seeds from your hand into")
    page.context.close()


def test_a_replayed_demo_game_says_it_is_one_and_asks_nothing(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    page = open_page(browser, served.url + "/", (1280, 900))
    expect(page.locator("#expect")).to_contain_text("pick up all the seeds")
    link.update(lambda s: s["game"].update(phase="show", expected_kind="sow"))  # (show.py)
    expect(page.locator("#expect")).to_have_text(
        "Demo: the lights replay a game, seed by seed. Watch where each seed goes."
    )
    page.context.close()
