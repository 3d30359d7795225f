"""The Pi's serial source end to end: the Pico firmware in a thread on HX711 models and the PIO
emulator, a pseudo-terminal as the USB cable (firmware/PROTOCOL.md; HARDWARE.md, "CircuitPython
on an RP2040")."""

from __future__ import annotations

import itertools
import os
import struct
import sys
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.sensing.hwsource import SourceUnavailable
from controller.sensing.serial_source import (
    LINK_LOST,
    SerialSource,
    find_pico_port,
    load_serial,
)
from controller.sim.hx711_model import HX711Model
from tests.hardware.conftest import complete, wait_for
from tests.hardware.firmware_path import pinmap, sowfirm, sowproto
from tests.hardware.pico_pty import PtyPico


def chips_for(values: list[int]) -> list[HX711Model]:
    now = time.perf_counter_ns()
    return [
        HX711Model(v, start_ns=now, phase=(i * 0.37) % 1.0, seed=i) for i, v in enumerate(values)
    ]


class Bench:
    def __init__(self, pico: PtyPico, source: SerialSource) -> None:
        self.pico = pico
        self.source = source


@pytest.fixture
def bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Bench]]:
    made: list[Bench] = []

    def build(values: list[int], **options: Any) -> Bench:
        pico = PtyPico(chips_for(values), tmp_path / "pico-data", monkeypatch)
        pico.plug()
        source = SerialSource(str(pico.link_path), cell_count=len(values), **options)
        made.append(Bench(pico, source))
        return made[-1]

    yield build
    for b in made:
        b.source.close()
        b.pico.unplug()
        assert not b.pico.errors, b.pico.errors


def test_frames_arrive_with_signs_times_and_seq(bench) -> None:
    values = [0, 1, -1, 8_388_607, -8_388_608, 123_456, -123_456, 42]
    b = bench(values)
    frames = [wait_for(b.source, complete) for _ in range(6)]
    assert all(f.raw == tuple(values) for f in frames)
    assert all(y.t > x.t and y.seq > x.seq for x, y in itertools.pairwise(frames))
    status = b.source.status()
    assert status.connected and status.fault is None
    assert status.firmware == sowfirm.FIRMWARE_VERSION
    assert status.port == str(b.pico.link_path)
    assert status.corrupt_frames == 0


def test_timestamps_follow_this_machines_clock(bench) -> None:
    b = bench([5, 6])
    wait_for(b.source, complete)
    frame = wait_for(b.source, complete)
    assert 0 <= time.monotonic() - frame.t < 0.5, "mapped onto time.monotonic()"


def test_led_frames_and_sample_rate_reach_the_pico(bench) -> None:
    b = bench([1, 2], led_count=3)
    wait_for(b.source, complete)
    b.source.set_leds([(0, 114, 178), (230, 159, 0)], start=1)
    end = time.monotonic() + 3
    while time.monotonic() < end:
        strips = b.pico.rig.strips
        if strips and strips[-1].shown and strips[-1].shown[-1][1] == (0, 114, 178):
            break
        time.sleep(0.01)
    assert b.pico.rig.strips[-1].shown[-1] == ((0, 0, 0), (0, 114, 178), (230, 159, 0))
    assert b.pico.rig.strips[-1].pin.id == pinmap.NEOPIXEL_GP
    b.source.set_rate(10)
    end = time.monotonic() + 3
    while b.pico.rig.pins_written[pinmap.RATE_GP] and time.monotonic() < end:
        time.sleep(0.01)
    assert b.pico.rig.pins_written[pinmap.RATE_GP] is False, "RATE low: 10 samples/s"
    for _ in range(3):
        wait_for(b.source, complete)
    frames = [wait_for(b.source, complete) for _ in range(5)]
    mean_gap = (frames[-1].t - frames[0].t) / 4
    assert 0.07 < mean_gap < 0.2, f"about 100 ms apart at 10 SPS, not 12.5 ms: {mean_gap}"
    with pytest.raises(ValueError):
        b.source.set_leds([(1, 1, 1)] * 4)


