"""What the loop loses when it falls behind its source, counted and shown (issue 13).

A real source's reader (the Pi's HX711 readers, the Pico's serial link) keeps its frames in a
bounded queue of 32 (0.4 s at 80 SPS): a loop that does not read them in time loses the oldest
(`SourceStatus.dropped_frames`), and the referee never sees what the board did then. The
simulated board skips the time instead, when the loop falls more than a simulated second
behind while the board is still, or a minute behind at any time (`SimFeed.skipped_s`,
feed.py): its world stands still meanwhile, so nothing of the game is lost, but the machine
does not keep up. Both were counted and shown to nobody.

`Behind` keeps both totals and what of each came in the last minute of the loop's time (on a
real board the wall clock's; a fast demo's minute passes sooner), for the snapshot's
`daemon.behind`, the sensor page (a notice there while anything was lost in the last
minute) and the hall's status (`health.behind`). Frames dropped after a minute without any
are also one of `daemon.notices`, a warning, which go to the log, the board page and the
hall: readings the referee needed are gone. Skipped simulated time is not: nothing of the
game was lost, and a fast demo on a busy PC would repeat it every few seconds.

The first look is the baseline: frames a source dropped while the daemon was starting, before
its loop read any, are not the loop falling behind.

>>> from controller.sensing.frames import SourceStatus
>>> told: list[str] = []
>>> behind = Behind(told.append)
>>> behind.tick(0.0, SourceStatus("Pi GPIO HX711", True, 80.0, dropped_frames=5), 0.0)
>>> behind.tick(1.0, SourceStatus("Pi GPIO HX711", True, 80.0, dropped_frames=17), 0.0)
>>> behind.get_status()["dropped_frames"], told
(12, ['Pi GPIO HX711: 12 frames dropped: the daemon fell behind reading the load cells'])
>>> behind.tick(61.5, SourceStatus("Pi GPIO HX711", True, 80.0, dropped_frames=17), 0.0)
>>> behind.get_status()["dropped_frames_last_minute"]
0
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from controller.sensing.frames import SourceStatus

from .status import BehindStatus

WINDOW_S = 60.0  # "in the last minute", of the loop's time


class _Count:
    """A source's running figure (it only grows) seen as a total since the first look and
    what it grew by within the last WINDOW_S."""

    def __init__(self) -> None:
        self.total = 0.0
        self._figure: float | None = None  # the source's figure at the last look
        self._grew: deque[tuple[float, float]] = deque()  # (when, by how much): one a tick

    def look(self, now: float, figure: float) -> float:
        """The source's figure now; by how much it grew since the last look (a figure that
        went down belongs to a new source: it is counted from 0)."""
        last, self._figure = self._figure, figure
        if last is None:
            return 0.0  # (the baseline)
        grew = figure - last if figure >= last else figure
        if grew > 0:
            self.total += grew
            self._grew.append((now, grew))
        return grew

    def recent(self, now: float) -> float:
        """What it grew by within WINDOW_S before `now`."""
        while self._grew and self._grew[0][0] <= now - WINDOW_S:
            self._grew.popleft()
        return sum(grew for _, grew in self._grew)


class Behind:
    """The frames dropped and the simulated time skipped (see the module docstring);
    `notice` tells whoever looks (the daemon's `Notices.warning`)."""

    def __init__(self, notice: Callable[[str], None]) -> None:
        self._notice = notice
        self._dropped = _Count()
        self._skipped = _Count()
        self._now = 0.0

    def tick(self, now: float, status: SourceStatus, skipped_s: float) -> None:
        """A look at the source's figures (every tick of the loop)."""
        self._now = now
        quiet = self._dropped.recent(now) == 0
        dropped = self._dropped.look(now, status.dropped_frames)
        if dropped and quiet:
            self._notice(
                f"{status.name}: {dropped:.0f} frames dropped: the daemon fell behind reading"
                " the load cells"
            )
        self._skipped.look(now, skipped_s)

    def get_status(self) -> BehindStatus:
        now = self._now
        return {
            "dropped_frames": round(self._dropped.total),
            "dropped_frames_last_minute": round(self._dropped.recent(now)),
            "skipped_s": round(self._skipped.total, 1),
            "skipped_s_last_minute": round(self._skipped.recent(now), 1),
        }
