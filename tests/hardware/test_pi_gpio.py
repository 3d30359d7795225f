"""The Pi-only reader against HX711 models on a fake lgpio (HARDWARE.md, "HX711" and "Linux user
space timing"): values and signs, one shared clock for all chips, overrun reads thrown away,
unplugged and railed chips."""

from __future__ import annotations

import itertools
import sys
import time
from typing import Any

import pytest

from controller.sensing.frames import RAW_MAX, RAW_MIN
from controller.sensing.hwsource import SourceUnavailable
from controller.sensing.pi_gpio import SETTLE_READS, PiGpioConfig, PiGpioSource, load_lgpio
from controller.sim.fake_lgpio import FakeLgpio, make_chips
from tests.hardware.conftest import complete, wait_for

# Signed 24-bit values that exercise the two's-complement edges: 0, +-1, both rails, and the
# words whose top bit alone is set or clear (0x800000 = -8388608, 0x7FFFFF = 8388607).
VALUES = [0, 1, -1, 523_187, -523_187, RAW_MAX, RAW_MIN, 0x400000, -0x400000, 255, -256,
          65_536, -65_537, 12, -12, 8_000_000]  # fmt: skip


def test_sixteen_chips_read_in_parallel_with_correct_signs(pi_rig) -> None:
    rig = pi_rig(make_chips(VALUES))
    frame = wait_for(rig.source, complete)
    assert frame.raw == tuple(VALUES)
    assert all(isinstance(v, int) for v in frame.raw)


def test_one_clock_serves_all_chips(pi_rig) -> None:
    """Datasheet: 25 pulses per read at gain 128; with a shared SCK every chip sees the same
    pulses, so 16 chips cost one read's worth of clock, not 16."""
    rig = pi_rig(make_chips([100 * i for i in range(16)]))
    for _ in range(10):
        wait_for(rig.source, complete)
    rig.source.close()
    reads = {chip.reads for chip in rig.chips}
    assert len(reads) == 1, "every chip is read at every read"
    (n,) = reads
    assert n >= 10
    # One read's 25 pulses serve all 16 chips. A loaded machine can preempt the reader
    # mid-pulse for over 60 us: the chips power down and lose that read, yet its pulses were
    # sent (if it was the last pulse, the read had counted already).
    (lost,) = {chip.power_downs for chip in rig.chips}
    assert rig.lgpio.high_phases % 25 == 0
    assert 25 * n <= rig.lgpio.high_phases <= 25 * (n + lost)
    assert all(chip.garbage_reads == 0 for chip in rig.chips), "never clocked before ready"


def test_gain_64_sends_27_pulses_and_halves_the_reading(pi_rig) -> None:
    rig = pi_rig(make_chips([40_000, -40_000]), gain=64)
    frame = wait_for(rig.source, lambda f: complete(f) and f.raw[0] != 40_000)
    assert frame.raw == (20_000, -20_000)
    assert rig.chips[0].gain == 64


def test_frames_are_stamped_with_increasing_time_and_seq(pi_rig) -> None:
    rig = pi_rig(make_chips([5, 6, 7]))
    frames = [wait_for(rig.source, lambda f: True) for _ in range(8)]
    assert all(b.t > a.t for a, b in itertools.pairwise(frames))
    assert all(b.seq > a.seq for a, b in itertools.pairwise(frames))
    status = rig.source.status()
    assert status.connected and status.fault is None
    assert 20 < status.rate_sps < 120, "the chips' 80 SPS, measured"
    assert rig.lgpio.group_flags == FakeLgpio.SET_PULL_UP, "DOUT lines get pull-ups"


