"""End to end: the page in a real Chromium, served by waitress, kept live by Server-Sent Events.

Uses Debian's chromium (`apt-get install -y chromium`), not a browser downloaded by Playwright
(`playwright install` is never run). Skipped only when no chromium can be found.
A screenshot of the board with a flag goes to /tmp/sowboard-page.png (Japanese:
/tmp/sowboard-page-ja.png) so that a person can check the page looks right.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, Locator, Page, expect

from controller.daemon.notices import WARNING
from tests.browser import needs_chromium
from tests.web.conftest import PIN, TEST_CONFIG
from tests.web.fake_link import AMBER, BLUE, RED, FakeLink
from web_ui.app import create_app
from web_ui.serve import WebServer

SCREENSHOT = "/tmp/sowboard-page.png"
SCREENSHOT_JA = "/tmp/sowboard-page-ja.png"

pytestmark = needs_chromium


@pytest.fixture
def served(app: Flask) -> Iterator[WebServer]:
    with WebServer(app, "127.0.0.1", 0) as server:
        yield server


class Watched:
    """The page plus what went wrong in it (uncaught errors, console errors)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.console_errors: list[str] = []
        self.requests: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on(
            "console",
            lambda msg: self.console_errors.append(msg.text) if msg.type == "error" else None,
        )
        page.on("request", lambda request: self.requests.append(request.url))


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    context = browser.new_context(
        viewport={"width": 1280, "height": 1000}, locale="en-US", accept_downloads=True
    )
    context.set_default_timeout(5000)
    page = Watched(context.new_page())
    yield page
    context.close()
    assert page.errors == []


def place(page: Page, player: int, where: int | str) -> Locator:
    return page.locator(f'#board [data-place="{player},{where}"]')


def count(page: Page, player: int, where: int | str) -> Locator:
    return place(page, player, where).locator(".count")


def test_play_a_move_see_a_flag_and_switch_to_japanese(
    watched: Watched, served: WebServer, link: FakeLink
) -> None:
    page = watched.page
    page.goto(served.url + "/")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")

    # The start position: seven seeds in every pit, empty stores, player 1's pits lit.
    for player in (0, 1):
        for pit in range(7):
            expect(count(page, player, pit)).to_have_text("7")
        expect(count(page, player, "store")).to_have_text("0")
    expect(page.locator("#turn")).to_have_text("Player 1's turn (bottom row)")
    expect(page.locator("#expect")).to_have_text(
        "Player 1: pick up all the seeds from one of your lit pits."
    )
    expect(place(page, 0, 2)).to_have_attribute("data-color", BLUE)
    expect(place(page, 0, 2).locator(".color-name")).to_have_text("blue")
    expect(place(page, 1, 0)).to_have_attribute("data-color", "off")
    expect(page.locator("#variant")).to_have_text("Congkak")
    expect(page.locator('#options tr[data-option="laps"] td')).to_have_text(
        "relay: keep sowing from a pit with seeds"
    )
    expect(page.locator("#options th").first).to_have_text("Pits per row")  # the daemon's order

    # Player 1 plays their pit 3 by clicking it; the new position arrives over the stream.
    requests_before = len(watched.requests)
    place(page, 0, 2).click()
    expect(count(page, 0, 2)).to_have_text("0")
    for pit in (3, 4, 5, 6):
        expect(count(page, 0, pit)).to_have_text("8")
    expect(count(page, 0, "store")).to_have_text("1")
    expect(count(page, 1, 0)).to_have_text("8")
    expect(count(page, 1, 1)).to_have_text("8")
    expect(place(page, 1, 0)).to_have_attribute("data-color", BLUE)
    expect(place(page, 1, 0).locator(".ring")).to_have_attribute("fill", BLUE)
    expect(place(page, 1, 1)).to_have_attribute("data-color", AMBER)  # the last seed
    expect(place(page, 0, 0)).to_have_attribute("data-color", "off")
    expect(page.locator("#turn")).to_have_text("Player 2's turn (top row)")
    expect(page.locator("#history li")).to_have_text(["Player 1 played pit 3"])
    polled = [u for u in watched.requests[requests_before:] if u.endswith("/api/state")]
    assert polled == []
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")

    # A mistake on purpose: the flag in plain words, the place lit red with a warning sign.
    page.get_by_role("button", name="Sow into the wrong pit").click()
    expect(page.locator("#flags .flag.active .flag-text")).to_have_text(
        "Player 2: A seed went into pit 5; it belongs in pit 4. Take it back."
    )
    expect(place(page, 1, 4)).to_have_attribute("data-color", RED)
    expect(place(page, 1, 4)).to_have_attribute("data-effect", "blink")
    expect(place(page, 1, 4).locator(".marker-problem")).to_be_visible()
    expect(place(page, 1, 4).locator(".color-name")).to_have_text("red")
    page.screenshot(path=SCREENSHOT, full_page=True)

    # The language switch.
    page.get_by_role("link", name="日本語").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("#turn")).to_have_text("プレイヤー2の番です (上の列)")
    expect(page.locator("#flags .flag.active .flag-text")).to_have_text(
        "プレイヤー2:種が穴5に入りました。入れるのは穴4です。取り戻してください。"
    )
    expect(page.locator("#sim-heading")).to_have_text("シミュレーションの盤で遊ぶ")
    expect(place(page, 1, 0).locator(".color-name")).to_have_text("青")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    page.screenshot(path=SCREENSHOT_JA, full_page=True)
    assert watched.console_errors == []


