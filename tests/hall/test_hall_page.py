"""The hall view (issue 16, build 3): the hall's state from messages, its page and API, its
event stream; and, in chromium, boards published through a real Mosquitto."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, Page, expect

from controller.daemon.files import RECORDS_FILE
from controller.daemon.mqttconfig import MqttSettings
from controller.hall.broker import Mosquitto
from controller.hall.serve import HallServer
from controller.hall.state import MAX_BOARDS, Hall
from tests.browser import needs_chromium, watched_page
from tests.daemon.conftest import Board, make_config
from tests.hall.conftest import wait_for
from tests.web.sse import EventReader
from web_ui.app import stop_streams
from web_ui.hall import create_hall_app

POSITION = {
    "pits": [[3, 3, 0], [3, 3, 3]],
    "stores": [1, 0],
    "to_move": 1,
    "over": False,
    "winner": None,
}
FLAG = {
    "id": 4,
    "t": 1.0,
    "kind": "wrong_pit",
    "at": [1, 2],
    "expected": [[1, 1]],
    "active": True,
    "detail": "",
}


def status(
    board: str,
    *,
    flags: list[dict[str, Any]] | None = None,
    faults: list[dict[str, Any]] | None = None,
    behind: dict[str, Any] | None = None,
    warnings: dict[str, Any] | None = None,
    seq: int = 0,
) -> bytes:
    body = {
        "board": board,
        "seq": seq,
        "t": time.time(),
        "board_name": "kalah3",
        "pits": 3,
        "variant": "kalah",
        "position": POSITION,
        "hand": [0, 0],
        "expected": [[1, 0]],
        "expected_kind": "pickup",
        "phase": "start",
        "moves": 1,
        "last_move": {"ply": 1, "player": 0, "pit": 2},
        "flags": flags or [],
        "mode": "play",
        "sim": True,
        "health": {
            "state": "playing",
            "faults": faults or [],
            "lag_ms_p99": 1.5,
            "missed_ticks": 0,
            **({} if behind is None else {"behind": behind}),
            **({} if warnings is None else {"warnings": warnings}),
        },
        "mqtt": {"dropped": 0},
    }
    return json.dumps(body).encode()


def move(board: str, seq: int, ply: int) -> bytes:
    return json.dumps(
        {"board": board, "seq": seq, "t": time.time(), "ply": ply, "player": 0, "pit": 2}
    ).encode()


@pytest.fixture
def hall() -> Hall:
    hall = Hall()
    hall.broker(True)
    hall.receive("sowboard/b1/availability", b"online")
    hall.receive("sowboard/b1/status", status("b1", flags=[FLAG]))
    hall.receive("sowboard/b2/availability", b"offline")
    hall.receive("sowboard/b2/status", status("b2"))
    return hall


@pytest.fixture
def app(hall: Hall) -> Iterator[Flask]:
    app = create_hall_app(
        hall, {"ALLOWED_HOSTS": ("localhost",), "SSE_POLL_S": 0.05, "SSE_HEARTBEAT_S": 0.1}
    )
    yield app
    stop_streams(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_the_hall_counts_what_arrives_and_what_was_lost(hall: Hall) -> None:
    for seq in (1, 2, 4):  # 3 never came
        assert hall.receive("sowboard/b1/event/move", move("b1", seq, seq))
    view = hall.board("b1")
    assert view is not None
    assert (view["events_received"], view["events_lost"]) == (3, 1)
    assert [e["event"] for e in view["events"]] == ["move"] * 3
    # A status that says more events were sent than arrived: those are lost too.
    hall.receive("sowboard/b1/status", status("b1", seq=6))
    assert hall.board("b1")["events_lost"] == 3  # type: ignore[index]
    # The daemon started again: its seqs start at 1, and so does the count.
    hall.receive("sowboard/b1/event/move", move("b1", 1, 1))
    hall.receive("sowboard/b1/status", status("b1", seq=1))
    assert (hall.board("b1")["events_received"], hall.board("b1")["events_lost"]) == (1, 0)  # type: ignore[index]


@pytest.mark.parametrize(
    ("topic", "payload"),
    [
        ("other/b1/status", b"{}"),
        ("sowboard/b1/weather", b"{}"),
        ("sowboard/../status", b"{}"),
        ("sowboard/b1/status", b"not json"),
        ("sowboard/b1/status", b"[1, 2]"),
        ("sowboard/b1/availability", b"maybe"),
        ("sowboard/b1/status", b"{" + b" " * (64 * 1024) + b"}"),
    ],
)
def test_messages_that_are_not_a_boards_are_refused(hall: Hall, topic: str, payload: bytes) -> None:
    before = hall.snapshot()
    assert not hall.receive(topic, payload)
    assert hall.rejected == 1
    assert hall.snapshot() == before


def test_at_most_max_boards(hall: Hall) -> None:
    for k in range(MAX_BOARDS + 5):
        hall.receive(f"sowboard/x{k}/availability", b"online")
    assert len(hall.snapshot()["boards"]) == MAX_BOARDS
    assert hall.rejected == 7  # (b1 and b2 were there first)


def test_offline_when_the_board_says_so_or_the_hall_has_no_broker(hall: Hall) -> None:
    assert [b["online"] for b in hall.snapshot()["boards"]] == [True, False]
    hall.broker(False, "connection lost")
    snapshot = hall.snapshot()
    assert [b["online"] for b in snapshot["boards"]] == [False, False]
    assert snapshot["broker"] == {"connected": False, "error": "connection lost"}


def test_the_page_carries_the_hall_and_its_strings(client: FlaskClient) -> None:
    page = client.get("/", headers={"Host": "localhost"})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="hall"' in html and "hall.js" in html and "sowboard.css" in html
    data = json.loads(html.split('id="sowboard-status">')[1].split("</script>")[0])
    assert [b["board"] for b in data["boards"]] == ["b1", "b2"]
    assert data["boards"][0]["status"]["flags"][0]["kind"] == "wrong_pit"
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


def test_japanese_and_the_board_detail(client: FlaskClient) -> None:
    page = client.get("/", headers={"Host": "localhost", "Accept-Language": "ja"})
    assert "ホールのすべての盤" in page.get_data(as_text=True)
    detail = client.get("/board/b1", headers={"Host": "localhost"})
    assert detail.status_code == 200 and 'data-board="b1"' in detail.get_data(as_text=True)
    assert client.get("/board/nobody", headers={"Host": "localhost"}).status_code == 404
    assert client.get("/board/..%2Fx", headers={"Host": "localhost"}).status_code == 404
    assert client.get("/api/hall/board/b2", headers={"Host": "localhost"}).json["board"] == "b2"  # type: ignore[index]


def test_a_foreign_host_name_is_refused(client: FlaskClient) -> None:
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"Host": "127.0.0.1"}).status_code == 200


def test_the_stream_sends_the_broker_state_and_each_changed_board(
    client: FlaskClient, hall: Hall
) -> None:
    since = hall.version
    response = client.get(
        f"/api/hall/events?since={since}", headers={"Host": "localhost"}, buffered=False
    )
    assert response.mimetype == "text/event-stream"
    with EventReader(response.response, response.close) as events:  # type: ignore[arg-type]
        first = events.next(5)
        assert first.event == "hall" and first.json()["connected"] is True
        hall.receive("sowboard/b2/event/move", move("b2", 1, 2))
        changed = events.next(5)
        assert changed.event == "board"
        assert changed.json()["board"] == "b2" and changed.json()["events_received"] == 1
        assert "events" not in changed.json()  # (the cards do not show them)


def test_a_boards_own_stream_has_its_events_and_no_other_board(
    client: FlaskClient, hall: Hall
) -> None:
    url = f"/api/hall/events?since={hall.version}&board=b2"
    response = client.get(url, headers={"Host": "localhost"}, buffered=False)
    with EventReader(response.response, response.close) as events:  # type: ignore[arg-type]
        assert events.next(5).event == "hall"
        hall.receive("sowboard/b1/event/move", move("b1", 1, 1))
        hall.receive("sowboard/b2/event/move", move("b2", 1, 2))
        changed = events.next_event(5)
        assert changed.json()["board"] == "b2"
        assert [e["ply"] for e in changed.json()["events"]] == [2]


# -- in chromium, through a real broker -------------------------------------------------------


@needs_chromium
def test_boards_through_mosquitto_in_the_hall_page(
    browser: Browser, broker: Mosquitto, tmp_path: Path
) -> None:
    server = HallServer(MqttSettings(url=broker.url, board_id="hall"), port=0).start()
    boards = {
        name: Board(make_config(tmp_path / name, mqtt={"url": broker.url, "board_id": name}))
        for name in ("pair-1", "pair-2")
    }
    try:
        for board in boards.values():
            board.ready()
        first = boards["pair-1"]
        first.play(3)
        wait_for(lambda: len(server.hall.snapshot()["boards"]) == 2, 10, "both boards")
        context, page, errors = watched_page(browser)
        page.goto(server.url + "/")
        cards = page.locator(".hall-card")
        expect(cards).to_have_count(2)
        one = page.locator('.hall-card[data-board="pair-1"]')
        expect(one).to_have_attribute("data-state", "online")
        expect(one.locator(".hall-turn")).to_have_text("Player 2's turn")
        # The board's position as its own page has it, seed for seed.
        position = first.status()["game"]["position"]
        pit = one.locator('[data-place="0,3"]')
        expect(pit).to_have_attribute("data-seeds", str(position["pits"][0][3]))
        # A board that stops goes grey (it says "offline" as it goes).
        boards["pair-2"].stop()
        expect(page.locator('.hall-card[data-board="pair-2"]')).to_have_attribute(
            "data-state", "offline"
        )
        # A move on the other board reaches the open page live.
        mover = first.status()["game"]["position"]
        playable = next(i for i, n in enumerate(mover["pits"][1]) if n)
        first.play(playable)
        expect(one.locator(".hall-facts")).to_contain_text("2 moves")
        one.locator("a").click()
        expect(page.locator("#events li")).to_have_count(2)
        expect(page.locator("#events li").last).to_have_text("Move 1: Player 1, pit 4")
        page.screenshot(path=str(tmp_path / "hall.png"))
        assert errors == []
        context.close()
    finally:
        for board in boards.values():
            board.stop()
        server.stop()


@contextmanager
def _hall_page(browser: Browser, hall: Hall, locale: str) -> Iterator[tuple[Page, str]]:
    """The hall served on a free port and a page of it in chromium: the page and the
    server's address. The page must raise no script error."""
    from web_ui.serve import WebServer

    app = create_hall_app(hall, {"ALLOWED_HOSTS": ("localhost",), "SSE_POLL_S": 0.1})
    try:
        with WebServer(app, "127.0.0.1", 0) as server:
            context, page, errors = watched_page(browser, locale, timeout_ms=30000)
            yield page, server.url
            assert errors == []
            context.close()
    finally:
        stop_streams(app)


