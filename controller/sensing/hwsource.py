"""Pieces shared by the hardware sample sources (`pi_gpio`, `serial_source`).

- `FrameQueue`: the bounded hand-over from a reader thread to `read()`. When the consumer falls
  behind the oldest frame is dropped (the `seq` gap shows it), so the reader never blocks.
- `CellHealth`: turns per-cell readings into the faults the sensor page shows: a cell that gives
  nothing for a while ("no data (unplugged?)") or sits at the ADC's rail.
- `RateMeter`: the measured frame rate (the HX711's oscillator is loose: HARDWARE.md).

>>> health = CellHealth(2, fault_after=1.0)
>>> health.update(0.0, (5, None)); health.update(1.5, (6, None)); health.fault()
'cell 1: no data (unplugged?)'
>>> health.update(1.6, (6, 7)); health.fault() is None
True
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from controller.sensing.frames import RAW_MAX, RAW_MIN, Frame


class SourceUnavailable(RuntimeError):
    """The hardware behind a source cannot be used; the message says what to do."""


class FrameQueue:
    """Bounded, drop-oldest queue of frames between one producer thread and one consumer."""

    def __init__(self, maxsize: int = 32) -> None:
        self._queue: queue.Queue[Frame] = queue.Queue(maxsize=max(1, maxsize))
        self._closed = threading.Event()
        self.dropped = 0

    def put(self, frame: Frame) -> None:
        while True:
            try:
                self._queue.put_nowait(frame)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def get(self, timeout: float | None) -> Frame | None:
        """The next frame, or None after `timeout` seconds or once closed and drained."""
        step = 0.05
        remaining = timeout
        while True:
            wait = step if remaining is None else min(step, remaining)
            try:
                return self._queue.get(timeout=max(wait, 0.0))
            except queue.Empty:
                pass
            if self._closed.is_set():
                return None
            if remaining is not None:
                remaining -= wait
                if remaining <= 0:
                    return None

    def close(self) -> None:
        self._closed.set()


class RateMeter:
    """Frames per second from frame timestamps (exponential average of the intervals)."""

    def __init__(self, alpha: float = 0.1) -> None:
        self._alpha = alpha
        self._last: float | None = None
        self._interval: float | None = None

    def add(self, t: float) -> None:
        if self._last is not None and t > self._last:
            dt = t - self._last
            self._interval = (
                dt
                if self._interval is None
                else self._interval + self._alpha * (dt - self._interval)
            )
        self._last = t

    def reset(self) -> None:
        self._last = None
        self._interval = None

    @property
    def rate(self) -> float:
        return 0.0 if not self._interval else 1.0 / self._interval


@dataclass
class _CellState:
    missing_since: float | None = None
    rail_since: float | None = None


class CellHealth:
    """Per-cell faults from the frames: no data, or stuck at the rail, for `fault_after` s."""

    def __init__(self, cell_count: int, fault_after: float = 2.0) -> None:
        self.fault_after = fault_after
        self._cells = [_CellState() for _ in range(cell_count)]
        self._now = 0.0

    def update(self, t: float, raw: Sequence[int | None]) -> None:
        self._now = t
        for cell, value in zip(self._cells, raw, strict=True):
            if value is None:
                if cell.missing_since is None:
                    cell.missing_since = t
            else:
                cell.missing_since = None
                if value in (RAW_MAX, RAW_MIN):
                    if cell.rail_since is None:
                        cell.rail_since = t
                else:
                    cell.rail_since = None

    def all_missing(self, t: float) -> None:
        """Nothing came from any cell (no frame at all) up to `t`."""
        self.update(t, [None] * len(self._cells))

    def missing_cells(self) -> list[int]:
        return [
            i
            for i, c in enumerate(self._cells)
            if c.missing_since is not None and self._now - c.missing_since >= self.fault_after
        ]

    def railed_cells(self) -> list[int]:
        return [
            i
            for i, c in enumerate(self._cells)
            if c.rail_since is not None and self._now - c.rail_since >= self.fault_after
        ]

    def fault(self) -> str | None:
        parts = []
        missing = self.missing_cells()
        if missing:
            parts.append(f"{_cells(missing)}: no data (unplugged?)")
        railed = self.railed_cells()
        if railed:
            parts.append(f"{_cells(railed)}: reading at the ADC's limit (overload or broken wire?)")
        return "; ".join(parts) or None


def _cells(indices: list[int]) -> str:
    if len(indices) == 1:
        return f"cell {indices[0]}"
    return "cells " + ", ".join(map(str, indices))
