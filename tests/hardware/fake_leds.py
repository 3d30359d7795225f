"""Fake NeoPixel driver modules for both Raspberry Pi LED paths (never installed).

- `FakeWs281x`: `board` and `neopixel` as adafruit-circuitpython-neopixel 6.4 presents them on a
  Pi 1-4: `neopixel.NeoPixel(pin, n, auto_write=False, pixel_order=...)`, item assignment of RGB
  tuples, `show()` sends the bytes in `pixel_order`, `deinit()`.
- `FakePi5`: `adafruit_raspberry_pi5_neopixel_write` as its 1.0.0rc2 source defines it:
  `neopixel_write(gpio, buf)` reads `gpio._pin.id` or else `gpio.id` as an int and takes a
  bytes-like buffer; `free_pio()` releases the PIO state machine; without `/dev/pio0` the first
  write raises RuntimeError("Failed to open PIO device ...").

Both keep the last bytes that went to the chain (`wire`), so a test decodes what the LEDs show
with the same colour order, whichever driver sent it.
"""

from __future__ import annotations

import types
from typing import Any

RGB = tuple[int, int, int]


def decode(wire: bytes, order: str) -> list[RGB]:
    """The colours a chain of `order` parts shows for these bytes."""
    size = len(order)
    pixels = []
    for k in range(0, len(wire), size):
        channel = dict(zip(order, wire[k : k + size], strict=True))
        pixels.append((channel["R"], channel["G"], channel["B"]))
    return pixels


class FakeWs281x:
    """The Pi 1-4 path: `board` + `neopixel` (through rpi_ws281x on the real board)."""

    def __init__(self) -> None:
        self.wire = b""
        self.gpio: int | None = None
        self.order = "GRB"
        self.released = 0

    def modules(self) -> dict[str, types.ModuleType]:
        fake = self
        board = types.ModuleType("board")
        for gpio in range(28):
            setattr(board, f"D{gpio}", types.SimpleNamespace(id=gpio))

        class NeoPixel:
            def __init__(self, pin: Any, n: int, *, auto_write: bool, pixel_order: str) -> None:
                assert auto_write is False, "the daemon shows whole frames"
                fake.gpio, fake.order = pin.id, pixel_order
                self._pixels: list[RGB] = [(0, 0, 0)] * n

            def __setitem__(self, k: int, value: RGB) -> None:
                self._pixels[k] = value

            def show(self) -> None:
                channels = ({"R": r, "G": g, "B": b, "W": 0} for r, g, b in self._pixels)
                fake.wire = bytes(c[x] for c in channels for x in fake.order)

            def deinit(self) -> None:
                fake.released += 1

        neopixel = types.ModuleType("neopixel")
        for order in ("RGB", "GRB", "RGBW", "GRBW"):
            setattr(neopixel, order, order)
        neopixel.NeoPixel = NeoPixel  # type: ignore[attr-defined]
        return {"board": board, "neopixel": neopixel}


class FakePi5:
    """The Pi 5 path: RP1's PIO through `adafruit_raspberry_pi5_neopixel_write`."""

    def __init__(self, *, pio_device: bool = True) -> None:
        self.pio_device = pio_device
        self.wire = b""
        self.gpio: int | None = None
        self.released = 0

    def modules(self) -> dict[str, types.ModuleType]:
        module = types.ModuleType("adafruit_raspberry_pi5_neopixel_write")
        module.neopixel_write = self.neopixel_write  # type: ignore[attr-defined]
        module.free_pio = self.free_pio  # type: ignore[attr-defined]
        return {"adafruit_raspberry_pi5_neopixel_write": module}

    def neopixel_write(self, gpio: Any, buf: Any) -> None:
        if not self.pio_device:
            raise RuntimeError("Failed to open PIO device (error -2)")
        pin = getattr(gpio, "_pin", gpio)
        self.gpio = int(pin.id)
        self.wire = bytes(memoryview(buf))

    def free_pio(self) -> None:
        self.released += 1