@needs_chromium
def test_fifty_boards_and_one_changing_live(browser: Browser) -> None:
    hall = Hall()
    hall.broker(True)
    for k in range(50):
        hall.receive(f"sowboard/b{k:02d}/availability", b"online")
        hall.receive(f"sowboard/b{k:02d}/status", status(f"b{k:02d}"))
    with _hall_page(browser, hall, "ja-JP") as (page, url):
        page.goto(url + "/")
        expect(page.locator(".hall-card")).to_have_count(50)
        expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
        card = page.locator('.hall-card[data-board="b37"]')
        expect(card).not_to_have_class("flagged")
        hall.receive("sowboard/b37/status", status("b37", flags=[FLAG]))
        expect(card).to_have_class("hall-card online flagged")
        expect(card.locator(".hall-flags li")).to_have_count(1)
        expect(card.locator('[data-place="1,2"]')).to_have_class("mini-place problem")
        hall.receive("sowboard/b12/availability", b"offline")
        expect(page.locator('.hall-card[data-board="b12"]')).to_have_attribute(
            "data-state", "offline"
        )
        hall.broker(False, "connection lost")
        expect(page.locator("#broker")).to_contain_text("connection lost")
        expect(page.locator('.hall-card[data-state="online"]')).to_have_count(0)


