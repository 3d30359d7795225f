# sowproto: the framed serial protocol between the Pico (firmware/code.py) and the Pi
# (controller/sensing/serial_source.py). See firmware/PROTOCOL.md.
#
# This one file runs under CircuitPython on the RP2040 and under CPython on the Pi, so it uses
# only what both have: struct, bytes/bytearray, plain classes. No typing, f-strings, dataclasses
# or int.to_bytes(signed=...).
#
# Wire format of one packet:
#     0x00  COBS( version  type  payload...  crc16_hi  crc16_lo )  0x00
# CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over version, type and payload. The zero before
# and after every packet lets a receiver resynchronise after a corrupt or cut-off packet: it
# loses at most the packet that was damaged.

import struct

PROTOCOL_VERSION = 1

# Pico -> Pi
MSG_SAMPLES = 0x01
MSG_PONG = 0x02
MSG_ERROR = 0x03
# Pi -> Pico
MSG_PING = 0x10
MSG_CONFIG = 0x11
MSG_LEDS = 0x12

MAX_BODY = 1024  # version + type + payload, before the CRC
MAX_CELLS = 32  # the missing-cell mask is 32 bits
RAW_MIN = -(1 << 23)
RAW_MAX = (1 << 23) - 1

# error codes of MSG_ERROR
ERR_BAD_PACKET = 1  # a packet from the Pi failed its checks
ERR_BAD_CONFIG = 2
ERR_BAD_LEDS = 3
ERR_UNKNOWN_TYPE = 4
ERR_VERSION = 5


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE; crc16(b"123456789") == 0x29B1."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result has no zero byte."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Inverse of cobs_encode; ValueError for input no encoder could have made."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the end")
        block = data[i + 1 : end]
        for byte in block:
            if byte == 0:
                raise ValueError("zero byte inside a COBS block")
        out.extend(block)
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_packet(msg_type, payload=b"", version=PROTOCOL_VERSION):
    """One framed packet, delimiters included, ready to write."""
    if len(payload) + 2 > MAX_BODY:
        raise ValueError("payload too long")
    body = bytearray(2 + len(payload) + 2)
    body[0] = version
    body[1] = msg_type
    body[2 : 2 + len(payload)] = payload
    crc = crc16(memoryview(body)[: 2 + len(payload)])
    body[-2] = crc >> 8
    body[-1] = crc & 0xFF
    return b"\x00" + cobs_encode(body) + b"\x00"


class Packet:
    """A packet that passed its checks. `version` is the sender's protocol version."""

    def __init__(self, version, msg_type, payload):
        self.version = version
        self.msg_type = msg_type
        self.payload = payload

    def __repr__(self):
        return "Packet(v%d, 0x%02x, %d bytes)" % (self.version, self.msg_type, len(self.payload))


class Decoder:
    """Streaming decoder: feed() it bytes as they come, get back the good packets.

    Damaged packets are dropped and counted: `crc_errors` (checksum), `framing_errors` (bad COBS
    or too short), `overruns` (longer than MAX_BODY, no delimiter in sight). Empty frames between
    two zero bytes are normal (every packet starts and ends with one) and not counted.
    """

    def __init__(self, max_body=MAX_BODY):
        self._max_encoded = max_body + 2 + max_body // 254 + 2
        self._buf = bytearray()
        self._overflow = False
        self.packets = 0
        self.crc_errors = 0
        self.framing_errors = 0
        self.overruns = 0

    @property
    def errors(self):
        return self.crc_errors + self.framing_errors + self.overruns

    def reset(self):
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data):
        if not isinstance(data, bytes):
            data = bytes(data)
        out = []
        start = 0
        n = len(data)
        while start < n:
            zero = data.find(b"\x00", start)
            if zero < 0:
                self._append(data[start:])
                break
            self._append(data[start:zero])
            self._finish(out)
            start = zero + 1
        return out

    def _append(self, chunk):
        if self._overflow or not chunk:
            return
        self._buf.extend(chunk)
        if len(self._buf) > self._max_encoded:
            self._overflow = True
            self._buf = bytearray()

    def _finish(self, out):
        if self._overflow:
            self._overflow = False
            self.overruns += 1
            return
        if not self._buf:
            return
        encoded = bytes(self._buf)
        self._buf = bytearray()
        try:
            body = cobs_decode(encoded)
        except ValueError:
            self.framing_errors += 1
            return
        if len(body) < 4:
            self.framing_errors += 1
            return
        crc = (body[-2] << 8) | body[-1]
        if crc16(memoryview(body)[:-2]) != crc:
            self.crc_errors += 1
            return
        self.packets += 1
        out.append(Packet(body[0], body[1], bytes(body[2:-2])))


# -- payloads --------------------------------------------------------------------------------
#
# All integers little-endian except the 24-bit readings, which keep the HX711's own order
# (MSB first) so the Pico can copy the bits it clocked in.


