"""Property tests (hypothesis) of the rules engine, over presets and random option sets.

RULES.md 2: the step list of a move, replayed one step at a time, must give exactly what
whole-move play gives; RULES.md 4: every step conserves seeds; games end.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import (
    Game,
    Mistake,
    Phase,
    Place,
    Rules,
    Step,
    StepFollower,
    StepKind,
    find_variant,
)

from .rules_helpers import state

PRESETS: list[tuple[str, dict[str, Any]]] = [
    ("congkak", {}),
    ("congkak", {"pits": 5}),
    ("congkak", {"pits": 9}),
    ("congkak", {"pits": 7, "closed": [[0, 3], [1, 3]]}),
    ("kalah", {}),
    ("kalah", {"seeds": 4, "capture_requires_opposite": True, "end_sweep": "owner"}),
    ("oware", {}),
    ("oware", {"grand_slam": "allowed"}),
    ("oware", {"grand_slam": "forbidden"}),
]


@st.composite
def option_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A preset, or a random but valid mix of options on top of one."""
    if draw(st.booleans()):
        return draw(st.sampled_from(PRESETS))
    variant = draw(st.sampled_from(["kalah", "oware"]))
    pits = draw(st.integers(1, 7))
    sow_own_store = draw(st.booleans())
    options: dict[str, Any] = {
        "pits": pits,
        "seeds": draw(st.integers(1, 6)),
        "sow_own_store": sow_own_store,
        "laps": draw(st.sampled_from(["single", "relay"])) if sow_own_store else "single",
        "extra_turn": draw(st.booleans()),
        # Without a store to sow, seeds leave the pits only by capture; with none a game is
        # finite (the cycle rule) but can wander through more positions than a test can wait.
        "capture": draw(
            st.sampled_from(["opposite", "counts", "none"] if sow_own_store else ["counts"])
        ),
        "capture_requires_opposite": draw(st.booleans()),
        "capture_counts": draw(st.sampled_from([[2, 3], [4], [1, 2], [3]])),
        "grand_slam": draw(st.sampled_from(["no_capture", "forbidden", "allowed"])),
        "skip_origin": draw(st.booleans()),
        "must_feed": draw(st.booleans()),
        "no_move": draw(st.sampled_from(["pass", "end"])),
        "end": draw(st.sampled_from(["all_pits_empty", "side_empty", "majority"])),
        "end_sweep": draw(st.sampled_from(["owner", "emptier", "none"])),
        # Without seeds going to a store, only the cycle rule guarantees an end.
        "cycle": "split_own" if not sow_own_store else draw(st.sampled_from(["split_own", "none"])),
    }
    if pits > 1 and draw(st.booleans()):
        player = draw(st.integers(0, 1))
        options["closed"] = [[player, draw(st.integers(0, pits - 1))]]
    return variant, options


def _random_game_positions(variant: str, options: dict[str, Any], seed: int, limit: int = 400):  # type: ignore[no-untyped-def]
    """Yield (game, move) along a random game, before each move is played."""
    rng = random.Random(seed)
    game = Game(variant, options)
    for _ in range(limit):
        if game.over:
            return
        move = rng.choice(game.legal_moves())
        yield game, move
        game.play(move)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(option_sets(), st.integers(0, 2**32))
def test_step_list_replayed_step_by_step_equals_whole_move_play(
    config: tuple[str, dict[str, Any]], seed: int
) -> None:
    variant, options = config
    for game, move in _random_game_positions(variant, options, seed):
        steps = game.steps(move)
        follower = StepFollower.from_game(game)
        total = game.position().total
        for step in steps:
            verdict = follower.feed(step)
            assert verdict.accepted, (step, verdict.reason)
            assert follower.position().total == total  # RULES.md 4: seeds conserved by every step
        after = game.copy()
        after.play(move)
        assert state(follower) == state(after)
        assert follower.position() == after.position()


@SETTINGS
@given(option_sets(), st.integers(0, 2**32))
def test_random_games_always_end(config: tuple[str, dict[str, Any]], seed: int) -> None:
    variant, options = config
    game = Game(variant, options)
    total = game.position().total
    rng = random.Random(seed)
    for _ in range(20000):
        if game.over:
            break
        game.play(rng.choice(game.legal_moves()))
    assert game.over
    assert game.outcome is not None
    s0, s1 = game.stores()
    assert game.outcome.winner == (0 if s0 > s1 else 1 if s1 > s0 else None)
    # With an end sweep every seed ends in a store; without one, seeds may stay in pits.
    assert sum(game.stores()) + sum(game.pits(0)) + sum(game.pits(1)) == total


@SETTINGS
@given(option_sets(), st.integers(0, 2**32))
def test_random_playout_fast_path_equals_move_by_move_play(
    config: tuple[str, dict[str, Any]], seed: int
) -> None:
    variant, options = config
    fast = Game(variant, options)
    moves = fast.random_playout(random.Random(seed).random)
    slow = Game(variant, options)
    rng = random.Random(seed)
    played = 0
    while not slow.over:
        legal = slow.legal_moves()
        slow.play(legal[int(rng.random() * len(legal))])
        played += 1
    assert moves == played
    assert state(fast) == state(slow)


def _snapshot(follower: StepFollower) -> tuple[Any, ...]:
    hands = tuple(
        (h.phase, h.seeds, h.sequence, h.sown, h.relay_at, tuple(h.pending)) for h in follower.hands
    )
    return (tuple(follower.board), follower.to_move, hands, tuple(follower.pending_sweeps))


