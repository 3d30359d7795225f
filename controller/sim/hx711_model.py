"""A datasheet model of one HX711 24-bit ADC, the chip behind every pit (HARDWARE.md, "HX711").

Used by the tests of every sample source: the fake lgpio of the Pi-only reader and the PIO
emulator behind the Pico firmware drive the same model. What it does, after the datasheet:

- A conversion completes every 1/rate seconds (RATE pin: 10 or 80 SPS; the oscillator is loose,
  `skew` scales the rate). When one is ready DOUT goes low and stays low until it is read.
- Each SCK rising edge shifts out one bit, MSB first, two's complement; the 25th edge pulls DOUT
  high again. 25 / 26 / 27 pulses in all select A-128 / B-32 / A-64 for the next conversion.
- SCK high for more than 60 us powers the chip down: the read in progress is lost (DOUT reads
  high). When SCK goes low again the chip resets to A-128 and needs 4 conversion periods to settle.
  By default DOUT stays high while it settles; with `settling_output` the chip is the worst case
  instead: its first 4 conversions after the wake are ready on time but wrong (a ramp towards
  the input), so only a reader that throws them away reports true weights.
- Clocking while DOUT is high (nothing ready) shifts out garbage.
- The output saturates at 0x7FFFFF / 0x800000 (a cell overloaded or a broken bridge wire).
- Unplugged, DOUT floats up to the reader's pull-up and SCK does nothing; `dout_stuck` pins DOUT.

Times are integers in nanoseconds, given by the caller (real time for the lgpio fake, PIO clock
cycles for the emulator), so the model never sleeps.
"""

from __future__ import annotations

import random

POWER_DOWN_NS = 60_000  # SCK high longer than this powers the chip down
SETTLE_PERIODS = 4  # conversions after a reset before data is ready again
GAIN_OF_PULSES = {25: 128, 26: 32, 27: 64}
RAW_MIN, RAW_MAX = -(1 << 23), (1 << 23) - 1


class HX711Model:
    """One chip. `value` is the input in raw counts at gain 128 (channel A)."""

    def __init__(
        self,
        value: int = 0,
        *,
        rate: int = 80,
        skew: float = 1.0,
        phase: float = 0.0,
        channel_b: int = 0,
        noise: int = 0,
        seed: int = 0,
        start_ns: int = 0,
        settling_output: bool = False,
    ) -> None:
        self.value = value
        self.settling_output = settling_output
        self._unsettled = 0  # conversions after a wake that are still settling
        self.channel_b = channel_b
        self.noise = noise
        self.unplugged = False
        self.dout_stuck: int | None = None
        self._rng = random.Random(seed)
        self._skew = skew
        self._period_ns = self._period_for(rate)
        self._next_ns = start_ns + int(self._period_ns * (1.0 + phase))
        self._ready = False
        self._data = 0  # latched 24-bit word of the last conversion
        self._shift = 0  # word being shifted out
        self._gain = 128
        self._sck = False
        self._rise_ns = 0
        self._pulses = 0  # SCK pulses of the read in progress (0: idle)
        self._read_ns = 0  # first rising edge of the read in progress
        self._conv_ns = 0  # time of the conversion being completed
        self._garbage = False
        self._powered_down = False
        self._last_ns = start_ns
        # what happened, for the tests to check
        self.conversions = 0
        self.reads = 0  # complete reads of ready data (25+ pulses)
        self.garbage_reads = 0  # reads started while DOUT was high
        self.power_downs = 0
        self.gains: list[int] = []  # gain of each conversion
        self.high_ns: list[int] = []  # length of every clock-high phase seen

    # -- configuration ------------------------------------------------------------------------

    def _period_for(self, rate: int) -> int:
        if rate not in (10, 80):
            raise ValueError("the HX711 runs at 10 or 80 samples/s (RATE pin)")
        return int(1e9 / (rate * self._skew))

    def set_rate(self, rate: int) -> None:
        """The RATE pin changed: the next conversions take the new period."""
        self._period_ns = self._period_for(rate)

    @property
    def gain(self) -> int:
        return self._gain

    @property
    def powered_down(self) -> bool:
        return self._powered_down

    # -- the pins -----------------------------------------------------------------------------

    def sck(self, level: bool, t_ns: int) -> None:
        self._advance(t_ns)
        if self.unplugged or level == self._sck:
            return
        self._sck = level
        if level:
            self._rise_ns = t_ns
            if self._pulses == 0:
                self._read_ns = t_ns
                self._garbage = not self._ready
                self._shift = self._rng.getrandbits(24) if self._garbage else self._data
            self._pulses += 1
            if self._pulses == 25:
                self._ready = False
                if self._garbage:
                    self.garbage_reads += 1
                else:
                    self.reads += 1
        else:
            self.high_ns.append(t_ns - self._rise_ns)
            if self._powered_down:
                self._wake(t_ns)

    def dout(self, t_ns: int) -> int:
        self._advance(t_ns)
        if self.dout_stuck is not None:
            return self.dout_stuck
        if self.unplugged or self._powered_down:
            return 1
        if 1 <= self._pulses <= 24:
            return (self._shift >> (24 - self._pulses)) & 1
        if self._pulses > 24:
            return 1
        return 0 if self._ready else 1

    # -- inside the chip ----------------------------------------------------------------------

    def _advance(self, t_ns: int) -> None:
        t_ns = max(t_ns, self._last_ns)  # each caller's clock is monotonic; never run backwards
        self._last_ns = t_ns
        if self._sck and not self._powered_down and t_ns - self._rise_ns > POWER_DOWN_NS:
            self._powered_down = True
            self.power_downs += 1
            self._pulses = 0
            self._ready = False
        if self._powered_down or self.unplugged:
            return
        while t_ns >= self._next_ns:
            self._conv_ns = self._next_ns
            self._convert()
            self._next_ns += self._period_ns

    def _convert(self) -> None:
        if 1 <= self._pulses < 25:
            if self._conv_ns - self._read_ns < self._period_ns:
                return  # a read is in progress: its word is kept until it is read out
            self._pulses = 0  # a read left unfinished for a whole period is abandoned
        if self._pulses >= 25:
            self._gain = GAIN_OF_PULSES.get(self._pulses, 128)
            self._pulses = 0
        counts = self.channel_b if self._gain == 32 else self.value * self._gain // 128
        if self._unsettled:  # k-th of 4 settling conversions: k/5 of the way to the input
            counts = counts * (SETTLE_PERIODS + 1 - self._unsettled) // (SETTLE_PERIODS + 1)
            self._unsettled -= 1
        if self.noise:
            counts += self._rng.randint(-self.noise, self.noise)
        counts = max(RAW_MIN, min(RAW_MAX, counts))
        self._data = counts & 0xFFFFFF
        self._ready = True
        self.conversions += 1
        self.gains.append(self._gain)

    def _wake(self, t_ns: int) -> None:
        """SCK low after a power-down: the chip resets to A-128 and settles."""
        self._powered_down = False
        self._gain = 128
        self._pulses = 0
        self._ready = False
        if self.settling_output:
            self._unsettled = SETTLE_PERIODS
            self._next_ns = t_ns + self._period_ns
        else:
            self._next_ns = t_ns + SETTLE_PERIODS * self._period_ns
