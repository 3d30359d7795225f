"""Guided undo (controller/daemon/undo.py) on the daemon's loop with the simulated board: the
lights walk the virtual hands back through the last move, step by step, and the referee
starts again on exactly the position before the move."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.link import CommandError
from controller.rules import Game, Step, StepFollower, StepKind
from tests.daemon.conftest import Board, make_config


def first_move_with_a_relay_and_a_capture(variant: str = "congkak") -> int:
    for pit in range(7):
        game = Game(variant)
        kinds = [s.kind for s in StepFollower.new(game.rules).complete_move(pit)]
        relays = sum(k is StepKind.PICKUP for k in kinds) - 1
        if relays and StepKind.CAPTURE in kinds:
            return pit
    raise AssertionError("no first move with a relay and a capture")


def undo_and_watch(board: Board) -> list[dict[str, Any]]:
    """Undo, and every snapshot's guidance until the referee follows the game again."""
    seen: list[dict[str, Any]] = []

    def watch() -> bool:
        status = board.status()
        if status["game"]["phase"] == "undoing":
            seen.append(status)
        loop = board.loop
        return loop.referee is not None and loop.now > loop.busy_until

    board.loop.execute("undo", {})
    board.run_until(watch, 300.0)
    board.settle()
    return seen


def truth_and_belief(board: Board) -> tuple[dict[str, Any], dict[str, Any]]:
    referee = board.loop.referee
    sim = board.loop.sim
    assert referee is not None and sim is not None
    belief = referee.belief()
    truth = sim.world.truth()
    return (
        {k: truth[k] for k in ("pits", "stores", "hand")},
        {k: belief[k] for k in ("pits", "stores", "hand")},
    )


def test_the_status_says_whether_undo_can_run(board: Board) -> None:
    # The admin page's Undo is disabled by `can_undo` instead of answered with a 409.
    board.ready()
    assert board.status()["game"]["can_undo"] is False
    with pytest.raises(CommandError, match="no move to undo"):
        board.loop.execute("undo", {})
    board.loop.execute("sim_move", {"pit": 3})
    referee = board.loop.referee
    assert referee is not None
    board.run_until(lambda: bool(referee.steps))  # (the move under way is taken back too)
    assert board.status()["game"]["can_undo"] is True
    board.settle()
    assert board.status()["game"]["can_undo"] is True
    board.loop.execute("undo", {})
    board.run(0.1)
    assert board.status()["game"]["can_undo"] is False  # (while the hands put it back)
    board.ready()
    assert board.status()["game"]["can_undo"] is False
    with pytest.raises(CommandError, match="no move to undo"):
        board.loop.execute("undo", {})


def test_a_move_with_a_relay_and_a_capture_is_walked_back_step_by_step(tmp_path: Path) -> None:
    pit = first_move_with_a_relay_and_a_capture()
    board = Board(make_config(tmp_path))
    try:
        board.ready()
        before = board.status()["game"]["position"]
        board.play(pit)
        moved = [s for _t, s in board.loop.game.steps]
        assert any(s.kind is StepKind.CAPTURE for s in moved)
        seen = undo_and_watch(board)
        status = board.status()
        assert status["game"]["history"] == []
        assert status["game"]["position"] == before
        truth, belief = truth_and_belief(board)
        assert truth == belief
        assert [f for f in status["flags"] if f["kind"] == "board_mismatch"] == []
        # One step back at a time: never more than a capture's two places lit at once, and
        # the guidance went through many of the move's steps (not the whole board at once).
        assert seen, "no guided undo was seen"
        assert max(len(s["game"]["expected"]) for s in seen) <= 2
        distinct = {tuple(map(tuple, s["game"]["expected"])) for s in seen}
        assert len(distinct) >= len(moved) // 4, (len(distinct), len(moved))
        for s in seen:
            assert s["game"]["expected_kind"] == "undo"
            lit = {k for k, v in s["leds"]["places"].items() if v["effect"] != "none"}
            assert lit <= {f"{p[0]},{p[1]}" for p in s["game"]["expected"]}, lit
    finally:
        board.stop()


def test_guided_undo_restores_the_position_for_random_moves(tmp_path: Path) -> None:
    """A random legal move, undone, again and again (a move undone is played on afresh)."""
    rng = random.Random(14)
    board = Board(make_config(tmp_path))
    undone = 0
    try:
        board.ready()
        for _ in range(12):
            follower = board.loop.follower()
            if follower.over:
                break
            before = board.status()["game"]["position"]
            pits = [p.pit for p in follower.expected_places() if not p.is_store]
            board.play(int(rng.choice(pits)))
            undo_and_watch(board)
            assert board.status()["game"]["position"] == before
            truth, belief = truth_and_belief(board)
            assert truth == belief, (truth, belief)
            undone += 1
            board.play(int(rng.choice(pits)))  # and on with the game
    finally:
        board.stop()
    assert undone == 12


def test_the_reverse_of_a_move_puts_every_seed_back() -> None:
    from controller.daemon.undo import forward_layouts, reverse_actions

    game = Game("kalah")
    steps: list[Step] = StepFollower.new(game.rules).complete_move(2)
    layouts = forward_layouts(game.rules, [], steps)
    actions = reverse_actions(game.rules, [], steps, 0.5)
    physical = [s for s in steps if s.kind.physical]
    assert len(layouts) == len(physical) + 1
    # Each sow is one seed taken out again, the pickup its seeds put back, the last first.
    assert actions[0]["action"] == "take" and actions[0]["at"] == physical[-1].at.to_json()
    assert actions[-1] == {
        "t": 0.5 * len(actions),
        "action": "drop",
        "at": [0, 2],
        "n": layouts[0][physical[0].at],
        "hand": 0,
    }
