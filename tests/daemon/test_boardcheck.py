"""Checking a board against the saved position by weight (after a restart, an undo, a new
game): natural seeds vary 15-25 % in mass, so a place is only called wrong when its weight is
further off than the seeds' own spread explains (HARDWARE.md)."""

from __future__ import annotations

import random

from controller.board import find_board
from controller.daemon.boardcheck import DEFAULT_CV, check_board, estimate_seed_g, place_counts
from controller.rules import Place, Position, Rules

RULES = Rules.for_variant("congkak")
MAPPING = find_board("congkak7").mapping(7)
POSITION = Position(((4, 0, 9, 7, 7, 1, 12), (7, 7, 3, 7, 0, 8, 7)), (20, 7), 0)
COUNTS = place_counts(RULES, POSITION)


def weigh(counts: dict[Place, int], cv: float, seed: int) -> list[float | None]:
    """What each cell reads with seeds of mean 5 g and spread `cv` (natural seeds)."""
    rng = random.Random(seed)
    levels: list[float | None] = [0.0] * 16
    for place, count in counts.items():
        levels[MAPPING.cell_of[place]] = sum(
            max(0.5, rng.gauss(5.0, 5.0 * cv)) for _ in range(count)
        )
    return levels


def test_a_board_of_natural_seeds_that_is_right_is_never_called_wrong() -> None:
    for seed in range(200):
        levels = weigh(COUNTS, 0.20, seed)
        seed_g = estimate_seed_g(levels, MAPPING, COUNTS)
        assert seed_g is not None
        assert check_board(levels, MAPPING, COUNTS, seed_g, DEFAULT_CV) == [], seed


def test_seeds_missing_from_a_pit_and_piled_in_another_are_named() -> None:
    wrong = dict(COUNTS)
    wrong[Place(0, 2)] = 5  # four of nine seeds were taken out
    wrong[Place(1, 0)] = 11  # and put here
    for seed in range(50):
        levels = weigh(wrong, 0.20, seed)
        found = check_board(levels, MAPPING, COUNTS, seed_g=5.0, cv=DEFAULT_CV)
        assert [(c.place, c.how, c.expected) for c in found] == [
            (Place(0, 2), "too_few", 9),
            (Place(1, 0), "too_many", 7),
        ]
    assert found[0].detail().startswith("9 expected, the scale reads about ")


def detected(cv: float, trials: int = 200) -> float:
    """How often one seed too many in a store of 20 is noticed."""
    plus_one = dict(COUNTS)
    plus_one[Place(0, "store")] = 21
    hits = sum(
        bool(check_board(weigh(plus_one, cv, seed), MAPPING, COUNTS, 5.0, cv=cv))
        for seed in range(trials)
    )
    return hits / trials


def test_one_seed_more_in_a_full_store_counts_only_when_the_seeds_are_alike() -> None:
    """20 natural seeds weigh 20 +- 1.1 seeds: one more can hardly be told by weight (so it is
    not called wrong, which would be a false alarm most of the time); 20 glass marbles
    (CV 3 %) weigh 20 +- 0.13 seeds, and one more is noticed nearly always."""
    assert detected(0.25) < 0.05
    assert detected(0.03) > 0.6
