"""Frames on the loop's clock: a real source's frames as they come (never past the next LED
frame), and the simulated board paced by the daemon itself."""

from __future__ import annotations

import itertools
import queue
import time

from controller.daemon.feed import HardwareFeed, SimFeed
from controller.rules import Place
from controller.sensing.frames import Frame, SourceStatus
from controller.sim import Action, SimWorld, parse_scenario
from tests.daemon.test_hands import StallingClock


class QueueSource:
    """Frames put in by a test, read like PiGpioSource or SerialSource (a queue)."""

    cell_count = 2

    def __init__(self) -> None:
        self.frames: queue.Queue[Frame] = queue.Queue()
        self.closed = False

    def read(self, timeout: float | None = None) -> Frame | None:
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            return None

    def status(self) -> SourceStatus:
        return SourceStatus("test source", True, 80.0)

    def close(self) -> None:
        self.closed = True


def test_a_real_source_gives_every_frame_that_is_ready_and_waits_no_longer_than_told() -> None:
    source = QueueSource()
    feed = HardwareFeed(source)
    for k in range(3):
        source.frames.put(Frame(time.monotonic(), (k, k), k))
    assert [f.seq for f in feed.wait(feed.now() + 1.0)] == [0, 1, 2]
    started = time.monotonic()
    assert feed.wait(feed.now() + 0.05) == []
    assert 0.04 <= time.monotonic() - started < 0.5
    assert feed.rate_sps() == 80.0
    feed.close()
    assert source.closed


def world() -> SimWorld:
    return SimWorld(parse_scenario({"variant": "kalah"}, "test"))


def test_without_waiting_the_simulated_clock_jumps_to_each_deadline() -> None:
    feed = SimFeed(world(), speed=None)
    frames = feed.wait(0.1)
    assert len(frames) == int(0.1 * feed.world.rate_sps)  # every sample due by then
    assert feed.now() == 0.1
    assert feed.wait(0.05) == []  # a deadline already passed gives nothing


def test_in_real_time_frames_come_when_they_are_due() -> None:
    feed = SimFeed(world(), speed=1.0)
    started = time.monotonic()
    got = 0
    while time.monotonic() - started < 0.25:
        got += len(feed.wait(feed.now() + 1 / 30))
    assert abs(got - 0.25 * feed.world.rate_sps) <= 3


def test_a_re_laid_board_keeps_the_loop_clock_running() -> None:
    feed = SimFeed(world(), speed=None)
    feed.wait(5.0)
    feed.replace_world(world())  # a new game: the new world starts at its own time 0
    frames = feed.wait(5.1)
    assert frames and all(5.0 < f.t <= 5.1 + 0.001 for f in frames)


def test_a_late_loop_gets_a_moves_every_frame_and_skips_only_once_the_board_is_still() -> None:
    """The loop is 3 simulated s late (0.15 s at speed 20) while a hand holds seeds: it is
    given every frame of the move as sampled, with no gap in their time while anything moves
    (a skip there froze the hand and the cups, see MAX_CATCH_UP_S). What it is still late by
    once the board is still is skipped, not replayed."""
    clock = StallingClock()
    feed = SimFeed(world(), speed=20.0, clock=clock)
    feed.wake = clock  # type: ignore[assignment]
    feed.world.schedule(
        [Action(0.5, "grab", at=Place(0, 1)), Action(1.2, "drop", at=Place(0, 2), n=1)]
    )
    clock.t = 0.8 / 20  # on time until the hand holds the seeds
    frames = feed.wait(feed.now())
    clock.t += 3.0 / 20
    frames += feed.wait(feed.now())

    assert [f.seq for f in frames] == list(range(1, len(frames) + 1))  # every sample
    period = feed.world.period
    gaps = [a.t for a, b in itertools.pairwise(frames) if b.t - a.t > 2 * period]
    ring_s = 8 * feed.world.sensors.ring_ms / 3000  # (world.py: the ring dies away)
    assert len(gaps) == 1 and gaps[0] > 1.2 + ring_s  # after the drop, its cup settled
    assert feed.skipped_s > 1.0
    assert frames[-1].t <= feed.now() < frames[-1].t + 2 * period
