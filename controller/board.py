"""Board files (`hardware/boards/*.toml`): which load cell and LEDs belong to each place.

The rules never know about cells; this module is the one place that maps rule places to the
wood. A board file is checked on load and every problem is named with the file and the entry.

>>> board = load_board(BOARDS_DIR / "congkak7.toml")
>>> board.name, board.pits, len(board.cells)
('congkak7', 7, 16)
>>> m = board.mapping(6)                   # a 6-pit game on the 7-pit board
>>> m.cell_of[Place(0, 3)], m.idle_cells   # played pit 3 is the board's pit 4; pit 3 is closed
(4, (3, 11))
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules import Place

BOARDS_DIR = Path(__file__).resolve().parent.parent / "hardware" / "boards"


class BoardFileError(ValueError):
    """A board file that cannot be used; the message names the file, the entry and why."""


@dataclass(frozen=True)
class CellSpec:
    cell: int
    place: Place  # in the board's own pit numbering
    leds: tuple[int, ...]
    capacity_g: float


@dataclass(frozen=True)
class BoardMapping:
    """Rule places of a game with `pits` pits mapped onto this board's cells and LEDs."""

    pits: int
    cell_of: dict[Place, int]
    leds_of: dict[Place, tuple[int, ...]]
    place_of: dict[int, Place]
    idle_cells: tuple[int, ...]  # cells of closed pits: they must stay empty
    idle_leds: tuple[int, ...]

    @property
    def places(self) -> list[Place]:
        return list(self.cell_of)


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    pits: int
    default_variant: str
    led_count: int
    cells: tuple[CellSpec, ...]
    layouts: dict[int, tuple[int, ...]] = field(default_factory=dict)  # pits -> closed pits
    source: str = ""

    def spec_of(self, place: Place) -> CellSpec:
        for spec in self.cells:
            if spec.place == place:
                return spec
        raise KeyError(place)

    def playable_pits(self) -> list[int]:
        return [self.pits, *sorted(self.layouts)]

    def mapping(self, pits: int | None = None) -> BoardMapping:
        """The mapping for a game of `pits` pits (this board's own count, or a layout's)."""
        pits = self.pits if pits is None else pits
        if pits == self.pits:
            closed: tuple[int, ...] = ()
        elif pits in self.layouts:
            closed = self.layouts[pits]
        else:
            allowed = ", ".join(map(str, self.playable_pits()))
            raise BoardFileError(
                f"board {self.name!r} cannot play {pits} pits (it plays {allowed})"
            )
        open_pits = [i for i in range(self.pits) if i not in closed]
        cell_of: dict[Place, int] = {}
        leds_of: dict[Place, tuple[int, ...]] = {}
        for player in (0, 1):
            for game_pit, board_pit in enumerate(open_pits):
                spec = self.spec_of(Place(player, board_pit))
                cell_of[Place(player, game_pit)] = spec.cell
                leds_of[Place(player, game_pit)] = spec.leds
            store = self.spec_of(Place(player, "store"))
            cell_of[Place(player, "store")] = store.cell
            leds_of[Place(player, "store")] = store.leds
        idle = [self.spec_of(Place(p, i)) for p in (0, 1) for i in closed]
        return BoardMapping(
            pits,
            cell_of,
            leds_of,
            {cell: place for place, cell in cell_of.items()},
            tuple(s.cell for s in idle),
            tuple(led for s in idle for led in s.leds),
        )


_TOP_KEYS = {
    "name",
    "description",
    "pits",
    "default_variant",
    "pit_capacity_g",
    "store_capacity_g",
    "led_count",
    "places",
    "layouts",
}
_PLACE_KEYS = {"place", "cell", "leds", "capacity_g"}


def load_board(path: str | Path) -> Board:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise BoardFileError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise BoardFileError(f"{path}: invalid TOML: {err}") from None
    return parse_board(data, str(path))


def find_board(name: str) -> Board:
    """A shipped board by name (`congkak7`) or a path to a board file."""
    candidate = Path(name)
    if candidate.suffix == ".toml" or candidate.exists():
        return load_board(candidate)
    path = BOARDS_DIR / f"{name}.toml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in BOARDS_DIR.glob("*.toml")))
        raise BoardFileError(f"unknown board {name!r}, shipped boards: {known}")
    return load_board(path)


def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise BoardFileError(f"{where}: key {key!r} is missing")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BoardFileError(f"{where}: key {key!r} has the wrong type ({type(value).__name__})")
    return value


