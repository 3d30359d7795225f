"""Board files (issue 3, item 1): shipped boards load; broken ones are named clearly."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.board import BOARDS_DIR, BoardFileError, find_board, load_board, parse_board
from controller.rules import Place


@pytest.mark.parametrize(
    ("name", "pits", "cells"),
    [("congkak5", 5, 12), ("congkak7", 7, 16), ("congkak9", 9, 20), ("oware6", 6, 14)],
)
def test_shipped_boards_load(name: str, pits: int, cells: int) -> None:
    board = find_board(name)
    assert (board.pits, len(board.cells)) == (pits, cells)
    mapping = board.mapping()
    assert len(set(mapping.cell_of.values())) == cells
    assert mapping.idle_cells == ()


def test_six_pit_game_on_the_seven_pit_board_closes_one_pit_per_row() -> None:
    board = find_board("congkak7")
    mapping = board.mapping(6)
    assert len(mapping.cell_of) == 14
    assert mapping.cell_of[Place(0, 2)] == 2 and mapping.cell_of[Place(0, 3)] == 4
    assert mapping.idle_cells == (3, 11)
    with pytest.raises(BoardFileError, match="cannot play 5 pits"):
        board.mapping(5)


def _data() -> dict[str, Any]:
    return tomllib.loads((BOARDS_DIR / "oware6.toml").read_text())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["places"][1].update(cell=0),
            "places entry 2: cell 0 is already used by place [0, 0]",
        ),
        (lambda d: d["places"].pop(3), "missing place(s) [0, 3]"),
        (lambda d: d.update(colour="red"), "unknown key(s) colour"),
        (
            lambda d: d["places"][0].update(place=[0, 9]),
            "places entry 1: place [0, 9] is beyond the board's 6 pits",
        ),
        (lambda d: d["places"][0].update(leds=[99]), "places entry 1: LED 99 is not in 0..15"),
        (lambda d: d["places"][2].update(place=[0, 1]), "place [0, 1] is listed twice"),
        (
            lambda d: d.update(layouts={"4": {"closed": [1]}}),
            "layouts.4: closing 1 of 6 pits leaves 5, not 4",
        ),
        (lambda d: d.pop("pits"), "key 'pits' is missing"),
    ],
)
def test_broken_board_files_name_the_problem(change: Any, message: str) -> None:
    data = _data()
    change(data)
    with pytest.raises(BoardFileError) as err:
        parse_board(data, "oware6.toml")
    assert message in str(err.value)
    assert str(err.value).startswith("oware6.toml")


def test_unreadable_or_invalid_toml(tmp_path: Path) -> None:
    with pytest.raises(BoardFileError, match="cannot read"):
        load_board(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [")
    with pytest.raises(BoardFileError, match=r"bad\.toml: invalid TOML"):
        load_board(bad)
    with pytest.raises(BoardFileError, match="unknown board 'bao'"):
        find_board("bao")
