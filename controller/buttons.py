"""Board buttons (new game, undo, hint, mode) through gpiozero.

gpiozero picks its pin factory at run time (lgpio, rpigpio, ... on a Pi); tests use its mock
factory (`Device.pin_factory = MockFactory()`, then `pin.drive_low()` presses a button), which is
never picked by default.
"""

from __future__ import annotations

import queue
from collections.abc import Mapping
from typing import Any

BUTTON_NAMES = ("new_game", "undo", "hint", "mode")
DEFAULT_PINS = {"new_game": 5, "undo": 6, "hint": 13, "mode": 19}


class ButtonError(RuntimeError):
    """The buttons cannot be used; the message says why."""


class Buttons:
    """Presses land in a queue that the daemon's loop drains (the loop owns all state)."""

    def __init__(self, pins: Mapping[str, int] = DEFAULT_PINS, pin_factory: Any = None) -> None:
        unknown = sorted(set(pins) - set(BUTTON_NAMES))
        if unknown:
            raise ButtonError(
                f"unknown button(s) {', '.join(unknown)}; known: {', '.join(BUTTON_NAMES)}"
            )
        try:
            from gpiozero import Button
        except Exception as err:
            raise ButtonError(f"gpiozero is not available: {err}") from None
        self.presses: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._buttons: dict[str, Any] = {}
        try:
            for name, pin in pins.items():
                button = Button(pin, pull_up=True, pin_factory=pin_factory)
                button.when_pressed = lambda _b=None, _n=name: self.presses.put(_n)
                self._buttons[name] = button
        except Exception as err:
            self.close()
            raise ButtonError(
                f"cannot use the button pins ({err}); on a PC set buttons = false"
            ) from None

    def drain(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.presses.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        for button in self._buttons.values():
            button.close()
        self._buttons.clear()
