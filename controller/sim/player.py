"""The virtual player: pit choices turned into timed hand actions on the simulated board.

It plays by the rules engine's own step lists (`Game.steps`): a pickup becomes a `grab` (press,
then lift), a sown seed a `drop`, a capture or an end sweep a `move` to the right store, and the
bookkeeping steps take no action. Tempo: every interval is `seconds_per_seed` times
uniform(1 - jitter, 1 + jitter), and each hand has its own pace (a factor 0.85-1.15), so a slow
child (1 seed/s) and an expert (8 seeds/s, drops 125 ms apart) are both just parameters.

In a congkak simultaneous opening both hands play at once on the shared board: a
`StepFollower` is fed the steps in the order they physically happen (a pickup happens when the
seeds leave the cup, a seed when it lands), each hand taking its own next expected step, so the
truth follows the rules however the two hands interleave.

For benchmarks, `play_with_mistake` plays one move containing one mistake (SIMULATION.md's
flag kinds) and the hands' correction, and records the mistake's kind, true time and place.

>>> from controller.rules import Game
>>> player = VirtualPlayer(Game("kalah"), rng=random.Random(1))
>>> [a.kind for a in player.play(2)]            # pit 2 holds 3 seeds: pits 3, 4 and 5
['grab', 'drop', 'drop', 'drop']
>>> player.game.pits(0)
(3, 3, 0, 4, 4, 4)
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.physical import MISTAKE_KINDS
from controller.rules import Game, Phase, Place, Rules, Step, StepFollower, StepKind

from .human import PROFILES, HumanHands, MoveSpan, incidental_touches
from .scenario import Action, PlayerParams, Scenario, ScenarioError
from .world import GRAB_PRESS_S, GRAB_S, SimSource, SimWorld, action_end

FIRST_MOVE_DELAY_S = 1.0  # quiet board before the first move, so a reader can settle its zeros
THINK_MIN_S = 0.6  # pause before a move, at least this ...
THINK_SEEDS = 4.0  # ... or this many seed intervals
NOTICE_S = 1.0  # a player notices a mistake (the LEDs, a beep) and corrects it after this
MIN_INTERVAL_S = 0.03
HAND_PACE = (0.85, 1.15)


Chooser = Callable[[int, list[int]], int]  # (hand, legal pits) -> pit

# The mistakes a person makes (human.py's profiles): MISTAKE_KINDS' wrong_pit, extra_seed and
# seed_lost, and a seed that bounces into the next cup (flagged as wrong_pit there).
HUMAN_MISTAKES = ("extra_seed", "bounce", "wrong_pit", "seed_lost")


class OpeningChoiceError(ValueError):
    """A pit choice of the simultaneous opening that is not legal when its hand needs it."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class MistakeNotPossible(ValueError):
    """The game's position offers no move in which this kind of mistake can be made."""


@dataclass(frozen=True)
class InjectedMistake:
    """A mistake the hands made: what, when it physically happened, where, and by which hand.

    `t` is the lift time (seeds leave the cup) for `wrong_start`, the landing of the first seed
    sown without the seeds left in the pit for `not_all_lifted` (lifting a pit in two handfuls
    is no mistake; sowing on without the rest is), the landing time for seeds in the wrong place, the moment the seed fell off for `seed_lost`
    (then `at` is where it was expected), and the moment the foreign seed went in.
    """

    kind: str
    t: float
    at: Place
    hand: int
    expected: Place | None = None  # where the seed or pickup belonged, when that is one place

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "t": round(self.t, 4),
            "at": self.at.to_json(),
            "hand": self.hand,
            "expected": None if self.expected is None else self.expected.to_json(),
        }


@dataclass(frozen=True)
class _Slot:
    """A physical step of a move with what the hand holds just before it."""

    step: Step
    in_hand: int


