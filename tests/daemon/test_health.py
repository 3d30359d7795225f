"""Faults of the daemon's own parts reach the status snapshot the page gets, its flags and
the lights (health.py): a link to the load cells that is lost, and files that cannot be
written."""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import recorder
from controller.daemon.config import Config
from controller.daemon.health import LINK_FAULT, WRITE_FAILED
from controller.daemon.journal import read_journal
from controller.daemon.loop import WRITE_RETRY_S, BoardLoop
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


class FullCard:
    """os.write and os.fsync refuse (ENOSPC) for the files named in `full` (and their
    temporary files), as a full SD card does: the journal and records are appended with
    os.write, and write_atomic fsyncs its temporary file before the rename."""

    def __init__(self, monkeypatch: Any) -> None:
        self.full: set[str] = set()
        self._write = os.write
        self._fsync = os.fsync
        monkeypatch.setattr(os, "write", self.write)
        monkeypatch.setattr(os, "fsync", self.fsync)

    def _refuse(self, fd: int) -> None:
        try:
            name = Path(os.readlink(f"/proc/self/fd/{fd}")).name
        except OSError:
            return
        if any(name == f or name.startswith(f".{f}.") for f in self.full):
            raise OSError(errno.ENOSPC, "No space left on device")

    def write(self, fd: int, data: Any) -> int:
        self._refuse(fd)
        return self._write(fd, data)

    def fsync(self, fd: int) -> None:
        self._refuse(fd)
        self._fsync(fd)


def write_faults(status: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in status["flags"] if f["kind"] == WRITE_FAILED and f["active"]]


def test_a_full_card_is_shown_at_once_naming_the_journal_and_nothing_is_lost(
    board: Board, monkeypatch: Any
) -> None:
    """Every journal append fails with ENOSPC: the snapshot has a write_failed flag naming
    game.jsonl, the stores blink, and the moves stay in memory; when the card takes writes
    again, the journal gets every line (whole, no half line) and the flag goes."""
    card = FullCard(monkeypatch)
    board.ready()
    card.full.add("game.jsonl")
    board.play(3)
    board.loop.writer.flush()
    board.run(0.1)
    status = board.status()
    (flag,) = write_faults(status)
    assert "game.jsonl: append failed: [Errno 28] No space left on device" in flag["detail"]
    assert status["daemon"]["faults"] == [
        {"kind": WRITE_FAILED, "part": "game.jsonl", "detail": flag["detail"]}
    ]
    for player in (0, 1):
        assert status["leds"]["places"][f"{player},store"]["effect"] == "fast_blink"
    journal = read_journal(board.loop.journal_path)
    assert journal is not None and journal.steps == [] and journal.problems == []

    card.full.clear()  # space was freed: the next retry writes everything
    board.run(WRITE_RETRY_S + 0.5)
    board.loop.writer.flush()
    board.run(0.1)
    assert write_faults(board.status()) == []
    journal = read_journal(board.loop.journal_path)
    assert journal is not None and journal.problems == []
    assert [s.step for s in journal.steps] == [s for _t, s in board.loop.game.steps]


