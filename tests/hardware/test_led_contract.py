"""Every LED backend keeps the `LedStrip` contract of controller/leds/backends.py.

One parametrised fixture builds each strip on its bench: the simulated strip, NeoPixels on a
Pi 4 (rpi_ws281x path) and on a Pi 5 (RP1 PIO path) with fake driver modules, and the Pico's
LEDs over a fake link. The checks: the LEDs show exactly the colours given (in the strip's own
colour order on the wire), a frame of the wrong length is refused, close() turns every LED off,
releases the hardware once, and can be called twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.daemon.hardware import PicoLeds
from controller.leds.backends import (
    LedError,
    LedStrip,
    NeoPixelLeds,
    SimulatedLeds,
    choose_led_driver,
    read_pi_model,
)
from tests.hardware.fake_leds import FakePi5, FakeWs281x, decode

RGB = tuple[int, int, int]
COUNT = 5
PI4 = "Raspberry Pi 4 Model B Rev 1.4"
PI5 = "Raspberry Pi 5 Model B Rev 1.0"


class Bench:
    """A strip, what its LEDs show now, and how often its hardware was released."""

    def __init__(
        self, strip: LedStrip, shown: Callable[[], list[RGB]], released: Callable[[], int]
    ) -> None:
        self.strip, self.shown, self.released = strip, shown, released


def sim_bench() -> Bench:
    strip = SimulatedLeds(COUNT)
    return Bench(strip, lambda: strip.pixels, lambda: 1)  # nothing to release


def ws281x_bench() -> Bench:
    fake = FakeWs281x()
    strip = NeoPixelLeds(COUNT, gpio=10, order="GRB", model=PI4, modules=fake.modules())
    assert fake.gpio == 10
    return Bench(strip, lambda: decode(fake.wire, fake.order), lambda: fake.released)


def pi5_bench() -> Bench:
    fake = FakePi5()
    strip = NeoPixelLeds(COUNT, gpio=10, order="GRB", model=PI5, modules=fake.modules())
    return Bench(strip, lambda: decode(fake.wire, "GRB"), lambda: fake.released)


class FakePicoLink:
    """The serial source's `set_leds` as PicoLeds uses it."""

    def __init__(self) -> None:
        self.leds: list[RGB] = [(0, 0, 0)] * COUNT

    def set_leds(self, colors: list[RGB], start: int = 0) -> None:
        self.leds[start : start + len(colors)] = list(colors)


def pico_bench() -> Bench:
    link = FakePicoLink()
    return Bench(PicoLeds(link, COUNT), lambda: link.leds, lambda: 1)  # the source owns the port


BENCHES = {"sim": sim_bench, "rpi_ws281x": ws281x_bench, "pi5-pio": pi5_bench, "pico": pico_bench}


@pytest.fixture(params=sorted(BENCHES))
def bench(request: pytest.FixtureRequest) -> Iterator[Bench]:
    made = BENCHES[request.param]()
    yield made
    made.strip.close()


FRAME: list[RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3), (40, 30, 20)]


def test_the_leds_show_exactly_the_colours_given(bench: Bench) -> None:
    """Distinct colours per LED: a swapped colour order or an LED off by one shows up."""
    bench.strip.show(list(FRAME))
    assert bench.shown() == FRAME
    bench.strip.show(list(reversed(FRAME)))
    assert bench.shown() == list(reversed(FRAME))


def test_a_frame_of_the_wrong_length_is_refused(bench: Bench) -> None:
    with pytest.raises(ValueError, match=f"{COUNT - 1} pixels for a strip of {COUNT}"):
        bench.strip.show(FRAME[:-1])


def test_close_turns_every_led_off_and_releases_once(bench: Bench) -> None:
    bench.strip.show(list(FRAME))
    bench.strip.close()
    bench.strip.close()
    assert bench.shown() == [(0, 0, 0)] * COUNT
    assert bench.released() == 1


# -- which driver for which Pi ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "driver"),
    [
        ("Raspberry Pi 5 Model B Rev 1.0", "pi5-pio"),
        ("Raspberry Pi 500 Rev 1.0", "pi5-pio"),
        ("Raspberry Pi Compute Module 5 Rev 1.0", "pi5-pio"),
        ("Raspberry Pi 4 Model B Rev 1.5", "rpi_ws281x"),
        ("Raspberry Pi 400 Rev 1.0", "rpi_ws281x"),
        ("Raspberry Pi Compute Module 4 Rev 1.0", "rpi_ws281x"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "rpi_ws281x"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "rpi_ws281x"),
        ("Orange Pi 5", None),
        (None, None),
    ],
)
def test_the_driver_follows_the_pi_model(model: str | None, driver: str | None) -> None:
    choice = choose_led_driver(model)
    assert choice.driver == driver
    assert choice.model == model and choice.why


def test_the_model_is_read_from_the_device_tree(tmp_path: Path) -> None:
    """The node holds a NUL-terminated string; /proc first, then sysfs, None off a Pi."""
    proc, sysfs = tmp_path / "proc-model", tmp_path / "sys-model"
    assert read_pi_model([proc, sysfs]) is None
    sysfs.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    assert read_pi_model([proc, sysfs]) == PI4
    proc.write_bytes(PI5.encode() + b"\x00")
    assert read_pi_model([proc, sysfs]) == PI5


def test_a_pi5_without_its_driver_says_which_package_is_missing() -> None:
    with pytest.raises(LedError, match=r"Pi 5 driver \(adafruit_raspberry_pi5_neopixel_write\)"):
        NeoPixelLeds(COUNT, model=PI5, modules={})
    with pytest.raises(LedError, match=r"neopixel \(rpi_ws281x\).*pi extra"):
        NeoPixelLeds(COUNT, model=PI4, modules={})


def test_a_pi5_without_its_pio_device_names_dev_pio0() -> None:
    fake = FakePi5(pio_device=False)
    strip = NeoPixelLeds(COUNT, model=PI5, modules=fake.modules())
    with pytest.raises(LedError, match=r"/dev/pio0.*gpio"):
        strip.show(list(FRAME))


def test_the_pi5_driver_gets_the_configured_gpio_and_rgbw_bytes() -> None:
    fake = FakePi5()
    strip = NeoPixelLeds(2, gpio=18, order="RGBW", model=PI5, modules=fake.modules())
    strip.show([(1, 2, 3), (4, 5, 6)])
    assert fake.gpio == 18
    assert fake.wire == bytes([1, 2, 3, 0, 4, 5, 6, 0])
