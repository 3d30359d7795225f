"""What a seed weighs: the mean mass from the start layout, the spread learned from the game.

Seeds are counted by weight (HARDWARE.md), so every judgement of the referee comes down to how
many seeds a change of a cup's weight can be. The mean seed mass is taken once, from the start
layout at rest (`estimate_seed_mass`: every seed of the board over every cell's weight). The
spread of single seed masses (CV: 3 % for glass marbles, 15 % for natural seeds) is learned as
seeds land one by one, weighed against the start layout's estimate, and sets every bound:

- a landing is one seed between `lightest` (4.5 spreads below one seed, never under MIN_SEED)
  and `two_at` (4.5 spreads above, never under 1.5): a heavy natural seed is almost never
  taken for two (an extra seed is the rare case, and still shows when it is taken back);
- k seeds weigh k within 0.1 + 3 spreads * sqrt(k) (`whole`), the spread of their sum.

>>> seeds = SeedWeights(seed_g=5.0, start_cv=0.03)
>>> seeds.count(10.2), seeds.landed(seeds.count(5.3)), seeds.landed(seeds.count(9.0))
(2.04, 1, 2)
>>> for grams in (4.0, 6.0) * 10:   # natural seeds landing: the spread is learned, and a
...     seeds.seen(grams)          # seed of 9 g is one heavy seed now, not two
>>> round(seeds.cv(), 3), seeds.landed(seeds.count(9.0)), seeds.landed(seeds.count(10.2))
(0.147, 1, 2)
"""

from __future__ import annotations

import math

from controller.board import BoardMapping
from controller.rules import Place, Position, Rules

# A single natural seed weighs at least this many mean seeds (CV 15 %: 4 sigma below the mean;
# HARDWARE.md). Two seeds are told from one heavy seed by `SeedWeights.two_at`.
MIN_SEED = 0.35
PRIOR_SEEDS = 20  # what the start layout's seed spread counts for against seeds seen
KEEP = 400  # single seed masses kept (the last ones: a game's seeds, a few times over)


class SeedWeights:
    """The mean seed mass, and the masses of seeds seen landing one by one with their spread.

    The referee reads the spread for nearly every change it judges, many times a frame: it is
    worked out once after each change of the masses, not on each reading."""

    def __init__(self, seed_g: float, start_cv: float) -> None:
        self.seed_g = seed_g
        self.start_cv = start_cv
        self.masses: list[float] = []
        self._cv: float | None = None  # `cv()`, None: to be worked out again

    # -- the seeds seen ---------------------------------------------------------------------------

    def seen(self, grams: float) -> None:
        """A single seed landed weighing `grams`."""
        if len(self.masses) >= KEEP:
            del self.masses[: KEEP // 2]
        self.masses.append(grams)
        self._cv = None

    def last(self) -> float | None:
        return self.masses[-1] if self.masses else None

    def correct_last(self, grams: float) -> None:
        self.masses[-1] = grams
        self._cv = None

    def drop_last(self) -> None:
        self.masses.pop()
        self._cv = None

    # -- how many seeds a weight is -----------------------------------------------------------------

    def count(self, grams: float) -> float:
        """`grams` in mean seeds."""
        return grams / self.seed_g

    def empty(self, level_g: float) -> bool:
        """A pit reads empty (its zero is re-taken every time it is emptied)."""
        return level_g < MIN_SEED * self.seed_g

    def cv(self) -> float:
        """Spread of seed masses: from the seeds seen landing one by one, weighed against
        the start layout's estimate as if that were PRIOR_SEEDS seeds (twenty seeds alone
        can give half the true spread, and a spread too small calls heavy seeds two)."""
        if self._cv is None:
            n = len(self.masses)
            if n < 5:
                self._cv = self.start_cv
            else:
                seen = _cv2(self.masses)
                cv2 = (n * seen + PRIOR_SEEDS * self.start_cv**2) / (n + PRIOR_SEEDS)
                self._cv = max(0.03, min(0.3, math.sqrt(cv2)))
        return self._cv

    def cv_bound(self) -> float:
        """The spread of seed masses, at its upper confidence bound once measured (the
        spread of a few dozen seeds can be 15 % low by chance)."""
        cv = self.cv()
        n = len(self.masses)
        return cv * (1 + 1.5 / math.sqrt(2 * n)) if n >= 20 else cv

    def two_at(self) -> float:
        """A landing this heavy (in mean seeds) is two seeds, not one heavy seed."""
        return max(1.5, 1 + 4.5 * self.cv_bound())

    def lightest(self) -> float:
        """A landing lighter than this (in mean seeds) is no seed: fingers brushing the cup
        and settling for a moment."""
        return max(MIN_SEED, 1 - 4.5 * self.cv_bound())

    def one(self, n: float) -> bool:
        """Is a landing of `n` mean seeds one seed?"""
        return self.lightest() <= n < self.two_at()

    def landed(self, n: float) -> int:
        """Seeds in a landing of `n` mean seeds."""
        if n < self.lightest():
            return 0
        return 1 if n < self.two_at() else max(2, round(n))

    def tolerance(self, count: int) -> float:
        """How far (in mean seeds) the weight of `count` seeds may stray from `count`."""
        return 0.5 + 3 * self.cv() * math.sqrt(count)

    def whole(self, n: float) -> bool:
        """Could a net change of `n` mean seeds be seeds at all (a whole number of them)?"""
        k = max(1, round(n))
        return abs(n - k) <= 0.1 + 3 * self.cv() * math.sqrt(k)

    def plausible(self, n: float) -> bool:
        """A landing of `n` mean seeds may be one seed: any lighter than a mean seed (natural
        seeds can weigh half the mean), a heavier one only if it is not between one seed and
        two (a finger on the cup reads like that)."""
        return n <= 1.0 or self.whole(n)

    def one_for_one(self, n: float) -> bool:
        """Could a net change of `n` mean seeds be one seed taken and another put? Natural
        seeds differ: the difference of two has a spread of cv * sqrt(2) seeds."""
        return abs(n) < min(1 - MIN_SEED, max(MIN_SEED, 3 * self.cv() * math.sqrt(2)))


def _cv2(masses: list[float]) -> float:
    """The squared sample spread of `masses` (at least two)."""
    n = len(masses)
    mean = sum(masses) / n
    return sum((m - mean) ** 2 for m in masses) / (n - 1) / mean**2


def estimate_seed_mass(
    rules: Rules, mapping: BoardMapping, levels_g: list[float], position: Position
) -> float:
    """Mean seed mass from a board at rest holding `position` (the start layout, usually)."""
    total_g = 0.0
    seeds = 0
    for p in (0, 1):
        for i, count in enumerate(position.pits[p]):
            total_g += levels_g[mapping.cell_of[Place(p, i)]]
            seeds += count
        total_g += levels_g[mapping.cell_of[Place(p, "store")]]
        seeds += position.stores[p]
    if seeds == 0:
        raise ValueError("the board holds no seeds to weigh")
    return total_g / seeds
