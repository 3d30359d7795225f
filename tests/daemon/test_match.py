"""Whole congkak matches of handicap rounds (controller/daemon/match.py) on the simulated
board: rounds laid out from the seeds each player won (a burned pit closed), journaled and
recorded with their start layouts (which `sowboard replay` follows), and a daemon killed
mid-match that resumes the match."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from controller import cli
from controller.bench.daemonproc import DaemonProcess
from controller.board import find_board
from controller.daemon.config import ConfigError
from controller.daemon.game import game_record, new_game
from controller.daemon.journal import encode_line
from controller.daemon.link import CommandError
from controller.daemon.match import Match, first_round, match_options, match_record, next_round
from controller.rules import Game, Position, Rules, StepFollower
from controller.rules.record import parse_record, replay, start_position
from controller.sensing.recording import load_recording
from controller.simulate import recording_report, run_recording
from tests.daemon.conftest import Board, make_config
from tests.daemon.test_restart import Daemon

BURN = {"handicap_partial": "burn"}


def records(data_dir: Path) -> list[dict[str, Any]]:
    text = (data_dir / "records.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def at_round(status: dict[str, Any], round_: int) -> bool:
    match = status.get("game", {}).get("match")
    return match is not None and (match["round"] >= round_ or match["over"])


def test_a_match_of_three_rounds_with_a_burned_pit(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"match": True, "mode": "demo", "options": BURN}))
    try:
        board.run_until(lambda: board.loop.referee is not None)  # (demo: the hands play on)
        board.run(0.1)
        assert board.status()["game"]["match"] == {"round": 1, "won": [0, 0], "over": False}
        board.run_until(lambda: at_round(board.status(), 2), 3000)
        status = board.status()
        closed = status["game"]["options"].get("closed", [])
        # (the simulated board's seeds are the configuration's: this match burns a pit)
        assert closed, "round 2 closed no pit"
        board.run_until(lambda: board.loop.referee is not None, 60)
        board.run(0.2)
        lights = board.status()["leds"]["places"]
        for player, pit in closed:
            assert lights[f"{player},{pit}"] == {"color": "#d55e00", "effect": "steady"}
        # A recording of the round replays from the round's own layout as it ran live.
        board.run(15.0)
        name = board.loop.execute("save_recording", {})["file"]
        saved = tmp_path / "recordings" / name
        board.loop.recorder.flush()  # (written on a thread of its own, in real time)
        assert saved.exists()
        recording = load_recording(saved)
        assert (
            recording.header["start"]["layout"]["pits"] == status["game"]["record"]["start"]["pits"]
        )
        assert recording_report(recording, run_recording(recording))["live"]["same"] is True
        board.run_until(lambda: at_round(board.status(), 3), 3000)
    finally:
        board.stop()
    rounds = records(tmp_path)
    assert [r["match"]["round"] for r in rounds[:2]] == [1, 2]
    first, second = rounds[0], rounds[1]
    assert "start" not in first and second["start"]["pits"] != [[7] * 7, [7] * 7]
    for player, pit in second["options"]["closed"]:
        assert second["start"]["pits"][player][pit] == 0
    # Each round's record replays from its own start to its end.
    for record in rounds[:2]:
        lines = list(replay(parse_record(json.dumps(record))))
        assert lines[-1]["over"] is True
        assert sum(lines[-1]["stores"]) == 98
    # A finished round's record says the rounds won after it and that the match goes on.
    assert first["match"]["over"] is False and second["match"]["over"] is False
    assert first["match"]["won"] == second["match"]["won_before"]
    assert sum(second["match"]["won"]) - sum(second["match"]["won_before"]) <= 1
    # The second round started from the seeds each player won in the first.
    final = list(replay(parse_record(json.dumps(first))))[-1]["stores"]
    start = second["start"]
    assert [sum(start["pits"][p]) + start["stores"][p] for p in (0, 1)] == final


def round_ending(stores: tuple[int, int]) -> StepFollower:
    """A congkak round (burn) whose last move player 0 plays: one seed into the store."""
    rules = Rules.for_variant("congkak", {**BURN, "handicap_rounds": True})
    start = Position(((0, 0, 0, 0, 0, 0, 1), (0,) * 7), stores, 0)
    game = Game(rules, start=start)
    follower = StepFollower.from_game(game)
    for step in game.steps(6):
        assert follower.feed(step).accepted
    return follower


def test_the_last_rounds_record_holds_the_matchs_result() -> None:
    match = first_round(BURN)
    playing = StepFollower.from_game(Game(Rules.for_variant("congkak", match.options)))
    assert match_record(match, "congkak", playing) == {"round": 1, "won_before": [0, 0]}
    # Player 1 keeps 5 seeds, not enough for one pit of 7 (burned): the match is over.
    ended = round_ending((92, 5))
    assert ended.over
    assert match_record(match, "congkak", ended) == {
        "round": 1, "won_before": [0, 0], "won": [1, 0], "over": True
    }  # fmt: skip
    # With 30 seeds player 1 fills four pits: the match goes on.
    going_on = round_ending((67, 30))
    assert match_record(match, "congkak", going_on)["over"] is False


def test_a_killed_daemon_resumes_the_match(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = tmp_path / "config.toml"
    config.write_text(
        '[game]\nmode = "demo"\nmatch = true\noptions = { handicap_partial = "burn" }\n'
        "[hardware.sim]\nspeed = 50\n"
        f'[web]\nport = 0\n[data]\ndir = "{data}"\n[recorder]\non_flag = false\n'
    )
    daemon = DaemonProcess(config)
    try:
        deadline = time.monotonic() + 240
        while not (at_round(state := daemon.state(), 2) and state["game"]["history"]):
            assert time.monotonic() < deadline, "round 2 was not played within 4 minutes"
            time.sleep(0.2)
        daemon.kill()  # the plug pulled mid-round
        before = state["game"]
    finally:
        daemon.kill()
    again = DaemonProcess(config)
    try:
        resumed = again.state()["game"]
        deadline = time.monotonic() + 30
        while resumed.get("match") is None:
            assert time.monotonic() < deadline
            time.sleep(0.2)
            resumed = again.state()["game"]
        assert resumed["match"]["round"] == before["match"]["round"]
        assert resumed["match"]["won"] == before["match"]["won"]
        assert resumed["record"]["start"] == before["record"]["start"]
        assert resumed["options"] == before["options"]
        assert "resumed the congkak game" in again.drain()
    finally:
        again.stop()


def test_a_daemon_stopped_between_rounds_lays_out_the_next(tmp_path: Path) -> None:
    config = make_config(tmp_path, game={"match": True, "mode": "demo", "options": BURN})
    board = Board(config)
    try:
        board.run_until(lambda: board.loop.session.over_since is not None, 3000)
        final = board.status()["game"]["position"]
    finally:
        board.stop()  # round 1 over, round 2 not yet laid out
    again = Board(config)
    try:
        again.run_until(lambda: again.loop.referee is not None, 60)
        again.run(0.1)
        status = again.status()
        assert status["game"]["match"]["round"] == 2
        start = status["game"]["record"]["start"]
        stocks = [sum(start["pits"][p]) + start["stores"][p] for p in (0, 1)]
        assert stocks == [final["stores"][p] + sum(final["pits"][p]) for p in (0, 1)]
        assert any("the match goes on: round 2" in n for n in again.loop.notices)
    finally:
        again.stop()


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ({"match": "yes"}, 'game.match = "yes" is not allowed, allowed: true or false'),
        (
            {"match": True, "options": {"handicap_rounds": False}},
            "game.options: handicap_rounds = false: a match is played in handicap rounds",
        ),
    ],
)
def test_a_wrong_match_in_the_configuration_is_named(
    tmp_path: Path, game: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        make_config(tmp_path, game=game)


def test_the_new_game_command_starts_and_ends_matches(board: Board) -> None:
    board.ready()
    loop = board.loop
    assert loop.execute("new_game", {"match": True})["match"] is True
    assert loop.game.match is not None and loop.game.rules.options.handicap_rounds
    assert loop.execute("new_game", {})["match"] is True  # (kept, from round 1)
    assert loop.game.match is not None and loop.game.match.round == 1
    assert "match" not in loop.execute("new_game", {"match": False})
    assert loop.game.match is None
    with pytest.raises(CommandError) as wrong:
        loop.execute("new_game", {"match": "yes"})
    assert wrong.value.field == "match"


def computer_moves(record: dict[str, Any], computer: int) -> int:
    """Every move of the record legal from the round's own start; the computer's count."""
    rules = Rules.for_variant(record["variant"], record["options"])
    start = start_position(record["start"], rules) if "start" in record else None
    game = Game(rules, start=start)
    count = 0
    for ply, pit in enumerate(record["moves"], start=1):
        reason = game.why_illegal(pit)
        assert reason is None, f"ply {ply}: player {game.to_move} played pit {pit}: {reason}"
        count += game.to_move == computer
        game.play(pit)
    return count


def play_a_round_against_the_computer(board: Board, round_: int, rng: random.Random) -> None:
    """Player 1 (a person) plays random pits; the virtual hand plays the computer's moves."""
    end = time.monotonic() + 240
    while True:
        status = board.status()
        match, position = status["game"]["match"], status["game"]["position"]
        if match["round"] > round_ or match["over"]:
            return
        assert time.monotonic() < end, f"round {round_} did not end in four minutes"
        if position["over"] or board.loop.referee is None:
            board.run(0.5)  # the round's end on the lights, then the next round's layout
        elif position["to_move"] == 1:
            board.play(rng.choice([i for i, n in enumerate(position["pits"][1]) if n]))
        else:  # the computer's turn (extra turns included)
            plies = len(status["game"]["history"])
            board.wait(lambda n=plies: len(board.status()["game"]["history"]) > n)
            board.settle()


