"""Serving the web application with waitress (never the Flask development server).

Waitress runs every request on a fixed pool of worker threads, and an open event stream
(`/api/events`) holds one of them for as long as the page is open. The pool is therefore sized
as the app's `SSE_MAX_STREAMS` plus `SPARE_THREADS` for ordinary requests; the app refuses more
streams than that (503) and the page falls back to polling.

`serve()` blocks, so it can be the body of a daemon thread of the board daemon; `WebServer`
does the same with a clean `stop()` from another thread (the loop runs in its own thread and
checks a flag between short polls, so the sockets are closed by the thread that owns them).
"""

from __future__ import annotations

import errno
import threading
from typing import Any

from flask import Flask
from waitress import wasyncore
from waitress.server import BaseWSGIServer, MultiSocketServer, create_server

from web_ui.app import stop_streams

SPARE_THREADS = 4
POLL_S = 0.2


def make_server(
    app: Flask, host: str = "127.0.0.1", port: int = 8080, *, threads: int | None = None
) -> BaseWSGIServer | MultiSocketServer:
    """A bound, not yet running waitress server for `app` (port 0 picks a free port)."""
    if threads is None:
        threads = int(app.config.get("SSE_MAX_STREAMS", 12)) + SPARE_THREADS
    try:
        return _create_server(app, host, port, threads)
    except ValueError as err:  # waitress's word for a host that does not resolve
        raise OSError(errno.EADDRNOTAVAIL, f"{host!r} is not an address here ({err})") from None


def _create_server(
    app: Flask, host: str, port: int, threads: int
) -> BaseWSGIServer | MultiSocketServer:
    return create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="sowboard",
        clear_untrusted_proxy_headers=True,
        channel_timeout=60,
        # Keep reading a connection while its request runs, so that a closed page is seen at
        # once (`waitress.client_disconnected`) rather than at the second write that fails:
        # an event stream otherwise held its slot for two heartbeats (30 s and more).
        channel_request_lookahead=1,
        # Refuse a body larger than the app takes before it is read: waitress otherwise buffers
        # up to a gigabyte (the first half megabyte in memory) only for Flask to answer 413.
        max_request_body_size=int(app.config.get("MAX_CONTENT_LENGTH") or 256 * 1024),
    )


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8080, **kw: Any) -> None:
    """Serve `app` until the process ends (blocks; fine as a daemon thread's body)."""
    server = WebServer(app, host, port, **kw)
    server.run()


class WebServer:
    """A waitress server that runs in the calling thread or its own and stops on request."""

    def __init__(
        self, app: Flask, host: str = "127.0.0.1", port: int = 8080, *, threads: int | None = None
    ) -> None:
        self.app = app
        self.server = make_server(app, host, port, threads=threads)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        server = self.server
        if isinstance(server, MultiSocketServer):
            return int(server.effective_listen[0][1])
        return int(server.effective_port)

    @property
    def host(self) -> str:
        server = self.server
        if isinstance(server, MultiSocketServer):
            return str(server.effective_listen[0][0])
        return str(server.effective_host)

    @property
    def url(self) -> str:
        host = self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def run(self) -> None:
        """Serve until `stop()`; then end the event streams and close every socket."""
        server = self.server
        socket_map = server.map if isinstance(server, MultiSocketServer) else server._map
        try:
            while not self._stop.is_set():
                wasyncore.loop(timeout=POLL_S, map=socket_map, count=1)
        finally:
            stop_streams(self.app)
            server.task_dispatcher.shutdown(timeout=2)
            wasyncore.close_all(socket_map)

    def start(self) -> WebServer:
        """Run in a daemon thread; returns self (so `WebServer(...).start().url` works)."""
        self._thread = threading.Thread(target=self.run, name="sowboard-web", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