def test_overrun_clock_pulse_discards_the_read(pi_rig) -> None:
    """SCK high over 60 us powers the HX711 down mid-read; the bits after it are garbage, so the
    reader must throw the whole read away, and the chips recover once SCK is low again."""
    values = [1000, -2000, 3000, -4000]
    rig = pi_rig(make_chips(values))
    wait_for(rig.source, complete)
    rig.lgpio.stall_next_high(200)
    discarded = wait_for(rig.source, lambda f: len(f.missing) == len(values))
    assert all(v is None for v in discarded.raw)
    assert rig.source.status().discarded_reads >= 1
    assert all(chip.power_downs >= 1 for chip in rig.chips), "the model did power down"
    after = wait_for(rig.source, complete)
    assert after.raw == tuple(values) and after.seq > discarded.seq
    for _ in range(5):  # no garbage slipped through
        frame = rig.source.read(1.0)
        assert frame is not None
        assert all(v is None or v == want for v, want in zip(frame.raw, values, strict=True))


def test_reads_are_thrown_away_until_the_chips_settled_after_a_power_down(pi_rig) -> None:
    """A powered-down HX711 resets when SCK goes low; at worst (`settling_output`) its first 4
    conversions are ready on time but wrong. None of them may reach a frame, at start (the chips
    may have just powered up) or after a power-down mid-read."""
    values = [100_000, -100_000, 50_000]
    chips = make_chips(values, settling_output=True)
    for chip in chips:  # a reader died with SCK high: powered down until SCK is claimed low
        now = time.perf_counter_ns()
        chip.sck(True, now)
        assert chip.dout(now + 100_000) == 1 and chip.powered_down
    rig = pi_rig(chips)
    _frames_until(rig.source, values)
    rig.lgpio.stall_next_high(200)
    _frames_until(rig.source, values, lambda f: len(f.missing) == len(values))
    _frames_until(rig.source, values)
    assert all(chip.power_downs >= 2 for chip in rig.chips), "the model did power down twice"
    status = rig.source.status()
    assert status.discarded_reads >= 1
    assert status.settling_reads >= 2 * SETTLE_READS


def _frames_until(source: Any, values: list[int], until: Any = complete, limit: int = 200) -> None:
    """Read until a frame passes `until` (by default: the true values came; a loaded machine
    may throw away a slow read or two more than the settling reads), checking that no frame
    on the way holds a wrong value."""
    for _ in range(limit):
        frame = source.read(1.0)
        assert frame is not None
        assert all(v is None or v == want for v, want in zip(frame.raw, values, strict=True))
        if until(frame):
            return
    raise AssertionError(f"no such frame came; status {source.status()}")


def test_a_read_stretched_past_the_next_conversion_is_thrown_away(pi_rig) -> None:
    """A reader preempted between two pulses (SCK low, so no power-down) for longer than a
    conversion period: the chips may shift out bits of the next conversion and lose count of
    the pulses. That read and the settling reads after it must not reach a frame."""
    values = [100_000, -100_000, 50_000]
    rig = pi_rig(make_chips(values))
    wait_for(rig.source, complete)
    rig.lgpio.stall_next_low(20_000)  # 20 ms: more than a period at 80 SPS (12.5 ms)
    _frames_until(rig.source, values, lambda f: len(f.missing) == len(values))
    _frames_until(rig.source, values)
    rig.source.close()  # (the counters below, read while it reads, could race its last read)
    status = rig.source.status()
    assert status.slow_reads >= 1
    # SCK stayed low through the stall, so the stall powered nothing down. A loaded machine
    # may still preempt the reader mid-pulse elsewhere (CI did): the chips then power down,
    # and the reader must have caught that high phase as an overrun.
    powered_down = any(chip.power_downs for chip in rig.chips)
    assert not powered_down or status.discarded_reads >= 1, "a power-down went unseen"


