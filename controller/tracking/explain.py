"""Explaining the cups: the due steps since the last certain point that make every cup read as
it does now.

The referee judges each cup's change as it comes (referee.py). When its judgements leave it in
doubt (a flag raised, a hand that should hold seeds resting, a cup that reads other than its
account), the board at rest can tell what happened another way: every cup's level now against
what it read at the last certain point (an `Anchor`: every cup at rest and accounted for, no
doubt). A hypothesis is a sequence of due steps from the game at that point, each fed through a
copy of the rules' `StepFollower` (never a rule written again). It says how many seeds each cup
holds now, and so what each should weigh:

- a cup the steps never emptied: what it read then, plus a mean seed for each seed added, the
  seeds' own masses spreading by the game's CV (k seeds by cv * sqrt(k));
- a pit the steps emptied: its zero, plus the seeds sown into it since;
- a store a capture or sweep put seeds in while its cup has not moved since: with them or
  without them, whichever fits (a player may hold the seeds a while on the way);

each with a floor for what a load cell adds at rest (noise, drift, creep and a tare that moved:
SIGMA0_SEEDS) and the calibration's gain error on the weight that changed. The score is the
Gaussian log-likelihood of all cups together. A hypothesis explains the board when no cup reads
further than Z_MAX standard deviations from it and all together fit as noise would (MIN_SCORE),
and it is taken only when it is alone: the next best, and the best with one seed more or fewer
in one cup (a mistake), are at least MARGIN (natural log) less likely.

The search walks the due steps depth first, the referee's own steps first (its judgements are
mostly right but for one; along its own path, whatever order the cups moved in), and every node is a candidate (a hand may rest mid-sowing). A hand's
steps happen while their cups move (from an onset to the cup settling again), in that order (and in turn, one hand after the other,
a new move MIN_TURN_S after the last, but in a simultaneous opening): the hands are not weighed, so without that a seed could hide in
a hand by a pickup nobody made. A branch ends where the steps can no longer fit the cups: a store
holding more seeds than it reads (stores never give seeds back), a cup that reads other than the
steps say and has not moved since the hands' last steps (no later step can put it right), or
more moves than the referee saw plus one. Nodes reached twice
(two orders of the same steps: the two hands of a simultaneous opening) are walked once. The
search stops after MAX_NODES nodes, so it holds the loop a few milliseconds at most.

>>> from controller.rules import Rules
>>> rules = Rules.for_variant("kalah")
>>> game = StepFollower.new(rules)
>>> levels = [5.0 * seeds for seeds in game.board]  # 5 g seeds, three a pit
>>> anchor = Anchor(game.copy(), tuple(levels), 0, 0.0)
>>> cells = {rules.place(i): i for i in range(14)}
>>> model = SeedModel(seed_g=5.0, cv=0.05)
>>> now = list(levels)
>>> now[2] = 0.0                      # pit 2 lifted ...
>>> for i in (3, 4, 5):               # ... and sown on
...     now[i] += 5.0
>>> best = explain(Cups(anchor, now, cells, model))
>>> [str(step) for step in best.steps]  # doctest: +NORMALIZE_WHITESPACE
['pickup([0, 2]) by 0', 'sow([0, 3]) by 0', 'sow([0, 4]) by 0', 'sow([0, 5]) by 0']
>>> now[9] += 5.0                     # a seed in the other player's pit: nothing explains it
>>> explain(Cups(anchor, now, cells, model)) is None
True
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.rules import Phase, Place, Step, StepFollower, StepKind

SIGMA0_SEEDS = 0.12  # what a cup at rest may read off its seeds (noise, drift, creep, tare)
CALIBRATION = 0.03  # the gain error a cell's calibration may have (2 % in the benches)
Z_MAX = 3.5  # no cup of an explanation reads further than this from it ...
MIN_SCORE = -20.0  # ... and all together fit as well as 16 cups of noise do 999 times in 1000
# The best explanation is taken when it is this much likelier (natural log) than the next, and
# than any with one seed more or fewer in one cup (a seed slipped, lost, in the wrong place:
# a mistake, MISTAKE_COST less likely a priori than a step; at 10 SPS, with natural seeds, two
# light seeds may weigh what one heavy one does, and then the referee's own judgement stands).
MARGIN = 2.0
MISTAKE_COST = 4.0
# A flag at a cup is taken back only where a seed more or fewer there is this much less likely
# (natural log) than the explanation, and the cup's change since the anchor spreads by at most
# SHARP_SEEDS (one seed more is 2.5 spreads away): a flag the cups cannot disprove stands.
CLEAR = 3.0
SHARP_SEEDS = 0.4
MAX_NODES = 400  # nodes walked at most: 35 us each, 14 ms at most (`sowboard bench humans`)
MORE_MOVES = 3  # moves the search may add to those the referee saw (a blocked referee sees none)
SLACK_S = 0.15  # a cup's onset may be read this much before the hand's last step's (10 SPS)
# A person starts a move this long after the last one ended at the soonest (they see it end and
# choose a pit; the simulator's quickest is 0.42 s): a seed that hops on from where it fell is
# not the next player lifting it and sowing it there.
MIN_TURN_S = 0.3
TAKES = (StepKind.PICKUP, StepKind.CAPTURE, StepKind.SWEEP)


@dataclass(frozen=True)
class Anchor:
    """The last certain point: the game then, what each cell read (grams, at rest), and how
    many of the referee's steps came before it."""

    game: StepFollower
    levels_g: tuple[float, ...]
    steps: int
    t: float