def test_a_japanese_browser_gets_japanese(browser: Browser, served: WebServer) -> None:
    context = browser.new_context(locale="ja-JP")
    page = context.new_page()
    page.goto(served.url + "/")
    expect(page.locator("#turn")).to_have_text("プレイヤー1の番です (下の列)")
    page.get_by_role("link", name="English").click()
    expect(page.locator("#turn")).to_have_text("Player 1's turn (bottom row)")
    page.goto(served.url + "/sensors")
    expect(page.locator("h1")).to_have_text("Sensors")  # the switch sticks
    context.close()


def test_keyboard_plays_a_pit(watched: Watched, served: WebServer) -> None:
    page = watched.page
    page.goto(served.url + "/")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    pit = place(page, 0, 6)
    expect(pit).to_have_attribute("role", "button")
    expect(pit).to_have_attribute(
        "aria-label", "Play pit 7. Player 1, pit 7: 7 seeds. Light: blue, pulsing."
    )

    pit.focus()
    page.keyboard.press("Enter")

    expect(count(page, 0, 6)).to_have_text("0")
    expect(place(page, 1, 6)).to_have_attribute("role", "button")  # player 2 may play now


def test_both_hands_start_a_simultaneous_opening(browser: Browser) -> None:
    """RULES.md `simultaneous_opening`: both rows are playable; one pit of each, then both
    hands go at once."""
    link = FakeLink(opening=True)
    app = create_app(link, dict(TEST_CONFIG))
    with WebServer(app, "127.0.0.1", 0) as server:
        context = browser.new_context(locale="en-US")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + "/")
        expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
        expect(page.locator("#turn")).to_have_text("Both players at once")
        expect(page.locator("#expect")).to_have_text(
            "Both players: pick up all the seeds from one of your lit pits, at the same time."
        )
        expect(place(page, 1, 4)).to_have_attribute(
            "aria-label",
            "Start player 2 from pit 5. Player 2, pit 5: 7 seeds. Light: blue, pulsing.",
        )
        expect(place(page, 1, 4)).to_have_attribute("aria-pressed", "false")

        place(page, 1, 4).click()

        expect(place(page, 1, 4)).to_have_class(re.compile(r"\bchosen\b"))
        expect(place(page, 1, 4)).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#expect")).to_have_text("Now choose player 1's pit.")
        assert link.commands == []

        place(page, 0, 2).click()

        expect(page.locator("#turn")).to_have_text("Player 1's turn (bottom row)")
        assert link.commands == [("sim_move", {"pits": [2, 4]})]
        expect(count(page, 1, 4)).to_have_text("0")
        expect(place(page, 1, 4)).not_to_have_class(re.compile(r"\bchosen\b"))
        assert errors == []
        context.close()


def test_a_new_game_forgets_an_opening_pick(browser: Browser) -> None:
    """A pit picked for one hand waits for the other only in the game it was picked in."""
    link = FakeLink(opening=True)
    app = create_app(link, dict(TEST_CONFIG))
    with WebServer(app, "127.0.0.1", 0) as server:
        context = browser.new_context(locale="en-US")
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
        place(page, 1, 6).click()
        expect(page.locator("#expect")).to_have_text("Now choose player 1's pit.")

        link.command("new_game", {"options": {"pits": 5}})

        expect(page.locator('#board [data-place="0,6"]')).to_have_count(0)
        expect(page.locator("#expect")).to_have_text(
            "Both players: pick up all the seeds from one of your lit pits, at the same time."
        )
        place(page, 0, 2).click()
        expect(place(page, 0, 2)).to_have_attribute("aria-pressed", "true")
        assert [c for c in link.commands if c[0] == "sim_move"] == []
        context.close()


