"""The Pico firmware on CPython: its PIO program on rp2040-pio-emulator against HX711 models, and
its main loop with fake CircuitPython modules (HARDWARE.md, "HX711" and "CircuitPython on an
RP2040"; firmware/PROTOCOL.md)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import adafruit_pioasm
import pytest

from controller.sim.hx711_model import HX711Model
from tests.hardware.fake_circuitpython import MemoryLink, PicoRig
from tests.hardware.firmware_path import hx711_pio, pinmap, sowfirm, sowproto

US = 1000


def chips_for(values: list[int], **kw: Any) -> list[HX711Model]:
    now = time.perf_counter_ns()
    return [
        HX711Model(v, start_ns=now, phase=(i * 0.37) % 1.0, seed=i, **kw)
        for i, v in enumerate(values)
    ]


def reader_on(rig: PicoRig, cells: int, **kw: Any) -> Any:
    """The firmware's reader on the emulated state machine, built as main() builds it."""
    modules = rig.modules()
    board = modules["board"]
    program = adafruit_pioasm.Program(hx711_pio.program_source(pinmap.DOUT_LINES))
    sm = modules["rp2pio"].StateMachine(
        program.assembled,
        frequency=hx711_pio.PIO_FREQUENCY,
        first_in_pin=board.GP0,
        in_pin_count=pinmap.DOUT_LINES,
        pull_in_pin_up=(1 << pinmap.DOUT_LINES) - 1,
        first_sideset_pin=board.GP20,
        initial_sideset_pin_state=0,
        initial_sideset_pin_direction=1,
        in_shift_right=False,
        wait_for_txstall=False,
        **program.pio_kwargs,
    )
    return hx711_pio.ParallelHX711(sm, cells, lambda: time.monotonic_ns() // 1000, **kw)


def poll_until(reader: Any, n: int, timeout: float = 5.0) -> list[tuple[int, list[int | None]]]:
    got = []
    end = time.monotonic() + timeout
    while len(got) < n:
        assert time.monotonic() < end, f"only {len(got)} reads in {timeout} s"
        sample = reader.poll()
        if sample is not None:
            got.append(sample)
        else:
            time.sleep(0.0005)
    return got


# -- the PIO program ------------------------------------------------------------------------------


def test_pio_reads_sixteen_chips_in_parallel_with_signs() -> None:
    values = [0, 1, -1, 8_388_607, -8_388_608, 4_194_304, -4_194_304, 77, -77, 1000, -1000,
              123_456, -123_456, 2, -2, 65_535]  # fmt: skip
    rig = PicoRig(chips_for(values), MemoryLink())
    reader = reader_on(rig, 16)
    reads = poll_until(reader, 3)
    assert all(v == values for _, v in reads)
    assert {chip.reads for chip in rig.chips} == {3}, "one clock-out serves every chip"
    assert all(chip.garbage_reads == 0 and chip.power_downs == 0 for chip in rig.chips)


def test_pio_clock_high_phase_is_exactly_one_microsecond() -> None:
    """The HX711 powers down when SCK stays high over 60 us; the PIO program holds it high for
    PULSE_HIGH_CYCLES cycles at 10 MHz, whatever the Python side does."""
    rig = PicoRig(chips_for([5, 6]), MemoryLink())
    poll_until(reader_on(rig, 2), 2)
    highs = set(rig.chips[0].high_ns)
    assert highs == {hx711_pio.PULSE_HIGH_CYCLES * 100}, highs
    assert len(rig.chips[0].high_ns) == 2 * 25


def test_pio_gain_pulses() -> None:
    rig = PicoRig(chips_for([10_000, -10_000]), MemoryLink())
    reader = reader_on(rig, 2, gain=64)
    reads = poll_until(reader, 3)
    assert reads[-1][1] == [5_000, -5_000]
    assert len(rig.chips[0].high_ns) == 3 * 27, "27 pulses: A-64"


def test_unplugged_line_reads_high_and_is_not_waited_for() -> None:
    rig = PicoRig(chips_for([1, 2, 3]), MemoryLink())
    rig.chips[1].unplugged = True
    reader = reader_on(rig, 3, ready_timeout_us=100_000)
    reads = poll_until(reader, 8, timeout=5.0)
    assert all(v == [1, None, 3] for _, v in reads)
    stamps = [t for t, _ in reads]
    # after two misses the cell is not waited for: the rest come at the chips' 80 SPS
    assert stamps[-1] - stamps[3] < 4 * 30_000


def test_nothing_ready_at_all_reports_every_cell_missing() -> None:
    rig = PicoRig(chips_for([1, 2]), MemoryLink())
    for chip in rig.chips:
        chip.unplugged = True
    reader = reader_on(rig, 2, ready_timeout_us=20_000)
    (read,) = poll_until(reader, 1)
    assert read[1] == [None, None]
    assert len(rig.chips[0].high_ns) == 0, "nothing is clocked when nothing is ready"


def test_limit_current_scales_white_to_the_budget() -> None:
    white = [(255, 255, 255)] * 50  # 50 x 61 mA = 3.05 A estimated
    limited = sowfirm.limit_current(white, 2000)
    total = sum(1 + 20 * (r + g + b) / 255 for r, g, b in limited)
    assert 1900 < total <= 2000
    assert sowfirm.limit_current([(10, 0, 0)], 2000) == [(10, 0, 0)]


# -- the main loop with fake CircuitPython modules -----------------------------------------------


class Host:
    """The Pi's end of a MemoryLink: sends packets, collects what the Pico sent."""

    def __init__(self, link: MemoryLink) -> None:
        self.link = link
        self.decoder = sowproto.Decoder()
        self.packets: list[Any] = []

    def send(self, msg_type: int, payload: bytes, version: int = sowproto.PROTOCOL_VERSION) -> None:
        data = sowproto.encode_packet(msg_type, payload, version)
        with self.link._lock:
            self.link.to_pico.extend(data)

    def expect(self, kind: int, check: Callable[[Any], bool] = lambda p: True) -> Any:
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            self.packets += self.decoder.feed(self.link.take())
            for i, packet in enumerate(self.packets):
                if packet.msg_type == kind and check(packet):
                    del self.packets[: i + 1]
                    return packet
            time.sleep(0.005)
        raise AssertionError(f"no packet 0x{kind:02x}; have {self.packets[-5:]}")


def install_fakes(monkeypatch: pytest.MonkeyPatch, rig: PicoRig) -> None:
    for name, module in rig.modules().items():
        monkeypatch.setitem(sys.modules, name, module)


@pytest.fixture
def pico(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[list[HX711Model]], Any]]:
    stops: list[tuple[threading.Event, threading.Thread]] = []

    def start(chips: list[HX711Model]) -> Any:
        link = MemoryLink()
        rig = PicoRig(chips, link)
        install_fakes(monkeypatch, rig)
        stop = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            try:
                sowfirm.main(stop.is_set)
            except BaseException as err:  # shown by the test
                errors.append(err)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        stops.append((stop, thread))
        return rig, Host(link), errors

    yield start
    for stop, thread in stops:
        stop.set()
        thread.join(5)


