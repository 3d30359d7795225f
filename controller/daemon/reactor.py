"""The loop's reactor (Klipper's, in small): wait on the feed, dispatch, tick.

Each pass takes the frames that are ready (waiting at most until the next tick is due), hands
them on, carries out the commands the web layer queued, and ticks when a tick is due. It knows
nothing of games or lights: what frames, commands and ticks mean is the caller's (loop.py).
The thread that runs it owns every piece of state behind it, so none of it needs a lock.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.sensing.frames import Frame

from .feed import Feed
from .link import CommandError, LoopLink
from .status import LoopStatus

# The page's `lag_ms_p99` is over the last LAG_WINDOW ticks (30 s at 30 a second), worked out
# at most every LAG_REFRESH_S: sorting all the lags kept (100,000, for the benches) at every
# snapshot cost the loop 20 to 60 ms a snapshot once they had filled up, about an hour in.
LAG_WINDOW = 900
LAG_REFRESH_S = 1.0
COMMAND_BUDGET_S = 0.05  # loop time for queued commands in one pass (the tick is 1/30 s)


@dataclass
class LoopStats:
    lags: deque[float] = field(default_factory=lambda: deque(maxlen=100_000))
    # The loop thread's CPU time from waking to each tick (frames and commands): the part of a
    # tick's lag that is the loop's own work. The rest of a lag is waiting for a CPU or for
    # the interpreter (other processes, the web's threads). Kept only while a bench asks
    # (a deque here): on a board it would be megabytes of figures nobody reads.
    work: deque[float] | None = None
    ticks: int = 0
    missed_ticks: int = 0
    frames: int = 0
    publishes: int = 0


@dataclass
class Handlers:
    """What the reactor dispatches to; `stop` closes everything (the thread's last act)."""

    frames: Callable[[list[Frame]], None]
    command: Callable[[str, dict[str, Any]], dict[str, Any]]
    tick: Callable[[float], None]
    stop: Callable[[], None]


class Reactor:
    """Waits on `feed`, dispatches to `handlers`, ticks every `tick_s` of the feed's time."""

    def __init__(
        self,
        feed: Feed,
        link: LoopLink,
        tick_s: float,
        handlers: Handlers,
        out: Callable[[str], None],
    ) -> None:
        self.feed = feed
        self.link = link
        self.tick_s = tick_s
        self.handlers = handlers
        self.out = out
        self.stats = LoopStats()
        self.now = feed.now()
        self.next_tick = self.now
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lag_p99_ms = 0.0
        self._lag_at: float | None = None

    def start(self) -> None:
        """Run the loop in its own thread."""
        self.link.accepting = True
        self._thread = threading.Thread(target=self.run, name="sowboard-loop", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self.link.wake()
        if self._thread is not None:
            self._thread.join(timeout)
        else:
            self.handlers.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self) -> None:
        """The loop (the body of the loop thread); returns after `stop()`."""
        self.link.accepting = True
        try:
            while not self._stop.is_set():
                self.iterate()
        except BaseException:
            self.out("the loop failed:\n" + traceback.format_exc())
            raise
        finally:
            self.handlers.stop()

    def run_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        """Iterate in the calling thread until `done()` or `timeout_s` of loop time (tests)."""
        self.link.accepting = True
        end = self.feed.now() + timeout_s
        while self.feed.now() < end:
            self.iterate()
            if done():
                return True
        return False

    def iterate(self) -> None:
        """One pass: frames, commands, and the tick when it is due."""
        frames = self.feed.wait(self.next_tick)
        work = self.stats.work
        woke_cpu = 0.0 if work is None else time.thread_time()
        if frames:
            self.stats.frames += len(frames)
            self.handlers.frames(frames)
        self._commands()
        now = self.now = self.feed.now()
        if now >= self.next_tick:
            self.stats.lags.append(now - self.next_tick)
            if work is not None:
                work.append(time.thread_time() - woke_cpu)
            self.stats.ticks += 1
            self.handlers.tick(now)
            self._next_tick(now)

    def _next_tick(self, now: float) -> None:
        """The next tick is due one `tick_s` on; ticks the loop fell behind by are skipped
        (and counted), not run one after another."""
        self.next_tick += self.tick_s
        if self.next_tick <= now:
            missed = int((now - self.next_tick) / self.tick_s) + 1
            self.stats.missed_ticks += missed
            self.next_tick += missed * self.tick_s

    def _commands(self) -> None:
        """Carry out queued commands for COMMAND_BUDGET_S at the most (at least one): the rest
        wait for the next pass, so that the frames and the tick come between them however
        many requests queued commands at once."""
        budget_end = time.perf_counter() + COMMAND_BUDGET_S
        while (queued := self.link.take_command()) is not None:
            name, args, future = queued
            try:
                future.set_result(self.handlers.command(name, args))
            except CommandError as err:
                future.set_exception(err)
            except Exception as err:
                self.out(f"command {name} failed:\n{traceback.format_exc()}")
                future.set_exception(CommandError("command", f"internal error: {err}"))
            if time.perf_counter() >= budget_end:
                self.link.wake()  # more may wait: do not sleep until the next frame
                return

    def get_status(self) -> LoopStatus:
        if self._lag_at is None or self.now - self._lag_at >= LAG_REFRESH_S:
            self._lag_at = self.now
            self._lag_p99_ms = round(p99(recent(self.stats.lags, LAG_WINDOW)) * 1000, 2)
        return {
            "ticks": self.stats.ticks,
            "missed_ticks": self.stats.missed_ticks,
            "lag_ms_p99": self._lag_p99_ms,
            "frames": self.stats.frames,
        }


def recent(values: deque[float], count: int) -> list[float]:
    """The last `count` values (a deque is indexed cheaply from its ends)."""
    return [values[-k] for k in range(1, min(count, len(values)) + 1)]


def p99(values: deque[float] | list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