@needs_chromium
def test_a_flag_in_the_hall_names_the_player_who_made_the_mistake(browser: Browser) -> None:
    # Player 2's seed in player 1's store, and a seed nobody sowed (no player)
    theirs = {**FLAG, "kind": "opponent_store", "at": [0, "store"], "expected": [], "player": 1}
    nobodys = {**FLAG, "id": 5, "kind": "foreign_seed", "at": [1, 0], "player": None}
    hall = Hall()
    hall.broker(True)
    hall.receive("sowboard/b1/availability", b"online")
    hall.receive("sowboard/b1/status", status("b1", flags=[theirs, nobodys]))
    event = {**theirs, "seq": 1, "t": time.time()}
    hall.receive("sowboard/b1/event/flag", json.dumps(event).encode())
    said = (
        "Player 2: A seed went into Player 1's store. "
        "Nobody sows into the other player's store: take it back."
    )
    with _hall_page(browser, hall, "en-US") as (page, url):
        page.goto(url + "/")
        flags = page.locator('.hall-card[data-board="b1"] .hall-flags li')
        expect(flags).to_have_text(
            [
                f"⚠ {said}",
                "⚠ A seed that is not part of the game appeared in Player 2, pit 1. Take it out.",
            ]
        )
        page.goto(url + "/board/b1")
        expect(page.locator("#events li").last).to_have_text(f"⚠ {said}")
        page.goto(url + "/?lang=ja")
        expect(flags.first).to_contain_text("プレイヤー2:種がプレイヤー1のゴールに入りました")