@dataclass(frozen=True)
class SeedModel:
    """What a seed weighs: the mean mass and the spread of masses (CV) learned from the game."""

    seed_g: float
    cv: float


@dataclass(frozen=True)
class Explanation:
    """Due steps from the anchor, the game after them, and how well they fit the cups."""

    steps: tuple[Step, ...]
    game: StepFollower
    score: float  # log-likelihood of every cup's reading (0 is a perfect fit)
    worst_z: float  # the cup furthest from what the steps say, in standard deviations
    mistake_gain: float  # how much likelier with one seed more or fewer in one cup
    gains: dict[int, float]  # ... per cell (log: below 0, a seed more or fewer is less likely)
    emptied: frozenset[int] = frozenset()  # cells the steps emptied
    sharp: frozenset[int] = frozenset()  # cells that tell one seed more (see `explain`)

    def rules_out_a_mistake_at(self, cell: int) -> bool:
        """Is a seed more or fewer in this cup clearly less likely than these steps, a
        mistake's rarity counted? Never where many seeds came since the anchor: their masses
        spread by a good part of a seed, and one more is lost in them."""
        return cell in self.sharp and self.gains.get(cell, 0.0) - MISTAKE_COST <= -CLEAR


@dataclass(frozen=True)
class _Node:
    game: StepFollower
    steps: tuple[Step, ...]
    emptied: frozenset[int]  # cells the steps emptied (they read their zero, plus seeds sown)
    clock: tuple[float, float]  # when each hand's last step began to move its cup
    z: tuple[float, ...]  # per judged cup: how far it reads from these steps' seeds
    gain: tuple[float, ...]  # ... and what one seed more or fewer there would gain
    # store cell -> seeds a capture or sweep took there that may still be in the hand: its
    # cup has not moved since (a player may hold them a while before the store)
    in_hand: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class _Cup:
    cell: int
    idx: int  # the place's index on the rules' board
    reading_g: float
    store: bool
    still_after: float  # when its cup last settled: no step is made there after this


