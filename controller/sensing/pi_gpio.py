"""Pi-only sample source: every HX711 on one shared clock line, one DOUT line each, via lgpio.

Wiring (HARDWARE.md, "HX711"): all chips share SCK, each has its own DOUT, so one clock reads all
of them at once: 17 GPIO for 16 cells. One read:

1. Wait until every expected DOUT is low (data ready), polling all DOUT lines with one
   `group_read`, for at most `ready_timeout` seconds. A cell still high then is not in this frame
   (None). A cell that missed twice in a row is no longer waited for, so an unplugged cell does
   not slow the others; it rejoins as soon as its DOUT is low at a read. After `fault_after`
   seconds without data `status()` has the fault "cell N: no data (unplugged?)".
2. 25 / 26 / 27 pulses on SCK (gain A-128 / B-32 / A-64 for the next conversion), one
   `group_read` of all DOUT lines after each of the first 24. Every clock-high phase is timed
   with `time.perf_counter_ns`: if one lasted over 60 us the chips may have powered down in the
   middle of the read (HARDWARE.md, "Linux user space timing"), so the whole read is discarded
   (a frame of None) and counted in `status().discarded_reads`; so is a read that took over
   half a conversion period (`slow_reads`: preempted between pulses, it may mix two
   conversions). A powered-down chip resets
   when SCK goes low and its first conversions are not settled yet, so the `SETTLE_READS`
   reads after a discarded read are thrown away too (`status().settling_reads`), as are the first
   reads after the reader starts (the chips may have just powered up).
3. The words are two's-complement 24-bit (`to_signed24`); the frame is stamped with
   `time.monotonic()` taken when the data was ready.

`Hx711Bus` does one read at a time. `PiGpioSource` runs it in a thread and hands frames over
through a bounded queue, so a slow consumer never stalls it; `read(timeout)` takes from that
queue. The daemon runs it in a process of its own instead (`pi_process.py`): a thread here shares
the interpreter lock with the loop and the web server, and a busy thread can hold SCK high past
60 us. lgpio is only imported here, lazily (it is in the `pi` extra), and any import or open
error becomes a `SourceUnavailable` with a message that says what to do.

>>> PiGpioConfig.default(14).dout[:3], PiGpioConfig.default(14).sck
((2, 3, 12), 4)
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from controller.sensing.frames import Frame, SourceStatus, to_signed24
from controller.sensing.hwsource import CellHealth, FrameQueue, RateMeter, SourceUnavailable

#: Clock pulses per read for each gain (datasheet: 25 = A-128, 26 = B-32, 27 = A-64).
GAIN_PULSES = {128: 25, 32: 26, 64: 27}

#: The Pi-only build's pins (BCM numbers); hardware/wiring.py prints them per board.
#: GPIO 5, 6, 13, 19 are the buttons (controller/buttons.py), 7-11 SPI0 (the LEDs on 10), 0-1 the
#: HAT EEPROM. Cells 14 and 15 use the UART pins 14/15: a 16-cell board needs `enable_uart=0`.
PI_SCK_GPIO = 4
PI_DOUT_GPIOS = (2, 3, 12, 16, 17, 18, 20, 21, 22, 23, 24, 25, 26, 27, 14, 15)
PI_LED_GPIO = 10  # SPI0 MOSI: NeoPixels through rpi_ws281x's SPI mode, no root

#: A read that kept SCK high longer than this may have powered the chips down.
MAX_HIGH_US = 60.0

#: Consecutive misses after which a cell is no longer waited for.
ABSENT_AFTER = 2

#: The longest a read may take, in conversion periods. A read stretched (the reader preempted
#: between two pulses) until the next conversion completes can mix two conversions' bits, and
#: the chips may lose count of the pulses (a wrong gain for the next read). Half a nominal
#: period (6.25 ms at 80 SPS) is far above a normal read (under 1 ms) and below the period of
#: the fastest oscillator measured (112 SPS: 8.9 ms, HARDWARE.md).
MAX_READ_PERIODS = 0.5

#: Reads thrown away after a possible power-down (and at start): the datasheet's output settling
#: time is 4 conversion periods after a reset. Counted in the chips' own reads, not in seconds,
#: so the loose oscillator (HARDWARE.md: 80 SPS builds ran up to 112 SPS) cannot cut it short;
#: a chip that holds DOUT high while it settles costs 4 good reads (50 ms at 80 SPS).
SETTLE_READS = 4


@dataclass(frozen=True)
class PiGpioConfig:
    """Pins and timing of the Pi-only reader. `dout[i]` is the DOUT GPIO of cell i."""

    sck: int
    dout: tuple[int, ...]
    gain: int = 128
    rate_sps: int = 80  # what the RATE pin is wired for: the longest a read may take
    ready_timeout: float = 0.25  # longer than a 10 SPS period (100 ms, loose oscillator)
    gpiochip: int = 0  # header GPIOs: gpiochip0 (Pi 5 on kernels before 6.6.45: gpiochip4)
    max_high_us: float = MAX_HIGH_US
    fault_after: float = 2.0
    poll_interval: float = 0.0005
    queue_size: int = 32
    pull_up: bool = True  # an unplugged DOUT then reads high, like a chip with nothing ready

    def __post_init__(self) -> None:
        if self.gain not in GAIN_PULSES:
            raise ValueError(f"gain must be one of {sorted(GAIN_PULSES)}, not {self.gain}")
        if not self.dout:
            raise ValueError("at least one DOUT pin is needed")
        if len(set(self.dout)) != len(self.dout):
            raise ValueError(f"DOUT pins must differ: {self.dout}")
        if self.sck in self.dout:
            raise ValueError(f"SCK GPIO {self.sck} is also a DOUT pin")
        if self.ready_timeout <= 0:
            raise ValueError("ready_timeout must be positive")
        if self.rate_sps not in (10, 80):
            raise ValueError(f"rate_sps must be 10 or 80 (the RATE pin), not {self.rate_sps}")

    @property
    def pulses(self) -> int:
        return GAIN_PULSES[self.gain]

    @property
    def max_read_s(self) -> float:
        """The longest one read (first pulse to last) may take: `MAX_READ_PERIODS` of a
        conversion period at the wired rate."""
        return MAX_READ_PERIODS / self.rate_sps

    @classmethod
    def default(cls, cell_count: int, **options: Any) -> PiGpioConfig:
        """The Pi-only build's wiring (hardware/WIRING.md) for `cell_count` cells."""
        if not 1 <= cell_count <= len(PI_DOUT_GPIOS):
            raise ValueError(
                f"the Pi-only build has DOUT pins for {len(PI_DOUT_GPIOS)} cells, not {cell_count};"
                " a bigger board needs the Pi + Pico build"
            )
        return cls(PI_SCK_GPIO, PI_DOUT_GPIOS[:cell_count], **options)