class VirtualPlayer:
    """Plays whole moves of `game` as timed actions; `game` is kept in step with the truth.

    `t` is when the hands are next free (the end of the last planned action); every method
    appends to `actions` and returns the new ones, which `SimWorld.schedule` takes. A daemon
    playing a clicked move on a running world uses `schedule_move`.
    """

    def __init__(
        self,
        game: Game,
        params: PlayerParams | None = None,
        rng: random.Random | None = None,
        t: float = 0.0,
    ) -> None:
        self.game = game
        self.params = params or PlayerParams()
        self.rng = rng or random.Random(0)
        self.t = t
        self.pace = (self.rng.uniform(*HAND_PACE), self.rng.uniform(*HAND_PACE))
        self.actions: list[Action] = []
        self.mistakes: list[InjectedMistake] = []
        self.opening: StepFollower | None = None  # an opening that ran out of pit choices
        self.last_pit: int | None = None  # the pit of the last whole move played
        self._moves = 0
        # A person of a named profile (human.py), or the fixed tempo of `params`.
        self.human = (
            HumanHands(PROFILES[self.params.profile], self.rng) if self.params.profile else None
        )
        self.spans: list[MoveSpan] = []  # every move as planned, for the touches around it
        self.span_hands: list[int] = []

    # -- tempo ----------------------------------------------------------------------------------

    def _factor(self) -> float:
        j = self.params.jitter
        return self.rng.uniform(1.0 - j, 1.0 + j)

    def interval(self, hand: int) -> float:
        """Time between two seeds of one hand."""
        if self.human is not None:
            return max(MIN_INTERVAL_S, self.human.interval() * self.pace[hand])
        base = self.params.seconds_per_seed * self.pace[hand]
        return max(MIN_INTERVAL_S, base * self._factor())

    def think(self) -> float:
        """The pause before a move (longer before the first, so the board starts at rest)."""
        if self.human is not None:
            self.human.new_move()
            base = self.human.think()
        else:
            base = max(THINK_MIN_S, THINK_SEEDS * self.params.seconds_per_seed) * self._factor()
        return max(base, FIRST_MOVE_DELAY_S) if self._moves == 0 and self.t == 0 else base

    def _pickup(self, action: Action) -> Action:
        """A person may lift a full pit in two handfuls: the first is emitted here, the
        returned grab (a moment later) lifts the rest."""
        if self.human is None or action.kind != "grab" or action.at is None:
            return action
        seeds = self.game.board[self.game.rules.index_of(action.at)]
        first = self.human.first_handful(seeds)
        if first is None:
            return action
        self._emit(Action(action.t, "take", at=action.at, n=first, hand=action.hand))
        return dataclasses.replace(action, t=action.t + GRAB_S + self.human.handful_gap())

    def _span(self, start: int, hand: int) -> None:
        """Note the move just planned (its actions from `start`) for the touches around it."""
        actions = self.actions[start:]
        if not actions:
            return
        sown = tuple((a.t, a.at) for a in actions if a.kind == "drop" and a.at is not None)
        self.spans.append(MoveSpan(actions[0].t, max(self.t, actions[-1].t), sown))
        self.span_hands.append(hand)

    def touches(self) -> list[Action]:
        """The rests, leans, brushes, knocks and other people's touches around every move
        planned so far (human.py); none without a profile."""
        if self.human is None:
            return []
        return incidental_touches(
            self.human.profile, self.rng, self.game.rules, self.spans, self.actions, self.span_hands
        )

    def _emit(self, action: Action) -> float:
        """Record an action; returns when the hand is free for its next one."""
        self.actions.append(action)
        assert action.hand is not None
        return action_end(action) + self.interval(action.hand)

    def _step_action(self, step: Step, t: float) -> Action:
        """The hand action that makes a physical rule step at time t."""
        at = step.at
        assert at is not None
        if step.kind is StepKind.PICKUP:
            return Action(t, "grab", at=at, hand=step.player)
        if step.kind is StepKind.SOW:
            return Action(t, "drop", at=at, n=1, hand=step.player)
        taker = step.player if step.kind is StepKind.CAPTURE else step.to_player
        assert taker is not None
        return Action(t, "move", at=at, to=Place(taker, "store"), hand=step.player)

    # -- whole moves ----------------------------------------------------------------------------

    def play(self, pit: int) -> list[Action]:
        """Play `pit` for the player to move; IllegalMoveError (a ValueError) if not legal."""
        self._check_turn()
        start = len(self.actions)
        player = self.game.to_move
        assert player is not None
        steps = self.game.steps(pit)
        t = self.t + self.think()
        end = t
        for k, step in enumerate(steps):
            if step.kind.physical:
                action = self._step_action(step, t)
                if k == 0:
                    action = self._pickup(action)
                end = action_end(action)
                t = self._emit(action)
        self.game.play(pit)
        self.last_pit = pit
        self._moves += 1
        self.t = end
        self._span(start, player)
        return self.actions[start:]

    def _check_turn(self) -> None:
        if self.opening is not None:
            raise ValueError("the simultaneous opening ran out of pit choices")
        if self.game.over:
            raise ValueError("the game is over")
        if self.game.to_move is None:
            raise ValueError("the simultaneous opening is played with play_opening")

    # -- the simultaneous opening -----------------------------------------------------------------

    def play_opening(
        self,
        choices: Sequence[int] = (),
        choose: Chooser | None = None,
        partial: StepFollower | None = None,
    ) -> int:
        """Both hands play the congkak opening at once; returns how many choices it used.

        `choices` are pit numbers taken in the order the hands need them: the first two are
        hand 0's and hand 1's first pits, and a hand that ends in its own store (rule A: it
        goes again) takes the next one. When they run out, `choose(hand, legal pits)` picks,
        or without it the hand stops and the opening stays unfinished (`self.opening`).
        An illegal choice raises OpeningChoiceError naming its index. `partial`: an opening
        partly played, between moves (the hands about to start take the first choices, in
        order); else the start position.
        """
        game = self.game
        rules = game.rules
        if game.to_move is not None or game.over or not rules.options.simultaneous_opening:
            raise ValueError("there is no simultaneous opening to play")
        follower = StepFollower.new(rules) if partial is None else partial.copy()
        first_action = len(self.actions)
        queue = deque(enumerate(choices))
        start = self.t + self.think()
        # Each hand starts when its player is ready (a small reaction difference).
        clock = [start + self.rng.uniform(0.0, 0.2), start + self.rng.uniform(0.0, 0.2)]
        first: list[tuple[int, int] | None] = [None, None]
        for h in starting_hands(follower):
            if queue:
                first[h] = queue.popleft()
        stopped = [False, False]
        end = start
        while follower.opening:
            ready = [h for h in follower.active_players() if not stopped[h]]
            if not ready:
                break
            h = min(ready, key=lambda h: _event_time(follower, clock, h))
            mine = [s for s in follower.expected() if s.player == h]
            if follower.hands[h].phase is Phase.START:
                step = self._opening_pickup(h, mine, first, queue, choose)
                if step is None:
                    stopped[h] = True
                    continue
            else:
                step = mine[0]
            verdict = follower.feed(step)
            assert verdict.accepted, verdict.reason
            action = self._step_action(step, clock[h])
            end = max(end, action_end(action))
            clock[h] = self._emit(action)
        used = len(choices) - len(queue) - sum(1 for f in first if f is not None)
        if follower.opening:
            self.opening = follower
            self.t = end
            return used
        t = max(clock)
        while follower.pending_sweeps:  # the game can end in the opening: sweep by hand
            sweep = follower.expected()[0]
            verdict = follower.feed(sweep)
            assert verdict.accepted, verdict.reason
            action = self._step_action(sweep, t)
            end = action_end(action)
            t = self._emit(action)
        self.game = Game(rules, start=follower.position())
        self._moves += 1
        self.t = end
        self._span(first_action, 0)
        return used

    def _opening_pickup(
        self,
        h: int,
        mine: list[Step],
        first: list[tuple[int, int] | None],
        queue: deque[tuple[int, int]],
        choose: Chooser | None,
    ) -> Step | None:
        """The pit hand h starts from now, or None when it has no choice left."""
        legal = [int(s.at.pit) for s in mine if s.at is not None]
        chosen = first[h]
        if chosen is not None:
            first[h] = None
        elif queue:
            chosen = queue.popleft()
        elif choose is not None:
            return Step.pickup(h, Place(h, choose(h, legal)))
        else:
            return None
        index, pit = chosen
        if pit not in legal:
            raise OpeningChoiceError(
                index, f"hand {h} cannot start from pit {pit} now, legal: {legal}"
            )
        return Step.pickup(h, Place(h, pit))

    # -- mistakes -------------------------------------------------------------------------------

    def play_with_mistake(self, kind: str, pit: int | None = None) -> list[Action]:
        """Play one move containing one mistake of `kind` and the hands' correction.

        `pit` None: a random legal pit where the mistake can happen. Raises MistakeNotPossible
        when no move allows it. The mistake is appended to `mistakes`; the move itself ends as
        the rules say, so the truth and `game` agree afterwards.
        """
        known = dict.fromkeys((*MISTAKE_KINDS, *HUMAN_MISTAKES))
        if kind not in known:
            raise ValueError(f"unknown mistake {kind!r}, known: {', '.join(known)}")
        self._check_turn()
        game = self.game
        player = game.to_move
        assert player is not None
        options: list[tuple[int, int, Place | None]] = []  # (pit, slot index, extra place)
        pits = game.legal_moves() if pit is None else [pit]
        for candidate in pits:
            slots = self._slots(candidate)
            options.extend((candidate, i, extra) for i, extra in self._targets(kind, slots))
        if not options:
            raise MistakeNotPossible(f"no move of player {player} allows a {kind} mistake here")
        pit, target, extra = self.rng.choice(options)
        slots = self._slots(pit)
        start = len(self.actions)
        t = self.t + self.think()
        end = t
        lost_at: Place | None = None
        left_at: Place | None = None
        held = 0  # seeds in the hand that left the rest in the pit
        noticed = math.inf  # when that hand sees the red light
        for i, slot in enumerate(slots):
            action = self._step_action(slot.step, t)
            if left_at is not None and held and action.t < noticed:
                # The hand sows on without the seeds it left (the mistake: two handfuls are
                # none) until it notices the pit lit red, or its hand is empty.
                if noticed == math.inf:
                    self.mistakes.append(InjectedMistake(kind, action.t, left_at, player, left_at))
                    noticed = action.t + NOTICE_S
                held -= 1
                end = action_end(action)
                t = self._emit(action)
                continue
            if left_at is not None:
                # Then it goes back for the rest, and sows this seed after.
                t = self._emit(Action(max(t, noticed), "grab", at=left_at, hand=player))
                action = self._step_action(slot.step, t)
                left_at = None
            if i == target and kind == "not_all_lifted":
                assert action.at is not None
                held = game.board[game.rules.index_of(action.at)] - 1
                t = self._emit(Action(t, "take", at=action.at, n=held, hand=player))
                left_at = action.at
                continue
            if lost_at is not None:
                # The seed after the lost one has landed; the board shows red there and green
                # where the lost one belonged: a spare seed goes there, then play goes on.
                t = self._emit(action)
                spare = Action(action.t + NOTICE_S, "add", at=lost_at, n=1, hand=player)
                end = action_end(spare)
                t = self._emit(spare)
                lost_at = None
                continue
            if i == target and kind == "seed_lost":
                assert action.at is not None
                self._emit(Action(t, "drop_off", n=1, hand=player))
                self.mistakes.append(InjectedMistake(kind, t, action.at, player, action.at))
                lost_at = action.at
                t += self.interval(player)
                continue
            if i == target:
                action = self._mistake(kind, action, extra)
            end = action_end(action)
            t = self._emit(action)
            if i == target and kind == "extra_seed":
                # Two seeds fell where one was expected: one is taken back, then play goes on.
                t = self._emit(Action(action.t + NOTICE_S, "take", at=action.at, n=1, hand=player))
                end = t
        game.play(pit)
        self.last_pit = pit
        self._moves += 1
        self.t = end
        self._span(start, player)
        return self.actions[start:]

    def _slots(self, pit: int) -> list[_Slot]:
        follower = StepFollower.from_game(self.game)
        slots = []
        for step in self.game.steps(pit):
            if step.kind.physical:
                slots.append(_Slot(step, follower.hands[step.player].seeds))
            follower.feed(step)
        return slots

    def _targets(self, kind: str, slots: list[_Slot]) -> list[tuple[int, Place | None]]:
        """The slots where a mistake of `kind` can be made, with its extra place if any."""
        game = self.game
        rules = game.rules
        player = game.to_move
        assert player is not None
        if kind == "wrong_start":
            legal = set(game.legal_moves())
            wrong = [
                Place(p, i)
                for p in (0, 1)
                for i in range(rules.n)
                if game.board[rules.index(p, i)] and not (p == player and i in legal)
            ]
            return [(0, place) for place in wrong]
        if kind == "not_all_lifted":
            first = slots[0].step
            assert first.at is not None
            return [(0, None)] if game.board[rules.index_of(first.at)] >= 2 else []
        if kind == "foreign_seed":
            return [
                (0, Place(p, i))
                for p in (0, 1)
                for i in range(rules.n)
                if not rules.is_closed(p, i)
            ]
        out: list[tuple[int, Place | None]] = []
        previous: Place | None = None
        for i, slot in enumerate(slots):
            step = slot.step
            if step.kind is not StepKind.SOW:
                previous = None
                continue
            assert step.at is not None
            if kind in ("wrong_pit", "bounce"):
                stray = _wrong_pit(rules, player, step.at, previous)
                if stray is not None:
                    out.append((i, stray))
            elif kind == "extra_seed":
                if slot.in_hand >= 2:
                    out.append((i, None))
            elif kind == "opponent_store":
                out.append((i, Place(1 - player, "store")))
            elif kind == "seed_lost":
                # Only where another seed of the same lap follows: the hand, not noticing the
                # loss, drops that one next, and that is what the board can see.
                following = slots[i + 1].step if i + 1 < len(slots) else None
                if following is not None and following.kind is StepKind.SOW:
                    out.append((i, None))
            previous = step.at
        return out

    def _mistake(self, kind: str, action: Action, extra: Place | None) -> Action:
        """Emit the mistake and its correction before `action` (the slot's own step).

        Returns the action that now stands for the slot's step, later or changed: the rest of a
        pit grabbed after not all was lifted, a spare seed added for a lost one, two seeds
        dropped for one.
        """
        t = action.t
        hand = action.hand
        assert hand is not None
        expected = action.at
        assert expected is not None
        record = self.mistakes.append
        if kind == "wrong_start":
            assert extra is not None
            count = self.game.board[self.game.rules.index_of(extra)]
            self._emit(Action(t, "grab", at=extra, hand=hand))
            record(InjectedMistake(kind, t + GRAB_PRESS_S, extra, hand))
            back = t + GRAB_S + NOTICE_S  # the seeds are put back, then the right pit is lifted
            return dataclasses.replace(
                action, t=self._emit(Action(back, "drop", at=extra, n=count, hand=hand))
            )
        if kind in ("wrong_pit", "opponent_store", "bounce"):
            assert extra is not None
            if kind == "bounce":  # aimed right, it hopped on: the board sees a wrong pit
                self._emit(Action(t, "bounce", at=expected, to=extra, hand=hand))
                kind = "wrong_pit"
            else:
                self._emit(Action(t, "drop", at=extra, n=1, hand=hand))
            record(InjectedMistake(kind, t, extra, hand, expected))
            took = self._emit(Action(t + NOTICE_S, "take", at=extra, n=1, hand=hand))
            return dataclasses.replace(action, t=took)
        if kind == "extra_seed":
            record(InjectedMistake(kind, t, expected, hand, expected))
            return dataclasses.replace(action, n=2)
        if kind == "foreign_seed":
            assert extra is not None
            self._emit(Action(t, "add", at=extra, n=1, hand=hand))
            record(InjectedMistake(kind, t, extra, hand))
            took = t + NOTICE_S
            self._emit(Action(took, "take", at=extra, n=1, hand=hand))
            gone = self._emit(Action(took + GRAB_S + 0.3, "drop_off", n=1, hand=hand))
            return dataclasses.replace(action, t=gone)
        raise ValueError(f"unknown mistake {kind!r}")  # pragma: no cover