@needs_chromium
def test_a_boards_faults_in_the_hall_are_in_the_pages_language(browser: Browser) -> None:
    # (they were "link_fault: Pico: serial link lost" in every language)
    faults = [
        {"kind": "link_fault", "part": "link", "detail": "Pico: serial link lost"},
        {"kind": "write_failed", "part": "game.jsonl", "detail": "No space left on device"},
    ]
    hall = Hall()
    hall.broker(True)
    hall.receive("sowboard/b1/availability", b"online")
    hall.receive("sowboard/b1/status", status("b1", faults=faults))
    with _hall_page(browser, hall, "en-US") as (page, url):
        lines = page.locator('.hall-card[data-board="b1"] .hall-fault')
        page.goto(url + "/")
        expect(lines).to_have_text(
            [
                "⚠ The board's scales cannot be read (Pico: serial link lost). Check the cable.",
                "⚠ A file cannot be saved (No space left on device). Is the memory card full?",
            ]
        )
        page.goto(url + "/?lang=ja")
        expect(lines).to_have_text(
            [
                "⚠ 盤のはかりが読めません(Pico: serial link lost)。ケーブルを確かめてください。",
                "⚠ ファイルを保存できません(No space left on device)。"
                "メモリーカードがいっぱいではありませんか。",
            ]
        )
        page.goto(url + "/board/b1")  # (the detail, still in Japanese)
        expect(page.locator(".hall-fault").first).to_contain_text("盤のはかりが読めません")


@needs_chromium
def test_a_board_losing_scale_readings_says_so_in_the_hall(browser: Browser) -> None:
    """health.behind (the frames the board's readers dropped): a warning on the board's card
    while it goes on, the counts on its detail page; a board too old to send it shows none."""
    losing = {
        "dropped_frames": 57,
        "dropped_frames_last_minute": 12,
        "skipped_s": 0.0,
        "skipped_s_last_minute": 0.0,
    }
    hall = Hall()
    hall.broker(True)
    for board, behind in (("b1", losing), ("b2", None)):
        hall.receive(f"sowboard/{board}/availability", b"online")
        hall.receive(f"sowboard/{board}/status", status(board, behind=behind))
    with _hall_page(browser, hall, "en-US") as (page, url):
        page.goto(url + "/")
        expect(page.locator('.hall-card[data-board="b1"] .hall-behind')).to_have_text(
            "⚠ Scale readings lost: 12 in the last minute, 57 since the start. The board's"
            " computer is not keeping up with the scales, so a seed may go unseen."
        )
        expect(page.locator('.hall-card[data-board="b2"] .hall-turn')).to_be_visible()
        assert page.locator('.hall-card[data-board="b2"] .hall-behind').count() == 0
        page.goto(url + "/board/b1?lang=ja")
        row = page.locator("#health dt", has_text="はかりの読み取りの取りこぼし")
        expect(row.locator("xpath=following-sibling::dd[1]")).to_have_text("57回(直近1分間に12回)")
        page.goto(url + "/board/b2?lang=en")  # (the switch sticks)
        row = page.locator("#health dt", has_text="Scale readings lost")
        expect(row.locator("xpath=following-sibling::dd[1]")).to_have_text("–")


DAMAGED = "records.jsonl is damaged (line 2: cut short); its 1 intact game records are kept"


