"""The Pi-only HX711 reader in a process of its own, the source the daemon uses on that build.

Why a process: every clock-high phase must stay under 60 us or the chips power down
(HARDWARE.md). A reader thread in the daemon shares the interpreter lock with the loop and the
web server; with one busy Python thread the lock can be gone for 5 ms, and the reader fell to
58 SPS. In a process of its own the reader has its own interpreter and lock and nothing else
runs in it.

- **Child** (`reader_main`): asks the kernel for SCHED_FIFO at `RT_PRIORITY` where allowed (the
  systemd unit allows it with `LimitRTPRIO`), runs `pi_gpio.Hx711Bus` (the same reads, overrun
  discards and settling as the thread source) and sends every frame, and its counters every
  `STATUS_INTERVAL`, through a pipe. Automatic garbage collection is off there, so that no
  collection can fall inside a clock pulse; it collects between reads instead.
- **Dies with the daemon**: the kernel sends it SIGKILL when the daemon's thread that started it
  ends (`PR_SET_PDEATHSIG`); a closed pipe ends it too. Its GPIO lines are released with its
  file descriptors, so no orphan keeps the chips' clock.
- **Its death is a fault**: the daemon's side (`PiProcessSource`) sees the pipe close or
  `SILENCE_TIMEOUT` seconds of silence (a hung child is killed), reports it in
  `status().fault` with the exit code or signal, and starts a new reader after
  `RESTART_AFTER` seconds; `status().restarts` counts them. Frame `seq` keeps increasing across
  restarts.

The parent's end only unpacks frames; the frames are stamped by the child with
`time.monotonic()`, a system-wide clock, so they are on the daemon's clock too.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import gc
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import ModuleType
from typing import Any

from controller.sensing.frames import Frame
from controller.sensing.hwsource import FrameQueue, RateMeter, SourceUnavailable
from controller.sensing.pi_gpio import Hx711Bus, PiGpioConfig, PiGpioStatus, load_lgpio

#: SCHED_FIFO priority of the reader: above every normal task (so no other program, nor the
#: daemon's own busy threads, can preempt it inside a clock pulse), below the kernel's threaded
#: interrupt handlers (priority 50), so USB, network and the SD card are still served.
RT_PRIORITY = 10

#: The child sends its counters this often, so the daemon knows it is alive when no cell is.
STATUS_INTERVAL = 0.25

#: Silence after which the child is taken as hung and killed: eight missed status messages.
SILENCE_TIMEOUT = 2.0

#: Pause before a new reader after one died: the old one's GPIO lines are free by then, and a
#: reader that cannot start does not spin.
RESTART_AFTER = 1.0

#: How long the constructor waits for the first reader to open the GPIO (spawning a Python
#: interpreter on a Pi 4 takes about a second).
START_TIMEOUT = 15.0

PR_SET_PDEATHSIG = 1  # linux/prctl.h

LgpioFactory = Callable[[], ModuleType]


@dataclass(frozen=True, slots=True)
class PiProcessStatus(PiGpioStatus):
    """`PiGpioStatus` of the current reader process (its counters as of its last status
    message, at most `STATUS_INTERVAL` old) plus the process itself."""

    reader_pid: int | None = None
    priority: str | None = None  # "SCHED_FIFO 10", or why the reader runs at normal priority
    restarts: int = 0


# -- the child --------------------------------------------------------------------------------


def die_with_parent(parent_pid: int) -> None:
    """SIGKILL this process when the thread that started it ends (Linux); exit at once if the
    parent is already gone (it could have died before the prctl)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(0)


