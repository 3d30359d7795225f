"""The flight recorder: the last few minutes of raw frames, saved when something went wrong.

The loop hands it every frame; it keeps them in a ring of flat arrays (a Pi keeps 3 minutes
of 80 SPS x 16 cells in about 1.2 MB instead of the 15 MB the same frames take as Python
objects) and writes them out (controller/sensing/recording.py) a few seconds after a flag is
raised, so the aftermath is in too, and when asked (the admin page, `sowboard record`).

A recording must let the referee start exactly where the live one was at its first frame, so
it begins at an **anchor**, a point the referee can be started from:

- `start`: the frames the live referee itself was started from (the board weighed at rest
  after a new game, an undo or a restart); a replay from here is the live computation again;
- `rest`: the board at rest between moves with no flag up (noted every `ANCHOR_EVERY_S` at most), so
  that a game longer than the ring still replays: a new referee starts there from the game's
  steps so far, as the live one would after a restart.

Anchors, frames and triggers belong to one referee session (`new_session`): a new game, an
undo or a calibration starts the follower over, and a recording never spans two.

Saving copies the frames out of the ring (a memcpy of the arrays) on the loop thread and
compresses and writes them on a thread of its own, so neither the loop nor the journal waits.
A recording the card refuses is reported to the daemon's `WriteHealth` like any data file (a
`write_failed` flag on the page and the lights) and kept, compressed, until `retry` writes it
(the newest one only, so that a card full for hours does not fill the memory too).
"""

from __future__ import annotations

import contextlib
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.board import Board
from controller.rules import Step
from controller.sensing.frames import Frame
from controller.sensing.recording import SUFFIX, encode_recording

from .config import RecorderSettings
from .files import write_bytes_atomic
from .health import WriteHealth
from .status import RecorderStatus

MISSING = -(1 << 31)  # a cell that gave nothing (readings are 24-bit, so it cannot clash)
AFTER_FLAG_S = 5.0  # a flag's recording waits this long for the aftermath ...
BURST_MAX_S = 20.0  # ... and a burst of flags this long at most after its first
# The board at rest between moves is noted this often at most (a sixth of the ring, so a
# short ring still holds a few).
ANCHOR_EVERY_S = 10.0
REST_CHECK_S = 0.25  # how often the loop is asked to check for rest (it weighs a second)
HEADROOM = 1.25  # the ring holds this much more than `seconds` at the nominal rate


