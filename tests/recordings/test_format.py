"""Recording files that cannot be used are refused with the file's name and what is wrong,
never a traceback; `sowboard simulate --frames` reports a good one."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.sensing.recording import FORMAT, RecordingError, load_recording

SHIPPED = Path(__file__).parent / "congkak7_foreign_seed_sim.jsonl.gz"


def lines() -> list[str]:
    return gzip.decompress(SHIPPED.read_bytes()).decode().splitlines(keepends=True)


def write(path: Path, text_lines: list[str]) -> Path:
    path.write_bytes(gzip.compress("".join(text_lines).encode()))
    return path


def refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["simulate", "--frames", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(path) in err
    return err


def test_a_cut_short_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(SHIPPED.read_bytes()[:5000])
    assert "cut short or damaged" in refused(path, capsys)


def test_missing_lines_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "short.jsonl.gz", lines()[:-40])
    assert "the header announces 1081 frames" in refused(path, capsys)


def test_a_damaged_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lines()
    text[7] = text[7][:20] + "\n"
    assert "line 8: invalid JSON" in refused(write(tmp_path / "bad.jsonl.gz", text), capsys)
    text = lines()
    text[9] = json.dumps([0.5, 9, [1, 2]]) + "\n"
    assert "line 10: expected a frame [t, seq, [16 readings]]" in refused(
        write(tmp_path / "cells.jsonl.gz", text), capsys
    )
    text = lines()
    text[9] = json.dumps([0.5, 9, [1 << 24] * 16]) + "\n"
    assert "line 10: 16777216 is not a 24-bit reading" in refused(
        write(tmp_path / "range.jsonl.gz", text), capsys
    )


def test_another_format_version_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lines()
    header = json.loads(text[0])
    header["format"] = FORMAT + 1
    text[0] = json.dumps(header) + "\n"
    err = refused(write(tmp_path / "future.jsonl.gz", text), capsys)
    assert f"recording format {FORMAT + 1}, this sowboard reads format {FORMAT}" in err
    assert "sowboard 0.1.0" in err  # the version that made it


def test_not_a_recording_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    assert "cut short or damaged" in refused(plain, capsys)
    other = write(tmp_path / "other.jsonl.gz", ['{"type": "game"}\n'])
    assert "not a sowboard recording" in refused(other, capsys)
    assert "cannot read" in refused(tmp_path / "missing.jsonl.gz", capsys)


def test_a_header_the_referee_cannot_start_from_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lines()
    header = json.loads(text[0])
    header["start"]["steps"] = [{"player": 0, "step": "sow", "at": [0, 1]}]
    text[0] = json.dumps(header) + "\n"
    assert "header:" in refused(write(tmp_path / "steps.jsonl.gz", text), capsys)
    header["start"]["steps"] = []
    header["board"]["file"] = "name = 'x'"
    text[0] = json.dumps(header) + "\n"
    assert "header:" in refused(write(tmp_path / "board.jsonl.gz", text), capsys)


def test_simulate_frames_reports_and_compares(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--frames", str(SHIPPED), "--compact"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"recording", "belief", "steps", "flags", "live"}  # no truth
    assert report["live"] == {"same": True, "differences": []}
    assert report["recording"]["frames"] == 1081 and report["recording"]["board"] == "congkak7"


def test_simulate_frames_says_when_the_replay_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lines()
    live = json.loads(text[-1])
    live["flags"] = []
    text[-1] = json.dumps(live) + "\n"
    header = json.loads(text[0])
    header["software"] = "sowboard 0.1.0"  # (as saved before recordings named their referee)
    text[0] = json.dumps(header) + "\n"
    assert main(["simulate", "--frames", str(write(tmp_path / "d.jsonl.gz", text))]) == 1
    report = json.loads(capsys.readouterr().out)
    live = report["live"]
    assert (live["same"], live["differences"]) == (False, ["0 flags live, 1 replayed"])
    # Made by another referee than this one: the report says the difference may be its change.
    assert live["why"].startswith("recorded by sowboard 0.1.0, replayed by sowboard 0.1.0 (")
    assert "the referee has changed since" in live["why"]


def test_simulate_needs_a_scenario_or_frames(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate"]) == 2
    assert main(["simulate", "x.json", "--frames", str(SHIPPED)]) == 2
    assert "one of them" in capsys.readouterr().err


def test_load_errors_are_recording_errors(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match=r"^.*cut\.gz: the file is cut short"):
        (tmp_path / "cut.gz").write_bytes(b"\x1f\x8b\x08")
        load_recording(tmp_path / "cut.gz")
