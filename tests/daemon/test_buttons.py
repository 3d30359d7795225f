"""The board's own buttons (new game, undo, hint, mode) through gpiozero's mock pins: a
visitor presses them, the daemon's loop carries them out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.daemon.hardware import HardwareError, open_buttons
from controller.daemon.loop import BUTTON_REPEAT_S
from tests.daemon.conftest import Board, make_config


def test_pressing_the_board_buttons(tmp_path: Path) -> None:
    factory = MockFactory()
    config = make_config(tmp_path, buttons={"enabled": True, "mode": 26, "undo": 6})
    board = Board(config, pin_factory=factory)
    try:
        board.ready()
        board.play(3)

        factory.pin(26).drive_low()  # mode: play -> teach
        factory.pin(26).drive_high()
        board.run(0.1)
        assert board.status()["mode"] == "teach"

        factory.pin(13).drive_low()  # hint: the playable pits blink for a moment
        factory.pin(13).drive_high()
        board.run(0.1)
        places = board.status()["leds"]["places"]
        assert {v["effect"] for v in places.values()} >= {"fast_blink"}
        board.run(3.5)
        assert "fast_blink" not in {v["effect"] for v in board.status()["leds"]["places"].values()}

        factory.pin(6).drive_low()  # undo: back to the start
        factory.pin(6).drive_high()
        board.run(0.1)
        board.ready()
        assert board.status()["game"]["history"] == []
    finally:
        board.stop()


def test_buttons_off_means_no_gpio_at_all(tmp_path: Path) -> None:
    assert open_buttons(make_config(tmp_path)) is None


@pytest.mark.filterwarnings("ignore:Falling back from")
def test_buttons_on_a_pc_without_pins_say_what_to_change(tmp_path: Path) -> None:
    config = make_config(tmp_path, buttons={"enabled": True})
    try:
        buttons = open_buttons(config)
    except HardwareError as err:
        assert "buttons.enabled = true" in str(err)
        assert "set buttons = false" in str(err)
    else:  # a machine with real GPIO (a Pi running the tests)
        assert buttons is not None
        buttons.close()


def test_a_burst_of_presses_costs_the_loop_one_command(tmp_path: Path) -> None:
    """500 scripted `new_game` presses in one request once held the loop 14 s (the watchdog
    allows 10): a button counts once per BUTTON_REPEAT_S, so the burst is one new game."""
    board = Board(make_config(tmp_path))
    try:
        board.ready()
        loop = board.loop
        new_games: list[float] = []
        real = loop._cmd_new_game

        def counted(args: dict[str, Any]) -> dict[str, Any]:
            new_games.append(loop.now)
            return real(args)

        loop._cmd_new_game = counted  # type: ignore[method-assign]
        press = {"t": 0, "action": "button", "name": "new_game"}
        loop.execute("sim_actions", {"actions": [press] * 500})
        longest = 0.0
        end = loop.feed.now() + 1.0
        while loop.feed.now() < end:
            started = time.perf_counter()
            loop.iterate()
            longest = max(longest, time.perf_counter() - started)

        assert len(new_games) == 1
        assert longest < 2.0  # one new game, not 500 (13.8 s before)
        board.ready()
        loop.execute("sim_actions", {"actions": [press]})
        board.run(0.1)
        assert len(new_games) == 2  # a press after the window counts again
        assert new_games[1] - new_games[0] >= BUTTON_REPEAT_S
    finally:
        board.stop()