@dataclass
class _Search:
    anchor: Anchor
    readings_g: Sequence[float | None]
    cells: dict[Place, int]
    model: SeedModel
    prefer: Sequence[Step]
    max_moves: int
    motions: dict[int, list[tuple[float, float]]]
    seen: set[tuple[object, ...]] = field(default_factory=set)
    found: list[Explanation] = field(default_factory=list)
    nodes: int = 0

    def __post_init__(self) -> None:
        rules = self.anchor.game.rules
        self.cups = [
            _Cup(
                cell,
                rules.index_of(place),
                reading,
                place.is_store,
                max((end for _, end in self.motions.get(cell, ())), default=-math.inf),
            )
            for place, cell in self.cells.items()
            if (reading := self.readings_g[cell]) is not None
        ]

    def root(self) -> _Node:
        game = self.anchor.game.copy()
        terms = [self.term(cup, game.board[cup.idx], False) for cup in self.cups]
        z, gain = zip(*terms, strict=True) if terms else ((), ())
        return _Node(game, (), frozenset(), (self.anchor.t, self.anchor.t), z, gain)

    def walk(self, node: _Node) -> None:
        self.nodes += 1
        game = node.game
        key = (*_key(game, node.emptied), node.clock)
        if key in self.seen:
            return
        self.seen.add(key)
        if self.hopeless(node):
            return
        score = -sum(z * z for z in node.z) / 2
        worst = max(map(abs, node.z), default=0.0)
        gains = {cup.cell: gain for cup, gain in zip(self.cups, node.gain, strict=True)}
        self.found.append(
            Explanation(
                node.steps, game, score, worst, max(node.gain, default=0), gains, node.emptied
            )
        )
        if len(game.completed) - len(self.anchor.game.completed) > self.max_moves:
            return
        own = self.referees_next(node)
        for step in self.ordered(game.expected(), len(node.steps)):
            if self.nodes >= MAX_NODES:
                return
            after = self.step(node, step, timed=step != own)
            if after is not None:
                self.walk(after)

    def hopeless(self, node: _Node) -> bool:
        """Does a cup read other than these steps say, and no step can change that? A store
        that holds fewer seeds than they put there (stores never give seeds back), or a cup
        that has not moved since the hands' next step can come (it reads its seeds now)."""
        clock = node.clock
        then = (min(clock) if node.game.opening else max(clock)) - SLACK_S
        return any(
            (cup.store and z < -Z_MAX) or (cup.still_after < then and abs(z) > Z_MAX)
            for cup, z in zip(self.cups, node.z, strict=True)
        )

    def step(self, node: _Node, step: Step, timed: bool = True) -> _Node | None:
        """`node` after `step`, if the rules allow it and (`timed`) its cup moved after the
        hand's last step's (and, taking turns, after the other hand's last step too). Untimed,
        the hand's clock still moves on to when its cup moved, if it did."""
        cell = self.cells.get(step.at) if step.at is not None else None
        if cell is None:
            return None
        clock = node.clock
        moved = self.moved(node, step, cell)
        if moved is None and timed:
            return None  # its cup did not move then
        if moved is None:
            moved = max(clock)  # (taken untimed: the clock stays)
        game = node.game.copy()
        if not game.feed(step).accepted:
            return None
        clock = (moved, clock[1]) if step.player == 0 else (clock[0], moved)
        emptied = node.emptied | {cell} if step.kind in TAKES else node.emptied
        in_hand = dict(node.in_hand)
        before, board = node.game.board, game.board
        if step.kind in TAKES and step.kind is not StepKind.PICKUP:
            for store in self.stores_still_since(moved):
                in_hand[store.cell] = (
                    in_hand.get(store.cell, 0) + board[store.idx] - before[store.idx]
                )
        z, gain = list(node.z), list(node.gain)
        for k, cup in enumerate(self.cups):  # only the cups whose seeds changed
            if board[cup.idx] != before[cup.idx] or (cup.cell == cell and emptied != node.emptied):
                z[k], gain[k] = self.term(
                    cup, board[cup.idx], cup.cell in emptied, in_hand.get(cup.cell, 0)
                )
        steps = (*node.steps, step)
        return _Node(game, steps, emptied, clock, tuple(z), tuple(gain), tuple(in_hand.items()))

    def stores_still_since(self, t: float) -> list[_Cup]:
        """The stores read whose cups have not moved since `t` (less SLACK_S)."""
        return [cup for cup in self.cups if cup.store and cup.still_after < t - SLACK_S]

    def moved(self, node: _Node, step: Step, cell: int) -> float | None:
        """When `cell` moved for `step`, the soonest after the hand's last step: None if not."""
        clock = node.clock
        since = clock[step.player] if node.game.opening else max(clock)
        if node.steps and _starts_a_move(node.game, step):
            since += MIN_TURN_S
        motions = self.motions.get(cell, [])
        k = bisect.bisect_left(motions, since - SLACK_S, key=lambda motion: motion[1])
        return None if k == len(motions) else max(since, motions[k][0])

    def referees_next(self, node: _Node) -> Step | None:
        """The referee's own next step, if `node` is on its own path (None: not). Those were
        judged when their cups could be read: the order the cups moved in does not take them
        back (a spare for a lost seed goes in after the next seed was sown, see `fits`)."""
        depth = len(node.steps)
        prefer = self.prefer
        on_path = depth < len(prefer) and tuple(prefer[:depth]) == node.steps
        return prefer[depth] if on_path else None

    def ordered(self, due: list[Step], depth: int) -> list[Step]:
        """The referee's own step at this depth first, then pickups from the emptiest pits."""
        preferred = self.prefer[depth] if depth < len(self.prefer) else None

        def rank(step: Step) -> tuple[bool, float]:
            cell = self.cells.get(step.at) if step.at is not None else None
            reading = self.readings_g[cell] if cell is not None else None
            return (step != preferred, math.inf if reading is None else reading)

        return sorted(due, key=rank)

    def term(self, cup: _Cup, count: int, emptied: bool, in_hand: int = 0) -> tuple[float, float]:
        """How far (z) the cup reads from holding `count` seeds, and how much likelier (log)
        one seed more or fewer there would make it; for a store that `in_hand` of them may not
        have reached yet, the likelier of the two."""
        if in_hand:
            return min(
                self.term(cup, count, emptied),
                self.term(cup, count - in_hand, emptied),
                key=lambda term: abs(term[0]),
            )
        if emptied:
            added, base = count, 0.0
        else:
            added = count - self.anchor.game.board[cup.idx]
            base = self.anchor.levels_g[cup.cell]
        change = cup.reading_g - base
        z = self.z(change, added)
        gain = max(
            (z * z - self.z(change, other) ** 2) / 2
            for other in (added - 1, added + 1)
            if count + other - added >= 0
        )
        return z, gain

    def z(self, change_g: float, added: int) -> float:
        """How far (in standard deviations) a cup's change is from `added` seeds more."""
        return (change_g - added * self.model.seed_g) / (self.sigma(added) * self.model.seed_g)

    def sigma(self, added: int) -> float:
        """The spread (in seeds) of a cup's change by `added` seeds more."""
        cv = self.model.cv
        return math.sqrt(SIGMA0_SEEDS**2 + abs(added) * cv**2 + (CALIBRATION * added) ** 2)

    def shortest(self) -> list[Explanation]:
        """The explanations found, one of each set of twins: two that differ only by steps
        at their end in cups not read (still moving, a hand resting on them, faulty) fit
        exactly as well, and are one explanation until those cups can be read. The twin that
        keeps more of the referee's own steps stays (it saw those cups when they could be
        read), else the shorter (what the cups do not show has not happened yet)."""
        score = {found.steps: found.score for found in self.found}

        def unread(step: Step) -> bool:
            cell = self.cells.get(step.at) if step.at is not None else None
            return cell is not None and self.readings_g[cell] is None

        def agreed(steps: tuple[Step, ...]) -> int:
            return next(
                (k for k, (a, b) in enumerate(zip(steps, self.prefer, strict=False)) if a != b),
                min(len(steps), len(self.prefer)),
            )

        twins: set[tuple[Step, ...]] = set()
        for found in self.found:
            k = len(found.steps)
            while k and unread(found.steps[k - 1]):
                k -= 1
                shorter = found.steps[:k]
                if score.get(shorter) == found.score:
                    longer_agrees = agreed(found.steps) > agreed(shorter)
                    twins.add(shorter if longer_agrees else found.steps)
        return [found for found in self.found if found.steps not in twins]

    def sharp(self, found: Explanation) -> frozenset[int]:
        """The cells whose change since the anchor tells one seed more (SHARP_SEEDS)."""
        board, before = found.game.board, self.anchor.game.board
        return frozenset(
            cup.cell
            for cup in self.cups
            if self.sigma(board[cup.idx] - (0 if cup.cell in found.emptied else before[cup.idx]))
            <= SHARP_SEEDS
        )


