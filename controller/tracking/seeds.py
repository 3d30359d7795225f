"""What a seed weighs: its mean mass and spread, from the start layout.

Seeds are counted by weight (HARDWARE.md), so every judgement of the referee comes down to how
many seeds a change of a cup's weight can be (levels.py). The mean seed mass is taken once,
from the start layout at rest (`estimate_seed_mass`: every seed of the board over every cell's
weight), and the spread of single seed masses (CV: 3 % for glass marbles, 15 % for natural
seeds) from how the start layout's cups differ (session.py).

The spread is not learned from the seeds that land in the game: weighing the search leader's
seeds that landed alone made more false flags (docs/referee.md).

>>> seeds = SeedWeights(seed_g=5.0, start_cv=0.03)
>>> seeds.count(10.2), seeds.cv()
(2.04, 0.03)
"""

from __future__ import annotations

from controller.board import BoardMapping
from controller.rules import Place, Position, Rules


class SeedWeights:
    """The mean seed mass (`seed_g`) and the spread of single seed masses (`cv`)."""

    def __init__(self, seed_g: float, start_cv: float) -> None:
        self.seed_g = seed_g
        self.start_cv = start_cv

    def count(self, grams: float) -> float:
        """`grams` in mean seeds."""
        return grams / self.seed_g

    def cv(self) -> float:
        """Spread of seed masses (a fraction of the mean)."""
        return self.start_cv


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
