"""The step follower: fed one observed hand step at a time, it says what may come next.

This is what the referee drives: the board sees a pickup or a seed landing, feeds it here, and
lights whatever `expected()` says. A step that breaks the rules is rejected with what was
expected instead, and the follower's state is left as it was, so play continues once the hands
make the right step.

>>> from controller.rules.core import Rules
>>> f = StepFollower.new(Rules.for_variant("kalah"))
>>> [str(s.at) for s in f.expected()][:2]
['[0, 0]', '[0, 1]']
>>> f.feed(Step.pickup(0, Place(0, 4))).expected
(Step(kind=<StepKind.SOW: 'sow'>, player=0, at=Place(player=0, pit=5), to_player=None),)
>>> verdict = f.feed(Step.sow(0, Place(0, 4)))      # a seed back into the pit it came from
>>> verdict.accepted, verdict.mistake, verdict.reason
(False, <Mistake.WRONG_PLACE: 'wrong_place'>, 'a seed in [0, 4], expected [0, 5]')
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from .core import Outcome, PositionHistory, Rules, Termination
from .position import Position
from .steps import Place, Step, StepKind

if TYPE_CHECKING:
    from .game import Game


class Phase(StrEnum):
    IDLE = "idle"  # not this hand's turn
    START = "start"  # may pick up a pit to start a move
    SOWING = "sowing"  # seeds in hand, sowing one by one
    RELAY = "relay"  # last seed fell in a pit with seeds: pick it all up again
    CAPTURING = "capturing"  # capture steps pending
    DONE = "done"  # finished its part of a simultaneous opening


class Mistake(StrEnum):
    """What kind of wrong step was fed (the referee turns these into flags)."""

    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_START = "wrong_start"  # a pickup from a pit that may not be played
    WRONG_PICKUP = "wrong_pickup"  # a pickup while sowing, or from the wrong relay pit
    WRONG_PLACE = "wrong_place"  # a seed where another place was expected
    SECOND_SEED = "second_seed"  # a second seed in the place that just got one
    OPPONENT_STORE = "opponent_store"  # a seed in the opponent's store, never sown
    WRONG_CAPTURE = "wrong_capture"
    WRONG_SWEEP = "wrong_sweep"
    OUT_OF_ORDER = "out_of_order"  # a step of another kind than the one expected
    UNEXPECTED_BOOKKEEPING = "unexpected_bookkeeping"


@dataclass(frozen=True)
class Verdict:
    """The answer to one fed step.

    `then` lists the bookkeeping steps (extra_turn, end_turn, pass) the accepted step led to;
    `expected` is what may come next (after a rejection: what was expected instead).
    """

    step: Step
    accepted: bool
    expected: tuple[Step, ...]
    then: tuple[Step, ...] = ()
    mistake: Mistake | None = None
    reason: str = ""


@dataclass
class Hand:
    """One player's hand and where its move stands."""

    phase: Phase = Phase.IDLE
    seeds: int = 0
    sequence: tuple[int, ...] = ()  # the places this lap sows, in order
    sown: int = 0  # seeds of this lap already sown
    last: int = -1  # where the last seed fell
    relay_at: int = -1
    pending: list[int] = field(default_factory=list)
    move_pit: int = -1  # the pit this move started from

    def copy(self) -> Hand:
        """An independent copy (as `dataclasses.replace`, without its look at the fields:
        the referee's search copies hands some hundred thousand times a game)."""
        other = Hand.__new__(Hand)
        other.__dict__.update(self.__dict__)
        other.pending = list(self.pending)
        return other


@dataclass(frozen=True)
class CompletedMove:
    player: int
    pit: int