@needs_chromium
def test_an_exhibits_warnings_reach_the_hall_page_through_mosquitto(
    browser: Browser, broker: Mosquitto, tmp_path: Path
) -> None:
    """An exhibit (kiosk = true: the kiosk is its only page, and it shows no notices) started
    on a damaged records.jsonl: its operator sees a warning mark on the board's card in the
    hall, the newest warning's text and time, and every warning on its detail page, newest
    first. A warning told while the page is open arrives live; routine notices never come."""
    data = tmp_path / "exhibit"
    data.mkdir()
    good = '{"variant":"kalah","options":{},"moves":[1,2],"finished":true}\n'
    (data / RECORDS_FILE).write_text(good + good[:30])
    server = HallServer(MqttSettings(url=broker.url, board_id="hall"), port=0).start()
    config = make_config(data, mqtt={"url": broker.url, "board_id": "exhibit"}, web={"kiosk": True})
    board = Board(config)
    try:
        board.ready()
        wait_for(lambda: server.hall.board("exhibit"), 10, "the exhibit")
        context, page, errors = watched_page(browser)
        page.goto(server.url + "/")
        card = page.locator('.hall-card[data-board="exhibit"]')
        expect(card).to_have_class(re.compile(r"\bwarned\b"))
        mark = card.locator(".hall-warnings")
        expect(mark).to_contain_text("⚠ Unread warnings from the board: 2, the last at")
        expect(mark.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d"))
        expect(card.locator(".hall-warning-text")).to_contain_text(
            "the damaged records.jsonl is kept as " + str(data / "records.jsonl.damaged-")
        )
        # Told while the page is open: at once, not with the next heartbeat.
        board.loop.notes.info("demo: the hands stopped; a new game")  # (stays on the board)
        board.loop.calibrator.path.write_bytes(b"\x00\xffnot a calibration")
        board.loop.calibrator.load()
        board.run(0.1)
        expect(mark).to_contain_text("warnings from the board: 4, the last at", timeout=4000)
        expect(card.locator(".hall-warning-text")).to_contain_text(
            "the damaged calibration.json is kept as"
        )
        card.locator("a").click()
        expect(page.locator("#warnings-heading")).to_have_text("Warnings from the board (4)")
        items = page.locator("#warnings .notice-item")
        expect(items).to_have_count(4)
        expect(items.nth(2).locator(".notice-text")).to_have_text(
            re.compile(r"^the damaged records\.jsonl is kept as ")
        )
        expect(items.nth(3).locator(".notice-text")).to_have_text(
            re.compile(r"^records\.jsonl is damaged \(line 2: cut short")
        )
        expect(items.first.locator(".notice-level")).to_have_text("⚠ Warning")
        expect(items.first.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d"))
        expect(page.locator("#warnings-panel")).not_to_contain_text("demo:")
        expect(page.locator("#warnings-none")).to_be_hidden()
        # Its operator read them (the board's admin page): listed as read, and the card's
        # mark goes at once, until a warning is told again.
        assert board.loop.execute("acknowledge_notices", {}) == {"acknowledged": 4}
        board.run(0.1)
        expect(items.first.locator(".notice-level")).to_have_text("⚠ Warning (read)")
        page.goto(server.url + "/")
        expect(card).not_to_have_class(re.compile(r"\bwarned\b"))
        assert card.locator(".hall-warnings").count() == 0
        assert errors == []
        context.close()
    finally:
        board.stop()
        server.stop()


@needs_chromium
def test_a_boards_warnings_in_the_hall_are_text_in_the_pages_language(browser: Browser) -> None:
    """health.warnings from the broker may hold anything: texts are set as text. A board
    with none has no mark and says so on its detail page; a board too old to send them says
    that; older warnings than the status carries are counted."""
    hostile = '<img src=x onerror="window.hacked=1">records.jsonl'
    warned = {
        "total": 12,
        "notices": [
            {"at": time.time() - 60, "text": DAMAGED},
            {"at": 1e300, "text": "a time out of range"},
            {"at": time.time(), "text": hostile},
        ],
    }
    hall = Hall()
    hall.broker(True)
    for board, warnings in (("b1", warned), ("b2", {"total": 0, "notices": []}), ("b3", None)):
        hall.receive(f"sowboard/{board}/availability", b"online")
        hall.receive(f"sowboard/{board}/status", status(board, warnings=warnings))
    with _hall_page(browser, hall, "ja-JP") as (page, url):
        page.goto(url + "/?lang=ja")
        one = page.locator('.hall-card[data-board="b1"]')
        expect(one.locator(".hall-warnings")).to_contain_text("⚠ 盤からの未確認の警告:12件、最新")
        expect(one.locator(".hall-warning-text")).to_have_text(hostile)
        for quiet in ("b2", "b3"):
            card = page.locator(f'.hall-card[data-board="{quiet}"]')
            expect(card.locator(".hall-turn")).to_be_visible()
            assert card.locator(".hall-warnings").count() == 0
            assert "warned" not in (card.get_attribute("class") or "")
        page.goto(url + "/board/b1")
        expect(page.locator("#warnings-heading")).to_have_text("盤からの警告(12)")
        expect(page.locator("#warnings .notice-text")).to_have_text(
            [hostile, "a time out of range", DAMAGED]
        )
        expect(page.locator("#warnings-logged")).to_have_text(
            "それより古い警告9件は盤のログにだけあります。"
        )
        assert page.locator("#warnings-panel img, #detail img").count() == 0
        page.goto(url + "/board/b2?lang=en")
        expect(page.locator("#warnings-heading")).to_have_text("Warnings from the board (0)")
        expect(page.locator("#warnings-none")).to_have_text("None.")
        page.goto(url + "/board/b3")
        expect(page.locator("#warnings-none")).to_have_text(
            "This board does not send its warnings (an older sowboard)."
        )
        assert page.evaluate("window.hacked") is None
