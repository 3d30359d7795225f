"""`sowboard bench damage`: every file the daemon keeps in its data directory, damaged every
way a card damages it, and the daemon started on it.

A data directory is played into being first (demo mode at speed 50 until a game is recorded
and the next has moves: `game.jsonl`, `records.jsonl`, `sim_board.json`; the calibration cases
add a `calibration.json`). Then, for each file and each damage (cut in half, random bytes, empty, valid JSON of
the wrong type, a directory in its place, brackets nested past the parser's recursion), a copy of it is damaged and `sowboard run` started on it as a child process.
Recorded: whether it starts; the notices and faults on the page (or its last words when it
does not start); whether the damaged file is kept aside (`NAME.damaged-STAMP`) or left
untouched; whether it plays on (a new step within PLAY_S); the whole moves of the journal's
game before and on the page after.

Prints a Markdown table, and the last line one JSON object.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from .daemonproc import DaemonProcess, demo_config
from .kills import durable_moves, wait_playing

FILES = ("game.jsonl", "records.jsonl", "sim_board.json", "calibration.json")
DAMAGES = ("truncated", "garbage", "empty", "wrong type", "a directory", "nested too deep")
PLAY_S = 25.0


def damage(path: Path, how: str, rng: random.Random) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "garbage":
        path.write_bytes(bytes(rng.getrandbits(8) for _ in range(max(64, len(data)))))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "a directory":  # what a card's repair (fsck) or a slip of the hand leaves
        path.unlink()
        path.mkdir()
        (path / "found").write_bytes(data)
    elif how == "nested too deep":  # past the JSON parser's recursion (RecursionError)
        path.write_bytes(b"[" * 100_000 + b"\n")
    else:
        path.write_bytes(b"[1, 2, 3]\n")


def prepare(base: Path) -> None:
    """A data directory with a finished game, a game in play and its layout, then stopped."""
    base.mkdir()
    config = base.parent / "prepare.toml"
    config.write_text(demo_config(base, speed=50.0))
    daemon = DaemonProcess(config)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            records = base / "records.jsonl"
            if records.exists() and records.stat().st_size and durable_moves(base).history:
                break
            time.sleep(0.5)
    finally:
        daemon.stop()


def calibration_file(path: Path) -> None:
    """A calibration.json of the right shape for the congkak7 board (the simulated board uses
    its own cells' when there is none, so only the calibration cases have one)."""
    calibration = {
        "version": 1,
        "board": "congkak7",
        "cells": [{"offset": 0.0, "counts_per_g": 420.0}] * 16,  # 14 pits and 2 stores
        "seed_g": None,
        "seed_cv": None,
        "saved": "2026-01-01T00:00:00Z",
    }
    path.write_text(json.dumps(calibration, indent=1) + "\n")


def one_case(base: Path, work: Path, name: str, how: str, rng: random.Random) -> dict[str, Any]:
    shutil.copytree(base, work)
    before = durable_moves(work)
    if name == "calibration.json":
        calibration_file(work / name)
    damage(work / name, how, rng)
    config = work.parent / f"{work.name}.toml"
    config.write_text(demo_config(work))
    row: dict[str, Any] = {"file": name, "damage": how, "moves_before": len(before.history)}
    try:
        daemon = DaemonProcess(config)
    except RuntimeError as err:
        row.update(starts=False, message=str(err)[-300:], kept=_kept(work, name), plays=False)
        return row
    try:
        state = wait_playing(daemon, PLAY_S)
        shown = state or daemon.state()
        notices = [n["text"] for n in shown["daemon"]["notices"]] + [
            f"{f['kind']}: {f['detail']}" for f in shown["daemon"]["faults"]
        ]
        row.update(
            starts=True,
            message=" / ".join(notices) or "(none)",
            kept=_kept(work, name),
            plays=state is not None,
            moves_after=len(shown["game"]["history"]),
        )
    finally:
        daemon.stop()
    return row


def _kept(work: Path, name: str) -> str:
    copies = sorted(work.glob(f"{name}.damaged-*"))
    return f"kept as {copies[0].name}" if copies else "no copy"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| file | damage | starts | message on the page | data kept | plays on | moves before/after |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        message = r["message"].replace("|", "\\|").replace("\n", " ")
        lines.append(
            f"| {r['file']} | {r['damage']} | {'yes' if r['starts'] else 'NO'} | {message} | "
            f"{r['kept']} | {'yes' if r['plays'] else 'NO'} | "
            f"{r['moves_before']}/{r.get('moves_after', '-')} |"
        )
    return "\n".join(lines)


def main(seed: int = 13) -> int:
    rng = random.Random(seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sowboard-damage-") as tmp:
        base = Path(tmp) / "base"
        prepare(base)
        for name in FILES:
            for how in DAMAGES:
                rows.append(one_case(base, Path(tmp) / f"{name}-{how}", name, how, rng))
    print(table(rows))
    ok = all(r["starts"] and r["plays"] for r in rows)
    print(json.dumps({"cases": len(rows), "all_start_and_play": ok, "rows": rows}))
    return 0 if ok else 1
