"""What the loop loses by falling behind its source reaches /api/state (behind.py): frames a
real reader's bounded queue dropped, and the time the simulated board skipped. Both used to be
counted (`dropped_frames`, `SimFeed.skipped_s`) and shown to nobody."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from controller.daemon.behind import WINDOW_S
from controller.daemon.loop import BoardLoop
from controller.daemon.run import make_app
from controller.sensing.frames import Frame, SourceStatus
from controller.sensing.hwsource import FrameQueue
from controller.sim.fake_lgpio import make_chips
from tests.browser import needs_chromium
from tests.hardware.conftest import PiRig
from web_ui.app import stop_streams
from web_ui.serve import WebServer

from .conftest import make_config
from .test_hands import StallingClock

RATE = 80.0


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class QueuedReader:
    """A reader as PiGpioSource's: 80 frames a second of the test's clock go into a bounded
    queue (32, 0.4 s) whether or not the loop reads them, the oldest dropped when it is full.
    Reading when no frame is due lets the clock run on to the next one."""

    def __init__(self, clock: FakeClock, cells: int) -> None:
        self.clock = clock
        self.cell_count = cells
        self.queue = FrameQueue(32)
        self._t0 = clock.t
        self._seq = 0

    def _fill(self) -> None:
        while self._t0 + self._seq / RATE <= self.clock.t:
            self._seq += 1
            self.queue.put(Frame(self._t0 + self._seq / RATE, (0,) * self.cell_count, self._seq))

    def read(self, timeout: float | None = None) -> Frame | None:
        self._fill()
        frame = self.queue.get(0.0)
        if frame is None:
            self.clock.t += min(timeout or 0.0, 1 / RATE)
            self._fill()
            frame = self.queue.get(0.0)
        return frame

    def status(self) -> SourceStatus:
        return SourceStatus("Pi GPIO HX711", True, RATE, dropped_frames=self.queue.dropped)

    def close(self) -> None:
        self.queue.close()


def api_state(loop: BoardLoop) -> dict[str, Any]:
    client = make_app(loop, loop.config, TESTING=True).test_client()
    state = client.get("/api/state").get_json()
    assert isinstance(state, dict)
    return state


def dropped_notices(state: dict[str, Any]) -> list[str]:
    return [n["text"] for n in state["daemon"]["notices"] if "frames dropped" in n["text"]]


def test_frames_a_reader_dropped_while_the_loop_stalled_are_in_the_state(tmp_path: Path) -> None:
    """The loop stalls 1 s: the reader's queue holds 0.4 s, the rest is dropped. /api/state
    counts them, since the start and in the last minute, with one notice; a minute later the
    last minute's count is back to 0, the total stays, and a new stall is a new notice."""
    config = make_config(tmp_path)
    clock = FakeClock()
    reader = QueuedReader(clock, len(config.board_file().cells))
    loop = BoardLoop(config, out=lambda _t: None, clock=clock, source=reader)
    try:
        loop.run_until(lambda: False, 1.0)
        assert api_state(loop)["daemon"]["behind"] == {
            "dropped_frames": 0,
            "dropped_frames_last_minute": 0,
            "skipped_s": 0.0,
            "skipped_s_last_minute": 0.0,
        }
        clock.t += 1.0  # the stall
        loop.run_until(lambda: False, 0.5)
        state = api_state(loop)
        lost = reader.queue.dropped
        assert 40 <= lost <= 50  # 80 frames came, 32 were kept
        behind = state["daemon"]["behind"]
        assert behind["dropped_frames"] == behind["dropped_frames_last_minute"] == lost
        assert dropped_notices(state) == [
            f"Pi GPIO HX711: {lost} frames dropped: the daemon fell behind reading the load cells"
        ]

        loop.run_until(lambda: False, WINDOW_S + 1.5)  # (a snapshot after it)
        behind = api_state(loop)["daemon"]["behind"]
        assert (behind["dropped_frames"], behind["dropped_frames_last_minute"]) == (lost, 0)

        clock.t += 1.0
        loop.run_until(lambda: False, 0.5)
        state = api_state(loop)
        assert state["daemon"]["behind"]["dropped_frames"] == reader.queue.dropped > lost
        dropped = [n for n in state["daemon"]["notices"] if "frames dropped" in n["text"]]
        # (The same text told again, if as many were lost: one record told twice.)
        assert sum(n["repeats"] for n in dropped) == 2
    finally:
        loop.stop()


