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

import contextlib
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

from .files import append_fd, append_synced, fsync_dir, write_atomic
from .health import WriteHealth
from .match import parse_match, round_follower

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
    except RecursionError:  # (brackets nested past the parser's recursion: damage too)
        raise ValueError("not JSON (nested too deep)") from None
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
    overruns: list[dict[str, Any]] = field(default_factory=list)  # clock.py's `warn`
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
        out.extend({"type": "overrun", **o} for o in self.overruns)
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
    if kind == "overrun":
        return _overrun(journal, entry)
    if kind == "seed":
        seed_g = entry.get("seed_g")
        if not isinstance(seed_g, int | float) or seed_g <= 0:
            return f"seed mass {seed_g!r} is not a positive number"
        journal.seed_g = float(seed_g)
        cv = entry.get("seed_cv")
        journal.seed_cv = float(cv) if isinstance(cv, int | float) and cv > 0 else None
        return None
    return f"unknown entry type {kind!r}"


def _overrun(journal: Journal, entry: dict[str, Any]) -> str | None:
    """A move not started within the time limit (clock.py): {ply, player, limit_s}."""
    ply, player, limit = entry.get("ply"), entry.get("player"), entry.get("limit_s")
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 1:
        return f"overrun ply={ply!r} is not a move number"
    if player not in (0, 1) or isinstance(player, bool):
        return f"overrun player={player!r} is not 0 or 1"
    if isinstance(limit, bool) or not isinstance(limit, int | float) or limit <= 0:
        return f"overrun limit_s={limit!r} is not a number of seconds"
    journal.overruns.append({"ply": ply, "player": player, "limit_s": float(limit)})
    return None


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


def _start(journal: Journal, rules: Rules) -> StepFollower:
    """The journal's game at its start: a match round's own layout (match.py) or the
    variant's."""
    try:
        match = parse_match(journal.header.get("match"), rules.variant, "the game line's match")
    except ValueError as err:
        raise OptionError(str(err)) from None
    return round_follower(rules, None if match is None else match.start)


def replay(journal: Journal, rules: Rules | None = None) -> Replay:
    """Feed the journal's steps to a new StepFollower; stop at the first step the rules refuse.

    `rules` defaults to the journal's own variant and options (OptionError if they are no
    longer valid).
    """
    rules = rules or Rules.for_variant(journal.variant, journal.options)
    follower = _start(journal, rules)
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
    """Writes the journal (and the other data files) in order, in its own thread.

    `append` returns at once; the writer thread writes and fsyncs one line at a time. `rewrite`
    replaces the whole file atomically. `save` runs a job that replaces another file (the
    simulated board's layout, the calibration), `append_to` adds a line to another file (the
    records of finished games), all in the same order.

    A write that fails (a full SD card) must not stop a game, must not lose what it was to
    write, and must not go unseen. So nothing is dropped: a journal line that failed is cut
    off the file again (no half line before the next one) and kept with every line after it
    until they all go in; a rewrite that failed keeps the new journal, and the lines after it,
    in memory; a file replaced by a job keeps the newest job; a line for another file waits
    with the lines after it. `retry` tries them all again. Each failure and each success is
    reported to `health` by the file's name, so the page shows a failure at once and clears
    it when that file takes a write again; the message names the file that failed.
    """

    def __init__(self, path: Path, health: WriteHealth | None = None) -> None:
        self.path = path
        self.health = health or WriteHealth()
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._file: int | None = None  # the journal's descriptor, kept open for appends
        # Kept in memory until the disk takes them (only the writer thread touches these):
        self._journal_text: str | None = None  # a whole new journal whose rewrite failed
        self._lines: list[str] = []  # journal lines not yet appended
        self._jobs: dict[Path, Callable[[], None]] = {}  # the newest failed job per file
        self._other_lines: dict[Path, list[str]] = {}  # lines for other files
        self._thread = threading.Thread(target=self._run, name="sowboard-journal", daemon=True)
        self._thread.start()

    def rewrite(self, entries: list[dict[str, Any]]) -> None:
        self._queue.put(("rewrite", "".join(encode_line(e) for e in entries)))

    def append(self, entry: dict[str, Any]) -> None:
        self._queue.put(("append", encode_line(entry)))

    def save(self, path: Path, job: Callable[[], None]) -> None:
        """Run `job`, which replaces the file `path` (a newer job for it supersedes this one)."""
        self._queue.put(("save", (path, job)))

    def append_to(self, path: Path, line: str) -> None:
        """Append `line` (with its newline) to the file `path`, fsynced."""
        self._queue.put(("append_to", (path, line)))

    def retry(self) -> None:
        """Try again every write that failed (the loop calls this while any has)."""
        self._queue.put(("retry", None))

    def call(self, job: Callable[[], None]) -> None:
        """Run `job` in order with the writes (it writes no file: `flush` uses it)."""
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
            if what == "append":
                self._lines.append(arg)
                self._write_journal()
            elif what == "rewrite":
                self._journal_text, self._lines = arg, []
                self._write_journal()
            elif what == "save":
                self._jobs[arg[0]] = arg[1]
                self._run_job(arg[0])
            elif what == "append_to":
                self._other_lines.setdefault(arg[0], []).append(arg[1])
                self._append_other(arg[0])
            elif what == "retry":
                self._retry()
            else:
                arg()

    def _retry(self) -> None:
        if self._journal_text is not None or self._lines:
            self._write_journal()
        for path in list(self._jobs):
            self._run_job(path)
        for path in list(self._other_lines):
            self._append_other(path)

    def _attempt(self, path: Path, what: str, write: Callable[[], None]) -> bool:
        """Run one write of `path`; report how it went (by the file's own name)."""
        try:
            write()
        except Exception as err:
            message = f"{path}: {what} failed: {err}"
            print(f"sowboard: {message}", file=sys.stderr, flush=True)
            self.health.failed(path, message)
            return False
        self.health.succeeded(path)
        return True

    def _write_journal(self) -> None:
        if self._journal_text is not None:
            text = self._journal_text + "".join(self._lines)
            self._close_file()
            if self._attempt(self.path, "rewrite", lambda: write_atomic(self.path, text)):
                self._journal_text, self._lines = None, []
            return
        lines = "".join(self._lines)
        if self._attempt(self.path, "append", lambda: self._append(lines)):
            self._lines = []

    def _run_job(self, path: Path) -> None:
        if self._attempt(path, "write", self._jobs[path]):
            del self._jobs[path]

    def _append_other(self, path: Path) -> None:
        text = "".join(self._other_lines[path])
        if self._attempt(path, "append", lambda: append_synced(path, text)):
            del self._other_lines[path]

    def _append(self, text: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            created = not self.path.exists()
            self._file = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if created:
                fsync_dir(self.path.parent)
        try:
            append_fd(self._file, text.encode("utf-8"))  # cut back to a whole line if it fails
        except OSError:
            self._close_file()  # a fresh descriptor for the next attempt
            raise

    def _close_file(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                os.close(self._file)
            self._file = None
