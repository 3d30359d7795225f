"""What a referee tells: the steps it recognised, the flags it raised, where it believes every
seed is. Shared by both referees (the cases of referee.py, the one search of hypotheses.py) and
read by the daemon, the journal and the benches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.rules import Place, Step, StepFollower


@dataclass
class Flag:
    t: float
    kind: str
    at: Place | None
    expected: list[Place]
    resolved_t: float | None = None
    detail: str = ""
    serial: int = 0  # unique among the flags of a referee and of all its copies
    # The hand whose mistake it is (None: nobody's, such as a sensor's fault or a seed that
    # is not part of the game), so the page can word it for that player.
    player: int | None = None
    shown_t: float | None = None  # when it was raised (`t` may be when the mistake was made)
    # When it was last renamed (its kind or place: a wrong pit found to be a seed lost before
    # it): the light moved then, and what it names was shown only from then on.
    named_t: float | None = None

    @property
    def active(self) -> bool:
        return self.resolved_t is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "t": round(self.t, 4),
            "kind": self.kind,
            "at": None if self.at is None else self.at.to_json(),
            "expected": [p.to_json() for p in self.expected],
        }
        if self.resolved_t is not None:
            out["resolved_t"] = round(self.resolved_t, 4)
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class RecognisedStep:
    t: float
    step: Step
    # A sow: when its seed fell (the cup's onset), for a hand's tempo (see `_choose`).
    fell: float | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 4), **self.step.to_json()}


def belief_json(game: StepFollower, board: list[int], hands: list[int]) -> dict[str, Any]:
    """A belief as SIMULATION.md's report has it: the seeds on `board` and in `hands`, and
    whose move it is in `game`."""
    rules = game.rules
    position = game.position()
    return {
        "pits": [list(rules.pits_of(board, 0)), list(rules.pits_of(board, 1))],
        "stores": list(rules.stores_of(board)),
        "hand": hands,
        "to_move": position.to_move,
        "over": position.over,
        "winner": None if position.outcome is None else position.outcome.result(),
    }