def parse_board(data: dict[str, Any], source: str = "<board>") -> Board:
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise BoardFileError(
            f"{source}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_TOP_KEYS))}"
        )
    name = _need(data, "name", str, source)
    pits = _need(data, "pits", int, source)
    if not 1 <= pits <= 16:
        raise BoardFileError(f"{source}: key 'pits': {pits} is out of range, allowed: 1 to 16")
    led_count = _need(data, "led_count", int, source)
    if not 0 <= led_count <= 1024:
        raise BoardFileError(
            f"{source}: key 'led_count': {led_count} is out of range, allowed: 0 to 1024"
        )
    pit_cap = float(data.get("pit_capacity_g", 1000.0))
    store_cap = float(data.get("store_capacity_g", 5000.0))
    entries = _need(data, "places", list, source)
    cells: list[CellSpec] = []
    seen_cells: dict[int, str] = {}
    seen_places: dict[Place, str] = {}
    seen_leds: dict[int, str] = {}
    for k, entry in enumerate(entries, start=1):
        where = f"{source}: places entry {k}"
        if not isinstance(entry, dict):
            raise BoardFileError(f"{where}: expected a table")
        unknown = sorted(set(entry) - _PLACE_KEYS)
        if unknown:
            raise BoardFileError(
                f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_PLACE_KEYS))}"
            )
        try:
            place = Place.from_json(_need(entry, "place", list, where))
        except ValueError as err:
            raise BoardFileError(f"{where}: key 'place': {err}") from None
        if not place.is_store and int(place.pit) >= pits:
            raise BoardFileError(f"{where}: place {place} is beyond the board's {pits} pits")
        cell = _need(entry, "cell", int, where)
        if cell < 0:
            raise BoardFileError(f"{where}: cell {cell} is negative")
        if cell in seen_cells:
            raise BoardFileError(f"{where}: cell {cell} is already used by {seen_cells[cell]}")
        if place in seen_places:
            raise BoardFileError(
                f"{where}: place {place} is listed twice (also {seen_places[place]})"
            )
        leds = _need(entry, "leds", list, where)
        for led in leds:
            if not isinstance(led, int) or not 0 <= led < led_count:
                raise BoardFileError(f"{where}: LED {led!r} is not in 0..{led_count - 1}")
            if led in seen_leds:
                raise BoardFileError(f"{where}: LED {led} is already used by {seen_leds[led]}")
            seen_leds[led] = f"place {place}"
        capacity = float(entry.get("capacity_g", store_cap if place.is_store else pit_cap))
        if not 10.0 <= capacity <= 50000.0:
            raise BoardFileError(
                f"{where}: capacity_g {capacity} is out of range, allowed: 10 to 50000"
            )
        seen_cells[cell] = f"place {place}"
        seen_places[place] = f"entry {k}"
        cells.append(CellSpec(cell, place, tuple(leds), capacity))
    missing = [
        str(p)
        for p in [Place(q, i) for q in (0, 1) for i in range(pits)]
        + [Place(0, "store"), Place(1, "store")]
        if p not in seen_places
    ]
    if missing:
        raise BoardFileError(f"{source}: missing place(s) {', '.join(missing)}")
    if sorted(seen_cells) != list(range(len(cells))):
        raise BoardFileError(f"{source}: cells must be numbered 0..{len(cells) - 1} without gaps")
    layouts: dict[int, tuple[int, ...]] = {}
    raw_layouts = data.get("layouts", {})
    if not isinstance(raw_layouts, dict):
        raise BoardFileError(f"{source}: key 'layouts' must be a table")
    for key, layout in raw_layouts.items():
        where = f"{source}: layouts.{key}"
        if not key.isdigit() or not isinstance(layout, dict) or set(layout) != {"closed"}:
            raise BoardFileError(f"{where}: expected [layouts.N] with only 'closed = [pit, ...]'")
        closed = layout["closed"]
        if not isinstance(closed, list) or not all(
            isinstance(i, int) and 0 <= i < pits for i in closed
        ):
            raise BoardFileError(f"{where}: 'closed' must list pits 0..{pits - 1}")
        if int(key) != pits - len(set(closed)):
            raise BoardFileError(
                f"{where}: closing {len(set(closed))} of {pits} pits leaves {pits - len(set(closed))}, not {key}"
            )
        layouts[int(key)] = tuple(sorted(set(closed)))
    return Board(
        name,
        str(data.get("description", "")),
        pits,
        str(data.get("default_variant", "congkak")),
        led_count,
        tuple(sorted(cells, key=lambda c: c.cell)),
        layouts,
        source,
    )
