"""What the daemon tells whoever looks: the page's `daemon.notices` (the newest 20) and the log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .files import keep_damaged

KEPT = 20


class Notices:
    def __init__(self, out: Callable[[str], None]) -> None:
        self.out = out
        self.items: list[str] = []

    def add(self, text: str) -> None:
        self.items.append(text)
        del self.items[:-KEPT]
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
