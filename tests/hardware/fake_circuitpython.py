"""Fake CircuitPython modules for running the Pico firmware on CPython (injected, never installed).

`PicoRig` is the Pico on the bench: HX711 models on GP pins, a NeoPixel chain, a USB CDC data
channel. `rig.modules()` gives the fake `board`, `digitalio`, `microcontroller`, `watchdog`,
`usb_cdc`, `neopixel`, `supervisor` and `rp2pio` to put into `sys.modules`.

The fake `rp2pio.StateMachine` runs the firmware's real PIO program (assembled by the real
adafruit_pioasm) on rp2040-pio-emulator, cycle by cycle: the side-set drives SCK of the chip
models, `in pins` samples their DOUT lines. PIO cycles are mapped onto `time.perf_counter_ns()`
at each write, so the chips see the exact 1 us clock pulses of the program.

(No `from __future__ import annotations` here: the emulator picks its input-source calling
convention from the parameter's real annotation, `State`.)
"""

import fcntl
import os
import termios
import threading
import time
import types
from collections import deque
from collections.abc import Callable
from dataclasses import replace

from pioemu import State, emulate

from controller.sim.hx711_model import HX711Model

# keyword arguments of rp2pio.StateMachine (circuitpython-stubs 10.x)
STATE_MACHINE_KWARGS = {
    "pio_version", "may_exec", "init", "first_out_pin", "out_pin_count", "initial_out_pin_state",
    "initial_out_pin_direction", "first_in_pin", "in_pin_count", "pull_in_pin_up",
    "pull_in_pin_down", "first_set_pin", "set_pin_count", "initial_set_pin_state",
    "initial_set_pin_direction", "first_sideset_pin", "sideset_pin_count", "sideset_pindirs",
    "initial_sideset_pin_state", "initial_sideset_pin_direction", "sideset_enable", "jmp_pin",
    "jmp_pin_pull", "exclusive_pin_use", "auto_pull", "pull_threshold", "out_shift_right",
    "wait_for_txstall", "auto_push", "push_threshold", "in_shift_right", "user_interruptible",
    "wrap_target", "wrap", "offset", "fifo_type", "mov_status_type", "mov_status_n",
}  # fmt: skip


class FakePin:
    def __init__(self, gp: int) -> None:
        self.id = gp

    def __repr__(self) -> str:
        return f"board.GP{self.id}"


class PioStateMachine:
    """rp2pio.StateMachine on rp2040-pio-emulator, wired to the chips of a `PicoRig`."""

    def __init__(self, rig: "PicoRig", program: object, frequency: int, **kw: object) -> None:
        unknown = set(kw) - STATE_MACHINE_KWARGS
        if unknown:
            raise TypeError(f"rp2pio.StateMachine got unexpected arguments {sorted(unknown)}")
        self.rig = rig
        self.opcodes = list(program)  # type: ignore[call-overload]
        self.cycle_ns = 1e9 / frequency
        first_in = kw["first_in_pin"]
        assert isinstance(first_in, FakePin) and first_in.id == 0, "the emulator reads from GP0"
        sideset = kw["first_sideset_pin"]
        assert isinstance(sideset, FakePin)
        self.sck = sideset.id
        self.in_shift_right = bool(kw.get("in_shift_right", True))
        self.sideset_count = int(kw.get("sideset_pin_count", 1))  # type: ignore[call-overload]
        self.wrap_target = int(kw.get("wrap_target", 0))  # type: ignore[call-overload]
        self.wrap = int(kw.get("wrap", len(self.opcodes) - 1))  # type: ignore[call-overload]
        self.pull_up = int(kw.get("pull_in_pin_up", 0))  # type: ignore[call-overload]
        self.wait_for_txstall = bool(kw.get("wait_for_txstall", True))
        self.state = State(pin_directions=1 << self.sck)
        self.rx: deque[int] = deque()
        self.deinited = False
        rig.state_machines.append(self)

    def _input(self, state: State) -> int:
        t = self._base_ns + int((state.clock - self._base_clock) * self.cycle_ns)
        return self.rig.dout_levels(t, self.pull_up)

    def _run(self, words: list[int]) -> None:
        if self.wait_for_txstall:
            raise AssertionError("write() would wait for a TX stall the read never reaches")
        self._base_ns = time.perf_counter_ns()
        self._base_clock = self.state.clock
        state = replace(self.state, transmit_fifo=deque(words))
        pull_pc = 0  # `pull block` is the program's first instruction

        def stop(_opcode: int, s: State) -> bool:
            return s.program_counter == pull_pc and not s.transmit_fifo and s.clock > start

        start = state.clock
        sck = state.pin_values >> self.sck & 1
        for before, after in emulate(
            self.opcodes,
            stop_when=stop,
            initial_state=state,
            input_source=self._input,
            shift_isr_right=self.in_shift_right,
            side_set_base=self.sck,
            side_set_count=self.sideset_count,
            wrap_target=self.wrap_target,
            wrap_top=self.wrap,
        ):
            level = after.pin_values >> self.sck & 1
            if level != sck:
                t = self._base_ns + int((before.clock - self._base_clock) * self.cycle_ns)
                self.rig.clock_edge(bool(level), t)
                sck = level
            while after.receive_fifo:
                self.rx.append(after.receive_fifo.popleft())
            state = after
        self.state = state

    # -- the rp2pio API the firmware uses -----------------------------------------------------

    def write(self, buffer: object) -> None:
        self._run([int(w) for w in buffer])  # type: ignore[attr-defined]

    def readinto(self, buffer: object) -> None:
        n = len(buffer)  # type: ignore[arg-type]
        if len(self.rx) < n:
            raise AssertionError(f"readinto({n} words) would block: only {len(self.rx)} pushed")
        for i in range(n):
            buffer[i] = self.rx.popleft()  # type: ignore[index]

    def deinit(self) -> None:
        self.deinited = True


