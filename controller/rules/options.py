"""Variant options: the table of RULES.md section 3, validated.

A variant is a named preset of options; every option can be overridden by name.

>>> opts = find_variant("oware").options(seeds=5)
>>> opts.pits, opts.seeds, opts.capture
(6, 5, 'counts')
>>> find_variant("congkak").options(pits=5).seeds   # congkak: seeds = pits unless given
5
>>> find_variant("kalah").options(pits=0)
Traceback (most recent call last):
...
controller.rules.options.OptionError: option 'pits': 0 is out of range, allowed: an integer from 1 to 16
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Laps = Literal["single", "relay"]
Capture = Literal["opposite", "counts", "none"]
GrandSlam = Literal["no_capture", "forbidden", "allowed"]
NoMove = Literal["pass", "end"]
End = Literal["all_pits_empty", "side_empty", "majority"]
EndSweep = Literal["owner", "emptier", "none"]
Cycle = Literal["split_own", "none"]
OpeningNext = Literal["slower", "faster"]
HandicapPartial = Literal["keep", "burn"]
MoveTimeConsequence = Literal["warn", "pass"]

MAX_PITS = 16
MAX_SEEDS = 100


class OptionError(ValueError):
    """An option is unknown, of the wrong type or out of range; the message names it."""


@dataclass(frozen=True)
class Options:
    """Every rule option of RULES.md section 3, already validated."""

    pits: int
    seeds: int
    sow_own_store: bool
    laps: Laps
    extra_turn: bool
    capture: Capture
    capture_requires_opposite: bool = False
    capture_counts: tuple[int, ...] = (2, 3)
    grand_slam: GrandSlam = "no_capture"
    skip_origin: bool = False
    must_feed: bool = False
    no_move: NoMove = "end"
    end: End = "side_empty"
    end_sweep: EndSweep = "none"
    cycle: Cycle = "none"
    simultaneous_opening: bool = False
    opening_next: OpeningNext = "slower"
    handicap_rounds: bool = False
    handicap_partial: HandicapPartial = "keep"
    move_time_limit_s: float | None = None
    move_time_consequence: MoveTimeConsequence = "warn"
    # Pits that hold nothing and are skipped by sowing, as (player, index) pairs: a 6-pit game
    # on a 7-pit board, or the pits a handicap round could not fill.
    closed: frozenset[tuple[int, int]] = field(default_factory=frozenset)

    def to_json(self) -> dict[str, Any]:
        """The options as JSON values (lists for tuples and sets).

        >>> find_variant("kalah").options().to_json()["capture_counts"]
        [2, 3]
        """
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "closed":
                value = [list(place) for place in sorted(value)]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


# ---------------------------------------------------------------------------------------------
# Validation of single values. Each checker takes the raw value (from JSON or the command line,
# already JSON-decoded) and the options seen so far, and returns the clean value.

Checker = Callable[[Any, Mapping[str, Any]], Any]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_range(lo: int, hi: int) -> tuple[Checker, str]:
    allowed = f"an integer from {lo} to {hi}"

    def check(value: Any, _: Mapping[str, Any]) -> int:
        if not _is_int(value):
            raise OptionError(f"{_show(value)} is not an integer, allowed: {allowed}")
        if not lo <= value <= hi:
            raise OptionError(f"{_show(value)} is out of range, allowed: {allowed}")
        return int(value)

    return check, allowed


def _boolean() -> tuple[Checker, str]:
    def check(value: Any, _: Mapping[str, Any]) -> bool:
        if not isinstance(value, bool):
            raise OptionError(f"{_show(value)} is not a boolean, allowed: true or false")
        return value

    return check, "true or false"


def _choice(*choices: str) -> tuple[Checker, str]:
    allowed = "one of " + ", ".join(choices)

    def check(value: Any, _: Mapping[str, Any]) -> str:
        if value not in choices:
            raise OptionError(f"{_show(value)} is not allowed, allowed: {allowed}")
        return str(value)

    return check, allowed


def _counts() -> tuple[Checker, str]:
    allowed = "a non-empty list of distinct integers from 1 to 99"

    def check(value: Any, _: Mapping[str, Any]) -> tuple[int, ...]:
        if (
            not isinstance(value, list | tuple)
            or not value
            or not all(_is_int(v) and 1 <= v <= 99 for v in value)
            or len(set(value)) != len(value)
        ):
            raise OptionError(f"{_show(value)} is not allowed, allowed: {allowed}")
        return tuple(sorted(value))

    return check, allowed


def _time_limit() -> tuple[Checker, str]:
    allowed = "null or a number of seconds from 0.1 to 3600"

    def check(value: Any, _: Mapping[str, Any]) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise OptionError(f"{_show(value)} is not a number, allowed: {allowed}")
        if not 0.1 <= value <= 3600:
            raise OptionError(f"{_show(value)} is out of range, allowed: {allowed}")
        return float(value)

    return check, allowed


def _closed() -> tuple[Checker, str]:
    allowed = "a list of [player, pit] pairs naming pits of the board"

    def check(value: Any, seen: Mapping[str, Any]) -> frozenset[tuple[int, int]]:
        pits = seen["pits"]
        if not isinstance(value, list | tuple | frozenset | set):
            raise OptionError(f"{_show(value)} is not allowed, allowed: {allowed}")
        out: set[tuple[int, int]] = set()
        for place in value:
            ok = (
                isinstance(place, list | tuple)
                and len(place) == 2
                and place[0] in (0, 1)
                and _is_int(place[1])
                and 0 <= place[1] < pits
            )
            if not ok:
                raise OptionError(
                    f"{_show(place)} is not a pit of a {pits}-pit row, allowed: {allowed}"
                )
            out.add((int(place[0]), int(place[1])))
        for player in (0, 1):
            if all((player, i) in out for i in range(pits)):
                raise OptionError(f"every pit of player {player} is closed, allowed: {allowed}")
        return frozenset(out)

    return check, allowed


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


# Option name -> (checker, description of the allowed values, meaning). Order matters: `seeds`
# and `closed` are checked after `pits`.
_SPECS: dict[str, tuple[tuple[Checker, str], str]] = {
    "pits": (_int_range(1, MAX_PITS), "pits per row"),
    "seeds": (_int_range(1, MAX_SEEDS), "seeds in every pit at start"),
    "sow_own_store": (_boolean(), "sowing passes through own store"),
    "laps": (_choice("single", "relay"), "relay: last seed in a non-empty pit picks it all up"),
    "extra_turn": (_boolean(), "last seed in own store: same player moves again"),
    "capture": (_choice("opposite", "counts", "none"), "capture rule"),
    "capture_requires_opposite": (_boolean(), "opposite capture only with seeds opposite"),
    "capture_counts": (_counts(), "pit totals that capture under counts"),
    "grand_slam": (_choice("no_capture", "forbidden", "allowed"), "capture of every opposing seed"),
    "skip_origin": (_boolean(), "a lap that comes round skips the pit it started from"),
    "must_feed": (_boolean(), "a move must give seeds to an empty opponent"),
    "no_move": (_choice("pass", "end"), "player to move has no seeds"),
    "end": (_choice("all_pits_empty", "side_empty", "majority"), "when the game ends"),
    "end_sweep": (_choice("owner", "emptier", "none"), "who takes the seeds left in pits"),
    "cycle": (_choice("split_own", "none"), "a repeated position"),
    "simultaneous_opening": (_boolean(), "both players make their first move at once"),
    "opening_next": (_choice("slower", "faster"), "who moves first after a simultaneous opening"),
    "handicap_rounds": (_boolean(), "a match of rounds filled from each player's stock"),
    "handicap_partial": (_choice("keep", "burn"), "a pit that cannot be filled completely"),
    "move_time_limit_s": (_time_limit(), "seconds to start a move (see move_time_consequence)"),
    "move_time_consequence": (
        _choice("warn", "pass"),
        "a move not started in time: warn (the lights count down, the record notes it) or "
        "pass (the turn passes to the other player)",
    ),
    "closed": (_closed(), "pits that are closed: skipped by sowing, never played"),
}

OPTION_NAMES: tuple[str, ...] = tuple(_SPECS)


def describe_option(name: str) -> tuple[str, str]:
    """(allowed values, meaning) of an option, for `sowboard rules`."""
    (_, allowed), meaning = _SPECS[name]
    return allowed, meaning


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A named preset of options, like python-chess's variant boards but as data.

    `restrict` narrows an option further for this variant (congkak boards have 5, 7 or 9 pits).
    """

    name: str
    description: str
    defaults: Mapping[str, Any]
    restrict: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def options(self, **overrides: Any) -> Options:
        return self.options_from(overrides)

    def options_from(self, overrides: Mapping[str, Any]) -> Options:
        """Validated options: the preset with `overrides` applied; errors name the option."""
        for name in overrides:
            if name not in _SPECS:
                raise OptionError(
                    f"unknown option {name!r} for variant {self.name!r}, "
                    f"known options: {', '.join(OPTION_NAMES)}"
                )
        raw = {**self.defaults, **overrides}
        if raw.get("seeds") is None:
            # congkak fills each pit with as many seeds as a row has pits.
            raw["seeds"] = raw["pits"]
        clean: dict[str, Any] = {}
        for name in OPTION_NAMES:
            if name not in raw:
                continue
            (check, _), _ = _SPECS[name]
            try:
                value = check(raw[name], clean)
                allowed = self.restrict.get(name)
                if allowed is not None and value not in allowed:
                    raise OptionError(
                        f"{_show(value)} is not allowed for {self.name}, allowed: "
                        + ", ".join(_show(a) for a in allowed)
                    )
            except OptionError as err:
                raise OptionError(f"option {name!r}: {err}") from None
            clean[name] = value
        return Options(**clean)

    def default_options(self) -> Options:
        return self.options()


