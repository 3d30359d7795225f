"""Frames of raw load-cell readings and the sample-source interface every backend implements.

A frame is one reading of every cell (HX711s on a shared clock are read together), timestamped
by the source because the HX711's own oscillator is loose (HARDWARE.md).

>>> Frame(0.0125, (1200, None, -5), seq=1).missing
(1,)
>>> to_signed24(0xFFFFFF), to_signed24(0x7FFFFF)
(-1, 8388607)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

RAW_MIN = -(1 << 23)
RAW_MAX = (1 << 23) - 1


def to_signed24(value: int) -> int:
    """Two's-complement 24-bit word to a Python int (HX711 DOUT order, MSB first)."""
    value &= 0xFFFFFF
    return value - (1 << 24) if value & 0x800000 else value


@dataclass(frozen=True, slots=True)
class Frame:
    """One reading per cell at time `t` (seconds, the source's monotonic clock).

    `raw[i]` is cell i's signed 24-bit reading, or None when that cell gave nothing this frame
    (not ready in time, a discarded read, a broken serial frame). `seq` counts frames, so a gap
    shows frames lost on the way.
    """

    t: float
    raw: tuple[int | None, ...]
    seq: int = 0

    @property
    def missing(self) -> tuple[int, ...]:
        return tuple(i for i, r in enumerate(self.raw) if r is None)


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """What a source says about itself, for the sensor page and `sensor_fault` flags.

    `dropped_frames`: frames lost because whoever reads the source fell behind (a reader's
    bounded queue drops the oldest: 32 frames, 0.4 s at 80 SPS); 0 for a source without a
    queue. The daemon shows it (`daemon.behind`).
    """

    name: str
    connected: bool
    rate_sps: float
    fault: str | None = None
    dropped_frames: int = 0


@runtime_checkable
class SampleSource(Protocol):
    """Anything that yields frames: the simulated board, the Pi's GPIO reader, the Pico link."""

    cell_count: int

    def read(self, timeout: float | None = None) -> Frame | None:
        """The next frame; None when none came within `timeout` seconds (None: wait)."""
        ...

    def status(self) -> SourceStatus: ...

    def close(self) -> None: ...


def frames(source: SampleSource, timeout: float | None = None) -> Iterator[Frame]:
    """Frames until the source runs dry (a finite simulation) or times out."""
    while True:
        frame = source.read(timeout)
        if frame is None:
            return
        yield frame
