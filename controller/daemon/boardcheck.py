"""Is the board at rest, and does it hold the position the game says it should?

Before the referee starts (a new game, a resumed game, after an undo or a calibration) the
daemon weighs every place and compares it with the game's count times the seed mass. Counting
natural seeds by absolute weight is unreliable (HARDWARE.md: 20 seeds at CV 10 % are counted
exactly only 3 times in 4), so this is a check, not a count: a place is only called wrong when
its weight is further from the expected count than the seeds' own spread explains,

    |grams / seed_g - count| > 0.5 + 2.5 * cv * sqrt(count)

(the referee's own tolerance, a little tighter: 2.5 instead of 3 sigma, because here a false
alarm costs a look, not a wrong step). With cv up to 0.25 a pit of 4 seeds may read 2.5 to
5.5 seeds; a marble board (cv 0.03) is checked to the seed.

>>> window = LevelWindow(1, seconds=1.0)
>>> for k in range(20):
...     window.add(Frame(k * 0.05, (1000 + 10 * (k % 2),)))
>>> round(window.span(), 2), window.medians([(0.0, 10.0)]), window.at_rest([(0.0, 10.0)], 5.0)
(0.95, [100.5], True)
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from dataclasses import dataclass

from controller.board import BoardMapping
from controller.rules import Place, Position, Rules
from controller.sensing.frames import Frame

DEFAULT_CV = 0.25  # natural seeds' mean spread (HARDWARE.md): the safe guess when unknown
REST_SEEDS = 0.3  # readings spread over this much (in seeds) mean a hand is at work
MIN_REST_G = 0.3  # ... but never less than this many grams (sensor noise)


class LevelWindow:
    """The last `seconds` of frames: levels (medians, so glitches do not count) and rest."""

    def __init__(self, cell_count: int, seconds: float = 1.0) -> None:
        self.cell_count = cell_count
        self.seconds = seconds
        self.frames: deque[Frame] = deque()

    def add(self, frame: Frame) -> None:
        self.frames.append(frame)
        while self.frames and frame.t - self.frames[0].t > self.seconds:
            self.frames.popleft()

    def clear(self) -> None:
        self.frames.clear()

    def span(self) -> float:
        return self.frames[-1].t - self.frames[0].t if len(self.frames) > 1 else 0.0

    def _values(self, cell: int, frames: list[Frame] | None = None) -> list[int]:
        source = self.frames if frames is None else frames
        return [v for f in source if (v := f.raw[cell]) is not None]

    def raw_medians(self) -> list[float | None]:
        out: list[float | None] = []
        for cell in range(self.cell_count):
            values = self._values(cell)
            out.append(float(statistics.median(values)) if values else None)
        return out

    def medians(self, calibration: list[tuple[float, float]]) -> list[float | None]:
        """Each cell's level in grams (None: no readings)."""
        return [
            None if raw is None else (raw - offset) / scale
            for raw, (offset, scale) in zip(self.raw_medians(), calibration, strict=True)
        ]

    def noise(self, calibration: list[tuple[float, float]]) -> list[float | None]:
        """Each cell's noise in grams rms, from the spread of its middle readings."""
        out: list[float | None] = []
        for cell, (_offset, scale) in enumerate(calibration):
            values = sorted(self._values(cell))
            if len(values) < 8:
                out.append(None)
                continue
            middle = values[len(values) // 4 : len(values) - len(values) // 4]
            out.append(statistics.pstdev(middle) * 1.5 / abs(scale))
        return out

    def at_rest(self, calibration: list[tuple[float, float]], seed_g: float) -> bool:
        """Every reading of every cell lies near that cell's median, but for a glitch or two.

        The referee starts from these very frames, so a step anywhere in them (a seed landing
        at the start of the window) would be a change it cannot explain."""
        if len(self.frames) < 8:
            return False
        near = max(REST_SEEDS * seed_g / 2, MIN_REST_G)
        for cell, (_offset, scale) in enumerate(calibration):
            values = self._values(cell)
            if not values:
                continue
            middle = statistics.median(values)
            limit = near * abs(scale)
            outliers = sum(1 for v in values if abs(v - middle) > limit)
            if outliers > max(2, len(values) // 50):
                return False
        return True


@dataclass(frozen=True)
class PlaceCheck:
    place: Place
    expected: int
    seeds: float  # what the weight reads, in mean seeds

    @property
    def how(self) -> str:
        """too_few | too_many, as the light patterns name them."""
        return "too_many" if self.seeds > self.expected else "too_few"

    def detail(self) -> str:
        return f"{self.expected} expected, the scale reads about {max(0.0, self.seeds):.1f}"


def tolerance(count: int, cv: float) -> float:
    """How many mean seeds the weight of `count` seeds may stray from `count`."""
    return 0.5 + 2.5 * cv * math.sqrt(count)


def place_counts(rules: Rules, position: Position) -> dict[Place, int]:
    out: dict[Place, int] = {}
    for p in (0, 1):
        for i, count in enumerate(position.pits[p]):
            out[Place(p, i)] = count
        out[Place(p, "store")] = position.stores[p]
    return out


def estimate_seed_g(
    levels_g: list[float | None], mapping: BoardMapping, counts: dict[Place, int]
) -> float | None:
    """Mean seed mass if the board holds `counts` (total weight over total seeds)."""
    grams = 0.0
    seeds = 0
    for place, count in counts.items():
        level = levels_g[mapping.cell_of[place]]
        if level is None:
            continue
        grams += level
        seeds += count
    if seeds == 0 or grams <= 0:
        return None
    return grams / seeds


def check_board(
    levels_g: list[float | None],
    mapping: BoardMapping,
    counts: dict[Place, int],
    seed_g: float,
    cv: float = DEFAULT_CV,
) -> list[PlaceCheck]:
    """The places whose weight does not fit their count (empty: the board matches)."""
    wrong: list[PlaceCheck] = []
    for place, count in counts.items():
        level = levels_g[mapping.cell_of[place]]
        if level is None:
            continue  # a cell without readings is a sensor fault, reported by the referee
        seeds = level / seed_g
        if abs(seeds - count) > tolerance(count, cv):
            wrong.append(PlaceCheck(place, count, seeds))
    return wrong


# An "empty" board for the zero stage: a cup may read this many seeds' weight, the whole
# board this many, by the calibration in use (see `loaded_cells`).
EMPTY_CELL_MAX_SEEDS = 2.0
EMPTY_BOARD_MAX_SEEDS = 4.0


def loaded_cells(loads_g: list[float | None], seed_g: float) -> list[int]:
    """The cells that are visibly not empty by the calibration in use (empty: all are).

    Taking the zeros of a loaded board makes its seeds the new zero: every game after reads
    an empty board where seeds lie, cannot weigh a seed, and waits. Between two calibrations
    a cell's zero moves by drift and creep of a few grams at most (creep is 0.03 % of a
    ~40 g load, drift a few tenths of a gram a minute that re-zeroing at rest takes out), and
    re-zeroing exists to take exactly that out, so it must pass; a seed weighs about 5 g, so
    more than two seeds' weight in one cup, or four on the whole board, is more than drift:
    it is seeds. A full start layout (dozens of seeds, hundreds of grams) is far above both;
    a seed or two forgotten in a cup may pass, and the layout stage and the board check
    before play catch those.
    """
    cell_max = EMPTY_CELL_MAX_SEEDS * seed_g
    loaded = [k for k, g in enumerate(loads_g) if g is not None and g > cell_max]
    total = sum(g for g in loads_g if g is not None and g > 0)
    if not loaded and total > EMPTY_BOARD_MAX_SEEDS * seed_g:
        loaded = [k for k, g in enumerate(loads_g) if g is not None and g > seed_g / 2]
    return loaded
