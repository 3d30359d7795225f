"""Pi + Pico sample source: the Pico reads the HX711s and sends frames over USB serial.

The Pico runs `firmware/code.py` and speaks the protocol of `firmware/PROTOCOL.md` on its
second USB serial channel. The encoder/decoder is the firmware's own `firmware/sowproto.py`,
loaded from the checkout, so both ends share one implementation.

- **Finding the Pico**: a given port path (best: a stable `/dev/serial/by-id/...` link), or the
  USB serial port of vendor 0x239A whose interface is "CircuitPython CDC2 ..." (the data
  channel; the console channel is never written to: a stray Ctrl-C there would stop the Pico).
- **Handshake**: `CONFIG` (cells, sample rate, gain, LED count) then `PING`; the `PONG` must
  carry our token and protocol version, else the port is closed and tried again later.
- **Resynchronising**: damaged or cut-off packets are dropped by the decoder and counted in
  `status().corrupt_frames`; frames lost on the way show as `seq` gaps (`lost_frames`).
- **Unplug and replug**: a read error or two seconds of silence close the port; `status()` then
  has the fault "serial link lost", `read()` returns None after its timeout, and the reader keeps
  trying to reopen the port every `reopen_interval` seconds, then carries on (seq and t keep
  increasing across the gap; the last LED frame is sent again).
- **Timestamps**: the Pico stamps each read in microseconds when the data was ready; those are
  mapped onto this machine's `time.monotonic()` (a lower envelope of arrival minus Pico time, so
  USB latency does not jitter the stamps).

pyserial is imported lazily (it is in the `pi` extra).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import random
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from controller.sensing.frames import Frame, SourceStatus
from controller.sensing.hwsource import CellHealth, FrameQueue, RateMeter, SourceUnavailable

PICO_VID = 0x239A  # Adafruit's USB vendor id, which CircuitPython boards use
DATA_INTERFACE_MARK = "CDC2"  # "CircuitPython CDC2 control": the usb_cdc.data channel
LINK_LOST = "serial link lost"
PING_INTERVAL = 5.0  # s between PINGs while connected
CLOCK_DRIFT = 2e-4  # how fast the time offset may creep up (s per s): crystals are within 1e-4
SOWPROTO_PATH = Path(__file__).resolve().parents[2] / "firmware" / "sowproto.py"

RGB = tuple[int, int, int]


def load_sowproto() -> ModuleType:
    """firmware/sowproto.py, the protocol module the Pico runs too (loaded once, by path)."""
    module = sys.modules.get("sowproto")
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location("sowproto", SOWPROTO_PATH)
    if spec is None or spec.loader is None or not SOWPROTO_PATH.exists():
        raise SourceUnavailable(
            f"{SOWPROTO_PATH} not found: the serial source runs from a checkout of the repository"
        )
    module = importlib.util.module_from_spec(spec)
    sys.modules["sowproto"] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        del sys.modules["sowproto"]
        raise
    return module


def load_serial() -> ModuleType:
    try:
        module = importlib.import_module("serial")
        importlib.import_module("serial.tools.list_ports")
    except Exception as err:
        raise SourceUnavailable(
            f"pyserial not available ({err}): install the pi extra (pip install -e '.[pi]')"
        ) from err
    return module


def find_pico_port(ports: Iterable[Any]) -> str | None:
    """The Pico's data channel among `serial.tools.list_ports.comports()` entries, or None.

    CircuitPython names the data channel's interface "CircuitPython CDC2 control". Without
    interface names (some systems), of a Pico's two ports the data one has the higher USB
    interface number (location "...:1.2" against "...:1.0" for the console).
    """
    picos = [p for p in ports if getattr(p, "vid", None) == PICO_VID]
    named = [p for p in picos if DATA_INTERFACE_MARK in (getattr(p, "interface", None) or "")]
    if named:
        return str(sorted(named, key=lambda p: p.device)[0].device)
    if any(getattr(p, "interface", None) for p in picos):
        return None  # interfaces are named and none is the data channel: boot.py is missing
    by_board: dict[str, list[Any]] = {}
    for p in picos:
        by_board.setdefault(str(getattr(p, "serial_number", None)), []).append(p)
    for group in by_board.values():
        if len(group) >= 2:
            return str(max(group, key=lambda p: _interface_number(p.location)).device)
    return None


def _interface_number(location: str | None) -> int:
    try:
        return int(str(location).rsplit(".", 1)[1])
    except (IndexError, ValueError):
        return -1


@dataclass(frozen=True, slots=True)
class SerialStatus(SourceStatus):
    """`SourceStatus` plus the link's counters."""

    port: str | None = None
    firmware: str | None = None
    detail: str | None = None  # the last link error, in words
    frames: int = 0
    corrupt_frames: int = 0  # packets that failed COBS, CRC or length checks
    lost_frames: int = 0  # gaps in the Pico's sequence numbers
    reconnects: int = 0
    pico_rx_errors: int = 0  # damaged packets the Pico received from us


