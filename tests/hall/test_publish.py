"""The daemon publishes to a real Mosquitto (issue 16, build 1): retained status, events,
records, the last will, and the failure windows: a broker that is down, slow, and back."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import Config
from controller.daemon.loop import BoardLoop
from controller.daemon.mqtt import (
    HALL_WARNINGS,
    HEARTBEAT_S,
    WARNING_CHARS,
    BoardBroadcast,
    Message,
    Outbox,
)
from controller.daemon.mqttconfig import MqttSettings
from controller.daemon.notices import INFO, WARNING, Notices
from controller.hall.broker import Mosquitto, free_port
from controller.hall.state import Hall
from tests.daemon.conftest import Board, make_config
from tests.daemon.test_behind import FakeClock, QueuedReader
from tests.hall.conftest import NO_MOSQUITTO, listen, wait_for
from tests.web.fake_link import FakeLink


def mqtt_config(tmp_path: Path, url: str, **more: Any) -> Config:
    game = more.pop("game", {})
    return make_config(tmp_path, mqtt={"url": url, "board_id": "b1", **more}, game=game)


def moves_heard(hall: Hall, board: str = "b1") -> list[tuple[int, int, int]]:
    view = hall.board(board)
    events = view["events"] if view else []
    return [(e["ply"], e["player"], e["pit"]) for e in events if e["event"] == "move"]


def history(board: Board) -> list[tuple[int, int, int]]:
    return [(h["ply"], h["player"], h["pit"]) for h in board.status()["game"]["history"]]


def first_playable(board: Board) -> int:
    position = board.status()["game"]["position"]
    return next(i for i, n in enumerate(position["pits"][position["to_move"]]) if n)


def test_moves_reach_the_hall_and_the_retained_status_is_the_position(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    hall = hall_of()
    board = Board(mqtt_config(tmp_path, broker.url))
    try:
        board.ready()
        wait_for(lambda: board.loop.mqtt and board.loop.mqtt.get_status()["connected"])
        for _ in range(3):
            board.play(first_playable(board))
        board.run(0.2)
        played = history(board)
        assert len(played) >= 3
        wait_for(lambda: moves_heard(hall) == played, what="every move as an event")
        view = hall.board("b1")
        assert view is not None and view["online"] and view["events_lost"] == 0
        wait_for(lambda: hall.board("b1")["status"]["moves"] == len(played))  # type: ignore[index]
        status = hall.board("b1")["status"]  # type: ignore[index]
        assert status["position"] == board.status()["game"]["position"]
        assert status["mqtt"]["dropped"] == 0
        # A hall that opens later gets the status at once: it is retained.
        late = hall_of(name="late-hall")
        wait_for(lambda: late.board("b1") and late.board("b1")["status"], what="retained")
        assert late.board("b1")["availability"] == "online"  # type: ignore[index]
        assert late.board("b1")["status"]["position"] == status["position"]  # type: ignore[index]
    finally:
        board.stop()
    # A clean stop says "offline" itself.
    wait_for(lambda: hall.board("b1")["availability"] == "offline")  # type: ignore[index]


def test_flags_are_events_raised_and_put_right(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    hall = hall_of()
    board = Board(mqtt_config(tmp_path, broker.url))
    try:
        board.ready()
        board.mistake("wrong_pit")  # the virtual hand puts it right afterwards
        board.run(0.2)
        (flag,) = board.status()["flags"]
        assert flag["kind"] == "wrong_pit" and not flag["active"]

        def flag_events() -> list[dict[str, Any]]:
            view = hall.board("b1")
            return [e for e in view["events"] if e["event"] == "flag"] if view else []

        wait_for(lambda: flag_events() and not flag_events()[-1]["active"], what="put right")
        events = flag_events()
        assert {e["id"] for e in events} == {flag["id"]}
        assert events[0]["active"] is True  # the loop showed it raised first
        assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
        wait_for(lambda: hall.board("b1")["status"]["flags"] == [], what="none active")  # type: ignore[index]
    finally:
        board.stop()


def test_a_finished_game_publishes_its_record(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    hall = hall_of()
    config = mqtt_config(
        tmp_path, broker.url, game={"variant": "kalah", "options": {"seeds": 1}, "mode": "demo"}
    )
    board = Board(config)
    try:
        board.ready()
        board.run_until(lambda: board.status()["game"]["position"]["over"], 300)
        board.run(0.2)
        game = board.status()["game"]
        wait_for(lambda: hall.board("b1") and hall.board("b1")["record"], what="the record")
        record = hall.board("b1")["record"]  # type: ignore[index]
        assert record["record"]["moves"] == [h["pit"] for h in game["history"]]
        assert record["record"]["variant"] == "kalah"
        assert record["winner"] == game["position"]["winner"]
    finally:
        board.stop()


def test_the_last_will_says_offline_when_the_daemon_dies(broker: Mosquitto, tmp_path: Path) -> None:
    """SIGKILL: no word from the daemon; the broker says "offline" for it."""
    from controller.bench.daemonproc import DaemonProcess, demo_config

    hall, listener = listen(broker.url)
    path = tmp_path / "config.toml"
    text = demo_config(tmp_path / "data", speed=5.0)
    path.write_text(text + f'[mqtt]\nurl = "{broker.url}"\nboard_id = "killed"\n')
    daemon = DaemonProcess(path)
    try:
        wait_for(lambda: (hall.board("killed") or {}).get("availability") == "online", 20)
        daemon.kill()
        wait_for(lambda: hall.board("killed")["availability"] == "offline", 10)  # type: ignore[index]
        assert not hall.board("killed")["online"]  # type: ignore[index]
    finally:
        daemon.kill()
        listener.stop()


def test_a_broker_down_at_start_gets_everything_once_it_is_up(tmp_path: Path, hall_of: Any) -> None:
    port = free_port()
    url = f"mqtt://127.0.0.1:{port}"
    board = Board(mqtt_config(tmp_path, url))
    try:
        board.ready()
        started = time.monotonic()
        for _ in range(2):
            board.play(first_playable(board))
        board.run(0.2)
        mqtt = board.status()["daemon"]["mqtt"]
        assert mqtt["connected"] is False and mqtt["dropped"] == 0
        wait_for(lambda: board.loop.mqtt.get_status()["error"], 5)  # type: ignore[union-attr]
        assert "cannot reach" in board.loop.mqtt.get_status()["error"]  # type: ignore[union-attr,operator]
        played = history(board)
        assert time.monotonic() - started < 30  # the moves did not wait for a broker
        with Mosquitto(port) as broker:
            hall = hall_of(broker.url)
            took = wait_for(lambda: moves_heard(hall) == played, 10, "the moves queued")
            assert took < 5
            assert hall.board("b1")["events_lost"] == 0  # type: ignore[index]
            wait_for(lambda: hall.board("b1")["status"], 5)  # type: ignore[index]
            assert hall.board("b1")["status"]["moves"] == len(played)  # type: ignore[index]
            board.stop()
    finally:
        board.stop()


def test_a_full_queue_drops_the_oldest_and_counts_them(tmp_path: Path, hall_of: Any) -> None:
    """No broker, a queue of 10: the events past 10 push the oldest out, the count is on the
    status (the page shows it), and what was kept arrives once the broker is up."""
    port = free_port()
    board = Board(mqtt_config(tmp_path, f"mqtt://127.0.0.1:{port}", queue=10))
    try:
        board.ready()
        while board.loop.mqtt.broadcast.seq <= 12:  # type: ignore[union-attr]
            if board.status()["game"]["position"]["over"]:
                break
            board.play(first_playable(board))
        board.run(0.2)
        seq = board.loop.mqtt.broadcast.seq  # type: ignore[union-attr]
        assert seq > 10
        dropped = board.status()["daemon"]["mqtt"]["dropped"]
        assert dropped == seq - 10
        with Mosquitto(port) as broker:
            hall = hall_of(broker.url)
            wait_for(lambda: (hall.board("b1") or {}).get("events_received") == 10, 10)
            view = hall.board("b1")
            assert view is not None
            # The newest ten arrived; the hall sees exactly the dropped ones as lost.
            assert [e["seq"] for e in view["events"]] == list(range(seq - 9, seq + 1))
            assert view["events_lost"] == dropped
            wait_for(lambda: hall.board("b1")["status"]["mqtt"]["dropped"] == dropped, 10)  # type: ignore[index]
    finally:
        board.stop()


def test_a_broker_restart_gets_the_retained_status_again_within_two_seconds(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    hall = hall_of()
    board = Board(mqtt_config(tmp_path, broker.url))
    try:
        board.ready()
        wait_for(lambda: (hall.board("b1") or {}).get("status"), 10)
        broker.stop()  # no persistence: the retained status is gone with it
        wait_for(lambda: not hall.broker_up, 5)
        assert not hall.board("b1")["online"]  # type: ignore[index]  # shown offline
        board.play(first_playable(board))  # the board plays on meanwhile
        board.run(0.2)
        played = history(board)
        wait_for(lambda: not board.loop.mqtt.get_status()["connected"], 5)  # type: ignore[union-attr]
        broker.start()
        fresh = hall_of(name="fresh-hall")  # subscribes after the restart: retained only
        took = wait_for(
            lambda: ((fresh.board("b1") or {}).get("status") or {}).get("moves") == len(played),
            5,
            "the retained status after the restart",
        )
        assert took < 2.0
        assert board.loop.mqtt.get_status()["connects"] == 2  # type: ignore[union-attr]
        wait_for(lambda: hall.board("b1")["online"], 5)  # type: ignore[index]
        wait_for(lambda: hall.board("b1")["status"]["moves"] == len(played), 5)  # type: ignore[index]
        # The move's event was queued and sent after the reconnect; a hall that subscribed
        # again after that (a broker without persistence forgets subscriptions) missed it,
        # and then counts it as lost: it is never silently gone.
        view = hall.board("b1")
        assert view is not None
        assert len(moves_heard(hall)) + view["events_lost"] == len(played)
    finally:
        board.stop()


def test_a_paused_broker_never_holds_the_loop(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    """SIGSTOP: the broker keeps the connection but acknowledges nothing. The loop's part (a
    snapshot to messages to the queue) stays quick however many events pile up; the queue
    drops and counts; after SIGCONT what was kept arrives and the losses are exactly the
    drops."""
    hall = hall_of()
    board = Board(mqtt_config(tmp_path, broker.url, queue=50))
    try:
        board.ready()
        mqtt = board.loop.mqtt
        assert mqtt is not None
        wait_for(lambda: mqtt.get_status()["connected"], 5)
        broker.pause()
        status = board.status()
        took: list[float] = []  # wall time: waiting on the broker would show here
        worked: list[float] = []  # the thread's CPU time: the work itself, whatever the load
        for n in range(1, 401):  # 400 moves' events, synthetic on the real snapshot
            game = {
                **status["game"],
                "history": [{"ply": k, "player": 0, "pit": 0} for k in range(1, n + 1)],
            }
            start, cpu = time.perf_counter(), time.thread_time()
            mqtt.snapshot({**status, "game": game, "published_at": time.time()})  # type: ignore[typeddict-item]
            took.append(time.perf_counter() - start)
            worked.append(time.thread_time() - cpu)
        took.sort()
        worked.sort()
        # A snapshot that waited for the paused broker would wait until it resumed (for
        # ever): half a second is far beyond any descheduling on a busy CI machine.
        assert took[-1] < 0.5, f"a snapshot took {took[-1] * 1000:.1f} ms"
        assert worked[int(0.99 * len(worked))] < 0.005
        dropped = mqtt.get_status()["dropped"]
        assert dropped > 0
        broker.resume()
        wait_for(lambda: (hall.board("b1") or {}).get("events_received", 0) + dropped >= 400, 20)
        view = hall.board("b1")
        assert view is not None and view["events_lost"] == dropped
        assert json.dumps(view)  # (a view is plain JSON for the page)
    finally:
        board.stop()


def test_with_the_brokers_persistence_a_hall_that_keeps_its_session_misses_nothing(
    tmp_path: Path,
) -> None:
    """Debian's broker keeps sessions across a restart: the hall's subscription is there
    before the boards come back, so what they queued while it was down reaches the hall even
    if the hall reconnects last."""
    from controller.daemon.mqttconfig import MqttSettings
    from controller.hall.broker import find_mosquitto
    from controller.hall.listen import HallListener

    if find_mosquitto() is None:
        pytest.skip(NO_MOSQUITTO)
    with Mosquitto(persistence=True) as broker:
        hall = Hall()
        settings = MqttSettings(url=broker.url, board_id="hall")
        listener = HallListener(hall, settings, "steady-hall", persistent=True).start()
        board = Board(mqtt_config(tmp_path, broker.url))
        try:
            board.ready()
            wait_for(lambda: (hall.board("b1") or {}).get("status"), 10)
            broker.stop()
            for _ in range(3):
                board.play(first_playable(board))
            board.run(0.2)
            played = history(board)
            broker.start()
            wait_for(
                lambda: moves_heard(hall) == played,
                15,
                f"the moves made while it was down: {played} {hall.board('b1')}",
            )
            assert hall.board("b1")["events_lost"] == 0  # type: ignore[index]
        finally:
            board.stop()
            listener.stop()


def test_an_undo_and_a_new_game_are_told_as_undo_events(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    hall = hall_of()
    board = Board(mqtt_config(tmp_path, broker.url))
    try:
        board.ready()
        board.play(first_playable(board))
        board.play(first_playable(board))
        board.loop.execute("undo", {})
        # The hands walk the move back step by step, 1.5 s a step: a relay move of a hundred
        # steps takes minutes of simulated time.
        board.run_until(lambda: board.loop.referee is not None, 600.0)
        board.settle()
        board.loop.execute("new_game", {})
        board.ready()
        board.play(first_playable(board))
        board.run(0.2)

        def told() -> list[tuple[str, int]]:
            events = (hall.board("b1") or {}).get("events", [])
            return [(e["event"], e.get("ply", e.get("moves"))) for e in events]

        expected = [("move", 1), ("move", 2), ("undo", 1), ("undo", 0), ("move", 1)]
        wait_for(lambda: told() == expected, 10, f"{expected}")
        assert hall.board("b1")["status"]["moves"] == 1  # type: ignore[index]
    finally:
        board.stop()


def test_the_status_health_is_the_daemon_sections_with_what_the_loop_lost() -> None:
    """The retained status's `health` mirrors the daemon section of /api/state: its state,
    faults and loop figures, and `daemon.behind` (frames dropped, simulated time skipped),
    which it once left out: the hall could not see a board losing readings."""
    status = copy.deepcopy(FakeLink(sim=False).get_status())
    behind = {
        "dropped_frames": 57,
        "dropped_frames_last_minute": 12,
        "skipped_s": 0.0,
        "skipped_s_last_minute": 0.0,
    }
    status["daemon"]["behind"] = behind
    outbox = Outbox(10)
    broadcast = BoardBroadcast(MqttSettings(url="mqtt://x", board_id="b1"), outbox, dict)
    health = broadcast.status(status)["health"]  # type: ignore[arg-type]
    daemon = status["daemon"]
    assert health == {
        "state": daemon["state"],
        "faults": daemon["faults"],
        "lag_ms_p99": daemon["loop"]["lag_ms_p99"],
        "missed_ticks": daemon["loop"]["missed_ticks"],
        "behind": behind,
        "warnings": {"total": 0, "unacknowledged": 0, "notices": []},
    }


def test_frames_a_board_dropped_reach_the_hall_at_once(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    """The real loop with a reader whose bounded queue drops what a stalled loop did not read
    (tests/daemon/test_behind.py): the first frames dropped reach the hall's status at once,
    not with the next heartbeat, counted as /api/state counts them."""
    hall = hall_of()
    config = mqtt_config(tmp_path, broker.url)
    clock = FakeClock()
    reader = QueuedReader(clock, len(config.board_file().cells))
    loop = BoardLoop(config, out=lambda _t: None, clock=clock, source=reader)
    try:
        wait_for(lambda: loop.mqtt and loop.mqtt.get_status()["connected"])
        loop.run_until(lambda: False, 1.0)
        wait_for(lambda: (hall.board("b1") or {}).get("status"), what="the first status")
        assert hall.board("b1")["status"]["health"]["behind"]["dropped_frames"] == 0  # type: ignore[index]
        clock.t += 1.0  # the stall
        loop.run_until(lambda: False, 0.5)
        behind = loop.link.get_status()["daemon"]["behind"]
        assert behind["dropped_frames_last_minute"] > 0

        def heard() -> Any:
            return hall.board("b1")["status"]["health"]["behind"]  # type: ignore[index]

        waited = wait_for(lambda: heard()["dropped_frames"] > 0, 10, "frames dropped")
        assert waited < HEARTBEAT_S
        assert heard() == behind
    finally:
        loop.stop()


def told_status(notes: Notices) -> dict[str, Any]:
    status = copy.deepcopy(FakeLink(sim=False).get_status())
    status["daemon"].update(
        notices=notes.records(),
        notices_total=notes.total,
        notices_warnings_total=notes.warnings_total,
        notices_unacknowledged=notes.unacknowledged,
    )
    return status


def test_the_status_carries_the_boards_warnings_and_a_new_one_goes_at_once() -> None:
    """An exhibit's kiosk shows no notices: its operator learns of a damaged file in the hall.
    The status's health carries the warning notices (routine ones stay on the board): how
    many were told, the newest HALL_WARNINGS with their time, each text at most
    WARNING_CHARS. A new warning publishes the status at once, not with the heartbeat."""
    clock = iter(float(t) for t in range(1000, 2000))
    notes = Notices(lambda _text: None, wall=lambda: next(clock))
    outbox = Outbox(10)
    broadcast = BoardBroadcast(MqttSettings(url="mqtt://x", board_id="b1"), outbox, dict)
    outbox.set_open(True)

    def sent() -> Message | None:
        return outbox.take(0.0)

    broadcast.snapshot(told_status(notes))  # type: ignore[arg-type]
    first = sent()
    assert first is not None
    assert json.loads(first.payload)["health"]["warnings"] == {
        "total": 0,
        "unacknowledged": 0,
        "notices": [],
    }
    notes.add("demo: the hands stopped; a new game", INFO)
    broadcast.snapshot(told_status(notes))  # type: ignore[arg-type]
    assert sent() is None  # routine: with the next heartbeat
    notes.add("records.jsonl is damaged (line 2: cut short)", WARNING)
    broadcast.snapshot(told_status(notes))  # type: ignore[arg-type]
    message = sent()
    assert message is not None and message.retain
    told = {"at": 1001.0, "text": "records.jsonl is damaged (line 2: cut short)"}
    assert json.loads(message.payload)["health"]["warnings"] == {
        "total": 1,
        "unacknowledged": 1,
        "notices": [{**told, "repeats": 1, "acknowledged": False}],
    }
    # Read by an operator (the admin page): at once too, and the hall stops counting it.
    assert notes.acknowledge() == 1
    broadcast.snapshot(told_status(notes))  # type: ignore[arg-type]
    message = sent()
    assert message is not None
    assert json.loads(message.payload)["health"]["warnings"] == {
        "total": 1,
        "unacknowledged": 0,
        "notices": [{**told, "repeats": 1, "acknowledged": True}],
    }
    for k in range(HALL_WARNINGS + 2):
        notes.warning(f"journal game.jsonl: line {k}: truncated")
        notes.info("the match goes on: round 2 is laid out")
    notes.warning("calibration not used: " + "x" * 2 * WARNING_CHARS)
    warnings = broadcast.status(told_status(notes))["health"]["warnings"]  # type: ignore[arg-type]
    assert warnings["total"] == HALL_WARNINGS + 4
    texts = [w["text"] for w in warnings["notices"]]
    assert texts[:-1] == [f"journal game.jsonl: line {k}: truncated" for k in range(3, 12)]
    assert len(texts) == HALL_WARNINGS
    assert len(texts[-1]) == WARNING_CHARS and texts[-1].endswith("…")
    assert [w["at"] for w in warnings["notices"]] == sorted(w["at"] for w in warnings["notices"])


def test_a_damaged_file_reaches_the_hall_at_once_with_its_time_and_count(
    tmp_path: Path, broker: Mosquitto, hall_of: Any
) -> None:
    """The real loop and a real broker: a calibration.json found damaged while the board
    plays (told, and kept aside: two warnings) reaches the hall's status at once, as
    /api/state has them; a routine notice does not."""
    hall = hall_of()
    board = Board(mqtt_config(tmp_path, broker.url))
    try:
        board.ready()
        wait_for(lambda: (hall.board("b1") or {}).get("status"), what="the first status")
        assert hall.board("b1")["status"]["health"]["warnings"]["total"] == 0  # type: ignore[index]
        board.loop.calibrator.path.write_bytes(b"\x00\xffnot a calibration")
        board.loop.calibrator.load()
        board.run(0.1)
        state = board.status()["daemon"]
        assert state["notices_warnings_total"] == 2

        def heard() -> Any:
            return hall.board("b1")["status"]["health"]["warnings"]  # type: ignore[index]

        waited = wait_for(lambda: heard()["total"] == 2, 10, "the warnings")
        assert waited < HEARTBEAT_S
        told = [
            {"at": n["at"], "text": n["text"], "repeats": 1, "acknowledged": False}
            for n in state["notices"]
            if n["level"] == "warning"
        ]
        assert heard()["notices"] == told
        assert told[0]["text"].startswith("calibration not used:")
        assert told[1]["text"].startswith("the damaged calibration.json is kept as ")
    finally:
        board.stop()