def _variant(
    name: str, description: str, restrict: Mapping[str, tuple[Any, ...]] | None = None, **d: Any
) -> Variant:
    return Variant(name, description, d, restrict or {})


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        _variant(
            "congkak",
            "Congkak: relay sowing clockwise through own store (seed congkak-rules-ja.txt)",
            {"pits": (5, 7, 9)},
            pits=7,
            seeds=None,
            sow_own_store=True,
            laps="relay",
            extra_turn=True,
            capture="opposite",
            capture_requires_opposite=False,
            skip_origin=False,
            must_feed=False,
            no_move="pass",
            end="all_pits_empty",
            end_sweep="none",
            cycle="none",
        ),
        _variant(
            "kalah",
            "Kalah: 3 seeds, single laps, capture opposite, row empty ends "
            "(seed mancala-wikipedia-ja.txt, Kalah)",
            pits=6,
            seeds=3,
            sow_own_store=True,
            laps="single",
            extra_turn=True,
            capture="opposite",
            capture_requires_opposite=False,
            skip_origin=False,
            must_feed=False,
            no_move="end",
            end="side_empty",
            end_sweep="emptier",
            cycle="none",
        ),
        _variant(
            "oware",
            "Oware (abapa): 2-or-3 captures, grand slam takes nothing, must feed, 25 wins "
            "(seed mancala-wikipedia-ja.txt, Oware)",
            pits=6,
            seeds=4,
            sow_own_store=False,
            laps="single",
            extra_turn=False,
            capture="counts",
            capture_counts=[2, 3],
            grand_slam="no_capture",
            skip_origin=True,
            must_feed=True,
            no_move="end",
            end="majority",
            end_sweep="owner",
            cycle="split_own",
        ),
    )
}