def _event_time(follower: StepFollower, clock: list[float], h: int) -> float:
    """When hand h's next step physically happens: a pickup or capture at the lift, a seed
    when it lands. The opening feeds the steps in this order."""
    lifts = follower.hands[h].phase is not Phase.SOWING
    return clock[h] + (GRAB_PRESS_S if lifts else 0.0)


def _wrong_pit(rules: Rules, player: int, expected: Place, previous: Place | None) -> Place | None:
    """A pit a careless hand would sow instead of `expected`: the one after it in the ring.

    Not a store (those are other flags), not the place that just got a seed (that is a second
    seed), not the expected place itself.
    """
    ring = rules.rings[player]
    k = ring.index(rules.index_of(expected))
    for step in range(1, len(ring)):
        place = rules.place(ring[(k + step) % len(ring)])
        if place.is_store or place in (previous, expected):
            continue
        return place
    return None


# -- scenarios ------------------------------------------------------------------------------------


@dataclass
class Simulation:
    """A scenario ready to run: the world with every action scheduled, and the player.

    `player.game` is the rules engine's game after the scenario's moves: at the end of a run
    with no scripted actions, `world.truth()` equals its position.
    """

    scenario: Scenario
    world: SimWorld
    player: VirtualPlayer

    def source(self, endless: bool = False, realtime: bool = False) -> SimSource:
        return SimSource(self.world, endless=endless, realtime=realtime)


