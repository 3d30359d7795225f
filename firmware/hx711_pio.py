# Parallel HX711 reader for the RP2040: one PIO state machine clocks every chip on one shared
# SCK and samples all DOUT lines at once. Runs under CircuitPython; plain Python otherwise, so
# the tests run it on CPython with a PIO emulator behind a fake rp2pio.StateMachine.
#
# Why PIO and not digitalio: the HX711 powers down when SCK stays high over 60 us (HARDWARE.md).
# In the PIO program every clock-high phase is exactly PULSE_HIGH_CYCLES cycles (1.0 us), whatever
# the Python side, USB or the garbage collector are doing, so no interrupts need disabling and no
# read is ever lost to a stretched pulse. The Python side only decides *when* to read.
#
# adafruit_hx711 is not used: its read clocks one chip per call (16 reads for 16 cells), does two
# conversions per read, waits for DOUT without a timeout and sign-extends with
# `value |= 0xFF000000`, which gives large positive numbers for negative readings in Python.

PIO_FREQUENCY = 10000000  # 0.1 us per PIO cycle
PULSE_HIGH_CYCLES = 10  # SCK high 1.0 us (datasheet: 0.2 us min, 50 us max)

# TX word n == 0: push one sample of the DOUT lines (the ready check).
# TX word n > 0:  n clock pulses (25, 26 or 27); after each pulse push one sample of the DOUT
#                 lines. While the RX FIFO is full the machine stalls with SCK low, which the
#                 HX711 allows for as long as it takes.
PROGRAM = """
.program hx711_parallel
.side_set 1
.wrap_target
top:
    pull block          side 0
    out x, 32           side 0
    jmp x-- pulse       side 0
    in pins, %d         side 0
    push block          side 0
    jmp top             side 0
pulse:
    nop                 side 1 [9]
    in pins, %d         side 0
    push block          side 0 [7]
    jmp x-- pulse       side 0
.wrap
"""

GAIN_PULSES = {128: 25, 32: 26, 64: 27}
ABSENT_AFTER = 2  # consecutive misses after which a cell is no longer waited for


def program_source(lines):
    """The PIO program for `lines` DOUT lines on consecutive pins."""
    if not 1 <= lines <= 32:
        raise ValueError("1 to 32 DOUT lines")
    return PROGRAM % (lines, lines)


def _array(n):
    import array

    return array.array("I", [0] * n)


def transpose(samples, cells):
    """24 DOUT samples (bit i = cell i), MSB first, to one signed 24-bit value per cell."""
    values = []
    for i in range(cells):
        word = 0
        for levels in samples:
            word = (word << 1) | ((levels >> i) & 1)
        values.append(word - (1 << 24) if word & 0x800000 else word)
    return values


class ParallelHX711:
    """HX711s on DOUT lines 0..cells-1 of a state machine running PROGRAM.

    poll() never blocks for long: call it from the main loop. It returns (t_us, values) when a
    read happened: values[i] is cell i's reading or None (not ready in time), and t_us is when the
    data was ready. A read is made once every expected cell is ready (DOUT low), or when
    `ready_timeout_us` has passed with the ready cells only; a cell that missed twice in a row is
    not waited for until it is ready again. When nothing at all was ready at the timeout, poll()
    returns (t_us, [None] * cells) so the Pi knows the link is alive and the cells are not.
    """

    def __init__(self, state_machine, cells, clock_us, gain=128, ready_timeout_us=250000):
        self.sm = state_machine
        self.clock_us = clock_us
        self.ready_timeout_us = ready_timeout_us
        self._cmd = _array(1)
        self._one = _array(1)
        self.configure(cells, gain)

    def configure(self, cells, gain):
        if gain not in GAIN_PULSES:
            raise ValueError("gain must be 128, 64 or 32")
        self.cells = cells
        self.gain = gain
        self._mask = (1 << cells) - 1
        self._pulses = GAIN_PULSES[gain]
        self._buf = _array(self._pulses)
        self._misses = [0] * cells
        self._deadline = None

    def levels(self):
        """One sample of all DOUT lines (bit i = line i; 0 = data ready)."""
        self._cmd[0] = 0
        self.sm.write(self._cmd)
        self.sm.readinto(self._one)
        return self._one[0]

    def clock_out(self):
        """All pulses of one read; the DOUT sample after each of the first 24."""
        self._cmd[0] = self._pulses
        self.sm.write(self._cmd)
        self.sm.readinto(self._buf)
        return self._buf[:24]

    def poll(self):
        now = self.clock_us()
        if self._deadline is None:
            self._deadline = now + self.ready_timeout_us
        ready = ~self.levels() & self._mask
        expected = 0
        for i in range(self.cells):
            if self._misses[i] < ABSENT_AFTER:
                expected |= 1 << i
        if not ((ready and ready & expected == expected) or now - self._deadline >= 0):
            return None
        self._deadline = None
        for i in range(self.cells):
            self._misses[i] = 0 if ready >> i & 1 else self._misses[i] + 1
        if not ready:
            return now, [None] * self.cells
        values = transpose(self.clock_out(), self.cells)
        for i in range(self.cells):
            if not ready >> i & 1:
                values[i] = None  # clocked while not ready: garbage
        return now, values