def find_variant(name: str) -> Variant:
    """The variant called `name` (case-insensitive), as python-chess's `find_variant`.

    >>> find_variant("Oware").name
    'oware'
    >>> find_variant("bao")
    Traceback (most recent call last):
    ...
    controller.rules.options.OptionError: unknown variant 'bao', known variants: congkak, kalah, oware
    """
    found = VARIANTS.get(name.lower()) if isinstance(name, str) else None
    if found is None:
        raise OptionError(f"unknown variant {name!r}, known variants: {', '.join(VARIANTS)}")
    return found


def parse_option_assignment(text: str) -> tuple[str, Any]:
    """Parse a command-line `name=value`; the value is JSON, or else a bare word.

    >>> parse_option_assignment("seeds=4")
    ('seeds', 4)
    >>> parse_option_assignment("laps=relay")
    ('laps', 'relay')
    >>> parse_option_assignment("capture_counts=[2,3]")
    ('capture_counts', [2, 3])
    >>> parse_option_assignment("move_time_limit_s=none")
    ('move_time_limit_s', None)
    """
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise OptionError(f"{text!r} is not of the form name=value")
    value = value.strip()
    if value.lower() in ("none", "null"):
        return name, None
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def options_table(names: Iterable[str] = OPTION_NAMES) -> list[tuple[str, str, str]]:
    """(name, allowed, meaning) rows for help texts."""
    return [(n, *describe_option(n)) for n in names]