@dataclass(frozen=True)
class Cups:
    """What the cups say since `anchor`: each cell's reading now (grams at rest; None for a
    cell not to judge), which cell each place is, what a seed weighs, and when each cup moved
    (`motions[cell]`: when it began to move and when it settled again, in order; None: any
    time since the anchor)."""

    anchor: Anchor
    readings_g: Sequence[float | None]
    cells: dict[Place, int]
    model: SeedModel
    motions: dict[int, list[tuple[float, float]]] | None = None

    def search(self, prefer: Sequence[Step] = (), moves_seen: int = 0) -> _Search:
        motions = self.motions
        if motions is None:
            motions = {cell: [(self.anchor.t, math.inf)] for cell in self.cells.values()}
        return _Search(
            self.anchor,
            self.readings_g,
            self.cells,
            self.model,
            prefer,
            moves_seen + MORE_MOVES,
            motions,
        )


def explain(cups: Cups, prefer: Sequence[Step] = (), moves_seen: int = 0) -> Explanation | None:
    """The one sequence of due steps since the anchor that explains every cup's reading now,
    or None when none does, or more than one might. A step happens only while its cup moves,
    not before the hand's last step, for a hand that sows a seed and takes it again leaves its
    cup reading as before, but not still. `prefer` are the referee's steps since the anchor
    (tried first), `moves_seen` the moves it completed since."""
    search = cups.search(prefer, moves_seen)
    search.walk(search.root())
    ranked = sorted(search.shortest(), key=lambda e: e.score, reverse=True)
    if not ranked or ranked[0].worst_z > Z_MAX or ranked[0].score < MIN_SCORE:
        return None
    best = ranked[0]
    rival = max((e.score + e.mistake_gain - MISTAKE_COST for e in ranked), default=-math.inf)
    if len(ranked) > 1:
        rival = max(rival, ranked[1].score)
    if best.score - rival < MARGIN:
        return None
    return dataclasses.replace(best, sharp=search.sharp(best))


def fits(cups: Cups, steps: Sequence[Step]) -> bool:
    """Do these steps since the anchor (the referee's) leave every cup with the seeds it reads,
    even if another sequence might too (see `explain`)? Not asked: the order the cups moved in
    (a seed lost, then a spare put in its place after the next was sown, is a correction)."""
    search = cups.search(steps)
    node: _Node | None = search.root()
    for step in steps:
        node = search.step(node, step, timed=False) if node is not None else None
    if node is None or search.hopeless(node):
        return False
    score = -sum(z * z for z in node.z) / 2
    return max(map(abs, node.z), default=0.0) <= Z_MAX and score >= MIN_SCORE


def _starts_a_move(game: StepFollower, step: Step) -> bool:
    """A pickup that starts a move, taking turns (not a relay, not a simultaneous opening)."""
    return (
        step.kind is StepKind.PICKUP
        and not game.opening
        and game.hands[step.player].phase is Phase.START
    )


def _key(game: StepFollower, emptied: frozenset[int]) -> tuple[object, ...]:
    hands = tuple((h.phase, h.seeds, h.sown, h.relay_at, h.move_pit, h.last) for h in game.hands)
    return (tuple(game.board), hands, game.to_move, tuple(game.pending_sweeps), emptied)
