"""A position as the outside world sees it (RULES.md section 5 shape), and its validity.

Validity of a position (could seeds lie like this at all?) is kept apart from legality of a
move, as python-chess keeps `Board.status()` apart from `is_legal`: the referee checks a sensed
position with `position_problems` before it ever asks the rules what may happen next.

>>> from controller.rules.core import Rules
>>> rules = Rules.for_variant("kalah")
>>> p = Position.start(rules)
>>> p.to_json()["pits"]
[[3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3]]
>>> position_problems(rules, Position(((3,) * 6, (3,) * 5 + (-1,)), (0, 0), 0), total=36)
['pit [1, 5] holds -1 seeds', 'the board holds 32 seeds, the game has 36']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .core import Outcome, Rules
from .steps import Place


@dataclass(frozen=True)
class Position:
    """Seeds in pits and stores, seeds in each hand, whose turn, and the outcome once over."""

    pits: tuple[tuple[int, ...], tuple[int, ...]]
    stores: tuple[int, int]
    to_move: int | None
    hands: tuple[int, int] = (0, 0)
    outcome: Outcome | None = None

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @staticmethod
    def start(rules: Rules, to_move: int = 0) -> Position:
        return Position.from_board(
            rules, rules.start_board(), None if rules.options.simultaneous_opening else to_move
        )

    @staticmethod
    def from_board(
        rules: Rules,
        board: Sequence[int],
        to_move: int | None,
        hands: tuple[int, int] = (0, 0),
        outcome: Outcome | None = None,
    ) -> Position:
        return Position(
            (rules.pits_of(board, 0), rules.pits_of(board, 1)),
            rules.stores_of(board),
            to_move,
            hands,
            outcome,
        )

    def board(self, rules: Rules) -> list[int]:
        board = [0] * rules.size
        for p in (0, 1):
            for i, seeds in enumerate(self.pits[p]):
                board[rules.index(p, i)] = seeds
            board[rules.stores[p]] = self.stores[p]
        return board

    @property
    def total(self) -> int:
        return sum(map(sum, self.pits)) + sum(self.stores) + sum(self.hands)

    def to_json(self) -> dict[str, Any]:
        return {
            "pits": [list(self.pits[0]), list(self.pits[1])],
            "stores": list(self.stores),
            "to_move": self.to_move,
            "over": self.over,
            "winner": None if self.outcome is None else self.outcome.result(),
        }


def position_problems(rules: Rules, position: Position, total: int | None = None) -> list[str]:
    """Why `position` cannot occur on this board (empty when it is valid).

    Checks shape, negative counts, seeds in closed pits, and seed conservation against `total`.
    """
    problems: list[str] = []
    for p in (0, 1):
        row = position.pits[p]
        if len(row) != rules.n:
            problems.append(f"row {p} has {len(row)} pits, the board has {rules.n}")
            continue
        for i, seeds in enumerate(row):
            if seeds < 0:
                problems.append(f"pit {Place(p, i)} holds {seeds} seeds")
            elif seeds and rules.is_closed(p, i):
                problems.append(f"closed pit {Place(p, i)} holds {seeds} seeds")
        if position.stores[p] < 0:
            problems.append(f"store of player {p} holds {position.stores[p]} seeds")
    if position.to_move not in (0, 1, None):
        problems.append(f"to_move is {position.to_move!r}, not 0, 1 or null")
    if total is not None and position.total != total:
        problems.append(f"the board holds {position.total} seeds, the game has {total}")
    return problems