def build_simulation(scenario: Scenario) -> Simulation:
    """The world of `scenario` with its moves played by the virtual player, then its actions.

    Illegal moves are ScenarioErrors naming `moves[i]`. Scripted actions' times count from the
    end of the last move (SIMULATION.md); a script's default hand is the player to move then.
    """
    world = SimWorld(scenario, scenario.start)
    player = VirtualPlayer(Game(world.rules, start=scenario.start), scenario.player, world.rng)
    moves = list(scenario.moves)
    first = 0
    try:
        if moves and world.rules.options.simultaneous_opening:
            first = player.play_opening(moves)
    except OpeningChoiceError as err:
        i = err.index
        raise ScenarioError(
            f"{scenario.source}: moves[{i}]: pit {moves[i]} (simultaneous opening): {err}"
        ) from None
    for i in range(first, len(moves)):
        try:
            player.play(moves[i])
        except ValueError as err:
            raise ScenarioError(f"{scenario.source}: moves[{i}]: pit {moves[i]}: {err}") from None
    world.default_hand = player.game.to_move if player.game.to_move is not None else 0
    world.schedule([*player.actions, *player.touches()], relative=False)
    offset = player.t if moves else 0.0
    world.schedule([a.shifted(offset) for a in scenario.actions], relative=False)
    return Simulation(scenario, world, player)


