"""Sensor faults: which cells cannot be weighed, from their raw words alone.

A cell is faulty while its readings say nothing about seeds (HARDWARE.md):

- **no data or full scale**: the converter gave no word, or a word at the end of its range
  (a loose wire floats to a rail), for half a second in a row (3 readings at the least);
- **stuck**: a live HX711 never gives the same 24-bit word for seconds on end, its noise moves
  the last bits; the same word over and over (3 s, 20 readings at the least) is a frozen
  converter or link;
- **too noisy**: nearly every recent sample jumped by a third of a seed (the detector's
  `noisy`), a failing cell or a loose wire rather than seeds.

A fault is over once the cell reads again, in range, moving and calm. The watch only tells; the
referee raises and resolves the flags, and judges no change of a faulty cell.

>>> watch = SensorWatch(cells=2, rate_sps=10)
>>> [watch.judge((100 + k, None), None, set()) for k in range(5)][-1]  # half a second
([(1, 'no data')], [])
>>> watch.judge((105, 200), None, {1})
([], [1])
>>> watch.judge((106, 201), (True, False), set())
([(0, 'too noisy')], [])
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Sequence
from typing import cast

from controller.sensing.frames import RAW_MAX, RAW_MIN

STUCK_S = 3.0  # the same word this long is a frozen converter (20 readings at the least)
MISSING_S = 0.5  # no word, or a word at full scale, this long (3 readings at the least)
# Frames judged a second, at the most: a fault is a matter of half a second or more, and
# judging all 80 frames a second cost a tenth of the one search's time a frame
JUDGED_SPS = 20


class SensorWatch:
    """Each cell's streaks of missing, out-of-range and repeated raw words, in the frames
    judged (every frame up to JUDGED_SPS; at 80 SPS every fourth: a frozen cell repeats its
    word in every frame, a missing one misses in every frame)."""

    def __init__(self, cells: int, rate_sps: float) -> None:
        self.missing = [0] * cells
        self.same = [0] * cells
        self.last: list[int | None] = [None] * cells
        self.every = max(1, int(rate_sps // JUDGED_SPS))
        self.frames = 0
        judged_sps = rate_sps / self.every
        self.stuck_after = max(20, int(STUCK_S * judged_sps))
        self.missing_after = max(3, int(MISSING_S * judged_sps))

    def judge(
        self, raw: tuple[int | None, ...], noisy: Sequence[bool] | None, faulty: Collection[int]
    ) -> tuple[list[tuple[int, str]], list[int]]:
        """Take one frame's raw words (and which cells the detector finds too noisy; None:
        none is), given the cells already `faulty`: the new faults (cell, what is wrong) and
        the cells whose fault is over."""
        self.frames += 1
        if self.frames % self.every:
            return [], []
        if not faulty and noisy is None and self._quiet(raw):
            return [], []
        noisy = noisy or [False] * len(raw)
        found: list[tuple[int, str]] = []
        over: list[int] = []
        for cell, word in enumerate(raw):
            bad = word is None or word >= RAW_MAX or word <= RAW_MIN
            self.missing[cell] = self.missing[cell] + 1 if bad else 0
            same = word is not None and word == self.last[cell]
            self.same[cell] = self.same[cell] + 1 if same else 0
            self.last[cell] = word
            stuck = self.same[cell] >= self.stuck_after
            if cell in faulty:
                if not (bad or noisy[cell] or stuck):
                    over.append(cell)
            elif noisy[cell] or stuck:
                found.append((cell, "too noisy" if noisy[cell] else _STUCK))
            elif bad and self.missing[cell] >= self.missing_after:
                found.append((cell, "no data" if word is None else "reading at full scale"))
        return found, over

    def _quiet(self, raw: tuple[int | None, ...]) -> bool:
        """The usual frame: every cell read, in range, none stuck. Its streaks are then kept
        in one pass (judging each cell in turn cost a fifth of the referee's time a frame)."""
        if None in raw:
            return False
        words = cast(tuple[int, ...], raw)
        if min(words) <= RAW_MIN or max(words) >= RAW_MAX:
            return False
        # (A live converter's noise moves its words: most frames repeat none of the last.)
        repeated = list(map(operator.eq, words, self.last))
        if any(repeated):
            streaks = [
                streak + 1 if same else 0 for streak, same in zip(self.same, repeated, strict=True)
            ]
            if max(streaks) >= self.stuck_after:
                return False
            self.same = streaks
        elif any(self.same):
            self.same = [0] * len(words)
        self.last = list(words)
        if any(self.missing):
            self.missing = [0] * len(words)
        return True


_STUCK = "reading stuck (the same value for seconds)"
