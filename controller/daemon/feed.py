"""Frames for the daemon's loop, on the loop's clock: the simulated board or real hardware.

The loop asks a feed for the frames that are ready, waiting at most until its next deadline
(the next LED frame), so that a seed's landing is acted on as soon as its frame arrives and the
LEDs still refresh on time when no frame comes.

- `HardwareFeed` wraps a real `SampleSource` (pi_gpio, serial): frames are stamped with
  `time.monotonic()` by the source, which is the loop's clock too.
- `SimFeed` steps a `SimWorld` itself instead of using `SimSource`'s sleeping `read`: at
  `speed` simulated seconds per wall second (1.0: real time, a demo can fast-forward), or with
  `speed=None` without ever waiting (tests and benchmarks run a game in a fraction of a
  second, deterministically). A new game or an undo replaces the world (the attendant re-lays
  the board); the loop's clock runs on, frames are restamped `offset` later.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from controller.sensing.frames import Frame, SampleSource, SourceStatus
from controller.sim import ButtonPress, SimWorld

# A loop that fell further behind skips simulated time instead, but only while the board is
# still. A skip is a gap in the frames' time: in the middle of a move it froze the hands, the
# rings and the presses for as long as the loop was late, so the game the referee saw depended
# on the machine's load (a capture's seed held 2 s in the air by a 0.1 s hiccup at speed 20
# was flagged as a wrong pit in the store). Late mid-move, the loop is given every frame as
# sampled, as a real source's queue gives them.
MAX_CATCH_UP_S = 1.0
# Further behind than this, skip anyway: a loop stopped in a debugger, a laptop suspended,
# a machine that cannot keep up (the demo's board is never still for more than about 30 s).
MAX_BEHIND_S = 60.0


class Feed(Protocol):
    cell_count: int
    # Simulated time skipped because the loop fell behind (0 for a real source, whose queue
    # drops the oldest frames instead: `status().dropped_frames`).
    skipped_s: float

    def now(self) -> float:
        """The loop's clock (seconds), the same clock as the frames' `t`."""
        ...

    def wait(self, deadline: float) -> list[Frame]:
        """The frames ready now; if none, wait for one, but not past `deadline`."""
        ...

    def rate_sps(self) -> float: ...

    def status(self) -> SourceStatus: ...

    def close(self) -> None: ...


class HardwareFeed:
    """A real sample source; `wake` cannot interrupt its read, so waits are short anyway."""

    def __init__(self, source: SampleSource, clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.cell_count = source.cell_count
        self.skipped_s = 0.0  # (a real board's time is never skipped)
        self._clock = clock

    def now(self) -> float:
        return self._clock()

    def wait(self, deadline: float) -> list[Frame]:
        frame = self.source.read(max(0.0, deadline - self._clock()))
        if frame is None:
            return []
        frames = [frame]
        while len(frames) < 64 and (more := self.source.read(0.0)) is not None:
            frames.append(more)
        return frames

    def rate_sps(self) -> float:
        return float(self.source.status().rate_sps)

    def status(self) -> SourceStatus:
        return self.source.status()

    def close(self) -> None:
        self.source.close()


class SimFeed:
    """A `SimWorld` stepped on the loop's clock (see the module docstring)."""

    def __init__(
        self,
        world: SimWorld,
        speed: float | None = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.world = world
        self.cell_count = world.cell_count
        self.speed = speed
        self.offset = 0.0  # loop time = world time + offset
        self.wake = threading.Event()  # set by the link when a command is queued
        self._clock = clock
        self._wall0 = clock()
        self._buttons_seen = 0
        self._virtual_now = 0.0  # speed None: the deadline the loop last waited for
        self.skipped_s = 0.0  # simulated time skipped because the loop fell behind

    # -- the clock ----------------------------------------------------------------------------

    def now(self) -> float:
        if self.speed is None:
            return max(self.world.now + self.offset, self._virtual_now)
        return (self._clock() - self._wall0) * self.speed

    def _next_t(self) -> float:
        return self.world.now + self.world.period + self.offset

    def to_world(self, t: float) -> float:
        return t - self.offset

    def to_loop(self, t: float) -> float:
        return t + self.offset

    # -- frames -------------------------------------------------------------------------------

    def _step(self) -> Frame:
        frame = self.world.step()
        if self.offset:
            return Frame(frame.t + self.offset, frame.raw, frame.seq)
        return frame

    def wait(self, deadline: float) -> list[Frame]:
        if self.speed is None:
            frames: list[Frame] = []
            while self._next_t() <= deadline + 1e-9:
                frames.append(self._step())
            self._virtual_now = max(self._virtual_now, deadline)
            return frames
        now = self.now()
        due = self._next_t()
        if due > now:
            until = min(due, deadline)
            if until > now:
                self.wake.wait((until - now) / self.speed)
                self.wake.clear()
            now = self.now()
        frames = []
        while (due := self._next_t()) <= now:
            behind = now - due
            if behind > MAX_CATCH_UP_S and (self.world.still or behind > MAX_BEHIND_S):
                self._skip(behind)  # (the loop was stopped: do not replay it all)
            else:
                frames.append(self._step())
        return frames

    def _skip(self, behind: float) -> None:
        """The world's time stands still while the loop's runs on: the next frame is due
        now."""
        skip = behind - self.world.period
        self.offset += skip
        self.skipped_s += skip

    def replace_world(self, world: SimWorld) -> None:
        """A re-laid board: the new world's time 0 is the loop's now."""
        now = self.now()
        self.world = world
        self.cell_count = world.cell_count
        self.offset = now - world.now
        self._buttons_seen = 0

    def poll_buttons(self) -> list[ButtonPress]:
        presses = self.world.buttons[self._buttons_seen :]
        self._buttons_seen += len(presses)
        return presses

    def rate_sps(self) -> float:
        return float(self.world.rate_sps)

    def status(self) -> SourceStatus:
        return SourceStatus("simulated board", True, self.world.rate_sps)

    def close(self) -> None:
        self.wake.set()
