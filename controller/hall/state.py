"""What the hall knows of every board that ever published: the broker's messages, gathered.

`Hall.receive` is called from the listener's paho thread with each message; the web pages
read `snapshot()` / `changes(since)` from their own threads. Each board's view is rebuilt as
a new dict when a message changes it (copy on write), so a reader holds an immutable view and
never a lock for long. A version number increases with every change (the pages' event
stream waits on it, as the board page waits on the loop's).

Losses: every event carries the daemon's `seq` (1, 2, ... over all its event topics); the
hall counts the seqs it got and the highest, so `lost` is the events that never arrived
(a daemon that restarted starts at 1 again: the count starts over).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_BOARDS = 200
MAX_PAYLOAD = 64 * 1024
EVENTS_KEPT = 30  # a board's latest events, for its detail page
BOARD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
KINDS = ("status", "availability", "event/move", "event/undo", "event/flag", "record")


@dataclass
class BoardTrack:
    """One board, as the listener's thread keeps it (the view is its immutable face)."""

    board_id: str
    status: dict[str, Any] | None = None
    availability: str = "unknown"
    events: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=EVENTS_KEPT))
    record: dict[str, Any] | None = None
    seqs: set[int] = field(default_factory=set)
    seq_max: int = 0
    messages: int = 0
    last_message: float = 0.0  # wall clock
    version: int = 0

    def take_seq(self, seq: Any) -> None:
        if not isinstance(seq, int) or seq < 1:
            return
        if seq == 1 and self.seq_max > 1:  # the daemon started again
            self.seqs.clear()
            self.seq_max = 0
        self.seqs.add(seq)
        self.seq_max = max(self.seq_max, seq)

    def announced(self) -> int:
        """How many events the board has sent as far as the hall knows: the highest seq
        heard, or the status's count when it says more (an event lost before a status)."""
        said = self.status.get("seq") if self.status else None
        if isinstance(said, int) and self.seq_max <= said:
            return said
        return self.seq_max

    def view(self, broker_up: bool) -> dict[str, Any]:
        return {
            "board": self.board_id,
            "online": broker_up and self.availability == "online",
            "availability": self.availability,
            "status": self.status,
            "events": list(self.events),
            "record": self.record,
            "events_received": len(self.seqs),
            "events_lost": self.announced() - len(self.seqs),
            "messages": self.messages,
            "last_message": self.last_message,
            "version": self.version,
        }


class Hall:
    """Every board heard on `prefix` (see the module docstring)."""

    def __init__(self, prefix: str = "sowboard", *, keep_delays: bool = False) -> None:
        self.prefix = prefix
        self._boards: dict[str, BoardTrack] = {}
        self._views: dict[str, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self.version = 0
        self.broker_up = False
        self.broker_error: str | None = None
        self.rejected = 0  # messages that were not a board's (bad topic, JSON, too many boards)
        # (when the loop published a message and how long it took to arrive here, wall-clock
        # seconds, for `bench hall`)
        self.delays: deque[tuple[float, float]] | None = (
            deque(maxlen=1_000_000) if keep_delays else None
        )
        # board -> when fresh statuses arrived (not the broker's retained copy), for the bench
        self.status_at: dict[str, list[float]] = {}

    # -- the listener's thread --------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes, *, retained: bool = False) -> bool:
        """One message; False when it is not a board's (counted in `rejected`). `retained`:
        the broker's stored copy, sent on subscribing (not a fresh one from the board)."""
        parsed = self._parse(topic, payload)
        if parsed is None:
            self.rejected += 1
            return False
        board_id, kind, body = parsed
        now = time.time()
        with self._cond:
            track = self._boards.get(board_id)
            if track is None:
                if len(self._boards) >= MAX_BOARDS:
                    self.rejected += 1
                    return False
                track = self._boards[board_id] = BoardTrack(board_id)
            self._apply(track, kind, body, now, retained)
            self._changed(track)
        return True

    def _parse(self, topic: str, payload: bytes) -> tuple[str, str, Any] | None:
        head = self.prefix + "/"
        if not topic.startswith(head) or len(payload) > MAX_PAYLOAD:
            return None
        board_id, _, kind = topic[len(head) :].partition("/")
        if not BOARD_ID.fullmatch(board_id) or kind not in KINDS:
            return None
        if kind == "availability":
            text = payload.decode("utf-8", "replace")
            return (board_id, kind, text) if text in ("online", "offline") else None
        try:
            body = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            return None
        return (board_id, kind, body) if isinstance(body, dict) else None

    def _apply(self, track: BoardTrack, kind: str, body: Any, now: float, retained: bool) -> None:
        track.messages += 1
        track.last_message = now
        if kind == "availability":
            track.availability = body
            return
        t = body.get("t")
        if self.delays is not None and isinstance(t, int | float) and not retained:
            self.delays.append((t, now - t))
        if kind == "status":
            track.status = body
            if not retained:
                self.status_at.setdefault(track.board_id, []).append(now)
            return
        track.take_seq(body.get("seq"))
        if kind == "record":
            track.record = body
        track.events.append({**body, "event": kind.removeprefix("event/")})

    def _changed(self, track: BoardTrack) -> None:
        self.version += 1
        track.version = self.version
        self._views = {**self._views, track.board_id: track.view(self.broker_up)}
        self._cond.notify_all()

    def broker(self, up: bool, error: str | None = None) -> None:
        """The hall's own connection to the broker (every board is offline without it)."""
        with self._cond:
            self.broker_up = up
            self.broker_error = error
            for track in self._boards.values():
                self.version += 1
                track.version = self.version
            self._views = {b: t.view(up) for b, t in self._boards.items()}
            self.version += 1
            self._cond.notify_all()

    # -- readers ----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._cond:
            views, version = self._views, self.version
            up, error = self.broker_up, self.broker_error
        return {
            "version": version,
            "broker": {"connected": up, "error": error},
            "boards": [views[b] for b in sorted(views)],
        }

    def board(self, board_id: str) -> dict[str, Any] | None:
        with self._cond:
            return self._views.get(board_id)

    def wait_for_change(self, since: int, timeout: float) -> int:
        """The version once it is above `since` (or the same after `timeout`)."""
        with self._cond:
            self._cond.wait_for(lambda: self.version > since, timeout)
            return self.version

    def changes(self, since: int) -> list[dict[str, Any]]:
        """The boards whose view changed after version `since`."""
        with self._cond:
            views = self._views
        return [v for b, v in sorted(views.items()) if v["version"] > since]
