"""The simultaneous congkak opening on the daemon's simulated board (RULES.md,
`simultaneous_opening`: both players make their first move at the same time): the virtual
hands play it on `sim_move {pits}` and in demo mode, and the referee follows both hands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.link import CommandError
from controller.rules import Phase, Place, StepKind
from tests.daemon.conftest import Board, make_config

OPENING = {"variant": "congkak", "options": {"pits": 5, "simultaneous_opening": True}}


@contextmanager
def opening_board(
    tmp_path: Path, sim: dict[str, Any] | None = None, pits: int = 5, **game: Any
) -> Iterator[Board]:
    """The daemon on a simulated congkak board (5 pits unless told) with a simultaneous
    opening (run until play starts unless in demo mode, which starts playing at once)."""
    options = {"pits": pits, "simultaneous_opening": True}
    config = make_config(
        tmp_path,
        board={"file": f"congkak{pits}"},
        game={**OPENING, "options": options, **game},
        sim={"rate_sps": 80, **(sim or {})},
    )
    board = Board(config)
    try:
        if game.get("mode") != "demo":
            board.ready()
        yield board
    finally:
        board.stop()


def believed_as_true(board: Board) -> None:
    """The game the referee believes is the simulated board's truth, with no flag raised."""
    status = board.status()
    truth = board.loop.sim.world.truth()  # type: ignore[union-attr]
    position = status["game"]["position"]
    assert (position["pits"], position["stores"]) == (truth["pits"], truth["stores"])
    assert truth["hand"] == [0, 0]
    assert status["flags"] == []


def test_both_virtual_hands_play_the_opening_and_the_referee_follows(tmp_path: Path) -> None:
    with opening_board(tmp_path) as board:
        assert board.status()["game"]["position"]["to_move"] is None
        result = board.loop.execute("sim_move", {"pits": [3, 1]})
        assert result == {"played": [3, 1], "player": None}
        board.settle()
        assert board.status()["game"]["position"]["to_move"] is not None  # the opening is over
        believed_as_true(board)
        history = board.status()["game"]["history"]
        assert [(m["player"], m["pit"]) for m in history[:2]] in (
            [(0, 3), (1, 1)],
            [(1, 1), (0, 3)],
        )
        first = board.status()["game"]["expected"][0]  # a pit the player to move may start from
        board.play(first[1])
        believed_as_true(board)


def test_a_capture_taken_to_the_store_while_the_other_hand_captures_too(tmp_path: Path) -> None:
    """RULES.md 3.4 (capture) and `simultaneous_opening`, on the 7-pit board read at 10 SPS:
    hand 0's last seed falls in [1, 6] and it lifts the pit for a relay; hand 1's last seed
    falls in the emptied pit a moment later, and hand 1 takes it on to its store at once (a
    capture) while hand 0, further on, is capturing too. The seed in hand 1's store is that
    capture, not a seed in the wrong place."""
    with opening_board(tmp_path, sim={"rate_sps": 10, "random_seed": 5}, pits=7) as board:
        board.loop.execute("sim_move", {"pits": [3, 1]})
        board.settle()
        world = board.loop.sim.world  # type: ignore[union-attr]
        log = [(a.t, a.action.to_json()) for a in world.log]
        relay = [t for t, a in log if a == {**a, "action": "grab", "at": [1, 6], "hand": 0}]
        carried = [t for t, a in log if a == {**a, "action": "move", "from": [1, 6], "hand": 1}]
        captures = [t for t, a in log if a["action"] == "move" and a["hand"] == 0]
        assert any(
            0 < c - r < 0.6 and any(abs(o - c) < 1.0 for o in captures)
            for r in relay
            for c in carried
        ), "the case is gone"
        believed_as_true(board)


@pytest.mark.parametrize("pits", [[0, 6], [6, 0]])
def test_a_hand_starting_again_presses_on_a_pit_the_other_hand_sows_into(
    tmp_path: Path, pits: list[int]
) -> None:
    """RULES.md 3 (A: last seed in the own store, start again from any own pit) and
    `simultaneous_opening`, on the 7-pit board at 10 SPS: hand 1 grabs a pit of its row to
    start again just before hand 0's seed is due there. The grab presses the cup by several
    seeds first: that is not hand 0's seed landing (taken early, it made hand 0's seed that
    fell in after the lift one too many)."""
    with opening_board(tmp_path, sim={"rate_sps": 10, "random_seed": 5}, pits=7) as board:
        board.loop.execute("sim_move", {"pits": pits})
        board.settle()
        world = board.loop.sim.world  # type: ignore[union-attr]
        log = [(a.t, a.action.to_json()) for a in world.log]
        grabs = [(t, a["at"]) for t, a in log if a["action"] == "grab" and a["hand"] == 1]
        drops = [(t, a["at"]) for t, a in log if a["action"] == "drop" and a["hand"] == 0]
        assert any(at == to and 0 < t2 - t < 0.5 for t, at in grabs[1:] for t2, to in drops), (
            "the case is gone"
        )
        believed_as_true(board)


