"""LED backends: NeoPixels on the Pi, and a simulated strip.

Which driver moves the bits depends on the Pi, read at run time from the device tree's model
string (`/proc/device-tree/model`):

- **Pi 1-4** (and 400, Zero, CM1-4): adafruit-circuitpython-neopixel, which on these boards goes
  through rpi_ws281x: GPIO 10 uses the SPI block (no root, `dtparam=spi=on` and the spi group),
  GPIO 12/18 PWM + DMA (root), GPIO 21 PCM (HARDWARE.md).
- **Pi 5** (and 500, CM5): the header GPIOs sit behind the RP1 I/O chip, which rpi_ws281x
  cannot drive: a Pi 5 board on that path has no lights. There the Pi 5 driver
  (adafruit-blinka-raspberry-pi5-neopixel, module `adafruit_raspberry_pi5_neopixel_write`)
  sends the bytes through one of RP1's PIO state machines; its API, read from its source
  (1.0.0rc2, src/main.cpp): `neopixel_write(gpio, buf)` takes any object with an integer `id`
  (or a `_pin.id`) and a bytes-like buffer already in the strip's colour order, and
  `free_pio()` releases the state machine. It needs `/dev/pio0` (group gpio by udev rule).

The hardware libraries are imported only when a NeoPixel backend is created, so everything else
installs and runs on any PC (HARDWARE.md: on x86, `import neopixel` raises NotImplementedError,
not ImportError; any exception there becomes a clear message). Tests inject fake modules.

>>> choose_led_driver("Raspberry Pi 5 Model B Rev 1.0").driver
'pi5-pio'
>>> choose_led_driver("Raspberry Pi 4 Model B Rev 1.4").driver
'rpi_ws281x'
>>> choose_led_driver(None).driver is None
True
>>> encode_pixels([(1, 2, 3)], "GRB"), encode_pixels([(1, 2, 3)], "RGBW")
(b'\\x02\\x01\\x03', b'\\x01\\x02\\x03\\x00')
"""

from __future__ import annotations

import importlib
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from .patterns import RGB


class LedError(RuntimeError):
    """The LED hardware cannot be used; the message says why and what to do."""


class LedStrip(Protocol):
    count: int

    def show(self, pixels: list[RGB]) -> None:
        """Show one colour per LED; exactly `count` of them, else ValueError."""
        ...

    def close(self) -> None:
        """All LEDs off and the hardware released; a second call does nothing."""
        ...


def check_length(pixels: Sequence[RGB], count: int) -> None:
    """Every backend refuses a frame for another strip length (a board file / config mix-up)."""
    if len(pixels) != count:
        raise ValueError(f"{len(pixels)} pixels for a strip of {count}")


class SimulatedLeds:
    """Keeps what would be shown: the latest frame and a short history for the page and tests."""

    def __init__(self, count: int, keep: int = 100) -> None:
        self.count = count
        self.pixels: list[RGB] = [(0, 0, 0)] * count
        self.frames: deque[list[RGB]] = deque(maxlen=keep)
        self.shown = 0

    def show(self, pixels: list[RGB]) -> None:
        check_length(pixels, self.count)
        self.pixels = list(pixels)
        self.frames.append(self.pixels)
        self.shown += 1

    def close(self) -> None:
        self.show([(0, 0, 0)] * self.count)


# -- which Pi, which driver -------------------------------------------------------------------

#: Where Linux exposes the board's model string (NUL-terminated); the second is the same node
#: under sysfs, for systems that do not mount /proc/device-tree.
MODEL_PATHS = (Path("/proc/device-tree/model"), Path("/sys/firmware/devicetree/base/model"))

#: Boards whose header GPIOs sit behind RP1 (BCM2712): Pi 5, Pi 500, Compute Module 5 (Lite).
_RP1_MODEL = re.compile(r"^Raspberry Pi (5|500|Compute Module 5)\b")

PI5_MODULE = "adafruit_raspberry_pi5_neopixel_write"


def read_pi_model(paths: Sequence[Path] = MODEL_PATHS) -> str | None:
    """The device tree's model string ("Raspberry Pi 5 Model B Rev 1.0"), or None off a Pi."""
    for path in paths:
        try:
            return path.read_bytes().rstrip(b"\0").decode("utf-8", "replace").strip()
        except OSError:
            continue
    return None


@dataclass(frozen=True)
class LedDriverChoice:
    """The NeoPixel driver for this board and why (`sowboard diag` prints it)."""

    driver: str | None  # "pi5-pio", "rpi_ws281x", or None: no driver for this machine
    model: str | None
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"driver": self.driver, "model": self.model, "why": self.why}


