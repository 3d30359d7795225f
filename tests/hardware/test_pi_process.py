"""The Pi-only reader in a process of its own (controller/sensing/pi_process.py): it reads in
another interpreter, its death is a source fault and a new reader takes over, and it never
outlives the daemon (no orphan holding the GPIO)."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.sensing.hwsource import SourceUnavailable
from controller.sensing.pi_gpio import PiGpioConfig
from controller.sensing.pi_process import PiProcessSource
from controller.sim.fake_lgpio import wired_lgpio
from tests.hardware.conftest import complete, wait_for

VALUES = [1000, -2000, 3000, -4000]
REPO = Path(__file__).resolve().parents[2]


def source(**options: object) -> PiProcessSource:
    config = PiGpioConfig.default(len(VALUES))
    return PiProcessSource(config, lgpio=functools.partial(wired_lgpio, VALUES), **options)  # type: ignore[arg-type]


@pytest.fixture
def reader() -> Iterator[PiProcessSource]:
    made = source(silence_timeout=0.6, restart_after=0.2)
    yield made
    made.close()


def alive(pid: int) -> bool:
    """Running (a zombie that nobody reaped yet counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_the_reader_runs_in_another_process_and_gives_the_true_values(reader) -> None:
    frame = wait_for(reader, complete)
    assert frame.raw == tuple(VALUES)
    status = reader.status()
    pid = status.reader_pid
    assert pid is not None and pid != os.getpid() and alive(pid)
    assert status.connected and status.fault is None and status.restarts == 0
    assert status.priority is not None
    assert status.priority.startswith(("SCHED_FIFO", "normal (SCHED_FIFO refused"))


def test_a_killed_reader_is_a_fault_then_a_new_reader_carries_on(reader) -> None:
    before = wait_for(reader, complete)
    pid = reader.status().reader_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    end = time.monotonic() + 5.0
    while reader.status().connected and time.monotonic() < end:
        time.sleep(0.01)
    status = reader.status()
    assert not status.connected
    assert status.fault is not None and f"process {pid} died (killed by SIGKILL)" in status.fault
    after = wait_for(reader, complete)
    status = reader.status()
    assert status.connected and status.fault is None
    assert status.restarts == 1 and status.reader_pid not in (None, pid)
    assert after.seq > before.seq and after.t > before.t, "seq and t go on across the restart"


def test_a_hung_reader_is_a_fault_and_is_replaced(reader) -> None:
    wait_for(reader, complete)
    pid = reader.status().reader_pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # alive but silent
    try:
        end = time.monotonic() + 5.0
        while reader.status().connected and time.monotonic() < end:
            time.sleep(0.01)
        fault = reader.status().fault
        assert fault is not None and "sent nothing for 0.6 s (hung?)" in fault
        assert gone_within(pid, 5.0), "the hung reader was killed"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    wait_for(reader, complete)
    assert reader.status().restarts == 1


def test_close_ends_the_reader_process() -> None:
    made = source()
    wait_for(made, complete)
    pid = made.status().reader_pid
    assert pid is not None
    made.close()
    made.close()
    assert gone_within(pid, 5.0)
    assert not made.status().connected


def test_a_reader_that_cannot_open_the_gpio_fails_at_start_with_its_reason() -> None:
    config = PiGpioConfig.default(2)
    lgpio = functools.partial(wired_lgpio, [1, 2], open_error="can not open gpiochip")
    with pytest.raises(SourceUnavailable, match=r"gpiochip0.*gpio group"):
        PiProcessSource(config, lgpio=lgpio)


DAEMON = textwrap.dedent(
    """
    import functools, sys, time
    from controller.sensing.pi_gpio import PiGpioConfig
    from controller.sensing.pi_process import PiProcessSource
    from controller.sim.fake_lgpio import wired_lgpio

    if __name__ == "__main__":
        source = PiProcessSource(
            PiGpioConfig.default(2), lgpio=functools.partial(wired_lgpio, [1, 2])
        )
        print(source.status().reader_pid, flush=True)
        time.sleep(60)
    """
)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_the_reader_dies_with_the_daemon(tmp_path: Path, how: signal.Signals) -> None:
    """However the daemon ends, even by SIGKILL (no clean-up at all), its reader ends too and
    frees the GPIO for the next daemon."""
    script = tmp_path / "daemon.py"
    script.write_text(DAEMON)
    daemon = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    try:
        assert daemon.stdout is not None
        reader_pid = int(daemon.stdout.readline())
        assert alive(reader_pid)
        daemon.send_signal(how)
        daemon.wait(timeout=10)
        assert gone_within(reader_pid, 5.0), "the reader outlived the daemon"
    finally:
        daemon.kill()
        daemon.wait()


def test_the_daemon_without_lgpio_says_what_to_install(tmp_path: Path) -> None:
    """`hardware.source = "pi"` starts the reader process; on a PC its start-up error (no lgpio,
    or no gpiochip where lgpio is installed) comes back as the daemon's configuration error,
    with what to do."""
    from controller.daemon.config import parse_config
    from controller.daemon.hardware import HardwareError, open_source

    config = parse_config({"hardware": {"source": "pi"}, "data": {"dir": str(tmp_path)}}, None)
    with pytest.raises(HardwareError, match=r"install the pi extra|gpiochip0.*gpio group"):
        open_source(config, 16, 18)
