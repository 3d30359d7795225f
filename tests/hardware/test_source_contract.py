"""Every sample source keeps the `SampleSource` contract of controller/sensing/frames.py.

One parametrised fixture builds each source on its bench: the Pi-only reader on a fake lgpio with
HX711 models (in a thread, and in a process of its own), the Pico link through a pty with the
firmware on the PIO emulator, the simulated board, and a recording of frames (what `sowboard
simulate --frames` replays). The checks: frames have increasing t and seq, raw values are ints
in the signed 24-bit range or None, one per cell; status() answers; close() can be called
twice.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.sensing.frames import RAW_MAX, RAW_MIN, Frame, SampleSource, SourceStatus
from controller.sensing.pi_gpio import PiGpioConfig, PiGpioSource
from controller.sensing.pi_process import PiProcessSource
from controller.sensing.recording import RecordingSource, encode_recording, load_recording
from controller.sensing.serial_source import SerialSource
from controller.sim.fake_lgpio import FakeLgpio, wired_lgpio
from controller.sim.hx711_model import HX711Model
from tests.hardware.pico_pty import PtyPico

VALUES = [0, -1, 1, RAW_MAX, RAW_MIN, 4321, -4321, 99, -99, 7, -7, 1 << 20, -(1 << 20), 5, 6, 8]


def chips() -> list[HX711Model]:
    now = time.perf_counter_ns()
    return [
        HX711Model(v, start_ns=now, phase=(i * 0.37) % 1.0, seed=i, noise=3)
        for i, v in enumerate(VALUES)
    ]


def pi_gpio_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[SampleSource, Callable[[], None]]:
    config = PiGpioConfig.default(len(VALUES))
    lgpio = FakeLgpio(config.sck, dict(zip(config.dout, chips(), strict=True)))
    source = PiGpioSource(config, lgpio=lgpio.as_module())
    return source, lambda: None


def pi_process_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[SampleSource, Callable[[], None]]:
    """The same chips, read by the Pi-only reader in a process of its own (the fake lgpio and
    the chips are made in that process)."""
    config = PiGpioConfig.default(len(VALUES))
    lgpio = functools.partial(wired_lgpio, VALUES, noise=3)
    return PiProcessSource(config, lgpio=lgpio), lambda: None


def serial_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[SampleSource, Callable[[], None]]:
    pico = PtyPico(chips(), tmp_path / "pico-data", monkeypatch)
    pico.plug()
    return SerialSource(str(pico.link_path), cell_count=len(VALUES)), pico.unplug


# ---- the simulated source (controller.sim.world.SimSource, the simulator engineer's) ----------
# Included whenever it imports; its frames come in simulated time, as fast as they are read.
try:
    from controller.sim import build_world, parse_scenario
    from controller.sim.world import SimSource
except ImportError:  # pragma: no cover - the simulator is not there yet
    SimSource = None  # type: ignore[assignment,misc]


def sim_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[SampleSource, Callable[[], None]]:
    if SimSource is None:
        pytest.skip("controller.sim.world.SimSource is not available")
    world = build_world(parse_scenario({"variant": "kalah", "sensors": {}}, "contract.json"))
    return SimSource(world, endless=True), lambda: None


def recording_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[SampleSource, Callable[[], None]]:
    """Frames of the Pi-only bench (every value, and a cell that gave nothing), recorded."""
    bench, _ = pi_gpio_source(tmp_path, monkeypatch)
    frames = take(bench, 14)
    bench.close()
    frames[3] = Frame(frames[3].t, (None, *frames[3].raw[1:]), frames[3].seq)
    header = {"cells": bench.cell_count, "rate_sps": 80}
    path = tmp_path / "contract.jsonl.gz"
    path.write_bytes(encode_recording(header, frames, {"steps": [], "flags": []}))
    return RecordingSource(load_recording(path)), lambda: None


# ------------------------------------------------------------------------------------------------

SOURCES = {
    "pi_gpio": pi_gpio_source,
    "pi_process": pi_process_source,
    "serial": serial_source,
    "sim": sim_source,
    "recording": recording_source,
}


@pytest.fixture(params=sorted(SOURCES))
def source(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SampleSource]:
    made, teardown = SOURCES[request.param](tmp_path, monkeypatch)
    try:
        yield made
    finally:
        made.close()
        teardown()


def take(source: SampleSource, n: int, timeout: float = 10.0) -> list[Frame]:
    frames: list[Frame] = []
    end = time.monotonic() + timeout
    while len(frames) < n and time.monotonic() < end:
        frame = source.read(0.5)
        if frame is not None:
            frames.append(frame)
    assert len(frames) == n, f"{len(frames)} of {n} frames; status {source.status()}"
    return frames


def test_is_a_sample_source(source: SampleSource) -> None:
    assert isinstance(source, SampleSource)
    assert isinstance(source.cell_count, int) and source.cell_count > 0


def test_frames_increase_in_t_and_seq(source: SampleSource) -> None:
    frames = take(source, 12)
    for a, b in itertools.pairwise(frames):
        assert b.t > a.t, (a, b)
        assert b.seq > a.seq, (a, b)


def test_raw_values_are_24_bit_ints_or_none_one_per_cell(source: SampleSource) -> None:
    for frame in take(source, 12):
        assert isinstance(frame, Frame)
        assert len(frame.raw) == source.cell_count
        for value in frame.raw:
            assert value is None or (type(value) is int and RAW_MIN <= value <= RAW_MAX), value
        assert isinstance(frame.t, float)


def test_status_answers(source: SampleSource) -> None:
    take(source, 2)
    status = source.status()
    assert isinstance(status, SourceStatus)
    assert isinstance(status.name, str) and status.name
    assert status.connected is True
    assert status.rate_sps > 0
    assert status.fault is None or isinstance(status.fault, str)


def test_close_is_idempotent(source: SampleSource) -> None:
    take(source, 1)
    source.close()
    source.close()
    assert isinstance(source.status(), SourceStatus)
    while source.read(0) is not None:  # frames read before the close may still be queued
        pass
    assert source.read(0.1) is None, "a closed source makes no new frames"
