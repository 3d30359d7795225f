"""A recording made by the daemon's loop on the simulated board, replayed by the referee of
`sowboard simulate --frames`, gives the steps and flags the live referee gave."""

from __future__ import annotations

from pathlib import Path

from controller.sensing.recording import load_recording
from controller.simulate import recording_report, run_recording
from tests.daemon.conftest import Board, make_config


def recordings(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "recordings").glob("rec-*.jsonl.gz"))


def test_a_flag_saves_a_recording_that_replays_as_live(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path / "data"))
    try:
        board.ready()
        board.play(3)
        board.mistake("wrong_pit")
        board.run(8.0)  # the flag's recording waits for the aftermath
        board.loop.recorder.flush()
        live = board.loop.referee
        assert live is not None
        (path,) = recordings(tmp_path / "data")
        status = board.status()["daemon"]["recorder"]
        assert status["saved"] == 1 and status["last"] == path.name
    finally:
        board.stop()
    recording = load_recording(path)
    assert recording.header["start"]["referee"] == "start"
    assert "wrong_pit" in [f["kind"] for f in recording.live["flags"]]
    report = recording_report(recording, run_recording(recording))
    assert report["live"] == {"same": True, "differences": []}
    assert [f["kind"] for f in report["flags"]] == [f["kind"] for f in recording.live["flags"]]
    assert len(report["steps"]) == len(recording.live["steps"]) > 10