class FakeDigitalInOut:
    def __init__(self, rig: "PicoRig", pin: FakePin) -> None:
        self.rig = rig
        self.pin = pin
        self._value = False
        self.direction = "input"

    def switch_to_output(self, value: bool = False, drive_mode: object = None) -> None:
        self.direction = "output"
        self.value = value

    @property
    def value(self) -> bool:
        return self._value

    @value.setter
    def value(self, level: bool) -> None:
        self._value = bool(level)
        self.rig.pin_written(self.pin.id, self._value)

    def deinit(self) -> None:
        pass


class FakeNeoPixel:
    def __init__(
        self,
        pin: FakePin,
        n: int,
        *,
        brightness: float = 1.0,
        auto_write: bool = True,
        pixel_order: str = "GRB",
        rig: "PicoRig",
    ) -> None:
        self.pin = pin
        self.n = n
        self.brightness = brightness
        self.auto_write = auto_write
        self.pixel_order = pixel_order
        self._pixels = [(0, 0, 0)] * n
        self.shown: list[tuple[tuple[int, int, int], ...]] = []
        self.deinited = False
        rig.strips.append(self)

    def __setitem__(self, index: int, color: tuple[int, int, int]) -> None:
        self._pixels[index] = tuple(color)  # type: ignore[assignment]

    def __len__(self) -> int:
        return self.n

    def show(self) -> None:
        self.shown.append(tuple(self._pixels))

    def deinit(self) -> None:
        self.deinited = True


class MemoryLink:
    """usb_cdc.data without a host: bytes from the Pi go into `to_pico`, out into `from_pico`."""

    def __init__(self) -> None:
        self.to_pico = bytearray()
        self.from_pico = bytearray()
        self.connected = True
        self.timeout = 1.0
        self.write_timeout: float | None = None
        self._lock = threading.Lock()

    @property
    def in_waiting(self) -> int:
        return len(self.to_pico)

    def read(self, n: int) -> bytes:
        with self._lock:
            data = bytes(self.to_pico[:n])
            del self.to_pico[:n]
        return data

    def write(self, data: bytes) -> int:
        with self._lock:
            self.from_pico.extend(data)
        return len(data)

    def take(self) -> bytes:
        with self._lock:
            data = bytes(self.from_pico)
            self.from_pico.clear()
        return data


