"""`sowboard bench pi-reader`: the Pi-only HX711 reader's sample rate while the daemon is busy.

16 HX711 models at 80 SPS (RATE wired high) on the fake lgpio, read by the Pi-only reader for
`seconds` per reader kind, while this process also runs:

- `busy` Python threads that never wait (pure-Python work: they hold the interpreter lock as
  long as the interpreter lets them, as a heavy request or a slow referee step would);
- the daemon in demo mode on the simulated board with its web server, and `clients` live pages
  reading its event stream (from a child process, as `sowboard bench web` does).

Reader kinds: `thread` (PiGpioSource, a thread of this process), `process-normal`
(PiProcessSource without real-time priority) and `process` (PiProcessSource at SCHED_FIFO
where the OS allows it: what the daemon runs). Figures per kind:

- SPS: frames with data per second from their timestamps, over the whole run and in its worst
  second; the chips make 80, so a reader that keeps up shows 80.
- power-downs: how often the HX711 models powered down (SCK high over 60 us), counted by the
  models themselves, for the whole life of the reader (the fake reports them when the reader
  closes the gpiochip, from whichever process it ran in).
- overruns: reads the reader threw away because it timed a clock-high phase over 60 us. Its
  timing is an upper bound (it includes the calls around the pulse), so every power-down is an
  overrun but not every overrun is a power-down.
- settling: reads thrown away while the chips settled (4 at start, 4 after each overrun).

First the `process` reader runs alone (no busy threads, no daemon): the figure the load is
compared with. Target (issue "Nothing fails unseen"): `process` under load keeps >= 79 SPS with
0 power-downs. The machine
running the bench matters: on a PC shared with other work the figures are a lower bound of what
a Pi with nothing else to do gives. The last line printed is one JSON object.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from controller.sensing.frames import Frame, SampleSource
from controller.sensing.pi_gpio import PiGpioConfig, PiGpioSource
from controller.sensing.pi_process import RT_PRIORITY, PiProcessSource
from controller.sim.fake_lgpio import wired_lgpio

CELLS = 16  # the congkak7 board, every DOUT pin of the Pi-only build
RATE_SPS = 80
TARGET_SPS = 79.0
WARM_UP_S = 1.0  # start-up and the first settling reads are not part of the figure

#: 16 distinct readings, half of them negative (the sign bit matters to the reader).
VALUES = [(-1) ** i * 1000 * (i + 1) for i in range(CELLS)]


def _lgpio(report: str) -> Any:
    """The fake lgpio's factory; the chips' counters go to `report` when the reader closes."""
    return functools.partial(wired_lgpio, VALUES, rate=RATE_SPS, report=report)


def _thread_reader(config: PiGpioConfig, report: str) -> SampleSource:
    return PiGpioSource(config, lgpio=_lgpio(report)())


def _process_reader(config: PiGpioConfig, report: str, *, realtime: bool) -> SampleSource:
    priority = RT_PRIORITY if realtime else None
    return PiProcessSource(config, lgpio=_lgpio(report), priority=priority)


READERS: dict[str, Callable[[PiGpioConfig, str], SampleSource]] = {
    "thread": _thread_reader,
    "process-normal": functools.partial(_process_reader, realtime=False),
    "process": functools.partial(_process_reader, realtime=True),
}


@contextlib.contextmanager
def busy_threads(count: int) -> Iterator[None]:
    """`count` threads that compute without ever waiting, until the block ends."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(k * k for k in range(2000))

    threads = [threading.Thread(target=spin, name=f"busy-{k}", daemon=True) for k in range(count)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def sps_figures(frames: list[Frame]) -> tuple[float, float]:
    """(mean SPS, worst whole second's SPS) of the frames that carry data."""
    times = [f.t for f in frames if any(v is not None for v in f.raw)]
    if len(times) < 2:
        return 0.0, 0.0
    mean = (len(times) - 1) / (times[-1] - times[0])
    seconds = int(times[-1] - times[0])
    counts = [0] * max(1, seconds)
    for t in times:
        k = int(t - times[0])
        if k < seconds:
            counts[k] += 1
    return mean, float(min(counts))


def measure(kind: str, seconds: float) -> dict[str, Any]:
    """Read for `seconds` with the reader `kind`; its figures."""
    with tempfile.TemporaryDirectory(prefix="sowboard-bench-") as tmp:
        report = os.path.join(tmp, "chips.json")
        result = _measure(READERS[kind](PiGpioConfig.default(CELLS), report), seconds)
        try:  # written when the reader released the chips (a killed reader writes nothing)
            with open(report, encoding="utf-8") as chips:
                result["power_downs"] = json.load(chips)["power_downs"]
        except OSError:
            result["power_downs"] = None
    result["reader"] = kind
    return result


def _measure(source: SampleSource, seconds: float) -> dict[str, Any]:
    try:
        end_warm = time.monotonic() + WARM_UP_S
        while time.monotonic() < end_warm:
            source.read(0.1)
        before = source.status()
        frames: list[Frame] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            frame = source.read(0.5)
            if frame is not None:
                frames.append(frame)
        after = source.status()
    finally:
        source.close()
    mean, worst = sps_figures(frames)
    return {
        "sps": round(mean, 2),
        "worst_second_sps": worst,
        "frames": len(frames),
        "overruns": _delta(after, before, "discarded_reads"),
        "slow_reads": _delta(after, before, "slow_reads"),
        "settling_reads": _delta(after, before, "settling_reads"),
        "wrong_values": sum(
            1
            for f in frames
            for v, want in zip(f.raw, VALUES, strict=True)
            if v not in (None, want)
        ),
        "priority": getattr(after, "priority", "the daemon's thread"),
        "restarts": getattr(after, "restarts", 0),
    }


def _delta(after: Any, before: Any, name: str) -> int:
    return int(getattr(after, name, 0)) - int(getattr(before, name, 0))


def main(seconds: float = 60.0, busy: int = 2, clients: int = 50, reader: str = "all") -> int:
    from controller.daemon.benchweb import demo_daemon, start_pages

    kinds = list(READERS) if reader == "all" else [reader]
    print(
        f"bench pi-reader: {CELLS} HX711 models at {RATE_SPS} SPS on the fake lgpio, "
        f"{seconds:g} s per reader, with {busy} busy Python threads and the daemon serving "
        f"{clients} live pages",
        flush=True,
    )
    baseline = measure("process", seconds)  # the same reader with nothing else running
    baseline["reader"], baseline["page_events"] = "process, no load", 0
    print(_line(baseline), flush=True)
    results = [baseline]
    with tempfile.TemporaryDirectory(prefix="sowboard-bench-") as data:
        daemon = demo_daemon(data, clients)
        # 50 pages keep waitress's workers busy, the load wanted here; its "Task queue depth"
        # warnings would bury the figures.
        logging.getLogger("waitress.queue").setLevel(logging.ERROR)
        daemon.start()
        try:
            with busy_threads(busy):
                for kind in kinds:
                    pages = start_pages(daemon.server.port, clients, seconds + WARM_UP_S + 2)
                    try:
                        result = measure(kind, seconds)
                    finally:
                        out, _ = pages.communicate(timeout=seconds + 60)
                    result["page_events"] = json.loads(out.strip().splitlines()[-1])["events"]
                    results.append(result)
                    print(_line(result), flush=True)
        finally:
            daemon.stop()
    chosen = next((r for r in results if r["reader"] == "process"), None)
    met = None if chosen is None else _met(chosen)
    print(json.dumps({"seconds": seconds, "busy_threads": busy, "clients": clients,
                      "readers": results, "target_met": met}), flush=True)  # fmt: skip
    return 0 if met in (None, True) else 1


def _met(result: dict[str, Any]) -> bool:
    return bool(result["sps"] >= TARGET_SPS and result["power_downs"] == 0)


def _line(r: dict[str, Any]) -> str:
    return (
        f"{r['reader']:>15}: {r['sps']:.2f} SPS (worst second {r['worst_second_sps']:.0f}), "
        f"{r['power_downs']} power-downs, {r['overruns']} overruns, {r['slow_reads']} slow "
        f"reads, {r['settling_reads']} settling reads, {r['wrong_values']} wrong values, "
        f"priority {r['priority']}, "
        f"{r['page_events']} page events"
    )
