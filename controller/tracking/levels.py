"""What a cup should weigh, and how far off it may be: the likelihood of a settled level that
the search scores each explanation by (hypotheses.py).

A cup's level is off by its noise at rest, drift, creep and a tare that moved
(`SIGMA0_SEEDS`), the seeds' own spread (seeds.py: as the start layout shows it, and as the
game goes on) and the cell's gain error (`CALIBRATION`). Seeds taken from a cup are a share
of its own, by count. A hand resting on the cup stays, lifts, or comes (its weight fitted:
what is left over). At 80 SPS seeds let go strike the cup over their weight and a hand
settling does not (not while the table is knocked: every cell rings with it). The costs are
negative log likelihoods (natural log).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .motions import Motion
from .seeds import SeedWeights

SIGMA0_SEEDS = 0.12  # noise, drift, creep, a tare that moved
CALIBRATION = 0.03  # a cell's gain error
MIN_TOUCH_G = 8.0  # a finger weighs 10 g at the least (SIMULATION.md), less a spread
WHOLE_Z = 2.5  # a change may be a whole number of seeds this many spreads from it (`whole`)
LET_GO_RING = 0.1  # seeds strike the cup at this much over their weight (SIMULATION.md ring)
NO_STRIKE_COST = 2.0  # seeds let go that did not strike the cup (80 SPS only)
# A hand settling on a cup overshot its weight by 6 % at most, seeds let go together by 17 %
# at least (143 weights in bench humans): a touch that struck the cup must fall more than
# MARGIN behind two seeds let go where one was due (TOUCH_COST + this > MISTAKE_COST + MARGIN),
# or the extra seed waits for its correction to be flagged (docs/referee.md)
STRUCK_TOUCH_COST = 7.0
# Seeds that come to a cup or leave it in the motion a hand comes to rest on it: a hand does
# not sow into, or lift from, a cup it is putting its weight on, and under a touch of many
# seeds' weight neither the level nor the strike tells seeds apart (docs/referee.md)
ARRIVED_TOGETHER_COST = 3.0

Touch = tuple[float, float]  # a hand resting on a cup: its grams, and how far they may be off


class Levels:
    """The level model of one board: its seeds (`seeds`), its rate (`slow`: 10 SPS, where a
    reading averages a strike away) and its knocks (`knocked(motion)`)."""

    def __init__(self, seeds: SeedWeights, slow: bool, knocked: Callable[[Motion], bool]) -> None:
        self.seeds = seeds
        self.slow = slow
        self.knocked = knocked

    def misfit(
        self,
        motion: Motion,
        before: int,
        after: int,
        touch_was: Touch,
        known: tuple[int, float],
        touch_cost: Callable[[float], float],
    ) -> tuple[float, Touch]:
        """-log likelihood of the motion's settled level, where the cup went from `before` to
        `after` seeds, and the touch that fits it best. `touch_was`: the touch on the cup
        before it; `known`: seeds among those that came whose weight was seen (count, grams);
        `touch_cost(grams)`: the prior of a touch of that weight coming."""
        assert motion.after_g is not None
        m = self.seeds.seed_g
        d = after - before
        predicted, sigma = self.expected(motion.before_g - touch_was[0], before, after, known)
        residual = motion.after_g - predicted
        # The touch stays (the level shows only the seeds' change), or it lifted (and shows
        # how far its weight was off), or a new one came (its weight is what is left).
        options = [(touch_was, 0.0, sigma)]
        if touch_was[0]:
            options.append(((0.0, 0.0), 0.0, math.hypot(sigma, touch_was[1])))
        if residual >= MIN_TOUCH_G and residual != touch_was[0]:
            coincide = ARRIVED_TOGETHER_COST if d else 0.0
            options.append(((residual, sigma), touch_cost(residual) + coincide, sigma))
        total, touch = min(
            (cost + 0.5 * ((residual - t[0]) / spread) ** 2, t) for t, cost, spread in options
        )
        if not self.slow and not self.knocked(motion):
            # Seeds let go strike the cup; a hand settling on it does not (LET_GO_RING).
            struck = motion.peak_g >= (1 + LET_GO_RING) * (motion.after_g - motion.before_g)
            seeds_unstruck = d > 0 and motion.strike_g < (1 + LET_GO_RING) * d * m * 0.9
            hand_struck = touch[0] > touch_was[0] and struck and d <= 0
            if seeds_unstruck:
                total += NO_STRIKE_COST
            elif hand_struck:
                total += STRUCK_TOUCH_COST
        return total, touch

    def expected(
        self, seeds_g: float, before: int, after: int, known: tuple[int, float]
    ) -> tuple[float, float]:
        """Where a cup that held `before` seeds weighing `seeds_g` should settle with `after`,
        and how far off it may be (grams): `known` seeds among those that came were weighed
        elsewhere (count, grams)."""
        m, cv = self.seeds.seed_g, self.seeds.cv()
        unknown = after - before - known[0]
        changed = abs(unknown)  # (seeds of the nominal weight, whose cell's gain may be off)
        if unknown < 0 and not known[0] and after >= 0:
            # Seeds taken: those left are a share of the cup's own, by count, and their weight
            # is the surer the fewer stay or go; the cell's gain is in both its levels. (An
            # empty cup reads its tare, however many left it: with their spread it took a seed
            # left behind by a hand that lifted part of a pit for noise, bench tracking, 6 of 6
            # not_all_lifted. From the seeds' nominal weight, one seed left of thirteen light
            # ones was predicted at 2.5 g, and fitted an empty cup: a daemon opening, 10 SPS.)
            predicted = seeds_g * after / before
            spread_seeds, changed = after * changed / before, 0
        else:
            predicted = seeds_g + unknown * m + known[1]
            spread_seeds = changed
        # (Seeds weighed on another cell: both cells' gain errors.)
        sigma = math.sqrt(
            (SIGMA0_SEEDS * m) ** 2
            + spread_seeds * (cv * m) ** 2
            + (CALIBRATION * changed * m) ** 2
            + 2 * (CALIBRATION * known[1]) ** 2
        )
        return predicted, sigma

    def whole(self, grams: float) -> list[int]:
        """The whole numbers of seeds a change may be: the nearest, and the next one on the
        other side where the seeds' spread reaches it (WHOLE_Z). Natural seeds of 15 % spread
        weigh 1.42 seeds two at a time as often as one at a time: the fit tells them apart
        with what comes next (bench humans game 92: two light seeds let go together, read as
        one, and one of them taken back, read as a pit lifted that may not be)."""
        n = self.seeds.count(grams)
        nearest = round(n)
        other = nearest + (1 if n > nearest else -1)
        cv = self.seeds.cv()
        reach = WHOLE_Z * math.sqrt(SIGMA0_SEEDS**2 + abs(other) * cv**2)
        return [nearest, other] if abs(n - other) <= reach else [nearest]