def test_a_records_file_that_cannot_be_written_keeps_the_record_and_says_so(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A finished game's record that records.jsonl refuses is named on the page, kept, and
    written when the file takes it; the journal, which can be written, is not blamed."""
    card = FullCard(monkeypatch)
    config = make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 1}})
    board = Board(config)
    try:
        board.ready()
        card.full.add("records.jsonl")
        board.loop.execute("mode", {"mode": "demo"})
        board.run_until(lambda: board.status()["game"]["position"]["over"], 300)
        board.loop.execute("mode", {"mode": "play"})
        board.loop.writer.flush()
        board.run(0.1)
        (flag,) = write_faults(board.status())
        assert flag["detail"].startswith(f"{board.loop.records_path}: append failed")
        assert not board.loop.records_path.exists() or board.loop.records_path.read_text() == ""
        card.full.clear()
        board.run(WRITE_RETRY_S + 0.5)
        board.loop.writer.flush()
        board.run(0.1)
        assert write_faults(board.status()) == []
        (record,) = board.loop.records_path.read_text().splitlines()
        assert json.loads(record)["finished"] is True
    finally:
        board.stop()


def test_a_layout_that_cannot_be_saved_is_named_and_a_damaged_one_is_kept_aside(
    tmp_path: Path, monkeypatch: Any
) -> None:
    card = FullCard(monkeypatch)
    config = make_config(tmp_path)
    board = Board(config)
    try:
        board.ready()
        card.full.add("sim_board.json")
        board.play(3)
        board.loop.writer.flush()
        board.run(0.1)
        (flag,) = write_faults(board.status())
        assert flag["detail"].startswith(f"{board.loop.sim_board_path}: write failed")
        card.full.clear()
        board.run(WRITE_RETRY_S + 0.5)
        board.loop.writer.flush()
        board.run(0.1)
        assert write_faults(board.status()) == []
    finally:
        board.stop()
    board.loop.sim_board_path.write_text("{not json")
    again = Board(config)
    try:
        kept = list(tmp_path.glob("sim_board.json.damaged-*"))
        assert [k.read_text() for k in kept] == ["{not json"]
        assert any("the damaged sim_board.json is kept as" in n for n in again.loop.notices)
    finally:
        again.stop()


def test_a_recording_that_cannot_be_written_is_shown_and_written_when_it_can(
    board: Board, monkeypatch: Any
) -> None:
    """A flight recording the card refused (saved a few seconds after a flag, when nobody
    asks for it) reached only `daemon.recorder.error` and the log: no flag, no light, and the
    frames were gone. It is a write_failed flag naming the file, kept and written again with
    the other failed writes, and the flag goes once it is written."""
    board.ready()
    recordings = board.loop.recorder.directory
    write = recorder.write_bytes_atomic
    full = [True]

    def card(path: Path, data: bytes) -> None:
        if full[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        write(path, data)

    monkeypatch.setattr(recorder, "write_bytes_atomic", card)
    name = board.loop.execute("save_recording", {})["file"]
    board.loop.recorder.flush()
    board.run(0.1)
    status = board.status()
    (flag,) = write_faults(status)
    assert flag["detail"].startswith(f"{recordings / name}: write failed")
    assert status["daemon"]["faults"][0]["part"] == "recordings"
    for player in (0, 1):
        assert status["leds"]["places"][f"{player},store"]["effect"] == "fast_blink"

    full[0] = False  # space was freed: the next retry writes the recording
    board.run(WRITE_RETRY_S + 0.5)
    board.loop.recorder.flush()
    board.run(0.1)
    assert write_faults(board.status()) == []
    assert (recordings / name).is_file()
    assert board.status()["daemon"]["recorder"]["error"] is None


@pytest.mark.parametrize(
    "name", ["game.jsonl", "sim_board.json", "calibration.json", "records.jsonl"]
)
def test_a_directory_where_a_data_file_belongs_is_moved_aside_and_the_file_written(
    tmp_path: Path, name: str
) -> None:
    """`bench damage` with a directory in a data file's place (a card's repair, a slip of the
    hand): the copy kept aside failed ("is the card full?") and the directory stayed, so the
    journal could never be written again (a write_failed flag for ever, every move in memory
    alone). It is moved aside whole, said so, and the game is written as usual."""
    data = tmp_path / "data"

    def damage(path: Path) -> None:
        path.unlink(missing_ok=True)
        path.mkdir()
        (path / "found.txt").write_text("what the card's repair left")

    with _damaged_then_played(data, name, damage) as board:
        board.run(0.1)
        status = board.status()
        assert write_faults(status) == []
        (kept,) = data.glob(f"{name}.damaged-*")
        assert (kept / "found.txt").read_text() == "what the card's repair left"
        assert any(f"the damaged {name} is kept as {kept}" in n for n in board.messages)
        journal = read_journal(board.loop.journal_path)
        assert journal is not None and len(journal.steps) == len(board.loop.game.steps)


@pytest.mark.parametrize(
    "name", ["game.jsonl", "sim_board.json", "calibration.json", "records.jsonl"]
)
def test_a_data_file_nested_too_deep_for_the_parser_is_kept_aside_and_play_goes_on(
    tmp_path: Path, name: str
) -> None:
    """Brackets nested deeper than the JSON parser recurses raise RecursionError, not the
    ValueError the readers of game.jsonl, records.jsonl and calibration.json caught: the
    daemon died at every start on such a file (systemd starting it again and again) and the
    page never came up. It is damage like any other: kept aside, said so, and play goes on."""
    data = tmp_path / "data"
    nested = _damaged_then_played(data, name, lambda path: path.write_text("[" * 100_000 + "\n"))
    with nested as board:
        (kept,) = data.glob(f"{name}.damaged-*")
        assert kept.read_text().startswith("[[[")
        assert any(f"the damaged {name} is kept as {kept}" in n for n in board.messages)


@contextlib.contextmanager
def _damaged_then_played(data: Path, name: str, damage: Callable[[Path], None]) -> Iterator[Board]:
    """A game played three moves into `data`, the daemon stopped, the data file `name`
    damaged, and the daemon started again on it, one more move played and written."""
    first = Board(make_config(data))
    try:
        first.ready()
        first.play(3)
    finally:
        first.stop()
    damage(data / name)
    board = Board(make_config(data))
    try:
        board.ready()
        position = board.status()["game"]["position"]
        row = position["pits"][position["to_move"]]
        board.play(next(pit for pit, seeds in enumerate(row) if seeds))
        board.loop.writer.flush()
        yield board
    finally:
        board.stop()
