"""Admin sessions kept on the server, so that they can end.

A signed cookie that says "admin" stays valid for as long as its signing key does: logout
cannot take it back, and a PIN change does not touch it. Here the cookie carries only a random
session id; what it stands for lives in this process's memory, with its CSRF token and two
clocks: a session ends after `idle_s` without use, and `max_age_s` after login whatever
happens. Logout ends it at once, and so does a new PIN: each session remembers the generation
of the PIN it was opened with (`PinGuard.generation`). A restart ends every session.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

COOKIE = "sowboard_admin"


@dataclass
class AdminSession:
    """One logged-in admin: the CSRF token the page must echo, the generation of the PIN it
    was opened with, and when it began and was last used (monotonic seconds)."""

    csrf: str
    pin_generation: int
    opened: float
    used: float


class SessionStore:
    """The open admin sessions by id; at most `max_sessions` (the oldest make room)."""

    def __init__(
        self,
        *,
        idle_s: float,
        max_age_s: float,
        max_sessions: int = 32,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.idle_s = idle_s
        self.max_age_s = max_age_s
        self._max = max_sessions
        self._clock = clock
        self._open: OrderedDict[str, AdminSession] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, pin_generation: int) -> tuple[str, AdminSession]:
        """A new session for the PIN of `pin_generation`: its id (the cookie's value) and its
        record."""
        now = self._clock()
        sid = secrets.token_urlsafe(32)
        session = AdminSession(secrets.token_urlsafe(32), pin_generation, opened=now, used=now)
        with self._lock:
            self._open[sid] = session
            while len(self._open) > self._max:
                self._open.popitem(last=False)
        return sid, session

    def get(self, sid: str | None, pin_generation: int) -> AdminSession | None:
        """The live session with this id (its idle clock restarts), else None; one that
        expired or was opened with another PIN is forgotten."""
        if not sid:
            return None
        now = self._clock()
        with self._lock:
            session = self._open.get(sid)
            if session is None:
                return None
            if (
                session.pin_generation != pin_generation
                or now - session.used > self.idle_s
                or now - session.opened > self.max_age_s
            ):
                del self._open[sid]
                return None
            session.used = now
            return session

    def close(self, sid: str | None) -> None:
        """End the session (logout); an unknown id is fine."""
        with self._lock:
            self._open.pop(sid or "", None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._open)


def csrf_matches(session: AdminSession, sent: str) -> bool:
    """Whether the header's token is the session's (in constant time)."""
    return hmac.compare_digest(sent.encode(), session.csrf.encode())
