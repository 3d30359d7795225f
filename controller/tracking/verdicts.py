"""What the referee tells: the steps it recognised, the flags it raised, where it believes every
seed is. Read by the daemon, the journal and the benches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.leds.patterns import GuidanceState, HandGuidance
from controller.rules import Phase, Place, Step, StepFollower

# Flags that judge no hand: the cups at rest disagree with the belief, or a cell is faulty.
BOARD_MISMATCH = "board_mismatch"
SENSOR_FAULT = "sensor_fault"


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


def next_kind(steps: list[Step]) -> str:
    """pickup | sow | capture | sweep | none: the kind of the first of the steps due."""
    return steps[0].kind.value if steps else "none"


def phase_of(game: StepFollower, blocked: bool) -> str:
    """start | sowing | relay | capturing | sweeping | over | blocked (a flag waits): where
    the game is in a move, the hand furthest in it first."""
    if game.over:
        return "over"
    if blocked:
        return "blocked"
    if game.pending_sweeps:
        return "sweeping"
    phases = [game.hands[p].phase.value for p in game.active_players()]
    for phase in ("capturing", "relay", "sowing", "start"):
        if phase in phases:
            return phase
    return "start"


def guidance_of(
    game: StepFollower, flags: list[Flag], places: list[Place], mismatch: dict[Place, str]
) -> GuidanceState:
    """What the lights should show (controller.leds.patterns): the next steps of `game`, the
    newest active flag of a hand's mistake, and the cups at rest that disagree (`mismatch`)."""
    position = game.position()
    flag = next(
        (f for f in reversed(flags) if f.active and f.kind not in (BOARD_MISMATCH, SENSOR_FAULT)),
        None,
    )
    steps = game.expected()
    kind = next_kind(steps)
    last = game.completed[-1] if game.completed else None
    return GuidanceState(
        to_move=position.to_move,
        expected_kind=kind,
        expected=[s.at for s in steps if s.at is not None],
        relay=any(game.hands[p].phase is Phase.RELAY for p in game.active_players()),
        mover=steps[0].player if steps else position.to_move,
        flag_kind=None if flag is None else flag.kind,
        flag_at=None if flag is None else flag.at,
        flag_expected=[] if flag is None else list(flag.expected),
        mismatch=mismatch,
        extra_turn=last is not None and kind == "pickup" and last.player == position.to_move,
        over=position.over,
        winner=None if position.outcome is None else position.outcome.winner,
        places=places,
        hands=_opening_hands(game, steps) if position.to_move is None else {},
    )


def _opening_hands(game: StepFollower, steps: list[Step]) -> dict[int, HandGuidance]:
    """Each hand's own next step in the simultaneous opening (the lights tell them apart)."""
    hands: dict[int, HandGuidance] = {}
    for p in game.active_players():
        own = [s for s in steps if s.player == p]
        if own:
            hands[p] = HandGuidance(
                own[0].kind.value,
                [s.at for s in own if s.at is not None],
                game.hands[p].phase is Phase.RELAY,
            )
    return hands