def test_a_match_against_the_computer_is_played_round_after_round(tmp_path: Path) -> None:
    """Player 0 is the computer (level 2) in every round of a match: the rounds are laid out,
    the computer moves in each, legally from the round's own start (closed pits included),
    and every round's record names it."""
    opponent = {"player": 0, "level": 2, "think_s": 0.2}
    board = Board(
        make_config(tmp_path, game={"match": True, "options": BURN, "opponent": opponent})
    )
    rng = random.Random(5)
    try:
        board.ready()
        for round_ in (1, 2):
            play_a_round_against_the_computer(board, round_, rng)
        status = board.status()
        assert status["game"]["computer"]["player"] == 0
    finally:
        board.stop()
    rounds = records(tmp_path)[:2]
    assert [r["match"]["round"] for r in rounds] == [1, 2]
    for record in rounds:
        assert record["opponent"] == opponent
        assert record["match"]["over"] in (True, False)
        assert computer_moves(record, computer=0) >= 2
        assert list(replay(parse_record(json.dumps(record))))[-1]["over"] is True
    assert "start" in rounds[1]  # (round 2 from the seeds won in round 1)
    assert rounds[0]["match"]["won"] == rounds[1]["match"]["won_before"]


def a_second_round(rng: random.Random) -> tuple[dict[str, Any], Position]:
    """A round 2 of a match played to its end, its record as the daemon writes it
    (game.py's `game_record`, match.py's `match_record`), and its final position."""
    match = first_round(BURN)
    first = Game(Rules.for_variant("congkak", match.options))
    while not first.over:
        first.play(rng.choice(first.legal_moves()))
    following, options = next_round(match, "congkak", first.position())
    assert not following.over and following.start is not None
    game = new_game(find_board("congkak7"), "congkak7", "congkak", options, match=following)
    rules_game = Game(game.rules, start=following.start)
    follower = game.follower()
    while not rules_game.over:
        for step in rules_game.steps(rng.choice(rules_game.legal_moves())):
            assert follower.feed(step).accepted
            game.steps.append((0.0, step))
        rules_game.play(follower.completed[-1].pit)
    return game_record(game, follower), follower.position()


