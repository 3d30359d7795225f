"""The daemon caps glibc's malloc arenas (memory.py says why)."""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from unittest import mock

import pytest

from controller.daemon import memory, run
from tests.daemon.conftest import make_config


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="a glibc setting",
)
def test_glibc_takes_the_arena_limit() -> None:
    assert memory.limit_malloc_arenas() is True


class Built(Exception):
    """The loop was about to be built (and its threads started)."""


def test_the_daemon_sets_it_before_its_threads_start(tmp_path: Path) -> None:
    calls: list[str] = []

    def loop(*args: object, **kw: object) -> None:
        calls.append("loop")
        raise Built

    with (
        mock.patch.object(run, "limit_malloc_arenas", lambda: calls.append("arenas")),
        mock.patch.object(run, "BoardLoop", loop),
        pytest.raises(Built),
    ):
        run.Daemon(make_config(tmp_path / "data", web={"port": 0}))
    assert calls == ["arenas", "loop"]
