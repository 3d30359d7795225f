"""`sowboard run`: the loop, the status page, signals and systemd, wired together.

The main thread only waits: the loop runs in its own thread (it owns all state), waitress in
another (its worker threads serve the page and the event streams). SIGTERM (systemd stop) and
SIGINT (Ctrl-C) end both cleanly: the lights go dark, the journal is flushed, the simulated
board's layout is saved. READY=1 goes to systemd only once the page answers and the loop runs;
the loop itself sends WATCHDOG=1, so a hung loop is restarted.
"""

from __future__ import annotations

import os
import secrets
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from .config import Config
from .files import write_atomic
from .loop import BoardLoop
from .notify import Notifier

SECRET_FILE = "web_secret"


class StartError(RuntimeError):
    """The daemon cannot start (a port in use, hardware missing); the message says why."""


def web_secret(data_dir: Path) -> str:
    """The page's session key, kept in the data directory so that an admin who logged in stays
    logged in across a restart (readable by the daemon's user only); in memory only when the
    file cannot be written."""
    path = data_dir / SECRET_FILE
    try:
        text = path.read_text(encoding="ascii").strip()
        if len(text) >= 32:
            return text
    except (OSError, UnicodeDecodeError):
        pass
    key = secrets.token_hex(32)
    try:
        write_atomic(path, key + "\n")
        os.chmod(path, 0o600)
    except OSError as err:
        # A full card must not keep the board from starting: the key lives in memory, and
        # admins log in again after the next restart.
        print(f"sowboard: {path}: cannot be saved ({err}); admin logins end at a restart")
    return key


def make_app(loop: BoardLoop, config: Config, **extra: Any) -> Flask:
    from web_ui.app import create_app

    web = config.web
    return create_app(
        loop.link,
        {
            "ADMIN_PIN": web.admin_pin,
            "SSE_MAX_STREAMS": web.max_streams,
            "SECRET_KEY": web_secret(config.data_dir),
            **extra,
        },
    )


class Daemon:
    """The loop and the web server of one `sowboard run` (also used by `bench web`)."""

    def __init__(
        self,
        config: Config,
        *,
        out: Callable[[str], None] | None = None,
        notifier: Notifier | None = None,
        app_config: dict[str, Any] | None = None,
        **loop_args: Any,
    ) -> None:
        from web_ui.serve import WebServer

        self.config = config
        self.out = out or (lambda text: print(f"sowboard: {text}", flush=True))
        self.notifier = notifier or Notifier()
        self.loop = BoardLoop(config, notifier=self.notifier, out=self.out, **loop_args)
        try:
            self.app = make_app(self.loop, config, **(app_config or {}))
            self.server = WebServer(
                self.app,
                config.web.host,
                config.web.port,
                threads=config.web.max_streams + 4,
            )
        except OSError as err:
            self.loop.stop()
            raise StartError(
                f"{config.where}: web.host = {config.web.host!r}, web.port = "
                f"{config.web.port}: cannot serve the page there ({err.strerror or err})"
            ) from None
        except BaseException:
            self.loop.stop()
            raise

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> Daemon:
        self.loop.start()
        self.server.start()
        return self

    def stop(self) -> None:
        self.notifier.stopping()
        self.server.stop()
        self.loop.stop()


def run(config: Config, *, stop: threading.Event | None = None) -> int:
    """Run until SIGTERM/SIGINT (or `stop`); 0 after a clean stop, 1 if the loop died."""
    stop = stop or threading.Event()
    daemon = Daemon(config)
    out = daemon.out
    if config.path is None:
        out("no configuration file: built-in defaults (see `sowboard run --help`)")
    out(f"data directory: {config.data_dir}")
    previous: dict[signal.Signals, Any] = {}

    def on_signal(signum: int, frame: Any) -> None:
        del frame
        out(f"stopping ({signal.Signals(signum).name})")
        stop.set()

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, on_signal)
    try:
        daemon.start()
        out(f"status page: {daemon.url}/")
        daemon.notifier.ready(f"serving {daemon.url}")
        while not stop.wait(0.5):
            if not daemon.loop.running:
                out("the loop stopped unexpectedly")
                return 1
        return 0
    finally:
        daemon.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