def test_a_match_rounds_record_is_read_by_replay_and_simulate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/records.md: a round's record, with its `match` and its own `start` (closed pits
    in its options), is a record `sowboard replay` plays and a scenario `sowboard simulate`
    plays, both from the round's start to the recorded end."""
    record, final = a_second_round(random.Random(3))
    assert record["match"]["round"] == 2 and "won" in record["match"]
    assert record["options"].get("closed") and record["start"]["pits"] != [[7] * 7, [7] * 7]
    path = tmp_path / "round2.json"
    path.write_text(json.dumps({**record, "finished": True, "saved": "2026-11-25T10:00:00Z"}))
    expected = {"pits": [list(row) for row in final.pits], "stores": list(final.stores)}

    assert cli.main(["replay", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == len(record["moves"])
    assert {"pits": lines[-1]["pits"], "stores": lines[-1]["stores"]} == expected
    assert lines[-1]["over"] is True

    assert cli.main(["simulate", "--compact", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["flags"] == []
    assert report["belief"]["over"] is True
    assert {k: report["truth"][k] for k in ("pits", "stores")} == expected
    assert {k: report["belief"][k] for k in ("pits", "stores")} == expected
    # Its own record is the round's again: same start, same moves (RULES.md 5's fields).
    assert report["record"] == {k: record[k] for k in ("variant", "options", "start", "moves")}


def test_a_match_that_ended_is_still_over_after_a_kill(tmp_path: Path) -> None:
    """The journal holds the match's last round, and with it the match's end (the handicap
    rule on its final position): a daemon killed after that round restarts with the match
    over and who won on the page, the round's record kept once, until a new game."""
    data = tmp_path / "data"
    data.mkdir()
    # Round 2 of a match that player 0 won round 1 of, one move from its end: player 1 keeps
    # 5 seeds, too few for one pit of 7 (burned), so the match ends with this round.
    options = match_options(BURN)
    start = Position(((0, 0, 0, 0, 0, 0, 1), (0,) * 7), (92, 5), 0)
    round_2 = Match(2, (1, 0), options, start)
    game = new_game(find_board("congkak7"), "congkak7", "congkak", dict(options), match=round_2)
    (data / "game.jsonl").write_text("".join(encode_line(e) for e in game.entries()))
    config = tmp_path / "config.toml"
    config.write_text(
        '[game]\nmatch = true\noptions = { handicap_partial = "burn" }\n'
        "[hardware.sim]\nspeed = 8\n"
        f'[web]\nport = 0\n[data]\ndir = "{data}"\n[recorder]\non_flag = false\n'
    )
    over = {"round": 2, "won": [2, 0], "over": True}
    daemon = Daemon(config)
    try:
        daemon.wait(lambda s: s["daemon"]["state"] == "playing" and not s["daemon"]["sim_busy"])
        daemon.post("/api/sim/move", {"pit": 6})  # the last move: one seed into the store
        before = daemon.wait(lambda s: s["game"]["match"] == over)["game"]
        assert before["position"]["over"] is True
        # (the live record of the last round: the rounds won before it, then its result)
        assert before["record"]["match"] == {
            "round": 2, "won_before": [1, 0], "won": [2, 0], "over": True
        }  # fmt: skip
        daemon.wait(lambda s: (data / "records.jsonl").exists())
        daemon.kill()  # the plug pulled after the match's last round
    finally:
        daemon.kill()
    kept = records(data)
    assert [r["match"] for r in kept] == [
        {"round": 2, "won_before": [1, 0], "won": [2, 0], "over": True}
    ]
    again = Daemon(config)
    try:
        state = again.wait(lambda s: s["daemon"]["state"] == "playing")
        resumed = state["game"]
        assert resumed["match"] == over
        assert resumed["position"] == before["position"]
        assert resumed["record"]["match"] == kept[0]["match"]
        assert any(
            "the match was over after 2 rounds, won 2-0" in n["text"]
            for n in state["daemon"]["notices"]
        )
        assert records(data) == kept  # (not recorded twice)
        # A new game is a new match, from round 1.
        again.post("/api/new_game", {})
        again.wait(lambda s: s["game"]["match"] == {"round": 1, "won": [0, 0], "over": False})
    finally:
        again.stop()
