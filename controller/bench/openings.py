"""`sowboard bench openings`: the referee on random simultaneous congkak openings.

Both hands sow at once on the 5-pit board (the densest: they meet in the same cups most often),
each from a random pit of its own row, at 80 and 10 SPS, at a steady tempo (0.3 s a seed) and an
expert's (0.125 s); then on the 7-pit board at the daemon's simulated tempo (0.25 s), at both
rates (longer openings: whose seed fell stays in doubt longer). A game counts as exact when the
belief ends as the truth with no flag raised (there is no mistake in these games). It also
reports the referee's longest search (CPU time): the loop waits that long for a frame.
"""

from __future__ import annotations

import json
import random
from typing import Any

from controller.sim import parse_scenario
from controller.simulate import report, run_simulation

# (pits, SPS, seconds a seed), in the order played: the seeds follow on from one to the next
CONFIGURATIONS = (
    (5, 80, 0.3),
    (5, 80, 0.125),
    (5, 10, 0.3),
    (5, 10, 0.125),
    (7, 80, 0.25),
    (7, 10, 0.25),
)


def play_opening(rate: int, seconds_per_seed: float, seed: int, pits: int = 5) -> dict[str, Any]:
    rng = random.Random(seed)
    scenario = parse_scenario(
        {
            "variant": "congkak",
            "options": {"pits": pits, "simultaneous_opening": True},
            "sensors": {"random_seed": seed, "rate_sps": rate},
            "player": {"seconds_per_seed": seconds_per_seed},
            "moves": [rng.randrange(pits), rng.randrange(pits)],
        },
        f"bench:openings:{seed}",
    )
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    same = all(result["truth"][k] == result["belief"][k] for k in ("pits", "stores", "hand"))
    return {
        "exact": same and not result["flags"],
        "flagged": bool(result["flags"]),
        "longest_search_ms": referee.search_s_max * 1000,
    }


def main(games: int = 100, verbose: bool = False) -> int:
    summary: dict[str, Any] = {}
    seed = 0
    for pits, rate, tempo in CONFIGURATIONS:
        results = []
        for _ in range(games):
            seed += 1
            result = play_opening(rate, tempo, seed, pits)
            results.append(result)
            if verbose or not result["exact"]:
                line = json.dumps(result)[:200]
                print(f"# seed {seed} {pits} pits {rate} SPS {tempo} s/seed: {line}")
        name = f"{rate}sps_{tempo}s" if pits == 5 else f"{pits}pits_{rate}sps_{tempo}s"
        summary[name] = {
            "games": len(results),
            "exact": sum(r["exact"] for r in results),
            "flagged": sum(r["flagged"] for r in results),
            "search_ms_max": round(max(r["longest_search_ms"] for r in results), 1),
        }
    print(json.dumps(summary))
    return 0