def test_falls_back_to_polling_without_event_stream(
    watched: Watched, served: WebServer, link: FakeLink
) -> None:
    page = watched.page
    page.route("**/api/events", lambda route: route.abort())
    page.goto(served.url + "/")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "polling")

    link.command("sim_move", {"pit": 2})

    expect(count(page, 0, 2)).to_have_text("0")
    expect(page.locator("#turn")).to_have_text("Player 2's turn (top row)")


def test_a_refused_move_is_told(watched: Watched, served: WebServer, link: FakeLink) -> None:
    page = watched.page
    page.goto(served.url + "/")
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    link.sim = False  # the daemon stops the simulated board behind the page's back

    place(page, 0, 1).click()

    expect(page.locator("#toast")).to_have_text(
        "The board said no: the simulated board is not running"
    )


def boxes(page: Page, *places: tuple[int, int | str]) -> list[dict[str, float]]:
    out = []
    for player, where in places:
        box = place(page, player, where).locator(".cup").bounding_box()
        assert box is not None
        out.append(box)
    return out


def test_congkak_layout(watched: Watched, served: WebServer) -> None:
    """RULES.md 1: congkak pit 0 is the player's rightmost, the store on their left."""
    page = watched.page
    page.goto(served.url + "/")
    p0_pit0, p0_pit6, p0_store, p1_pit0, p1_pit6, p1_store = boxes(
        page, (0, 0), (0, 6), (0, "store"), (1, 0), (1, 6), (1, "store")
    )
    assert p0_pit0["y"] > p1_pit0["y"]  # player 1 (index 0) sits at the bottom
    assert p0_store["x"] < p0_pit6["x"] < p0_pit0["x"]  # bottom row: store left, pit 1 right
    assert p1_pit0["x"] < p1_pit6["x"] < p1_store["x"]  # top row, seen from across the table
    assert p1_pit0["x"] == pytest.approx(p0_pit6["x"])  # opposite pits: pits-1-i


def test_kalah_layout(browser: Browser) -> None:
    """RULES.md 1: kalah pit 0 is the player's leftmost, the store on their right."""
    app = create_app(FakeLink(variant="kalah"), dict(TEST_CONFIG))
    with WebServer(app, "127.0.0.1", 0) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        p0_pit0, p0_pit5, p0_store, p1_pit0, p1_store = boxes(
            page, (0, 0), (0, 5), (0, "store"), (1, 0), (1, "store")
        )
        assert p0_pit0["x"] < p0_pit5["x"] < p0_store["x"]
        assert p1_store["x"] < p1_pit0["x"]
        assert p1_pit0["x"] == pytest.approx(p0_pit5["x"])
        expect(count(page, 0, 0)).to_have_text("3")
        page.close()


def test_record_download(watched: Watched, served: WebServer, link: FakeLink) -> None:
    link.command("sim_move", {"pit": 2})
    page = watched.page
    page.goto(served.url + "/")

    with page.expect_download() as download:
        page.get_by_role("link", name="Download the game record (JSON)").click()

    assert download.value.suggested_filename.startswith("sowboard-congkak-")
    path = download.value.path()
    assert path is not None
    assert '"moves": [\n    2\n  ]' in Path(path).read_text()


def test_sensor_page_is_live(watched: Watched, served: WebServer, link: FakeLink) -> None:
    page = watched.page
    page.goto(served.url + "/sensors")
    rows = page.locator("#sensors tbody tr")
    expect(rows).to_have_count(16)
    expect(rows.nth(2)).to_contain_text("Player 1, pit 3")
    expect(rows.nth(2).locator("td").nth(3)).to_have_text("37.8")

    link.command("sim_move", {"pit": 2})
    link.update(lambda s: s["sensors"][5].update(fault="no data for 0.5 s"))

    expect(rows.nth(2).locator("td").nth(3)).to_have_text("0.0")
    expect(rows.nth(5)).to_contain_text("⚠ no data for 0.5 s")


