"""Batch playouts (controller/engine/batch.py) against the per-move rules engine.

Every batch game records its moves; replayed one by one through `Game`, they must be legal and
end in exactly the batch's final position, winner and reason, for every preset and random
option mixes. `SOWBOARD_ENGINE_GAMES` multiplies the games (the suite keeps them few for speed).
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.engine import batch as batch_module
from controller.engine.batch import DRAW, TERMINATIONS, BatchResult, BatchRules
from controller.rules import Game, Rules

from ..test_rules_properties import PRESETS, option_sets

SCALE = int(os.environ.get("SOWBOARD_ENGINE_GAMES", "1"))


def assert_same_as_game(rules: Rules, starts: list[Game], result: BatchResult) -> None:
    """Each start game, played on with the batch's recorded moves, ends as the batch says."""
    assert result.played is not None
    for k, game in enumerate(starts):
        for pit in result.played[k]:
            game.play(pit)  # IllegalMoveError if the batch played an illegal move
        outcome = game.outcome
        assert outcome is not None, f"game {k}: the batch ended it, the rules did not"
        assert result.boards[k, : rules.size].tolist() == game.board, f"game {k}"
        assert result.winners[k] == (DRAW if outcome.winner is None else outcome.winner)
        assert TERMINATIONS[result.terminations[k]] is outcome.termination
        assert result.moves[k] == len(result.played[k])


def play_from_start(rules: Rules, games: int, seed: int) -> None:
    batch = BatchRules(rules)
    result = batch.playouts(
        batch.start_boards(games), np.zeros(games, np.int8), seed=seed, record=True
    )
    assert_same_as_game(rules, [Game(rules) for _ in range(games)], result)


@pytest.mark.parametrize(("variant", "options"), PRESETS)
def test_every_preset_plays_the_rules_exactly(variant: str, options: dict[str, Any]) -> None:
    # 9 presets x 300 games: thousands of random games in all.
    play_from_start(Rules.for_variant(variant, options), 300 * SCALE, seed=7)


@settings(max_examples=40 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option_sets(), st.integers(0, 2**32))
def test_random_option_mixes_play_the_rules_exactly(
    config: tuple[str, dict[str, Any]], seed: int
) -> None:
    variant, options = config
    play_from_start(Rules.for_variant(variant, options), 12, seed)


@settings(max_examples=25 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option_sets(), st.integers(0, 2**32))
def test_playouts_from_positions_in_mid_game(config: tuple[str, dict[str, Any]], seed: int) -> None:
    """Starts are positions of random games, each side to move: each a `Game` from there."""
    variant, options = config
    rules = Rules.for_variant(variant, options)
    rng = random.Random(seed)
    starts: list[Game] = []
    for _ in range(10):
        game = Game(rules)
        for _ in range(rng.randrange(12)):
            if game.over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.over:
            starts.append(Game(rules, start=game.position()))
    if not starts:
        return
    batch = BatchRules(rules)
    boards = batch.boards_from([game.board for game in starts])
    to_move = np.array([game.to_move for game in starts])
    result = batch.playouts(boards, to_move, seed=seed, record=True)
    assert_same_as_game(rules, starts, result)


def test_long_histories_are_finished_by_the_rules_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Oware games that go many moves without a capture leave the batch for `Game`, with their
    history (a short limit here, so that many do)."""
    monkeypatch.setattr(batch_module, "HISTORY", 4)
    # oware's keys are one word; 7 pits of 6 seeds need several.
    mixes = (("oware", {}), ("kalah", {"cycle": "split_own"}), ("oware", {"pits": 7, "seeds": 6}))
    for variant, options in mixes:
        play_from_start(Rules.for_variant(variant, options), 100, seed=3)


def test_a_finished_game_cannot_be_played_out() -> None:
    rules = Rules.for_variant("kalah")
    batch = BatchRules(rules)
    board = [0] * 6 + [18] + [3] * 6 + [0]
    with pytest.raises(ValueError, match="no legal move"):
        batch.playouts(batch.boards_from([board]), np.zeros(1, np.int8))


def test_more_seeds_than_the_tables_know_are_refused() -> None:
    rules = Rules.for_variant("kalah")
    board = [4] * 6 + [0] + [4] * 6 + [0]
    with pytest.raises(ValueError, match="seeds_in_game"):
        BatchRules(rules).playouts(BatchRules(rules).boards_from([board]), np.zeros(1, np.int8))
    result = BatchRules(rules, 48).playouts(
        BatchRules(rules, 48).boards_from([board]), np.zeros(1, np.int8), seed=1
    )
    assert int(result.boards[0].sum()) == 48