def test_the_opening_needs_both_hands_pits(tmp_path: Path) -> None:
    with opening_board(tmp_path) as board:
        cases: list[tuple[dict[str, Any], str, str]] = [
            ({"pit": 3}, "pits", "is missing: in the simultaneous opening both hands start"),
            ({"pit": 3, "pits": [3, 1]}, "pits", "either pit or pits, not both"),
            ({"pits": [3]}, "pits", "not two pit numbers"),
            ({"pits": [3, "1"]}, "pits", "not two pit numbers"),
            ({"pits": [3, 7]}, "pits", "hand 1 cannot start from pit 7"),
        ]
        for args, field, text in cases:
            with pytest.raises(CommandError) as caught:
                board.loop.execute("sim_move", args)
            assert caught.value.field == field, (args, caught.value)
            assert text in caught.value.message, (args, caught.value)
        with pytest.raises(CommandError, match="simultaneous opening") as mistake:
            board.loop.execute("sim_mistake", {"kind": "wrong_pit"})
        assert mistake.value.field == "command"
        board.loop.execute("sim_move", {"pits": [0, 4]})
        board.settle()
        with pytest.raises(CommandError, match="simultaneous opening, which is over") as late:
            board.loop.execute("sim_move", {"pits": [0, 4]})
        assert late.value.field == "pits"
        believed_as_true(board)


def test_a_demo_plays_the_opening_too(tmp_path: Path) -> None:
    """A museum's demo must not stop at a simultaneous opening: both hands start on their own."""
    with opening_board(tmp_path, mode="demo") as board:
        board.run_until(lambda: len(board.status()["game"]["history"]) >= 3, 300)
        board.loop.execute("mode", {"mode": "play"})  # (to look at the board between moves)
        board.settle()
        believed_as_true(board)


def hand_0_plays_its_opening_move_alone(board: Board, pit: int) -> None:
    """Hand 0 plays its whole opening move from `pit` (scripted actions) while hand 1 waits."""
    follower = board.loop.referee.game.copy()  # type: ignore[union-attr]
    actions: list[dict[str, Any]] = []
    t = 0.2
    while follower.hands[0].phase is not Phase.DONE:
        mine = [s for s in follower.expected() if s.player == 0]
        step = next(s for s in mine if s.at == Place(0, pit)) if not actions else mine[0]
        follower.feed(step)
        assert step.at is not None
        at = step.at.to_json()
        if step.kind is StepKind.PICKUP:
            actions.append({"t": t, "action": "grab", "at": at, "hand": 0})
        elif step.kind is StepKind.SOW:
            actions.append({"t": t, "action": "drop", "at": at, "n": 1, "hand": 0})
        else:
            actions.append({"t": t, "action": "move", "from": at, "to": [0, "store"], "hand": 0})
        t += 0.6
    board.loop.execute("sim_actions", {"actions": actions})
    board.settle()


def test_the_virtual_hand_finishes_an_opening_one_hand_began(tmp_path: Path) -> None:
    """One hand has played its opening move by hand: the other is played with `pit`."""
    with opening_board(tmp_path) as board:
        hand_0_plays_its_opening_move_alone(board, 2)
        assert board.status()["game"]["position"]["to_move"] is None  # hand 1 still to start
        with pytest.raises(CommandError, match="only hand 1 is still to start") as both:
            board.loop.execute("sim_move", {"pits": [2, 1]})
        assert both.value.field == "pit"
        (first, *_) = [p for p in board.status()["game"]["expected"] if p[0] == 1]
        assert board.loop.execute("sim_move", {"pit": first[1]}) == {
            "played": first[1],
            "player": 1,
        }
        board.settle()
        assert board.status()["game"]["position"]["to_move"] is not None
        believed_as_true(board)


def test_a_demo_finishes_an_opening_one_hand_began(tmp_path: Path) -> None:
    with opening_board(tmp_path) as board:
        hand_0_plays_its_opening_move_alone(board, 2)
        board.loop.execute("mode", {"mode": "demo"})
        board.run_until(lambda: board.status()["game"]["position"]["to_move"] is not None, 120)
        board.loop.execute("mode", {"mode": "play"})
        board.settle()
        believed_as_true(board)


def test_bench_openings_on_the_daemon_plays_them_with_the_virtual_hands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`sowboard bench openings --daemon`: openings on the daemon's own loop, at both rates,
    one figure each; these two end exact (as every opening did when the figures in
    hardware/README.md were taken)."""
    from controller.bench.daemon_openings import main

    assert main(games=2) == 0
    out = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(out[-1])
    assert set(figures) == {"7pits_80sps", "7pits_10sps"}
    for figure in figures.values():
        assert figure["games"] == 2 and figure["lost"] == 0
        assert figure["search_ms_max"] >= 0.0
