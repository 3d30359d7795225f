"""`sowboard run` as a child process for the benches that attack it from outside (kills,
soak, fuzz, live-page memory): its own configuration and data directory, its port read from
its own "status page:" line, its state read through the page's API, its memory from /proc.

Outside, not in this process: a SIGKILL must hit the whole daemon, and its resident memory
must be the daemon's alone.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def demo_config(data_dir: Path, *, speed: float = 1.0, max_streams: int = 12, pin: str = "") -> str:
    """The TOML of a demo-mode daemon on the simulated board, on a free port."""
    return (
        '[game]\nmode = "demo"\n'
        f"[hardware.sim]\nspeed = {speed}\n"
        f'[web]\nport = 0\nmax_streams = {max_streams}\nadmin_pin = "{pin}"\n'
        f'[data]\ndir = "{data_dir}"\n'
        "[recorder]\non_flag = false\n"
    )


class DaemonProcess:
    """One `sowboard run --config CONFIG` child; `url` once it serves."""

    def __init__(self, config: Path, *, start_timeout: float = 30.0) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.url = self._wait_for_url(start_timeout)

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def drain(self) -> str:
        while True:
            try:
                self.output.append(self.lines.get_nowait())
            except queue.Empty:
                return "".join(self.output)

    def _wait_for_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            self.output.append(line)
            if "status page: " in line:
                return line.split("status page: ", 1)[1].strip().rstrip("/")
        self.kill()
        raise RuntimeError(f"the daemon did not start:\n{self.drain()}")

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def state(self, timeout: float = 5.0) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "/api/state", timeout=timeout) as response:
            data = json.load(response)
        assert isinstance(data, dict)
        return data

    def rss_mb(self) -> float:
        """Resident memory of the daemon process, MB (VmRSS)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
        return 0.0

    def threads(self) -> int:
        return len(list(Path(f"/proc/{self.proc.pid}/task").iterdir()))

    def kill(self) -> None:
        """SIGKILL: the plug pulled, no clean-up at all."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, as systemd stops it; its exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait(timeout=10)


def get_json(url: str, timeout: float = 5.0) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.load(response)
    except (urllib.error.URLError, OSError, ValueError):
        return None