# ---------------------------------------------------------------------------------------------
# What a person choosing options needs: which options matter, and their fields.

# An option that only matters when others have these values (the rest always matter).
APPLIES_WHEN: dict[str, dict[str, tuple[Any, ...]]] = {
    "capture_requires_opposite": {"capture": ("opposite",)},
    "capture_counts": {"capture": ("counts",)},
    "grand_slam": {"capture": ("counts",)},
    "extra_turn": {"sow_own_store": (True,)},  # a last seed can only end in a store sown into
    "opening_next": {"simultaneous_opening": (True,)},
    "handicap_partial": {"handicap_rounds": (True,)},
}


def option_applies(name: str, options: Mapping[str, Any]) -> bool:
    """Does option `name` change anything with these `options` (JSON values)?

    >>> option_applies("grand_slam", find_variant("kalah").options().to_json())
    False
    >>> option_applies("grand_slam", find_variant("oware").options().to_json())
    True
    """
    return all(options.get(k) in values for k, values in APPLIES_WHEN.get(name, {}).items())


def option_fields(variant_name: str) -> list[dict[str, Any]]:
    """A form field for each option a person may set for `variant_name` (not `closed`, which
    handicap rounds set): name, kind (choice, bool, int, counts, seconds), the values or range
    allowed, the variant's default and `applies_when` (APPLIES_WHEN).

    >>> [f for f in option_fields("congkak") if f["name"] == "pits"][0]["values"]
    [5, 7, 9]
    """
    variant = find_variant(variant_name)
    defaults = variant.default_options().to_json()
    hints = typing.get_type_hints(Options)
    fields: list[dict[str, Any]] = []
    for name in OPTION_NAMES:
        if name == "closed":
            continue
        spec: dict[str, Any] = {"name": name, "default": defaults[name]}
        hint = hints[name]
        restrict = variant.restrict.get(name)
        if restrict is not None:
            spec.update(kind="choice", values=list(restrict))
        elif typing.get_origin(hint) is Literal:
            spec.update(kind="choice", values=list(typing.get_args(hint)))
        elif hint is bool:
            spec.update(kind="bool")
        elif hint is int:
            spec.update(kind="int", min=1, max=MAX_PITS if name == "pits" else MAX_SEEDS)
        else:
            spec.update(kind="counts" if name == "capture_counts" else "seconds")
        spec["applies_when"] = {k: list(v) for k, v in APPLIES_WHEN.get(name, {}).items()}
        fields.append(spec)
    return fields
