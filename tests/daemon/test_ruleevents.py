"""Teach mode's rule events (controller/daemon/ruleevents.py): a whole congkak 7 game played by
the virtual hands on the simulated board, every snapshot read, and the events the page
explains counted against the recognised steps."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from controller.daemon.ruleevents import Explainer, rule_events
from controller.rules import Place, Rules, Step, StepFollower
from controller.rules.steps import StepKind
from tests.daemon.conftest import Board, make_config
from web_ui import i18n

TURN_ENDS = (StepKind.END_TURN, StepKind.EXTRA_TURN, StepKind.PASS)


def play_whole_game(board: Board, seen: dict[int, dict[str, Any]]) -> None:
    """Random legal moves until the game is over, reading every snapshot's events."""
    rng = random.Random(15)
    loop = board.loop

    def watch() -> bool:
        for event in board.status()["game"]["events"]:
            seen[event["n"]] = event
        return False

    def settled() -> bool:
        watch()
        referee = loop.referee
        return (
            referee is not None
            and loop.now > loop.busy_until
            and referee.phase() in ("start", "over")
        )

    for _ in range(400):
        follower = board.loop.follower()
        if follower.over:
            return
        mover = follower.to_move
        expected = [p for p in follower.expected_places() if not p.is_store]
        if mover is None:  # the simultaneous opening: one pit of each hand's
            pits = [rng.choice([p.pit for p in expected if p.player == h]) for h in (0, 1)]
            board.loop.execute("sim_move", {"pits": pits})
        else:
            board.loop.execute("sim_move", {"pit": rng.choice([p.pit for p in expected])})
        board.run_until(settled, 300.0)  # (a congkak move of many relays takes minutes)
        board.run(0.1)
        watch()
    raise AssertionError("the game did not end in 400 moves")


def with_turn_ends(board: Board) -> tuple[list[Step], int]:
    """The journal's physical steps with the turn ends the rules engine adds to them, and
    how many moves were completed."""
    game = board.loop.game
    follower = StepFollower.new(game.rules)
    steps: list[Step] = []
    for step in game.step_list():
        verdict = follower.feed(step)
        assert verdict.accepted, verdict
        steps += [step, *verdict.then]
    return steps, len(follower.completed)


def moves_of(steps: list[Step]) -> list[list[Step]]:
    """The steps cut into turns (a turn ends with end_turn, extra_turn or pass)."""
    turns: list[list[Step]] = [[]]
    for step in steps:
        turns[-1].append(step)
        if step.kind in TURN_ENDS:
            turns.append([])
    return [t for t in turns if t]


def test_every_relay_capture_extra_turn_and_pass_of_a_congkak_game_is_explained(
    tmp_path: Path,
) -> None:
    board = Board(make_config(tmp_path, game={"mode": "teach"}))
    seen: dict[int, dict[str, Any]] = {}
    try:
        board.ready()
        play_whole_game(board, seen)
        steps, completed = with_turn_ends(board)
    finally:
        board.stop()
    shown = Counter(e["kind"] for e in seen.values())
    kinds = Counter(s.kind for s in steps)
    # Counted from the steps, not as ruleevents.py does: every pickup but a move's first is a
    # relay; a turn with captures is one capture; extra turns and passes are steps of their own.
    assert shown["relay"] == kinds[StepKind.PICKUP] - completed
    assert shown["capture"] == sum(
        any(s.kind is StepKind.CAPTURE for s in turn) for turn in moves_of(steps)
    )
    assert shown["extra_turn"] == kinds[StepKind.EXTRA_TURN]
    assert shown["pass"] == kinds[StepKind.PASS]
    assert shown["relay"] > 0 and shown["capture"] > 0, shown  # the game had them to explain
    # Each event as the page tells it, in both languages.
    for event in seen.values():
        for lang in i18n.LANGUAGES:
            key = f"explain_{event['kind']}" + (f"_{event['rule']}" if event["rule"] else "")
            assert key in i18n.STRINGS[lang], (lang, key)
    print(f"congkak 7 teach game: {len(steps)} steps, {completed} moves, events {dict(shown)}")


def test_a_run_of_captures_is_one_event_and_a_relay_is_a_pickup_mid_move() -> None:
    steps = [
        Step.pickup(0, Place(0, 1)),
        Step.sow(0, Place(0, 2)),
        Step.pickup(0, Place(0, 2)),  # relay
        Step.sow(0, Place(0, 3)),
        Step.capture(0, Place(0, 3)),
        Step.capture(0, Place(1, 3)),
        Step(StepKind.END_TURN, 0),
        Step.pickup(1, Place(1, 0)),  # a new move: no relay
        Step.sow(1, Place(1, "store")),
        Step(StepKind.EXTRA_TURN, 1),
        Step.pickup(1, Place(1, 2)),  # the extra turn's move: no relay
        Step.sow(1, Place(1, 3)),
        Step(StepKind.END_TURN, 1),
        Step(StepKind.PASS, 0),
        Step.sweep(1, Place(1, 4), 1),
        Step.sweep(1, Place(1, 5), 1),
    ]
    events = rule_events(steps, "opposite")
    assert [(e["n"], e["kind"], e["player"], e["places"]) for e in events] == [
        (2, "relay", 0, 1),
        (4, "capture", 0, 2),
        (9, "extra_turn", 1, 1),
        (13, "pass", 0, 1),
        (14, "sweep", 1, 2),
    ]
    assert events[1]["at"] == [0, 3] and events[1]["rule"] == "opposite"


def test_an_oware_move_that_would_take_every_opposing_seed_is_explained_as_a_grand_slam() -> None:
    rules = Rules.for_variant("oware", {})
    slam_allowed = Rules.for_variant("oware", {"grand_slam": "allowed"})
    found = 0
    for seed in range(12):
        rng = random.Random(seed)
        follower = StepFollower.new(rules)
        steps: list[Step] = []
        slams = 0
        while not follower.over:
            player = follower.to_move
            assert player is not None
            pit = rng.choice([s.at.pit for s in follower.expected() if s.at is not None])
            # Independently: the same move where grand slams are allowed takes every seed of
            # the other row, and here (no_capture) it takes none.
            board = list(follower.board)
            slam_allowed.apply_move(board, player, int(pit))
            before = sum(follower.position().stores)
            steps += follower.complete_move(int(pit))
            took_all = slam_allowed.row_total(board, 1 - player) == 0
            captured = sum(follower.position().stores) > before
            slams += took_all and not captured and not follower.over
        physical = [s for s in steps if s.kind.physical]
        events = Explainer().get_status(rules, physical)
        shown = [e for e in rule_events_all(rules, physical) if e["kind"] == "grand_slam"]
        assert len(shown) == slams, (seed, shown, slams)
        assert all(e in shown for e in events if e["kind"] == "grand_slam")
        found += slams
    assert found > 0  # the games had grand slams to explain
    assert "explain_grand_slam" in i18n.STRINGS["ja"]


def rule_events_all(rules: Rules, physical: list[Step]) -> list[dict[str, Any]]:
    """Every event of a game, not only the newest a snapshot holds."""
    explainer = Explainer()
    seen: dict[int, dict[str, Any]] = {}
    for k in range(1, len(physical) + 1):
        for event in explainer.get_status(rules, physical[:k]):
            seen[event["n"]] = dict(event)
    return list(seen.values())
