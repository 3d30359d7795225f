"""Every recording in this folder, replayed: the pattern for builders' recordings.

A builder's "it flagged my hand" is saved by the daemon (a flag saves one; the admin page and
`sowboard record` too) and sent in. Put the file here as `NAME.jsonl.gz`. Without anything
else it must replay as it ran live (the same steps and flags). With `NAME.expected.json`
(`about`: what the hands really did; `flags`: the flags that should be raised, kind and place;
`belief`: optionally what the referee should believe at the end, e.g. the counts the builder
counted), the replay is held to that instead: the test fails until the referee is right.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.sensing.recording import load_recording
from controller.simulate import recording_report, run_recording

HERE = Path(__file__).parent
RECORDINGS = sorted(HERE.glob("*.jsonl.gz"))


def test_the_folder_holds_a_recording() -> None:
    assert RECORDINGS, f"no recordings in {HERE}"


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_a_recording_replays_as_expected(path: Path) -> None:
    recording = load_recording(path)
    report = recording_report(recording, run_recording(recording))
    expected_path = path.with_name(path.name.removesuffix(".jsonl.gz") + ".expected.json")
    if not expected_path.exists():
        assert report["live"] == {"same": True, "differences": []}
        return
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    assert [{"kind": f["kind"], "at": f["at"]} for f in report["flags"]] == expected["flags"]
    for key, value in expected.get("belief", {}).items():
        assert report["belief"][key] == value, key


def test_the_shipped_recording_is_a_flag_and_replays_as_live() -> None:
    recording = load_recording(HERE / "congkak7_foreign_seed_sim.jsonl.gz")
    assert recording.header["reason"] == "flag"
    assert recording.header["start"]["referee"] == "start"
    report = recording_report(recording, run_recording(recording))
    assert report["live"] == {"same": True, "differences": []}
    assert len(report["steps"]) == len(recording.live["steps"]) == 33
