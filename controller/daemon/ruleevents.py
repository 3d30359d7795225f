"""Teach mode's explanations: the rule events of a game, read from its recognised steps.

A child who has never played sees the lights say where the next seed goes, but not why the
hand must pick up again or why seeds went to a store. Each rule event the steps show is named
here once, with the player it happens to and where, for the page to say in one sentence:

- `relay`: a pickup in the middle of a move (the last seed fell into a pit with seeds);
- `capture`: a run of captures (`rule`: the variant's capture rule, opposite or counts);
- `extra_turn`: the last seed fell into the mover's own store;
- `pass`: a player with no seeds passes;
- `sweep`: at the end, the seeds left in the pits go to the stores;
- `grand_slam`: an oware move that would have taken every opposing seed captures nothing.

(Must-feed needs no steps: the page sees an empty row in the position and the option.)
Events are numbered by the index of the step that shows them, so a page that missed a
snapshot still tells each event once, and one taken back (a retracted step) disappears.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules import Rules, Step, StepFollower
from controller.rules.steps import StepKind

from .status import RuleEvent

EVENTS_SHOWN = 12  # the newest events in a snapshot


def rule_events(steps: Sequence[Step], capture_rule: str) -> list[RuleEvent]:
    """Every rule event of `steps` (a whole game's, in order)."""
    events: list[RuleEvent] = []
    sowed: set[int] = set()  # players who sowed since their move began
    for n, step in enumerate(steps):
        kind = step.kind
        if kind is StepKind.SOW:
            sowed.add(step.player)
        elif kind is StepKind.PICKUP and step.player in sowed:
            events.append(_event(n, "relay", step))
        elif kind in (StepKind.CAPTURE, StepKind.SWEEP):
            _run(events, n, step, capture_rule)
        elif kind in (StepKind.EXTRA_TURN, StepKind.PASS):
            events.append(_event(n, kind.value, step))
        if kind in (StepKind.END_TURN, StepKind.EXTRA_TURN, StepKind.PASS):
            sowed.discard(step.player)
    return events


def _event(n: int, kind: str, step: Step, rule: str = "") -> RuleEvent:
    at = None if step.at is None else step.at.to_json()
    return {"n": n, "kind": kind, "player": step.player, "at": at, "places": 1, "rule": rule}


def _run(events: list[RuleEvent], n: int, step: Step, capture_rule: str) -> None:
    """A capture or sweep step: one more place of the run the previous step began, or a new
    event."""
    kind = "capture" if step.kind is StepKind.CAPTURE else "sweep"
    last = events[-1] if events else None
    if last is not None and last["kind"] == kind and last["n"] + last["places"] == n:
        last["places"] += 1
        return
    events.append(_event(n, kind, step, capture_rule if kind == "capture" else ""))


class Explainer:
    """The game's rule events. The journal holds the physical steps only; they are fed to a
    `StepFollower` of the game's rules, which adds what each led to (end of turn, extra turn,
    pass). New steps are fed as they come; a step taken back starts the replay again."""

    def __init__(self) -> None:
        self._rules: Rules | None = None
        self._follower: StepFollower | None = None
        self._fed: list[Step] = []  # the journal's steps fed so far
        self._steps: list[Step] = []  # with what they led to
        self._events: list[RuleEvent] = []
        self._slams: list[RuleEvent] = []  # (the board shows these, not the steps)

    def get_status(self, rules: Rules, steps: Sequence[Step]) -> list[RuleEvent]:
        fed = self._fed
        same = (
            self._follower is not None
            and rules is self._rules
            and len(steps) >= len(fed)
            and (not fed or steps[len(fed) - 1] is fed[-1])
        )
        if not same:
            self._rules, self._follower = rules, StepFollower.new(rules)
            self._fed, self._steps, self._events, self._slams = [], [], [], []
        if len(steps) > len(self._fed):
            self._feed(steps[len(self._fed) :])
            events = rule_events(self._steps, rules.options.capture) + self._slams
            self._events = sorted(events, key=lambda e: e["n"])[-EVENTS_SHOWN:]
        return [e.copy() for e in self._events]  # (a published snapshot is never changed)

    def _feed(self, steps: Sequence[Step]) -> None:
        assert self._follower is not None
        for step in steps:
            verdict = self._follower.feed(step)
            self._fed.append(step)
            if step.kind.physical:
                self._steps.append(step)
            if step.kind is StepKind.SOW and any(t.kind is StepKind.END_TURN for t in verdict.then):
                self._grand_slam(step)
            self._steps.extend(verdict.then)

    def _grand_slam(self, step: Step) -> None:
        """The move's last seed fell (no capture followed): was a grand slam spared?"""
        follower = self._follower
        assert follower is not None and step.at is not None
        if step.at.is_store:
            return
        rules = follower.rules
        last = rules.index_of(step.at)
        if rules.spared_grand_slam(follower.board, step.player, last):
            n = len(self._steps) - 1
            self._slams.append(_event(n, "grand_slam", step))