class PtyLink:
    """usb_cdc.data over the master side of a pseudo-terminal; the Pi opens the slave path.

    `mangle(data) -> data` may corrupt what the Pico writes, as a bad cable would.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self.connected = True
        self.timeout = 0.0
        self.write_timeout: float | None = None
        self.mangle: Callable[[bytes], bytes] | None = None

    @property
    def in_waiting(self) -> int:
        buf = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0")
        return int.from_bytes(buf, "little")

    def read(self, n: int) -> bytes:
        try:
            return os.read(self.fd, n)
        except BlockingIOError:
            return b""

    def write(self, data: bytes) -> int:
        if self.mangle is not None:
            data = self.mangle(data)
        view = memoryview(data)
        end = time.monotonic() + 1.0
        while view:
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                if time.monotonic() > end:
                    raise OSError("write timeout") from None
                time.sleep(0.001)
                continue
            view = view[n:]
        return len(data)


class PicoRig:
    """A Pico with HX711 models on GP0.., SCK and RATE pins, and a USB data channel."""

    def __init__(self, chips: list[HX711Model], link: object, *, sck: int = 20, rate: int = 21):
        self.chips = chips
        self.link = link
        self.sck = sck
        self.rate = rate
        self.state_machines: list[PioStateMachine] = []
        self.strips: list[FakeNeoPixel] = []
        self.pins_written: dict[int, bool] = {}
        self.watchdog_fed = 0
        self.autoreload = True
        self._lock = threading.Lock()

    def clock_edge(self, level: bool, t_ns: int) -> None:
        for chip in self.chips:
            chip.sck(level, t_ns)

    def dout_levels(self, t_ns: int, pulled_up: int) -> int:
        """DOUT of every chip on GP0..; a line without a chip reads its pull-up, else low."""
        levels = pulled_up & ~((1 << len(self.chips)) - 1)
        for gp, chip in enumerate(self.chips):
            levels |= chip.dout(t_ns) << gp
        return levels

    def pin_written(self, gp: int, level: bool) -> None:
        self.pins_written[gp] = level
        if gp == self.rate:
            for chip in self.chips:
                chip.set_rate(80 if level else 10)

    def modules(self) -> dict[str, types.ModuleType]:
        rig = self
        board = types.ModuleType("board")
        for gp in range(29):
            setattr(board, f"GP{gp}", FakePin(gp))
        board.LED = FakePin(25)  # type: ignore[attr-defined]

        digitalio = types.ModuleType("digitalio")
        digitalio.DigitalInOut = lambda pin: FakeDigitalInOut(rig, pin)  # type: ignore[attr-defined]
        digitalio.Direction = types.SimpleNamespace(INPUT="input", OUTPUT="output")  # type: ignore[attr-defined]

        class Watchdog:
            timeout = 0.0
            mode = None

            def feed(self) -> None:
                rig.watchdog_fed += 1

            def deinit(self) -> None:
                self.mode = None

        microcontroller = types.ModuleType("microcontroller")
        microcontroller.watchdog = Watchdog()  # type: ignore[attr-defined]
        watchdog = types.ModuleType("watchdog")
        watchdog.WatchDogMode = types.SimpleNamespace(RAISE="raise", RESET="reset")  # type: ignore[attr-defined]

        usb_cdc = types.ModuleType("usb_cdc")
        usb_cdc.data = self.link  # type: ignore[attr-defined]
        usb_cdc.console = None  # type: ignore[attr-defined]

        neopixel = types.ModuleType("neopixel")
        neopixel.GRB = "GRB"  # type: ignore[attr-defined]
        neopixel.NeoPixel = lambda pin, n, **kw: FakeNeoPixel(pin, n, rig=rig, **kw)  # type: ignore[attr-defined]

        class Runtime:
            @property
            def autoreload(self) -> bool:
                return rig.autoreload

            @autoreload.setter
            def autoreload(self, value: bool) -> None:
                rig.autoreload = value

        supervisor = types.ModuleType("supervisor")
        supervisor.runtime = Runtime()  # type: ignore[attr-defined]

        rp2pio = types.ModuleType("rp2pio")
        rp2pio.StateMachine = lambda program, frequency, **kw: PioStateMachine(  # type: ignore[attr-defined]
            rig, program, frequency, **kw
        )
        return {
            "board": board,
            "digitalio": digitalio,
            "microcontroller": microcontroller,
            "watchdog": watchdog,
            "usb_cdc": usb_cdc,
            "neopixel": neopixel,
            "supervisor": supervisor,
            "rp2pio": rp2pio,
        }
