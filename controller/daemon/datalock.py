"""One process at a time writes the data directory: an advisory lock on `sowboard.lock`.

`sowboard calibrate` run while the daemon ran rewrote `game.jsonl` under it (a new game's
journal, an atomic rename), and the daemon went on appending to the unlinked file: every step
after that was lost, and nothing said so. Every command that writes the data directory builds
a `BoardLoop`, and the loop takes this lock before it touches a file, so the second one stops
at once and says who holds the directory.

`fcntl.flock` on a file that stays in place: the kernel drops the lock when its holder dies
(a pulled plug or a SIGKILL leaves no stale lock to clean up by hand), and a lock taken twice
in one process through two opens conflicts as between processes, so tests see the same thing.
The file holds the holder's pid and command for the message (when the card takes them: a full
card must not stop the daemon that would say so on its page); it is never deleted (deleting a
flock'ed file lets a second process lock a new file of the same name).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO

LOCK_FILE = "sowboard.lock"


class DataDirLocked(RuntimeError):
    """Another process holds the data directory; the message says which and what to do."""


class DataDirLock:
    """The lock of one data directory, taken by `acquire` and held until `release`."""

    def __init__(self, data_dir: Path, holder: str) -> None:
        self.path = data_dir / LOCK_FILE
        self.holder = holder
        self._file: IO[str] | None = None

    def acquire(self) -> DataDirLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held while locked
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            who = handle.read().strip() or "another process"
            handle.close()
            raise DataDirLocked(
                f"{self.path.parent} is in use by {who}: only one sowboard command may write "
                "there at a time (stop the daemon first: sudo systemctl stop sowboard)"
            ) from None
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{self.holder} (pid {os.getpid()})\n")
            handle.flush()
        except OSError:
            pass  # a full card: the lock holds all the same, only its message names nobody
        self._file = handle
        return self

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()  # closing drops the flock
            self._file = None

    @property
    def held(self) -> bool:
        return self._file is not None
