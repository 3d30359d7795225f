"""A referee session on a sample source: start-up (levels, seed mass), frames, report.

The referee is built from what a real board gives too: raw frames and the user's calibration.
The simulator's truth is only read afterwards, by `simulation_report`, to score the run.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from controller.board import BoardMapping
from controller.rules import Place, Position, Rules, StepFollower, StepKind
from controller.sensing.detect import BoardDetector
from controller.sensing.frames import Frame, SampleSource
from controller.stats import summary

from .hypotheses import Tracker
from .seeds import estimate_seed_mass

STARTUP_S = 0.5  # the board at rest before play, to read its levels
POWER_UP_SAMPLES = 4  # the HX711 needs 4 samples after power-up
# Levels are medians of at least this many samples, so that a glitch among them is outvoted
# (at 10 SPS, 0.5 s left only two: one wild read made a level of kilograms).
MEDIAN_OF = 5
STARTUP_FRAMES = POWER_UP_SAMPLES + MEDIAN_OF  # at the least, however fast the rate


@dataclass
class Startup:
    """What the board at rest tells before play (half a second, and at least STARTUP_FRAMES
    frames): levels, noise, the seed mass."""

    levels_g: list[float]
    noise_g: float
    seed_g: float
    frames: list[Frame]
    seed_cv: float


def read_startup(
    source: SampleSource,
    calibration: list[tuple[float, float]],
    rules: Rules,
    mapping: BoardMapping,
    position: Position,
    rate_sps: float,
) -> Startup:
    """Read frames for STARTUP_S (and at least STARTUP_FRAMES of them) and estimate levels,
    noise and seed mass from them."""
    frames: list[Frame] = []
    first_t: float | None = None
    while True:
        frame = source.read(1.0)
        if frame is None:
            raise RuntimeError("the sample source gave no frames at start-up")
        frames.append(frame)
        first_t = frame.t if first_t is None else first_t
        if frame.t - first_t >= STARTUP_S and len(frames) >= STARTUP_FRAMES:
            break
    settled = frames[POWER_UP_SAMPLES:]
    levels: list[float] = []
    noises: list[float] = []
    for cell, (offset, scale) in enumerate(calibration):
        values = [(f.raw[cell] - offset) / scale for f in settled if f.raw[cell] is not None]  # type: ignore[operator]
        values = sorted(values)
        if not values:
            levels.append(0.0)
            continue
        levels.append(statistics.median(values))
        if len(values) >= 4:
            # Glitches aside (the middle half only), how much do readings vary at rest?
            middle = values[len(values) // 4 : len(values) - len(values) // 4]
            noises.append(statistics.pstdev(middle) * 1.5)
    noise = max(0.005, statistics.median(noises)) if noises else 0.05
    seed_g = estimate_seed_mass(rules, mapping, levels, position)
    del rate_sps
    return Startup(
        levels, noise, seed_g, frames, estimate_seed_cv(mapping, levels, position, seed_g)
    )


def estimate_seed_cv(
    mapping: BoardMapping, levels: list[float], position: Position, seed_g: float
) -> float:
    """Spread of single seed masses from how much pits of k seeds differ: var(mean) = var / k.

    A cell's calibration error adds to it, so marbles read a little more spread than they are.
    """
    terms = []
    for p in (0, 1):
        for i, count in enumerate(position.pits[p]):
            if count:
                mean = levels[mapping.cell_of[Place(p, i)]] / count
                terms.append(count * (mean - seed_g) ** 2)
    if len(terms) < 4:
        return 0.25
    return max(0.02, min(0.3, math.sqrt(sum(terms) / (len(terms) - 1)) / seed_g))


def start_referee(
    source: SampleSource,
    calibration: list[tuple[float, float]],
    rules: Rules,
    mapping: BoardMapping,
    rate_sps: float,
    follower: StepFollower | None = None,
) -> Tracker:
    """The referee (the one search of hypotheses.py) on `source`, started from the board at
    rest (the start layout by default)."""
    follower = follower or StepFollower.new(rules)
    startup = read_startup(source, calibration, rules, mapping, follower.position(), rate_sps)
    detector = BoardDetector(
        calibration, rate_sps=rate_sps, seed_g=startup.seed_g, noise_g=startup.noise_g
    )
    referee = Tracker(
        rules, mapping, detector, startup.seed_g, follower=follower, start_cv=startup.seed_cv
    )
    referee.start_levels(startup.levels_g)
    detector.start_at(startup.levels_g)
    for frame in startup.frames:
        referee.process(frame)
    return referee


def run_frames(referee: Tracker, frames: Iterator[Frame]) -> int:
    count = 0
    for frame in frames:
        referee.process(frame)
        count += 1
    return count


def latencies_ms(referee: Tracker, landings: list[tuple[float, Any, int]]) -> list[float]:
    """From each seed's true landing to the referee taking that sow (the next place lit)."""
    by_place: dict[Any, list[float]] = {}
    for t, place, _hand in landings:
        by_place.setdefault(tuple(place), []).append(t)
    out: list[float] = []
    used: set[tuple[Any, float]] = set()
    for recognised in referee.steps:
        step = recognised.step
        if step.kind is not StepKind.SOW or step.at is None:
            continue
        key = tuple(step.at)
        candidates = [
            t for t in by_place.get(key, []) if t <= recognised.t + 1e-9 and (key, t) not in used
        ]
        if not candidates:
            continue
        t_land = max(candidates)
        if recognised.t - t_land > 2.0:
            continue  # not this landing: a slow correction, not a latency
        used.add((key, t_land))
        out.append((recognised.t - t_land) * 1000)
    return out


def latency_summary(values: list[float]) -> dict[str, float]:
    """The SIMULATION.md report's latency_ms: n, p50, p99, max in milliseconds."""
    return summary(values, digits=1)
