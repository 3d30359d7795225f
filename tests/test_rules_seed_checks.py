"""RULES.md section 4: the checks taken from the seed texts."""

from __future__ import annotations

import pytest

from controller.rules import Game, Place, Rules, StepFollower, StepKind

from .rules_helpers import game_at, kinds, places


@pytest.mark.parametrize("pits", [5, 7, 9])
def test_congkak_first_move_from_the_rightmost_pit_ends_in_own_store(pits: int) -> None:
    """Seed congkak-rules-ja.txt: 「先攻が自分の陣地の一番右の田から始めた場合、1回目の動きで(A)になる」.

    Own pit 0 is the rightmost (RULES.md 1); (A) 「自分の母屋でちょうど配り終わったら、
    もう一度同じプレイヤーが手番を繰り返す」.
    """
    game = Game("congkak", {"pits": pits})
    steps = game.steps(0)
    sows = places(steps, StepKind.SOW)
    assert sows[-1] == Place(0, "store")
    assert kinds(steps).count("pickup") == 1  # no relay
    assert steps[-1].kind is StepKind.EXTRA_TURN
    game.play(0)
    assert game.to_move == 0
    assert game.stores() == (1, 0)


@pytest.mark.parametrize("pits", [5, 7, 9])
def test_congkak_first_move_elsewhere_relays_once_then_captures_in_its_own_pit(pits: int) -> None:
    """Seed: 「一番右以外の田から始めた場合、(B)が1回あったあとで(C)になる」.

    (B) relay: last seed in a pit that already held seeds; (C) last seed in an own empty pit:
    that seed and the opposite pit go to the store, the turn ends.
    """
    for start in range(1, pits):
        steps = Game("congkak", {"pits": pits}).steps(start)
        pickups = places(steps, StepKind.PICKUP)
        assert len(pickups) == 2, f"start {start}: one relay expected, got pickups {pickups}"
        assert pickups[1].player == 1  # the relay pit is the opponent's (the last seed crossed)
        captured = places(steps, StepKind.CAPTURE)
        assert captured[0] == Place(0, start), f"start {start}: capture in the origin pit"
        assert captured[1] == Place(1, pits - 1 - start)  # and the opposite pit
        assert steps[-1].kind is StepKind.END_TURN


@pytest.mark.parametrize("variant", ["congkak", "kalah", "oware"])
def test_every_step_conserves_seeds_on_a_full_game(variant: str) -> None:
    """RULES.md 4: pits + stores + hand = total after every step (a whole game, step by step)."""
    follower = StepFollower.new(Rules.for_variant(variant))
    total = follower.position().total
    steps = 0
    while not follower.over:
        expected = follower.expected()
        # Vary the choice of move so that the game is not always the same line.
        follower.feed(expected[steps % len(expected)])
        steps += 1
        assert follower.position().total == total
    assert steps > 20


def test_oware_lap_of_twelve_or_more_never_drops_a_seed_in_its_origin() -> None:
    """Seed mancala-wikipedia-ja.txt, Oware: 「撒く石の数が12個以上なら…その元の穴には石を入れずに
    飛ばして次の穴から撒き続ける」."""
    for seeds in range(11, 40):
        game = game_at("oware", [seeds, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], stores=(0, 0))
        steps = game.steps(0)
        assert Place(0, 0) not in places(steps, StepKind.SOW), f"{seeds} seeds"
        game.play(0)
        assert game.pits(0)[0] == 0


def test_oware_seventeen_seeds_skip_the_origin_and_capture_where_they_end() -> None:
    # 17 = the 11 other pits once, then 6 more: own pits 1-5 and the opponent's pit 0 (now 2).
    game = game_at("oware", [17, 0, 0, 0, 0, 0], [0, 1, 1, 1, 1, 1])
    game.play(0)
    assert game.pits(0) == (0, 2, 2, 2, 2, 2)
    assert game.pits(1) == (0, 2, 2, 2, 2, 2)  # pit 0 reached 2 and was captured
    assert game.stores() == (2, 0)


def test_oware_grand_slam_captures_nothing() -> None:
    """Seed: 「これで敵陣の全ての穴の石が取れてしまったら、このラップでの取りはなかったことになる」."""
    # 3 seeds from pit 4: own pit 5, then the opponent's pits 0 (1->2) and 1 (2->3): both would
    # be captured, and they are every seed the opponent has.
    game = game_at("oware", [0, 0, 0, 0, 3, 0], [1, 2, 0, 0, 0, 0])
    game.play(4)
    assert game.pits(1) == (2, 3, 0, 0, 0, 0)
    assert game.stores() == (0, 0)
    assert game.to_move == 1
