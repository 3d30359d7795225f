"""Files in the data directory, written so that a pulled plug never leaves half a file.

Museums pull the plug (HARDWARE.md): every file that is rewritten goes to a temporary file in
the same directory, is fsynced, renamed over the old one, and the directory is fsynced, so
after a power cut there is either the old file or the new one. The journal is the only file
appended to (journal.py).

- `calibration.json`: the zero and scale of every cell, and the seed mass if it was measured.
- `sim_board.json`: on the simulated board, where the seeds physically lie (the simulated
  wood must survive a restart like real wood does), and which game and how many of its
  journaled steps that layout goes with: the journal and the layout are two files written at
  different moments, and a restart compares the two to tell a layout that lags the journal.
- `recordings/`: the flight recorder's recordings of raw frames (controller/daemon/recorder.py).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules import Position, Rules

CALIBRATION_FILE = "calibration.json"
SIM_BOARD_FILE = "sim_board.json"
JOURNAL_FILE = "game.jsonl"
RECORDS_FILE = "records.jsonl"
RECORDINGS_DIR = "recordings"


class DataFileError(ValueError):
    """A data file that cannot be used; the message names the file and why."""


def fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a crash leaves the old or the new file, never half."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """`write_atomic` for bytes (a compressed recording)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    fsync_dir(path.parent)


def write_json_atomic(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1) + "\n")