def test_admin_logs_in_and_changes_the_mode(
    watched: Watched, served: WebServer, link: FakeLink
) -> None:
    page = watched.page
    page.goto(served.url + "/admin")
    expect(page.locator("#admin-state")).to_have_attribute("data-admin", "no")

    page.get_by_label("PIN").fill("0000")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#admin-result")).to_have_text("The board said no: wrong PIN")

    page.get_by_label("PIN").fill(PIN)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#admin-state")).to_have_attribute("data-admin", "yes")
    page.locator("#mode-select").select_option("teach")
    # (waited for by its answer: the login left "Done." on the page already)
    with page.expect_response("**/api/admin/mode") as answer:
        page.get_by_role("button", name="Set the mode").click()
    assert answer.value.ok
    expect(page.locator("#admin-result")).to_have_text("Done.")
    assert link.commands[-1] == ("mode", {"mode": "teach"})
    page.get_by_role("button", name="Save a recording").click()
    expect(page.locator("#admin-result")).to_have_text(
        "Saved as rec-20260101-000000-admin.jsonl.gz in the data directory's recordings folder."
    )
    assert link.commands[-1] == ("save_recording", {"reason": "admin"})
    link.notice("records.jsonl could not be written (No space left on device)", level=WARNING)
    page.get_by_role("button", name="Acknowledge the warnings").click()
    expect(page.locator("#admin-result")).to_have_text("1 warnings acknowledged.")
    assert link.commands[-1] == ("acknowledge_notices", {})
    assert link.get_status()["daemon"]["notices_unacknowledged"] == 0

    page.reload()  # the session survives a reload
    expect(page.locator("#admin-state")).to_have_attribute("data-admin", "yes")
    page.get_by_role("button", name="Log out").click()
    expect(page.locator("#admin-state")).to_have_attribute("data-admin", "no")


def test_the_page_says_which_pit_the_computer_plays_and_shows_the_hint(
    watched: Watched, served: WebServer, link: FakeLink
) -> None:
    page = watched.page
    page.goto(served.url + "/")
    link.command("new_game", {"opponent": {"player": 1, "level": 3}})
    link.command("sim_move", {"pit": 2})  # player 1 (index 0) moves; the computer is next
    link.update(lambda s: s["game"]["computer"].update(thinking=True))
    expect(page.locator("#expect")).to_have_text("The computer is thinking…")
    expect(page.locator("#turn")).to_contain_text("(the computer)")
    link.update(lambda s: s["game"]["computer"].update(thinking=False, move=4))
    expect(page.locator("#expect")).to_contain_text("The computer plays pit 5")

    # The hint is set once the page's request has reached the link: the fake link publishes a
    # snapshot of its own after a command, which would wipe a hint set before it.
    with page.expect_response("**/api/hint") as answer:
        page.get_by_role("button", name="Hint").click()
    assert answer.value.ok
    link.update(lambda s: s["game"]["computer"].update(hint=4, move=4))
    expect(page.locator("#hint-text")).to_have_text("Hint: pit 5")
    assert link.commands[-1] == ("hint", {})

    page.get_by_role("link", name="日本語").click()
    # (the fake link may have published its own snapshot again meanwhile, as after the hint)
    link.update(lambda s: s["game"]["computer"].update(thinking=False, move=4))
    expect(page.locator("#expect")).to_contain_text("コンピューターは穴5を打ちます")


def test_the_admin_starts_a_game_against_the_computer(
    watched: Watched, served: WebServer, link: FakeLink
) -> None:
    page = watched.page
    page.goto(served.url + "/admin")
    page.get_by_label("PIN").fill(PIN)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#admin-state")).to_have_attribute("data-admin", "yes")
    page.locator("#opponent-player").select_option("1")
    page.locator("#opponent-level").select_option("5")
    with page.expect_response("**/api/admin/new_game") as answer:
        page.get_by_role("button", name="Start a new game").click()
    assert answer.value.ok
    assert link.commands[-1] == (
        "new_game",
        # (the option fields send only what differs from the variant's rules: nothing here)
        {
            "variant": "congkak",
            "options": {},
            "match": False,
            "opponent": {"player": 1, "level": 5},
        },
    )


def test_the_page_counts_the_last_seconds_and_says_the_time_is_up(
    watched: Watched, served: WebServer, link: FakeLink
) -> None:
    page = watched.page
    page.goto(served.url + "/")

    def clock(**timer: Any) -> None:
        link.update(lambda s: s["game"]["turn_timer"].update(limit_s=10.0, **timer))

    clock(elapsed_s=2.0, running=True, overrun=False)
    expect(page.locator("#timer")).to_contain_text("of 10 s")
    clock(elapsed_s=7.2, running=True, overrun=False)
    expect(page.locator("#timer")).to_have_text(re.compile(r"[123] s left to start a move"))
    expect(page.locator("#timer")).to_have_class(re.compile("late"))
    clock(elapsed_s=7.2, running=False, overrun=False)  # the move started: the clock stopped
    expect(page.locator("#timer")).to_have_text("Time this turn: 7 s of 10 s")
    expect(page.locator("#timer")).not_to_have_class(re.compile("late"))
    clock(elapsed_s=11.0, running=True, overrun=True)
    expect(page.locator("#timer")).to_contain_text("Time is up: 11 s of 10 s")
    expect(page.locator("#timer")).to_have_class(re.compile("late"))
    clock(elapsed_s=10.0, running=True, overrun=True, consequence="pass")
    expect(page.locator("#timer")).to_have_text("Time is up (10 s): the turn passes")
