"""`sowboard bench kills [--kills N]`: the plug pulled at random moments in demo mode.

`sowboard run` runs as a child process in demo mode on the simulated board (at SPEED) with a
data directory of its own; it is killed with SIGKILL (no clean-up at all) at a random moment, some
while it is still starting, most while the virtual hands play, and started again on the same
directory, N times. After every start:

- resumed: the page shows the daemon playing and the game moving on (a new step recognised)
  within RESUME_TARGET_S of the process being started;
- moves lost: the whole moves that were on the card when the plug was pulled (finished games
  in `records.jsonl`, the journal's game up to its last whole move) must all be there after
  the restart: the same count at least, and the journal's game still the page's game or in
  the records;
- stuck: not playing STUCK_S after the start.

Progress on stderr, the last line one JSON object.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.stats import summary

from .daemonproc import DaemonProcess, demo_config

RESUME_TARGET_S = 10.0
# The simulated board's speed: at 1 a congkak move (relay sowing, 0.25 s a seed) outlasts most
# of the random 0-6 s between a restart and the next kill, so nearly every move was cut off and
# taken back and "0 moves lost" was tested on a handful of moves. At 5 most kills find whole
# moves on the card, and many fall at a move's end (where issue 13's first fault was).
SPEED = 5.0
STUCK_S = 40.0  # past this a start counts as stuck (and the daemon is killed anyway)
EARLY_KILL_SHARE = 0.2  # kills while the daemon is still starting up


@dataclass
class Durable:
    """The whole moves on the card at one moment."""

    recorded: int  # moves of finished games in records.jsonl
    game: str | None  # the journal's game (its `started` stamp)
    history: list[list[int]]  # the journal's whole moves, [player, pit] each


@dataclass
class Tally:
    starts: int = 0
    resumed: int = 0
    stuck: int = 0
    moves_lost: int = 0
    resume_s: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def durable_moves(data_dir: Path) -> Durable:
    """What a restart must find again, read from the files as the kill left them."""
    from controller.daemon.journal import JournalError, load_game

    recorded = 0
    records = data_dir / "records.jsonl"
    if records.exists():
        for line in records.read_text(errors="replace").splitlines():
            try:
                recorded += len(json.loads(line).get("moves", []))
            except (ValueError, AttributeError):
                continue  # a line the kill cut short: its game was not on the card whole
    try:
        loaded = load_game(data_dir / "game.jsonl")
    except JournalError:
        loaded = None
    if loaded is None:
        return Durable(recorded, None, [])
    journal, replayed = loaded
    history = [[m.player, m.pit] for m in replayed.follower.completed]
    return Durable(recorded, str(journal.header.get("started")), history)


def shown_moves(data_dir: Path, state: dict[str, Any]) -> Durable:
    """The same, as the restarted daemon shows it (records from the card, the page's game)."""
    recorded = durable_moves(data_dir).recorded
    history = [[h["player"], h["pit"]] for h in state["game"]["history"]]
    return Durable(recorded, None, history)


def lost(before: Durable, after: Durable) -> int:
    """Whole moves on the card before that the restarted daemon no longer has."""
    total_before = before.recorded + len(before.history)
    total_after = after.recorded + len(after.history)
    if after.history[: len(before.history)] == before.history:
        return max(0, len(before.history) - len(after.history))
    if after.recorded >= before.recorded + len(before.history):
        return 0  # the journal's game finished and went to the records
    return max(0, total_before - total_after) or len(before.history)


def wait_playing(daemon: DaemonProcess, limit_s: float) -> dict[str, Any] | None:
    """The first state in which the daemon plays and a new step has been recognised since
    the first look; None if not within `limit_s` of its start."""
    first_steps: int | None = None
    while time.monotonic() - daemon.started < limit_s:
        try:
            state = daemon.state(timeout=2.0)
        except OSError:
            time.sleep(0.1)
            continue
        daemon_state = state.get("daemon", {})
        steps = int(daemon_state.get("steps", 0))
        if first_steps is None and "game" in state:
            first_steps = steps
        moved = first_steps is not None and steps != first_steps
        if daemon_state.get("state") == "playing" and moved:
            return state
        time.sleep(0.1)
    return None


def one_start(config: Path, data_dir: Path, rng: random.Random, tally: Tally, kill: bool) -> None:
    before = durable_moves(data_dir)
    daemon = DaemonProcess(config)
    tally.starts += 1
    try:
        if kill and rng.random() < EARLY_KILL_SHARE:
            time.sleep(rng.uniform(0.0, 1.5))
            daemon.kill()
            return
        state = wait_playing(daemon, STUCK_S)
        _judge(tally, daemon, data_dir, before, state)
        if kill:
            time.sleep(rng.uniform(0.0, 6.0))
    finally:
        if kill:
            daemon.kill()
        else:
            daemon.stop()


def _judge(
    tally: Tally,
    daemon: DaemonProcess,
    data_dir: Path,
    before: Durable,
    state: dict[str, Any] | None,
) -> None:
    start = tally.starts
    if state is None:
        tally.stuck += 1
        tally.problems.append(f"start {start}: not playing after {STUCK_S:g} s")
        print(daemon.drain()[-2000:], file=sys.stderr)
        return
    took = time.monotonic() - daemon.started
    tally.resume_s.append(took)
    if took <= RESUME_TARGET_S:
        tally.resumed += 1
    else:
        tally.problems.append(f"start {start}: playing only after {took:.1f} s")
    missing = lost(before, shown_moves(data_dir, state))
    if missing:
        tally.moves_lost += missing
        tally.problems.append(
            f"start {start}: {missing} moves lost (card: {before.recorded} recorded + "
            f"{before.history}; page: {state['game']['history']})"
        )


def main(kills: int = 100, seed: int | None = None) -> int:
    rng = random.Random(seed)
    tally = Tally()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sowboard-kills-") as tmp:
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        config = Path(tmp) / "config.toml"
        config.write_text(demo_config(data_dir, speed=SPEED))
        for k in range(kills + 1):
            one_start(config, data_dir, rng, tally, kill=k < kills)
            print(
                f"kill {min(k + 1, kills)}/{kills}: resumed {tally.resumed}/"
                f"{len(tally.resume_s) + tally.stuck}, lost {tally.moves_lost}, "
                f"stuck {tally.stuck}",
                file=sys.stderr,
                flush=True,
            )
        final = durable_moves(data_dir)
    for problem in tally.problems:
        print(problem)
    measured = len(tally.resume_s) + tally.stuck
    result = {
        "kills": kills,
        "starts": tally.starts,
        "starts_measured": measured,
        "resumed_within_10s": tally.resumed,
        "resumed_percent": round(100.0 * tally.resumed / max(1, measured), 1),
        "resume_s": summary(tally.resume_s),
        "moves_lost": tally.moves_lost,
        "stuck": tally.stuck,
        "speed": SPEED,
        "moves_on_card_at_end": final.recorded + len(final.history),
        "wall_s": round(time.monotonic() - began, 1),
        "targets_met": tally.resumed == measured and not tally.moves_lost and not tally.stuck,
    }
    print(json.dumps(result), flush=True)
    return 0 if result["targets_met"] else 1