def read_board_text(board: Board) -> str:
    """The board file's text, so a recording of a builder's own board replays anywhere."""
    try:
        return Path(board.source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


class FrameRing:
    """The last `capacity` frames of `cells` readings each, in three flat arrays.

    >>> ring = FrameRing(cells=2, capacity=3)
    >>> for k in range(5):
    ...     ring.add(Frame(k * 0.1, (k, None), seq=k))
    >>> [f.seq for f in ring.copy(0)], ring.total
    ([2, 3, 4], 5)
    >>> list(ring.copy(4))
    [Frame(t=0.4, raw=(4, None), seq=4)]
    """

    def __init__(self, cells: int, capacity: int) -> None:
        self.cells = cells
        self.capacity = capacity
        self.t = array("d", bytes(8 * capacity))
        self.seq = array("q", bytes(8 * capacity))
        self.raw = array("i", bytes(4 * cells * capacity))
        self.total = 0  # frames ever added: frame k (0-based) is in slot k % capacity

    def add(self, frame: Frame) -> None:
        slot = self.total % self.capacity
        self.t[slot] = frame.t
        self.seq[slot] = frame.seq
        base = slot * self.cells
        self.raw[base : base + self.cells] = array(
            "i", [MISSING if r is None else r for r in frame.raw]
        )
        self.total += 1

    def oldest(self) -> int:
        """The number of the oldest frame still held."""
        return max(0, self.total - self.capacity)

    def t_of(self, k: int) -> float:
        return self.t[k % self.capacity]

    def copy(self, first: int) -> FrameBlock:
        """Frames `first`.. up to the newest, copied out (C-level slices: cheap on the loop)."""
        first = max(first, self.oldest())
        a = first % self.capacity
        b = a + self.total - first
        wraps = b > self.capacity
        parts = [(a, self.capacity), (0, b - self.capacity)] if wraps else [(a, b)]
        t, seq, raw = array("d"), array("q"), array("i")
        for lo, hi in parts:
            t.extend(self.t[lo:hi])
            seq.extend(self.seq[lo:hi])
            raw.extend(self.raw[lo * self.cells : hi * self.cells])
        return FrameBlock(self.cells, t, seq, raw)


@dataclass(frozen=True)
class FrameBlock:
    """Frames copied out of the ring, turned back into `Frame`s only when written."""

    cells: int
    t: array[float]
    seq: array[int]
    raw: array[int]

    def __len__(self) -> int:
        return len(self.t)

    def __iter__(self) -> Iterator[Frame]:
        cells = self.cells
        for k in range(len(self.t)):
            row = self.raw[k * cells : (k + 1) * cells]
            raw = tuple(None if r == MISSING else r for r in row)
            yield Frame(self.t[k], raw, self.seq[k])


@dataclass(frozen=True)
class Anchor:
    """A frame the referee can be started from, and the game's steps before it."""

    first: int  # the frame's number in the ring
    t: float  # its time
    kind: str  # start | rest
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class SessionInfo:
    """What a recording's header says about the game and the board (fixed for a session)."""

    board: str
    board_text: str
    variant: str
    options: dict[str, Any]
    calibration: tuple[tuple[float, float], ...]
    steps: tuple[Step, ...]  # the game's steps when the session began (the setup's follower)
    # The game's start when it is not the variant's (a match round's): {pits, stores, to_move}.
    layout: dict[str, Any] | None = None


LiveResults = Callable[[float], dict[str, Any]]  # first frame's t -> {"steps", "flags"}


class Recorder:
    """The flight recorder (see the module docstring). Only the loop thread calls it, but for
    `status()`'s figures, which the writer thread updates."""

    def __init__(
        self,
        settings: RecorderSettings,
        directory: Path,
        cells: int,
        rate_sps: float,
        live: LiveResults,
        software: str,
        out: Callable[[str], None] = print,
        writes: WriteHealth | None = None,
    ) -> None:
        self.settings = settings
        self.directory = directory
        self.rate_sps = rate_sps
        self.ring = FrameRing(cells, max(1, int(settings.seconds * rate_sps * HEADROOM)))
        self.live = live
        self.software = software
        self.out = out
        self.session: SessionInfo | None = None
        self.session_first = 0
        self.anchors: list[Anchor] = []
        self.flags_seen = 0
        self.burst: tuple[float, float] | None = None  # (first flag's t, when to save)
        self._rest_asked = -1e9
        self._last_flag_save = -1e9
        self.saved = 0
        self.last: str | None = None
        self.error: str | None = None
        self._stamp = ("", 0)  # the last file name's time stamp, and how many had it
        self.writes = writes or WriteHealth()
        self._unsaved: tuple[str, bytes] | None = None  # the newest the card refused
        self._unsaved_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="sowboard-recorder")

    # -- fed by the loop --------------------------------------------------------------------------

    def add(self, frames: list[Frame]) -> None:
        for frame in frames:
            self.ring.add(frame)

    def new_session(self, session: SessionInfo) -> None:
        """The follower starts over (a new game, an undo, a calibration): earlier frames can no
        longer be replayed with it. A flag's recording still waiting for its aftermath is
        saved now, or it would be lost (a new game right after a flag)."""
        if self.burst is not None:
            self._save_burst()
        self.session = session
        self.session_first = self.ring.total
        self.anchors = []
        self.flags_seen = 0

    def anchor(self, window_frames: int, kind: str, steps: tuple[Step, ...]) -> None:
        """The referee can start from the last `window_frames` frames (see the module
        docstring), with the game's `steps` so far."""
        oldest = self.ring.oldest()
        self.anchors = [a for a in self.anchors if a.first >= oldest]
        first = self.ring.total - window_frames
        self.anchors.append(Anchor(first, self.ring.t_of(first), kind, steps))

    def wants_rest_anchor(self, now: float) -> bool:
        """Time to note the board at rest again (the loop checks that it is, at most every
        REST_CHECK_S: between moves a hand may hover for long)."""
        every = min(ANCHOR_EVERY_S, self.settings.seconds / 6)
        if (
            self.anchors and now - self.anchors[-1].t < every
        ) or now - self._rest_asked < REST_CHECK_S:
            return False
        self._rest_asked = now
        return True

    def tick(self, now: float, newest_flag: int) -> None:
        """`newest_flag`: the serial of the newest flag the session's referee raised. A new
        one starts (or joins) a burst, saved `AFTER_FLAG_S` after its last flag, and half a
        ring after the last flag's recording at the soonest: a flag that comes and goes all
        day (a loose cable) must not write the SD card all day."""
        if newest_flag > self.flags_seen:
            self.flags_seen = newest_flag
            if self.settings.on_flag:
                first = now if self.burst is None else self.burst[0]
                due = min(now + AFTER_FLAG_S, first + BURST_MAX_S)
                self.burst = (first, max(due, self._last_flag_save + self.settings.seconds / 2))
        if self.burst is not None and now >= self.burst[1]:
            self._save_burst()

    def _save_burst(self) -> None:
        assert self.burst is not None
        first_flag = self.burst[0]
        self.burst = None
        self._last_flag_save = self.ring.t_of(self.ring.total - 1) if self.ring.total else 0.0
        with contextlib.suppress(ValueError):  # no frames yet: nothing to save
            self.save("flag", before=first_flag)

    # -- saving -----------------------------------------------------------------------------------

    def start_for(
        self, seconds: float | None = None, before: float | None = None
    ) -> tuple[int, Anchor | None]:
        """The first frame and anchor of a recording: all the session's frames in the ring,
        from its first anchor; of (at least) the last `seconds`, from the last anchor at or
        before that point if there is one; of a flag raised at `before`, from the last anchor
        before it (the least that replays the flag). Without a fitting anchor, all the frames
        and no referee start: they are still evidence, for a person to look at."""
        first = max(self.ring.oldest(), self.session_first)
        anchors = [a for a in self.anchors if a.first >= first]
        if seconds is not None and self.ring.total:
            since = self.ring.t_of(self.ring.total - 1) - seconds
            anchors = [a for a in anchors if a.t <= since][-1:] or anchors
        if before is not None:
            anchors = [a for a in anchors if a.t < before][-1:]
        return (anchors[0].first, anchors[0]) if anchors else (first, None)

    def save(self, reason: str, seconds: float | None = None, before: float | None = None) -> str:
        """Write a recording (in the background; see `start_for`); returns its file name."""
        if self.session is None or self.ring.total <= self.session_first:
            raise ValueError("no frames were read yet")
        first, anchor = self.start_for(seconds, before)
        block = self.ring.copy(first)
        header = self._header(reason, anchor)
        live = self.live(block.t[0])
        name = self._name(reason)
        self._pool.submit(self._write, name, header, block, live)
        return name

    def _header(self, reason: str, anchor: Anchor | None) -> dict[str, Any]:
        session = self.session
        assert session is not None
        steps = anchor.steps if anchor is not None else session.steps
        return {
            "software": self.software,
            "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "reason": reason,
            "board": {"name": session.board, "file": session.board_text},
            "variant": session.variant,
            "options": session.options,
            "calibration": [list(pair) for pair in session.calibration],
            "rate_sps": self.rate_sps,
            "cells": self.ring.cells,
            "start": {
                "referee": None if anchor is None else anchor.kind,
                "steps": [s.to_json() for s in steps],
                **({} if session.layout is None else {"layout": session.layout}),
            },
        }

    def _name(self, reason: str) -> str:
        """`rec-DATE-TIME-REASON.jsonl.gz`; `-2`, `-3`, ... for more in the same second."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        k = self._stamp[1] + 1 if self._stamp[0] == stamp else 1
        self._stamp = (stamp, k)
        return f"rec-{stamp}-{reason}{f'-{k}' if k > 1 else ''}{SUFFIX}"

    def _write(
        self, name: str, header: dict[str, Any], block: FrameBlock, live: dict[str, Any]
    ) -> None:
        """The writer thread: compress, then `_store`."""
        try:
            data = encode_recording(header, block, live, pause=lambda: time.sleep(0))
        except Exception as err:
            self.error = f"{name}: {err}"
            self.out(f"recording not saved: {self.error}")
            return
        self._store(name, data)

    def _store(self, name: str, data: bytes) -> None:
        """The writer thread: write atomically, delete the oldest beyond `keep`; a write the
        card refuses is reported and kept for `retry`."""
        path = self.directory / name
        try:
            self._clear_the_way()
            write_bytes_atomic(path, data)
            self._prune()
        except Exception as err:  # a full SD card must not stop a game
            self.error = f"{name}: {err}"
            self.out(f"recording not saved: {self.error}")
            self.writes.failed(self.directory, f"{path}: write failed: {err}")
            with self._unsaved_lock:
                self._unsaved = (name, data)
            return
        self.saved += 1
        self.last = name
        self.error = None
        self.writes.succeeded(self.directory)

    def _clear_the_way(self) -> None:
        """A file where the recordings folder belongs (a card's repair, a slip of the hand)
        refused every recording for ever: it is moved aside (`recordings.damaged-STAMP`)."""
        folder = self.directory
        if folder.is_dir() or not (folder.exists() or folder.is_symlink()):
            return
        kept = folder.with_name(f"{folder.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        folder.rename(kept)
        self.out(f"{folder} was not a folder: kept as {kept}, recordings go to a new folder")

    def retry(self) -> None:
        """Write again the recording the card refused last (the loop calls this while any
        write has failed)."""
        with self._unsaved_lock:
            unsaved, self._unsaved = self._unsaved, None
        if unsaved is not None:
            self._pool.submit(self._store, *unsaved)

    def _prune(self) -> None:
        """The oldest written go first (by time written: names of one second are not in
        order, and one thread writes them all, one after the other)."""
        kept = sorted(self.directory.glob(f"rec-*{SUFFIX}"), key=_written)
        for old in kept[: max(0, len(kept) - self.settings.keep)]:
            with contextlib.suppress(OSError):
                old.unlink()

    def status(self) -> RecorderStatus:
        """For the snapshot's `daemon` section (only what changes seldom: the loop publishes
        a snapshot whenever this changes)."""
        return {
            "seconds": self.settings.seconds,
            "saved": self.saved,
            "last": self.last,
            "error": self.error,
            "pending": self.burst is not None,
        }

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every recording asked for is written (tests, shutdown)."""
        done: Future[None] = self._pool.submit(lambda: None)
        done.result(timeout)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def _written(path: Path) -> tuple[int, str]:
    try:
        return path.stat().st_mtime_ns, path.name
    except OSError:
        return 0, path.name