def test_main_answers_ping_with_version_and_settings(pico) -> None:
    rig, host, errors = pico(chips_for([1, 2]))
    host.send(sowproto.MSG_PING, sowproto.pack_ping(0xC0FFEE))
    pong = sowproto.unpack_pong(host.expect(sowproto.MSG_PONG).payload)
    assert pong["token"] == 0xC0FFEE and pong["protocol"] == sowproto.PROTOCOL_VERSION
    assert pong["firmware"] == sowfirm.FIRMWARE_VERSION
    assert (pong["cells"], pong["rate"], pong["gain"]) == (sowfirm.DEFAULT_CELLS, 80, 128)
    assert rig.autoreload is False, "a file write must not restart the board"
    assert rig.watchdog_fed > 0
    assert rig.pins_written[pinmap.RATE_GP] is True, "RATE high: 80 SPS"
    assert not errors


def test_main_streams_samples_after_config(pico) -> None:
    _, host, errors = pico(chips_for([300, -300, 0]))
    host.send(sowproto.MSG_CONFIG, sowproto.pack_config(3, 80, 128, 0))
    first = host.expect(sowproto.MSG_SAMPLES, lambda p: len(p.payload) == 13 + 9)
    second = host.expect(sowproto.MSG_SAMPLES)
    seq1, t1, values1 = sowproto.unpack_samples(first.payload)
    seq2, t2, values2 = sowproto.unpack_samples(second.payload)
    assert values1 == values2 == [300, -300, 0]
    assert seq2 == seq1 + 1 and t2 > t1
    assert not errors


