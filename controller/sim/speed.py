"""How fast the simulator runs: microseconds of CPU per 16-cell frame.

Benchmarks simulate many whole games, so the simulator must stay far below real time (a frame
every 12.5 ms at 80 SPS). This plays a random congkak game on the 16-cell board at expert
tempo (the most transients per second) and times the frames alone, not the planning.

>>> costs = frame_cost_us(repeats=1, seed=1, max_frames=200)
>>> len(costs), costs[0] > 0
(1, True)
"""

from __future__ import annotations

import random
import statistics
import time

from controller.rules import Game

from .player import build_simulation
from .scenario import parse_scenario


def frame_cost_us(repeats: int = 5, seed: int = 1, max_frames: int | None = None) -> list[float]:
    """Per-frame cost in microseconds of `repeats` whole simulated games (one per repeat)."""
    costs = []
    for r in range(repeats):
        rng = random.Random(seed + r)
        game = Game("congkak")
        moves = []
        while not game.over:
            moves.append(rng.choice(game.legal_moves()))
            game.play(moves[-1])
        scenario = parse_scenario(
            {
                "variant": "congkak",
                "moves": moves,
                "player": {"seconds_per_seed": 0.125},
                "sensors": {"random_seed": seed + r},
            },
            "speed",
        )
        world = build_simulation(scenario).world
        assert world.cell_count == 16
        step = world.step
        frames = 0
        start = time.perf_counter()
        while not world.finished and (max_frames is None or frames < max_frames):
            step()
            frames += 1
        costs.append((time.perf_counter() - start) / frames * 1e6)
    return costs


def main(repeats: int = 7) -> int:
    costs = frame_cost_us(repeats)
    print(
        f"simulator: {statistics.median(costs):.1f} us per 16-cell frame "
        f"(median of {repeats} games; min {min(costs):.1f}, max {max(costs):.1f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