def _all_steps(rules: Rules, player: int) -> list[Step]:
    """Every physical step a hand could try anywhere on the board."""
    places = [Place(p, i) for p in (0, 1) for i in range(rules.n)]
    places += [Place(0, "store"), Place(1, "store")]
    steps = [
        Step(kind, player, at)
        for at in places
        for kind in (StepKind.PICKUP, StepKind.SOW, StepKind.CAPTURE)
    ]
    steps += [Step.sweep(player, at, to) for at in places if not at.is_store for to in (0, 1)]
    return steps


@SETTINGS
@given(st.sampled_from(PRESETS), st.integers(0, 2**32))
def test_follower_accepts_exactly_the_expected_steps_and_a_rejection_changes_nothing(
    config: tuple[str, dict[str, Any]], seed: int
) -> None:
    variant, options = config
    rules = Rules.for_variant(variant, options)
    follower = StepFollower.new(rules)
    rng = random.Random(seed)
    for _ in range(150):
        if follower.over:
            break
        expected = follower.expected()
        player = rng.choice(follower.active_players() or [0])
        candidates = _all_steps(rules, player)
        for step in rng.sample(candidates, 12):
            before = _snapshot(follower)
            ok = any(
                step.kind is e.kind
                and step.at == e.at
                and step.to_player == e.to_player
                and (step.player == e.player or step.kind is StepKind.SWEEP)
                for e in expected
            )
            verdict = follower.feed(step)
            assert verdict.accepted == ok, (step, verdict.reason)
            if not ok:
                assert _snapshot(follower) == before
                assert verdict.mistake is not None and verdict.reason
                assert list(verdict.expected) == expected
                continue
            break
        else:
            assert follower.feed(rng.choice(expected)).accepted


def test_follower_names_a_wrong_place_a_second_seed_and_a_wrong_pickup() -> None:
    """The three hand mistakes the board must flag (issue 2), on kalah's opening move."""
    follower = StepFollower.new(Rules.for_variant("kalah"))
    assert follower.feed(Step.pickup(0, Place(0, 1))).accepted
    assert follower.feed(Step.sow(0, Place(0, 2))).accepted
    second = follower.feed(Step.sow(0, Place(0, 2)))
    assert (second.accepted, second.mistake) == (False, Mistake.SECOND_SEED)
    assert second.expected == (Step.sow(0, Place(0, 3)),)
    wrong = follower.feed(Step.sow(0, Place(1, 0)))
    assert (wrong.accepted, wrong.mistake) == (False, Mistake.WRONG_PLACE)
    pickup = follower.feed(Step.pickup(0, Place(0, 5)))
    assert (pickup.accepted, pickup.mistake) == (False, Mistake.WRONG_PICKUP)
    # After the rejections the hand carries on where it was.
    assert follower.feed(Step.sow(0, Place(0, 3))).accepted
    assert follower.feed(Step.sow(0, Place(0, 4))).accepted
    # Pit 4 held seeds and kalah has single laps: the turn passes to player 1.
    assert follower.to_move == 1
    assert follower.hands[1].phase is Phase.START


def test_follower_flags_a_seed_in_the_opponents_store_and_a_wrong_start() -> None:
    follower = StepFollower.new(Rules.for_variant("kalah"))
    start = follower.feed(Step.pickup(1, Place(1, 0)))
    assert (start.accepted, start.mistake) == (False, Mistake.NOT_YOUR_TURN)
    assert follower.feed(Step.pickup(0, Place(0, 5))).accepted
    for at in (Place(0, "store"), Place(1, 0)):
        assert follower.feed(Step.sow(0, at)).accepted
    store = follower.feed(Step.sow(0, Place(1, "store")))
    assert (store.accepted, store.mistake) == (False, Mistake.OPPONENT_STORE)
    empty = StepFollower.from_game(_after(Game("kalah"), [5, 0]))
    wrong_start = empty.feed(Step.pickup(0, Place(0, 5)))  # empty pit
    assert (wrong_start.accepted, wrong_start.mistake) == (False, Mistake.WRONG_START)


def _after(game: Game, moves: list[int]) -> Game:
    game.play_all(moves)
    return game


def test_bookkeeping_steps_may_be_fed_but_only_where_they_follow() -> None:
    follower = StepFollower.new(Rules.for_variant("kalah"))
    verdict = follower.feed(Step.pickup(0, Place(0, 3)))
    for at in (Place(0, 4), Place(0, 5)):
        follower.feed(Step.sow(0, at))
    last = follower.feed(Step.sow(0, Place(0, "store")))
    assert last.then == (Step(StepKind.EXTRA_TURN, 0),)
    assert not follower.feed(Step(StepKind.END_TURN, 0)).accepted
    assert follower.feed(Step(StepKind.EXTRA_TURN, 0)).accepted
    assert verdict.accepted


def test_variant_presets_are_listed() -> None:
    assert find_variant("congkak").options().laps == "relay"


@SETTINGS
@given(st.integers(0, 2**32), st.sampled_from([5, 7]))
def test_simultaneous_opening_only_ever_expects_steps_a_board_can_see(seed: int, pits: int) -> None:
    """RULES.md 3 congkak 「同時進行」: whatever order the two hands' steps come in, every step
    the follower expects moves seeds (no pickup or capture of an empty pit), and seeds are
    conserved; the opening always ends in normal turns or the game's end."""
    rules = Rules.for_variant("congkak", {"pits": pits, "simultaneous_opening": True})
    follower = StepFollower.new(rules)
    total = follower.position().total
    rng = random.Random(seed)
    for _ in range(2000):
        if not follower.opening:
            break
        expected = follower.expected()
        for step in expected:
            if step.kind in (StepKind.PICKUP, StepKind.CAPTURE) and step.at is not None:
                assert follower.board[rules.index_of(step.at)] > 0, step
        assert follower.feed(rng.choice(expected)).accepted
        assert follower.position().total == total
    assert not follower.opening