@dataclass(frozen=True, slots=True)
class PiGpioStatus(SourceStatus):
    """`SourceStatus` plus the reader's counters."""

    frames: int = 0
    discarded_reads: int = 0  # a clock-high phase overran 60 us
    slow_reads: int = 0  # a read took over max_read_s (preempted between pulses): discarded
    settling_reads: int = 0  # thrown away while the chips settled (start, after a discard)
    ready_timeouts: int = 0  # reads where some expected cell was not ready in time
    absent_cells: tuple[int, ...] = field(default=())


def load_lgpio() -> ModuleType:
    try:
        return importlib.import_module("lgpio")
    except Exception as err:  # ImportError, or a broken native library
        raise SourceUnavailable(
            f"lgpio not available ({err}): install the pi extra on a Raspberry Pi"
            " (pip install -e '.[pi]')"
        ) from err


class Hx711Bus:
    """The chips on one shared SCK, read one frame at a time; it has no thread of its own.

    Both Pi-only sources drive it: `PiGpioSource` from a thread of the daemon,
    `pi_process.PiProcessSource` from a process of its own. `read_once(wait)` waits for data
    with `wait(seconds)`, which returns True when the caller wants to stop.
    """

    def __init__(self, config: PiGpioConfig, lgpio: ModuleType) -> None:
        self.config = config
        self.cell_count = len(config.dout)
        self._lg = lgpio
        self._handle = self._open()
        self._health = CellHealth(self.cell_count, config.fault_after)
        self._rate = RateMeter()
        self._lock = threading.Lock()  # the counters, read by status() from another thread
        self._seq = 0
        self._misses = [0] * self.cell_count
        self._discarded = 0
        self._slow = 0
        self._settling_reads = 0
        self._timeouts = 0
        # The chips may have just been powered up, or a reader that died with SCK high left
        # them powered down: the first reads are taken as settling too.
        self._settling = SETTLE_READS

    def status(
        self, name: str, *, connected: bool, error: str | None = None, dropped: int = 0
    ) -> PiGpioStatus:
        with self._lock:
            return PiGpioStatus(
                name=name,
                connected=connected,
                rate_sps=round(self._rate.rate, 2),
                fault=error or self._health.fault(),
                frames=self._seq,
                discarded_reads=self._discarded,
                slow_reads=self._slow,
                settling_reads=self._settling_reads,
                ready_timeouts=self._timeouts,
                dropped_frames=dropped,
                absent_cells=tuple(i for i, m in enumerate(self._misses) if m >= ABSENT_AFTER),
            )

    # -- lgpio --------------------------------------------------------------------------------

    def _open(self) -> int:
        lg, cfg = self._lg, self.config
        try:
            handle = int(lg.gpiochip_open(cfg.gpiochip))
        except Exception as err:
            raise SourceUnavailable(
                f"cannot open /dev/gpiochip{cfg.gpiochip} ({err}): is this a Raspberry Pi and"
                " is the user in the gpio group?"
            ) from err
        try:
            lg.gpio_claim_output(handle, cfg.sck, 0)  # SCK low: the chips run
            flags = int(getattr(lg, "SET_PULL_UP", 0)) if cfg.pull_up else 0
            lg.group_claim_input(handle, list(cfg.dout), flags)
        except Exception as err:
            with contextlib.suppress(Exception):
                lg.gpiochip_close(handle)
            pins = ", ".join(map(str, (cfg.sck, *cfg.dout)))
            raise SourceUnavailable(
                f"cannot claim GPIO {pins} ({err}): is another program using them?"
            ) from err
        return handle

    def release(self) -> None:
        lg, handle = self._lg, self._handle
        for call, arg in (
            (lg.group_free, self.config.dout[0]),
            (lg.gpio_free, self.config.sck),
            (lg.gpiochip_close, None),
        ):
            with contextlib.suppress(Exception):
                call(handle) if arg is None else call(handle, arg)

    def _levels(self) -> int:
        return int(self._lg.group_read(self._handle, self.config.dout[0])[1])

    # -- one read -----------------------------------------------------------------------------

    def _wait_ready(self, wait: Callable[[float], bool]) -> tuple[int, float] | None:
        """Ready mask (bit i: cell i's DOUT low) once every expected cell is ready or the
        timeout passed; None when the caller stops."""
        cfg = self.config
        all_cells = (1 << self.cell_count) - 1
        expected = sum(1 << i for i, m in enumerate(self._misses) if m < ABSENT_AFTER)
        deadline = time.monotonic() + cfg.ready_timeout
        while True:
            ready = ~self._levels() & all_cells
            now = time.monotonic()
            if ready and ready & expected == expected:
                return ready, now
            if now >= deadline:
                return ready, now
            if wait(cfg.poll_interval):
                return None

    def read_once(self, wait: Callable[[float], bool]) -> Frame | None:
        """One read of every chip: a frame (None for a cell without data, all None for a read
        thrown away), or None when nothing was ready or the caller stops."""
        waited = self._wait_ready(wait)
        if waited is None:
            return None
        ready, t_ready = waited
        for i in range(self.cell_count):
            self._misses[i] = 0 if ready >> i & 1 else self._misses[i] + 1
        if ready != (1 << self.cell_count) - 1:
            with self._lock:
                self._timeouts += 1
        if not ready:
            with self._lock:
                self._health.all_missing(t_ready)
            return None  # nothing to clock out
        words, overran, slow = self._clock_out()
        raw = self._judge(words, ready, overran, slow)
        with self._lock:
            self._seq += 1
            self._health.update(t_ready, raw)
            self._rate.add(t_ready)
            return Frame(t_ready, raw, self._seq)

    def _judge(
        self, words: list[int], ready: int, overran: bool, slow: bool
    ) -> tuple[int | None, ...]:
        """The frame's values, or all None for a read thrown away: one whose clock overran
        (the chips may have powered down mid-read) or that took too long (it may mix two
        conversions), and the SETTLE_READS reads after it (after a power-down the chips reset
        and their first conversions are not yet right; after a stretched read they may have
        lost count of the pulses)."""
        if overran or slow or self._settling:
            with self._lock:
                if overran:
                    self._discarded += 1
                elif slow:
                    self._slow += 1
                if overran or slow:
                    self._settling = SETTLE_READS
                else:
                    self._settling_reads += 1
                    self._settling -= 1
            return (None,) * self.cell_count
        return tuple(
            to_signed24(words[i]) if ready >> i & 1 else None for i in range(self.cell_count)
        )

    def _clock_out(self) -> tuple[list[int], bool, bool]:
        """All pulses of one read; the 24-bit word of every cell, whether a clock-high phase
        overran and whether the whole read took longer than `max_read_s`."""
        lg, handle, sck, leader = self._lg, self._handle, self.config.sck, self.config.dout[0]
        write, group_read, clock = lg.gpio_write, lg.group_read, time.perf_counter_ns
        limit_ns = int(self.config.max_high_us * 1000)
        longest = 0
        samples: list[int] = []
        start = clock()
        for pulse in range(self.config.pulses):
            t0 = clock()
            write(handle, sck, 1)
            write(handle, sck, 0)
            high = clock() - t0  # an upper bound of the time SCK was high
            if high > longest:
                longest = high
            if pulse < 24:
                samples.append(int(group_read(handle, leader)[1]))  # DOUT is valid while low
        slow = clock() - start > self.config.max_read_s * 1e9
        words = [0] * self.cell_count
        for levels in samples:  # MSB first
            for i in range(self.cell_count):
                words[i] = (words[i] << 1) | (levels >> i & 1)
        return words, longest > limit_ns, slow


