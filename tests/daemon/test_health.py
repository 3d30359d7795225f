"""Faults of the daemon's own parts reach the status snapshot the page gets, its flags and
the lights (health.py): a link to the load cells that is lost, and files that cannot be
written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.daemon.config import Config
from controller.daemon.health import LINK_FAULT
from controller.daemon.loop import BoardLoop
from controller.sensing.frames import Frame, SourceStatus

from .conftest import Board, make_config


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class DeadLink:
    """A source whose link is gone: no frame comes, and it says so (or says nothing, as
    HX711s powered down do before their own fault timeout). Reading lets the clock run on to
    the deadline the loop waited for."""

    def __init__(self, clock: FakeClock, cells: int, status: SourceStatus) -> None:
        self.clock = clock
        self.cell_count = cells
        self._status = status

    def read(self, timeout: float | None = None) -> Frame | None:
        self.clock.t += timeout or 0.0
        return None

    def status(self) -> SourceStatus:
        return self._status

    def close(self) -> None:
        pass


def link_faults(status: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in status["flags"] if f["kind"] == LINK_FAULT and f["active"]]


def run_dead_link(config: Config, status: SourceStatus, seconds: float) -> BoardLoop:
    clock = FakeClock()
    cells = len(config.board_file().cells)
    loop = BoardLoop(
        config, out=lambda _t: None, clock=clock, source=DeadLink(clock, cells, status)
    )
    loop.run_until(lambda: False, seconds)
    return loop


def test_a_pico_that_is_gone_shows_at_once_in_setup(tmp_path: Path) -> None:
    """The serial port is gone while the board is being weighed: the snapshot has an active
    link_fault flag with the source's own words, a `daemon.faults` entry, and every place
    blinks vermillion, within 3 s."""
    config = make_config(tmp_path)
    lost = SourceStatus("Pico on /dev/ttyACM0", False, 0.0, "serial link lost")
    loop = run_dead_link(config, lost, 0.5)
    try:
        status = loop.link.get_status()
        assert status["daemon"]["state"] == "setup"
        (flag,) = link_faults(status)
        assert "serial link lost" in flag["detail"]
        assert status["daemon"]["faults"] == [
            {"kind": LINK_FAULT, "part": "link", "detail": flag["detail"]}
        ]
        effects = {v["effect"] for v in status["leds"]["places"].values()}
        assert effects == {"blink"}
    finally:
        loop.stop()


def test_hx711s_that_go_silent_without_a_word_are_a_link_fault_within_3_s(tmp_path: Path) -> None:
    """HX711s powered down: the source is 'connected' and has no fault yet, but no frame
    comes. After 2 s of silence the link is at fault."""
    config = make_config(tmp_path)
    silent = SourceStatus("Pi GPIO HX711", True, 0.0, None)
    loop = run_dead_link(config, silent, 1.5)
    try:
        assert link_faults(loop.link.get_status()) == []
        loop.run_until(lambda: False, 1.4)
        (flag,) = link_faults(loop.link.get_status())
        assert flag["detail"] == "Pi GPIO HX711: no readings for 2 s or more"
    finally:
        loop.stop()


def test_a_link_lost_in_play_is_flagged_and_cleared_when_it_comes_back(board: Board) -> None:
    """In play, the source's fault that names no cell (the old code only showed a fault in a
    sensor's field when its text named that cell) is a flag; it goes when the link is back."""
    board.ready()
    loop = board.loop
    healthy = loop.feed.status
    lost = SourceStatus("Pico on /dev/ttyACM0", False, 0.0, "serial link lost")
    loop.feed.status = lambda: lost  # type: ignore[method-assign]
    board.run(0.1)
    (flag,) = link_faults(board.status())
    assert flag["detail"] == "Pico on /dev/ttyACM0: serial link lost"
    loop.feed.status = healthy  # type: ignore[method-assign]
    board.run(0.1)
    status = board.status()
    assert link_faults(status) == []
    assert [f["active"] for f in status["flags"] if f["kind"] == LINK_FAULT] == [False]
    assert status["daemon"]["faults"] == []
