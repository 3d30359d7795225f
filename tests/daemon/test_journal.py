"""Nothing lost on a pulled plug: the journal on disk, and the game resumed from it.

A museum switches the board off at the wall every evening, sometimes in the middle of a move;
an SD card can damage a line. The game must come back as it was, and whatever is damaged is
reported (which line, why) while the intact beginning is kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import Config
from controller.daemon.journal import (
    JournalError,
    decode_line,
    encode_line,
    game_header,
    read_journal,
    replay,
    step_entry,
)
from controller.rules import Game, Place, Step
from tests.daemon.conftest import Board, make_config


def played(config: Config, pits: list[int]) -> tuple[dict[str, Any], Path]:
    """Play `pits` on a board, stop the daemon (a clean stop), return its last status."""
    board = Board(config)
    board.ready()
    for pit in pits:
        board.play(pit)
    status = board.status()
    board.stop()
    return status, board.loop.journal_path


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def test_a_line_carries_its_own_checksum() -> None:
    entry = step_entry(1.25, Step.sow(0, Place(1, "store")))
    line = encode_line(entry)
    assert line.endswith('"}\n') and '"crc":"' in line
    assert decode_line(line.rstrip("\n")) == entry
    damaged = line.replace('"store"', '"stare"')
    with pytest.raises(ValueError, match="checksum mismatch"):
        decode_line(damaged.rstrip("\n"))
    with pytest.raises(ValueError, match="not JSON"):
        decode_line(line[:30])


def test_the_game_resumes_after_a_restart_exactly_as_it_was(config: Config) -> None:
    before, _path = played(config, [3, 1])
    board = Board(config)
    try:
        board.ready()
        after = board.status()
        assert after["game"]["history"] == before["game"]["history"]
        assert after["game"]["position"] == before["game"]["position"]
        assert after["game"]["record"] == before["game"]["record"]
        assert after["game"]["expected"] == before["game"]["expected"]
        assert [f for f in after["flags"] if f["kind"] == "board_mismatch"] == []
        assert any("resumed the congkak game" in m for m in board.messages)
        # And play goes on from there.
        board.play(after["game"]["expected"][0][1])
        assert len(board.status()["game"]["history"]) == 3
    finally:
        board.stop()


def test_a_line_cut_off_by_the_power_is_dropped_and_reported(config: Config) -> None:
    before, path = played(config, [3])
    text = path.read_text()
    cut = encode_line(step_entry(30.0, Step.pickup(1, Place(1, 2))))[:25]
    path.write_text(text + cut)  # no newline: the write never finished

    journal = read_journal(path)
    assert journal is not None
    total = len(lines(path))
    assert journal.problems == [
        f"line {total}: truncated (the power went off while it was written); dropped"
    ]
    assert journal.lines_kept == total - 1
    board = Board(config)
    try:
        board.ready()
        assert board.status()["game"]["position"] == before["game"]["position"]
        assert any(
            f"line {total}: truncated" in n["text"] for n in board.status()["daemon"]["notices"]
        )
        board.loop.writer.flush()
        # Rewritten without the cut line: the steps it kept, each line whole (steps taken back
        # while the move was played, `retract`, are written as they stand).
        again = read_journal(path)
        assert again is not None and again.problems == [] and cut not in path.read_text()
        assert [(s.t, s.step) for s in again.steps] == [(s.t, s.step) for s in journal.steps]
    finally:
        board.stop()


def test_a_damaged_line_in_the_middle_keeps_the_part_before_it(config: Config) -> None:
    """The second move's steps are lost with the damaged line; the board still shows the
    seeds after both moves, so the places that differ are named and lit until put right."""
    _status, path = played(config, [3, 1])
    text = lines(path)
    steps = [k for k, line in enumerate(text) if '"type":"step"' in line]
    one_move = Game("congkak")
    one_move.play(3)
    # Damage the first step of the second move (player 1's pickup).
    second = next(k for k in steps if '"player":1' in text[k])
    text[second] = text[second].replace('"pickup"', '"pickuq"')
    path.write_text("".join(text))

    journal = read_journal(path)
    assert journal is not None
    rest = len(text) - second - 1
    assert journal.problems == [
        f"line {second + 1}: checksum mismatch (damaged line); dropped (and {rest} lines after it)"
    ]
    board = Board(config)
    try:
        board.run_until(lambda: any(f["active"] for f in board.status()["flags"]), 10)
        status = board.status()
        assert status["game"]["phase"] == "waiting"
        assert status["game"]["position"] == one_move.position().to_json()
        assert any(f"line {second + 1}: checksum mismatch" in n for n in board.messages)
        assert list(path.parent.glob("game.jsonl.damaged-*"))
        # Each place whose seeds differ has its own flag, and lights (too few / too many).
        wrong = {tuple(f["at"]) for f in status["flags"] if f["kind"] == "board_mismatch"}
        truth = board.loop.sim.world.truth()  # type: ignore[union-attr]
        expected = one_move.position()
        differs = {
            (p, i) for p in (0, 1) for i in range(7) if truth["pits"][p][i] != expected.pits[p][i]
        } | {(p, "store") for p in (0, 1) if truth["stores"][p] != expected.stores[p]}
        assert wrong == differs
        for p, i in wrong:
            assert status["leds"]["places"][f"{p},{i}"]["effect"] in ("pulse", "fast_blink")

        # The hands put the seeds back as the journal has it; then play starts.
        board.loop.execute("sim_actions", {"actions": fix_actions(truth, expected)})
        board.ready()
        status = board.status()
        assert not any(f["active"] for f in status["flags"])
        assert status["game"]["history"] == [{"ply": 1, "player": 0, "pit": 3}]
        # A board laid out again is no mistake of the hands: no flag recording for it.
        board.run(10.0)
        assert not list((config.data_dir / "recordings").glob("*"))
    finally:
        board.stop()


def fix_actions(truth: dict[str, Any], expected: Any) -> list[dict[str, Any]]:
    """The hands take surplus seeds from where there are too many to where there are too few."""
    places = [[p, i] for p in (0, 1) for i in range(7)] + [[0, "store"], [1, "store"]]

    def diff(place: list[Any]) -> int:
        p, i = place
        if i == "store":
            return int(truth["stores"][p] - expected.stores[p])
        return int(truth["pits"][p][i] - expected.pits[p][i])

    takes = [(place, diff(place)) for place in places if diff(place) > 0]
    drops = [(place, -diff(place)) for place in places if diff(place) < 0]
    actions: list[dict[str, Any]] = []
    for k, (place, n) in enumerate(takes):
        actions.append({"t": 0.5 * k, "action": "take", "at": place, "n": n, "hand": 0})
    for k, (place, n) in enumerate(drops, start=len(takes)):
        actions.append({"t": 0.5 * k, "action": "drop", "at": place, "n": n, "hand": 0})
    return actions


def test_a_move_cut_off_by_the_restart_is_taken_back(config: Config) -> None:
    before, path = played(config, [3])
    # The journal of a daemon that died after the next pickup and two seeds.
    with path.open("a") as out:
        for step in (
            Step.pickup(1, Place(1, 0)),
            Step.sow(1, Place(1, 1)),
            Step.sow(1, Place(1, 2)),
        ):
            out.write(encode_line(step_entry(40.0, step)))
    board = Board(config)
    try:
        board.ready()
        status = board.status()
        assert status["game"]["position"] == before["game"]["position"]
        assert status["game"]["history"] == before["game"]["history"]
        assert any("cut off by the restart and is taken back" in m for m in board.messages)
        board.loop.writer.flush()
        journal = read_journal(path)
        assert journal is not None
        assert len(journal.steps) == len(replay(journal).steps)  # the partial move is gone
    finally:
        board.stop()


def test_a_step_the_rules_refuse_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    entries = [
        game_header("kalah", {}, "congkak7"),
        step_entry(1.0, Step.pickup(0, Place(0, 2))),
        step_entry(1.2, Step.sow(0, Place(0, 3))),
        step_entry(1.4, Step.sow(0, Place(0, 5))),  # pit 4 was next
    ]
    path.write_text("".join(encode_line(e) for e in entries))
    journal = read_journal(path)
    assert journal is not None and journal.problems == []
    replayed = replay(journal)
    assert len(replayed.problems) == 1
    assert replayed.problems[0].startswith("line 4: step sow([0, 5]) by 0 does not follow")
    assert replayed.taken_back == [s for s in journal.steps[:2]]
    assert replayed.follower.position().pits == ((3,) * 6, (3,) * 6)


def test_a_retracted_step_is_not_replayed(tmp_path: Path) -> None:
    """The referee took a finger on a cup for a seed and took it back: so does the journal."""
    path = tmp_path / "game.jsonl"
    entries = [
        game_header("kalah", {}, "congkak7"),
        step_entry(1.0, Step.pickup(0, Place(0, 2))),
        step_entry(1.2, Step.sow(0, Place(0, 3))),
        {"type": "retract", "keep": 1},
        step_entry(1.5, Step.sow(0, Place(0, 3))),
        step_entry(1.7, Step.sow(0, Place(0, 4))),
        step_entry(1.9, Step.sow(0, Place(0, 5))),
    ]
    path.write_text("".join(encode_line(e) for e in entries))
    journal = read_journal(path)
    assert journal is not None
    assert [s.t for s in journal.steps] == [1.0, 1.5, 1.7, 1.9]
    replayed = replay(journal)
    assert replayed.problems == [] and replayed.taken_back == []
    assert [m.pit for m in replayed.follower.completed] == [2]


def test_a_journal_without_a_game_is_set_aside_and_a_new_game_starts(config: Config) -> None:
    path = config.data_dir / "game.jsonl"
    config.data_dir.mkdir(parents=True)
    path.write_text("this is not a journal\n")
    with pytest.raises(JournalError, match="line 1: not JSON"):
        read_journal(path)
    board = Board(config)
    try:
        board.ready()
        assert board.status()["game"]["history"] == []
        assert any("journal unusable" in n["text"] for n in board.status()["daemon"]["notices"])
        assert len(list(config.data_dir.glob("game.jsonl.damaged-*"))) == 1
    finally:
        board.stop()


def test_a_finished_game_is_not_resumed(tmp_path: Path) -> None:
    config = make_config(
        tmp_path, game={"variant": "kalah", "options": {"seeds": 1}, "mode": "demo"}
    )
    board = Board(config)
    board.ready()
    board.run_until(lambda: board.status()["game"]["position"]["over"], 300)
    board.stop()
    again = Board(make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 1}}))
    try:
        again.ready()
        assert again.status()["game"]["history"] == []
        assert any("the last game was over" in m for m in again.messages)
        records = (tmp_path / "records.jsonl").read_text().splitlines()
        assert json.loads(records[-1])["finished"] is True
    finally:
        again.stop()
