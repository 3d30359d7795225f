"""Running as a service on Raspberry Pi OS: the unit file, the notify protocol and the
watchdog fed by the loop itself (a hung loop is restarted even though the process lives)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.daemon.notify import Notifier
from controller.sensing.pi_process import RT_PRIORITY
from tests.daemon.conftest import Board, make_config

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "sowboard.service"
INSTALL = ROOT / "systemd" / "install.sh"


def settings(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def test_the_unit_runs_the_daemon_as_its_own_user_with_a_watchdog() -> None:
    unit = settings(UNIT.read_text())
    assert unit["Type"] == ["notify"]
    assert unit["WatchdogSec"] == ["10s"]
    assert unit["Restart"] == ["on-failure"]
    assert unit["ExecStart"] == [
        "/opt/sowboard/venv/bin/sowboard run --config /etc/sowboard/config.toml"
    ]
    assert unit["User"] == ["sowboard"]
    assert set(unit["SupplementaryGroups"][0].split()) >= {"gpio", "spi"}
    for key, value in {
        "NoNewPrivileges": "true",
        "ProtectSystem": "strict",
        "ReadWritePaths": "/var/lib/sowboard",
        "StateDirectory": "sowboard",
        "PrivateTmp": "true",
        "ProtectHome": "true",
        "CapabilityBoundingSet": "",
        # the HX711 reader's SCHED_FIFO priority (pi_process.RT_PRIORITY), and no higher
        "RestrictRealtime": "false",
        "LimitRTPRIO": str(RT_PRIORITY),
    }.items():
        assert unit[key] == [value], key


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here"
)
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    """`systemd-analyze verify` checks every directive; ExecStart must exist for it, so the
    copy points at this Python instead of /opt/sowboard (not installed here)."""
    text = UNIT.read_text().replace("/opt/sowboard/venv/bin/sowboard", sys.executable)
    unit = tmp_path / "sowboard.service"
    unit.write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    ours = [line for line in (result.stdout + result.stderr).splitlines() if "sowboard" in line]
    assert result.returncode == 0, result.stderr
    assert ours == []


def test_the_installer_is_valid_shell_and_installs_what_the_unit_needs() -> None:
    subprocess.run(["sh", "-n", str(INSTALL)], check=True)
    text = INSTALL.read_text()
    assert os.access(INSTALL, os.X_OK)
    for needed in (
        "useradd --system",
        "--groups gpio,spi,dialout",
        'install -d -o sowboard -g sowboard -m 0750 "$DATA"',
        'python3 -m venv "$PREFIX/venv"',
        "/etc/systemd/system/sowboard.service",
        "run --example-config",
        "systemctl enable sowboard.service",
    ):
        assert needed in text, needed
    unit = settings(UNIT.read_text())
    assert unit["ExecStart"][0].startswith("/opt/sowboard/venv/bin/")
    assert re.search(r"^PREFIX=/opt/sowboard$", text, re.M)


@pytest.fixture
def notify_socket(tmp_path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(5)
    return sock


def received(sock: socket.socket) -> list[str]:
    messages = []
    sock.settimeout(0.01)
    while True:
        try:
            messages.append(sock.recv(4096).decode())
        except (TimeoutError, BlockingIOError):
            return messages


def test_notify_speaks_systemds_datagram_protocol(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    env = {"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "10000000"}
    notifier = Notifier(env)
    assert notifier.enabled and notifier.watchdog_s == 10.0
    assert notifier.ready("serving http://127.0.0.1:8080")
    assert notifier.watchdog()
    assert notifier.stopping()
    assert received(notify_socket) == [
        "READY=1\nSTATUS=serving http://127.0.0.1:8080",
        "WATCHDOG=1",
        "STOPPING=1",
    ]


def test_outside_systemd_nothing_is_sent() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert notifier.watchdog_s is None
    assert not notifier.ready()
    # A watchdog meant for another process (WATCHDOG_PID) is not ours to feed.
    assert Notifier({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}).watchdog_s is None


def test_a_full_notify_queue_never_stalls_the_daemon(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    """systemd reads late (or not at all): Linux queues 10 datagrams, then a send would wait."""
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify")})
    sent = [notifier.watchdog() for _ in range(100)]
    assert sent[0] and not all(sent)  # the first are queued, the rest dropped, none waits
    assert received(notify_socket)[0] == "WATCHDOG=1"


def test_the_loop_feeds_the_watchdog_and_says_how_the_game_stands(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    env = {
        "NOTIFY_SOCKET": str(tmp_path / "notify"),
        "WATCHDOG_USEC": "30000",
        "WATCHDOG_PID": str(os.getpid()),
    }
    messages: list[str] = []
    reading = threading.Event()
    reading.set()

    def systemd() -> None:  # reads as it comes, like the service manager
        notify_socket.settimeout(0.05)
        while reading.is_set():
            with contextlib.suppress(TimeoutError):
                messages.append(notify_socket.recv(4096).decode())

    reader = threading.Thread(target=systemd, daemon=True)
    reader.start()
    board = Board(make_config(tmp_path / "data"), notifier=Notifier(env))
    try:
        board.ready()
        board.play(3)
        time.sleep(0.1)
    finally:
        board.stop()
        reading.clear()
        reader.join(5)
    assert "WATCHDOG=1" in messages
    statuses = [m for m in messages if m.startswith("STATUS=")]
    assert statuses[0] == "STATUS=congkak, 0 moves, player 1 to move, checking the board"
    assert "STATUS=congkak, 1 moves, player 2 to move" in statuses