class StepFollower:
    """Follows a game step by step, both hands at once in a simultaneous opening."""

    def __init__(
        self,
        rules: Rules,
        board: list[int],
        to_move: int | None,
        history: PositionHistory | None = None,
        outcome: Outcome | None = None,
    ) -> None:
        self.rules = rules
        self.board = board
        self.hands = (Hand(), Hand())
        self.to_move = to_move
        self.outcome = outcome
        self.history = history if history is not None else PositionHistory()
        self.termination: Termination | None = None
        self.pending_sweeps: list[tuple[int, int]] = []
        self.opening = False
        self.finish_order: list[int] = []
        self.completed: list[CompletedMove] = []
        self._bookkeeping: deque[Step] = deque()
        # `expected()` as last answered (None: to answer again): a step or a timeout changes
        # what comes next, nothing else does (copies share it: it is a tuple)
        self._expected: tuple[Step, ...] | None = None
        if outcome is None and to_move is not None:
            self.hands[to_move].phase = Phase.START

    @classmethod
    def new(cls, rules: Rules, to_move: int = 0) -> StepFollower:
        """A follower at the start of a game (both hands ready in a simultaneous opening)."""
        board = rules.start_board()
        if rules.options.simultaneous_opening:
            follower = cls(rules, board, None)
            follower.opening = True
            for hand in follower.hands:
                hand.phase = Phase.START
            return follower
        history = PositionHistory()
        history.remember(rules, board, to_move)
        return cls(rules, board, to_move, history)

    @classmethod
    def from_game(cls, game: Game) -> StepFollower:
        return cls(game.rules, list(game.board), game.to_move, game.history.copy(), game.outcome)

    def copy(self) -> StepFollower:
        """An independent copy (the rules are shared): the referee keeps one to undo a guess."""
        other = StepFollower.__new__(StepFollower)
        other.__dict__.update(self.__dict__)
        other.board = list(self.board)
        other.hands = (self.hands[0].copy(), self.hands[1].copy())
        other.history = self.history.copy()
        other.pending_sweeps = list(self.pending_sweeps)
        other.finish_order = list(self.finish_order)
        other.completed = list(self.completed)
        other._bookkeeping = deque(self._bookkeeping)
        return other

    # -- what may come next ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.outcome is not None

    def active_players(self) -> list[int]:
        if self.opening:
            return [p for p in (0, 1) if self.hands[p].phase is not Phase.DONE]
        return [] if self.to_move is None else [self.to_move]

    def expected(self) -> list[Step]:
        """Every physical step that may come next, for either hand."""
        if self._expected is None:
            self._expected = tuple(self._expected_now())
        return list(self._expected)

    def _expected_now(self) -> list[Step]:
        if self.outcome is not None:
            return []
        rules = self.rules
        if self.pending_sweeps:
            return [
                Step.sweep(taker, rules.place(idx), taker) for idx, taker in self.pending_sweeps
            ]
        out: list[Step] = []
        for p in self.active_players():
            hand = self.hands[p]
            if hand.phase is Phase.START:
                out.extend(
                    Step.pickup(p, Place(p, pit)) for pit in rules.legal_moves(self.board, p)
                )
            elif hand.phase is Phase.SOWING:
                out.append(Step.sow(p, rules.place(self._next_place(hand))))
            elif hand.phase is Phase.RELAY:
                out.append(Step.pickup(p, rules.place(hand.relay_at)))
            elif hand.phase is Phase.CAPTURING:
                out.extend(Step.capture(p, rules.place(idx)) for idx in hand.pending)
        return out

    def expected_places(self) -> list[Place]:
        """Where the next seed, pickup, capture or sweep may happen (for the LEDs)."""
        seen: list[Place] = []
        for step in self.expected():
            if step.at is not None and step.at not in seen:
                seen.append(step.at)
        return seen

    def position(self) -> Position:
        hands = (self.hands[0].seeds, self.hands[1].seeds)
        return Position.from_board(self.rules, self.board, self.to_move, hands, self.outcome)

    @staticmethod
    def _next_place(hand: Hand) -> int:
        return hand.sequence[hand.sown % len(hand.sequence)]

    # -- feeding steps --------------------------------------------------------------------------

    def feed(self, step: Step) -> Verdict:
        """Accept `step` if the rules allow it now, else reject it and change nothing."""
        if step.kind is StepKind.TIMEOUT:
            return self._time_out(step)
        if not step.kind.physical:
            if self._bookkeeping and self._bookkeeping[0] == step:
                self._bookkeeping.popleft()
                return Verdict(step, True, tuple(self.expected()))
            return self._reject(
                step,
                Mistake.UNEXPECTED_BOOKKEEPING,
                f"{step.kind.value} by {step.player} does not follow here",
            )
        expected = self.expected()
        if not any(_same(step, e) for e in expected):
            mistake, reason = self._diagnose(step, expected)
            return self._reject(step, mistake, reason, expected)
        self._bookkeeping.clear()
        self._apply(step)
        then = tuple(self._bookkeeping)  # what this step led to (cleared above)
        return Verdict(step, True, tuple(self.expected()), then)

    def _time_out(self, step: Step) -> Verdict:
        """The player to move did not start a move in time (`move_time_consequence` = pass):
        the turn passes as if they had no move, and the rules settle who moves next."""
        options = self.rules.options
        if options.move_time_limit_s is None or options.move_time_consequence != "pass":
            return self._reject(
                step, Mistake.UNEXPECTED_BOOKKEEPING, "timeout: this game's clock never passes"
            )
        hand = self.hands[step.player]
        between_moves = hand.phase is Phase.START and not hand.seeds and not self.pending_sweeps
        if self.opening or self.over or self.to_move != step.player or not between_moves:
            return self._reject(
                step,
                Mistake.NOT_YOUR_TURN,
                f"timeout by {step.player}: only the player to move, before their move starts",
            )
        self._bookkeeping.clear()
        self._expected = None
        self._settle(1 - step.player)
        return Verdict(step, True, tuple(self.expected()), tuple(self._bookkeeping))

    def _reject(
        self, step: Step, mistake: Mistake, reason: str, expected: list[Step] | None = None
    ) -> Verdict:
        exp = tuple(self.expected() if expected is None else expected)
        return Verdict(step, False, exp, (), mistake, reason)

    def _diagnose(self, step: Step, expected: list[Step]) -> tuple[Mistake, str]:
        """Name what is wrong with a step that is not among the expected ones."""
        places = ", ".join(sorted({str(e.at) for e in expected if e.at is not None}))
        if self.outcome is not None:
            return Mistake.GAME_OVER, "the game is over"
        if self.pending_sweeps:
            return (
                Mistake.WRONG_SWEEP,
                f"{step.kind.value} at {step.at}: sweep expected from {places}",
            )
        if step.player not in self.active_players():
            return Mistake.NOT_YOUR_TURN, f"player {step.player} is not to move"
        hand = self.hands[step.player]
        at = step.at
        if hand.phase is Phase.START:
            if step.kind is StepKind.PICKUP:
                return (
                    Mistake.WRONG_START,
                    f"pit {at} may not be played, playable: {places or 'none'}",
                )
            return Mistake.OUT_OF_ORDER, f"{step.kind.value} at {at}: pick up one of {places} first"
        if hand.phase is Phase.SOWING:
            if step.kind is StepKind.SOW and at is not None:
                if at.is_store and at.player != step.player:
                    return (
                        Mistake.OPPONENT_STORE,
                        f"a seed in the opponent's store {at}, expected {places}",
                    )
                if hand.last >= 0 and at == self.rules.place(hand.last):
                    return Mistake.SECOND_SEED, f"a second seed in {at}, expected {places}"
                return Mistake.WRONG_PLACE, f"a seed in {at}, expected {places}"
            if step.kind is StepKind.PICKUP:
                return (
                    Mistake.WRONG_PICKUP,
                    f"pickup at {at} with {hand.seeds} seeds still to sow at {places}",
                )
            return Mistake.OUT_OF_ORDER, f"{step.kind.value} at {at}: sow next at {places}"
        if hand.phase is Phase.RELAY:
            if step.kind is StepKind.PICKUP:
                return (
                    Mistake.WRONG_PICKUP,
                    f"pickup at {at}, expected the relay pickup at {places}",
                )
            if step.kind is StepKind.SOW:
                return (
                    Mistake.WRONG_PLACE,
                    f"a seed in {at}: pick up everything at {places} first (relay)",
                )
            return (
                Mistake.OUT_OF_ORDER,
                f"{step.kind.value} at {at}: relay pickup at {places} expected",
            )
        if hand.phase is Phase.CAPTURING:
            return (
                Mistake.WRONG_CAPTURE,
                f"{step.kind.value} at {at}: capture expected from {places}",
            )
        return Mistake.NOT_YOUR_TURN, f"player {step.player} is not to move"

    def _apply(self, step: Step) -> None:
        self._expected = None
        rules = self.rules
        assert step.at is not None
        idx = rules.index_of(step.at)
        if step.kind is StepKind.SWEEP:
            self.pending_sweeps = [(i, t) for i, t in self.pending_sweeps if i != idx]
            assert step.to_player is not None
            self.board[rules.stores[step.to_player]] += self.board[idx]
            self.board[idx] = 0
            if not self.pending_sweeps:
                self._finish()
            return
        p = step.player
        hand = self.hands[p]
        if step.kind is StepKind.PICKUP:
            if hand.phase is Phase.START:
                hand.move_pit = int(step.at.pit)  # a START pickup is always a pit
            hand.seeds = self.board[idx]
            self.board[idx] = 0
            hand.sequence = rules.lap_sequences[p][idx]
            hand.sown = 0
            hand.last = -1
            hand.phase = Phase.SOWING
            self._emptied_under(1 - p, idx)
        elif step.kind is StepKind.SOW:
            self.board[idx] += 1
            hand.seeds -= 1
            hand.sown += 1
            hand.last = idx
            if hand.seeds == 0:
                self._land(p, idx)
        elif step.kind is StepKind.CAPTURE:
            hand.pending.remove(idx)
            self.board[rules.stores[p]] += self.board[idx]
            self.board[idx] = 0
            if not hand.pending:
                self._end_move(p, extra=False)
            self._emptied_under(1 - p, idx)

    def _emptied_under(self, q: int, idx: int) -> None:
        """In a simultaneous opening one hand emptied a pit the other was about to take:
        the other's relay there finds nothing (its move ends), its capture there takes
        nothing (it is dropped). No hand can be seen lifting an empty pit."""
        other = self.hands[q]
        if other.phase is Phase.RELAY and other.relay_at == idx:
            other.seeds = 0
            self._end_move(q, extra=False)
        elif other.phase is Phase.CAPTURING and idx in other.pending:
            other.pending.remove(idx)
            if not other.pending:
                self._end_move(q, extra=False)

    def _land(self, p: int, idx: int) -> None:
        """The last seed of a lap fell in `idx`: extra turn, relay, capture or end of turn."""
        rules = self.rules
        hand = self.hands[p]
        if idx == rules.stores[p]:
            self._end_move(p, extra=rules.options.extra_turn)
        elif rules.options.laps == "relay" and self.board[idx] > 1:
            hand.phase = Phase.RELAY
            hand.relay_at = idx
        else:
            captured = rules.capture_places(self.board, p, idx)
            if captured:
                hand.phase = Phase.CAPTURING
                hand.pending = captured
            else:
                self._end_move(p, extra=False)

    def _end_move(self, p: int, extra: bool) -> None:
        hand = self.hands[p]
        hand.last = -1
        self._bookkeeping.append(Step(StepKind.EXTRA_TURN if extra else StepKind.END_TURN, p))
        self.completed.append(CompletedMove(p, hand.move_pit))
        rules = self.rules
        if self.opening:
            if extra and rules.row_total(self.board, p):
                hand.phase = Phase.START
                return
            if extra:
                self._bookkeeping.append(Step(StepKind.PASS, p))
            hand.phase = Phase.DONE
            self.finish_order.append(p)
            if len(self.finish_order) == 2:
                self.opening = False
                slower = rules.options.opening_next == "slower"
                first = self.finish_order[-1] if slower else self.finish_order[0]
                self._settle(first)
            return
        hand.phase = Phase.IDLE
        self._settle(p if extra else 1 - p)

    def _settle(self, candidate: int) -> None:
        rules = self.rules
        settlement = rules.settle(self.board, candidate)
        self._bookkeeping.extend(Step(StepKind.PASS, q) for q in settlement.passes)
        termination = settlement.termination
        to_move = settlement.to_move
        if (
            termination is None
            and rules.options.cycle != "none"
            and to_move is not None
            and self.history.remember(rules, self.board, to_move)
        ):
            termination = Termination.CYCLE
        for hand in self.hands:
            hand.phase = Phase.IDLE
        if termination is not None:
            self.termination = termination
            self.to_move = None
            self.pending_sweeps = rules.sweep_plan(self.board, termination)
            if not self.pending_sweeps:
                self._finish()
        else:
            assert to_move is not None
            self.to_move = to_move
            self.hands[to_move].phase = Phase.START

    def _finish(self) -> None:
        assert self.termination is not None
        self.outcome = self.rules.outcome(self.board, self.termination)

    # -- canonical step lists -------------------------------------------------------------------

    def complete_move(self, pit: int) -> list[Step]:
        """Play `pit` for the player to move, choosing the first expected step each time.

        Returns every step made, bookkeeping included, through the end sweep if the move ends
        the game. Raises ValueError if the pickup is not legal.
        """
        player = self.to_move
        if player is None:
            raise ValueError("no single player is to move")
        first = Step.pickup(player, Place(player, pit))
        steps: list[Step] = []
        verdict = self.feed(first)
        while True:
            if not verdict.accepted:
                raise ValueError(verdict.reason)
            steps.append(verdict.step)
            steps.extend(verdict.then)
            hand = self.hands[player]
            moving = hand.phase in (Phase.SOWING, Phase.RELAY, Phase.CAPTURING)
            if not moving and not self.pending_sweeps:
                return steps
            verdict = self.feed(self.expected()[0])


def _same(step: Step, expected: Step) -> bool:
    """Steps match; a sweep may be made by either hand."""
    if step.kind is StepKind.SWEEP:
        return step.at == expected.at and step.to_player == expected.to_player
    return step == expected
