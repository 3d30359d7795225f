"""The Pico <-> Pi protocol (firmware/PROTOCOL.md): COBS framing, CRC-16, resynchronisation after
damaged packets, and every payload's layout."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hardware.firmware_path import sowproto


def test_crc16_is_ccitt_false() -> None:
    assert sowproto.crc16(b"123456789") == 0x29B1  # the catalogue check value


@given(st.binary(max_size=700))
def test_cobs_round_trip_and_no_zero_bytes(data: bytes) -> None:
    encoded = sowproto.cobs_encode(data)
    assert 0 not in encoded
    assert sowproto.cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + 1 + len(data) // 254


def test_cobs_known_vectors() -> None:
    assert sowproto.cobs_encode(b"\x00") == b"\x01\x01"
    assert sowproto.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert sowproto.cobs_encode(bytes(range(1, 255))) == b"\xff" + bytes(range(1, 255)) + b"\x01"
    with pytest.raises(ValueError):
        sowproto.cobs_decode(b"\x05\x11")


def test_packet_round_trip_through_the_decoder() -> None:
    payload = sowproto.pack_samples(7, 123_456, [1, -1, None, 8_388_607, -8_388_608])
    wire = sowproto.encode_packet(sowproto.MSG_SAMPLES, payload)
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    (packet,) = sowproto.Decoder().feed(wire)
    assert (packet.version, packet.msg_type) == (sowproto.PROTOCOL_VERSION, sowproto.MSG_SAMPLES)
    assert sowproto.unpack_samples(packet.payload) == (
        7,
        123_456,
        [1, -1, None, 8_388_607, -8_388_608],
    )


def test_decoder_takes_bytes_one_at_a_time() -> None:
    wire = b"".join(
        sowproto.encode_packet(sowproto.MSG_PING, sowproto.pack_ping(i)) for i in range(5)
    )
    decoder = sowproto.Decoder()
    got = [p for byte in wire for p in decoder.feed(bytes([byte]))]
    assert [sowproto.unpack_ping(p.payload) for p in got] == list(range(5))
    assert decoder.errors == 0


def _stream(n: int) -> list[bytes]:
    return [
        sowproto.encode_packet(sowproto.MSG_SAMPLES, sowproto.pack_samples(i, i * 12_500, [i, -i]))
        for i in range(n)
    ]


def test_a_corrupted_byte_costs_one_packet() -> None:
    packets = _stream(10)
    bad = bytearray(packets[4])
    bad[6] ^= 0x40
    decoder = sowproto.Decoder()
    got = decoder.feed(b"".join(packets[:4]) + bytes(bad) + b"".join(packets[5:]))
    seqs = [sowproto.unpack_samples(p.payload)[0] for p in got]
    assert seqs == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert decoder.crc_errors + decoder.framing_errors == 1


def test_a_truncated_packet_costs_only_itself() -> None:
    """A packet cut off mid-way (the Pico reset, bytes lost) is followed by the next packet's
    leading zero, so the receiver resynchronises at once."""
    packets = _stream(6)
    decoder = sowproto.Decoder()
    got = decoder.feed(b"".join(packets[:2]) + packets[2][:9] + b"".join(packets[3:]))
    assert [sowproto.unpack_samples(p.payload)[0] for p in got] == [0, 1, 3, 4, 5]
    assert decoder.errors == 1


def test_random_garbage_then_packets_again() -> None:
    rng = random.Random(5)
    noise = bytes(rng.getrandbits(8) for _ in range(3000))
    decoder = sowproto.Decoder()
    decoder.feed(noise)
    got = decoder.feed(b"".join(_stream(3)))
    assert [sowproto.unpack_samples(p.payload)[0] for p in got][-3:] == [0, 1, 2]
    assert decoder.errors > 0


def test_an_endless_packet_is_dropped_without_growing_the_buffer() -> None:
    decoder = sowproto.Decoder()
    decoder.feed(b"\x01" * 100_000)
    assert len(decoder._buf) == 0
    got = decoder.feed(b"".join(_stream(2)))
    assert len(got) == 2 and decoder.overruns == 1


def test_samples_payload_layout() -> None:
    payload = sowproto.pack_samples(0x01020304, 0xA0B0C0D0, [-2, None])
    assert payload == (
        b"\x04\x03\x02\x01" + b"\xd0\xc0\xb0\xa0" + b"\x02" + b"\x02\x00\x00\x00"
        b"\xff\xff\xfe" + b"\x00\x00\x00"
    )
    with pytest.raises(ValueError):
        sowproto.pack_samples(0, 0, [1 << 23])
    with pytest.raises(ValueError):
        sowproto.unpack_samples(payload[:-1])


def test_pong_config_leds_error_round_trip() -> None:
    pong = sowproto.unpack_pong(sowproto.pack_pong(9, 16, 80, 128, 18, 3, "fw 1.0"))
    assert pong == {
        "token": 9,
        "protocol": sowproto.PROTOCOL_VERSION,
        "cells": 16,
        "rate": 80,
        "gain": 128,
        "leds": 18,
        "rx_errors": 3,
        "firmware": "fw 1.0",
    }
    assert sowproto.unpack_config(sowproto.pack_config(14, 10, 64, 16)) == (14, 10, 64, 16)
    with pytest.raises(ValueError):
        sowproto.pack_config(14, 40, 128, 16)
    assert sowproto.unpack_leds(sowproto.pack_leds(3, [(1, 2, 3), (255, 0, 9)])) == (
        3,
        [(1, 2, 3), (255, 0, 9)],
    )
    assert sowproto.unpack_error(sowproto.pack_error(4, "unknown message 0x7f")) == (
        4,
        "unknown message 0x7f",
    )


def test_pong_of_another_version_still_names_its_version() -> None:
    future = b"\x09\x00\x00\x00" + b"\x07"  # token 9, protocol 7, nothing we know after it
    assert sowproto.unpack_pong(future) == {"token": 9, "protocol": 7}