def _mangle_every(n: int, how: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    count = itertools.count(1)

    def mangle(data: bytes) -> bytes:
        return how(data) if next(count) % n == 0 else data

    return mangle


def test_corrupted_bytes_are_dropped_counted_and_the_stream_goes_on(bench) -> None:
    values = [1000, -1000, 7]
    b = bench(values)
    wait_for(b.source, complete)

    def flip(data: bytes) -> bytes:
        bad = bytearray(data)
        bad[len(bad) // 2] ^= 0x5A
        return bytes(bad)

    b.pico.link.mangle = _mangle_every(5, flip)
    frames = [wait_for(b.source, lambda f: True) for _ in range(20)]
    b.pico.link.mangle = None
    assert all(f.raw == tuple(values) for f in frames), "no damaged reading gets through"
    status = b.source.status()
    assert status.corrupt_frames >= 3
    assert status.lost_frames >= 3, "the seq gaps show the lost frames"
    assert any(y.seq - x.seq > 1 for x, y in itertools.pairwise(frames))


def test_truncated_frames_cost_only_themselves(bench) -> None:
    values = [-5, 5]
    b = bench(values)
    wait_for(b.source, complete)
    b.pico.link.mangle = _mangle_every(4, lambda data: data[: len(data) // 2])  # bytes lost
    frames = [wait_for(b.source, lambda f: True) for _ in range(15)]
    b.pico.link.mangle = None
    assert all(f.raw == tuple(values) for f in frames)
    status = b.source.status()
    assert status.corrupt_frames >= 2 and status.connected


def test_unplug_then_replug(bench) -> None:
    values = [11, -22, 33]
    b = bench(values, reopen_interval=0.1)
    before = wait_for(b.source, complete)
    b.pico.unplug()
    end = time.monotonic() + 3
    while b.source.status().connected and time.monotonic() < end:
        time.sleep(0.02)
    status = b.source.status()
    assert not status.connected and status.fault == LINK_LOST
    while b.source.read(0) is not None:  # what arrived before the cable came out
        pass
    start = time.monotonic()
    assert b.source.read(0.3) is None
    assert time.monotonic() - start >= 0.29
    time.sleep(0.3)  # the reader keeps trying to reopen the missing port
    assert b.source.status().fault == LINK_LOST
    b.pico.plug()
    after = wait_for(b.source, complete)
    assert after.raw == tuple(values)
    assert after.seq > before.seq and after.t > before.t
    status = b.source.status()
    assert status.connected and status.fault is None and status.reconnects == 1


def test_unplugged_cell_on_the_pico_becomes_a_fault(bench) -> None:
    b = bench([1, 2, 3], fault_after=0.3)
    wait_for(b.source, complete)
    b.pico.chips[0].unplugged = True
    frame = wait_for(b.source, lambda f: f.missing == (0,))
    assert frame.raw == (None, 2, 3)
    time.sleep(0.5)
    wait_for(b.source, lambda f: True)
    assert b.source.status().fault == "cell 0: no data (unplugged?)"


class FakePeer:
    """Something on the other end that answers PING with a PONG of its own making."""

    def __init__(self, link_path: Path, pong: Callable[[int], bytes]) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), link_path)
        self.pong = pong
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        decoder = sowproto.Decoder()
        os.set_blocking(self.master, False)
        while not self.stop.is_set():
            try:
                data = os.read(self.master, 1024)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            for packet in decoder.feed(data):
                if packet.msg_type == sowproto.MSG_PING:
                    token = sowproto.unpack_ping(packet.payload)
                    os.write(
                        self.master, sowproto.encode_packet(sowproto.MSG_PONG, self.pong(token))
                    )

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        os.close(self.master)
        os.close(self.slave)


def test_protocol_version_mismatch_is_a_named_fault(tmp_path: Path) -> None:
    link = tmp_path / "pico-data"
    peer = FakePeer(link, lambda token: struct.pack("<IB", token, 7) + b"future")
    source = SerialSource(str(link), cell_count=2, reopen_interval=0.1)
    try:
        end = time.monotonic() + 3
        while source.status().fault != "protocol version mismatch" and time.monotonic() < end:
            time.sleep(0.02)
        status = source.status()
        assert status.fault == "protocol version mismatch" and not status.connected
        assert status.detail is not None and "v7" in status.detail
        assert source.read(0.1) is None
    finally:
        source.close()
        peer.close()


def test_no_pico_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    import serial.tools.list_ports

    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    source = SerialSource(cell_count=2, reopen_interval=0.05)
    try:
        time.sleep(0.2)
        status = source.status()
        assert status.fault == "Pico not found" and not status.connected
        assert status.detail is not None and "boot.py" in status.detail
        assert source.read(0.05) is None
    finally:
        source.close()
        source.close()


def _port(device: str, vid: int | None, interface: str | None, location: str, serial="E6616"):
    return SimpleNamespace(
        device=device, vid=vid, interface=interface, location=location, serial_number=serial
    )


def test_find_pico_port_picks_the_data_channel() -> None:
    ports = [
        _port("/dev/ttyAMA0", None, None, ""),
        _port("/dev/ttyACM0", 0x239A, "CircuitPython CDC control", "1-1.3:1.0"),
        _port("/dev/ttyACM1", 0x239A, "CircuitPython CDC2 control", "1-1.3:1.2"),
    ]
    assert find_pico_port(ports) == "/dev/ttyACM1"
    unnamed = [
        _port("/dev/ttyACM0", 0x239A, None, "1-1.3:1.0"),
        _port("/dev/ttyACM1", 0x239A, None, "1-1.3:1.2"),
    ]
    assert find_pico_port(unnamed) == "/dev/ttyACM1"
    console_only = [_port("/dev/ttyACM0", 0x239A, "CircuitPython CDC control", "1-1.3:1.0")]
    assert find_pico_port(console_only) is None, "never the console: boot.py is missing"


def test_missing_pyserial_says_to_install_the_pi_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "serial", None)
    with pytest.raises(SourceUnavailable, match="pyserial not available"):
        load_serial()


def test_close_is_idempotent_and_read_returns_none(bench) -> None:
    b = bench([1])
    wait_for(b.source, complete)
    b.source.close()
    b.source.close()
    while b.source.read(0) is not None:
        pass
    assert b.source.read(None) is None
    assert not b.source.status().connected


def test_an_error_from_the_pico_shows_in_the_status_detail(bench) -> None:
    b = bench([1])
    wait_for(b.source, complete)
    b.source._send(0x7F, b"")  # a message type the firmware does not know
    end = time.monotonic() + 3
    while time.monotonic() < end and not (b.source.status().detail or "").endswith("0x7f"):
        time.sleep(0.02)
    assert b.source.status().detail == "the Pico said: error 4: unknown message 0x7f"
    assert b.source.status().connected