def raise_priority(priority: int | None) -> str:
    """Real-time scheduling for this process where the OS allows it; says what it got.
    None: not asked for (`sowboard bench pi-reader` measures the reader without it too)."""
    if priority is None:
        return "normal (real-time not asked for)"
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (OSError, AttributeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        return f"normal (SCHED_FIFO refused: {reason}; allow it with LimitRTPRIO={priority})"
    return f"SCHED_FIFO {priority}"


def reader_main(
    config: PiGpioConfig,
    lgpio: LgpioFactory,
    conn: Connection,
    parent_pid: int,
    priority: int | None,
) -> None:
    """The reader process: open the chips, then read and send until told to stop or orphaned."""
    die_with_parent(parent_pid)
    got = raise_priority(priority)
    try:
        bus = Hx711Bus(config, lgpio())
    except SourceUnavailable as err:
        conn.send(("error", str(err)))
        return
    try:
        conn.send(("ready", os.getpid(), got))
        gc.disable()
        gc.freeze()  # what start-up made is never scanned again: the collections stay short
        _serve(bus, conn)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        pass  # the daemon is gone: release the GPIO and end
    except Exception as err:  # an lgpio error: say it, then die (the daemon starts a new one)
        with contextlib.suppress(OSError):
            conn.send(("error", f"GPIO read failed: {err}"))
        raise
    finally:
        bus.release()


def _serve(bus: Hx711Bus, conn: Connection) -> None:
    fd = conn.fileno()

    def told_to_stop(timeout: float) -> bool:
        """Wait up to `timeout` s for a message (stop) or the daemon's end closing. select()
        keeps microseconds; Connection.poll rounds up to whole milliseconds (poll(2)), which
        would make every 0.5 ms poll of DOUT a 1 ms one."""
        return bool(select.select([fd], [], [], timeout)[0])

    next_status = 0.0
    while not told_to_stop(0):
        frame = bus.read_once(told_to_stop)
        if frame is not None:
            conn.send(("frame", frame.t, frame.raw, frame.seq))
        now = time.monotonic()
        if now >= next_status:
            gc.collect()  # between reads, SCK low: a pause only delays the next read
            status = bus.status("pi-gpio-process", connected=True)
            conn.send(("status", dataclasses.asdict(status)))
            next_status = now + STATUS_INTERVAL


# -- the daemon's side ------------------------------------------------------------------------


class PiProcessSource:
    """HX711s on the Pi's own GPIO, read by a process of its own (see the module's text).

    `lgpio` makes the lgpio module in the child; it must pickle (a top-level function or a
    `functools.partial` of one): by default the real lgpio, in tests a fake.
    """

    name = "pi-gpio-process"

    def __init__(
        self,
        config: PiGpioConfig,
        *,
        lgpio: LgpioFactory = load_lgpio,
        priority: int | None = RT_PRIORITY,
        silence_timeout: float = SILENCE_TIMEOUT,
        restart_after: float = RESTART_AFTER,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        self.config = config
        self.cell_count = len(config.dout)
        self._lgpio = lgpio
        self._priority_wanted = priority
        self._silence_timeout = silence_timeout
        self._restart_after = restart_after
        self._start_timeout = start_timeout
        self._queue = FrameQueue(config.queue_size)
        self._rate = RateMeter()  # from the frames as they come: the child's counters lag
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._started = threading.Event()
        self._start_error: str | None = None
        self._closed = False
        self._fault: str | None = "starting the HX711 reader process"
        self._child: PiGpioStatus | None = None
        self._pid: int | None = None
        self._priority: str | None = None
        self._restarts = 0
        self._seq_base = 0  # seq of the last frame of the readers before this one
        self._last_seq = 0
        # The thread that starts the child must live as long as the source: the child's
        # PR_SET_PDEATHSIG fires when that thread ends.
        self._thread = threading.Thread(target=self._supervise, name="pi-hx711-process")
        self._thread.daemon = True
        self._thread.start()
        if not self._started.wait(start_timeout):
            self.close()
            raise SourceUnavailable(
                f"the HX711 reader process did not start within {start_timeout:g} s"
            )
        if self._start_error is not None:
            self.close()
            raise SourceUnavailable(self._start_error)

    # -- SampleSource -------------------------------------------------------------------------

    def read(self, timeout: float | None = None) -> Frame | None:
        return self._queue.get(timeout)

    def status(self) -> PiProcessStatus:
        with self._lock:
            child = self._child or PiGpioStatus(self.name, False, 0.0)
            connected = self._fault is None and not self._closed
            fields = dataclasses.asdict(child)
            fields.update(
                name=self.name,
                connected=connected,
                rate_sps=round(self._rate.rate, 2) if connected else 0.0,
                fault=self._fault or child.fault,
                frames=self._last_seq,
                dropped_frames=self._queue.dropped,
                reader_pid=self._pid,
                priority=self._priority,
                restarts=self._restarts,
            )
            return PiProcessStatus(**fields)

    def close(self) -> None:
        if self._closed:
            return
        with self._lock:
            self._closed = True
        self._stop.set()
        self._thread.join(timeout=5.0)
        self._queue.close()

    def __enter__(self) -> PiProcessSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the supervising thread ---------------------------------------------------------------

    def _supervise(self) -> None:
        while not self._stop.is_set():
            ended = self._run_child()
            if not self._started.is_set():  # the first reader could not start: no retry
                self._start_error = ended or "the HX711 reader process stopped at start"
                self._started.set()
                return
            if ended is None:
                return
            with self._lock:
                self._fault = f"{ended}; starting a new reader"
                self._pid = None
            if self._stop.wait(self._restart_after):
                return
            with self._lock:
                self._restarts += 1
                self._seq_base = self._last_seq

    def _run_child(self) -> str | None:
        """Start a reader and pass its frames on; why it ended, or None when closing."""
        ctx = multiprocessing.get_context("spawn")  # never fork a process that has threads
        ours, theirs = ctx.Pipe()
        process = ctx.Process(
            target=reader_main,
            args=(self.config, self._lgpio, theirs, os.getpid(), self._priority_wanted),
            name="sowboard-hx711",
            daemon=True,
        )
        try:
            process.start()
        except Exception as err:
            return f"cannot start the HX711 reader process ({err})"
        finally:
            theirs.close()  # ours must be the only end left here, so its death shows as EOF
        try:
            return self._pump(ours, process)
        finally:
            self._end(ours, process)

    def _pump(self, conn: Connection, process: Any) -> str | None:
        last = time.monotonic()
        limit = self._start_timeout  # a new interpreter first imports, then opens the GPIO
        while not self._stop.is_set():
            if not conn.poll(0.1):
                if time.monotonic() - last > limit:
                    return (
                        f"the HX711 reader process {process.pid} sent nothing for "
                        f"{limit:g} s (hung?): killed it"
                    )
                continue
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return _death(process)
            last = time.monotonic()
            limit = self._silence_timeout
            ended = self._handle(message)
            if ended is not None:
                return ended
        return None

    def _handle(self, message: tuple[Any, ...]) -> str | None:
        kind = message[0]
        if kind == "frame":
            _, t, raw, seq = message
            with self._lock:
                self._last_seq = self._seq_base + seq
                self._rate.add(t)
                frame = Frame(t, raw, self._last_seq)
            self._queue.put(frame)
        elif kind == "status":
            with self._lock:
                self._child = PiGpioStatus(**message[1])
        elif kind == "ready":
            with self._lock:
                self._pid, self._priority, self._fault = message[1], message[2], None
            self._started.set()
        elif kind == "error":
            return str(message[1])
        return None

    def _end(self, conn: Connection, process: Any) -> None:
        with contextlib.suppress(OSError):
            conn.send("stop")
        process.join(timeout=2.0)
        if process.is_alive():
            process.kill()
            process.join(timeout=2.0)
        conn.close()


def _death(process: Any) -> str:
    """The reader's end, in words: its exit code or the signal that killed it."""
    process.join(timeout=2.0)
    code = process.exitcode
    if code is None:
        how = "closed its pipe"
    elif code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit code {code}"
    return f"the HX711 reader process {process.pid} died ({how})"
