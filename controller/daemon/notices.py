"""What the daemon tells whoever looks: the page's `daemon.notices`, one record each (its text,
severity, when it was first and last told, how often in all, whether an operator has
acknowledged it: `NoticeStatus`), with how many were told since the start in
`daemon.notices_total`, the warnings among them in `daemon.notices_warnings_total`, and the
warnings nobody acknowledged yet in `daemon.notices_unacknowledged`; and the log. The board
page lists them, the hall's status carries the warnings (issue 13: a record kept aside as
damaged was said in the log alone, which nobody at a board reads).

Every notice has a severity, chosen where it is told:

- `WARNING`: something an operator must act on or know, because something was lost, damaged
  or is wrong with the board's computer: a damaged file kept aside, a file that could not be
  read or written, a journal repaired or unusable, a game discarded or a move cut off by a
  restart, scale readings lost, no calibration, an engine that gave no move.
- `INFO`: what the daemon did as it should, however often: demo mode's recoveries, a match
  going on, a resumed game, a turn passed on time, a game ended as abandoned, a button the
  board refused.

The newest KEPT of each severity are kept, so a demo that tells a routine notice every few
minutes never pushes a warning out of the status (the log has them all). A notice told again
while it is kept is one record told more often (`repeats`), moved to the newest: an engine
that fails at every move of a day fills neither the page nor the hall with one line. An
operator who has read the warnings acknowledges them (the admin page, `acknowledge`): the
page folds them and the hall stops counting them, until one is told again.

>>> clock = iter(range(100, 200))
>>> notices = Notices(lambda _text: None, wall=lambda: float(next(clock)))
>>> notices.warning("the engine gave no move")
>>> notices.info("demo: a new game")
>>> notices.warning("the engine gave no move")
>>> [(n["text"], n["repeats"], n["first_at"], n["at"]) for n in notices.records()]
[('demo: a new game', 1, 101.0, 101.0), ('the engine gave no move', 2, 100.0, 102.0)]
>>> notices.acknowledge(), notices.unacknowledged
(1, 0)
>>> notices.warning("the engine gave no move")
>>> notices.unacknowledged, notices.total, notices.warnings_total
(1, 4, 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from .files import keep_damaged
from .status import NoticeStatus

KEPT = 20  # of each severity


class Level(StrEnum):
    INFO = "info"
    WARNING = "warning"


INFO = Level.INFO
WARNING = Level.WARNING


@dataclass
class Notice:
    first_at: float  # time.time() when it was first told
    text: str
    level: Level
    at: float  # ... and when it was last told
    repeats: int = 1  # how often it was told while kept
    acknowledged: bool = False  # an operator has read it (warnings: `Notices.acknowledge`)

    def to_status(self) -> NoticeStatus:
        return {
            "text": self.text,
            "level": self.level.value,
            "first_at": self.first_at,
            "at": self.at,
            "repeats": self.repeats,
            "acknowledged": self.acknowledged,
        }


class Notices:
    def __init__(self, out: Callable[[str], None], wall: Callable[[], float] = time.time) -> None:
        self.out = out
        self.wall = wall
        self.kept: list[Notice] = []  # the newest KEPT of each level, oldest first
        self.total = 0  # told since the start (the log has them all)
        self.warnings_total = 0  # the warnings among them

    def records(self) -> list[NoticeStatus]:
        """The notices kept, oldest (told last longest ago) first: `daemon.notices`."""
        return [notice.to_status() for notice in self.kept]

    @property
    def items(self) -> list[str]:
        """The texts kept, oldest first."""
        return [notice.text for notice in self.kept]

    @property
    def warnings(self) -> list[Notice]:
        """The warnings kept, oldest first."""
        return [notice for notice in self.kept if notice.level is WARNING]

    @property
    def unacknowledged(self) -> int:
        """The warnings kept that no operator acknowledged since they were last told."""
        return sum(not notice.acknowledged for notice in self.warnings)

    def add(self, text: str, level: Level) -> None:
        now = self.wall()
        again = next((n for n in self.kept if (n.text, n.level) == (text, level)), None)
        if again is not None:
            # (Told again: one record, told more often, newest, and to be read again.)
            self.kept.remove(again)
            again.at, again.repeats, again.acknowledged = now, again.repeats + 1, False
            self.kept.append(again)
        else:
            self.kept.append(Notice(now, text, level, now))
            same = [k for k, notice in enumerate(self.kept) if notice.level is level]
            if len(same) > KEPT:
                del self.kept[same[0]]
        self.total += 1
        if level is WARNING:
            self.warnings_total += 1
            self.out(f"warning: {text}")
        else:
            self.out(text)

    def info(self, text: str) -> None:
        """A routine notice: the daemon did what it should."""
        self.add(text, INFO)

    def warning(self, text: str) -> None:
        """Something an operator must act on or know (see the module docstring)."""
        self.add(text, WARNING)

    def acknowledge(self) -> int:
        """An operator has read the warnings kept: how many were not acknowledged before."""
        fresh = [notice for notice in self.warnings if not notice.acknowledged]
        for notice in fresh:
            notice.acknowledged = True
        return len(fresh)

    def keep_damaged(self, path: Path) -> None:
        """Keep a copy of a damaged data file for whoever wants to look (it is rewritten)."""
        try:
            target = keep_damaged(path)
        except OSError as err:
            self.warning(f"the damaged {path.name} could not be kept aside: {err.strerror or err}")
            return
        if target is not None:
            self.warning(f"the damaged {path.name} is kept as {target}")