def choose_led_driver(model: str | None) -> LedDriverChoice:
    """Pi 5 family: RP1's PIO; any other Raspberry Pi: rpi_ws281x; elsewhere none."""
    if model is None:
        return LedDriverChoice(None, None, "no device-tree model: not a Raspberry Pi")
    if _RP1_MODEL.match(model):
        return LedDriverChoice(
            "pi5-pio",
            model,
            "the GPIOs sit behind the RP1 chip, which rpi_ws281x cannot drive: "
            f"RP1's PIO through {PI5_MODULE}",
        )
    if model.startswith("Raspberry Pi"):
        return LedDriverChoice(
            "rpi_ws281x", model, "a Pi before the 5: neopixel through rpi_ws281x (SPI on GPIO 10)"
        )
    return LedDriverChoice(None, model, "not a Raspberry Pi: no NeoPixel driver")


def encode_pixels(pixels: Sequence[RGB], order: str) -> bytes:
    """The bytes a WS2812B chain expects, in its colour order ("GRB"; W = 0 for RGBW parts)."""
    out = bytearray()
    for r, g, b in pixels:
        channel = {"R": r, "G": g, "B": b, "W": 0}
        out.extend(channel[c] for c in order)
    return bytes(out)


def _load(name: str, modules: Mapping[str, ModuleType] | None) -> ModuleType:
    return modules[name] if modules is not None else importlib.import_module(name)


class _Pin:
    """What the Pi 5 driver needs of a pin: its GPIO number as `id` (Blinka's Pin has that)."""

    def __init__(self, gpio: int) -> None:
        self.id = gpio


class Ws281xDriver:
    """Pi 1-4: adafruit-circuitpython-neopixel (Blinka), which uses rpi_ws281x underneath."""

    def __init__(
        self, count: int, gpio: int, order: str, modules: Mapping[str, ModuleType] | None
    ) -> None:
        try:
            board = _load("board", modules)
            neopixel = _load("neopixel", modules)
        except Exception as err:  # NotImplementedError on a PC, ImportError without the extra
            raise LedError(_missing("neopixel (rpi_ws281x)", err)) from None
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

    def show(self, pixels: Sequence[RGB]) -> None:
        for k, value in enumerate(pixels):
            self._strip[k] = value
        self._strip.show()

    def release(self) -> None:
        self._strip.deinit()


class Pi5PioDriver:
    """Pi 5: the bytes go out through an RP1 PIO state machine (any header GPIO works)."""

    def __init__(
        self, count: int, gpio: int, order: str, modules: Mapping[str, ModuleType] | None
    ) -> None:
        try:
            self._mod = _load(PI5_MODULE, modules)
        except Exception as err:
            raise LedError(_missing(f"the Pi 5 driver ({PI5_MODULE})", err)) from None
        self._pin = _Pin(gpio)
        self._order = order
        self._gpio = gpio

    def show(self, pixels: Sequence[RGB]) -> None:
        try:
            self._mod.neopixel_write(self._pin, encode_pixels(pixels, self._order))
        except Exception as err:  # RuntimeError("Failed to open PIO device ...")
            raise LedError(
                f"cannot drive the LEDs on GPIO {self._gpio} through RP1's PIO ({err}); does "
                "/dev/pio0 exist (update the Pi 5's firmware and kernel) and belong to the gpio "
                'group (udev rule SUBSYSTEM=="*-pio", GROUP="gpio", MODE="0660")?'
            ) from None

    def release(self) -> None:
        self._mod.free_pio()


def _missing(what: str, err: Exception) -> str:
    return (
        f"{what} is not available here ({type(err).__name__}: {err}); "
        "install the pi extra on a Raspberry Pi (pip install 'sowboard[pi]'), "
        'or set leds.backend = "sim"'
    )


DRIVERS: dict[str, type[Ws281xDriver] | type[Pi5PioDriver]] = {
    "rpi_ws281x": Ws281xDriver,
    "pi5-pio": Pi5PioDriver,
}


class NeoPixelLeds:
    """WS2812B LEDs on a Raspberry Pi, through the driver its model needs (`choose_led_driver`).

    `model` is the device tree's model string (read from the system when None); `modules`
    replaces the hardware libraries by name (tests).
    """

    def __init__(
        self,
        count: int,
        gpio: int = 10,
        order: str = "GRB",
        *,
        model: str | None = None,
        modules: Mapping[str, ModuleType] | None = None,
    ) -> None:
        self.count = count
        self.choice = choose_led_driver(model if model is not None else read_pi_model())
        if self.choice.driver is None:
            raise LedError(
                f"NeoPixel LEDs are not available here ({self.choice.why}); "
                'on a PC set leds.backend = "sim"'
            )
        self._driver = DRIVERS[self.choice.driver](count, gpio, order, modules)
        self._closed = False

    def show(self, pixels: list[RGB]) -> None:
        check_length(pixels, self.count)
        self._driver.show(pixels)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._driver.show([(0, 0, 0)] * self.count)
        finally:
            self._driver.release()
