"""A damaged records.jsonl is kept aside, said so, and its intact games kept: appending to a
line cut short glued the next game's record onto it (both lost)."""

from __future__ import annotations

import json
from pathlib import Path

from controller.daemon.files import RECORDS_FILE
from tests.daemon.conftest import Board, make_config

GOOD = '{"variant":"kalah","options":{},"moves":[1,2],"finished":true}\n'


def start(data: Path, text: bytes) -> Board:
    data.mkdir(parents=True, exist_ok=True)
    (data / RECORDS_FILE).write_bytes(text)
    board = Board(make_config(data))
    board.ready()
    return board


def test_a_record_cut_short_is_kept_aside_and_the_next_game_appends_cleanly(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    board = start(data, (GOOD + GOOD[:30]).encode())
    try:
        notices = [n["text"] for n in board.status()["daemon"]["notices"]]
        assert any("records.jsonl is damaged (line 2: cut short" in n for n in notices)
        assert any("kept as" in n and "records.jsonl.damaged-" in n for n in notices)
        board.loop.session.archive_record(finished=False)  # the next record goes in
        board.play(2)
        board.loop.session.archive_record(finished=False)
        board.loop.writer.flush()
    finally:
        board.stop()
    lines = (data / RECORDS_FILE).read_text().splitlines()
    assert lines[0] == GOOD.strip()
    assert [json.loads(line)["moves"] for line in lines[1:]] == [[2]]
    (kept,) = data.glob("records.jsonl.damaged-*")
    assert kept.read_bytes() == (GOOD + GOOD[:30]).encode()


def test_lines_that_are_not_records_are_left_out(tmp_path: Path) -> None:
    data = tmp_path / "data"
    board = start(data, (GOOD + "[1, 2]\n\x00\xff garbage\n" + GOOD).encode("latin-1"))
    try:
        notices = [n["text"] for n in board.status()["daemon"]["notices"]]
        assert any("line 2: not a game record; line 3: not JSON" in n for n in notices)
        assert any("its 2 intact game records are kept" in n for n in notices)
    finally:
        board.stop()
    assert (data / RECORDS_FILE).read_text() == GOOD + GOOD


def test_intact_records_are_left_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    board = start(data, (GOOD + GOOD).encode())
    try:
        notices = board.status()["daemon"]["notices"]
        assert not [n for n in notices if "records" in n["text"]]
    finally:
        board.stop()
    assert not list(data.glob("records.jsonl.damaged-*"))


def finished_game(data: Path) -> list[dict[str, object]]:
    """A kalah game of one seed a pit played to its end by demo mode, then stopped; the
    records written, as read from the card."""
    board = Board(make_config(data, game={"variant": "kalah", "options": {"seeds": 1}}))
    try:
        board.ready()
        board.loop.execute("mode", {"mode": "demo"})
        board.run_until(lambda: board.loop.session.game.recorded, 600)
        board.loop.execute("mode", {"mode": "play"})  # no next game: the journal's is over
        board.loop.writer.flush()
    finally:
        board.stop()
    return [json.loads(line) for line in (data / RECORDS_FILE).read_text().splitlines()]


def test_a_finished_game_the_plug_kept_from_the_records_is_recorded_at_the_restart(
    tmp_path: Path,
) -> None:
    """`bench kills` lost a 45-move game: the plug was pulled after its last move was
    journaled and before its record reached records.jsonl (the record waits for the end
    sweep), and the restart, finding the journal's game over, started a new one. The record
    is written then, once."""
    data = tmp_path / "data"
    (record,) = finished_game(data)
    (data / RECORDS_FILE).write_text("")  # as the plug left it

    board = Board(make_config(data, game={"variant": "kalah", "options": {"seeds": 1}}))
    try:
        board.ready()
        board.loop.writer.flush()
        notices = [n["text"] for n in board.status()["daemon"]["notices"]]
    finally:
        board.stop()
    (again,) = [json.loads(line) for line in (data / RECORDS_FILE).read_text().splitlines()]
    assert {k: v for k, v in again.items() if k != "saved"} == {
        k: v for k, v in record.items() if k != "saved"
    }
    assert any("was not in records.jsonl: recorded now" in n for n in notices)


def test_a_finished_game_already_recorded_is_not_recorded_twice(tmp_path: Path) -> None:
    data = tmp_path / "data"
    records = finished_game(data)
    board = Board(make_config(data, game={"variant": "kalah", "options": {"seeds": 1}}))
    try:
        board.ready()
        board.loop.writer.flush()
    finally:
        board.stop()
    lines = (data / RECORDS_FILE).read_text().splitlines()
    assert [json.loads(line) for line in lines] == records
