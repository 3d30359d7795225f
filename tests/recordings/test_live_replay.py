"""A recording made by the daemon's loop on the simulated board, replayed by the referee of
`sowboard simulate --frames`, gives the steps and flags the live referee gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.daemon.link import CommandError
from controller.sensing.recording import Recording, load_recording
from controller.simulate import recording_report, run_recording
from tests.daemon.conftest import Board, make_config


def recordings(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "recordings").glob("rec-*.jsonl.gz"))


def replayed_as_live(recording: Recording) -> dict:
    report = recording_report(recording, run_recording(recording))
    assert report["live"] == {"same": True, "differences": []}
    assert [(f["kind"], f["at"]) for f in report["flags"]] == [
        (f["kind"], f["at"]) for f in recording.live["flags"]
    ]
    assert len(report["steps"]) == len(recording.live["steps"])
    return report


def test_a_flag_saves_a_recording_that_replays_as_live(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path / "data"))
    try:
        board.ready()
        board.play(3)
        result = board.loop.execute("sim_mistake", {"kind": "wrong_pit"})
        board.run_until(lambda: any(f["active"] for f in board.status()["flags"]))
        board.run(0.1)
        assert board.status()["daemon"]["recorder"]["pending"]
        board.settle()
        board.run(8.0)  # the flag's recording waits for the aftermath
        board.loop.recorder.flush()
        board.run(0.1)  # a tick publishes what the writer thread did
        (path,) = recordings(tmp_path / "data")
        status = board.status()["daemon"]["recorder"]
        assert status["saved"] == 1 and status["last"] == path.name and not status["pending"]
    finally:
        board.stop()
    recording = load_recording(path)
    assert recording.header["reason"] == "flag"
    assert recording.header["start"]["referee"] == "start"  # the live referee's own frames
    assert ("wrong_pit", result["at"]) in [(f["kind"], f["at"]) for f in recording.live["flags"]]
    report = replayed_as_live(recording)
    assert len(report["steps"]) > 10


def test_a_recording_from_the_board_at_rest_replays_as_live(tmp_path: Path) -> None:
    """A ring shorter than the game: the recording starts where the board rested between
    moves, and a referee started there follows the rest as the live one did."""
    board = Board(make_config(tmp_path / "data", recorder={"seconds": 30}))
    try:
        board.ready()
        for pit in (3, 5, 2, 6):
            board.play(pit)
        board.mistake("wrong_pit")
        board.run(8.0)
        board.loop.recorder.flush()
        (path,) = recordings(tmp_path / "data")
        moves = len(board.status()["game"]["history"])
    finally:
        board.stop()
    recording = load_recording(path)
    header = recording.header
    assert header["start"]["referee"] == "rest"
    assert len(header["start"]["steps"]) > 0  # the game's steps before the first frame
    assert recording.frames[-1].t - recording.frames[0].t < 30 * 1.25
    report = replayed_as_live(recording)
    assert "wrong_pit" in [f["kind"] for f in report["flags"]]
    assert moves >= 5


def test_asked_for_recordings_and_how_many_are_kept(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path / "data", recorder={"keep": 2, "on_flag": False}))
    try:
        board.ready()
        board.play(3)
        names = [board.loop.execute("save_recording", {"seconds": 5})["file"]]
        names.append(board.loop.execute("save_recording", {"reason": "cli"})["file"])
        board.play(4)
        names.append(board.loop.execute("save_recording", {})["file"])
        assert len(set(names)) == 3 and "-cli" in names[1]
        board.loop.recorder.flush()
        kept = sorted(p.name for p in recordings(tmp_path / "data"))
        assert kept == sorted(names[1:])  # the oldest went first
        for bad in ({"seconds": 0}, {"seconds": 181}, {"seconds": "5"}, {"seconds": True}):
            with pytest.raises(CommandError) as err:
                board.loop.execute("save_recording", bad)
            assert err.value.field == "seconds"
        with pytest.raises(CommandError):
            board.loop.execute("save_recording", {"reason": "flag"})
        board.run(0.1)
        assert board.status()["daemon"]["recorder"]["saved"] == 3
    finally:
        board.stop()
    for name in kept:
        recording = load_recording(tmp_path / "data" / "recordings" / name)
        replayed_as_live(recording)
    # Without `seconds`, everything the ring holds of the game, from the referee's start.
    whole = load_recording(tmp_path / "data" / "recordings" / names[2])
    assert whole.header["start"]["referee"] == "start" and whole.header["reason"] == "admin"


def test_a_recording_holds_what_a_bug_report_needs_and_nothing_else(tmp_path: Path) -> None:
    config = make_config(tmp_path / "data", web={"admin_pin": "8642"})
    board = Board(config)
    try:
        board.ready()
        name = board.loop.execute("save_recording", {})["file"]
        board.loop.recorder.flush()
    finally:
        board.stop()
    path = tmp_path / "data" / "recordings" / name
    recording = load_recording(path)
    assert set(recording.header) == {
        "type", "format", "software", "saved", "reason", "board", "variant", "options",
        "calibration", "rate_sps", "cells", "start", "frames",
    }  # fmt: skip
    assert recording.header["software"].startswith("sowboard ")
    assert recording.header["board"]["name"] == "congkak7"
    assert "[[places]]" in recording.header["board"]["file"]
    assert len(recording.header["calibration"]) == recording.header["cells"] == 16
    import gzip

    text = gzip.decompress(path.read_bytes()).decode()
    assert "8642" not in text and str(tmp_path) not in text


def test_a_new_game_right_after_a_flag_keeps_the_flag_s_recording(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path / "data"))
    try:
        board.ready()
        board.loop.execute("sim_mistake", {"kind": "foreign_seed"})
        board.run_until(lambda: any(f["active"] for f in board.status()["flags"]))
        board.run(0.1)
        board.loop.execute("new_game", {"variant": "kalah"})
        board.loop.recorder.flush()
        (path,) = recordings(tmp_path / "data")
    finally:
        board.stop()
    recording = load_recording(path)
    assert recording.header["variant"] == "congkak"
    assert "foreign_seed" in [f["kind"] for f in recording.live["flags"]]
    replayed_as_live(recording)
