"""A fake `lgpio` module wired to HX711 models, injected into the Pi-only reader.

It lives in the package (not in tests/) because `sowboard bench pi-reader` runs the reader on it
too, in the reader's own process, where it is named by `module:function` (`bench_lgpio`).

It implements the calls the reader makes (gpiochip_open/close, gpio_claim_output, gpio_write,
group_claim_input, group_read, group_free, gpio_free) with lgpio's conventions: handles are ints,
`group_read` returns `[group size, levels]` with bit i = the i-th GPIO of the claimed list, and
errors raise `lgpio.error`.

SCK edges are stamped with `time.perf_counter_ns()` when `gpio_write` is called and handed to the
chips lazily, at the next `group_read`, so a clock-high phase costs the reader no more than a
real ioctl would (HARDWARE.md: the reader must keep SCK high under 60 us).
"""

from __future__ import annotations

import json
import threading
import time
import types
from collections.abc import Sequence
from typing import Any

from controller.sensing.pi_gpio import PiGpioConfig
from controller.sim.hx711_model import HX711Model


class LgpioError(Exception):
    """Stands in for `lgpio.error`."""


class FakeLgpio:
    """The module's state: one gpiochip with HX711 chips on the DOUT lines of `wiring`."""

    SET_PULL_UP = 32

    def __init__(
        self,
        sck: int,
        wiring: dict[int, HX711Model],
        *,
        open_error: str | None = None,
        report: str | None = None,
    ):
        self.sck = sck
        self.wiring = wiring  # DOUT GPIO -> chip
        self.open_error = open_error
        self.report = report  # a file for the chips' counters when the gpiochip is closed
        self.error = LgpioError
        self._lock = threading.Lock()
        self._edges: list[tuple[bool, int]] = []
        self._handles: set[int] = set()
        self._outputs: dict[int, int] = {}
        self._groups: dict[int, list[int]] = {}
        self._stall_ns = 0  # injected delay inside the next clock-high phase
        self._stall_low_request = 0  # armed at the next falling edge, for the read after it
        self._stall_low_ns = 0  # injected delay of the next group_read
        self.group_flags: int | None = None
        self.high_phases = 0
        self.closed = False

    # -- test controls ------------------------------------------------------------------------

    def stall_next_high(self, microseconds: float) -> None:
        """Keep SCK high this long on the next pulse, as a preempted thread would."""
        with self._lock:
            self._stall_ns = int(microseconds * 1000)

    def stall_next_low(self, microseconds: float) -> None:
        """The `group_read` after the next falling edge of SCK takes this long: in the middle
        of a read, SCK stays low between two pulses, as when the reader is preempted there."""
        with self._lock:
            self._stall_low_request = int(microseconds * 1000)

    def as_module(self) -> types.ModuleType:
        module = types.ModuleType("lgpio")
        for name in (
            "gpiochip_open",
            "gpiochip_close",
            "gpio_claim_output",
            "gpio_write",
            "gpio_free",
            "group_claim_input",
            "group_read",
            "group_free",
        ):
            setattr(module, name, getattr(self, name))
        module.error = LgpioError  # type: ignore[attr-defined]
        module.SET_PULL_UP = self.SET_PULL_UP  # type: ignore[attr-defined]
        return module

    # -- the lgpio calls the reader uses ------------------------------------------------------

    def gpiochip_open(self, gpiochip: int) -> int:
        if self.open_error:
            raise LgpioError(self.open_error)
        handle = 7 | (gpiochip << 16)
        self._handles.add(handle)
        return handle

    def gpiochip_close(self, handle: int) -> int:
        self._check(handle)
        self._handles.discard(handle)
        self.closed = True
        if self.report:
            self.write_report(self.report)
        return 0

    def write_report(self, path: str) -> None:
        """What the chips went through, as JSON: for a reader in another process, whose chips
        the caller cannot see (`sowboard bench pi-reader` counts the real power-downs)."""
        chips = list(self.wiring.values())
        counts = {
            "power_downs": max((c.power_downs for c in chips), default=0),
            "reads": max((c.reads for c in chips), default=0),
            "garbage_reads": sum(c.garbage_reads for c in chips),
        }
        with open(path, "w", encoding="utf-8") as out:
            json.dump(counts, out)

    def gpio_claim_output(self, handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:
        self._check(handle)
        self._outputs[gpio] = level
        if gpio == self.sck:  # claiming drives the line: chips left powered down wake up
            self._edges.append((bool(level), time.perf_counter_ns()))
        return 0

    def gpio_free(self, handle: int, gpio: int) -> int:
        self._outputs.pop(gpio, None)
        return 0

    def group_claim_input(self, handle: int, gpio: Sequence[int], lFlags: int = 0) -> int:
        self._check(handle)
        self._groups[gpio[0]] = list(gpio)
        self.group_flags = lFlags
        return 0

    def group_free(self, handle: int, gpio: int) -> int:
        self._groups.pop(gpio, None)
        return 0

    def gpio_write(self, handle: int, gpio: int, level: int) -> int:
        t = time.perf_counter_ns()
        if gpio not in self._outputs:
            raise LgpioError("GPIO not an output")
        self._outputs[gpio] = level
        if gpio == self.sck:
            self._edges.append((bool(level), t))
            if level:
                self.high_phases += 1
                stall, self._stall_ns = self._stall_ns, 0
                _spin_until(t + stall)
            elif self._stall_low_request:
                self._stall_low_ns, self._stall_low_request = self._stall_low_request, 0
        return 0

    def group_read(self, handle: int, gpio: int) -> list[int]:
        self._check(handle)
        lines = self._groups.get(gpio)
        if lines is None:
            raise LgpioError("GPIO not in a group")
        stall, self._stall_low_ns = self._stall_low_ns, 0
        _spin_until(time.perf_counter_ns() + stall)
        now = time.perf_counter_ns()
        edges, self._edges = self._edges, []
        chips = list(self.wiring.values())
        for high, t in edges:
            for chip in chips:
                chip.sck(high, t)
        levels = 0
        for bit, line in enumerate(lines):
            wired = self.wiring.get(line)
            level = 1 if wired is None else wired.dout(now)  # an unwired line floats to the pull-up
            levels |= level << bit
        return [len(lines), levels]

    def _check(self, handle: int) -> None:
        if handle not in self._handles:
            raise LgpioError("bad handle")


def _spin_until(t_ns: int) -> None:
    """Busy-wait (a sleep could not be this exact)."""
    while time.perf_counter_ns() < t_ns:
        pass


def make_chips(values: Sequence[int], *, rate: int = 80, **kw: Any) -> list[HX711Model]:
    """One chip per value, each with its own oscillator phase (they are not synchronised)."""
    now = time.perf_counter_ns()
    return [
        HX711Model(v, rate=rate, phase=(i * 0.37) % 1.0, start_ns=now, seed=i, **kw)
        for i, v in enumerate(values)
    ]


def wired_lgpio(
    values: Sequence[int], *, open_error: str | None = None, report: str | None = None, **chip: Any
) -> Any:
    """A fake lgpio module with one HX711 per value on the Pi-only build's default pins.

    For a reader in another process (`pi_process`, `sowboard bench pi-reader`): a
    `functools.partial` of this top-level function pickles by name, the chips are made there;
    with `report`, their counters are written to that file when the reader closes the gpiochip.
    """
    config = PiGpioConfig.default(len(values))
    chips = make_chips(values, **chip)
    wiring = dict(zip(config.dout, chips, strict=True))
    return FakeLgpio(config.sck, wiring, open_error=open_error, report=report).as_module()
