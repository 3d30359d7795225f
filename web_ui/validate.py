"""Checking request bodies before they become daemon commands.

Every failure is an `ApiError` naming the offending field (`actions[2].at`, `pit`, `body`), so
that a client can point at what it got wrong. The daemon checks the meaning again (is that pit
playable now?) and answers with `CommandError`; this module only checks the shape.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from controller.physical import ACTION_FIELDS, BUTTONS, MISTAKE_KINDS

CALIBRATION_STAGES = ("empty", "layout", "reference")
MODES = ("play", "teach", "demo")
MAX_ACTIONS = 500
# The virtual hands are busy until a script's last action ends, and nobody can play the
# simulated board meanwhile: one request from the page must not hold it for a day (the
# simulator itself takes times up to 86400 s and holds up to 3600 s, for scenario files).
MAX_SCRIPT_S = 300.0
MAX_HOLD_S = 60.0  # a press or a bump
MAX_SEEDS = 200
# The deepest body any endpoint takes is 4 levels ({"actions": [{"at": [0, 1]}]}). The
# parser recurses once per level, so 100000 brackets would end in RecursionError (a 500).
MAX_JSON_DEPTH = 16
# A string (to its closing quote, or to the end of a body that never closes it: possessive,
# so that a body of `"\` repeated costs one pass and not one per quote) or a bracket.
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_INNERMOST = re.compile(r"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")
_ANY_BRACKET = re.compile(r"[\[\]{}]")


class ApiError(Exception):
    """An error answered as `{"error": message, "field": field}` with an HTTP status."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field

    def to_json(self) -> dict[str, Any]:
        return {"error": self.message, "field": self.field}


