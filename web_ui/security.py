"""The admin PIN, its lockout, and the checks that keep other web sites from posting to us.

A POST to `/api/...` must be JSON (`Content-Type: application/json`, which a plain HTML form on
another site cannot send without a CORS preflight we never grant) and, when the browser says
where it comes from (`Origin`, else `Referer`), come from this very host. Admin requests carry
the PIN in `X-Sowboard-Pin`, or ride on a session made by `POST /api/admin/login`; a
session-authenticated request must also echo the session's CSRF token in `X-CSRF-Token`.

Wrong PINs are counted per client address: each costs a short delay, and after
`PIN_MAX_FAILURES` in a row the client is locked out for `PIN_LOCKOUT_S` seconds (even the right
PIN is refused then, or the lockout would not slow a guesser down).

Sessions are kept on the server (`web_ui.sessions`): the cookie holds a random id only. Every
request must name the board by one of its own names or an IP address (`check_host`), so that
a rebound DNS name cannot make "this very host" an attacker's site.
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import Request

from web_ui.sessions import COOKIE, AdminSession, SessionStore, csrf_matches
from web_ui.validate import ApiError

PIN_HEADER = "X-Sowboard-Pin"
CSRF_HEADER = "X-CSRF-Token"


@dataclass
class _Record:
    failures: int = 0
    locked_until: float = 0.0


class PinGuard:
    """Checks PINs with `hmac.compare_digest`, counting failures per client.

    The PIN can be replaced while the daemon runs (`sowboard run` on SIGHUP); each PIN has a
    `generation`, and a session remembers the one it was opened with, so that a new PIN ends
    every session the old one opened.
    """

    def __init__(
        self,
        pin: str | None,
        *,
        max_failures: int = 5,
        lockout_s: float = 60.0,
        fail_delay_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 1024,
    ) -> None:
        self._pin = pin.encode() if pin else None
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.fail_delay_s = fail_delay_s
        self._clock = clock
        self._max_clients = max_clients
        self._records: OrderedDict[str, _Record] = OrderedDict()
        self._lock = threading.Lock()
        self.generation = 0

    @property
    def enabled(self) -> bool:
        return self._pin is not None

    def replace(self, pin: str | None) -> None:
        """A new PIN (None: admin off); sessions of the old one end (see `generation`)."""
        with self._lock:
            self._pin = pin.encode() if pin else None
            self.generation += 1

    def _now(self) -> float:
        return self._clock()

    def check(self, client: str, pin: str) -> int:
        """The generation of the PIN if `pin` is right; raise ApiError 403 (wrong) or 429
        (locked out)."""
        now = self._now()
        with self._lock:
            expected, generation = self._pin, self.generation
            record = self._records.get(client)
            if expected is not None and record is not None and record.locked_until > now:
                wait = int(record.locked_until - now) + 1
                raise ApiError(429, f"too many wrong PINs; try again in {wait} s", "pin")
        if expected is None:
            raise ApiError(403, "no admin PIN is set on this board", "pin")
        right = hmac.compare_digest(pin.encode(), expected)
        with self._lock:
            if right:
                self._records.pop(client, None)
                return generation
            record = self._records.setdefault(client, _Record())
            self._records.move_to_end(client)
            while len(self._records) > self._max_clients:
                self._records.popitem(last=False)
            record.failures += 1
            locked = record.failures >= self.max_failures
            if locked:
                record.failures = 0
                record.locked_until = now + self.lockout_s
        if self.fail_delay_s > 0:
            time.sleep(self.fail_delay_s)
        if locked:
            raise ApiError(429, f"too many wrong PINs; try again in {int(self.lockout_s)} s", "pin")
        raise ApiError(403, "wrong PIN", "pin")

    def retry_after(self, client: str) -> int:
        with self._lock:
            record = self._records.get(client)
            if record is None:
                return 0
            return max(0, int(record.locked_until - self._now()) + 1)


def host_name(host: str) -> str:
    """The name in a Host header, without port or trailing dot: "Board.local:8080" ->
    "board.local", "[::1]:8080" -> "::1"."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0].lower()
    return host.rsplit(":", 1)[0].rstrip(".").lower() if host.count(":") == 1 else host.lower()


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    """Whether serving on `host` keeps the page on this machine ("0.0.0.0" does not)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # another name: whatever it resolves to, not only this machine


def check_host(request: Request, allowed: frozenset[str]) -> None:
    """Answer only to the board's own names, or to an IP address: a rebound DNS name (an
    attacker's site that now resolves to the board) arrives with the attacker's name."""
    name = host_name(request.host)
    if is_ip(name) or name in allowed:
        return
    raise ApiError(
        400,
        f"Host {name[:80]!r} is not a name of this board; add it to web.allowed_hosts "
        "in the configuration if it is",
        "host",
    )


def _same_host(url: str, request: Request) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme in ("http", "https") and parts.netloc == request.host)


def check_post(request: Request) -> None:
    """JSON only, and from this host when the browser says where the request comes from."""
    if request.mimetype != "application/json":
        raise ApiError(415, "send a JSON body with Content-Type: application/json", "body")
    origin = request.headers.get("Origin")
    if origin is not None:
        if not _same_host(origin, request):
            raise ApiError(403, f"cross-origin request from {origin[:80]} refused", "origin")
        return
    referer = request.headers.get("Referer")
    if referer is not None and not _same_host(referer, request):
        raise ApiError(403, "cross-origin request refused (Referer)", "origin")


def current_session(
    request: Request, guard: PinGuard, sessions: SessionStore
) -> AdminSession | None:
    """The live admin session the request's cookie names, opened with the PIN in force."""
    return sessions.get(request.cookies.get(COOKIE), guard.generation)


def require_admin(request: Request, guard: PinGuard, sessions: SessionStore) -> None:
    """The PIN header, or a live session with its CSRF token; else ApiError."""
    client = request.remote_addr or "unknown"
    pin = request.headers.get(PIN_HEADER)
    if pin is not None:
        guard.check(client, pin)
        return
    if not guard.enabled:
        raise ApiError(403, "no admin PIN is set on this board", "pin")
    session = current_session(request, guard, sessions)
    if session is None:
        raise ApiError(
            403, f"admin PIN needed ({PIN_HEADER} header or log in; sessions expire)", "pin"
        )
    if not csrf_matches(session, request.headers.get(CSRF_HEADER, "")):
        raise ApiError(403, f"missing or wrong CSRF token ({CSRF_HEADER} header)", "csrf")
