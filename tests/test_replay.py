"""`sowboard replay` and `sowboard rules` (RULES.md section 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules import Game, Place, Rules, Step, StepFollower


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path: Path, record: object, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    return path


def test_replay_prints_the_rules_md_example_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, {"variant": "oware", "options": {"seeds": 4}, "moves": [2, 5, 0]})
    status, out, err = run(capsys, "replay", str(path))
    assert status == 0 and err == ""
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 3
    assert lines[0] == {
        "ply": 1,
        "player": 0,
        "pit": 2,
        "pits": [[4, 4, 0, 5, 5, 5], [5, 4, 4, 4, 4, 4]],
        "stores": [0, 0],
        "to_move": 1,
        "over": False,
        "winner": None,
    }


def test_replay_of_a_whole_game_ends_with_the_sweep_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = Game("kalah")
    moves: list[int] = []
    while not game.over:
        moves.append(game.legal_moves()[-1])
        game.play(moves[-1])
    status, out, _ = run(
        capsys, "replay", str(write(tmp_path, {"variant": "kalah", "moves": moves}))
    )
    last = json.loads(out.splitlines()[-1])
    assert status == 0
    assert last["over"] is True
    assert last["pits"] == [list(game.pits(0)), list(game.pits(1))]
    assert last["stores"] == list(game.stores()) and sum(last["stores"]) == 36
    assert last["winner"] == game.position().to_json()["winner"]
    assert last["to_move"] is None


def test_variant_and_option_override_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, {"variant": "oware", "options": {"seeds": 4}, "moves": [0]})
    _, out, _ = run(capsys, "replay", str(path), "--variant", "kalah", "--option", "seeds=5")
    line = json.loads(out)
    assert line["pits"][0] == [0, 6, 6, 6, 6, 6]
    assert line["stores"] == [0, 0]


@pytest.mark.parametrize(
    ("record", "args", "message"),
    [
        ('{"variant": "kalah", "moves": [1,', (), "game.json: line 1 column 34: invalid JSON"),
        ({"variant": "bao", "moves": [1]}, (), "game.json: field 'variant': unknown variant 'bao'"),
        (
            {"variant": "kalah", "options": {"pits": 0}, "moves": []},
            (),
            "field 'options': option 'pits': 0 is out of range",
        ),
        (
            {"variant": "kalah", "moves": [1, 2, 1]},
            (),
            "game.json: ply 3: pit 1: pit 1 of player 0 is empty",
        ),
        (
            {"variant": "kalah", "moves": [1, "x"]},
            (),
            "field 'moves': entry 2 is \"x\", not a pit number",
        ),
        ({"moves": [1]}, (), "field 'variant' is missing"),
        (
            {"variant": "kalah", "moves": [1]},
            ("--option", "seeds"),
            "--option: 'seeds' is not of the form name=value",
        ),
        ({"variant": "kalah", "moves": [1]}, ("--option", "bogus=1"), "unknown option 'bogus'"),
        (
            {"variant": "congkak", "steps": [{"player": 0, "step": "sow", "at": [0, 9]}]},
            (),
            "step 1",
        ),
        (
            {"variant": "congkak", "steps": [{"player": 2, "step": "sow", "at": [0, 1]}]},
            (),
            "field 'steps': step 1: field 'player': 2 is not 0 or 1",
        ),
    ],
)
def test_bad_records_give_one_clear_line_and_a_non_zero_exit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    record: object,
    args: tuple[str, ...],
    message: str,
) -> None:
    status, _, err = run(capsys, "replay", str(write(tmp_path, record)), *args)
    assert status != 0
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_illegal_move_keeps_the_lines_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "replay", str(write(tmp_path, {"variant": "kalah", "moves": [1, 2, 1]}))
    )
    assert status == 2
    assert len(out.splitlines()) == 2
    assert "ply 3" in err


def test_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "replay", str(tmp_path / "nope.json"))
    assert status == 2 and "nope.json: cannot read" in err


def test_replay_of_a_simultaneous_opening_record_with_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """RULES.md 5: a simultaneous opening record carries the steps as the board saw them."""
    rules = Rules.for_variant("congkak", {"pits": 5, "simultaneous_opening": True})
    follower = StepFollower.new(rules)
    steps = [Step.pickup(0, Place(0, 2)), Step.pickup(1, Place(1, 4))]
    for step in steps:
        follower.feed(step)
    k = 0
    while follower.opening:
        options = follower.expected()
        step = options[k % len(options)]
        assert follower.feed(step).accepted
        steps.append(step)
        k += 1
    record = {
        "variant": "congkak",
        "options": {"pits": 5, "simultaneous_opening": True},
        "steps": [s.to_json() for s in steps],
        "moves": [follower.expected()[0].at.pit],  # type: ignore[union-attr]
    }
    status, out, err = run(capsys, "replay", str(write(tmp_path, record)))
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    opening_moves = len(follower.completed)
    assert len(lines) == opening_moves + 1
    assert {line["player"] for line in lines[:opening_moves]} == {0, 1}
    assert [line["ply"] for line in lines] == list(range(1, len(lines) + 1))
    assert lines[opening_moves - 1]["to_move"] == follower.to_move
    after = follower.position()
    assert lines[opening_moves - 1]["pits"] == [list(after.pits[0]), list(after.pits[1])]
    assert sum(map(sum, lines[-1]["pits"])) + sum(lines[-1]["stores"]) == 50


def test_a_whole_move_record_of_a_simultaneous_opening_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"variant": "congkak", "options": {"simultaneous_opening": True}, "moves": [1]}
    status, _, err = run(capsys, "replay", str(write(tmp_path, record)))
    assert status == 2 and "needs 'steps'" in err


def test_rules_lists_every_variant_with_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules")
    assert status == 0
    for name in ("congkak", "kalah", "oware"):
        assert f"\n{name}: " in "\n" + out
    assert "capture_counts" in out and "[2, 3]" in out
    status, out, _ = run(capsys, "rules", "congkak")
    assert "one of 5, 7, 9" in out and "oware" not in out.split(":")[0]
    status, _, err = run(capsys, "rules", "bao")
    assert status == 2 and "unknown variant 'bao'" in err


def test_a_steps_record_may_list_every_pit_choice_the_steps_made_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A board writes both: the steps as seen and every pit choice. The choices the steps
    already made are checked, not played a second time."""
    rules = Rules.for_variant("congkak", {"pits": 5, "simultaneous_opening": True})
    follower = StepFollower.new(rules)
    steps = [Step.pickup(0, Place(0, 1)), Step.pickup(1, Place(1, 1))]
    for step in steps:
        follower.feed(step)
    while follower.opening:
        step = follower.expected()[0]
        follower.feed(step)
        steps.append(step)
    made = [m.pit for m in follower.completed]
    after = follower.expected()[0].at
    assert after is not None
    base = {"variant": "congkak", "options": {"pits": 5, "simultaneous_opening": True}}
    record = {**base, "steps": [s.to_json() for s in steps], "moves": [*made, after.pit]}
    status, out, err = run(capsys, "replay", str(write(tmp_path, record)))
    assert status == 0, err
    assert len(out.splitlines()) == len(made) + 1
    wrong = {**record, "moves": [(made[0] + 1) % 5, *made[1:], after.pit]}
    status, _, err = run(capsys, "replay", str(write(tmp_path, wrong, "wrong.json")))
    assert status == 2 and "do not match the pits the steps played" in err