@dataclass(frozen=True)
class ScheduledMove:
    """A move handed to a running world: its actions and mistakes on the world's clock, and
    the game after it (what the truth will be once the hands are done)."""

    pit: int
    actions: list[Action]
    mistakes: list[InjectedMistake]
    game: Game


def schedule_move(
    world: SimWorld,
    game: Game,
    pit: int | None = None,
    mistake: str | None = None,
    params: PlayerParams | None = None,
) -> ScheduledMove:
    """Have the virtual hand play one move of `game` on a running world, starting now.

    For the daemon's "play this move" and "make a mistake" buttons: `game` must match the
    truth (it is copied, not changed); `pit` None with a mistake means any pit that allows it.
    """
    if pit is None and mistake is None:
        raise ValueError("name a pit, a mistake, or both")
    player = VirtualPlayer(
        game.copy(), params or world.scenario.player, random.Random(world.rng.random())
    )
    player._moves = 1  # not the first move of a session: no extra settling delay
    if mistake is not None:
        actions = player.play_with_mistake(mistake, pit)
    else:
        assert pit is not None
        actions = player.play(pit)
    base = world.schedule(actions)
    assert player.last_pit is not None
    return ScheduledMove(
        player.last_pit,
        [a.shifted(base) for a in actions],
        [dataclasses.replace(m, t=m.t + base) for m in player.mistakes],
        player.game,
    )