def append_synced(path: Path, text: str) -> None:
    """Append `text` to `path` and fsync it; on failure the file is cut back to where it was
    (a half line would make the lines after it unreadable), and the error raised."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        append_fd(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def append_fd(fd: int, data: bytes) -> None:
    """Append `data` to the open file `fd` and fsync; on failure cut the file back to where
    it was and raise (unbuffered: nothing is left in a buffer to be written later)."""
    size = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        raise


def keep_damaged(path: Path) -> Path | None:
    """Keep a copy of a damaged data file beside it (`NAME.damaged-STAMP`) before it is
    replaced, for whoever wants to look; None when there is nothing to keep. Anything but a
    file in its place (a directory a card's repair left) is moved aside whole: left there, it
    refused every write of the file for ever. Raises OSError when neither can be done."""
    if not path.exists() and not path.is_symlink():
        return None
    target = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    if path.is_file():
        target.write_bytes(path.read_bytes())
    else:
        path.rename(target)
    return target


def _now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise DataFileError(f"{path}: cannot read: {err}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataFileError(f"{path}: invalid JSON at line {err.lineno}: {err.msg}") from None
    except RecursionError:  # (brackets nested past the parser's recursion: damage too)
        raise DataFileError(f"{path}: invalid JSON: nested too deep") from None


# -- calibration --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Calibration:
    """Per cell (zero offset in raw counts, raw counts per gram), and what the seeds weigh.

    `seed_g` / `seed_cv` are set by the `layout` stage (the start layout weighed); None until
    then, when the referee estimates them from the board each time it starts.
    """

    cells: tuple[tuple[float, float], ...]
    seed_g: float | None = None
    seed_cv: float | None = None
    origin: str = "file"  # file | simulator | nominal

    def to_json(self, board: str) -> dict[str, Any]:
        return {
            "version": 1,
            "board": board,
            "cells": [{"offset": o, "counts_per_g": s} for o, s in self.cells],
            "seed_g": self.seed_g,
            "seed_cv": self.seed_cv,
            "saved": _now_iso(),
        }


def load_calibration(path: Path, board: str, cell_count: int) -> Calibration | None:
    """The calibration file, or None when there is none; DataFileError when it is unusable."""
    if not path.exists():
        return None
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise DataFileError(f"{path}: expected an object with a list of cells")
    if data.get("board") != board:
        raise DataFileError(
            f"{path}: made for board {data.get('board')!r}, this is board {board!r}"
        )
    cells = data["cells"]
    if len(cells) != cell_count:
        raise DataFileError(f"{path}: {len(cells)} cells, the board has {cell_count}")
    out: list[tuple[float, float]] = []
    for k, cell in enumerate(cells):
        try:
            offset = float(cell["offset"])
            scale = float(cell["counts_per_g"])
        except (TypeError, KeyError, ValueError):
            raise DataFileError(f"{path}: cells[{k}]: needs offset and counts_per_g") from None
        if not (math.isfinite(offset) and math.isfinite(scale)) or abs(scale) < 1e-3:
            raise DataFileError(f"{path}: cells[{k}]: offset {offset}, scale {scale} unusable")
        out.append((offset, scale))
    seed_g = data.get("seed_g")
    seed_cv = data.get("seed_cv")
    return Calibration(
        tuple(out),
        float(seed_g) if isinstance(seed_g, int | float) and seed_g > 0 else None,
        float(seed_cv) if isinstance(seed_cv, int | float) and seed_cv > 0 else None,
    )


def save_calibration(path: Path, board: str, calibration: Calibration) -> None:
    write_json_atomic(path, calibration.to_json(board))


# -- the simulated board's seeds ----------------------------------------------------------------


@dataclass(frozen=True)
class SimLayout:
    """Where the simulated seeds lay, and the point of the journal they go with.

    `game` is the journal's `started` stamp and `steps` how many of its steps had been
    journaled when the layout was saved (None for a file from before they were written)."""

    position: Position
    game: str | None
    steps: int | None


def layout_json(
    board: str, rules: Rules, truth: dict[str, Any], game: str, steps: int
) -> dict[str, Any]:
    """What `sim_board.json` holds: counts per place (the hands must be empty)."""
    return {
        "version": 1,
        "board": board,
        "pits": rules.n,
        "layout": {"pits": truth["pits"], "stores": truth["stores"]},
        "game": game,
        "steps": steps,
        "saved": _now_iso(),
    }


def load_sim_board(path: Path, board: str, rules: Rules) -> SimLayout | None:
    """Where the simulated seeds lay when the daemon stopped (None: no file)."""
    if not path.exists():
        return None
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("layout"), dict):
        raise DataFileError(f"{path}: expected an object with a layout")
    if data.get("board") != board or data.get("pits") != rules.n:
        raise DataFileError(
            f"{path}: a layout for board {data.get('board')!r} with {data.get('pits')} pits, "
            f"the game is {rules.n} pits on {board!r}"
        )
    layout = data["layout"]
    pits = layout.get("pits")
    stores = layout.get("stores")
    ok = (
        isinstance(pits, list)
        and len(pits) == 2
        and all(isinstance(r, list) and len(r) == rules.n for r in pits)
        and isinstance(stores, list)
        and len(stores) == 2
    )
    counts = [*(pits[0] if ok else []), *(pits[1] if ok else []), *(stores if ok else [])]
    if not ok or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        raise DataFileError(f"{path}: layout must hold 2 rows of {rules.n} counts and 2 stores")
    game, steps = data.get("game"), data.get("steps")
    return SimLayout(
        Position((tuple(pits[0]), tuple(pits[1])), (stores[0], stores[1]), 0),
        game if isinstance(game, str) else None,
        steps if isinstance(steps, int) and not isinstance(steps, bool) else None,
    )


# -- finished games -----------------------------------------------------------------------------


def damaged_record_lines(text: str) -> list[str]:
    """What is wrong with `records.jsonl`'s lines, one text a damaged line (none: intact).
    A record is a JSON object with a list of moves, one a line, the last closed by its newline."""
    problems = []
    lines = text.split("\n")
    if lines[-1]:
        problems.append(f"line {len(lines)}: cut short (no end of line)")
    for number, line in enumerate(lines[:-1], 1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            problems.append(f"line {number}: not JSON")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("moves"), list):
            problems.append(f"line {number}: not a game record")
    return problems


def good_record_lines(text: str) -> str:
    """The whole, intact lines of `records.jsonl`'s text."""
    kept = []
    for line in text.split("\n")[:-1]:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and isinstance(record.get("moves"), list):
            kept.append(line + "\n")
    return "".join(kept)
