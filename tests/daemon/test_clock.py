"""The thinking-time clock (controller/daemon/clock.py) on the simulated board: when it runs,
`warn` (the lights count down, the page and the record note the overrun) and `pass` (the turn
passes to the other player), through a restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.daemon.journal import read_journal
from controller.rules.record import parse_record, replay
from tests.daemon.conftest import Board, make_config


def timer(board: Board) -> dict[str, Any]:
    return board.status()["game"]["turn_timer"]


def row_lights(board: Board, player: int) -> list[str]:
    places = board.status()["leds"]["places"]
    return [places[f"{player},{i}"]["effect"] for i in range(7)]


def test_no_clock_runs_before_play_starts(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"options": {"move_time_limit_s": 30}}))
    try:
        board.run(0.2)  # the board is being weighed: nobody's time runs
        assert board.loop.referee is None
        assert timer(board)["elapsed_s"] is None and timer(board)["running"] is False
        board.run_until(lambda: board.loop.referee is not None)
        play_started = board.loop.now
        board.run(2.0)
        status = timer(board)
        assert status["running"] is True and status["player"] == 0
        # Counted from the start of play, not from the daemon's start.
        assert status["elapsed_s"] is not None
        assert status["elapsed_s"] <= board.loop.now - play_started + 0.1
        assert board.loop.session.clock.started == play_started
    finally:
        board.stop()


def test_the_clock_does_not_run_in_a_simultaneous_opening(tmp_path: Path) -> None:
    options = {"simultaneous_opening": True, "move_time_limit_s": 30}
    board = Board(make_config(tmp_path, game={"options": options}))
    try:
        board.ready()
        board.run(3.0)
        assert timer(board)["elapsed_s"] is None and timer(board)["player"] is None
        board.loop.execute("sim_move", {"pits": [2, 3]})
        board.settle()
        status = board.status()
        assert status["game"]["position"]["to_move"] in (0, 1)
        assert timer(board)["running"] is True
        assert timer(board)["player"] == status["game"]["position"]["to_move"]
    finally:
        board.stop()


def test_warn_counts_down_on_the_lights_and_notes_the_overrun(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"options": {"move_time_limit_s": 8}}))
    try:
        board.ready()
        board.run(0.5)
        assert row_lights(board, 0) == ["pulse"] * 7  # 7.5 s left: no countdown yet
        start = board.loop.session.clock.started
        assert start is not None
        board.run_until(lambda: board.loop.now - start >= 6.6)
        board.run(0.1)
        lit = [effect for effect in row_lights(board, 0) if effect != "none"]
        assert 0 < len(lit) < 7  # about 1.3 s of the last 5 left: two or three pits lit
        assert row_lights(board, 0)[len(lit) :] == ["none"] * (7 - len(lit))
        board.run_until(lambda: timer(board)["overrun"])
        store = board.status()["leds"]["places"]["0,store"]
        assert store["effect"] == "blink"
        board.run(2.0)
        assert timer(board)["overrun"] and timer(board)["running"]  # still player 0's turn
        board.play(3)
        assert timer(board)["player"] == 1 and timer(board)["overrun"] is False
        overruns = [{"ply": 1, "player": 0, "limit_s": 8.0}]
        assert board.status()["game"]["record"]["overruns"] == overruns
        board.loop.writer.flush()
        journal = read_journal(board.loop.journal_path)
        assert journal is not None and journal.overruns == overruns  # once, not every tick
    finally:
        board.stop()
    again = Board(make_config(tmp_path, game={"options": {"move_time_limit_s": 8}}))
    try:
        again.ready()
        assert again.status()["game"]["record"]["overruns"] == overruns  # (journaled)
    finally:
        again.stop()


def test_the_clock_stops_when_the_move_starts(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"options": {"move_time_limit_s": 2}}))
    try:
        board.ready()
        board.loop.execute("sim_move", {"pit": 0})  # seven seeds: a few seconds of sowing
        board.run_until(lambda: board.status()["game"]["hand"][0] > 0)
        picked_up = board.loop.now
        board.run_until(lambda: board.loop.now - picked_up >= 1.0)  # still sowing
        status = timer(board)
        assert board.status()["game"]["hand"][0] > 0 and status["player"] == 0
        assert status["running"] is False and status["overrun"] is False
        assert status["elapsed_s"] is not None and status["elapsed_s"] < 2  # (the limit)
        board.run(0.2)
        assert timer(board)["elapsed_s"] == status["elapsed_s"]  # (stopped where it stood)
        board.settle()
        assert "overruns" not in board.status()["game"]["record"]
    finally:
        board.stop()


def test_pass_gives_the_turn_to_the_other_player(tmp_path: Path) -> None:
    options = {"move_time_limit_s": 2, "move_time_consequence": "pass"}
    board = Board(make_config(tmp_path, game={"options": options}))
    try:
        board.ready()
        board.run_until(lambda: board.status()["game"]["position"]["to_move"] == 1)
        board.ready()  # (the referee starts again on player 2's turn)
        status = board.status()
        assert status["game"]["history"] == []
        assert timer(board)["player"] == 1 and timer(board)["elapsed_s"] is not None
        assert any("player 1 did not start a move within 2 s" in n for n in board.loop.notices)
        board.play(2)  # player 2 plays in time
        record = board.status()["game"]["record"]
        assert record["moves"] == [2]
        assert {"player": 0, "step": "timeout"} in record["steps"]
        lines = list(replay(parse_record(json.dumps(record))))
        assert [(line["player"], line["pit"]) for line in lines] == [(1, 2)]
        assert lines[-1]["pits"] == board.status()["game"]["position"]["pits"]
    finally:
        board.stop()
    again = Board(make_config(tmp_path, game={"options": options}))
    try:
        again.ready()  # the journal's timeout is replayed
        assert again.status()["game"]["history"] == [{"ply": 1, "player": 1, "pit": 2}]
    finally:
        again.stop()


def test_the_computers_turn_has_no_clock(tmp_path: Path) -> None:
    # The engine thinks 2 s of wall time: at the tests' pace (the loop never sleeps) that is
    # far more than 3 s of the loop's time, which would pass a person's turn.
    options = {"move_time_limit_s": 3, "move_time_consequence": "pass"}
    game = {"options": options, "opponent": {"player": 1, "level": 5, "think_s": 2}}
    board = Board(make_config(tmp_path, game=game))
    try:
        board.ready()
        board.loop.execute("sim_move", {"pit": 3})
        board.wait(lambda: board.status()["game"]["computer"]["thinking"])
        thinking_from = board.loop.now
        board.wait(lambda: len(board.status()["game"]["history"]) >= 2)
        assert board.loop.now - thinking_from > 3
        history = board.status()["game"]["history"]
        assert history[1]["player"] == 1  # the computer moved; its turn did not pass
        steps = board.status()["game"]["record"].get("steps", [])
        assert {"player": 1, "step": "timeout"} not in steps
    finally:
        board.stop()