def pack_samples(seq, t_us, values):
    """seq u32, t_us u32 (Pico clock, wraps), count u8, missing u32 bitmask, count x 24-bit.

    values: one int (signed 24-bit) or None per cell.
    """
    count = len(values)
    if count > MAX_CELLS:
        raise ValueError("too many cells")
    missing = 0
    out = bytearray(13 + 3 * count)
    pos = 13
    for i in range(count):
        v = values[i]
        if v is None:
            missing |= 1 << i
        else:
            if v < RAW_MIN or v > RAW_MAX:
                raise ValueError("reading outside 24 bits")
            w = v & 0xFFFFFF
            out[pos] = w >> 16
            out[pos + 1] = (w >> 8) & 0xFF
            out[pos + 2] = w & 0xFF
        pos += 3
    struct.pack_into("<IIBI", out, 0, seq & 0xFFFFFFFF, t_us & 0xFFFFFFFF, count, missing)
    return bytes(out)


def unpack_samples(payload):
    """(seq, t_us, values) of a MSG_SAMPLES payload; ValueError when malformed."""
    if len(payload) < 13:
        raise ValueError("samples payload too short")
    seq, t_us, count, missing = struct.unpack_from("<IIBI", payload, 0)
    if len(payload) != 13 + 3 * count:
        raise ValueError("samples payload length does not match its count")
    values = []
    pos = 13
    for i in range(count):
        if missing >> i & 1:
            values.append(None)
        else:
            w = (payload[pos] << 16) | (payload[pos + 1] << 8) | payload[pos + 2]
            values.append(w - (1 << 24) if w & 0x800000 else w)
        pos += 3
    return seq, t_us, values


def pack_ping(token):
    return struct.pack("<I", token & 0xFFFFFFFF)


def unpack_ping(payload):
    if len(payload) != 4:
        raise ValueError("ping payload must be 4 bytes")
    return struct.unpack("<I", payload)[0]


# PONG: token u32, protocol u8, cells u8, rate u8, gain u8, leds u16, rx_errors u16, then the
# firmware version as UTF-8. Its first five bytes keep this layout in every protocol version,
# so a receiver can always name the version a mismatching peer speaks.
_PONG = "<IBBBBHH"
_PONG_SIZE = struct.calcsize(_PONG)


def pack_pong(token, cells, rate, gain, leds, rx_errors, firmware):
    head = struct.pack(
        _PONG,
        token & 0xFFFFFFFF,
        PROTOCOL_VERSION,
        cells,
        rate,
        gain & 0xFF,
        leds,
        min(rx_errors, 0xFFFF),
    )
    return head + firmware.encode("utf-8")


def unpack_pong(payload):
    """dict with token, protocol, cells, rate, gain, leds, rx_errors, firmware."""
    if len(payload) < 5:
        raise ValueError("pong payload too short")
    if len(payload) < _PONG_SIZE:
        token, protocol = struct.unpack_from("<IB", payload, 0)
        return {"token": token, "protocol": protocol}
    token, protocol, cells, rate, gain, leds, rx_errors = struct.unpack_from(_PONG, payload, 0)
    return {
        "token": token,
        "protocol": protocol,
        "cells": cells,
        "rate": rate,
        "gain": gain,
        "leds": leds,
        "rx_errors": rx_errors,
        "firmware": bytes(payload[_PONG_SIZE:]).decode("utf-8"),
    }


# CONFIG: cells u8, rate u8 (10 or 80 samples/s: the HX711 RATE pin), gain u8 (128, 64, 32),
# leds u16 (length of the NeoPixel chain).
_CONFIG = "<BBBH"
GAINS = (128, 64, 32)
RATES = (10, 80)


def pack_config(cells, rate, gain, leds):
    if rate not in RATES:
        raise ValueError("rate must be 10 or 80")
    if gain not in GAINS:
        raise ValueError("gain must be 128, 64 or 32")
    if not 1 <= cells <= MAX_CELLS:
        raise ValueError("cells out of range")
    return struct.pack(_CONFIG, cells, rate, gain, leds)


def unpack_config(payload):
    """(cells, rate, gain, leds); ValueError when malformed or out of range."""
    if len(payload) != struct.calcsize(_CONFIG):
        raise ValueError("config payload must be 5 bytes")
    cells, rate, gain, leds = struct.unpack(_CONFIG, payload)
    if rate not in RATES or gain not in GAINS or not 1 <= cells <= MAX_CELLS:
        raise ValueError("config out of range")
    return cells, rate, gain, leds


def pack_leds(start, colors):
    """start u16, then r g b bytes per LED from `start` on."""
    out = bytearray(struct.pack("<H", start))
    for r, g, b in colors:
        out.append(r & 0xFF)
        out.append(g & 0xFF)
        out.append(b & 0xFF)
    return bytes(out)


def unpack_leds(payload):
    if len(payload) < 2 or (len(payload) - 2) % 3:
        raise ValueError("LED payload must be 2 + 3 x n bytes")
    start = struct.unpack_from("<H", payload, 0)[0]
    colors = []
    for pos in range(2, len(payload), 3):
        colors.append((payload[pos], payload[pos + 1], payload[pos + 2]))
    return start, colors


def pack_error(code, text):
    return bytes([code & 0xFF]) + text.encode("utf-8")[:200]


def unpack_error(payload):
    if not payload:
        raise ValueError("empty error payload")
    return payload[0], bytes(payload[1:]).decode("utf-8", "replace")
