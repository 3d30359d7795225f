"""`sowboard bench undo [--games N]`: guided undo of random moves on the simulated board.

On the daemon's own loop (virtual hands, congkak 7, kalah and oware in turn), a random legal
move is played, undone (the virtual hands walk it back as the lights guide, controller/daemon/
undo.py) and played on afresh, until N moves were undone. Each undo counts as exact when the
referee starts again on the position before the move and its belief equals the simulated
board's truth (pits, stores and hands), with no board_mismatch flag on the way, and the
virtual hands walked it back (not laid the board out at once).

Progress on stderr, the last line one JSON object.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from controller.daemon.config import parse_config
from controller.daemon.loop import BoardLoop

VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("congkak", {"pits": 7}),
    ("kalah", {}),
    ("oware", {}),
)
SETTLE_S = 600.0  # simulated seconds a move or an undo may take at the most


def settled(loop: BoardLoop) -> bool:
    referee = loop.referee
    return (
        referee is not None and loop.now > loop.busy_until and referee.phase() in ("start", "over")
    )


def exact(loop: BoardLoop, before: dict[str, Any]) -> str:
    """Why the undo was not exact ("" when it was)."""
    status = loop.link.get_status()
    referee, sim = loop.referee, loop.sim
    assert referee is not None and sim is not None
    belief, truth = referee.belief(), sim.world.truth()
    if status["game"]["position"] != before:
        return "not the position before the move"
    if any(belief[k] != truth[k] for k in ("pits", "stores", "hand")):
        return f"belief {belief} != truth {truth}"
    if any(f["kind"] == "board_mismatch" for f in status["flags"]):
        return "a board_mismatch flag"
    return ""


def run_variant(
    variant: str, options: dict[str, Any], moves: int, seed: int, tmp: Path
) -> list[str]:
    config = parse_config(
        {
            "game": {"variant": variant, "options": options},
            "data": {"dir": str(tmp / variant)},
            "recorder": {"on_flag": False},
            "leds": {"idle_minutes": 0},
        },
        tmp / "config.toml",
    )
    loop = BoardLoop(config, speed=None, out=lambda _text: None)
    rng = random.Random(seed)
    failures: list[str] = []
    try:
        assert loop.run_until(lambda: settled(loop), SETTLE_S), "the board was not ready"
        for k in range(moves):
            follower = loop.follower()
            if follower.over:
                loop.execute("new_game", {})
                assert loop.run_until(lambda: settled(loop), SETTLE_S), "no new game"
                follower = loop.follower()
            before = loop.link.get_status()["game"]["position"]
            pits = [p.pit for p in follower.expected_places() if not p.is_store]
            loop.execute("sim_move", {"pit": rng.choice(pits)})
            loop.run_until(lambda: settled(loop), SETTLE_S)
            loop.execute("undo", {})
            setup = loop.session.setup
            if setup is None or setup.path is None:  # laid out at once, not walked back
                failures.append(f"{variant} move {k + 1}: the undo was not guided")
            loop.run_until(lambda: settled(loop), SETTLE_S)
            loop.run_until(lambda: False, 0.1)  # (one more tick publishes)
            why = exact(loop, before)
            if why:
                failures.append(f"{variant} move {k + 1}: {why}")
            print(f"undo: {variant} {k + 1}/{moves} {why or 'exact'}", file=sys.stderr, flush=True)
            loop.execute("sim_move", {"pit": rng.choice(pits)})  # and on with the game
            loop.run_until(lambda: settled(loop), SETTLE_S)
    finally:
        loop.stop()
    return failures


def main(games: int = 100) -> int:
    """`games` undos in all, spread over the variants."""
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sowboard-undo-") as tmp:
        for k, (variant, options) in enumerate(VARIANTS):
            share = games // len(VARIANTS) + (1 if k < games % len(VARIANTS) else 0)
            failures += run_variant(variant, options, share, k, Path(tmp))
    result = {
        "undos": games,
        "exact": games - len(failures),
        "failures": failures[:10],
        "targets_met": not failures,
    }
    print(json.dumps(result), flush=True)
    return 0 if not failures else 1