def starting_hands(opening: StepFollower) -> list[int]:
    """The hands about to start a move of a simultaneous opening (at its start, or after a
    hand ended in its own store, or with the other hand done)."""
    return [h for h in opening.active_players() if opening.hands[h].phase is Phase.START]


@dataclass(frozen=True)
class ScheduledOpening:
    """A simultaneous opening handed to a running world: the pit each hand started from,
    the hands' actions on the world's clock, and the game after it."""

    pits: dict[int, int]  # hand -> pit
    actions: list[Action]
    game: Game


def schedule_opening(
    world: SimWorld,
    opening: StepFollower,
    pits: dict[int, int],
    params: PlayerParams | None = None,
) -> ScheduledOpening:
    """Have the virtual hands play the rest of the congkak simultaneous opening `opening`
    (between moves: at its start, or with one hand done) on a running world, starting now:
    each hand about to start from its pit in `pits` (hand -> pit), both at once; a hand that
    ends in its own store and goes again (rule A) starts from a random legal pit.
    OpeningChoiceError (a ValueError) for a pit that cannot start.
    """
    starting = starting_hands(opening)
    if sorted(pits) != starting:
        raise ValueError(f"the hands about to start are {starting}, not {sorted(pits)}")
    rng = random.Random(world.rng.random())
    player = VirtualPlayer(Game(opening.rules), params or world.scenario.player, rng)
    player._moves = 1  # not the first move of a session: no extra settling delay
    choices = [pits[h] for h in starting]
    player.play_opening(choices, choose=lambda hand, legal: rng.choice(legal), partial=opening)
    base = world.schedule(player.actions)
    return ScheduledOpening(pits, [a.shifted(base) for a in player.actions], player.game)


def build_world(scenario: Scenario) -> SimWorld:
    """Just the world of `build_simulation`."""
    return build_simulation(scenario).world
