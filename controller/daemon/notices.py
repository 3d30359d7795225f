"""What the daemon tells whoever looks: the page's `daemon.notices` (each with the wall-clock
time it was told in `daemon.notices_at`, its severity in `daemon.notices_level`, and how many
were told since the start in `daemon.notices_total`, the warnings among them in
`daemon.notices_warnings_total`) and the log. The board page lists them, the hall's status
carries the warnings (issue 13: a record kept aside as damaged was said in the log alone,
which nobody at a board reads).

Every notice has a severity, chosen where it is told:

- `WARNING`: something an operator must act on or know, because something was lost, damaged
  or is wrong with the board's computer: a damaged file kept aside, a file that could not be
  read or written, a journal repaired or unusable, a game discarded or a move cut off by a
  restart, scale readings lost, no calibration, an engine that gave no move.
- `INFO`: what the daemon did as it should, however often: demo mode's recoveries, a match
  going on, a resumed game, a turn passed on time, a game ended as abandoned, a button the
  board refused.

The newest KEPT of each severity are kept, so a demo that tells a routine notice every few
minutes never pushes a warning out of the status (the log has them all)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from .files import keep_damaged

KEPT = 20  # of each severity


class Level(StrEnum):
    INFO = "info"
    WARNING = "warning"


INFO = Level.INFO
WARNING = Level.WARNING


@dataclass(frozen=True)
class Notice:
    at: float  # time.time() when it was told
    text: str
    level: Level = INFO


class Notices:
    def __init__(self, out: Callable[[str], None], wall: Callable[[], float] = time.time) -> None:
        self.out = out
        self.wall = wall
        self.kept: list[Notice] = []  # the newest KEPT of each level, oldest first
        self.total = 0  # told since the start (the log has them all)
        self.warnings_total = 0  # the warnings among them

    @property
    def items(self) -> list[str]:
        """The texts kept, oldest first."""
        return [notice.text for notice in self.kept]

    @property
    def times(self) -> list[float]:
        """When each of `items` was told."""
        return [notice.at for notice in self.kept]

    @property
    def levels(self) -> list[str]:
        """The severity of each of `items` ("info" or "warning")."""
        return [notice.level.value for notice in self.kept]

    @property
    def warnings(self) -> list[Notice]:
        """The warnings kept, oldest first."""
        return [notice for notice in self.kept if notice.level is WARNING]

    def add(self, text: str, level: Level) -> None:
        self.kept.append(Notice(self.wall(), text, level))
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

    def keep_damaged(self, path: Path) -> None:
        """Keep a copy of a damaged data file for whoever wants to look (it is rewritten)."""
        try:
            target = keep_damaged(path)
        except OSError as err:
            self.warning(f"the damaged {path.name} could not be kept aside: {err.strerror or err}")
            return
        if target is not None:
            self.warning(f"the damaged {path.name} is kept as {target}")