class _LinkDown(Exception):
    pass


class SerialSource:
    """HX711 frames from the Pico over USB serial; LED frames and settings to it."""

    name = "pico-serial"

    def __init__(
        self,
        port: str | None = None,
        *,
        cell_count: int,
        rate_sps: int = 80,
        gain: int = 128,
        led_count: int = 0,
        handshake_timeout: float = 1.0,
        reopen_interval: float = 0.5,
        silence_timeout: float = 2.0,
        fault_after: float = 2.0,
        queue_size: int = 32,
    ) -> None:
        self.proto = load_sowproto()
        self._serial = load_serial()
        self.proto.pack_config(cell_count, rate_sps, gain, led_count)  # validates
        self.cell_count = cell_count
        self.port = port
        self._rate_sps = rate_sps
        self._gain = gain
        self._led_count = led_count
        self._handshake_timeout = handshake_timeout
        self._reopen_interval = reopen_interval
        self._silence_timeout = silence_timeout
        self._queue = FrameQueue(queue_size)
        self._health = CellHealth(cell_count, fault_after)
        self._rate = RateMeter()
        self._lock = threading.Lock()  # state shared with status()
        self._write_lock = threading.Lock()  # the port, shared with set_leds()
        self._stop = threading.Event()
        self._ser: Any = None
        self._closed = False
        self._ever_connected = False
        self._fault: str | None = "connecting to the Pico"
        self._detail: str | None = None
        self._open_port: str | None = None
        self._firmware: str | None = None
        self._decoder = self.proto.Decoder()
        self._corrupt_before = 0  # decoder errors of earlier connections
        self._leds: list[RGB] = [(0, 0, 0)] * led_count
        self._seq = 0
        self._lost = 0
        self._reconnects = 0
        self._pico_rx_errors = 0
        self._last_pico_seq: int | None = None
        self._t_base = 0  # unwrapped high part of the Pico's 32-bit microsecond clock
        self._last_t_us: int | None = None
        self._offset: float | None = None
        self._last_pico_s = 0.0
        self._last_t = 0.0
        self._last_rx = 0.0
        self._last_ping = 0.0
        self._thread = threading.Thread(target=self._run, name="pico-serial", daemon=True)
        self._thread.start()

    # -- SampleSource -------------------------------------------------------------------------

    def read(self, timeout: float | None = None) -> Frame | None:
        return self._queue.get(timeout)

    def status(self) -> SerialStatus:
        with self._lock:
            connected = self._ser is not None and not self._closed
            fault = self._fault if not connected else self._health.fault()
            return SerialStatus(
                name=self.name,
                connected=connected,
                rate_sps=round(self._rate.rate, 2) if connected else 0.0,
                fault=fault,
                port=self._open_port,
                firmware=self._firmware,
                detail=self._detail,
                frames=self._seq,
                corrupt_frames=self._corrupt_before + self._decoder.errors,
                lost_frames=self._lost,
                reconnects=self._reconnects,
                dropped_frames=self._queue.dropped,
                pico_rx_errors=self._pico_rx_errors,
            )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._thread.join(timeout=3.0)
        self._disconnect(None)
        self._queue.close()

    def __enter__(self) -> SerialSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- to the Pico --------------------------------------------------------------------------

    def set_leds(self, colors: Sequence[RGB], start: int = 0) -> None:
        """Show these colours from LED `start` on (kept and sent again after a reconnect)."""
        colors = [(int(r), int(g), int(b)) for r, g, b in colors]
        if start < 0 or start + len(colors) > self._led_count:
            raise ValueError(
                f"LEDs {start}..{start + len(colors) - 1} outside 0..{self._led_count - 1}"
            )
        self._leds[start : start + len(colors)] = colors
        self._send(self.proto.MSG_LEDS, self.proto.pack_leds(start, colors))

    def set_rate(self, rate_sps: int) -> None:
        """The HX711 sample rate, 10 or 80 per second (the Pico sets the chips' RATE pin)."""
        self.proto.pack_config(self.cell_count, rate_sps, self._gain, self._led_count)
        self._rate_sps = rate_sps
        self._send(self.proto.MSG_CONFIG, self._config_payload())

    def _config_payload(self) -> bytes:
        return bytes(
            self.proto.pack_config(self.cell_count, self._rate_sps, self._gain, self._led_count)
        )

    def _send(self, msg_type: int, payload: bytes, ser: Any = None) -> bool:
        packet = self.proto.encode_packet(msg_type, payload)
        with self._write_lock:
            ser = ser if ser is not None else self._ser
            if ser is None:
                return False
            try:
                ser.write(packet)
                return True
            except Exception:
                return False  # the reader thread notices the lost link

    # -- the reader thread --------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._ser is None and not self._connect():
                self._stop.wait(self._reopen_interval)
                continue
            try:
                self._pump()
            except _LinkDown as err:
                self._disconnect(str(err))
            except Exception as err:  # SerialException, OSError: unplugged
                self._disconnect(f"{type(err).__name__}: {err}")

    def _set_fault(self, fault: str, detail: str | None) -> None:
        with self._lock:
            self._fault = LINK_LOST if self._ever_connected else fault
            self._detail = detail

    def _connect(self) -> bool:
        serial = self._serial
        path = self.port
        if path is None:
            path = find_pico_port(serial.tools.list_ports.comports())
            if path is None:
                self._set_fault(
                    "Pico not found",
                    "no USB serial port of vendor 0x239A with a CircuitPython CDC2 (data)"
                    " interface: is the Pico plugged in, with firmware/boot.py on it?",
                )
                return False
        try:
            ser = serial.Serial(path, 115200, timeout=0.05, write_timeout=1.0, exclusive=True)
        except Exception as err:
            self._set_fault(f"cannot open {path}", f"{err}")
            return False
        try:
            pong = self._handshake(ser)
        except Exception as err:
            pong = None
            self._set_fault(f"no answer from the Pico on {path}", f"{type(err).__name__}: {err}")
        if pong is None:
            with contextlib.suppress(Exception):
                ser.close()
            return False
        with self._write_lock, self._lock:
            self._ser = ser
            self._open_port = path
            self._firmware = str(pong.get("firmware"))
            self._pico_rx_errors = int(pong.get("rx_errors", 0))
            self._fault = None
            self._detail = None
            if self._ever_connected:
                self._reconnects += 1
            self._ever_connected = True
            self._last_pico_seq = None
            self._last_t_us = None
            self._t_base = 0
            self._offset = None
            self._rate.reset()
            self._last_rx = self._last_ping = time.monotonic()
        if self._led_count:
            self._send(self.proto.MSG_LEDS, self.proto.pack_leds(0, self._leds))
        return True

    def _handshake(self, ser: Any) -> dict[str, Any] | None:
        proto = self.proto
        ser.reset_input_buffer()
        with self._lock:
            self._corrupt_before += self._decoder.errors
            self._decoder = proto.Decoder()
        token = random.getrandbits(32)
        self._send(proto.MSG_CONFIG, self._config_payload(), ser)
        self._send(proto.MSG_PING, proto.pack_ping(token), ser)
        end = time.monotonic() + self._handshake_timeout
        while time.monotonic() < end and not self._stop.is_set():
            for packet in self._decoder.feed(ser.read(max(1, ser.in_waiting))):
                if packet.msg_type == proto.MSG_ERROR:
                    code, text = proto.unpack_error(packet.payload)
                    self._set_fault("the Pico refused the settings", f"error {code}: {text}")
                    return None
                if packet.msg_type != proto.MSG_PONG:
                    continue  # samples sent before the Pico saw our PING
                pong: dict[str, Any] = proto.unpack_pong(packet.payload)
                if pong["token"] != token:
                    continue
                if pong["protocol"] != proto.PROTOCOL_VERSION:
                    self._set_fault(
                        "protocol version mismatch",
                        f"the Pico speaks protocol v{pong['protocol']}, this daemon"
                        f" v{proto.PROTOCOL_VERSION}: update the firmware (hardware/README.md)",
                    )
                    return None
                if pong.get("cells") != self.cell_count:
                    self._set_fault(
                        "the Pico refused the settings",
                        f"it reads {pong.get('cells')} cells, the board has {self.cell_count}",
                    )
                    return None
                return pong
        self._set_fault("no answer from the Pico", "no PONG within the handshake timeout")
        return None

    def _disconnect(self, why: str | None) -> None:
        with self._write_lock, self._lock:
            ser, self._ser = self._ser, None
            if why is not None:
                self._fault = LINK_LOST
                self._detail = why
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()

    def _pump(self) -> None:
        ser = self._ser
        data = ser.read(max(1, ser.in_waiting))
        now = time.monotonic()
        if not data:
            if now - self._last_rx > self._silence_timeout:
                raise _LinkDown(f"no data from the Pico for {self._silence_timeout:g} s")
            return
        self._last_rx = now
        if now - self._last_ping > PING_INTERVAL:  # refreshes the Pico's error count
            self._last_ping = now
            self._send(self.proto.MSG_PING, self.proto.pack_ping(random.getrandbits(32)))
        for packet in self._decoder.feed(data):
            if packet.msg_type == self.proto.MSG_SAMPLES:
                self._on_samples(packet.payload, now)
            elif packet.msg_type == self.proto.MSG_PONG:
                with contextlib.suppress(ValueError, KeyError):
                    self._pico_rx_errors = int(self.proto.unpack_pong(packet.payload)["rx_errors"])
            elif packet.msg_type == self.proto.MSG_ERROR:
                with contextlib.suppress(ValueError), self._lock:
                    code, text = self.proto.unpack_error(packet.payload)
                    self._detail = f"the Pico said: error {code}: {text}"

    def _on_samples(self, payload: bytes, arrival: float) -> None:
        try:
            pico_seq, t_us, values = self.proto.unpack_samples(payload)
        except ValueError:
            with self._lock:
                self._corrupt_before += 1
            return
        raw: tuple[int | None, ...] = tuple(values[: self.cell_count]) + (None,) * max(
            0, self.cell_count - len(values)
        )
        with self._lock:
            if self._last_pico_seq is None:
                step = 1
            else:
                step = (pico_seq - self._last_pico_seq) & 0xFFFFFFFF
                if step == 0 or step > 1 << 31:
                    step = 1  # the Pico restarted
                self._lost += step - 1
            self._last_pico_seq = pico_seq
            self._seq += step
            t = self._timestamp(t_us, arrival)
            self._health.update(t, raw)
            if all(v is None for v in raw):
                return  # the link is alive but no cell was ready: nothing to hand over
            self._rate.add(t)
            frame = Frame(t, raw, self._seq)
        self._queue.put(frame)

    def _timestamp(self, t_us: int, arrival: float) -> float:
        """The Pico's wrapping microsecond stamp on this machine's monotonic clock."""
        if self._last_t_us is not None and t_us < self._last_t_us - (1 << 31):
            self._t_base += 1 << 32
        self._last_t_us = t_us
        pico_s = (self._t_base + t_us) / 1e6
        if self._offset is None:
            self._offset = arrival - pico_s
        else:
            creep = max(0.0, pico_s - self._last_pico_s) * CLOCK_DRIFT
            self._offset = min(self._offset + creep, arrival - pico_s)
        self._last_pico_s = pico_s
        t = max(pico_s + self._offset, self._last_t + 1e-6)
        self._last_t = t
        return t
