"""`sowboard simulate`'s `record` (docs/records.md, "`sowboard simulate`'s `record`"): the
game as the referee recognised it, with exactly the documented keys, which `sowboard replay`
plays to where the referee believes the seeds are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller import cli

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("congkak_extra_turn.json", ["variant", "options", "moves"]),
        ("congkak_simultaneous_opening.json", ["variant", "options", "steps", "moves"]),
    ],
)
def test_the_record_has_the_documented_keys_and_replays_to_the_belief(
    name: str, keys: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = json.loads((SCENARIOS / name).read_text())
    assert cli.main(["simulate", "--compact", str(SCENARIOS / name)]) == 0
    report = json.loads(capsys.readouterr().out)
    record = report["record"]
    assert list(record) == keys
    assert record["variant"] == scenario["variant"]
    assert record["options"] == scenario.get("options", {})
    assert record["moves"] == scenario["moves"]  # (the referee followed every move)
    if "steps" in record:
        assert record["steps"] == [
            {k: v for k, v in step.items() if k != "t"} for step in report["steps"]
        ]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert cli.main(["replay", str(path)]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    belief = report["belief"]
    assert (last["pits"], last["stores"]) == (belief["pits"], belief["stores"])
