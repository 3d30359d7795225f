"""The board at rest held against the belief: `board_mismatch` (SIMULATION.md: "at rest the
board does not match the belief").

The search explains every motion as its cup settles, so the leader's counts and the cups'
levels agree, unless something changed that no motion showed (a seed slid in below the
detector's onset, a change under a knock of the table) or the search lost the truth. At rest,
each cup's weight in seeds of the start layout's mean is held against the leader's count: it
is off when further from it than its spread allows, `SPREADS` of them and at least
`MISMATCH_SEEDS`. The spread in seeds of a cup of n: the noise at rest, each seed's own spread
(natural seeds: cv 0.15, so √n·cv), and the cell's gain error on all of them (n·CALIBRATION):
a pit of 20 natural seeds may weigh three seeds off and be right, and one seed more or
fewer shows only in small pits of marbles.

>>> wrong = mismatches({"a": 4, "b": 4, "c": 20}, {"a": 21.6, "b": 27.0, "c": 102.6},
...                    seed_g=5.4, cv=0.03, noise_seeds=0.12, calibration=0.03)
>>> wrong
{'b': 'too_many'}
"""

from __future__ import annotations

import math
from typing import TypeVar

MISMATCH_SEEDS = 0.6  # a cup this many seeds off its count, at the least, does not match
# ... nor one within this many spreads of it: at three, the thousand cup states of a game
# tripped it on natural seeds (two light seeds read 1.29, three heavy ones 3.75; docs/referee.md)
SPREADS = 5.0
REST_S = 1.0  # the board still this long before it is weighed against the belief

K = TypeVar("K")


def mismatches(
    counts: dict[K, int],
    levels: dict[K, float],
    seed_g: float,
    cv: float,
    noise_seeds: float,
    calibration: float,
) -> dict[K, str]:
    """The cups whose level (grams) is not their count of seeds: "too_many" or "too_few"."""
    out: dict[K, str] = {}
    for cup, count in counts.items():
        seeds = levels[cup] / seed_g
        spread = math.sqrt(noise_seeds**2 + count * cv**2 + (calibration * count) ** 2)
        if abs(seeds - count) > max(MISMATCH_SEEDS, SPREADS * spread):
            out[cup] = "too_many" if seeds > count else "too_few"
    return out
