"""Calibrating the scales, as a technician does it at the terminal (`sowboard calibrate`):
empty cups, a 100 g weight in some cups, then the start layout. On the simulated board the
virtual hand does what the prompts ask, and the result is checked against the simulator's true
cells (which the daemon itself never reads)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from controller.daemon.files import Calibration
from controller.daemon.link import CommandError
from controller.daemon.tools import calibrate, diagnose
from tests.daemon.conftest import Board, make_config
from tests.daemon.test_health import FullCard


def test_a_technician_calibrates_three_cups_and_the_seeds(tmp_path: Path) -> None:
    config = make_config(tmp_path / "data", sim={"calibration_error": 0.05})
    answers = iter(["", "", "", "", "q", ""])  # empty; three cups; quit; the layout
    asked: list[str] = []
    said: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    # The loop runs in its own thread here, as for a person at the terminal (20x real time).
    assert calibrate(config, grams=100.0, ask=ask, out=said.append, speed=20.0) == 0
    assert asked[0].startswith("1/3 Empty every cup")
    assert asked[1].startswith("2/3 Put the 100 g weight in [0, 0] alone")
    assert asked[-1].startswith("3/3 Lay out the start position")

    saved = json.loads((tmp_path / "data" / "calibration.json").read_text())
    assert saved["board"] == "congkak7" and len(saved["cells"]) == 16
    assert saved["seed_g"] == pytest.approx(5.4, rel=0.03)

    # The simulator's truth, for the check only: zeros to a tenth of a gram, scales to 0.2 %
    # where the weight was put (they started up to 5 % off).
    board = Board(config)
    try:
        true = board.loop.sim.world.true_calibration()  # type: ignore[union-attr]
        cells = saved["cells"]
        for cell, truth in enumerate(true):
            zero_g = (cells[cell]["offset"] - truth.offset) / truth.counts_per_g
            assert abs(zero_g) < 0.1, cell
        mapping = board.loop.game.mapping
        for place in mapping.places[:3]:
            cell = mapping.cell_of[place]
            assert cells[cell]["counts_per_g"] == pytest.approx(true[cell].counts_per_g, rel=0.002)
        assert board.loop.calibration.origin == "file"  # the daemon uses the file from now on
        assert any("3 of 16 cells with a reference" in line for line in said)
    finally:
        board.stop()


def test_diag_reports_the_data_files_and_what_is_wrong_in_them(tmp_path: Path) -> None:
    config = make_config(tmp_path / "data")
    board = Board(config)
    board.ready()
    board.play(3)
    name = board.loop.execute("save_recording", {})["file"]
    board.stop()
    journal = tmp_path / "data" / "game.jsonl"
    journal.write_text(journal.read_text() + '{"type":"step"')
    report = diagnose(config)
    assert report["source"] == "sim"
    assert report["journal"]["state"] == "damaged"
    assert report["journal"]["moves"] == 1
    assert "truncated" in report["journal"]["problems"][0]
    assert report["calibration"] == "none"
    assert report["sim_board"]["pits"][0][3] == 0
    assert report["recordings"]["count"] == 1 and report["recordings"]["newest"] == name
    assert report["daemon"].startswith("not answering")
    assert set(report["hardware"]) >= {"lgpio", "neopixel", "/dev/gpiochip0", "/dev/pio0", "groups"}
    assert report["led_driver"]["driver"] == "sim"


def test_calibrate_while_the_daemon_runs_is_refused_and_leaves_the_journal_alone(
    tmp_path: Path,
) -> None:
    """`sowboard calibrate` used to replace game.jsonl under the running daemon, which then
    appended to a deleted file. The daemon holds the data directory's lock: calibrate says
    who holds it and changes nothing."""
    config = make_config(tmp_path / "data")
    board = Board(config)
    try:
        board.ready()
        board.play(3)
        board.loop.writer.flush()
        journal = board.loop.journal_path
        before = (journal.stat().st_ino, journal.read_bytes())
        said: list[str] = []
        status = calibrate(config, grams=100.0, ask=lambda _p: "", out=said.append, speed=None)
        assert status == 2
        assert said == [
            f"cannot calibrate: {tmp_path / 'data'} is in use by sowboard run (pid {os.getpid()}): "
            "only one sowboard command may write there at a time "
            "(stop the daemon first: sudo systemctl stop sowboard)"
        ]
        assert (journal.stat().st_ino, journal.read_bytes()) == before
        board.play(1)  # the daemon's journal goes on
        board.loop.writer.flush()
        assert len(journal.read_bytes()) > len(before[1])
    finally:
        board.stop()
    # Once the daemon stopped, the directory is free again.
    Board(config).stop()


def test_the_empty_stage_refuses_a_board_full_of_seeds(board: Board) -> None:
    """Admin 'calibrate: the board is empty' on the start layout used to take the seeds as
    the zero, and the next game waited for ever without a flag or a light."""
    board.ready()
    with pytest.raises(CommandError, match=r"the board is not empty \(\[0, 0\], \[0, 1\]"):
        board.loop.execute("calibrate", {"stage": "empty"})
    assert board.loop.calibration.origin == "simulator"  # nothing was taken


def test_a_board_zeroed_with_its_seeds_on_is_flagged_not_waited_for(tmp_path: Path) -> None:
    """If the zeros were taken with the seeds on anyway (the first calibration, which has no
    zeros to compare with), the board reads empty where the game has seeds: every such place
    is flagged and lit as holding too few, instead of a silent wait for a seed mass."""
    config = make_config(tmp_path / "data")
    board = Board(config)
    try:
        board.ready()
        loop = board.loop
        raw = loop.window.raw_medians()
        loop.calibration = Calibration(
            tuple((float(r), s) for r, (_o, s) in zip(raw, loop.calibration.cells, strict=True)),
            origin="nominal",
        )
        loop.execute("calibrate", {"stage": "empty"})  # no zeros to judge by: taken
        loop.writer.flush()  # the new game reads the calibration file back
        loop.execute("new_game", {})  # the next game: no seed mass measured yet
        assert loop.game.seed_g is None and loop.calibration.seed_g is None
        board.run_until(lambda: any(f["active"] for f in board.status()["flags"]), 10)
        status = board.status()
        mismatch = [f for f in status["flags"] if f["kind"] == "board_mismatch" and f["active"]]
        assert len(mismatch) == 14  # every pit; the stores hold nothing yet and match
        assert {v["effect"] for v in status["leds"]["places"].values()} >= {"pulse"}
    finally:
        board.stop()


def test_calibrate_says_so_when_the_file_cannot_be_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It used to print "saved" whatever the writer thread met; a calibration.json that
    cannot be replaced (here a full card; a directory in its way is now moved aside) is
    named, with status 1."""
    config = make_config(tmp_path / "data")
    FullCard(monkeypatch).full.add("calibration.json")
    said: list[str] = []
    answers = iter(["", "q", "s"])  # empty; no reference; no layout
    status = calibrate(config, grams=100.0, ask=lambda _p: next(answers), out=said.append)
    assert status == 1
    assert said[-1].startswith(f"not saved: {tmp_path / 'data' / 'calibration.json'}: write failed")


