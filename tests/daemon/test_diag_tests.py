"""Bring-up tests of `sowboard diag` (issue 5): the LED test pattern and the button test."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from controller.daemon.tools import button_test, led_driver, led_test
from tests.daemon.conftest import make_config


def test_the_led_test_lights_every_place_then_each_colour_then_off(tmp_path: Path) -> None:
    config = make_config(tmp_path, leds={"backend": "sim"})
    lines: list[str] = []
    shown = led_test(config, step_s=0.0, out=lines.append)
    board = config.board_file()
    places = [
        {"lit": "place", "place": p.to_json(), "color": "white"}
        for p in board.mapping(board.pits).places
    ]
    colors = [{"lit": "all", "color": c} for c in ("red", "green", "blue", "off")]
    assert [json.loads(line) for line in shown] == [*places, *colors]  # JSON, as diag promises
    assert {"lit": "place", "place": [0, "store"], "color": "white"} in places
    assert lines == shown


def test_the_button_test_reports_each_press(tmp_path: Path) -> None:
    config = make_config(tmp_path, buttons={"enabled": True})
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        lines: list[str] = []

        def press() -> None:
            time.sleep(0.05)
            for pin in (config.buttons.pins["undo"], config.buttons.pins["hint"]):
                factory.pin(pin).drive_low()
                factory.pin(pin).drive_high()

        presser = threading.Thread(target=press)
        presser.start()
        pressed = button_test(config, 0.3, out=lines.append, pin_factory=factory)
        presser.join()
    finally:
        Device.pin_factory = None
    assert pressed == ["undo", "hint"]
    assert [json.loads(line) for line in lines[1:]] == [{"pressed": "undo"}, {"pressed": "hint"}]


def test_the_button_test_says_when_buttons_are_off(tmp_path: Path) -> None:
    lines: list[str] = []
    assert button_test(make_config(tmp_path), 0.1, out=lines.append) == []
    assert "not enabled" in json.loads(lines[0])["note"]


def test_diag_says_which_led_driver_the_pi_model_chose_and_why(tmp_path: Path) -> None:
    """A Pi 5 builder must see that the RP1 PIO driver, not rpi_ws281x, drives the LEDs."""
    pi = make_config(tmp_path, hardware={"source": "pi"})
    pi5 = led_driver(pi, "Raspberry Pi 5 Model B Rev 1.0")
    assert pi5["driver"] == "pi5-pio" and "RP1" in pi5["why"]
    assert led_driver(pi, "Raspberry Pi 4 Model B Rev 1.4")["driver"] == "rpi_ws281x"
    assert led_driver(pi, None)["driver"] is None
    pico = led_driver(make_config(tmp_path, hardware={"source": "serial"}), None)
    assert pico["driver"] == "pico" and "Pico" in pico["why"]
    assert led_driver(make_config(tmp_path), None)["driver"] == "sim"
