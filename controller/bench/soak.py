"""`sowboard bench soak [--hours H]`: hours of demo play at the simulated board's top speed.

`sowboard run` runs as a child process in demo mode at `hardware.sim.speed = 50` (50 simulated
seconds a second), so 8 simulated hours take under 10 minutes. Every few seconds the daemon's
resident memory is sampled and its output read for tracebacks. Memory "flat" is judged after
the first tenth of the run (imports, caches and the flight recorder's ring fill up at first):
from the lowest to the highest sample after that, within FLAT_MB.

Progress on stderr, the last line one JSON object.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from .daemonproc import DaemonProcess, demo_config

SPEED = 50.0
FLAT_MB = 5.0
SAMPLE_S = 5.0


def main(hours: float = 8.0) -> int:
    wall_s = hours * 3600.0 / SPEED
    samples: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="sowboard-soak-") as tmp:
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        config = Path(tmp) / "config.toml"
        config.write_text(demo_config(data_dir, speed=SPEED))
        daemon = DaemonProcess(config)
        try:
            died = _sample(daemon, wall_s, samples)
            last = _last_state(daemon)
        finally:
            status = daemon.stop()
        output = daemon.drain()
        moves = _moves(data_dir, last)
    settled = [mb for t, mb in samples if t >= wall_s / 10] or [mb for _t, mb in samples]
    growth = max(settled) - min(settled) if settled else 0.0
    exceptions = output.count("Traceback")
    if exceptions:
        print(output[-4000:])
    result = {
        "simulated_hours": hours,
        "wall_s": round(wall_s, 1),
        "speed": SPEED,
        "moves": moves,
        "exceptions": exceptions,
        "died": died,
        "exit_status": status,
        "rss_mb_first": round(samples[0][1], 1) if samples else None,
        "rss_mb_settled_min": round(min(settled), 1) if settled else None,
        "rss_mb_settled_max": round(max(settled), 1) if settled else None,
        "rss_mb_end": round(samples[-1][1], 1) if samples else None,
        "rss_growth_mb": round(growth, 1),
        "targets_met": not exceptions and not died and status == 0 and growth <= FLAT_MB,
    }
    print(json.dumps(result), flush=True)
    return 0 if result["targets_met"] else 1


def _sample(daemon: DaemonProcess, wall_s: float, samples: list[tuple[float, float]]) -> bool:
    """RSS every SAMPLE_S until `wall_s` has passed; True if the daemon died meanwhile."""
    began = time.monotonic()
    while (elapsed := time.monotonic() - began) < wall_s:
        if daemon.proc.poll() is not None:
            return True
        samples.append((elapsed, daemon.rss_mb()))
        if len(samples) % 12 == 0:
            print(
                f"soak: {elapsed * SPEED / 3600:.2f} simulated h, RSS {samples[-1][1]:.1f} MB",
                file=sys.stderr,
                flush=True,
            )
        time.sleep(min(SAMPLE_S, max(0.0, wall_s - elapsed)))
    return daemon.proc.poll() is not None


def _last_state(daemon: DaemonProcess) -> dict[str, object] | None:
    try:
        return daemon.state()
    except OSError:
        return None


def _moves(data_dir: Path, last: dict[str, object] | None) -> int:
    """Moves played: the finished games' records and the game on the board."""
    moves = 0
    records = data_dir / "records.jsonl"
    if records.exists():
        for line in records.read_text().splitlines():
            try:
                moves += len(json.loads(line).get("moves", []))
            except (ValueError, AttributeError):
                continue
    game = last.get("game") if last else None
    if isinstance(game, dict):
        moves += len(game.get("history", []))
    return moves