def test_config_sets_rate_pin_and_gain(pico) -> None:
    rig, host, errors = pico(chips_for([1000, 2000]))
    host.send(sowproto.MSG_CONFIG, sowproto.pack_config(2, 10, 64, 0))
    host.send(sowproto.MSG_PING, sowproto.pack_ping(1))
    pong = sowproto.unpack_pong(host.expect(sowproto.MSG_PONG).payload)
    assert (pong["cells"], pong["rate"], pong["gain"]) == (2, 10, 64)
    assert rig.pins_written[pinmap.RATE_GP] is False, "RATE low: 10 SPS"
    halved = host.expect(
        sowproto.MSG_SAMPLES, lambda p: sowproto.unpack_samples(p.payload)[2] == [500, 1000]
    )
    assert halved is not None
    assert not errors


def test_led_frames_reach_the_strip_under_the_current_cap(pico) -> None:
    rig, host, errors = pico(chips_for([1]))
    host.send(sowproto.MSG_CONFIG, sowproto.pack_config(1, 80, 128, 4))
    host.send(sowproto.MSG_LEDS, sowproto.pack_leds(1, [(0, 114, 178), (230, 159, 0)]))
    host.send(sowproto.MSG_PING, sowproto.pack_ping(2))
    host.expect(sowproto.MSG_PONG)
    (strip,) = rig.strips
    assert strip.n == 4 and strip.pin.id == pinmap.NEOPIXEL_GP and not strip.auto_write
    assert strip.shown[-1] == ((0, 0, 0), (0, 114, 178), (230, 159, 0), (0, 0, 0))
    assert not errors


def test_bad_input_is_answered_with_errors_and_counted(pico) -> None:
    _, host, errors = pico(chips_for([1]))
    host.send(sowproto.MSG_LEDS, b"\x00")
    code, _ = sowproto.unpack_error(host.expect(sowproto.MSG_ERROR).payload)
    assert code == sowproto.ERR_BAD_LEDS
    host.send(0x7F, b"")
    code, text = sowproto.unpack_error(host.expect(sowproto.MSG_ERROR).payload)
    assert (code, text) == (sowproto.ERR_UNKNOWN_TYPE, "unknown message 0x7f")
    host.send(sowproto.MSG_CONFIG, sowproto.pack_config(1, 80, 128, 0), version=9)
    code, _ = sowproto.unpack_error(host.expect(sowproto.MSG_ERROR).payload)
    assert code == sowproto.ERR_VERSION
    with host.link._lock:
        host.link.to_pico.extend(b"\x00\x07garbage\x00")  # not a packet at all
    host.send(sowproto.MSG_PING, sowproto.pack_ping(3))
    pong = sowproto.unpack_pong(host.expect(sowproto.MSG_PONG).payload)
    assert pong["rx_errors"] == 1
    assert not errors


def test_main_without_the_data_channel_says_to_copy_boot_py(monkeypatch) -> None:
    rig = PicoRig(chips_for([1]), None)
    install_fakes(monkeypatch, rig)
    with pytest.raises(RuntimeError, match=r"boot\.py"):
        sowfirm.main(lambda: True)
