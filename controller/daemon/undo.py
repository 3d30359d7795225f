"""Guided undo: the hands walk the last move back, one step at a time, as the lights show.

An undo used to show every place that differs from the position before the move at once
(too few / too many): a relay move of forty seeds lit the whole board, with no order to
follow. Now the move's recognised steps are reversed: a seed sown is taken out again, a
handful picked up is put back, seeds captured go from the store back to their pit. The board
layouts between the steps (seeds in the hand are on no scale) are the path; the setup weighs
the board against the next layout of the path, lights only the places that step changes and
moves on when the board holds it (skipping ahead when the hands were quicker than a check).
The referee starts when the board holds the position before the move, as after any setup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from controller.rules import Place, Rules, Step, StepFollower, StepKind

Layout = dict[Place, int]


@dataclass
class UndoPath:
    """The layouts from the board as the move left it (first) back to before the move (last),
    and how far the hands have come (`at`: the index of the layout the board last held)."""

    layouts: list[Layout]
    at: int = 0

    @property
    def done(self) -> bool:
        return self.at >= len(self.layouts) - 1

    def next_layout(self) -> Layout:
        return self.layouts[min(self.at + 1, len(self.layouts) - 1)]


def board_layout(rules: Rules, follower: StepFollower) -> Layout:
    """The seeds on the board (not in a hand) at each place."""
    return {rules.place(idx): count for idx, count in enumerate(follower.board)}


def forward_layouts(rules: Rules, before: Sequence[Step], move: Sequence[Step]) -> list[Layout]:
    """The layout before the move and after each of its physical steps."""
    follower = StepFollower.new(rules)
    for step in before:
        follower.feed(step)
    layouts = [board_layout(rules, follower)]
    for step in move:
        follower.feed(step)
        if step.kind.physical:
            layouts.append(board_layout(rules, follower))
    return layouts


def undo_path(rules: Rules, before: Sequence[Step], move: Sequence[Step]) -> UndoPath:
    """The layouts after each action of `reverse_actions` (a capture taken back is two: the
    seeds out of the store, then into their pit), from the board as the move left it."""
    forward = forward_layouts(rules, before, move)
    layouts = [dict(forward[-1])]
    for action in reverse_actions(rules, before, move, 0.0):
        layout = dict(layouts[-1])
        place = Place.from_json(action["at"])
        layout[place] += action["n"] if action["action"] == "drop" else -action["n"]
        layouts.append(layout)
    assert layouts[-1] == forward[0], "the steps back do not lead to the position before"
    return UndoPath(layouts)


def reverse_actions(
    rules: Rules, before: Sequence[Step], move: Sequence[Step], tempo_s: float
) -> list[dict[str, Any]]:
    """The simulated hands' actions (SIMULATION.md JSON) that take `move` back, step by step:
    the reverse of each physical step, the last first, `tempo_s` apart."""
    layouts = forward_layouts(rules, before, move)
    physical = [s for s in move if s.kind.physical]
    actions: list[dict[str, Any]] = []
    for k in range(len(physical) - 1, -1, -1):
        for action in _reverse(physical[k], layouts[k], layouts[k + 1]):
            _append(actions, action)
    return [{"t": round(tempo_s * (k + 1), 3), **a} for k, a in enumerate(actions)]


def _append(actions: list[dict[str, Any]], action: dict[str, Any]) -> None:
    """Add `action`, or cancel it against the one before when it undoes that one (the seed
    of a capture put back into its pit, then taken out as the seed sown there): the board
    would pass twice through one layout, and nobody need do either."""
    last = actions[-1] if actions else None
    inverse = {"take": "drop", "drop": "take"}
    if (
        last is not None
        and last["at"] == action["at"]
        and last["n"] == action["n"]
        and inverse.get(last["action"]) == action["action"]
    ):
        actions.pop()
    else:
        actions.append(action)


def _reverse(step: Step, before: Layout, after: Layout) -> list[dict[str, Any]]:
    assert step.at is not None
    at = step.at
    hand = step.player
    if step.kind is StepKind.SOW:
        return [{"action": "take", "at": at.to_json(), "n": 1, "hand": hand}]
    if step.kind is StepKind.PICKUP:
        return [{"action": "drop", "at": at.to_json(), "n": before[at], "hand": hand}]
    # A capture or sweep moved the pit's seeds into a store: they go back.
    taker = step.to_player if step.kind is StepKind.SWEEP else None
    store = Place(step.player if taker is None else taker, "store")
    n = before[at] - after[at]
    assert after[store] - before[store] == n, (step, before, after)
    return [
        {"action": "take", "at": store.to_json(), "n": n, "hand": hand},
        {"action": "drop", "at": at.to_json(), "n": n, "hand": hand},
    ]