class PiGpioSource:
    """HX711s on the Pi's own GPIO, read by a thread of this process.

    `lgpio` may be injected (tests); by default it is imported. The daemon uses
    `pi_process.PiProcessSource` instead, which runs the same `Hx711Bus` in a process of its
    own (this thread shares the interpreter lock with the loop and the web server).
    """

    name = "pi-gpio"

    def __init__(self, config: PiGpioConfig, *, lgpio: ModuleType | None = None) -> None:
        self.config = config
        self.cell_count = len(config.dout)
        self.bus = Hx711Bus(config, lgpio if lgpio is not None else load_lgpio())
        self._queue = FrameQueue(config.queue_size)
        self._stop = threading.Event()
        self._closed = False
        self._error: str | None = None
        self._thread = threading.Thread(target=self._run, name="pi-gpio-hx711", daemon=True)
        self._thread.start()

    # -- SampleSource -------------------------------------------------------------------------

    def read(self, timeout: float | None = None) -> Frame | None:
        return self._queue.get(timeout)

    def status(self) -> PiGpioStatus:
        return self.bus.status(
            self.name,
            connected=self._error is None and not self._closed,
            error=self._error,
            dropped=self._queue.dropped,
        )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._thread.join(timeout=2.0)
        self._queue.close()
        self.bus.release()

    def __enter__(self) -> PiGpioSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the reader thread --------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.bus.read_once(self._stop.wait)
            except Exception as err:  # an lgpio error mid-run: report it and try again
                self._error = f"GPIO read failed: {err}"
                self._stop.wait(1.0)
                continue
            self._error = None
            if frame is not None:
                self._queue.put(frame)
