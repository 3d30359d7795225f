"""`sowboard selfplay` and the record in `sowboard simulate`'s report (issue 16, build 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules.record import parse_record, replay
from controller.selfplay import main as selfplay
from controller.sim import load_scenario
from controller.simulate import report, run_simulation

SCENARIOS = Path(__file__).parent / "scenarios"


def last_position(path: Path) -> dict[str, object]:
    *_, last = replay(parse_record(path.read_text()))
    return last


@pytest.mark.parametrize("variant", ["congkak", "kalah", "oware"])
def test_engine_games_write_records_that_replay_to_their_result(
    tmp_path: Path, variant: str
) -> None:
    summary = selfplay(12, variant, {}, False, tmp_path, seed=7)
    files = sorted(tmp_path.glob("game-*.json"))
    assert len(files) == 12 == summary["games"]
    winners = []
    for path in files:
        record = json.loads(path.read_text())
        end = last_position(path)
        assert end["over"] is True and record["over"] is True
        assert (end["winner"], end["stores"]) == (record["winner"], record["stores"])
        winners.append(record["winner"])
    assert summary["wins"] == [winners.count(0), winners.count(1)]
    assert summary["draws"] == winners.count("draw") and summary["unfinished"] == 0
    assert json.loads((tmp_path / "summary.json").read_text()) == summary


def test_the_same_seed_plays_the_same_games(tmp_path: Path) -> None:
    selfplay(3, "kalah", {"seeds": 4}, False, tmp_path / "a", seed=3)
    selfplay(3, "kalah", {"seeds": 4}, False, tmp_path / "b", seed=3)
    selfplay(3, "kalah", {"seeds": 4}, False, tmp_path / "c", seed=4)
    a, b, c = (sorted(p.read_text() for p in (tmp_path / d).glob("game-*")) for d in "abc")
    assert a == b and a != c
    assert json.loads(a[0])["options"] == {"seeds": 4}


def test_on_the_simulated_board_the_referee_writes_the_same_games(tmp_path: Path) -> None:
    summary = selfplay(2, "kalah", {}, True, tmp_path / "sim", seed=11)
    engine = selfplay(2, "kalah", {}, False, tmp_path / "engine", seed=11)
    assert summary["referee_agreed"] == 2 and summary["exact_final"] == 2
    assert summary["flags"] == 0
    assert summary["wins"] == engine["wins"]
    for name in ("game-0001.json", "game-0002.json"):
        refereed = json.loads((tmp_path / "sim" / name).read_text())
        assert refereed == json.loads((tmp_path / "engine" / name).read_text())


def test_the_command_prints_the_summary_and_refuses_what_it_cannot_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["selfplay", "--games", "2", "--variant", "oware", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["games"] == 2 and summary["variant"] == "oware"
    assert main(["selfplay", "--option", "simultaneous_opening=true", "--out", str(out)]) == 2
    assert "simultaneous_opening" in capsys.readouterr().err
    assert main(["selfplay", "--option", "pits=4", "--out", str(out)]) == 2
    assert "pits" in capsys.readouterr().err


def test_the_simulate_report_carries_the_record_of_the_game(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "kalah_end_sweep.json")
    result = report(*run_simulation(scenario))
    record = result["record"]
    assert record == {
        "variant": "kalah",
        "options": dict(scenario.options),
        "moves": list(scenario.moves),
    }
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    end = last_position(path)
    assert (end["pits"], end["stores"]) == (result["truth"]["pits"], result["truth"]["stores"])


def test_a_simultaneous_opening_record_carries_its_steps() -> None:
    scenario = load_scenario(SCENARIOS / "congkak_simultaneous_opening.json")
    record = report(*run_simulation(scenario))["record"]
    assert record["steps"] and {"player", "step"} <= set(record["steps"][0])
    *_, last = replay(parse_record(json.dumps(record)))
    assert last["ply"] == len(record["moves"])
