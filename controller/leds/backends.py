"""LED backends: NeoPixels on the Pi (adafruit-circuitpython-neopixel) and a simulated strip.

The hardware library is imported only when the NeoPixel backend is created, so everything else
installs and runs on any PC (HARDWARE.md: on x86, `import neopixel` raises NotImplementedError,
not ImportError; any exception there becomes a clear message).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from .patterns import RGB


class LedError(RuntimeError):
    """The LED hardware cannot be used; the message says why and what to do."""


class LedStrip(Protocol):
    count: int

    def show(self, pixels: list[RGB]) -> None: ...

    def close(self) -> None: ...


class SimulatedLeds:
    """Keeps what would be shown: the latest frame and a short history for the page and tests."""

    def __init__(self, count: int, keep: int = 100) -> None:
        self.count = count
        self.pixels: list[RGB] = [(0, 0, 0)] * count
        self.frames: deque[list[RGB]] = deque(maxlen=keep)
        self.shown = 0

    def show(self, pixels: list[RGB]) -> None:
        if len(pixels) != self.count:
            raise ValueError(f"{len(pixels)} pixels for a strip of {self.count}")
        self.pixels = list(pixels)
        self.frames.append(self.pixels)
        self.shown += 1

    def close(self) -> None:
        self.show([(0, 0, 0)] * self.count)


class NeoPixelLeds:
    """WS2812B LEDs through adafruit-circuitpython-neopixel.

    GPIO 10 (SPI MOSI) by default: rpi_ws281x then drives the strip over SPI, which needs no
    root, only `dtparam=spi=on` and the spi group (HARDWARE.md). GPIO 12/18 (PWM) need root.
    """

    def __init__(self, count: int, gpio: int = 10, order: str = "GRB") -> None:
        self.count = count
        try:
            import board
            import neopixel
        except Exception as err:  # NotImplementedError on a PC, ImportError without the extra
            raise LedError(
                f"NeoPixel LEDs are not available here ({type(err).__name__}: {err}); "
                "install the pi extra on a Raspberry Pi (pip install 'sowboard[pi]'), "
                'or set leds.backend = "sim"'
            ) from None
        pin = getattr(board, f"D{gpio}", None)
        if pin is None:
            raise LedError(f"GPIO {gpio} is not a pin of this board")
        try:
            pixel_order: Any = getattr(neopixel, order)
            self._strip = neopixel.NeoPixel(pin, count, auto_write=False, pixel_order=pixel_order)
        except Exception as err:
            raise LedError(
                f"cannot open the LED strip on GPIO {gpio} ({err}); is SPI enabled "
                "(dtparam=spi=on) and the user in the spi group?"
            ) from None

    def show(self, pixels: list[RGB]) -> None:
        for k, value in enumerate(pixels[: self.count]):
            self._strip[k] = value
        self._strip.show()

    def close(self) -> None:
        self.show([(0, 0, 0)] * self.count)
        self._strip.deinit()
