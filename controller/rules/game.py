"""A game played by whole moves: the fast path, and the step lists of each move.

>>> game = Game("congkak", {"pits": 5})
>>> game.legal_moves()
[0, 1, 2, 3, 4]
>>> game.play(0)                       # RULES.md 4: pit 0 first ends in the own store (A)
>>> game.to_move, game.stores()
(0, (1, 0))
>>> [str(s) for s in game.steps(1)][:3]
['pickup([0, 1]) by 0', 'sow([0, 2]) by 0', 'sow([0, 3]) by 0']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .core import Outcome, PositionHistory, Rules, Termination, random_playout
from .options import Options, Variant
from .position import Position
from .steps import Step


class IllegalMoveError(ValueError):
    """A move that the rules do not allow here; the message says why."""


class Game:
    """A game from its start (or a given position), played one whole move at a time."""

    def __init__(
        self,
        variant: str | Variant | Rules = "kalah",
        options: Mapping[str, Any] | Options | None = None,
        *,
        start: Position | None = None,
    ) -> None:
        if isinstance(variant, Rules):
            self.rules = variant
        elif isinstance(options, Options):
            name = variant if isinstance(variant, str) else variant.name
            self.rules = Rules(options, name)
        else:
            self.rules = Rules.for_variant(variant, options)
        rules = self.rules
        if start is None:
            self.board = rules.start_board()
            self.to_move: int | None = None if rules.options.simultaneous_opening else 0
            self.outcome: Outcome | None = None
        else:
            self.board = start.board(rules)
            self.to_move = start.to_move
            self.outcome = start.outcome
        self.ply = 0
        self.history = PositionHistory()
        self._legal: list[int] | None = None
        if self.to_move is not None and self.outcome is None:
            self.history.remember(rules, self.board, self.to_move)

    # -- queries --------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.outcome is not None

    def stores(self) -> tuple[int, int]:
        return self.rules.stores_of(self.board)

    def pits(self, player: int) -> tuple[int, ...]:
        return self.rules.pits_of(self.board, player)

    def position(self) -> Position:
        return Position.from_board(self.rules, self.board, self.to_move, outcome=self.outcome)

    def legal_moves(self) -> list[int]:
        """Pit indices the player to move may start from (empty once the game is over)."""
        if self._legal is None:
            if self.outcome is not None or self.to_move is None:
                self._legal = []
            else:
                self._legal = self.rules.legal_moves(self.board, self.to_move)
        return self._legal

    def why_illegal(self, pit: Any) -> str | None:
        """None when `pit` is a legal move now, else the reason in words."""
        if self.outcome is not None:
            return "the game is over"
        if self.to_move is None:
            return "the simultaneous opening is played step by step, not by whole moves"
        if not isinstance(pit, int) or isinstance(pit, bool):
            return f"{pit!r} is not a pit number"
        n = self.rules.n
        if not 0 <= pit < n:
            return f"pit {pit} does not exist (pits are 0 to {n - 1})"
        if pit in self.legal_moves():
            return None
        if self.rules.is_closed(self.to_move, pit):
            return f"pit {pit} is closed"
        if not self.board[self.rules.index(self.to_move, pit)]:
            return f"pit {pit} of player {self.to_move} is empty"
        if self.rules.options.must_feed and not self.rules.row_total(self.board, 1 - self.to_move):
            return "the opponent has no seeds and this move gives them none (must feed)"
        return "a grand slam is forbidden"

    # -- playing --------------------------------------------------------------------------------

    def play(self, pit: int) -> None:
        """Play a whole move of the player to move; IllegalMoveError if it is not legal."""
        if pit not in self.legal_moves():
            raise IllegalMoveError(self.why_illegal(pit) or "illegal move")
        player = self.to_move
        assert player is not None
        rules = self.rules
        extra = rules.apply_move(self.board, player, pit)
        self.ply += 1
        self._legal = None
        self._settle(player if extra else 1 - player)

    def _settle(self, candidate: int) -> None:
        rules = self.rules
        settlement = rules.settle(self.board, candidate)
        termination = settlement.termination
        if (
            termination is None
            and rules.options.cycle != "none"
            and settlement.to_move is not None
            and self.history.remember(rules, self.board, settlement.to_move)
        ):
            termination = Termination.CYCLE
        if termination is not None:
            rules.apply_sweep(self.board, termination)
            self.outcome = rules.outcome(self.board, termination)
            self.to_move = None
        else:
            self.to_move = settlement.to_move

    def random_playout(self, random: Callable[[], float]) -> int:
        """Finish the game with uniformly random legal moves (for search); returns the moves.

        `random` is a `random.Random().random`-like function. The same rules as `play`, inlined
        (see `core.random_playout`).
        """
        if self.outcome is not None:
            return 0
        if self.to_move is None:
            raise IllegalMoveError("the simultaneous opening is played step by step")
        moves, self.outcome = random_playout(
            self.rules, self.board, self.to_move, random, self.history
        )
        self.ply += moves
        self.to_move = None
        self._legal = None
        return moves

    def steps(self, pit: int) -> list[Step]:
        """The full ordered step list of playing `pit` now (the game is not changed).

        Includes captures, the end sweep if the move ends the game, and the bookkeeping steps
        (`extra_turn`, `end_turn`, `pass`).
        """
        from .follower import StepFollower

        if pit not in self.legal_moves():
            raise IllegalMoveError(self.why_illegal(pit) or "illegal move")
        follower = StepFollower.from_game(self)
        return follower.complete_move(pit)

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.board = list(self.board)
        other.history = self.history.copy()
        other._legal = None
        return other

    def play_all(self, moves: Sequence[int]) -> None:
        for pit in moves:
            self.play(pit)