@needs_chromium
def test_the_sensor_page_of_a_loop_that_dropped_frames_says_so(
    tmp_path: Path, browser: Browser
) -> None:
    """The real loop's snapshot on the real page, in chromium: the notice names the count."""
    config = make_config(tmp_path)
    clock = FakeClock()
    reader = QueuedReader(clock, len(config.board_file().cells))
    loop = BoardLoop(config, out=lambda _t: None, clock=clock, source=reader)
    app = make_app(loop, config, TESTING=True, SSE_HEARTBEAT_S=0.3, SSE_POLL_S=0.05)
    try:
        loop.run_until(lambda: False, 1.0)
        clock.t += 1.0  # the stall
        loop.run_until(lambda: False, 0.5)
        with WebServer(app, "127.0.0.1", 0) as server:
            page = browser.new_page(locale="en-US")
            page.goto(server.url + "/sensors")
            line = page.locator("#behind")
            expect(line).to_contain_text(
                f"Scale readings lost: {reader.queue.dropped} in the last minute"
            )
            expect(line).to_have_class("notice")
            page.close()
    finally:
        stop_streams(app)
        loop.stop()


def test_frames_dropped_before_the_loop_first_read_are_not_counted(tmp_path: Path) -> None:
    """A reader starts before the daemon's other parts: what it dropped before the loop's
    first tick is the start, not the loop falling behind (no notice at every start)."""
    config = make_config(tmp_path)
    clock = FakeClock()
    reader = QueuedReader(clock, len(config.board_file().cells))
    clock.t += 2.0  # the daemon was slow to start
    loop = BoardLoop(config, out=lambda _t: None, clock=clock, source=reader)
    try:
        loop.run_until(lambda: False, 1.0)
        assert reader.queue.dropped > 100
        state = api_state(loop)
        assert state["daemon"]["behind"]["dropped_frames"] == 0
        assert dropped_notices(state) == []
    finally:
        loop.stop()


def test_the_pi_readers_dropped_frames_reach_the_state(tmp_path: Path) -> None:
    """The Pi-only HX711 reader on a fake lgpio, read by the daemon's loop in real time: a
    loop that stalls 1.5 s loses what its queue cannot hold, and the state says how many."""
    config = make_config(tmp_path)
    rig = PiRig(make_chips([1000] * len(config.board_file().cells)))
    loop = BoardLoop(config, out=lambda _t: None, source=rig.source)
    try:
        loop.run_until(lambda: False, 0.5)
        time.sleep(1.5)  # the stall: the reader goes on at 80 SPS, the queue holds 32
        loop.run_until(lambda: False, 0.2)
        dropped = rig.source.status().dropped_frames
        assert dropped > 0
        behind = api_state(loop)["daemon"]["behind"]
        assert 0 < behind["dropped_frames"] <= dropped
        assert behind["dropped_frames_last_minute"] == behind["dropped_frames"]
    finally:
        loop.stop()


def test_the_time_the_simulated_board_skipped_is_in_the_state(tmp_path: Path) -> None:
    """The loop stalls 3 s while the simulated board is still: the feed skips the time (it
    does not replay it) and /api/state says how much."""
    clock = StallingClock()
    loop = BoardLoop(make_config(tmp_path), speed=1.0, out=lambda _t: None, clock=clock)
    assert loop.sim is not None
    loop.sim.wake = clock  # type: ignore[assignment]
    loop.link.wake = clock.set
    try:
        loop.run_until(lambda: False, 1.0)
        assert api_state(loop)["daemon"]["behind"]["skipped_s"] == 0.0
        clock.t += 3.0  # the stall
        loop.run_until(lambda: False, 0.5)
        behind = api_state(loop)["daemon"]["behind"]
        skipped = round(loop.sim.skipped_s, 1)
        assert skipped > 2.5
        assert behind["skipped_s"] == behind["skipped_s_last_minute"] == skipped
        loop.run_until(lambda: False, WINDOW_S + 1.5)  # (a snapshot after it)
        behind = api_state(loop)["daemon"]["behind"]
        assert (behind["skipped_s"], behind["skipped_s_last_minute"]) == (skipped, 0.0)
        assert behind["dropped_frames"] == 0  # (the simulated board drops nothing)
    finally:
        loop.stop()
