"""Human hands: the people who play the board, as named behaviour profiles (SIMULATION.md).

A scripted hand sows at one tempo and touches nothing but the seeds. A person does not: a
child sows a seed every two seconds and stops for twenty to look up, rests a palm on the board,
leans on its edge; an expert drops eight seeds a second and brushes the next cup on the way; a
museum visitor knocks the table and a second visitor points at a pit. None of that is a
mistake, and the referee must count through all of it. A `Profile` is one such person as a set
of rates and ranges, `HumanHands` draws from it with the world's random stream (so the same
random seed gives the same person), and `VirtualPlayer` (player.py) asks it for tempo and
pickups while it plans a move; the touches that move no seed are added to the finished plan by
`incidental_touches`, in the gaps the seeds leave.

Why the numbers (every range is drawn uniformly unless it says log-uniform):

- Tempo: a move's seconds per seed is drawn log-uniform in `tempo_s` (people keep a pace within
  a move and change it between moves), each interval then varies by `jitter`. The whole span
  asked for, 0.08 to 2 s a seed, is covered: experts 0.08-0.2, adults 0.25-0.8, children
  0.6-2, visitors 0.3-2.
- Pauses: with `pause_p` per seed the hand stops mid-sowing, seeds in hand, for `pause_s`
  (log-uniform, up to 20 s: a child looks up, a visitor reads the sign).
- Rests: a free hand's finger (10-40 g) or palm (up to 300 g) settles on a cup for 0.2-10 s.
  A third of the rests are on the cup just sown, a third on the one about to be sown (lifted
  again before the seed comes: a hand cannot drop into a cup it covers), the rest anywhere.
- Leans: a forearm on the board's edge puts 100 g to 1.5 kg on two to four neighbouring cells
  of one side (world.py shares it out unevenly).
- Brushes: fingers pass over the cup about to be sown, 5-60 g for 30-80 ms.
- Two handfuls: a pit of `TWO_HANDFULS_MIN` seeds or more is sometimes lifted in two grabs a
  moment apart (a small hand cannot hold them all).
- Knocks: an elbow or a chair against the table, every cell at once.
- A second person (a parent, another visitor) points at a cup and touches it.
- Mistakes (`mistake_p` per move, only in games played with mistakes): two seeds slipping
  together, a seed bouncing into the next cup, the wrong pit, a seed lost off the board; each is
  put right as a person would once the lights show it (player.py's corrections).

Touches never share a moment with a seed arriving at or leaving the same cup: a seed event
keeps its cup free from `BEFORE_SEED_S` before it until `AFTER_SEED_S` after it (a landing
rings and settles in about 0.3 s), and a knock keeps that distance from every seed event.

>>> import random
>>> hands = HumanHands(PROFILES["child"], random.Random(3))
>>> hands.new_move(); 0.6 <= hands.tempo <= 2.0
True
>>> sorted(PROFILES)
['adult', 'child', 'expert', 'visitor']
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from controller.rules import Place, Rules

from .scenario import Action
from .world import GRAB_S, MOVE_S

Range = tuple[float, float]

TWO_HANDFULS_MIN = 6  # seeds in a pit before a small hand may need two grabs
HANDFUL_GAP_S = (0.3, 0.8)  # between the two grabs
BEFORE_SEED_S = 0.1
AFTER_SEED_S = 0.35
FINGER_G = (10.0, 40.0)
BRUSH_G = (5.0, 60.0)
BRUSH_S = (0.03, 0.08)
POINT_G = (20.0, 150.0)
POINT_S = (0.3, 3.0)
KNOCK_S = (0.05, 0.2)
LEAN_CELLS = (2, 4)
FIT_TRIES = 4  # a touch that does not fit is tried this many times, shorter each time


@dataclass(frozen=True)
class Profile:
    """One kind of person at the board: rates (per move or per seed) and ranges."""

    name: str
    tempo_s: Range  # seconds a seed within a move, log-uniform
    jitter: float  # each interval: tempo * uniform(1 - jitter, 1 + jitter)
    think_s: Range  # before a move
    pause_p: float  # per seed: a pause mid-sowing ...
    pause_s: Range  # ... this long, log-uniform
    rest_p: float  # per move: a finger or palm rests on a cup ...
    rest_g: Range
    rest_s: Range
    lean_p: float  # per move: a forearm on the board's edge
    lean_g: Range
    lean_s: Range
    brush_p: float  # per seed: fingers brush the cup about to be sown
    two_handfuls_p: float  # per pickup of TWO_HANDFULS_MIN seeds or more
    knock_p: float  # per move: the table is knocked
    knock_g: Range
    other_person_p: float  # per move: a second person touches a cup
    mistake_p: float  # per move, in games played with mistakes
    mistakes: tuple[str, ...]  # player.HUMAN_MISTAKES this person makes


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "child",
            tempo_s=(0.6, 2.0),
            jitter=0.4,
            think_s=(2.0, 8.0),
            pause_p=0.03,
            pause_s=(2.0, 20.0),
            rest_p=0.5,
            rest_g=(30.0, 300.0),
            rest_s=(0.5, 10.0),
            lean_p=0.25,
            lean_g=(200.0, 1500.0),
            lean_s=(1.0, 8.0),
            brush_p=0.05,
            two_handfuls_p=0.5,
            knock_p=0.05,
            knock_g=(20.0, 150.0),
            other_person_p=0.05,
            mistake_p=0.25,
            mistakes=("extra_seed", "bounce", "wrong_pit", "seed_lost"),
        ),
        Profile(
            "adult",
            tempo_s=(0.25, 0.8),
            jitter=0.3,
            think_s=(1.0, 5.0),
            pause_p=0.01,
            pause_s=(1.0, 6.0),
            rest_p=0.25,
            rest_g=(10.0, 80.0),
            rest_s=(0.2, 4.0),
            lean_p=0.1,
            lean_g=(100.0, 800.0),
            lean_s=(1.0, 5.0),
            brush_p=0.05,
            two_handfuls_p=0.2,
            knock_p=0.02,
            knock_g=(10.0, 80.0),
            other_person_p=0.02,
            mistake_p=0.1,
            mistakes=("extra_seed", "bounce", "wrong_pit"),
        ),
        Profile(
            "expert",
            tempo_s=(0.08, 0.2),
            jitter=0.25,
            think_s=(0.6, 2.0),
            pause_p=0.002,
            pause_s=(0.5, 2.0),
            rest_p=0.1,
            rest_g=(10.0, 40.0),
            rest_s=(0.2, 2.0),
            lean_p=0.05,
            lean_g=(100.0, 500.0),
            lean_s=(1.0, 4.0),
            brush_p=0.1,
            two_handfuls_p=0.1,
            knock_p=0.01,
            knock_g=(10.0, 50.0),
            other_person_p=0.0,
            mistake_p=0.05,
            mistakes=("extra_seed", "bounce"),
        ),
        Profile(
            "visitor",
            tempo_s=(0.3, 2.0),
            jitter=0.5,
            think_s=(1.0, 15.0),
            pause_p=0.03,
            pause_s=(2.0, 20.0),
            rest_p=0.4,
            rest_g=(20.0, 300.0),
            rest_s=(0.5, 10.0),
            lean_p=0.4,
            lean_g=(300.0, 1500.0),
            lean_s=(2.0, 10.0),
            brush_p=0.05,
            two_handfuls_p=0.3,
            knock_p=0.08,
            knock_g=(30.0, 300.0),
            other_person_p=0.1,
            mistake_p=0.15,
            mistakes=("bounce", "wrong_pit", "seed_lost", "extra_seed"),
        ),
    )
}


def _log_uniform(rng: random.Random, span: Range) -> float:
    lo, hi = span
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class HumanHands:
    """A person of `profile` playing: the tempo of the move under way, pauses, pickups."""

    def __init__(self, profile: Profile, rng: random.Random) -> None:
        self.profile = profile
        self.rng = rng
        self.tempo = _log_uniform(rng, profile.tempo_s)

    def new_move(self) -> None:
        """A new move: the person picks a pace for it."""
        self.tempo = _log_uniform(self.rng, self.profile.tempo_s)

    def think(self) -> float:
        return self.rng.uniform(*self.profile.think_s)

    def interval(self) -> float:
        """Time to the next seed: the move's pace, now and then a pause mid-sowing."""
        p = self.profile
        base = self.tempo * self.rng.uniform(1.0 - p.jitter, 1.0 + p.jitter)
        if self.rng.random() < p.pause_p:
            base += _log_uniform(self.rng, p.pause_s)
        return base

    def first_handful(self, seeds: int) -> int | None:
        """How many seeds the first of two grabs lifts, or None for one grab."""
        if seeds < TWO_HANDFULS_MIN or self.rng.random() >= self.profile.two_handfuls_p:
            return None
        return self.rng.randint(seeds // 3, 2 * seeds // 3)

    def handful_gap(self) -> float:
        return self.rng.uniform(*HANDFUL_GAP_S)

    def wants_mistake(self) -> bool:
        return self.rng.random() < self.profile.mistake_p

    def mistake_kind(self) -> str:
        return self.rng.choice(self.profile.mistakes)


# -- touches that move no seed -------------------------------------------------------------------


class _Busy:
    """When each cup has a seed arriving or leaving (with margins): touches keep out of it."""

    def __init__(self, actions: Iterable[Action]) -> None:
        self.spans: dict[Place, list[tuple[float, float]]] = {}
        self.any: list[tuple[float, float]] = []
        for action in actions:
            for place, a, b in _seed_events(action):
                span = (a - BEFORE_SEED_S, b + AFTER_SEED_S)
                self.spans.setdefault(place, []).append(span)
                self.any.append(span)
        for spans in self.spans.values():
            spans.sort()
        self.any.sort()

    @staticmethod
    def _clear(spans: list[tuple[float, float]], a: float, b: float) -> bool:
        return all(s1 <= a or s0 >= b for s0, s1 in spans)

    def free(self, places: Iterable[Place], a: float, b: float) -> bool:
        return all(self._clear(self.spans.get(p, []), a, b) for p in places)

    def quiet(self, a: float, b: float) -> bool:
        return self._clear(self.any, a, b)

    def next_event(self, place: Place, t: float) -> float | None:
        """The start of the next busy span of `place` after t."""
        for s0, _ in self.spans.get(place, []):
            if s0 > t:
                return s0
        return None

    def last_event(self, place: Place, t: float) -> float | None:
        """The end of the last busy span of `place` that ended before t."""
        ends = [s1 for s0, s1 in self.spans.get(place, []) if s1 <= t]
        return max(ends) if ends else None


def _seed_events(action: Action) -> list[tuple[Place, float, float]]:
    """(place, from, to) of every moment `action` moves seeds in or out of a cup."""
    t = action.t
    at = action.at
    if action.kind in ("grab", "take") and at is not None:
        return [(at, t, t + GRAB_S)]  # the press, then the seeds leaving
    if action.kind == "move" and at is not None and action.to is not None:
        return [(at, t, t + GRAB_S), (action.to, t + MOVE_S, t + MOVE_S)]
    if action.kind in ("drop", "add") and at is not None:
        return [(at, t, t)]
    if action.kind == "bounce" and at is not None and action.to is not None:
        return [(at, t, t), (action.to, t, t + 0.2)]
    return []


@dataclass(frozen=True)
class MoveSpan:
    """A move as planned: from the first action to the hands being free, and where it sowed."""

    start: float
    end: float
    sown: tuple[tuple[float, Place], ...]  # (landing time, place) of its seeds, in order


def incidental_touches(
    profile: Profile,
    rng: random.Random,
    rules: Rules,
    moves: Sequence[MoveSpan],
    actions: Sequence[Action],
    hand_of: Sequence[int],
) -> list[Action]:
    """The rests, leans, brushes, knocks and second persons' touches of a planned game.

    `moves` are the game's moves as planned, `actions` every action planned (the touches keep
    out of their seed events), `hand_of[i]` the hand that played move i.
    """
    busy = _Busy(actions)
    places = [rules.place(i) for i in range(rules.size) if i not in rules.closed_indices]
    out: list[Action] = []
    for move, hand in zip(moves, hand_of, strict=True):
        maker = _Toucher(profile, rng, busy, places, hand, out)
        maker.rest(move)
        maker.lean(move, rules)
        maker.brushes(move)
        maker.knock(move)
        maker.other_person(move)
    return out


@dataclass
class _Toucher:
    """Places one move's touches where they fit, appending them to `out`."""

    profile: Profile
    rng: random.Random
    busy: _Busy
    places: list[Place]
    hand: int
    out: list[Action]

    def _chance(self, p: float) -> bool:
        return p > 0 and self.rng.random() < p

    def _fit(self, where: Sequence[Place], a: float, dur: float) -> float | None:
        """The longest of dur, dur/2, ... that keeps `where` free from a; None if none."""
        for _ in range(FIT_TRIES):
            if self.busy.free(where, a, a + dur):
                return dur
            dur /= 2
        return None

    def rest(self, move: MoveSpan) -> None:
        p = self.profile
        if not self._chance(p.rest_p):
            return
        g = self.rng.uniform(*(FINGER_G if self.rng.random() < 0.4 else p.rest_g))
        g = min(max(g, p.rest_g[0] / 3), p.rest_g[1])
        dur = self.rng.uniform(*p.rest_s)
        ramp = self.rng.uniform(0.05, 0.3)
        which = self.rng.random()
        if which < 1 / 3 and move.sown:  # the cup just sown, after its seed settled
            t, place = self.rng.choice(move.sown)
            start = t + AFTER_SEED_S + 0.05
        elif which < 2 / 3 and move.sown:  # the cup about to be sown, lifted before it comes
            t, place = self.rng.choice(move.sown)
            before = self.busy.last_event(place, t - BEFORE_SEED_S - 0.01)
            start = max(t - BEFORE_SEED_S - 0.05 - dur, (before or 0.0) + 0.05, move.start)
            dur = t - BEFORE_SEED_S - 0.05 - start - 2 * ramp  # off before the seed comes
        else:
            place = self.rng.choice(self.places)
            start = self.rng.uniform(move.start, max(move.start, move.end))
        total = self._fit([place], start, dur + 2 * ramp) if dur > 0 else None
        if total is None or total < 2 * ramp + 0.1:
            return
        self.out.append(
            Action(start, "rest", at=place, g=g, dur=total - 2 * ramp, ramp=ramp, hand=self.hand)
        )

    def lean(self, move: MoveSpan, rules: Rules) -> None:
        p = self.profile
        if not self._chance(p.lean_p):
            return
        side = self.rng.randrange(2)
        row = [Place(side, i) for i in range(rules.n) if not rules.is_closed(side, i)]
        row.append(Place(side, "store"))
        k = min(len(row), self.rng.randint(*LEAN_CELLS))
        first = self.rng.randrange(len(row) - k + 1)
        cells = row[first : first + k]
        start = self.rng.uniform(move.start, max(move.start, move.end))
        dur = self._fit(cells, start, self.rng.uniform(*p.lean_s))
        if dur is not None and dur >= 0.7:  # two 0.3 s ramps and a moment on the edge
            g = self.rng.uniform(*p.lean_g)
            self.out.append(Action(start, "lean", places=tuple(cells), g=g, dur=dur))

    def brushes(self, move: MoveSpan) -> None:
        for t, place in move.sown:
            if not self._chance(self.profile.brush_p):
                continue
            dur = self.rng.uniform(*BRUSH_S)
            start = t - BEFORE_SEED_S - dur - self.rng.uniform(0.0, 0.2)
            if start > move.start and self.busy.free([place], start, start + dur):
                g = self.rng.uniform(*BRUSH_G)
                self.out.append(Action(start, "brush", at=place, g=g, dur=dur, hand=self.hand))

    def knock(self, move: MoveSpan) -> None:
        p = self.profile
        if not self._chance(p.knock_p):
            return
        start = self.rng.uniform(move.start, max(move.start, move.end))
        dur = self.rng.uniform(*KNOCK_S)
        if self.busy.quiet(start, start + dur):
            self.out.append(Action(start, "bump", g=self.rng.uniform(*p.knock_g), dur=dur))

    def other_person(self, move: MoveSpan) -> None:
        if not self._chance(self.profile.other_person_p):
            return
        place = self.rng.choice(self.places)
        start = self.rng.uniform(move.start, max(move.start, move.end))
        dur = self._fit([place], start, self.rng.uniform(*POINT_S))
        if dur is not None and dur >= 0.2:
            g = self.rng.uniform(*POINT_G)
            self.out.append(Action(start, "rest", at=place, g=g, dur=dur - 0.1, ramp=0.05))
