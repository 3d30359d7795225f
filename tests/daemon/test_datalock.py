"""The data directory's lock (controller/daemon/datalock.py) on a card that takes no writes."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import datalock
from controller.daemon.datalock import DataDirLock, DataDirLocked


def test_a_full_card_does_not_keep_the_daemon_from_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder's name in `sowboard.lock` is only for another command's message: a card
    too full to take those few bytes stopped `sowboard run` at start with a traceback (and
    systemd started it again and again), so the page that would say the card is full never
    came up. The lock holds all the same, and the other command is still refused."""
    real_open = open

    class FullCard:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._file = real_open(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._file, name)

        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(datalock, "open", FullCard, raising=False)
    lock = DataDirLock(tmp_path, "sowboard run").acquire()
    try:
        assert lock.held
        with pytest.raises(DataDirLocked, match="is in use by another process"):
            DataDirLock(tmp_path, "sowboard calibrate").acquire()
    finally:
        lock.release()
    DataDirLock(tmp_path, "sowboard calibrate").acquire().release()
