"""Fixtures of the hardware tests: HX711 models on a fake lgpio (HARDWARE.md, "HX711")."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from controller.sensing.frames import Frame, SampleSource
from controller.sensing.pi_gpio import PiGpioConfig, PiGpioSource
from controller.sim.fake_lgpio import FakeLgpio
from controller.sim.hx711_model import HX711Model


class PiRig:
    """A Pi-only board on the bench: chips wired to the default pins of `PiGpioConfig`."""

    def __init__(self, chips: list[HX711Model], **config: Any) -> None:
        self.chips = chips
        self.config = PiGpioConfig.default(len(chips), **config)
        self.lgpio = FakeLgpio(self.config.sck, dict(zip(self.config.dout, chips, strict=True)))
        self.source = PiGpioSource(self.config, lgpio=self.lgpio.as_module())


@pytest.fixture
def pi_rig() -> Iterator[Callable[..., PiRig]]:
    rigs: list[PiRig] = []

    def build(chips: list[HX711Model], **config: Any) -> PiRig:
        rig = PiRig(chips, **config)
        rigs.append(rig)
        return rig

    yield build
    for rig in rigs:
        rig.source.close()


def wait_for(source: SampleSource, check: Callable[[Frame], bool], timeout: float = 5.0) -> Frame:
    """The first frame that passes `check`; fails the test after `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        frame = source.read(0.5)
        if frame is not None and check(frame):
            return frame
    raise AssertionError(f"no matching frame within {timeout} s; status {source.status()}")


def complete(frame: Frame) -> bool:
    return not frame.missing
