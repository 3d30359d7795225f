"""systemd's notify protocol in the standard library (no python-systemd on the Pi needed).

With `Type=notify` systemd waits for READY=1 before it calls the service started, and with
`WatchdogSec=` it restarts the service when WATCHDOG=1 stops coming. The daemon's loop sends
WATCHDOG=1 itself, so a loop that hangs (a stuck sensor read, a deadlock) is restarted even
though the process is still alive. Outside systemd ($NOTIFY_SOCKET unset) every call is a no-op.

>>> Notifier(environ={}).send("READY=1")
False
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    """Sends notify messages to $NOTIFY_SOCKET; knows the watchdog interval ($WATCHDOG_USEC)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):  # an abstract socket
            address = "\0" + address[1:]
        self.address = address or None
        self.watchdog_s: float | None = None
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        if usec and usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_s = int(usec) / 1e6

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *lines: str) -> bool:
        """Send `READY=1`, `WATCHDOG=1`, `STATUS=...` (several at once); False if not sent."""
        if self.address is None:
            return False
        message = "\n".join(lines).encode("utf-8", "replace")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                # Never wait for systemd: a full queue (it reads late) drops this message, it
                # must not stall the loop that feeds the watchdog.
                sock.setblocking(False)
                sock.connect(self.address)
                sock.send(message)
        except OSError:  # BlockingIOError included
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")