def _show(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_nesting(text: str) -> None:
    """Raise ValueError when the JSON `text` nests deeper than MAX_JSON_DEPTH (strings are
    skipped whole, so brackets inside them do not count), before the parser recurses."""
    if not _may_nest_too_deep(text):
        return
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ValueError(
                    f"nested deeper than {MAX_JSON_DEPTH} levels at character {match.start()}"
                )
        elif token in "]}":
            depth -= 1


def _may_nest_too_deep(text: str) -> bool:
    """False when the brackets surely nest no deeper than allowed, found at C speed: the
    bracket by bracket walk above (which says where) cost 14 ms of a web thread for 500 sim
    actions and 22 ms for a 200 kB body, holding the interpreter the loop needs. With the
    strings taken out, innermost pairs are taken away a level at a time."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return False
    rest = _STRINGS.sub("", text)
    for _ in range(MAX_JSON_DEPTH):
        rest, removed = _INNERMOST.subn("", rest)
        if not removed:
            break
    return _ANY_BRACKET.search(rest) is not None  # too deep, or brackets that do not match


def check_text(body: Any) -> None:
    """Raise ValueError when a string in the parsed body holds a lone surrogate: JSON's
    "\\ud800" escape decodes to one, which fails wherever the text is encoded later (the PIN
    check answered a 500). Refused here once for every endpoint and field."""
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        bad_char = error.object[error.start : error.end]
        raise ValueError(f"a string holds a lone surrogate {bad_char!a}") from None


def bad(field: str, message: str) -> ApiError:
    return ApiError(400, f"{field}: {message}", field)


def only_fields(body: dict[str, Any], allowed: tuple[str, ...], prefix: str = "") -> None:
    for key in body:
        if key not in allowed:
            name = f"{prefix}{key}"
            hint = f"allowed: {', '.join(allowed)}" if allowed else "this takes no fields"
            raise bad(name, f"unknown field ({hint})")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def integer(value: Any, field: str, low: int, high: int) -> int:
    if not is_int(value):
        raise bad(field, f"expected a whole number, got {_show(value)}")
    if not low <= value <= high:
        raise bad(field, f"{value} is out of range ({low} to {high})")
    return int(value)


def number(value: Any, field: str, low: float, high: float, *, low_open: bool = False) -> float:
    if not is_number(value):
        raise bad(field, f"expected a number, got {_show(value)}")
    number_ = float(value)
    too_low = number_ <= low if low_open else number_ < low
    if too_low or number_ > high:
        bound = "more than" if low_open else "from"
        raise bad(field, f"{_show(value)} is out of range ({bound} {low:g} up to {high:g})")
    return number_


def choice(value: Any, field: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise bad(field, f"expected a string, one of {', '.join(allowed)}; got {_show(value)}")
    if value not in allowed:
        raise bad(field, f"{_show(value)} is not allowed; one of {', '.join(allowed)}")
    return value


def place(value: Any, field: str, pits: int) -> list[Any]:
    """`[player, index]` or `[player, "store"]` (RULES.md section 1)."""
    shape = 'expected [player, pit] or [player, "store"]'
    if not isinstance(value, list) or len(value) != 2:
        raise bad(field, f"{shape}, got {_show(value)}")
    player, where = value
    if not is_int(player) or player not in (0, 1):
        raise bad(field, f"{shape} with player 0 or 1, got {_show(value)}")
    if where == "store":
        return [player, "store"]
    if not is_int(where) or not 0 <= where < pits:
        raise bad(field, f'{shape} with pit 0 to {pits - 1} or "store", got {_show(value)}')
    return [player, where]


def new_game_args(body: dict[str, Any]) -> dict[str, Any]:
    """{variant?, options?, opponent?}: `opponent` null (two people) or {player, level,
    think_s?} (the daemon checks the values and names what is wrong)."""
    only_fields(body, ("variant", "options", "opponent", "match"))
    args: dict[str, Any] = {}
    if "variant" in body:
        variant = body["variant"]
        if not isinstance(variant, str) or not variant.strip():
            raise bad("variant", f"expected a variant name, got {_show(variant)}")
        args["variant"] = variant.strip()
    if "options" in body:
        options = body["options"]
        if not isinstance(options, dict):
            raise bad("options", f"expected an object of option names, got {_show(options)}")
        args["options"] = options
    if "opponent" in body:
        opponent = body["opponent"]
        if opponent is not None and not isinstance(opponent, dict):
            raise bad("opponent", f"expected null or {{player, level}}, got {_show(opponent)}")
        args["opponent"] = opponent
    if "match" in body:
        if not isinstance(body["match"], bool):
            raise bad("match", f"expected true or false, got {_show(body['match'])}")
        args["match"] = body["match"]
    return args


def hint_args(body: dict[str, Any]) -> dict[str, Any]:
    only_fields(body, ())
    return {}


def player_new_game_args(body: dict[str, Any]) -> dict[str, Any]:
    """A player's new game is this game's rules again: nothing to choose (the admin chooses)."""
    only_fields(body, ())
    return {}


def undo_args(body: dict[str, Any]) -> dict[str, Any]:
    only_fields(body, ())
    return {}


def acknowledge_notices_args(body: dict[str, Any]) -> dict[str, Any]:
    only_fields(body, ())
    return {}


def calibrate_args(body: dict[str, Any]) -> dict[str, Any]:
    only_fields(body, ("stage", "grams"))
    if "stage" not in body:
        raise bad("stage", f"is missing; one of {', '.join(CALIBRATION_STAGES)}")
    args: dict[str, Any] = {"stage": choice(body["stage"], "stage", CALIBRATION_STAGES)}
    if "grams" in body and body["grams"] is not None:
        args["grams"] = number(body["grams"], "grams", 0.0, 100000.0, low_open=True)
    return args


def mode_args(body: dict[str, Any]) -> dict[str, Any]:
    only_fields(body, ("mode",))
    if "mode" not in body:
        raise bad("mode", f"is missing; one of {', '.join(MODES)}")
    return {"mode": choice(body["mode"], "mode", MODES)}


def save_recording_args(body: dict[str, Any], reason: str) -> dict[str, Any]:
    """`seconds` (optional: all the daemon holds); the daemon checks it against its ring."""
    only_fields(body, ("seconds",))
    args: dict[str, Any] = {"reason": reason}
    if body.get("seconds") is not None:
        args["seconds"] = number(body["seconds"], "seconds", 1.0, 3600.0)
    return args


def login_pin(body: dict[str, Any]) -> str:
    only_fields(body, ("pin",))
    if "pin" not in body:
        raise bad("pin", "is missing")
    pin = body["pin"]
    if is_int(pin):
        pin = str(pin)
    if not isinstance(pin, str) or not pin or len(pin) > 128:
        raise bad("pin", "expected the PIN as a string")
    return pin


def sim_move_args(body: dict[str, Any], pits: int) -> dict[str, Any]:
    """{pit}: the move of the player to move; {pits: [hand 0's, hand 1's]}: both hands'
    first pits in a simultaneous opening (the daemon says which one the game needs)."""
    only_fields(body, ("pit", "pits"))
    if "pits" in body:
        if "pit" in body:
            raise bad("pits", "send either pit or pits, not both")
        both = body["pits"]
        if not isinstance(both, list) or len(both) != 2:
            raise bad("pits", f"expected two pit indexes (hand 0's, hand 1's), got {_show(both)}")
        return {"pits": [integer(p, f"pits[{i}]", 0, pits - 1) for i, p in enumerate(both)]}
    if "pit" not in body:
        raise bad("pit", "is missing (the pit index to play, from 0)")
    return {"pit": integer(body["pit"], "pit", 0, pits - 1)}


def sim_mistake_args(body: dict[str, Any]) -> dict[str, Any]:
    only_fields(body, ("kind",))
    if "kind" not in body:
        raise bad("kind", f"is missing; one of {', '.join(MISTAKE_KINDS)}")
    return {"kind": choice(body["kind"], "kind", MISTAKE_KINDS)}


def sim_actions_args(body: dict[str, Any], pits: int) -> dict[str, Any]:
    only_fields(body, ("actions",))
    if "actions" not in body:
        raise bad("actions", "is missing (a list of SIMULATION.md physical actions)")
    actions = body["actions"]
    if not isinstance(actions, list) or not actions:
        raise bad("actions", f"expected a non-empty list of actions, got {_show(actions)}")
    if len(actions) > MAX_ACTIONS:
        raise bad("actions", f"{len(actions)} actions; at most {MAX_ACTIONS} at once")
    return {"actions": [_action(raw, f"actions[{i}]", pits) for i, raw in enumerate(actions)]}


def _action(raw: Any, where: str, pits: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise bad(where, f"expected an object with t and action, got {_show(raw)}")
    if "action" not in raw:
        raise bad(f"{where}.action", f"is missing; one of {', '.join(ACTION_FIELDS)}")
    kind = raw["action"]
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise bad(f"{where}.action", f"{_show(kind)} is not one of {', '.join(ACTION_FIELDS)}")
    required, optional = ACTION_FIELDS[kind]
    only_fields(raw, ("t", "action", *required, *optional, "hand"), prefix=f"{where}.")
    for key in ("t", *required):
        if key not in raw:
            needs = f" (a {kind} needs {', '.join(required)})" if required else ""
            raise bad(f"{where}.{key}", f"is missing{needs}")
    out: dict[str, Any] = {
        "t": number(raw["t"], f"{where}.t", 0.0, MAX_SCRIPT_S),
        "action": kind,
    }
    if "hand" in raw:
        out["hand"] = integer(raw["hand"], f"{where}.hand", 0, 1)
    for key in ("at", "from", "to"):
        if key in raw and not (kind == "lean" and key == "at"):
            out[key] = place(raw[key], f"{where}.{key}", pits)
    if kind == "lean":  # a forearm on the board's edge: a list of places
        cells = raw["at"]
        if not isinstance(cells, list) or not cells or len(cells) > 2 * pits + 2:
            raise bad(f"{where}.at", f"expected a list of places, got {_show(cells)}")
        out["at"] = [place(c, f"{where}.at[{i}]", pits) for i, c in enumerate(cells)]
    if kind == "move" and out["from"] == out["to"]:
        raise bad(f"{where}.to", "is the same place as from")
    if "n" in raw:
        out["n"] = integer(raw["n"], f"{where}.n", 1, MAX_SEEDS)
    if kind == "press":
        out["g"] = number(raw["g"], f"{where}.g", 0.0, 50000.0, low_open=True)
    if kind == "bump":
        out["g"] = number(raw["g"], f"{where}.g", -50000.0, 50000.0)
    if kind in ("rest", "lean", "brush"):  # the daemon checks each kind's own ranges
        out["g"] = number(raw["g"], f"{where}.g", 0.0, 50000.0, low_open=True)
    if kind in ("press", "bump", "rest", "lean") or (kind == "brush" and "dur" in raw):
        out["dur"] = number(raw["dur"], f"{where}.dur", 0.0, MAX_HOLD_S, low_open=True)
    if "ramp_s" in raw:
        out["ramp_s"] = number(raw["ramp_s"], f"{where}.ramp_s", 0.0, 10.0)
    if kind == "button":
        out["name"] = choice(raw["name"], f"{where}.name", BUTTONS)
    return out
