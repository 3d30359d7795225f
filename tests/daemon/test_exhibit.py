"""The museum exhibit's settings on the daemon's loop: a half-played game left alone is ended
(`[game] abandon_minutes`), and a locked board button does nothing (`[buttons] locked`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.daemon.config import ConfigError
from tests.daemon.conftest import Board, make_config


def test_a_half_played_game_left_alone_is_ended(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"abandon_minutes": 0.05}))  # 3 s
    try:
        board.ready()
        board.run(4.0)  # nothing played yet: nothing is half-played, nothing to end
        assert not any("half-played" in n["text"] for n in board.status()["daemon"]["notices"])
        board.play(3)
        assert len(board.status()["game"]["history"]) == 1
        board.run(2.0)
        assert len(board.status()["game"]["history"]) == 1  # not yet 3 s
        board.run(1.5)
        board.ready()
        status = board.status()
        assert status["game"]["history"] == []
        assert status["game"]["position"]["pits"] == [[7] * 7, [7] * 7]
        notices = [n for n in status["daemon"]["notices"] if "half-played (1 moves)" in n["text"]]
        assert len(notices) == 1, status["daemon"]["notices"]
    finally:
        board.stop()


def test_a_demo_is_not_ended_by_the_abandon_timer(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"abandon_minutes": 0.05, "mode": "demo"}))
    try:
        board.run_until(lambda: board.loop.referee is not None, 10.0)
        board.run(8.0)  # the demo plays on its own and is never thrown away
        assert board.loop.game.steps, "the demo played"
        assert not any("half-played" in n["text"] for n in board.status()["daemon"]["notices"])
    finally:
        board.stop()


def test_a_locked_mode_button_does_nothing_and_the_others_still_work(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, buttons={"locked": ["mode"]}))
    try:
        board.ready()
        board.play(3)
        press = {"t": 0.1, "action": "button", "name": "mode"}
        board.loop.execute("sim_actions", {"actions": [press]})
        board.run(0.5)
        assert board.status()["mode"] == "play"
        press = {"t": 0.1, "action": "button", "name": "undo"}
        board.loop.execute("sim_actions", {"actions": [press]})
        board.run(0.5)
        board.ready()
        assert board.status()["game"]["history"] == []
    finally:
        board.stop()


def test_a_locked_button_that_does_not_exist_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        make_config(tmp_path, buttons={"locked": ["mode", "reset"]})
    assert 'buttons.locked[1] = "reset" is not allowed' in str(err.value)
    assert "new_game, undo, hint, mode" in str(err.value)


def test_teach_modes_slow_pace_lights_the_next_place_only_after_the_seed_settled(
    tmp_path: Path,
) -> None:
    # (a hand that sows a seed every 1.5 s: faster, the next place is never lit in a move)
    config = make_config(
        tmp_path, game={"mode": "teach"}, leds={"slow_pace_s": 1.0}, sim={"seconds_per_seed": 1.5}
    )
    board = Board(config)
    waits: list[float] = []
    try:
        board.ready()
        loop = board.loop
        loop.execute("sim_move", {"pit": 3})

        def watch() -> bool:
            referee = loop.referee
            assert referee is not None
            bright = [p for p, light in loop.lights.lights.items() if light.meaning == "next"]
            if bright and referee.steps:
                waits.append(loop.now - referee.steps[-1].t)
            return loop.now > loop.busy_until and referee.phase() == "start"

        board.run_until(watch, 120.0)
    finally:
        board.stop()
    assert waits, "the next place was never lit"
    assert min(waits) >= 1.0 - 1e-6, min(waits)
