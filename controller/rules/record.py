"""Game records and their replay (RULES.md section 5). Text in, dicts out: no file I/O here.

>>> lines = list(replay(parse_record('{"variant": "oware", "moves": [2, 5]}')))
>>> lines[0]["pits"], lines[0]["to_move"]
([[4, 4, 0, 5, 5, 5], [5, 4, 4, 4, 4, 4]], 1)
>>> list(replay(parse_record('{"variant": "kalah", "moves": [2, 9]}')))
Traceback (most recent call last):
...
controller.rules.record.RecordError: ply 2: pit 9: pit 9 does not exist (pits are 0 to 5)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .core import Rules
from .follower import StepFollower
from .game import Game
from .options import OptionError, find_variant
from .position import Position, position_problems
from .steps import Step


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names the field or ply and why."""


@dataclass(frozen=True)
class Record:
    variant: str
    options: Mapping[str, Any] = field(default_factory=dict)
    moves: tuple[int, ...] = ()
    steps: tuple[Step, ...] | None = None
    # A start other than the variant's (a handicap round's layout): {pits, stores, to_move}.
    start: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.variant, "options": dict(self.options)}
        if self.start is not None:
            out["start"] = dict(self.start)
        if self.steps is not None:
            out["steps"] = [s.to_json() for s in self.steps]
        out["moves"] = list(self.moves)
        return out


