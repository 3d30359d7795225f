"""The computer player (controller/engine/search.py): always a legal move, levels that mean
something, and the budget kept."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.engine.search import LEVELS, _AlphaBeta, best_move, hint, think
from controller.rules import Game, Position, Rules

from ..rules_helpers import position
from ..test_rules_properties import option_sets


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option_sets(), st.integers(0, 2**32), st.sampled_from(sorted(LEVELS)))
def test_the_move_is_always_legal(
    config: tuple[str, dict[str, Any]], seed: int, level: int
) -> None:
    """Every option set, closed pits and end rules included, at random points of a game."""
    variant, options = config
    rules = Rules.for_variant(variant, options)
    rng = random.Random(seed)
    game = Game(rules)
    while not game.over and rng.random() < 0.9:
        pit = best_move(game.position(), rules, level, budget_s=0.01, seed=seed)
        assert pit in game.legal_moves()
        game.play(pit)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option_sets(), st.integers(0, 2**32))
def test_the_searchs_moves_are_the_rules_moves(
    config: tuple[str, dict[str, Any]], seed: int
) -> None:
    """The search's own single-lap sowing (`_single_lap`) and its move list for captures and
    extra turns (`_noisy`) agree with `Rules` on every legal move of random games."""
    variant, options = config
    rules = Rules.for_variant(variant, options)
    search = _AlphaBeta(rules, time.perf_counter() + 60, sum(rules.start_board()))
    rng = random.Random(seed)
    game = Game(rules)
    while not game.over:
        board, player = list(game.board), game.to_move
        assert player is not None
        legal = rules.legal_moves(board, player)
        if search.foretell:
            assert set(search._noisy(board, player)) <= set(legal)
        for pit in legal:
            expected, mine = list(board), list(board)
            extra = rules.apply_move(expected, player, pit)
            if search.single:
                assert search._single_lap(mine, player, pit) == extra
                assert mine == expected
        game.play(rng.choice(legal))


def test_a_whole_game_of_every_level_against_every_other_is_legal() -> None:
    rules = Rules.for_variant("congkak", {"pits": 5, "closed": [[1, 2]]})
    for strong in LEVELS:
        game = Game(rules)
        while not game.over:
            level = strong if game.to_move == 0 else 6 - strong
            game.play(best_move(game.position(), rules, level, budget_s=0.005, seed=game.ply))


def play(
    rules: Rules, levels: tuple[int, int], budget_s: float, seed: int, max_nodes: int | None = None
) -> int | None:
    """One game between two levels (player 0 plays levels[0]); the winner."""
    game = Game(rules)
    while game.outcome is None:
        assert game.to_move is not None
        level = levels[game.to_move]
        position = game.position()
        game.play(
            best_move(position, rules, level, budget_s, seed=seed + game.ply, max_nodes=max_nodes)
        )
    return game.outcome.winner


@pytest.mark.parametrize("strong", [3, 5])
def test_a_stronger_level_beats_level_1_in_congkak(strong: int) -> None:
    """The bench (`sowboard bench opponent`) measures this over many games; here a few.

    The searches stop at a number of nodes, not at a time that never runs out: the same games
    however loaded the machine is (a 0.02 s budget let a busy machine cut level 3 short)."""
    rules = Rules.for_variant("congkak")
    wins = 0
    for g in range(4):
        side = g % 2
        levels = (strong, 1) if side == 0 else (1, strong)
        wins += play(rules, levels, budget_s=60.0, seed=g, max_nodes=10_000) == side
    assert wins >= 3


def test_a_node_limited_search_is_repeatable() -> None:
    """Same position, same node limit: the same move and score, whatever else ran before."""
    rules = Rules.for_variant("kalah")
    game = Game(rules)
    game.play_all([2, 5])
    first = think(game.position(), rules, 5, budget_s=60.0, max_nodes=5000)
    think(Position.start(rules), rules, 5, budget_s=0.05)  # fills level 5's kept table
    again = think(game.position(), rules, 5, budget_s=60.0, max_nodes=5000)
    assert (again.pit, again.score, again.depth) == (first.pit, first.score, first.depth)
    assert 5000 <= first.nodes < 10_000
    assert first.elapsed_s < 30


def test_the_hint_takes_the_big_capture() -> None:
    """Kalah: pit 0's single seed lands in the empty pit 1, opposite 12 seeds (pit 2 would
    only feed the opponent)."""
    rules = Rules.for_variant("kalah")
    start = position([1, 0, 5, 0, 0, 0], [0, 0, 0, 0, 12, 1], stores=(10, 11))
    assert hint(start, rules, budget_s=0.2) == 0
    assert think(start, rules, 5, 0.2).score > 0


def test_the_budget_is_kept() -> None:
    rules = Rules.for_variant("oware")
    started = time.perf_counter()
    thought = think(Position.start(rules), rules, 5, budget_s=0.1)
    assert time.perf_counter() - started < 0.3
    assert thought.depth >= 2


def test_no_move_without_a_player_to_move() -> None:
    rules = Rules.for_variant("congkak", {"simultaneous_opening": True})
    with pytest.raises(ValueError, match="nobody is to move"):
        best_move(Position.start(rules), rules)
    with pytest.raises(ValueError, match="levels are 1 to 5"):
        best_move(Position.start(Rules.for_variant("kalah")), Rules.for_variant("kalah"), 6)
