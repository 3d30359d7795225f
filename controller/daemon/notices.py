"""What the daemon tells whoever looks: the page's `daemon.notices` (the newest 20, each with
the wall-clock time it was told in `daemon.notices_at`, and how many were told since the start
in `daemon.notices_total`) and the log. The board page lists them (issue 13: a record kept
aside as damaged was said in the log alone, which nobody at a board reads)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .files import keep_damaged

KEPT = 20


@dataclass(frozen=True)
class Notice:
    at: float  # time.time() when it was told
    text: str


class Notices:
    def __init__(self, out: Callable[[str], None], wall: Callable[[], float] = time.time) -> None:
        self.out = out
        self.wall = wall
        self.kept: list[Notice] = []  # the newest KEPT, oldest first
        self.total = 0  # told since the start (the log has them all)

    @property
    def items(self) -> list[str]:
        """The texts kept, oldest first."""
        return [notice.text for notice in self.kept]

    @property
    def times(self) -> list[float]:
        """When each of `items` was told."""
        return [notice.at for notice in self.kept]

    def add(self, text: str) -> None:
        self.kept.append(Notice(self.wall(), text))
        del self.kept[:-KEPT]
        self.total += 1
        self.out(text)

    def keep_damaged(self, path: Path) -> None:
        """Keep a copy of a damaged data file for whoever wants to look (it is rewritten)."""
        try:
            target = keep_damaged(path)
        except OSError as err:
            self.add(f"the damaged {path.name} could not be kept aside: {err.strerror or err}")
            return
        if target is not None:
            self.add(f"the damaged {path.name} is kept as {target}")
