"""The game journal: every recognised step on disk before the plug can be pulled.

`game.jsonl` in the data directory holds one JSON object per line, each closed by a CRC-32 of
the line's own text (`"crc"`, 8 hex digits), so that a line damaged on the SD card is told from
a good one even when it still parses:

    {"type":"game","v":1,"variant":"congkak","options":{},"board":"congkak7","started":"...","crc":"..."}
    {"type":"seed","seed_g":5.41,"seed_cv":0.04,"crc":"..."}      # the seed mass the referee measured
    {"type":"step","t":12.3,"player":0,"step":"pickup","at":[0,3],"crc":"..."}
    {"type":"retract","keep":17,"crc":"..."}                        # steps after the 17th are void

A new game rewrites the file (atomically, files.write_atomic); steps are appended, one line and
one fsync each, by a writer thread so that a slow SD card never stalls the daemon's loop.
`retract` exists because the referee takes a landing on the rise and takes it back if the level
settles without a seed (a finger on the cup); it is rare and keeps the file append-only.

Reading (`read_journal`) keeps the intact beginning: the first line that is truncated, not
JSON, fails its CRC or does not fit (a step the rules refuse) ends what is used, and each
problem is reported with its line number and why. `replay` feeds the steps into a new
`StepFollower` and resumes at the last whole move: a move cut off by a restart is taken back,
because the seeds that were in the hand cannot be weighed and the player is shown where the
seeds go back instead.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules import OptionError, Phase, Rules, Step, StepFollower

from .files import fsync_dir, write_atomic

JOURNAL_VERSION = 1


class JournalError(ValueError):
    """A journal that cannot be used at all (no valid first line)."""


def encode_line(entry: Mapping[str, Any]) -> str:
    """One journal line: the entry as compact JSON, closed by the CRC-32 of that text."""
    payload = json.dumps(entry, separators=(",", ":"))
    crc = zlib.crc32(payload.encode("utf-8"))
    return f'{payload[:-1]},"crc":"{crc:08x}"}}\n'


def decode_line(text: str) -> dict[str, Any]:
    """The entry of one line (without its newline); ValueError says what is wrong with it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    crc = data.pop("crc", None)
    if not isinstance(crc, str):
        raise ValueError("no checksum")
    payload = json.dumps(data, separators=(",", ":"))
    if f"{zlib.crc32(payload.encode('utf-8')):08x}" != crc:
        raise ValueError("checksum mismatch (damaged line)")
    return data


def game_header(variant: str, options: Mapping[str, Any], board: str) -> dict[str, Any]:
    return {
        "type": "game",
        "v": JOURNAL_VERSION,
        "variant": variant,
        "options": dict(options),
        "board": board,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def step_entry(t: float, step: Step) -> dict[str, Any]:
    return {"type": "step", "t": round(t, 4), **step.to_json()}


@dataclass
class JournalStep:
    line: int
    t: float
    step: Step


@dataclass
class Journal:
    """What a journal file holds (its intact part) and what was wrong with the rest."""

    header: dict[str, Any]
    steps: list[JournalStep] = field(default_factory=list)
    seed_g: float | None = None
    seed_cv: float | None = None
    problems: list[str] = field(default_factory=list)
    lines_kept: int = 0
    lines_total: int = 0

    @property
    def variant(self) -> str:
        return str(self.header["variant"])

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.header.get("options") or {})

    @property
    def board(self) -> str:
        return str(self.header.get("board", ""))

    def entries(self) -> list[dict[str, Any]]:
        """The journal's content as it should be rewritten (retracts applied)."""
        out = [dict(self.header)]
        if self.seed_g is not None:
            out.append({"type": "seed", "seed_g": self.seed_g, "seed_cv": self.seed_cv})
        out.extend(step_entry(s.t, s.step) for s in self.steps)
        return out


