"""A Mosquitto broker of our own on a free loopback port, for the tests and `bench hall`.

Debian's `mosquitto` package (`make test` installs it as root), started with a configuration
of its own in a temporary directory: loopback only, anonymous; by default no persistence,
so that a stop loses the retained messages and sessions as a broker that crashed would;
`persistence=True` keeps them across a stop as Debian's own configuration does. Nothing of
the system's service (if any) is touched.
"""

from __future__ import annotations

import getpass
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
START_TIMEOUT_S = 10.0


class BrokerError(RuntimeError):
    """The broker cannot be started here (the message says why)."""


def find_mosquitto() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((path for path in CANDIDATES if Path(path).is_file()), None)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Mosquitto:
    """`mosquitto -c <own config>` on 127.0.0.1:`port`; stop, start again, pause (SIGSTOP)."""

    def __init__(
        self,
        port: int | None = None,
        *,
        persistence: bool = False,
        tls: tuple[Path, Path, Path] | None = None,
    ) -> None:
        """`tls`: (CA file, certificate, key): the listener speaks TLS only (mqtts://)."""
        binary = find_mosquitto()
        if binary is None:
            raise BrokerError(
                "mosquitto is not installed (Debian: apt-get install mosquitto; "
                "`make test` installs it when run as root)"
            )
        self.binary = binary
        self.port = port or free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="sowboard-mosquitto-")
        self.conf = Path(self._dir.name) / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            # (started as root mosquitto would become the `mosquitto` user, who cannot write
            # its persistence file in this directory; as anyone else this line is ignored)
            f"user {getpass.getuser()}\n"
            "allow_anonymous true\n"
            f"persistence {'true' if persistence else 'false'}\n"
            f"persistence_location {self._dir.name}/\n"
            "log_dest none\n"
            "max_queued_messages 10000\n"
            + (f"cafile {tls[0]}\ncertfile {tls[1]}\nkeyfile {tls[2]}\n" if tls else ""),
            encoding="utf-8",
        )
        self.tls = tls is not None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.proc = subprocess.Popen(
            [self.binary, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise BrokerError(f"mosquitto exited at once ({self.proc.returncode}): {err}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise BrokerError(f"mosquitto did not listen on port {self.port} in {START_TIMEOUT_S} s")

    def stop(self) -> None:
        """SIGTERM (retained messages are lost: no persistence)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # (a paused broker must hear the SIGTERM)
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def pause(self) -> None:
        """SIGSTOP: the broker keeps its connections but reads and answers nothing (slow)."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)

    def close(self) -> None:
        self.stop()
        self._dir.cleanup()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
