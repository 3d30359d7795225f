"""The HX711 model used by every hardware test behaves like the datasheet (HARDWARE.md, "HX711").

Times are in ns; at 80 SPS a conversion takes 12.5 ms.
"""

from __future__ import annotations

from controller.sim.hx711_model import HX711Model

MS = 1_000_000
US = 1_000


def clock_out(chip: HX711Model, t: int, pulses: int = 25, high: int = 1 * US) -> tuple[int, int]:
    """`pulses` clock pulses from time t, sampling DOUT while SCK is high; (word, end time)."""
    word = 0
    for k in range(pulses):
        chip.sck(True, t)
        if k < 24:
            word = (word << 1) | chip.dout(t + high // 2)
        chip.sck(False, t + high)
        t += 2 * high
    return word, t


def test_dout_goes_low_when_a_conversion_is_ready() -> None:
    chip = HX711Model(42, rate=80)
    assert chip.dout(12 * MS) == 1
    assert chip.dout(13 * MS) == 0
    assert chip.dout(30 * MS) == 0, "stays low until read"


def test_24_bits_msb_first_twos_complement_then_high_on_the_25th() -> None:
    chip = HX711Model(-2, rate=80)
    word, t = clock_out(chip, 13 * MS)
    assert word == 0xFFFFFE
    assert chip.dout(t) == 1, "the 25th pulse pulls DOUT high until the next conversion"
    assert chip.dout(26 * MS) == 0


def test_pulse_count_selects_gain_for_the_next_conversion() -> None:
    chip = HX711Model(1000, rate=10, channel_b=-7)
    clock_out(chip, 101 * MS, pulses=27)
    word, _ = clock_out(chip, 201 * MS, pulses=26)
    assert word == 500, "A-64 after 27 pulses"
    word, _ = clock_out(chip, 301 * MS)
    assert word == 0xFFFFF9, "B-32 (channel B) after 26 pulses"
    word, _ = clock_out(chip, 401 * MS)
    assert word == 1000, "A-128 after 25 pulses"
    assert chip.gains == [128, 64, 32, 128]


def test_sck_high_over_60us_powers_down_and_the_read_is_lost() -> None:
    chip = HX711Model(0x123456, rate=80)
    chip.sck(True, 13 * MS)
    chip.sck(False, 13 * MS + US)
    chip.sck(True, 13 * MS + 2 * US)
    assert chip.dout(13 * MS + 3 * US) == 0  # second bit of 0x123456
    assert chip.dout(13 * MS + 70 * US) == 1, "powered down: DOUT high"
    assert chip.powered_down and chip.power_downs == 1
    chip.sck(False, 14 * MS)  # SCK low again: reset, settle 4 periods
    assert not chip.powered_down
    assert chip.dout(14 * MS + 49 * MS) == 1
    assert chip.dout(14 * MS + 51 * MS) == 0


def test_a_chip_with_settling_output_gives_4_wrong_conversions_after_a_wake() -> None:
    """The worst case a reader must survive: ready on time after a power-down, but unsettled."""
    chip = HX711Model(100_000, rate=80, settling_output=True)
    chip.sck(True, 13 * MS)
    chip.sck(False, 13 * MS + 100 * US)  # powered down, then awake again
    assert chip.power_downs == 1
    words, t = [], 13 * MS + 100 * US
    for _ in range(5):
        t += 13 * MS  # one conversion period and a little
        words.append(clock_out(chip, t)[0])
    assert words == [20_000, 40_000, 60_000, 80_000, 100_000]


def test_reading_while_not_ready_is_garbage() -> None:
    chip = HX711Model(0, rate=80, seed=3)
    word, _ = clock_out(chip, 1 * MS)
    assert chip.garbage_reads == 1 and chip.reads == 0
    assert word != 0


def test_output_saturates_at_the_rails() -> None:
    high = HX711Model(1 << 30, rate=80)
    low = HX711Model(-(1 << 30), rate=80)
    assert clock_out(high, 13 * MS)[0] == 0x7FFFFF
    assert clock_out(low, 13 * MS)[0] == 0x800000