def test_a_new_game_right_after_a_calibration_keeps_it_while_the_card_is_slow(
    board: Board,
) -> None:
    """The new game's board used to read calibration.json back, which the writer thread had
    not written yet on a slow card: the zeros just taken were lost until the next restart."""
    board.ready()
    loop = board.loop
    slow = threading.Event()
    loop.writer.call(lambda: slow.wait(10))  # the card is busy with an earlier write
    loop.execute("calibrate", {"stage": "layout"})  # the start layout: the seeds' mass
    taken = loop.calibration
    loop.execute("new_game", {})
    slow.set()
    assert loop.calibration == taken


def test_a_damaged_calibration_is_kept_aside_once_not_at_every_new_game(tmp_path: Path) -> None:
    """`bench damage`: on the simulated board every new world (a new game, an undo, a board
    laid out again) read the damaged calibration.json anew, said so again and kept one more
    copy: in demo mode a copy every few minutes, until the card is full."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "calibration.json").write_bytes(b"\x00\xffnot a calibration")
    board = Board(make_config(data))
    try:
        board.ready()
        for _ in range(2):
            board.loop.execute("new_game", {})
            board.ready()
        notices = [n["text"] for n in board.status()["daemon"]["notices"]]
    finally:
        board.stop()
    assert len(list(data.glob("calibration.json.damaged-*"))) == 1
    assert sum("calibration not used" in n for n in notices) == 1
