"""The configured hardware: the load-cell source, the LED strip, the board buttons.

Hardware libraries are only imported here, when the configuration asks for that hardware, and
every failure becomes a `HardwareError` that says what to change (HARDWARE.md: on a PC
`import neopixel` raises NotImplementedError, gpiozero finds no pin factory).
"""

from __future__ import annotations

from typing import Any

from controller.buttons import ButtonError, Buttons
from controller.leds.backends import (
    LedError,
    LedStrip,
    NeoPixelLeds,
    SimulatedLeds,
    check_length,
)
from controller.leds.patterns import RGB
from controller.sensing.frames import SampleSource
from controller.sensing.hwsource import SourceUnavailable

from .config import Config


class HardwareError(RuntimeError):
    """Configured hardware that cannot be used; the message says why and which key to change."""


class NoLeds:
    """`leds.backend = "none"`: a board without lights still referees."""

    def __init__(self, count: int) -> None:
        self.count = count

    def show(self, pixels: list[RGB]) -> None:
        del pixels  # also the sink of tools that run the loop without lights (NoLeds(0))

    def close(self) -> None:
        pass


class PicoLeds:
    """LEDs driven by the Pico (Pi + Pico build): frames go over the serial link."""

    def __init__(self, source: Any, count: int) -> None:
        if not hasattr(source, "set_leds"):
            raise HardwareError(
                'leds.backend = "pico" needs hardware.source = "serial" (the Pico drives them)'
            )
        self.source = source
        self.count = count
        self._last: list[RGB] | None = None

    def show(self, pixels: list[RGB]) -> None:
        check_length(pixels, self.count)
        if pixels != self._last:  # the serial link is slow: send changes only
            self._last = list(pixels)
            self.source.set_leds(pixels)

    def close(self) -> None:
        self.source.set_leds([(0, 0, 0)] * self.count)


def open_source(config: Config, cell_count: int, led_count: int) -> SampleSource:
    """The real load-cell source of `hardware.source` (pi or serial)."""
    try:
        if config.source == "pi":
            from controller.sensing.pi_gpio import PiGpioConfig
            from controller.sensing.pi_process import PiProcessSource

            pi = config.pi
            # In a process of its own: a reader thread here would share the interpreter lock
            # with the loop and the web server, and a busy thread stretches clock pulses.
            return PiProcessSource(
                PiGpioConfig(
                    sck=pi.sck,
                    dout=pi.dout,
                    gain=pi.gain,
                    rate_sps=pi.rate_sps,
                    gpiochip=pi.gpiochip,
                )
            )
        if config.source == "serial":
            from controller.sensing.serial_source import SerialSource

            serial = config.serial
            return SerialSource(
                serial.port or None,
                cell_count=cell_count,
                rate_sps=serial.rate_sps,
                gain=serial.gain,
                led_count=led_count if config.led_backend() == "pico" else 0,
            )
    except (SourceUnavailable, ValueError, OSError) as err:
        raise HardwareError(
            f'hardware.source = "{config.source}": {err} '
            '(on a PC without the hardware, set hardware.source = "sim")'
        ) from None
    raise HardwareError(f"hardware.source = {config.source!r} is not real hardware")


def source_rate(config: Config) -> float:
    """The nominal sample rate the HX711s run at (the detector's timing depends on it)."""
    if config.source == "pi":
        return float(config.pi.rate_sps)
    if config.source == "serial":
        return float(config.serial.rate_sps)
    return float(config.sim.rate_sps)


def open_leds(config: Config, count: int, source: Any = None) -> LedStrip:
    backend = config.led_backend()
    if backend == "sim":
        return SimulatedLeds(count)
    if backend == "none":
        return NoLeds(count)
    if backend == "pico":
        return PicoLeds(source, count)
    try:
        return NeoPixelLeds(count, gpio=config.leds.gpio, order=config.leds.order)
    except LedError as err:
        raise HardwareError(f'leds.backend = "{backend}": {err}') from None


def open_buttons(config: Config, pin_factory: Any = None) -> Buttons | None:
    if not config.buttons.enabled:
        return None
    try:
        return Buttons(dict(config.buttons.pins), pin_factory=pin_factory)
    except ButtonError as err:
        raise HardwareError(f"buttons.enabled = true: {err}") from None