def test_unplugged_chip_gives_none_then_a_fault_without_slowing_the_others(pi_rig) -> None:
    values = [111, 222, 333, 444]
    rig = pi_rig(make_chips(values), fault_after=0.3, ready_timeout=0.2)
    wait_for(rig.source, complete)
    rig.chips[2].unplugged = True  # DOUT floats up to the pull-up: never ready
    frame = wait_for(rig.source, lambda f: f.missing == (2,))
    assert frame.raw == (111, 222, None, 444)
    time.sleep(0.5)
    status = rig.source.status()
    assert status.fault == "cell 2: no data (unplugged?)"
    assert status.absent_cells == (2,)
    # the unplugged cell is no longer waited for: frames keep coming at the chips' rate
    while rig.source.read(0) is not None:
        pass
    start = time.monotonic()
    count = sum(rig.source.read(1.0) is not None for _ in range(20))
    assert count == 20 and time.monotonic() - start < 20 * 0.2 / 2
    rig.chips[2].unplugged = False  # plugged back in
    wait_for(rig.source, complete)
    time.sleep(0.05)
    wait_for(rig.source, complete)
    assert rig.source.status().fault is None


def test_railed_chips_are_reported_by_value_and_then_as_a_fault(pi_rig) -> None:
    """An overloaded cell or a broken bridge wire saturates the HX711 at 0x7FFFFF / 0x800000;
    a DOUT shorted low reads as ready with all bits zero."""
    rig = pi_rig(make_chips([RAW_MAX + 5000, RAW_MIN - 5000, 77]), fault_after=0.3)
    frame = wait_for(rig.source, complete)
    assert frame.raw == (RAW_MAX, RAW_MIN, 77)
    rig.chips[2].dout_stuck = 0
    wait_for(rig.source, lambda f: f.raw[2] == 0)
    time.sleep(0.4)
    wait_for(rig.source, complete)
    fault = rig.source.status().fault
    assert fault == "cells 0, 1: reading at the ADC's limit (overload or broken wire?)"


def test_no_chip_at_all_gives_no_frames_and_a_fault(pi_rig) -> None:
    rig = pi_rig(make_chips([1, 2]), fault_after=0.2, ready_timeout=0.05)
    for chip in rig.chips:
        chip.unplugged = True
    while rig.source.read(0.1) is not None:
        pass
    time.sleep(0.3)
    assert rig.source.read(0.1) is None
    assert rig.source.status().fault == "cells 0, 1: no data (unplugged?)"


def test_slow_consumer_loses_the_oldest_frames_not_the_reader(pi_rig) -> None:
    rig = pi_rig(make_chips([1, 2]), queue_size=2)
    time.sleep(0.4)  # about 32 frames at 80 SPS into a queue of 2
    first = rig.source.read(1.0)
    second = rig.source.read(1.0)
    assert first is not None and second is not None
    assert first.seq > 10 and second.seq == first.seq + 1
    assert rig.source.status().dropped_frames > 0


def test_close_is_idempotent_and_releases_the_gpiochip(pi_rig) -> None:
    rig = pi_rig(make_chips([1]))
    rig.source.close()
    rig.source.close()
    assert rig.lgpio.closed
    while rig.source.read(0) is not None:
        pass
    start = time.monotonic()
    assert rig.source.read(None) is None, "a closed source does not block"
    assert time.monotonic() - start < 1.0
    assert not rig.source.status().connected


def test_missing_lgpio_says_to_install_the_pi_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "lgpio", None)  # import lgpio -> ImportError
    with pytest.raises(SourceUnavailable, match=r"lgpio not available.*install the pi extra"):
        load_lgpio()
    with pytest.raises(SourceUnavailable, match="lgpio not available"):
        PiGpioSource(PiGpioConfig.default(16))


def test_gpiochip_that_cannot_be_opened_names_the_group() -> None:
    fake = FakeLgpio(4, {}, open_error="can not open gpiochip")
    with pytest.raises(SourceUnavailable, match=r"gpiochip0.*gpio group"):
        PiGpioSource(PiGpioConfig.default(2), lgpio=fake.as_module())


def test_config_rejects_impossible_wiring() -> None:
    with pytest.raises(ValueError, match="gain"):
        PiGpioConfig(4, (5, 6), gain=100)
    with pytest.raises(ValueError, match="SCK GPIO 5"):
        PiGpioConfig(5, (5, 6))
    with pytest.raises(ValueError, match="Pi \\+ Pico"):
        PiGpioConfig.default(20)
