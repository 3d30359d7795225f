"""`sowboard hall --mqtt URL`: subscribe to every board on the broker and serve the hall page.

The listener (paho's thread) feeds the `Hall`; waitress serves web_ui/hall.py. The page is on
127.0.0.1 unless `--host` says otherwise (a teacher's laptop in the classroom: 0.0.0.0), with
the same Host check as the board's page.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

from controller.daemon.mqttconfig import MqttSettings

from .listen import HallListener
from .state import Hall


class HallServer:
    """The hall's listener and page, started together (the bench and the tests use it too)."""

    def __init__(
        self,
        settings: MqttSettings,
        *,
        host: str = "127.0.0.1",
        port: int = 8090,
        allowed_hosts: tuple[str, ...] = (),
        keep_delays: bool = False,
        client_id: str | None = None,
    ) -> None:
        from web_ui.hall import create_hall_app
        from web_ui.serve import WebServer

        self.hall = Hall(settings.topic_prefix, keep_delays=keep_delays)
        # A stable client id keeps the hall's session on the broker (persistent); without one
        # the session is this process's alone.
        persistent = client_id is not None
        if client_id is None:
            client_id = f"sowboard-hall-{socket.gethostname()}-{os.getpid()}-{id(self):x}"
        self.listener = HallListener(self.hall, settings, client_id[:64], persistent=persistent)
        machine = socket.gethostname().lower()
        hosts = ("localhost", machine, f"{machine.split('.')[0]}.local", host, *allowed_hosts)
        app = create_hall_app(
            self.hall, {"ALLOWED_HOSTS": tuple(h.lower() for h in hosts), "HALL_URL": settings.url}
        )
        streams = int(app.config["HALL_MAX_STREAMS"])
        self.server = WebServer(app, host, port, threads=streams + 4)

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> HallServer:
        self.listener.start()
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
        self.listener.stop()


def run_hall(
    settings: MqttSettings,
    host: str,
    port: int,
    client_id: str,
    out: Callable[[str], None] = print,
) -> int:
    """Serve until SIGTERM or SIGINT."""
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        del signum, frame
        stop.set()

    server = HallServer(settings, host=host, port=port, client_id=client_id)  # may refuse
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    server.start()
    out(f"sowboard hall: listening to {settings.url} (topics {settings.topic_prefix}/+/...)")
    out(f"sowboard hall: page: {server.url}/")
    try:
        while not stop.wait(0.5):
            pass
        return 0
    finally:
        server.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
