"""Calibrating the scales, as a technician does it at the terminal (`sowboard calibrate`):
empty cups, a 100 g weight in some cups, then the start layout. On the simulated board the
virtual hand does what the prompts ask, and the result is checked against the simulator's true
cells (which the daemon itself never reads)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.daemon.tools import calibrate, diagnose
from tests.daemon.conftest import Board, make_config


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
