"""Live pages: the server-sent event stream of status snapshots (`/api/events`)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from controller.daemon.link import DaemonLink


def status_event(status: dict[str, Any]) -> str:
    """One server-sent event carrying a whole snapshot."""
    data = json.dumps(status, separators=(",", ":"))
    return f"id: {status.get('version', 0)}\nevent: status\ndata: {data}\n\n"


class SharedEvents:
    """Each snapshot encoded once, as bytes, for every live page: 50 pages cost one
    `json.dumps` of a snapshot and one copy of its text, not 50 (the encoding was most of a
    stream's CPU time, and the copies, made in 50 threads, most of its memory)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = -1
        self._data = b""

    def event(self, status: dict[str, Any]) -> bytes:
        version = int(status.get("version", 0))
        with self._lock:
            if version != self._version:
                self._data = status_event(status).encode("utf-8")
                self._version = version
            return self._data


def event_stream(
    link: DaemonLink,
    first: dict[str, Any],
    *,
    heartbeat_s: float,
    poll_s: float,
    stopping: Callable[[], bool],
    clock: Callable[[], float] = time.monotonic,
    encode: Callable[[dict[str, Any]], bytes] | None = None,
) -> Iterator[bytes]:
    """The full snapshot, then every newer one; a comment line when idle for `heartbeat_s`."""
    encode = encode or (lambda status: status_event(status).encode("utf-8"))
    version = int(first.get("version", 0))
    yield b"retry: 2000\n"
    yield encode(first)
    last_sent = clock()
    while not stopping():
        newer = link.wait_for_change(version, min(poll_s, heartbeat_s))
        if newer is not None and int(newer.get("version", 0)) != version:
            version = int(newer.get("version", 0))
            yield encode(newer)
            last_sent = clock()
        elif clock() - last_sent >= heartbeat_s:
            yield b": keep-alive\n\n"
            last_sent = clock()
