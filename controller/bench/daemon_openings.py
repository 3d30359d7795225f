"""`sowboard bench openings --daemon`: simultaneous congkak openings on the daemon's own loop.

`sowboard bench openings` runs the referee on scenarios. This runs what a user runs: the
daemon's loop (controller/daemon/loop.py) on its simulated 7-pit board, headless and without
sleeping, its virtual hands playing each opening from random pits (`sim_move {pits}`), and a
new game after each. The virtual hands pace and place their seeds their own way, and one world
goes on from game to game, so this finds what the scenarios do not. An opening is lost when the
hands do not finish it, when the belief does not end as the truth, or when a flag is raised
(there is no mistake in these games). It also reports the referee's longest search (CPU
time): the loop waits that long for a frame.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from controller.daemon.config import parse_config
from controller.daemon.loop import BoardLoop

RATES = (80, 10)
FINISH_S = 300.0  # simulated seconds an opening may take at most (one takes 20-40)


def play_openings(rate: int, games: int, random_seed: int, pits: int = 7) -> dict[str, Any]:
    """`games` openings one after another on one simulated board read at `rate` SPS."""
    rng = random.Random(random_seed)
    lost: list[dict[str, Any]] = []
    longest_s = 0.0
    with tempfile.TemporaryDirectory(prefix="sowboard-bench-") as data:
        config = parse_config(
            {
                "data": {"dir": data},
                "board": {"file": f"congkak{pits}"},
                "game": {
                    "variant": "congkak",
                    "options": {"pits": pits, "simultaneous_opening": True},
                },
                "hardware": {"sim": {"rate_sps": rate, "random_seed": random_seed}},
            },
            Path(data) / "config.toml",
        )
        messages: list[str] = []
        loop = BoardLoop(config, speed=None, out=messages.append)
        try:
            for game in range(games):
                chosen = [rng.randrange(pits), rng.randrange(pits)]
                problem = _play_opening(loop, chosen)
                if problem is not None:
                    lost.append({"game": game, "pits": chosen, **problem})
                if loop.referee is not None:
                    longest_s = max(longest_s, loop.referee.search_s_max)
                loop.execute("new_game", {})
        finally:
            loop.stop()  # (its writer closes before the data directory goes)
    return {
        "games": games,
        "lost": len(lost),
        "search_ms_max": round(longest_s * 1000, 1),
        "lost_games": lost,
    }


def _play_opening(loop: BoardLoop, pits: list[int]) -> dict[str, Any] | None:
    """Play one opening from `pits` on a new game; None if it ended exact, else what went
    wrong."""
    loop.run_until(_between_moves(loop), FINISH_S)
    loop.execute("sim_move", {"pits": pits})
    finished = loop.run_until(_between_moves(loop), FINISH_S)
    loop.run_until(lambda: False, 0.1)  # (one more tick publishes)
    referee = loop.referee
    assert referee is not None and loop.sim is not None
    truth = loop.sim.world.truth()
    position = loop.link.get_status()["game"]["position"]
    same = (position["pits"], position["stores"]) == (truth["pits"], truth["stores"])
    if finished and same and not referee.flags:
        return None
    flags = [f"{f.kind} at {f.at}" for f in referee.flags][:3]
    return {"finished": finished, "as_true": same, "flags": flags}


def _between_moves(loop: BoardLoop) -> Any:
    def done() -> bool:
        referee = loop.referee
        return (
            referee is not None
            and loop.now > loop.busy_until
            and referee.phase() in ("start", "over")
        )

    return done


def main(games: int = 40) -> int:
    summary: dict[str, Any] = {}
    for k, rate in enumerate(RATES):
        result = play_openings(rate, games, random_seed=k + 1)
        for lost in result.pop("lost_games"):
            print(f"# lost at {rate} SPS: {json.dumps(lost)}")
        summary[f"7pits_{rate}sps"] = result
    print(json.dumps(summary))
    return 0
