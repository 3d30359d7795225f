"""`sowboard bench soak [--hours H]`: hours of demo play at the simulated board's top speed.

`sowboard run` runs as a child process in demo mode at `hardware.sim.speed = 50` (50 simulated
seconds a second), so 8 simulated hours take under 10 minutes. Every few seconds the daemon's
resident memory is sampled and its output read for tracebacks. Memory "flat" is judged after
the first tenth of the run (imports, caches and the flight recorder's ring fill up at first):
from the lowest to the highest sample after that, within FLAT_MB.

With `--kiosk` the daemon is set up as a museum exhibit ([web] kiosk, no New game button,
the mode button locked, [game] abandon_minutes): each sample also loads the kiosk page and
the state, and the run counts as stuck when no step was recognised for STUCK_SAMPLES samples
in a row (over 20 simulated minutes: a demo game never stands still that long, see demo.py).

Progress on stderr, the last line one JSON object.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .daemonproc import DaemonProcess, demo_config

SPEED = 50.0
FLAT_MB = 5.0
SAMPLE_S = 5.0
STUCK_SAMPLES = 5  # 5 samples x 5 s x speed 50: about 21 simulated minutes without a step
KIOSK_WEB = "new_game_button = false\nkiosk = true\n"  # keys of [web]
KIOSK_BUTTONS = '[buttons]\nlocked = ["mode"]\n'


@dataclass
class KioskWatch:
    """The exhibit's page and the game's progress, read at every sample."""

    pages_ok: int = 0
    pages_failed: int = 0
    stuck: int = 0  # samples in a row without a new step
    stuck_max: int = 0
    last_progress: tuple[int, int, str] | None = None
    errors: list[str] = field(default_factory=list)

    def check(self, daemon: DaemonProcess) -> None:
        try:
            with urllib.request.urlopen(daemon.url + "/kiosk", timeout=5.0) as response:
                page = response.read().decode("utf-8")
            ok = response.status == 200 and 'id="board"' in page
            state = daemon.state()
        except (urllib.error.URLError, OSError, ValueError) as err:
            self.pages_failed += 1
            self.errors = [*self.errors[-4:], str(err)]
            return
        self.pages_ok += ok
        self.pages_failed += not ok
        game = state["game"]
        progress = (int(state["daemon"]["steps"]), len(game["history"]), json.dumps(game["record"]))
        self.stuck = self.stuck + 1 if progress == self.last_progress else 0
        self.stuck_max = max(self.stuck_max, self.stuck)
        self.last_progress = progress


def main(hours: float = 8.0, kiosk: bool = False) -> int:
    wall_s = hours * 3600.0 / SPEED
    samples: list[tuple[float, float]] = []
    watch = KioskWatch() if kiosk else None
    with tempfile.TemporaryDirectory(prefix="sowboard-soak-") as tmp:
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        config = Path(tmp) / "config.toml"
        text = demo_config(data_dir, speed=SPEED)
        if kiosk:
            text = text.replace("[web]\n", "[web]\n" + KIOSK_WEB, 1)
            text = text.replace('mode = "demo"\n', 'mode = "demo"\nabandon_minutes = 10\n', 1)
            text += KIOSK_BUTTONS
        config.write_text(text)
        daemon = DaemonProcess(config)
        try:
            died = _sample(daemon, wall_s, samples, watch)
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
    result: dict[str, Any] = {
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
    if watch is not None:
        result.update(
            kiosk_pages_ok=watch.pages_ok,
            kiosk_pages_failed=watch.pages_failed,
            stuck_samples_max=watch.stuck_max,
            errors=watch.errors,
        )
        result["targets_met"] = bool(
            result["targets_met"] and not watch.pages_failed and watch.stuck_max < STUCK_SAMPLES
        )
    print(json.dumps(result), flush=True)
    return 0 if result["targets_met"] else 1


def _sample(
    daemon: DaemonProcess,
    wall_s: float,
    samples: list[tuple[float, float]],
    watch: KioskWatch | None = None,
) -> bool:
    """RSS every SAMPLE_S until `wall_s` has passed; True if the daemon died meanwhile."""
    began = time.monotonic()
    while (elapsed := time.monotonic() - began) < wall_s:
        if daemon.proc.poll() is not None:
            return True
        samples.append((elapsed, daemon.rss_mb()))
        if watch is not None:
            watch.check(daemon)
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
