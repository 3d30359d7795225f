"""`sowboard run`: the loop, the status page, signals and systemd, wired together.

The main thread only waits: the loop runs in its own thread (it owns all state), waitress in
another (its worker threads serve the page and the event streams). SIGTERM (systemd stop) and
SIGINT (Ctrl-C) end both cleanly: the lights go dark, the journal is flushed, the simulated
board's layout is saved. READY=1 goes to systemd only once the page answers and the loop runs;
the loop itself sends WATCHDOG=1, so a hung loop is restarted. SIGHUP (`systemctl reload`)
reads the configuration again for a new admin PIN, which ends every admin session, without
stopping the game.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import Flask

from .config import Config, ConfigError, load_config
from .loop import BoardLoop
from .memory import limit_malloc_arenas
from .notify import Notifier

FIRST_SNAPSHOT_S = 10.0  # how long the page waits for the loop's first snapshot


def rule_option_fields() -> dict[str, list[dict[str, Any]]]:
    """The admin page's new-game form: each variant's option fields (the web layer knows no
    rules of its own)."""
    from controller.rules import VARIANTS
    from controller.rules.options import option_fields

    return {name: option_fields(name) for name in VARIANTS}


class StartError(RuntimeError):
    """The daemon cannot start (a port in use, hardware missing); the message says why."""


def make_app(loop: BoardLoop, config: Config, **extra: Any) -> Flask:
    """The page for `loop`; a warning when it is open to the network without a PIN."""
    from web_ui.app import create_app, web_state

    web = config.web
    app = create_app(
        loop.link,
        {
            "ADMIN_PIN": web.admin_pin,
            "SSE_MAX_STREAMS": web.max_streams,
            "ALLOWED_HOSTS": web.host_names(),
            "BIND_HOST": web.host,
            "PLAYER_NEW_GAME": web.new_game_button,
            "KIOSK": web.kiosk,
            "RULE_OPTIONS": rule_option_fields(),
            **extra,
        },
    )
    with app.app_context():
        if web_state().open_without_pin:
            loop.out(
                f"warning: {config.where}: web.host = {web.host!r} serves the page to the "
                "network, but web.admin_pin is not set (the admin controls are off, and every "
                "page shows this warning); set web.admin_pin, 4 to 64 characters"
            )
    return app


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

        limit_malloc_arenas()  # before the loop's and the web server's threads start
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

    def reload_pin(self) -> None:
        """Read the configuration file again and take its web.admin_pin (a leaked PIN is
        changed without stopping the game); every other key takes a restart. A file that is
        wrong now keeps the PIN in force."""
        from web_ui.app import change_pin

        if self.config.path is None:
            self.out("reload: no configuration file, nothing to read again")
            return
        try:
            fresh = load_config(self.config.path, explicit=True)
        except ConfigError as err:
            self.out(f"reload: {err}; the admin PIN stays as it was")
            return
        if _with_pin(fresh, None) != _with_pin(self.config, None):
            self.out("reload: only web.admin_pin is taken now; the other changes need a restart")
        if fresh.web.admin_pin == self.config.web.admin_pin:
            self.out("reload: web.admin_pin is unchanged")
            return
        change_pin(self.app, fresh.web.admin_pin)
        if self.loop.mqtt is not None:
            self.loop.mqtt.replace_pin(fresh.web.admin_pin)
        self.config = _with_pin(self.config, fresh.web.admin_pin)
        self.out("reload: a new web.admin_pin; every admin session has ended")

    def start(self) -> Daemon:
        self.loop.start()
        # The page is served once the loop has published its first snapshot: before it, the
        # state held only a version number, and a page or a script that asked at once (a busy
        # machine, a restart) got a status without its game or daemon sections.
        self.loop.link.wait_for_change(0, FIRST_SNAPSHOT_S)
        self.server.start()
        return self

    def stop(self) -> None:
        self.notifier.stopping()
        self.server.stop()
        self.loop.stop()


def _with_pin(config: Config, pin: str | None) -> Config:
    return replace(config, web=replace(config.web, admin_pin=pin))


def run(config: Config, *, stop: threading.Event | None = None) -> int:
    """Run until SIGTERM/SIGINT (or `stop`); 0 after a clean stop, 1 if the loop died."""
    stop = stop or threading.Event()
    reload = threading.Event()
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

    def on_hangup(signum: int, frame: Any) -> None:
        del signum, frame
        reload.set()  # read in the main loop below, not inside the handler

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, on_signal)
        previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, on_hangup)
    try:
        daemon.start()
        out(f"status page: {daemon.url}/")
        daemon.notifier.ready(f"serving {daemon.url}")
        while not stop.wait(0.5):
            if reload.is_set():
                reload.clear()
                daemon.reload_pin()
            if not daemon.loop.running:
                out("the loop stopped unexpectedly")
                return 1
        return 0
    finally:
        daemon.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
