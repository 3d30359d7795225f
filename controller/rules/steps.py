"""Places and steps: a move as the hands perform it (RULES.md sections 1 and 2).

>>> Step.sow(0, Place(1, 3)).to_json()
{'player': 0, 'step': 'sow', 'at': [1, 3]}
>>> Step.from_json({"player": 1, "step": "capture", "from": [0, 2]})
Step(kind=<StepKind.CAPTURE: 'capture'>, player=1, at=Place(player=0, pit=2), to_player=None)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, NamedTuple

STORE: Literal["store"] = "store"


class Place(NamedTuple):
    """A pit `(player, index)` or a store `(player, "store")`, in RULES.md coordinates."""

    player: int
    pit: int | Literal["store"]

    @property
    def is_store(self) -> bool:
        return self.pit == STORE

    def to_json(self) -> list[int | str]:
        return [self.player, self.pit]

    @staticmethod
    def from_json(value: Any) -> Place:
        """Parse `[player, index]` or `[player, "store"]`; ValueError names what is wrong."""
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or value[0] not in (0, 1)
            or isinstance(value[0], bool)
        ):
            raise ValueError(
                f"{value!r} is not a place: expected [player, index] with player 0 or 1"
            )
        index = value[1]
        if index == STORE:
            return Place(int(value[0]), STORE)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ValueError(f'{value!r} is not a place: index must be a pit number or "store"')
        return Place(int(value[0]), index)

    def __str__(self) -> str:
        return json.dumps(self.to_json())


class StepKind(StrEnum):
    PICKUP = "pickup"
    SOW = "sow"
    CAPTURE = "capture"
    SWEEP = "sweep"
    EXTRA_TURN = "extra_turn"
    END_TURN = "end_turn"
    PASS = "pass"
    # The player to move did not start a move within `move_time_limit_s` and the clock's
    # consequence is `pass`: fed by the board's clock, not by hands, and journaled like a step.
    TIMEOUT = "timeout"

    @property
    def physical(self) -> bool:
        """Hands do it and the board can see it; the others only say who moves next."""
        return self in _PHYSICAL


_PHYSICAL = frozenset({StepKind.PICKUP, StepKind.SOW, StepKind.CAPTURE, StepKind.SWEEP})


@dataclass(frozen=True)
class Step:
    """One step. `player` is the hand that makes it (for `pass`: the player who passes)."""

    kind: StepKind
    player: int
    at: Place | None = None
    to_player: int | None = None

    @staticmethod
    def pickup(player: int, at: Place) -> Step:
        return Step(StepKind.PICKUP, player, at)

    @staticmethod
    def sow(player: int, at: Place) -> Step:
        return Step(StepKind.SOW, player, at)

    @staticmethod
    def capture(player: int, pit: Place) -> Step:
        return Step(StepKind.CAPTURE, player, pit)

    @staticmethod
    def sweep(player: int, pit: Place, to_player: int) -> Step:
        return Step(StepKind.SWEEP, player, pit, to_player)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "step": self.kind.value}
        if self.at is not None:
            key = "from" if self.kind in (StepKind.CAPTURE, StepKind.SWEEP) else "at"
            out[key] = self.at.to_json()
        if self.to_player is not None:
            out["to_player"] = self.to_player
        return out

    @staticmethod
    def from_json(value: Any) -> Step:
        """Parse a step object as written in records; ValueError names the bad field."""
        if not isinstance(value, dict):
            raise ValueError("a step must be an object")
        try:
            kind = StepKind(str(value.get("step")))
        except ValueError:
            kinds = ", ".join(k.value for k in StepKind)
            raise ValueError(f"field 'step': {value.get('step')!r} is not one of {kinds}") from None
        player = value.get("player")
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError(f"field 'player': {player!r} is not 0 or 1")
        at: Place | None = None
        if kind.physical:
            key = "from" if kind in (StepKind.CAPTURE, StepKind.SWEEP) else "at"
            raw = value.get(key, value.get("at" if key == "from" else "from"))
            if raw is None:
                raise ValueError(f"field {key!r} is missing")
            try:
                at = Place.from_json(raw)
            except ValueError as err:
                raise ValueError(f"field {key!r}: {err}") from None
        to_player = None
        if kind is StepKind.SWEEP:
            to_player = value.get("to_player")
            if to_player not in (0, 1) or isinstance(to_player, bool):
                raise ValueError(f"field 'to_player': {to_player!r} is not 0 or 1")
        return Step(kind, int(player), at, to_player)

    def __str__(self) -> str:
        where = f"({self.at})" if self.at is not None else ""
        to = f"->{self.to_player}" if self.to_player is not None else ""
        return f"{self.kind.value}{where}{to} by {self.player}"
