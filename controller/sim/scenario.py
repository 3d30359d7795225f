"""Scenario files for the simulated board (SIMULATION.md, "Scenario file").

A scenario says which game is played on which board, how the simulated sensors behave, how fast
the virtual player's hands are, which moves it plays and which exact physical actions follow.
Every field but `variant` has a default, and every problem is reported with the file, the
field (`actions[3].at`) and what is allowed, because scenario files are written by hand.

Actions are JSON objects with `t` (seconds), `action` (the kind, SIMULATION.md's table) and the
kind's own fields; places are `[player, index]` or `[player, "store"]` in the game's numbering:

>>> s = parse_scenario({"variant": "kalah", "actions": [
...     {"t": 1.0, "action": "grab", "at": [0, 2]},
...     {"t": 1.5, "action": "drop", "at": [0, 3]}]}, "demo.json")
>>> s.board, s.sensors.rate_sps, s.actions[1].n, s.actions[1].at
('oware6', 80, 1, Place(player=0, pit=3))
>>> parse_scenario({"variant": "kalah", "sensors": {"rate_sps": 40}}, "demo.json")
Traceback (most recent call last):
...
controller.sim.scenario.ScenarioError: demo.json: sensors.rate_sps: 40 is not allowed, allowed: 10 or 80
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.board import Board, BoardFileError, BoardMapping, find_board
from controller.physical import ACTION_FIELDS, ACTION_KINDS, BUTTONS, MAX_T, PROFILE_NAMES
from controller.rules import STORE, OptionError, Place, Position, Rules
from controller.rules.record import RecordError, start_json, start_position


class ScenarioError(ValueError):
    """A scenario that cannot be run; the message names the file, the field and what is allowed."""


@dataclass(frozen=True)
class SensorParams:
    """How the load cells and seeds behave (SIMULATION.md, "What the simulator models")."""

    rate_sps: int = 80
    noise_g: float = 0.02
    seed_mean_g: float = 5.4
    seed_cv: float = 0.03
    ring_ms: float = 60.0
    glitch_rate: float = 1e-4
    drift_g_per_min: float = 0.05
    calibration_error: float = 0.02
    random_seed: int = 7


@dataclass(frozen=True)
class PlayerParams:
    """The virtual player's tempo: each interval is seconds_per_seed * uniform(1 ± jitter).

    `profile` names a person instead (controller/sim/human.py: child, adult, expert,
    visitor): their tempo, pauses, rests, leans and mistakes replace the fixed tempo.
    """

    seconds_per_seed: float = 0.25
    jitter: float = 0.3
    profile: str | None = None


@dataclass(frozen=True)
class Action:
    """One physical action of SIMULATION.md's table at time `t` (seconds).

    `at` is the place acted on (for `move` the JSON's `from`), `to` the destination of a move
    or of a bounce's hop. `places` are the cells a `lean` weighs on (`at` is then None).
    `n` is the seed count (grab: None, meaning every seed there). `ramp` is a rest's settling
    time (`ramp_s`). `hand` None means the scenario's default hand; the world resolves it
    before running.
    """

    t: float
    kind: str
    at: Place | None = None
    to: Place | None = None
    n: int | None = None
    g: float = 0.0
    dur: float = 0.0
    name: str = ""
    hand: int | None = None
    places: tuple[Place, ...] = ()
    ramp: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"{self.kind!r} is not an action, allowed: {', '.join(ACTION_KINDS)}")
        if self.n is None and self.kind in ("drop", "drop_off", "add"):
            object.__setattr__(self, "n", 1)  # one seed unless told

    def shifted(self, dt: float) -> Action:
        return dataclasses.replace(self, t=self.t + dt)

    def with_hand(self, hand: int) -> Action:
        return self if self.hand is not None else dataclasses.replace(self, hand=hand)

    def to_json(self) -> dict[str, Any]:
        """The action as a scenario file writes it."""
        out: dict[str, Any] = {"t": round(self.t, 6), "action": self.kind}
        if self.kind == "move":
            assert self.at is not None and self.to is not None
            out["from"] = self.at.to_json()
            out["to"] = self.to.to_json()
        elif self.kind == "lean":
            out["at"] = [p.to_json() for p in self.places]
        elif self.at is not None:
            out["at"] = self.at.to_json()
        if self.kind == "bounce":
            assert self.to is not None
            out["to"] = self.to.to_json()
        if self.n is not None:
            out["n"] = self.n
        if self.kind in _LOADS:
            out["g"] = self.g
            out["dur"] = self.dur
        if self.kind == "rest":
            out["ramp_s"] = self.ramp
        if self.kind == "button":
            out["name"] = self.name
        if self.hand is not None:
            out["hand"] = self.hand
        return out

    def __str__(self) -> str:
        return json.dumps(self.to_json())


@dataclass(frozen=True)
class Scenario:
    """A validated scenario; `board` is the resolved board name (or path)."""

    variant: str
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    board: str | None = None  # None: the default board for the game (`default_board`)
    sensors: SensorParams = SensorParams()
    player: PlayerParams = PlayerParams()
    moves: tuple[int, ...] = ()
    actions: tuple[Action, ...] = ()
    source: str = "<scenario>"
    # A start other than the variant's (a match round's layout, a record's `start`).
    start: Position | None = None

    def rules(self) -> Rules:
        return Rules.for_variant(self.variant, dict(self.options))

    def board_file(self) -> Board:
        return find_board(self.board or default_board(self.rules()))

    def mapping(self) -> BoardMapping:
        return self.board_file().mapping(self.rules().n)

    def to_json(self) -> dict[str, Any]:
        out = {
            "variant": self.variant,
            "options": dict(self.options),
            "board": self.board,
            "sensors": dataclasses.asdict(self.sensors),
            "player": dataclasses.asdict(self.player),
            "moves": list(self.moves),
            "actions": [a.to_json() for a in self.actions],
        }
        if self.start is not None:
            out["start"] = start_json(self.start)
        return out


# ---------------------------------------------------------------------------------------------
# Parsing

_TOP_KEYS = ("variant", "options", "board", "sensors", "player", "moves", "actions", "start")
# A game record is a scenario too (its moves played by the virtual player, from its `start`):
# the fields the daemon's records carry for people (docs/records.md) are read and left alone.
_RECORD_KEYS = ("match", "opponent", "overruns", "finished", "saved")

# (check, allowed) for every number field; check returns True when the value is allowed.
_Range = tuple[Callable[[float], bool], str]

_SENSOR_RANGES: dict[str, _Range] = {
    "rate_sps": (lambda v: v in (10, 80), "10 or 80"),
    "noise_g": (lambda v: 0 <= v <= 100, "0 to 100 (grams rms)"),
    "seed_mean_g": (lambda v: 0.1 <= v <= 1000, "0.1 to 1000 (grams)"),
    "seed_cv": (lambda v: 0 <= v <= 0.5, "0 to 0.5"),
    "ring_ms": (lambda v: 0 <= v <= 1000, "0 to 1000 (milliseconds)"),
    "glitch_rate": (lambda v: 0 <= v <= 1, "0 to 1 (per sample per cell)"),
    "drift_g_per_min": (lambda v: 0 <= v <= 100, "0 to 100"),
    "calibration_error": (lambda v: 0 <= v <= 0.5, "0 to 0.5 (a fraction)"),
    "random_seed": (lambda v: 0 <= v < 2**63, "an integer from 0 to 2**63-1"),
}
_INT_FIELDS = {"rate_sps", "random_seed"}

_PLAYER_RANGES: dict[str, _Range] = {
    "seconds_per_seed": (lambda v: 0.05 <= v <= 10, "0.05 to 10 (seconds)"),
    "jitter": (lambda v: 0 <= v <= 0.9, "0 to 0.9 (a fraction)"),
}

MAX_SEEDS_PER_ACTION = 200

# Actions that put a load on cells for a while: (g range, allowed text), (dur range, text).
_LOADS: dict[str, tuple[_Range, _Range]] = {
    "press": (
        (lambda v: 0 < v <= 50000, "more than 0, up to 50000 (grams)"),
        (lambda v: 0 < v <= 3600, "more than 0, up to 3600 seconds"),
    ),
    "bump": (
        (lambda v: -50000 <= v <= 50000, "-50000 to 50000 (grams)"),
        (lambda v: 0 < v <= 3600, "more than 0, up to 3600 seconds"),
    ),
    "rest": (
        (lambda v: 0 < v <= 5000, "more than 0, up to 5000 (grams)"),
        (lambda v: 0 < v <= 3600, "more than 0, up to 3600 seconds"),
    ),
    "lean": (
        (lambda v: 0 < v <= 20000, "more than 0, up to 20000 (grams, shared by the cells)"),
        (lambda v: 0 < v <= 3600, "more than 0, up to 3600 seconds"),
    ),
    "brush": (
        (lambda v: 0 < v <= 2000, "more than 0, up to 2000 (grams)"),
        (lambda v: 0 < v <= 1, "more than 0, up to 1 second"),
    ),
}
BRUSH_S = 0.04  # a brush's default duration: fingers passing over a cup
REST_RAMP_S = 0.15  # a rest's default settling time: a palm lowers more slowly than a press

# A default board for every pit count the shipped boards play.
_DEFAULT_BOARDS = {5: "congkak5", 6: "oware6", 7: "congkak7", 9: "congkak9"}


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


class _Checker:
    """Helpers that raise ScenarioError with the file and the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> ScenarioError:
        return ScenarioError(
            f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}"
        )

    def table(self, value: Any, where: str, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {_show(value)}")
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise self.fail(
                where or "top level",
                f"unknown key(s) {', '.join(unknown)}, allowed: {', '.join(known)}",
            )
        return value

    def number(self, value: Any, where: str, check: _Range, integer: bool = False) -> float:
        ok, allowed = check
        if integer:
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.fail(where, f"{_show(value)} is not an integer, allowed: {allowed}")
        elif not _is_number(value):
            raise self.fail(where, f"{_show(value)} is not a number, allowed: {allowed}")
        if not ok(value):
            raise self.fail(where, f"{_show(value)} is not allowed, allowed: {allowed}")
        return int(value) if integer else float(value)

    def integer(self, value: Any, where: str, lo: int, hi: int) -> int:
        allowed = f"an integer from {lo} to {hi}"
        return int(self.number(value, where, (lambda v: lo <= v <= hi, allowed), integer=True))

    def place(self, value: Any, where: str, pits: int) -> Place:
        try:
            place = Place.from_json(value)
        except ValueError as err:
            raise self.fail(where, str(err)) from None
        if place.pit != STORE and int(place.pit) >= pits:
            raise self.fail(
                where,
                f"{place} is not on the board: a row has pits 0 to {pits - 1}, "
                'allowed: [player, index] or [player, "store"]',
            )
        return place


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; ScenarioError names the file and the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScenarioError(f"{path}: cannot read: {err}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ScenarioError(
            f"{path}: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"
        ) from None
    return parse_scenario(data, str(path))


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    """Validate a decoded scenario (SIMULATION.md) and fill in the defaults."""
    c = _Checker(source)
    data = c.table(data, "", _TOP_KEYS + _RECORD_KEYS)
    if "variant" not in data:
        raise c.fail("variant", "is missing (congkak, kalah or oware)")
    variant = data["variant"]
    if not isinstance(variant, str):
        raise c.fail("variant", f"{_show(variant)} is not a variant name")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise c.fail("options", f"expected an object of rule options, got {_show(options)}")
    try:
        rules = Rules.for_variant(variant, options)
    except OptionError as err:
        where = "variant" if str(err).startswith("unknown variant") else "options"
        raise c.fail(where, str(err)) from None
    pits = rules.n
    start = _parse_start(c, data.get("start"), rules)

    board = _parse_board(c, data.get("board"), rules)
    sensors = _parse_params(c, data.get("sensors", {}), "sensors", SensorParams, _SENSOR_RANGES)
    player = _parse_player(c, data.get("player", {}))

    raw_moves = data.get("moves", [])
    if not isinstance(raw_moves, list):
        raise c.fail("moves", f"expected a list of pit numbers, got {_show(raw_moves)}")
    moves = tuple(c.integer(m, f"moves[{i}]", 0, pits - 1) for i, m in enumerate(raw_moves))

    actions = _parse_actions(c, data.get("actions", []), pits)
    return Scenario(
        variant=rules.variant,
        options=dict(options),
        board=board,
        sensors=sensors,
        player=player,
        moves=moves,
        actions=actions,
        source=source,
        start=start,
    )


def _parse_start(c: _Checker, value: Any, rules: Rules) -> Position | None:
    """The record's `start` (RULES.md 5: {pits, stores, to_move}); None: the variant's."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise c.fail("start", f"expected an object {{pits, stores, to_move}}, got {_show(value)}")
    try:
        return start_position(value, rules)
    except RecordError as err:
        raise c.fail("start", str(err).removeprefix("field 'start': ")) from None


def default_board(rules: Rules) -> str:
    """The shipped board a game is played on when the scenario names none.

    A 6-pit congkak game goes on the 7-pit congkak board (one pit per row closed), other 6-pit
    games on the oware board; 5, 7 and 9 pits on the congkak boards.

    >>> default_board(Rules.for_variant("oware")), default_board(Rules.for_variant("congkak"))
    ('oware6', 'congkak7')
    """
    pits = rules.n
    if rules.variant == "congkak" and pits == 6:
        return "congkak7"
    if pits in _DEFAULT_BOARDS:
        return _DEFAULT_BOARDS[pits]
    allowed = ", ".join(str(p) for p in sorted(_DEFAULT_BOARDS))
    raise ValueError(f"no default board plays {pits} pits (defaults exist for {allowed})")


def _parse_board(c: _Checker, value: Any, rules: Rules) -> str:
    if value is None:
        try:
            name = default_board(rules)
        except ValueError as err:
            raise c.fail("board", f"{err}; name a board file") from None
    elif isinstance(value, str) and value:
        name = value
    else:
        raise c.fail("board", f'{_show(value)} is not a board name, allowed: e.g. "congkak7"')
    try:
        find_board(name).mapping(rules.n)
    except BoardFileError as err:
        raise c.fail("board", str(err)) from None
    return name


def _parse_params(c: _Checker, value: Any, where: str, cls: Any, ranges: dict[str, _Range]) -> Any:
    table = c.table(value, where, tuple(ranges))
    clean: dict[str, Any] = {}
    for key, raw in table.items():
        number = c.number(raw, f"{where}.{key}", ranges[key], integer=key in _INT_FIELDS)
        clean[key] = int(number) if key in _INT_FIELDS else float(number)
    return cls(**clean)


def _parse_player(c: _Checker, value: Any) -> PlayerParams:
    """`player`: the fixed tempo's numbers, or a behaviour `profile` by name."""
    table = dict(c.table(value, "player", (*_PLAYER_RANGES, "profile")))
    profile = table.pop("profile", None)
    if profile is not None and profile not in PROFILE_NAMES:
        raise c.fail(
            "player.profile",
            f"{_show(profile)} is not a profile, allowed: {', '.join(PROFILE_NAMES)}",
        )
    params: PlayerParams = _parse_params(c, table, "player", PlayerParams, _PLAYER_RANGES)
    return dataclasses.replace(params, profile=profile)


def parse_actions(data: Any, pits: int, source: str = "<actions>") -> tuple[Action, ...]:
    """Validate a list of JSON actions (as in a scenario's `actions`) for a `pits`-pit game.

    For actions arriving while the simulation runs (the daemon's `sim_actions`): errors name
    `source` and the field, `actions[2].at`.

    >>> parse_actions([{"t": 0.2, "action": "drop", "at": [1, "store"]}], 7)[0].at
    Place(player=1, pit='store')
    """
    return _parse_actions(_Checker(source), data, pits)


def _parse_actions(c: _Checker, raw_actions: Any, pits: int) -> tuple[Action, ...]:
    if not isinstance(raw_actions, list):
        raise c.fail("actions", f"expected a list of actions, got {_show(raw_actions)}")
    actions: list[Action] = []
    for i, raw in enumerate(raw_actions):
        action = _parse_action(c, raw, f"actions[{i}]", pits)
        if actions and action.t < actions[-1].t:
            raise c.fail(
                f"actions[{i}].t",
                f"{action.t} is before actions[{i - 1}].t = {actions[-1].t}; "
                "times must not go backwards",
            )
        actions.append(action)
    return tuple(actions)


def _parse_action(c: _Checker, raw: Any, where: str, pits: int) -> Action:
    if not isinstance(raw, dict):
        raise c.fail(where, f"expected an object with t and action, got {_show(raw)}")
    if "action" not in raw:
        raise c.fail(f"{where}.action", f"is missing, allowed: {', '.join(ACTION_KINDS)}")
    kind = raw["action"]
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:  # (a list is not hashable)
        raise c.fail(
            f"{where}.action", f"{_show(kind)} is not an action, allowed: {', '.join(ACTION_KINDS)}"
        )
    required, optional = ACTION_FIELDS[kind]
    c.table(raw, where, ("t", "action", *required, *optional, "hand"))
    for key in ("t", *required):
        if key not in raw:
            raise c.fail(f"{where}.{key}", f"is missing (a {kind} needs {', '.join(required)})")
    t = c.number(raw["t"], f"{where}.t", (lambda v: 0 <= v <= MAX_T, f"0 to {MAX_T:g} seconds"))
    hand = None
    if "hand" in raw:
        hand = c.integer(raw["hand"], f"{where}.hand", 0, 1)
    at, to, places = _action_places(c, raw, where, kind, pits)
    n: int | None = None
    if "n" in raw:
        n = c.integer(raw["n"], f"{where}.n", 1, MAX_SEEDS_PER_ACTION)
    elif kind in ("drop", "drop_off", "add"):
        n = 1
    g, dur, ramp = _action_load(c, raw, where, kind)
    name = ""
    if kind == "button":
        name = raw["name"]
        if name not in BUTTONS:
            raise c.fail(
                f"{where}.name", f"{_show(name)} is not a button, allowed: {', '.join(BUTTONS)}"
            )
    return Action(float(t), kind, at, to, n, float(g), float(dur), name, hand, places, ramp)


def _action_places(
    c: _Checker, raw: dict[str, Any], where: str, kind: str, pits: int
) -> tuple[Place | None, Place | None, tuple[Place, ...]]:
    """An action's place (`at`, a move's `from`), its destination (`to`) and a lean's cells."""
    if kind == "lean":
        return None, None, _places(c, raw["at"], f"{where}.at", pits)
    if kind == "move":
        source = c.place(raw["from"], f"{where}.from", pits)
        to = c.place(raw["to"], f"{where}.to", pits)
        if source == to:
            raise c.fail(f"{where}.to", f"{to} is the same place as from")
        return source, to, ()
    at = c.place(raw["at"], f"{where}.at", pits) if "at" in raw else None
    if kind != "bounce":
        return at, None, ()
    to = c.place(raw["to"], f"{where}.to", pits)
    if at == to:
        raise c.fail(f"{where}.to", f"{to} is the same place as at: a bounce hops on")
    return at, to, ()


def _action_load(
    c: _Checker, raw: dict[str, Any], where: str, kind: str
) -> tuple[float, float, float]:
    """The grams, seconds and (a rest's) settling time of an action that loads cells."""
    if kind not in _LOADS:
        return 0.0, 0.0, 0.0
    g_range, dur_range = _LOADS[kind]
    g = c.number(raw["g"], f"{where}.g", g_range)
    dur = c.number(raw["dur"], f"{where}.dur", dur_range) if "dur" in raw else BRUSH_S
    ramp = 0.0
    if kind == "rest":
        ramp = REST_RAMP_S
        if "ramp_s" in raw:
            ramp = c.number(raw["ramp_s"], f"{where}.ramp_s", (lambda v: 0 <= v <= 10, "0 to 10"))
    return g, dur, ramp


def _places(c: _Checker, value: Any, where: str, pits: int) -> tuple[Place, ...]:
    """A lean's places: a non-empty list of distinct places."""
    if not isinstance(value, list) or not value or not isinstance(value[0], list):
        raise c.fail(
            where, f'expected a list of places such as [[1, 0], [1, "store"]], got {_show(value)}'
        )
    places = tuple(c.place(v, f"{where}[{i}]", pits) for i, v in enumerate(value))
    if len(set(places)) != len(places):
        raise c.fail(where, "names a place twice")
    return places
