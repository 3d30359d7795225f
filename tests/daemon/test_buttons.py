"""The board's own buttons (new game, undo, hint, mode) through gpiozero's mock pins: a
visitor presses them, the daemon's loop carries them out."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.daemon.hardware import HardwareError, open_buttons
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