def parse_record(text: str, *, variant: str | None = None) -> Record:
    """Read a record; `variant` stands in for a missing `variant` field (or overrides it)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(
            f"line {err.lineno} column {err.colno}: invalid JSON: {err.msg}"
        ) from None
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    # Fields other than these four (players' names, a date) are left alone, not refused.
    name = variant if variant is not None else data.get("variant")
    if name is None:
        raise RecordError("field 'variant' is missing")
    if not isinstance(name, str):
        raise RecordError(f"field 'variant': {name!r} is not a string")
    options = data.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError("field 'options': expected an object of option names and values")
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("field 'moves': expected a list of pit numbers")
    for k, pit in enumerate(moves):
        if not isinstance(pit, int) or isinstance(pit, bool):
            raise RecordError(
                f"field 'moves': entry {k + 1} is {json.dumps(pit)}, not a pit number"
            )
    steps: tuple[Step, ...] | None = None
    if "steps" in data:
        raw_steps = data["steps"]
        if not isinstance(raw_steps, list):
            raise RecordError("field 'steps': expected a list of step objects")
        parsed = []
        for k, raw in enumerate(raw_steps):
            try:
                parsed.append(Step.from_json(raw))
            except ValueError as err:
                raise RecordError(f"field 'steps': step {k + 1}: {err}") from None
        steps = tuple(parsed)
    if "moves" not in data and steps is None:
        raise RecordError("field 'moves' is missing")
    start = data.get("start")
    if start is not None and not isinstance(start, dict):
        raise RecordError("field 'start': expected an object {pits, stores, to_move}")
    return Record(name, options, tuple(moves), steps, start)


def start_json(position: Position) -> dict[str, Any]:
    """A start layout as a record writes it (`start`: pits, stores, to_move)."""
    return {
        "pits": [list(position.pits[0]), list(position.pits[1])],
        "stores": list(position.stores),
        "to_move": position.to_move,
    }


def start_position(start: Mapping[str, Any], rules: Rules) -> Position:
    """A record's `start` (a handicap round's layout) as a position of `rules`; RecordError
    names what does not fit."""
    try:
        pits = tuple(tuple(int(n) for n in row) for row in start["pits"])
        stores = tuple(int(n) for n in start["stores"])
        to_move = start.get("to_move")
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"field 'start': expected {{pits, stores, to_move}} ({err})") from None
    if len(pits) != 2 or any(len(row) != rules.n for row in pits) or len(stores) != 2:
        raise RecordError(f"field 'start': expected two rows of {rules.n} pits and two stores")
    if to_move not in (0, 1, None) or isinstance(to_move, bool):
        raise RecordError(f"field 'start': to_move {to_move!r} is not 0, 1 or null")
    position = Position((pits[0], pits[1]), (stores[0], stores[1]), to_move)
    problems = position_problems(rules, position)
    if problems:
        raise RecordError(f"field 'start': {problems[0]}")
    return position


def record_rules(record: Record, overrides: Mapping[str, Any] | None = None) -> Rules:
    """The rules of a record: its variant and options, then `overrides` on top."""
    try:
        return Rules.for_variant(
            find_variant(record.variant), {**record.options, **(overrides or {})}
        )
    except OptionError as err:
        field_name = "variant" if str(err).startswith("unknown variant") else "options"
        raise RecordError(f"field {field_name!r}: {err}") from None


def replay(record: Record, overrides: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """One RULES.md section 5 object per move, after that move (end sweep applied)."""
    rules = record_rules(record, overrides)
    start = None if record.start is None else start_position(record.start, rules)
    if record.steps is None:
        yield from _replay_moves(rules, record.moves, start)
    else:
        yield from _replay_steps(rules, record.steps, record.moves, start)


def _line(ply: int, player: int, pit: int, position: dict[str, Any]) -> dict[str, Any]:
    return {"ply": ply, "player": player, "pit": pit, **position}


def _replay_moves(
    rules: Rules, moves: tuple[int, ...], start: Position | None = None
) -> Iterator[dict[str, Any]]:
    game = Game(rules, start=start)
    if game.to_move is None and moves:
        raise RecordError(
            "ply 1: a simultaneous opening cannot be told by pit choices alone: the record needs 'steps'"
        )
    for ply, pit in enumerate(moves, start=1):
        player = game.to_move
        reason = game.why_illegal(pit)
        if reason is not None or player is None:
            raise RecordError(f"ply {ply}: pit {pit}: {reason}")
        game.play(pit)
        yield _line(ply, player, pit, game.position().to_json())


def _replay_steps(
    rules: Rules, steps: tuple[Step, ...], moves: tuple[int, ...], start: Position | None = None
) -> Iterator[dict[str, Any]]:
    follower = (
        StepFollower.new(rules)
        if start is None
        else StepFollower.from_game(Game(rules, start=start))
    )
    reported = 0

    def finished_moves() -> Iterator[dict[str, Any]]:
        nonlocal reported
        # The move that ends the game is reported once its end sweep is done.
        if follower.pending_sweeps:
            return
        position = follower.position()
        state = position.to_json()
        if any(position.hands):
            state["hands"] = list(position.hands)
        while reported < len(follower.completed):
            move = follower.completed[reported]
            reported += 1
            yield _line(reported, move.player, move.pit, state)

    for k, step in enumerate(steps, start=1):
        try:
            verdict = follower.feed(step)
        except ValueError as err:  # a place that is not on this board
            raise RecordError(f"step {k} ({step}): {err}") from None
        if not verdict.accepted:
            raise RecordError(f"step {k} ({step}): {verdict.reason}")
        yield from finished_moves()
    # `moves` may list every pit choice of the game, those the steps made included (a board
    # writes both): the ones the steps already made are checked, not played again.
    made = [move.pit for move in follower.completed]
    if made and list(moves[: len(made)]) == made:
        moves = moves[len(made) :]
    elif made and moves and len(moves) >= len(made):
        raise RecordError(
            f"field 'moves': the first {len(made)} entries do not match the pits the steps "
            f"played ({made}); list either all pit choices or only those after the steps"
        )
    for pit in moves:
        ply = len(follower.completed) + 1
        if follower.pending_sweeps:
            raise RecordError(f"ply {ply}: pit {pit}: the game is over (end sweep pending)")
        if follower.opening or any(
            h.phase.value in ("sowing", "relay", "capturing") for h in follower.hands
        ):
            raise RecordError(f"ply {ply}: pit {pit}: the steps end in the middle of a move")
        player = follower.to_move
        if follower.over or player is None:
            raise RecordError(f"ply {ply}: pit {pit}: the game is over")
        game = Game(rules, start=follower.position())
        game.history = follower.history
        reason = game.why_illegal(pit)
        if reason is not None:
            raise RecordError(f"ply {ply}: pit {pit}: {reason}")
        follower.complete_move(pit)
        yield from finished_moves()
    # Steps that stop before the end sweep: the sweep is implied by the game's end.
    while follower.pending_sweeps:
        follower.feed(follower.expected()[0])
    yield from finished_moves()