def read_journal(path: Path) -> Journal | None:
    """The intact part of the journal at `path` (None: no journal); problems are listed.

    JournalError when not even the first line (the game) can be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise JournalError(f"{path}: cannot read: {err}") from None
    lines = raw.split(b"\n")
    complete = raw.endswith(b"\n")
    if complete:
        lines = lines[:-1]
    total = len(lines)
    journal: Journal | None = None
    for number, data in enumerate(lines, start=1):
        last = number == total
        why = _check_line(data, last and not complete)
        entry: dict[str, Any] | None = None
        if why is None:
            try:
                entry = decode_line(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as err:
                why = str(err)
        if why is None and entry is not None:
            why = _apply(journal, entry, number)
            if why is None and journal is None:
                journal = Journal(header=entry)
        if why is not None:
            if journal is None:
                raise JournalError(f"{path}: line {number}: {why}; no game can be read")
            rest = total - number
            dropped = f" (and {rest} line{'s' if rest != 1 else ''} after it)" if rest else ""
            journal.problems.append(f"line {number}: {why}; dropped{dropped}")
            journal.lines_total = total
            return journal
        assert journal is not None
        journal.lines_kept = number
    if journal is None:
        if total == 0:
            return None
        raise JournalError(f"{path}: no game in the journal")
    journal.lines_total = total
    return journal


def _check_line(data: bytes, unfinished: bool) -> str | None:
    if unfinished:
        return "truncated (the power went off while it was written)"
    if not data.strip():
        return "empty line"
    return None


def _apply(journal: Journal | None, entry: dict[str, Any], number: int) -> str | None:
    """Add a decoded entry to the journal; the reason if it does not fit."""
    kind = entry.get("type")
    if journal is None:
        if kind != "game":
            return f"the first line must start a game, not {kind!r}"
        if entry.get("v") != JOURNAL_VERSION:
            return f"journal version {entry.get('v')!r}, this daemon writes {JOURNAL_VERSION}"
        if not isinstance(entry.get("variant"), str) or not isinstance(
            entry.get("options", {}), dict
        ):
            return "the game line needs a variant and options"
        return None
    if kind == "step":
        try:
            step = Step.from_json(entry)
            t = float(entry.get("t", 0.0))
        except (ValueError, TypeError) as err:
            return f"bad step: {err}"
        journal.steps.append(JournalStep(number, t, step))
        return None
    if kind == "retract":
        keep = entry.get("keep")
        if not isinstance(keep, int) or not 0 <= keep <= len(journal.steps):
            return f"retract keep={keep!r} does not fit {len(journal.steps)} steps"
        del journal.steps[keep:]
        return None
    if kind == "seed":
        seed_g = entry.get("seed_g")
        if not isinstance(seed_g, int | float) or seed_g <= 0:
            return f"seed mass {seed_g!r} is not a positive number"
        journal.seed_g = float(seed_g)
        cv = entry.get("seed_cv")
        journal.seed_cv = float(cv) if isinstance(cv, int | float) and cv > 0 else None
        return None
    return f"unknown entry type {kind!r}"


# -- replay ---------------------------------------------------------------------------------------


def at_move_boundary(follower: StepFollower) -> bool:
    """Between moves: no seeds in a hand, nothing left to capture or sweep."""
    if follower.pending_sweeps or any(h.seeds for h in follower.hands):
        return False
    if follower.over:
        return True
    active = follower.active_players()
    return bool(active) and all(follower.hands[p].phase is Phase.START for p in active)


@dataclass
class Replay:
    """A journal fed into the rules engine, resumed at its last whole move."""

    rules: Rules
    follower: StepFollower
    steps: list[JournalStep]  # the steps the follower was fed (whole moves only)
    taken_back: list[JournalStep]  # a move the restart cut off
    problems: list[str]


def replay(journal: Journal, rules: Rules | None = None) -> Replay:
    """Feed the journal's steps to a new StepFollower; stop at the first step the rules refuse.

    `rules` defaults to the journal's own variant and options (OptionError if they are no
    longer valid).
    """
    rules = rules or Rules.for_variant(journal.variant, journal.options)
    follower = StepFollower.new(rules)
    problems = list(journal.problems)
    boundary = follower.copy()
    boundary_at = 0
    fed = 0
    for k, entry in enumerate(journal.steps):
        try:
            verdict = follower.feed(entry.step)
        except ValueError as err:
            verdict_reason: str | None = str(err)
        else:
            verdict_reason = None if verdict.accepted else verdict.reason
        if verdict_reason is not None:
            problems.append(
                f"line {entry.line}: step {entry.step} does not follow the rules here "
                f"({verdict_reason}); it and the steps after it are dropped"
            )
            break
        fed = k + 1
        if at_move_boundary(follower):
            boundary = follower.copy()
            boundary_at = fed
    taken_back = journal.steps[boundary_at:fed]
    return Replay(rules, boundary, journal.steps[:boundary_at], taken_back, problems)


def load_game(path: Path) -> tuple[Journal, Replay] | None:
    """Read and replay the journal; None when there is none. Unusable: JournalError."""
    journal = read_journal(path)
    if journal is None:
        return None
    try:
        return journal, replay(journal)
    except OptionError as err:
        raise JournalError(f"{path}: line 1: the game's options are not valid: {err}") from None


# -- writing --------------------------------------------------------------------------------------


class JournalWriter:
    """Writes the journal (and other small files) in order, in its own thread.

    `append` returns at once; the writer thread writes and fsyncs one line at a time. `rewrite`
    replaces the whole file atomically. `call` runs any other file job in the same order
    (the simulated board's layout, the records of finished games). Errors are reported on
    stderr and kept in `errors`; the daemon carries on (a full SD card must not stop a game).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.errors: list[str] = []
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._file: Any = None
        self._thread = threading.Thread(target=self._run, name="sowboard-journal", daemon=True)
        self._thread.start()

    def rewrite(self, entries: list[dict[str, Any]]) -> None:
        self._queue.put(("rewrite", [encode_line(e) for e in entries]))

    def append(self, entry: dict[str, Any]) -> None:
        self._queue.put(("append", encode_line(entry)))

    def call(self, job: Callable[[], None]) -> None:
        self._queue.put(("call", job))

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued so far is on disk; False on timeout."""
        done = threading.Event()
        self._queue.put(("call", done.set))
        return done.wait(timeout)

    def close(self, timeout: float = 10.0) -> None:
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                self._close_file()
                return
            what, arg = item
            try:
                if what == "append":
                    self._append(arg)
                elif what == "rewrite":
                    self._close_file()
                    write_atomic(self.path, "".join(arg))
                else:
                    arg()
            except Exception as err:  # keep writing later entries; report this one
                message = f"{self.path}: {what} failed: {err}"
                self.errors.append(message)
                print(f"sowboard: {message}", file=sys.stderr, flush=True)

    def _append(self, line: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            created = not self.path.exists()
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open
            if created:
                fsync_dir(self.path.parent)
        self._file.write(line)
        self._file.flush()
        os.fsync(self._file.fileno())

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
