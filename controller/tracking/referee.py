"""The referee: weight changes in, rule steps, expected places and flags out.

It fuses the detector's settled changes with the rules engine's `StepFollower` into a belief of
where every seed is. It never re-implements a rule: every step goes through the follower, and
what the LEDs show is what the follower expects next. It never reads the simulator's truth.

Counting works on **increments** against expectations (HARDWARE.md): a pickup is "every seed of
the pit", checked by the pit reading empty afterwards; a landing is one seed, checked by its
mass against the mean seed mass; captured seeds are followed by their mass into the store.

Two clocks decide when a change is acted on:

- **at once** when it is what the rules expect (a seed in the expected place, the expected pit
  emptied, captured seeds arriving in the store). A seed landing in the expected place is even
  taken on the rise, one or two samples after it lands, and confirmed (or taken back, if the
  level settles without a seed: a finger on the cup) when the level settles;
- **after `hold_s` at rest** otherwise, on the *net* change of the cell since it first moved:
  a finger pressing a cup and lifting again nets to nothing, a grab that pressed first nets to
  the seeds lifted. Only a net change that is still unexplained raises a flag.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Hashable
from dataclasses import InitVar, dataclass, field
from typing import Any

from controller.board import BoardMapping
from controller.leds.patterns import GuidanceState
from controller.rules import Phase, Place, Position, Rules, Step, StepFollower, StepKind
from controller.sensing.detect import BoardDetector, Event, Onset, Settled
from controller.sensing.frames import Frame

from .explain import Anchor, Cups, Explanation, SeedModel, explain, fits
from .faults import SensorWatch
from .orders import OrderSearch
from .seeds import MIN_SEED, SeedWeights
from .verdicts import (
    BOARD_MISMATCH,
    SENSOR_FAULT,
    Flag,
    RecognisedStep,
    belief_json,
    guidance_of,
    next_kind,
    phase_of,
)

# Flag kinds of SIMULATION.md (and one more: a lift from a place nothing was expected from).
WRONG_START = "wrong_start"
NOT_ALL_LIFTED = "not_all_lifted"
WRONG_PIT = "wrong_pit"
EXTRA_SEED = "extra_seed"
OPPONENT_STORE = "opponent_store"
SEED_LOST = "seed_lost"
FOREIGN_SEED = "foreign_seed"
WRONG_PICKUP = "wrong_pickup"
# The flags a hand's mistake raises: the hand at the board made it (`Flag.player`).
HAND_MISTAKES = frozenset(
    {WRONG_START, NOT_ALL_LIFTED, WRONG_PIT, EXTRA_SEED, OPPONENT_STORE, SEED_LOST, WRONG_PICKUP}
)

# One seed is N(1, cv) mean seeds, two are N(2, cv * sqrt 2): as many standard deviations from
# either at 1 + 1 / (1 + sqrt 2), whatever the spread. Where both hands' seeds are due (a
# simultaneous opening) two are no rarer than one heavy seed, so the line is drawn there.
TWO_HANDS_TWO_AT = 1 + 1 / (1 + math.sqrt(2))
PATIENCE_S = 5.0  # how long a weight that is no whole number of seeds may rest on a cup
# A hand slips one seed into the wrong place; a rise of two seeds or more where no step is due
# may be a finger, a palm or a forearm resting on the cup (10 g to a few hundred: SIMULATION.md's
# human hands), and it may rest there for REST_MAX_S before its weight is called seeds ...
REST_MAX_S = 12.0
# Fingers brushing a cup (30-80 ms) or a bouncing seed striking it (20 ms, SIMULATION.md) may
# read as settled for a moment at 80 SPS: four readings agree at their top (each the mean of
# the last 50 ms), and they fall back within 30 ms. A seed where none is due is flagged, and
# (one hand playing) a landing guessed on the rise confirmed, once its level has held this long. (At 10 SPS a reading averages 100 ms: a brush
# never settles, see sensing/detect.py, and a settled level is judged at once.)
STRAY_HOLD_S = 0.05
# ... unless a hand holding just that many seeds takes no step for this long (or for
# HAND_STOPPED_INTERVALS of its usual interval, if longer) after the cup began to move: a hand
# that only rested a finger there sows on, one that let go of all its seeds there stops.
HAND_STOPPED_S = 0.8
HAND_STOPPED_INTERVALS = 2.0
# Seeds let go together strike the cup: at 80 SPS the reading overshoots their weight by this
# much at least (the ring averaged over a conversion: +58 % for three seeds in the simulator),
# where a palm settling on the cup reads within 1 % of its weight. In bench humans (80 SPS,
# 143 weights of 1.5 seeds and more at a due cup) two seeds let go overshot by 17 % to 58 %,
# fingers and palms by 6 % at most: the line is drawn between. (At 10 SPS a reading averages
# the ring away: +6 %, too close to tell.)
LET_GO_RING = 0.1
# A finger weighs 10 g at the least (SIMULATION.md), near two seeds: a weight from this many
# seeds up that did not strike the cup is waited for as a hand resting, however it weighs (a
# heavy natural seed weighs up to 1.45 seeds, 3 spreads). Asked of any weight over one seed,
# the strike missed 7 of 346 real mistakes in bench humans (marbles at 80 SPS).
FINGER_SEEDS = 1.5
SETTLING_S = 0.3  # a cup settles again this soon after a landing, at most
# A landing rings to 3-6 times the seed's weight for a moment, and a hand grabbing presses the
# cup with 20-60 g (SIMULATION.md), perhaps just after: a cup read further above its level than
# both together is bearing a forearm or a palm (see `Referee._arm_g`).
RING_MAX_SEEDS = 6.0
PRESS_MAX_G = 80.0
# A grab presses 0.15 s before the seeds leave (SIMULATION.md): a cup back at its level this
# soon after it rose had nothing land in it that a hand then took away.
BLIP_S = 0.15
LANDING_CARRIED_S = 1.5  # a landing taken on to the store: its cup moved this recently
# Two hands: a seed that would be a stray waits this long at most while a cup where a step
# is due is still moving (see `_explain_late`).
OTHER_CUP_WAIT_S = 1.5
# A seed landing in the expected place is taken on its first samples once the cup has risen
# this much (mean seeds): at 80 SPS the first sample rings at several times the seed; at 10 SPS
# the second shows a quarter to a half of it (the mean of 4 instants), the third half to three
# quarters, 100 ms later. Waiting for half a seed there kept the lights 300 ms behind a light
# natural seed; a brush or a palm taken for a seed is taken back when the cup settles.
EARLY_SOW_SEEDS = 0.5
SLOW_EARLY_SOW_SEEDS = 0.2
ONSET_SEEDS = 0.3  # the detector's onset (sensing/detect.py) ...
SLOW_ONSET_SEEDS = 0.15  # ... and at 10 SPS while hands take turns (`_follow_one_hand_sooner`)
TEMPO_SEEDS = 6  # a hand's tempo is taken from its last this many seeds (see `_choose`)
TEMPO_GAP_S = 1.5  # a hand whose last seed is older than this has no tempo to go by
FELL_WITHIN_S = 0.6  # a cup's onset this recent is when the seed judged there fell
GRABBED_SEEDS = 1.0  # a cup pushed this far above its level (in seeds) was grabbed
# At 10 SPS a landing seed ramps up over four readings, its ring averaged away: a rise beyond
# this many seeds while a landing is taken early is a hand pressing to grab the pit.
PRESS_RISE_SEEDS = 1.5
STALL_S = 1.5  # a hand sowing does not rest this long with seeds in it (1 s a seed: 1.3 s)
# ... nor this long before a relay it must make (a player may stop to look before a relay; in
# a simultaneous opening, a race, not for long)
RELAY_STALL_S = 5.0
# A hand drops a seed every 125 ms at the fastest (an expert's 8 a second, issue 3), 90 ms with a
# jitter of 30 %; at 80 SPS steps are taken 10-25 ms after they happen.
ONE_HAND_S = 0.06
MAX_SOWN_ON = 4  # seeds a fast hand may sow on while a stray's cup has not settled

TAKES = (StepKind.PICKUP, StepKind.CAPTURE, StepKind.SWEEP)  # steps that empty a pit
# Flags the cups at rest cannot take back: a sensor's fault (and no cup is explained while one
# waits), and a seed lost while the explanation leaves seeds in a hand (a hand that holds one
# seed fewer than the rules say leaves the cups as a hand resting mid-sowing would).
UNEXPLAINABLE = (SENSOR_FAULT,)
WITHDRAWN = "withdrawn: due steps explain every cup at rest"

FLAG_KINDS = (
    WRONG_START,
    NOT_ALL_LIFTED,
    WRONG_PIT,
    EXTRA_SEED,
    OPPONENT_STORE,
    SEED_LOST,
    FOREIGN_SEED,
    BOARD_MISMATCH,
    SENSOR_FAULT,
    WRONG_PICKUP,
)


@dataclass
class Carry:
    """Seeds in a hand that the follower does not show there.

    After a capture or sweep the follower has them in the store already, but the hand is still
    carrying them (`to_cell` is the store). After a wrong lift they belong back where they came
    from (`to_cell` is that pit, and `flag` waits for them).
    """

    player: int
    count: int
    mass_g: float
    to_cell: int
    from_place: Place
    flag: Flag | None = None
    guessed: int = 0  # seeds in mass_g whose own mass was never seen (a mean seed assumed)
    # A seed that fell in while the pit was lifted and went with the rest: the cup never
    # weighed it, so it is not in what the lift is seen to take (see `_lifted_mass`).
    along_g: float = 0.0
    taken: RecognisedStep | None = None  # the capture or sweep whose seeds these are


@dataclass
class Pending:
    """Settled changes of one cell not yet explained, summed."""

    first_t: float
    last_t: float
    net_g: float
    level_g: float
    onset_t: float  # when the cup began to move (the first change's onset)
    patience_until: float = 0.0  # a weight that is no whole number of seeds: wait longer
    high_g: float = -math.inf  # the most the cup read meanwhile (a hand pressing to grab)
    # Waited for as a hand resting (REST_MAX_S); its seeds after all if it weighs just what a
    # hand holds and that hand takes no step for HAND_STOPPED_S (`Referee._hand_stopped`).
    resting: bool = False
    held: bool = False  # judged again once it held for STRAY_HOLD_S

    @property
    def pressed_g(self) -> float:
        """How far above its level now the cup was pushed while it changed."""
        return max(0.0, self.high_g - self.level_g)


@dataclass
class Lifting:
    """A pit a hand is still lifting, both hands' seeds in it, its cup settled part way (see
    `Referee._sown_while_lifting`): the take to feed once it is empty."""

    take: Step
    lifted_g: float  # what left the cup so far
    since: float  # when the cup settled part way
    guessed: int  # seed masses in `lifted_g` that were guessed


@dataclass
class LeftBehind:
    """Seeds a pickup left in its pit: the follower has them in the hand already.

    A person may lift a full pit in two handfuls, so seeds left behind are no mistake until
    the hand sows on without them (`Referee._sown_on_without`): only then is `flag` raised.
    `taken` is the pickup, to tell the hand's later seeds by."""

    count: int
    flag: Flag | None
    taken: RecognisedStep | None = None


@dataclass
class Tentative:
    """A landing taken early on the rise; undone if the level settles without a seed."""

    t: float
    before: StepFollower
    step: Step


@dataclass
class Referee:
    """Follows a game on the board from frames of raw readings.

    `seed_g` is the mean seed mass (from the start layout: see `estimate_seed_mass`).
    """

    rules: Rules
    mapping: BoardMapping
    detector: BoardDetector
    seed_g: float
    # The game to follow from (a resumed one); a new game of `rules` when not given. Only
    # `game` is kept up to date: it is replaced when a guessed step is taken back.
    follower: InitVar[StepFollower | None] = None
    start_cv: float = 0.25  # spread of seed masses, from the start layout (see session.py)
    hold_s: float = 0.25
    rest_check_s: float = 1.0
    steps: list[RecognisedStep] = field(default_factory=list)
    # steps[:stand] have stood since `changes` was last asked (steps after may be new, or
    # have replaced steps taken back): the journal is told, it does not compare steps.
    stand: int = 0
    flags: list[Flag] = field(default_factory=list)
    publications: int = 0  # how often the expected places changed (a change counter)

    def __post_init__(self, follower: StepFollower | None) -> None:
        self.game: StepFollower = follower if follower is not None else StepFollower.new(self.rules)
        self.strays: dict[int, int] = {}
        self.stray_flags: dict[int, Flag] = {}
        self.carries: list[Carry] = []
        self.tentative: dict[int, Tentative] = {}
        self.pending: dict[int, Pending] = {}
        self.partial: dict[int, tuple[float, Flag]] = {}
        # Pits a take left seeds in, the take fed: the seeds the hand owes (see LeftBehind).
        self.left_behind: dict[int, LeftBehind] = {}
        # Pits a hand is still lifting, both hands' seeds in them (a simultaneous opening).
        self.lifting: dict[int, Lifting] = {}
        self.owed: dict[int, int] = {}  # cell -> seeds there that are steps still to come
        # cell -> the hand behind its partial, lifting, left or owed seeds
        self.hand_of: dict[int, int] = {}
        # Pits seen being lifted, unexpectedly, before they settled: the carry back to them
        # (counted again from the settled change).
        self.early_lifts: dict[int, Carry] = {}
        self.dropped: list[RecognisedStep] = []  # see `_feed_dropped`
        self.place_of = self.mapping.place_of
        self.cell_of = self.mapping.cell_of
        self.now = 0.0
        self.last_activity = 0.0
        rate = self.detector.cells[0].rate_sps if self.detector.cells else 80.0
        self.sensors = SensorWatch(len(self.detector.cells), rate)
        self.fault_flags: dict[int, Flag] = {}
        self.mismatch: Flag | None = None
        self.serials = itertools.count(1)  # shared with the copies (see `snapshot`)
        # What each cell should read, by the changes accounted for so far (starts at the
        # levels the board was started with: see `start_levels`).
        self.expected_g: list[float | None] = [None] * len(self.detector.cells)
        self.seeds = SeedWeights(self.seed_g, self.start_cv)  # what a seed weighs (seeds.py)
        self.last_landing: dict[int, tuple[float, float]] = {}  # cell -> (t, grams)
        self.landed_t: dict[int, float] = {}  # cell -> when a landing there was last taken
        # The last sow taken: its cell, the game before it, the step (see `_sow_taken_back`).
        self.last_sow: tuple[int, StepFollower, RecognisedStep] | None = None
        self._last_expected: tuple[Place, ...] = ()
        # Steps of both hands due at one place (a simultaneous opening): whose it was is a
        # choice the weights cannot make. The likelier is taken (see `_expected_in_turn`);
        # `orders` keeps what it needs to take the other later (see orders.py).
        self.choices: list[tuple[int, int]] = []  # this frame's choices: (options, taken)
        self.forced: list[int] = []  # the option to take at each choice (a replay)
        self.judged: tuple[int, float] = (-1, 0.0)  # the cell whose change is judged, its onset
        self.invert = False  # a replay: take the other option at each choice not forced
        self._answers: dict[Hashable, int] = {}
        self.orders: OrderSearch | None = (
            OrderSearch() if self.rules.options.simultaneous_opening else None
        )
        # The last certain point, to explain the cups from again when in doubt (explain.py);
        # `explained_rest` is the rest (by its start) already explained from it.
        self.anchor: Anchor | None = None
        # cell -> when its cup began to move and settled again (inf: still moving), since
        self.motions: dict[int, list[tuple[float, float]]] = {}
        self.explained_rest = -1.0
        self.explaining = True  # are the cups asked (explain.py)? Not in a replay (orders.py)
        self.anchor_asked = -1  # the steps taken when a certain point was last looked for
        self.explained_again = 0  # how often the cups told other steps than the referee's
        self.explain_s_max = 0.0  # the longest search (CPU seconds)
        self.explained_t = -1.0  # when the cups, all read, last told what happened (orders.py)
        slow = self.detector.slow
        self.early_sow_g = (SLOW_EARLY_SOW_SEEDS if slow else EARLY_SOW_SEEDS) * self.seed_g
        self._publish(0.0)

    # -- entry point ----------------------------------------------------------------------------

    def process(self, frame: Frame) -> None:
        orders = self.orders
        if orders is None:
            self.follow(frame)
        else:
            orders.process(self, frame)  # which calls `follow`, and may try other orders

    def follow(self, frame: Frame) -> None:
        """Take one frame, making the likelier (or `forced`) choice wherever both hands
        are due at one place."""
        self.choices = []
        self._answers = {}
        self.judged = (-1, 0.0)
        t = self.now = frame.t
        steps_before = len(self.steps)
        blocked = self._blocked()
        flags_before = len(self.flags)
        self._sensor_faults(frame)
        batch = self.detector.update(t, frame.raw)
        settled = self._take_settled_changes(batch.events, t)
        if settled and not batch.common_mode:
            self._explain_in_order(settled)
        held = [] if batch.common_mode else self._newly_held(t)
        if held:
            self._explain_in_order(held)
        if self.tentative:
            self._arms_undone()  # (an arm on several cups reads like a knock: common mode)
        if not batch.common_mode:
            self._early_landings(t)
        for cell in list(self.pending):
            pending = self.pending[cell]
            if self._due_for_judgement(cell, pending, t):
                del self.pending[cell]
                self._explain_late(cell, pending)
                self._feed_dropped()
        for cell, lifting in list(self.lifting.items()):
            if t - lifting.since >= self.hold_s and not self._moving(cell):
                self._lift_stopped(cell)
        if self.left_behind:
            self._sown_on_without()
        self._forget_carries_taken_back()
        if blocked and not self._blocked():
            # A mistake was just put right: changes that waited for that are judged now.
            self._explain_in_order()
        if self._judged_this_frame(flags_before) and self._explain_again(t, flags_before):
            pass  # the cups are explained by due steps: the flags were never shown
        elif not self.detector.at_rest():
            self.last_activity = t
        elif t - self.last_activity >= self.rest_check_s:
            self._check_at_rest(t)
        elif self._move_just_ended():
            self._anchor_if_certain(t)
        self._publish(t, steps_before)

    def _take_settled_changes(self, events: list[Event], t: float) -> list[int]:
        """Add this frame's settled changes to what waits to be judged at each cell (a
        faulty cell's changes are no seeds: play goes on elsewhere); the cells they came at."""
        settled: list[int] = []
        for event in events:
            self._moved(event)
            if not isinstance(event, Settled) or event.cell in self.fault_flags:
                continue
            settled.append(event.cell)
            self.last_activity = t
            self._account(event.cell, event.change_g)
            pending = self.pending.get(event.cell)
            # (A press may settle for a moment too: then it is a level of its own.)
            high = max(event.level_g, event.level_g - event.change_g + event.peak_g)
            if pending is None:
                self.pending[event.cell] = Pending(
                    t, t, event.change_g, event.level_g, event.onset_t, high_g=high
                )
            else:
                pending.last_t = t
                pending.held = False
                pending.high_g = max(pending.high_g, high)
                pending.net_g += event.change_g
                pending.level_g = event.level_g
                if pending.resting:
                    # A weight waited for as a hand resting changed again (a forearm leaned
                    # on the cup a palm rests on): hands, not seeds, and REST_MAX_S counts
                    # from now, when it is judged again.
                    pending.patience_until = 0.0
        return settled

    def _moved(self, event: Event) -> None:
        """Keep when each cup moves since the anchor, for the cups' explanation."""
        motions = self.motions.setdefault(event.cell, [])
        if isinstance(event, Onset):
            motions.append((event.t, math.inf))
        elif motions and isinstance(event, Settled) and motions[-1][1] == math.inf:
            motions[-1] = (motions[-1][0], event.t)

    def _newly_held(self, t: float) -> list[int]:
        """Cells whose waiting change has now held its level for STRAY_HOLD_S (at 80 SPS; at
        10 SPS at once), still at rest: judged again (see STRAY_HOLD_S)."""
        hold = 0.0 if self.detector.slow else STRAY_HOLD_S
        held = [
            c
            for c, p in self.pending.items()
            if not p.held and t - p.last_t >= hold and not self.detector.cells[c].active
        ]
        for cell in held:
            self.pending[cell].held = True
        return held

    def _due_for_judgement(self, cell: int, pending: Pending, t: float) -> bool:
        """Has a waiting change held for `hold_s`, its cup at rest, and no reason to wait
        longer (a weight that may be a hand resting: `_resting_for`)?"""
        return (
            t - pending.last_t >= self.hold_s
            and (t >= pending.patience_until or self._gone(pending) or self._hand_stopped(pending))
            and not self.detector.cells[cell].active
        )

    def snapshot(self) -> Referee:
        """A copy to replay frames on: it shares the rules, the board mapping and the steps
        taken so far (they never change), and follows no orders of its own."""
        memo: dict[int, Any] = {
            id(self.rules): self.rules,
            id(self.mapping): self.mapping,
            id(self.place_of): self.place_of,
            id(self.cell_of): self.cell_of,
            id(self.orders): None,
            id(self.serials): self.serials,
            id(self.anchor): self.anchor,  # frozen, its game never fed
        }
        for recognised in self.steps:
            memo[id(recognised)] = recognised
        # The detector and the games have cheap copies of their own (a deep copy of the
        # detector was two thirds of a snapshot's 0.67 ms, and a search makes dozens).
        memo[id(self.detector)] = self.detector.copy()
        for game in self._games():
            memo.setdefault(id(game), game.copy())
        replica = copy.deepcopy(self, memo)
        replica.explaining = False  # a replay weighs orders by its doubts, the cups unasked
        return replica

    def _games(self) -> list[StepFollower]:
        """Every game this referee keeps and may feed or go back to (the anchor's is never
        fed): the one followed, and those before a guessed landing."""
        games = [self.game, *(tentative.before for tentative in self.tentative.values())]
        if self.last_sow is not None:
            games.append(self.last_sow[1])
        return games

    def adopt(self, other: Referee) -> None:
        """Take on the state of `other`, a snapshot that replayed the same frames another way
        (see orders.py). Whoever holds this referee is told the steps after the first that
        differs as taken back (`changes`), and the next places are published again."""
        orders, publications, explaining = self.orders, self.publications, self.explaining
        alike = next(
            (k for k, (a, b) in enumerate(zip(self.steps, other.steps, strict=False)) if a != b),
            min(len(self.steps), len(other.steps)),
        )
        stand = min(self.stand, alike)
        self.__dict__.update(vars(other))
        self.orders, self.explaining, self.stand = orders, explaining, stand
        self.publications = max(publications, other.publications) + 1

    def changes(self, known: int) -> tuple[int, list[RecognisedStep]]:
        """Asked by whoever journals the steps, holding the first `known` of them: how many of
        those still stand (the rest were taken back: a guess undone, another order or the
        cups' explanation taken), and the steps after them, to journal."""
        keep = min(known, self.stand, len(self.steps))
        self.stand = len(self.steps)
        return keep, self.steps[keep:]

    def _took_back(self, keep: int) -> None:
        """Only the first `keep` steps stand since `changes` was last asked."""
        self.stand = min(self.stand, keep)

    # -- early landings -------------------------------------------------------------------------

    def _early_landings(self, t: float) -> None:
        """Take expected steps on the first samples that show them.

        A seed landing in the expected place shows as a rise of half a seed; the expected pit
        being lifted shows as its weight mostly gone (a press never reads below the rest).
        Either is taken at once and confirmed, or undone, when the cell settles, so that fast
        hands (a seed every 125 ms, while a 10 SPS reading needs 400 ms to settle) are
        followed in order. At 10 SPS a pit no step expects is flagged here too, as soon as
        most of its seeds are seen leaving (`_early_wrong_lift`).
        """
        if not self.detector.active:
            return  # (no cup moves: most frames)
        for _ in range(4):  # a lift and the seeds after it may all show in one frame
            if self._blocked() or not self._early_step(t):
                break
        if not self._blocked():
            self._early_wrong_lift(t)

    def _early_step(self, t: float) -> bool:
        for due in self._expected_in_turn():
            if due.at is None:
                continue
            cell = self.cell_of[due.at]
            detector = self.detector.cells[cell]
            if detector.active and self._came_to_nothing(cell, due):
                del self.pending[cell]  # judged now: it moved nothing
            if cell in self.tentative or cell in self.pending or cell in self.lifting:
                continue  # (a pit still being lifted is taken once its cup settles empty)
            if not detector.active:
                continue
            before = self.game.copy()
            if due.kind is StepKind.SOW:
                if (
                    detector.rise > self.early_sow_g
                    and self._rising_seed(cell, due.player)
                    and not self._lift_due(due.at)
                    and not self._start_grab_pressing(due.at, detector.peak)
                ):
                    step = self._expected_at(due.at, StepKind.SOW)  # both hands may be due
                    if step is not None and self.game.feed(step).accepted:
                        self.steps.append(RecognisedStep(t, step, detector.onset_t))
                        self.tentative[cell] = Tentative(t, before, step)
                        self.last_sow = (cell, before, self.steps[-1])
                        return True
                continue
            content = self.expected_g[cell]
            if content is None or content < MIN_SEED * self.seed_g:
                continue
            # Two samples on: a glitch that happens to read near the truth is one sample.
            if detector.since_onset >= 2 and detector.rise < -0.6 * content:
                step = self._expected_at(due.at, *TAKES)
                if step is not None and self._feed_take(step, cell, due.at, content, t):
                    self.tentative[cell] = Tentative(t, before, step)
                    return True
        return False

    def _came_to_nothing(self, cell: int, due: Step) -> bool:
        """Is the change waiting at a cup where a seed is due now one that went away again
        (fingers brushing it, a hand resting and lifting off), the cup moving anew? Then the
        seed landing is to be seen on its rise, not only once it settles. (Not where a take is
        due as well: a seed landing and lifted with the pit nets to nothing too.)"""
        pending = self.pending.get(cell)
        return (
            pending is not None
            and due.kind is StepKind.SOW
            and abs(self.seeds.count(pending.net_g)) < MIN_SEED
            and cell not in self.tentative
            and not self._due_at(due.at, *TAKES)
        )

    def _rising_seed(self, cell: int, player: int) -> bool:
        """May the cup's rise be `player`'s next seed landing? If the cup began to move after
        that hand's last seed fell: unless it has read more than a seed's ring and a grab's
        press together since (`_arm_g`, see `_arms_undone`). If before (fingers brushing it, a
        palm lifting off it): only a rise of a landing's first samples from its lowest reading
        since the last step, the cup reading no more than that now."""
        detector = self.detector.cells[cell]
        if detector.onset_t >= self._last_fell(player):
            return detector.peak <= self._arm_g()
        return detector.risen_g > self.early_sow_g and detector.rise <= self._arm_g()

    def _last_fell(self, player: int, before: int | None = None) -> float:
        """When `player`'s last seed taken fell (of the steps before the `before`th), less one
        reading: a hand drops its seeds one after the other, so a cup that began to move
        before that (a forearm leaning on the next cups) is not its next seed."""
        for recognised in reversed(self.steps[:before]):
            if recognised.step.player != player or recognised.step.kind is not StepKind.SOW:
                continue
            if recognised.fell is None:
                break
            return recognised.fell - 1.0 / self.detector.cells[0].rate_sps
        return -math.inf

    def _taken_at(self, tentative: Tentative) -> int | None:
        """Where in the steps the landing guessed on the rise is (None: not there): the
        latest step like it (a copy of the referee has copies of the steps, see `snapshot`)."""
        for k in range(len(self.steps) - 1, -1, -1):
            if self.steps[k].step == tentative.step:
                return k
        return None

    def _lift_due(self, place: Place) -> bool:
        """Must the other hand lift this pit (a relay or capture, in a simultaneous opening)?
        Then a rise may be its grab pressing first, not a seed: the settled change tells."""
        hands = self.game.hands
        return any(
            s.at == place and s.kind in TAKES and hands[s.player].phase is not Phase.START
            for s in self.game.expected()
        )

    def _start_grab_pressing(self, place: Place, peak_g: float) -> bool:
        """At 10 SPS, has a cup's reading gone further above its level (`peak_g`, its largest
        excursion since it began to move) than a seed's ramp can, at a pit that a hand free to
        start (a simultaneous opening) may lift? Then it is that hand's grab pressing first."""
        if not self.detector.slow or peak_g <= PRESS_RISE_SEEDS * self.seed_g:
            return False
        hands = self.game.hands
        return any(
            s.at == place and s.kind is StepKind.PICKUP and hands[s.player].phase is Phase.START
            for s in self.game.expected()
        )

    def _early_wrong_lift(self, t: float) -> None:
        """Flag a pit that no step expects as soon as most of its seeds are seen leaving.

        Like an expected pickup on its first samples, but raising the flag: at 10 SPS waiting
        for the lift to settle takes half a second more (at 80 SPS it settles in time, and
        waiting keeps the first samples of a cell gone wild from passing for a lift). A pit
        that the next sow could make a relay or capture pit is left to the settled change
        (that sow may not be seen yet)."""
        if not self.detector.slow:
            return
        expected = self.game.expected()
        for cell, detector in enumerate(self.detector.cells):
            if not detector.active or detector.since_onset < 2 or not detector.falling:
                continue
            place = self.place_of.get(cell)
            content = self.expected_g[cell]
            if (
                place is None
                or place.is_store
                or content is None
                or content < (1 - MIN_SEED) * self.seed_g
                or not -content - self.seed_g < detector.rise < -0.6 * content
                or any(step.at == place for step in expected)
                or self._busy(cell)
                or self._last_sown_here(cell)
                or self._may_take_after_a_sow(place, expected)
            ):
                continue
            kind = WRONG_START if self._starting_pit(place) else WRONG_PICKUP
            carry = self._wrong_lift(kind, cell, place, content, t)
            if carry is not None:
                self.early_lifts[cell] = carry
            return

    def _busy(self, cell: int) -> bool:
        """Is the cell already part of a step or a problem being followed?"""
        return (
            cell in self.tentative
            or cell in self.pending
            or cell in self.early_lifts
            or cell in self.strays
            or cell in self.partial
            or cell in self.left_behind
            or cell in self.lifting
            or cell in self.owed
            or cell in self.fault_flags
            or any(c.to_cell == cell for c in self.carries)
        )

    def _may_take_after_a_sow(self, place: Place, expected: list[Step]) -> bool:
        for step in expected:
            if step.kind is StepKind.SOW:
                trial = self.game.copy()
                if trial.feed(step).accepted and any(s.at == place for s in trial.expected()):
                    return True
        return False

    def _early_lift_settled(self, cell: int, pending: Pending) -> bool:
        """The settled change of a pit flagged early as lifted: count the seeds that left.
        If none did after all, the flag is withdrawn and the change judged as any other."""
        carry = self.early_lifts.get(cell)
        if carry is None:
            return False
        if -self.seeds.count(pending.net_g) < MIN_SEED:
            self._withdraw_early_lift(cell, pending.last_t)
            return False
        del self.early_lifts[cell]
        carry.count = _count(self.seeds.count(pending.net_g))
        carry.mass_g = -pending.net_g
        return True

    def _withdraw_early_lift(self, cell: int, t: float) -> None:
        carry = self.early_lifts.pop(cell, None)
        if carry is None:
            return
        self.carries = [c for c in self.carries if c is not carry]
        if carry.flag is not None:
            carry.flag.resolved_t = t

    def _blocked(self) -> bool:
        """While a hand mistake waits to be put right, no new step is taken. (Not for seeds
        left in a pit: its pickup stands, and the hand's seeds sown meanwhile are its steps.)"""
        owed = {
            id(left.flag)
            for left in self.left_behind.values()
            if left.taken is not None and left.taken.step.kind is StepKind.PICKUP
        }
        return any(
            f.active and f.kind not in (BOARD_MISMATCH, SENSOR_FAULT) and id(f) not in owed
            for f in self.flags
        )

    # -- explaining settled changes -------------------------------------------------------------

    def _landed_here(self, n: float, place: Place | None, player: int) -> int:
        """Seeds in a landing of `n` mean seeds at `place`, where `player`'s seed was just
        taken. If the other hand's seed is coming there too (a simultaneous opening), two
        seeds are likelier than one heavy seed from TWO_HANDS_TWO_AT on."""
        landed = self.seeds.landed(n)
        if landed == 1 and n >= TWO_HANDS_TWO_AT and self._other_hand_coming(place, player):
            return 2
        return landed

    def _other_hand_coming(self, place: Place | None, player: int) -> bool:
        """Is the other hand's seed due at `place`, now or once its seeds in cups that are
        still moving are taken? (At 10 SPS a cup sown first may settle after the next.)"""
        trial = self.game.copy()
        for _ in range(MAX_SOWN_ON):
            sow = next(
                (s for s in trial.expected() if s.kind is StepKind.SOW and s.player != player),
                None,
            )
            if sow is None or sow.at is None:
                return False
            if sow.at == place:
                return True
            if not self._moving(self.cell_of[sow.at]) or not trial.feed(sow).accepted:
                return False
        return False

    def _gone(self, pending: Pending) -> bool:
        """Has a weight given time to go away (`patience_until`) gone? Then there is no
        more to wait for, and the cup's next seed is to be seen as soon as it lands."""
        return abs(self.seeds.count(pending.net_g)) < MIN_SEED

    def _resting_for(self, n: float, place: Place | None, pending: Pending) -> float:
        """How long a rise of `n` seeds that no due step explains may be a hand resting on the
        cup (0: it can only be seeds). A hand slips one seed; a finger or palm weighs 10 g
        and more (SIMULATION.md), two seeds and up: anything heavier than one seed a hand
        (two, with both hands sowing at once) may be a hand resting, until it goes, or for
        REST_MAX_S, or until a hand that holds that many seeds stops sowing
        (`_hand_stopped`)."""
        hands = len(self.game.active_players())
        if n >= max(1, hands) - 1 + self.seeds.two_at():
            return REST_MAX_S
        if n >= FINGER_SEEDS and not self._let_go(pending, self._sowing_player()):
            return REST_MAX_S  # (a finger settles on the cup, seeds strike it)
        return 0.0 if self.seeds.whole(n) else PATIENCE_S

    def _let_go(self, pending: Pending, player: int | None) -> bool:
        """May the weight be seeds `player`'s hand let go of? Seeds strike the cup: at 80 SPS
        the reading overshoots their weight by LET_GO_RING at least, where a palm or a finger
        settles within 1 % of it (at 10 SPS a reading averages the ring away). And they fall
        after the hand's last seed (`_after_last_seed`)."""
        peak_g = pending.high_g - (pending.level_g - pending.net_g)
        struck = self.detector.slow or peak_g >= (1 + LET_GO_RING) * pending.net_g
        return struck and (player is None or self._after_last_seed(pending, player))

    def _after_last_seed(self, pending: Pending, player: int, before: int | None = None) -> bool:
        """Did the cup begin to move after `player`'s last seed fell (of its steps before the
        `before`th)? A weight that came before it is no seed of that hand: a finger resting on
        the next cup while the hand sowed this one (10 g, two seeds' weight)."""
        return pending.onset_t >= self._last_fell(player, before)

    def _finger_not_seed(self, n: float, pending: Pending, tentative: Tentative) -> bool:
        """Is a weight where a landing was guessed a hand resting, not the seeds guessed? One
        as heavy as a finger (FINGER_SEEDS: a heavy natural seed weighs up to 1.45, and the
        seed model learned early may still call 1.7 one seed) that came before the hand's
        previous seed fell (a finger on the next cup while it sowed this one), or that did
        not strike the cup: not asked while two hands race, whose seeds may fall into one cup
        together, unstruck."""
        if n < FINGER_SEEDS:
            return False
        player = tentative.step.player
        if not self._after_last_seed(pending, player, self._taken_at(tentative)):
            return True
        return len(self.game.active_players()) < 2 and not self._let_go(pending, None)

    def _hand_stopped(self, pending: Pending) -> bool:
        """Are the seeds a rise waited for as a hand resting (`_resting_for`) the seeds of a
        hand after all? A hand that holds just as many (it let go of all of them at once, not
        a slip) has taken no step for HAND_STOPPED_S since the cup began to move: had it only
        rested a finger there, it would have sown on. (A hand that pauses mid-sowing while a
        finger rests elsewhere is waited for: a rest weighs as many seeds as it holds only by
        chance.) Nor a weight no number of seeds has, nor one that came with no strike (at
        80 SPS: LET_GO_RING)."""
        if not pending.resting or self.now - pending.onset_t < HAND_STOPPED_S:
            return False
        n = self.seeds.count(pending.net_g)
        if not self.seeds.whole(n):
            return False  # (what no number of seeds weighs: a hand, however long it rests)
        k = _count(n)
        if not self._let_go(pending, self._sowing_player()):
            return False  # it settled on the cup without a strike, or too soon: a palm
        players = {p for p, hand in enumerate(self.game.hands) if hand.seeds == k}
        waited = self.now - pending.onset_t
        if any(waited < HAND_STOPPED_INTERVALS * self._interval(p) for p in players):
            return False
        for recognised in reversed(self.steps):
            fell = recognised.fell if recognised.fell is not None else recognised.t
            if fell < pending.onset_t:
                break
            if recognised.step.player in players:
                return False
        return bool(players)

    def _interval(self, player: int) -> float:
        """The hand's usual interval between seeds lately (0 if it has none)."""
        times = [
            r.fell
            for r in reversed(self.steps[-4 * TEMPO_SEEDS :])
            if r.step.player == player and r.fell is not None
        ][:TEMPO_SEEDS]
        return _usual_interval(sorted(times, reverse=True)) or 0.0

    def _expected_at(self, place: Place | None, *kinds: StepKind) -> Step | None:
        """The step expected at `place` of one of `kinds`; if both hands have one, the
        likelier hand's (or, replaying, the one `forced`)."""
        if place is None:
            return None
        found: list[Step] = []
        for step in self._expected_in_turn():
            if (
                step.at == place
                and step.kind in kinds
                and all(other.player != step.player for other in found)
            ):
                found.append(step)
        if len(found) < 2:
            return found[0] if found else None
        return self._choose(tuple(found))

    def _due_at(self, place: Place | None, *kinds: StepKind) -> bool:
        """Is a step of one of `kinds` due at `place` (for either hand)? Unlike
        `_expected_at` this asks no question of whose it is (see `_decide`)."""
        return any(s.at == place and s.kind in kinds for s in self.game.expected())

    def _choose(self, options: tuple[Step, ...]) -> Step:
        """One of the steps of both hands due at one place (see `_decide`). Seeds of both
        hands: the likelier is the hand whose own tempo puts its next seed nearest to when
        this one fell (two hands sowing one row, one just behind the other, take turns at
        each cup). Else a hand that made a step in the last ONE_HAND_S cannot make another
        yet: the other is likelier. (At 10 SPS steps are seen in frames of 100 ms: two of one
        hand can share one.)"""
        due = self._due_by_tempo(options)
        if due is not None:
            options = tuple(sorted(options, key=due))
        elif not self.detector.slow:
            options = tuple(sorted(options, key=lambda s: self._since_step(s.player) < ONE_HAND_S))
        return options[self._decide(options, len(options))]

    def _due_by_tempo(self, options: tuple[Step, ...]) -> Callable[[Step], float] | None:
        """For sows of hands that each sowed a few seeds lately: how far from when this seed
        fell each hand's tempo puts its next seed (its last seed's time plus its usual
        interval, or if it lifted a pit since, a relay, the lift's plus that interval);
        None if that cannot be told (a hand with no seed lately, counted from its last seed,
        even if it lifted a pit since)."""
        place = options[0].at
        if place is None or any(s.kind is not StepKind.SOW for s in options):
            return None
        fell = self._fell_at(self.cell_of[place], self.now)
        due: dict[int, float] = {}
        for step in options:
            times: list[float] = []
            lifted: float | None = None  # a lift after the hand's last seed: when taken
            for recognised in reversed(self.steps):
                if len(times) == TEMPO_SEEDS:
                    break
                if recognised.step.player != step.player:
                    continue
                if recognised.fell is not None:
                    times.append(recognised.fell)
                elif not times and lifted is None and recognised.step.kind in TAKES:
                    lifted = recognised.t  # (when the lift was judged: a little after it)
            times.sort(reverse=True)  # (taken in the order judged, not quite as they fell)
            usual = _usual_interval(times)
            if usual is None or fell - times[0] > TEMPO_GAP_S:
                return None
            last = times[0] if lifted is None else max(times[0], lifted)
            due[step.player] = abs(fell - last - usual)
        return lambda s: due[s.player]

    def _fell_at(self, cell: int, t: float) -> float:
        """When the seed now taken at `cell` fell: the onset of the change being judged there,
        or of the cup's movement under way (a landing taken early), if recent; else `t` (a
        landing inferred, never seen on its own)."""
        judged_cell, onset = self.judged
        if judged_cell == cell:
            return min(onset, t)
        onset = self.detector.cells[cell].onset_t
        return onset if 0.0 <= t - onset < FELL_WITHIN_S else t

    def _since_step(self, player: int) -> float:
        """How long ago the hand's last step was taken (infinite if never)."""
        for recognised in reversed(self.steps):
            if recognised.step.player == player:
                return self.now - recognised.t
        return math.inf

    def _decide(self, question: Hashable, count: int) -> int:
        """Which of `count` explanations the weights cannot tell apart (whose seed fell
        first, in a simultaneous opening) to follow: option 0, the likelier, unless a replay
        forces another (orders.py). The same question gets the same answer for the rest of
        the frame."""
        answer = self._answers.get(question)
        if answer is None:
            k = len(self.choices)
            if k < len(self.forced):
                answer = min(self.forced[k], count - 1)
            else:
                answer = 1 if self.invert else 0
            self.choices.append((count, answer))
            self._answers[question] = answer
        return answer

    def _expected_in_turn(self) -> list[Step]:
        """The expected steps, those of a hand in the middle of its move first.

        In a simultaneous opening both hands may take the same pit: one whose last seed just
        fell there must pick it up again (a relay) or capture, the other may start a new
        move from any pit. The hand that must is the likelier one."""
        steps = self.game.expected()
        if len(self.game.active_players()) < 2:
            return steps  # one hand: nothing to choose between (and this runs every frame)
        hands = self.game.hands
        return sorted(steps, key=lambda s: hands[s.player].phase is Phase.START)

    def _explain_in_order(self, cells: list[int] | None = None) -> None:
        """Judge the changes of `cells` (all waiting when None) in the order they first
        settled; once one is explained, judge again every change still waiting (but not of a
        cup moving again: its change is not whole yet).

        Cells settle out of order (a pit lifted with a press settles after the first seeds
        sown from it, which wait for it), so a step taken can explain an older change."""
        candidates = self._waiting_at_rest() if cells is None else cells
        while True:
            for cell in sorted(candidates, key=lambda c: self.pending[c].first_t):
                if self._explained_now(cell, self.pending[cell]):
                    del self.pending[cell]
                    candidates = self._waiting_at_rest()
                    break
            else:
                return

    def _moving(self, cell: int) -> bool:
        """Is the cup moving, or its settled change still waiting to be judged?"""
        return self.detector.cells[cell].active or cell in self.pending

    def _waiting_at_rest(self) -> list[int]:
        return [c for c in self.pending if not self.detector.cells[c].active]

    # An ordered cascade of cases, the one place C901 is waived in controller/tracking: issue
    # 12 replaces it with one search over explanations.
    def _explained_now(self, cell: int, pending: Pending) -> bool:  # noqa: C901 (issue 12)
        """Act on a change at once if it is exactly what is expected (or puts a mistake right)."""
        self.judged = (cell, pending.onset_t)
        if self._early_lift_settled(cell, pending):
            return True
        n = self.seeds.count(pending.net_g)
        place = self.place_of.get(cell)
        empty = self.seeds.empty(pending.level_g)
        t = pending.last_t
        tentative = self.tentative.get(cell)
        if tentative is not None and tentative.step.kind is not StepKind.SOW:
            return self._take_settled(cell, tentative, pending, late=False)
        if cell in self.left_behind and n < -MIN_SEED:
            self._rest_lifted(cell, pending)
            return True
        if tentative is not None and self._blip_undone(cell, pending, tentative):
            return True
        if cell in self.tentative:
            if not pending.held and len(self.game.active_players()) < 2:
                # Confirmed once it has held (not fingers brushing, or a strike); not with two
                # hands racing, whose seeds fall in one cup closer together than that.
                return False
            player = self.tentative[cell].step.player
            landed = self._landed_here(n, place, player)
            if self._finger_not_seed(n, pending, self.tentative[cell]):
                return False  # judged late, as a hand resting (`_resting_for`)
            if landed == 1 and self.seeds.one(n) and self.seeds.plausible(n):
                if (
                    pending.pressed_g > GRABBED_SEEDS * self.seed_g
                    and len(self.game.active_players()) >= 2
                    and self._landed_then_taken(
                        cell, self.tentative[cell], pending, question=(cell, "grabbed")
                    )
                ):
                    # A hand pressed on the cup to grab it: the seed landed, the pit was
                    # taken, and the other hand's seed fell in after (one seed, all the same);
                    # or a hand only rested on it (the second answer); or, at 80 SPS, the
                    # other hand's seed fell in first and the lift is still under way.
                    del self.tentative[cell]
                    return True
                self._seed_seen(cell, pending.net_g, t)
                del self.tentative[cell]
                return True
            if self._landed_then_taken(cell, self.tentative[cell], pending):
                del self.tentative[cell]
                return True
            if landed == 2 and self.seeds.whole(n):
                if not self._due_at(place, StepKind.SOW) and self._other_hand_coming(place, player):
                    return False  # the other hand's seed: taken once the cups before settle
                # Two seeds where one was due: flag it now. (More is left to the late
                # judgement: a hand pressing on the cup to pick it up weighs 4-11 seeds.)
                del self.tentative[cell]
                self._seeds_landed(cell, place, pending, t, player)
                return True
            return False
        carries = self._carry_to(cell, pending.net_g)
        if carries is not None:
            self._arrive(carries, t, pending.net_g)
            return True
        if self.seeds.one_for_one(n) and self._stray_back_and_next_seed_here(cell, t):
            return True
        if self.strays.get(cell) and MIN_SEED <= -n < self.strays[cell] + 0.5:
            self._unstray(cell, _count(n), t)
            return True
        if cell in self.partial and empty:
            lifted, flag = self.partial.pop(cell)
            flag.resolved_t = t
            self._take(cell, place, lifted - pending.net_g, t)
            return True
        if cell in self.lifting and place is not None and empty and n < -MIN_SEED:
            lifting = self.lifting[cell]
            lifted_g = lifting.lifted_g - pending.net_g
            guessed = lifting.guessed
            if self._feed_take(lifting.take, cell, place, lifted_g, t, guessed, seed_before=False):
                del self.lifting[cell]
                self._emptied(cell)
                return True
        if n < -MIN_SEED and empty and self._sown_then_taken(cell, place, pending):
            return True
        if n < -MIN_SEED and empty and self._due_at(place, *TAKES):
            self._take(cell, place, -pending.net_g, t)
            return True
        if (
            self.detector.slow
            and n < -MIN_SEED
            and not empty
            and self._taken_then_sown(cell, place, pending, ask=True)
        ):
            return True
        if (
            self.detector.slow
            and n < -MIN_SEED
            and not empty
            and cell not in self.partial
            and self._left_seeds(pending)
        ):
            take = self._expected_at(place, *TAKES)
            if take is not None:
                # Seeds lifted from the expected pit, whole seeds left in it: the rest must
                # follow. At 10 SPS a level that settled has held for 0.3 s, longer than the
                # last seeds take to leave a hand's grip (at 80 SPS it may not have: the
                # judgement after the hold sees those).
                self._lifted_in_part(cell, take, -pending.net_g, pending.level_g, pending.last_t)
                return True
        if (
            self.seeds.one(n)
            and self.seeds.plausible(n)
            and not self._blocked()
            and self._sow(place, t)
        ):
            self._seed_seen(cell, pending.net_g, t)
            return True
        if self._taken_then_sown(cell, place, pending):
            return True
        if self.seeds.one(n) and self._blocked() and self._lost_seed_replaced(place, pending):
            return True
        if self.seeds.one(n) and self._due_at(place, StepKind.SOW) and self._correction_moving():
            return False  # a mistake is being put right: judge this seed after
        if n < -MIN_SEED and empty and self._starting_pit(place):
            self._wrong_lift(WRONG_START, cell, place, -pending.net_g, t)
            return True
        if self.seeds.one(n) and self._landing_carried(cell, place, pending):
            return True
        if self._settled_again(cell, pending):
            return True  # the last of a landing settling: nothing more moved
        if (
            self.seeds.one(n)
            and pending.held  # (judged again once it has held: `follow`)
            and (n < FINGER_SEEDS or self._let_go(pending, self._sowing_player()))  # (a finger)
            and (self._sowing_player() is not None or self._foreign_seed_now(cell, n))
            and not self._expected_place_moving(cell)  # the step before may not have settled
        ):
            self._stray(cell, 1, t)
            return True
        return False

    def _foreign_seed_now(self, cell: int, n: float) -> bool:
        """With no seeds in any hand, may one seed's weight be called foreign at once?
        Not while seeds are carried (to a store, back to a pit) or a mistake is put right, nor
        while the cup's early level is still being re-taken (a palm settling slowly reads
        light at first: `CellDetector._refine`)."""
        return (
            self.seeds.plausible(n)
            and self.detector.cells[cell].refine is None
            and not self._blocked()
            and not self.carries
            and cell not in self.partial
            and cell not in self.left_behind
        )

    def _expected_place_moving(self, other_than: int) -> bool:
        """Is a cup (other than this one) where a step is expected, or one whose step was
        taken on its rise (not read yet), still moving, or its change still waiting?

        Cells settle out of order: at 10 SPS a seed settles on its ramp while the cup before
        it, a relay landing and pickup, is still being read, and the hand's next seeds are
        taken on their rise while a cup it sowed is still settling a part of a seed higher."""
        cells = [self.cell_of[s.at] for s in self.game.expected() if s.at is not None]
        return any(c != other_than and self._moving(c) for c in (*cells, *self.tentative))

    def _left_seeds(self, pending: Pending) -> bool:
        """Does the cup read a whole number of seeds (one or more) now?"""
        left = self.seeds.count(pending.level_g)
        return left >= 1 - MIN_SEED and self.seeds.whole(left)

    def _account(self, cell: int, net_g: float) -> None:
        expected = self.expected_g[cell]
        if expected is not None:
            self.expected_g[cell] = expected + net_g

    # An ordered cascade of cases, the one place C901 is waived in controller/tracking: issue
    # 12 replaces it with one search over explanations.
    def _explain_late(self, cell: int, pending: Pending) -> bool:  # noqa: C901 (issue 12)
        """A change that settled and stayed unexplained for `hold_s`: judge its net effect.

        Returns False when nothing moved (a press, a knock, creep), True when the change is
        accounted for (as steps, or as seeds the flags know about)."""
        self.judged = (cell, pending.onset_t)
        if self._early_lift_settled(cell, pending):
            return True
        n = self.seeds.count(pending.net_g)
        k = _count(n)
        place = self.place_of.get(cell)
        t = pending.last_t
        if (
            n > 1.0
            and pending.patience_until == 0.0
            and (rest := self._resting_for(n, place, pending))
        ):
            # Not seeds a hand would slip: a finger or a hand resting on the cup, most likely.
            # Give it time to go away before calling it seeds.
            pending.patience_until = t + rest
            pending.resting = rest == REST_MAX_S
            self.pending[cell] = pending
            return False
        if cell in self.lifting:
            self._lift_stopped(cell)
        tentative = self.tentative.get(cell)
        if tentative is not None and tentative.step.kind is not StepKind.SOW:
            if self._take_settled(cell, tentative, pending, late=True):
                return True
            del self.tentative[cell]
            self._retract(cell, tentative)
            return False
        tentative = self.tentative.pop(cell, None)
        if tentative is not None:
            if self._landed_then_taken(cell, tentative, pending):
                return True
            if self.seeds.landed(n) >= 1:
                self._seeds_landed(cell, place, pending, t, tentative.step.player)
                return True
            self._retract(cell, tentative)
            if k == 0:
                return False
        if self.seeds.one_for_one(n) and self._stray_back_and_next_seed_here(cell, t):
            return True  # a stray went and a seed came
        if k == 0 or self._settled_again(cell, pending):
            return False  # a press, a knock, creep or a landing settling: nothing moved
        if (
            n > 0
            and self.seeds.one(n)
            and self._blocked()
            and self._correction_moving()
            and (self._due_at(place, StepKind.SOW) or self._sowing_player() is not None)
        ):
            # A seed where it belongs (or where a hand sowing on will have put it) while a
            # mistake is still being put right: judge it after, in turn.
            pending.patience_until = self.now + self.hold_s
            self.pending[cell] = pending
            return False
        if n > 0:
            if cell in self.partial:  # the seeds went back into the pit they were taken from
                _, flag = self.partial.pop(cell)
                flag.resolved_t = t
                return True
            carries = self._carry_to(cell, pending.net_g, strict=False)
            if carries is not None:
                carried = sum(c.mass_g for c in carries)
                extra = self.seeds.count(pending.net_g - carried)
                slack = self._carry_slack(carried, sum(c.guessed for c in carries))
                if (
                    pending.net_g - carried > slack
                    and self.seeds.landed(extra) >= 1
                    and self.seeds.whole(extra)
                ):
                    # Seeds sown into the cup while the carried ones went in (a fast hand
                    # sowing on as seeds are put back): judged in turn with the others.
                    self._arrive(carries, t, carried)
                    self.pending[cell] = dataclasses.replace(
                        pending,
                        first_t=t,
                        last_t=t,
                        net_g=pending.net_g - carried,
                        patience_until=0.0,
                    )
                    return True
                self._arrive(carries, t, pending.net_g)
                return True
            if not self._blocked() and self._sow(place, t):
                self._seeds_landed(cell, place, pending, t, self.steps[-1].step.player)
                return True
            if self.seeds.one(n) and self._landing_carried(cell, place, pending):
                return True
            if (
                self.seeds.one(n)
                and len(self.game.active_players()) >= 2
                and self.now - pending.first_t < OTHER_CUP_WAIT_S
                and self._expected_place_moving(cell)
            ):
                # Two hands: a seed past a cup where a step is due that is still moving (both
                # hands' seeds fell in and a capture is lifting them): judged once it settles.
                pending.patience_until = self.now + self.hold_s
                self.pending[cell] = pending
                return False
            self._stray(cell, k, t)
            return True
        if self._sow_taken_back(cell, pending):
            return True
        if self.strays.get(cell):
            self._unstray(cell, min(k, self.strays[cell]), t)
            return True
        if self._taken_then_sown(cell, place, pending):
            return True  # the other hand's seed was due here after all (it settled since)
        take = self._expected_at(place, *TAKES)
        landing = self.last_landing.get(cell)
        if (
            k == 1
            and take is None  # lifting the pit is due: this is a lift that left seeds
            and landing is not None
            and t - landing[0] < 5.0
            and landing[1] > 1.25 * self.seed_g
        ):
            # One seed taken back from where a heavy "seed" just landed: it was two seeds
            # (too close to one heavy seed to tell then), and this puts it right.
            self._raise(EXTRA_SEED, place, landing[0]).resolved_t = t
            del self.last_landing[cell]
            return True
        if take is not None:
            self._lifted_in_part(cell, take, -pending.net_g, pending.level_g, pending.last_t)
            return True
        if self._missed_landing_then_capture(cell, place, pending):
            return True
        kind = WRONG_START if self._starting_pit(place) else WRONG_PICKUP
        self._wrong_lift(kind, cell, place, -pending.net_g, t)
        return True

    def _seeds_landed(
        self, cell: int, place: Place | None, pending: Pending, t: float, player: int
    ) -> None:
        """Seeds landed where `player`'s seed was just taken: one seed, or one per hand due
        there (a simultaneous opening), the rest extra."""
        landed = self._landed_here(self.seeds.count(pending.net_g), place, player)
        if landed == 1:
            self._seed_seen(cell, pending.net_g, t)
            return
        while landed >= 2 and self._sow(place, t):
            landed -= 1  # the other hand's seed, in a simultaneous opening
        if landed >= 2:
            self._stray(cell, landed - 1, t, EXTRA_SEED)
        self.landed_t[cell] = t  # (two seeds: no single seed's mass to learn)

    def _seed_seen(self, cell: int, grams: float, t: float) -> None:
        """A single seed landed where expected: learn its mass."""
        self.seeds.seen(grams)
        self.last_landing[cell] = (t, grams)
        self.landed_t[cell] = t

    def _settled_again(self, cell: int, pending: Pending) -> bool:
        """Take a small change as the cup's last settling after a landing, if it is one
        (True). A level can settle while the impact still rings (a seed landing just as the
        cup comes to rest), and settle again a fraction of a seed lower; at 10 SPS it can
        settle part way, on a ramp that fingers brushing the cup were just leaving, and
        settle again higher. A change under half a seed must leave the landing a whole seed
        (within a quarter: a light seed taken out leaves about half of one); a larger rise
        must make a landing weighed lighter than a seed (1 - 2 CV) one seed. If so, the
        landing's mass is corrected."""
        landed = self.landed_t.get(cell)
        n = self.seeds.count(pending.net_g)
        if landed is None or pending.onset_t - landed >= SETTLING_S or n <= -0.5 or n == 0:
            return False
        landing = self.last_landing.get(cell)
        weighed = landing is not None and landing[0] >= landed
        if not weighed:
            return n < 0  # (two seeds landed: no single mass was taken from them)
        assert landing is not None
        left = self.seeds.count(landing[1] + pending.net_g)
        whole = round(left) >= 1 and abs(left - round(left)) <= 0.25
        # (settled part way: the landing and this rise are one seed, as heavy as seeds come)
        part_way = n > 0 and self.seeds.count(landing[1]) < 1 - 2 * self.seeds.cv()
        one = self.seeds.one(left) and left < 1 + 3 * self.seeds.cv()  # (not a second seed)
        if not (whole and n < 0.5) and not (part_way and one):
            return False
        grams = landing[1] + pending.net_g
        if self.seeds.last() == landing[1]:
            self.seeds.correct_last(grams)
        self.last_landing[cell] = (landing[0], grams)
        return True

    def _landed_then_taken(
        self,
        cell: int,
        tentative: Tentative,
        pending: Pending,
        question: Hashable | None = None,
    ) -> bool:
        """The guessed seed landed and the pit was emptied (a relay pickup or a capture) before
        the landing could settle on its own: the net change is the pit's old content taken.
        In a simultaneous opening the other hand's seed may have fallen in after the lift: the
        pit then holds that one seed. Or before it, and the lift was that hand's (its last
        seed fell there: a relay or a capture). A `question` asks first whether the other
        hand's seed came after the lift (see `_decide`)."""
        place = self.place_of.get(cell)
        if place is None:
            return False
        after = 0 if self.seeds.empty(pending.level_g) else 1
        if after and not self.seeds.one(self.seeds.count(pending.level_g)):
            return False
        before = tentative.before.board[self.rules.index_of(place)]
        if abs(self.seeds.count(pending.net_g) + before - after) > self.seeds.tolerance(before):
            return False
        t = pending.last_t
        sow = None if after else self._sow_then_lift(place)
        if (
            sow is not None
            and self._sown_first(cell, place)
            # (What was lifted: the pit before, the guessed seed and that hand's last seed.)
            and self._sown_and_lifted(sow, cell, 2 * self.seed_g - pending.net_g, t, guessed=2)
        ):
            return True
        take = self._expected_at(place, *TAKES)
        if take is None or not (before or self._taken_before_settling(take, tentative.step)):
            return False
        if not after:
            self._take(cell, place, self.seed_g - pending.net_g, t, guessed=1)
            return True
        lifted_g = pending.level_g - pending.net_g + self.seed_g  # the pit before, the seed
        # (At 10 SPS a cup cannot settle between two seeds leaving one grip.)
        still_lifting = question is not None and not self.detector.slow
        return self._taken_then_other_seed(
            cell, place, take, lifted_g, pending, 1, question, still_lifting
        )

    def _taken_before_settling(self, take: Step, sow: Step) -> bool:
        """May an empty pit be taken after a seed guessed there before the cup settled (the
        cup back at its level)? By the hand that sowed it (a relay or capture), or by either
        hand while two play at once. A player starting the next move from the seed just sown
        alone does so only after a moment: before the cup settles at 10 SPS (0.4 s), but at
        80 SPS (0.1 s) a palm that rested on the cup and lifted off is likelier. (From a pit
        that held seeds, the cup falling below its level shows the take either way.)"""
        return (
            take.player == sow.player or len(self.game.active_players()) >= 2 or self.detector.slow
        )

    def _sown_first(self, cell: int, place: Place) -> bool:
        """A hand's last seed is due at `place` and it would lift the pit again (a relay or
        capture): was the lift seen that, rather than a take already due there? A question
        when one is (see `_decide`). The likelier: a hand in the middle of its move that must
        take the pit (a capture of it, in a simultaneous opening) took it; else the hand
        whose last seed fell in (a hand free to start may lift any pit: see
        `_expected_in_turn`)."""
        if not self._due_at(place, *TAKES):
            return True
        lift_due = self._lift_due(place)
        return self._decide((cell, "sown first", lift_due), 2) == int(lift_due)

    def _sown_and_lifted(
        self, sow: Step, cell: int, lifted_g: float, t: float, guessed: int
    ) -> bool:
        """A hand's last seed fell in and that hand lifted the pit again (see
        `_sow_then_lift`): its own lift, though the other hand's may be due there too."""
        place = sow.at
        lift = next((s for s in self._takes_after(sow) if s.at == place), None)
        if place is None or lift is None or not self._feed_sow(sow, t):
            return False
        self._feed_take(lift, cell, place, lifted_g, t, guessed)
        self._emptied(cell)
        return True

    def _sow_then_lift(self, place: Place) -> Step | None:
        """A sow due at `place` after which the same hand must lift the pit (its last seed
        fell there: a relay or a capture); if both hands' would, which (see `_choose`).
        Called after a guessed landing there, it can only be the other hand's."""
        fits = [
            sow
            for sow in self._expected_in_turn()
            if sow.at == place
            and sow.kind is StepKind.SOW
            and any(s.at == place for s in self._takes_after(sow))
        ]
        if len(fits) < 2:
            return fits[0] if fits else None
        return self._choose(tuple(fits))

    def _takes_after(self, sow: Step) -> list[Step]:
        """The lifts the sowing hand must make next if `sow` were its step now (its last seed:
        a relay or captures; in a simultaneous opening the other hand's may be due too);
        none if the sow does not fit."""
        trial = self.game.copy()
        if not trial.feed(sow).accepted:
            return []
        return [s for s in trial.expected() if s.kind in TAKES and s.player == sow.player]

    # -- actions --------------------------------------------------------------------------------

    def _sow(self, place: Place | None, t: float) -> bool:
        step = self._expected_at(place, StepKind.SOW)
        return step is not None and self._feed_sow(step, t)

    def _feed_sow(self, step: Step, t: float) -> bool:
        if step.at is None:
            return False
        before = self.game.copy()
        if not self.game.feed(step).accepted:
            return False
        cell = self.cell_of[step.at]
        self.steps.append(RecognisedStep(t, step, self._fell_at(cell, t)))
        self.last_sow = (cell, before, self.steps[-1])
        self.landed_t[cell] = t
        self._pay_owed(t)
        return True

    def _last_sown_here(self, cell: int) -> bool:
        """Was the last step a sow into this cup? (A fall may be that seed taken back.)"""
        last = self.last_sow
        # (By value: after `adopt` the step may be another object, equal to it.)
        return (
            last is not None and last[0] == cell and bool(self.steps) and self.steps[-1] == last[2]
        )

    def _sow_taken_back(self, cell: int, pending: Pending) -> bool:
        """The cup where the last step sowed a seed loses that seed's weight again (with any
        extra seeds that came with it) before any other step, and no lift is due there: the
        seed was taken back, or it was never a seed but a finger pressing. Either way the
        sow is undone: the seed is in the hand, due here again."""
        if self.last_sow is None:
            return False
        _, before, recognised = self.last_sow
        place = self.place_of.get(cell)
        if (
            not self._last_sown_here(cell)
            or self.now - recognised.t > PATIENCE_S
            or self._due_at(place, *TAKES)
        ):
            return False
        extra = self.strays.get(cell, 0)
        fall = -self.seeds.count(pending.net_g)
        # A whole seed's weight (a cup's last settling after a landing is a fraction of one).
        if round(fall) != 1 + extra or fall < 1 - MIN_SEED or not self.seeds.whole(fall):
            return False
        landing = self.last_landing.get(cell)
        if (
            not extra
            and landing is not None
            and landing[0] >= recognised.t
            and abs(-pending.net_g - landing[1]) > 0.3 * self.seed_g
        ):
            return False  # what landed was weighed: the same weight must leave
        self.game = before.copy()  # (a guess taken early may share it)
        self.steps.pop()
        self._took_back(len(self.steps))
        self.last_sow = None
        if extra:
            self._unstray(cell, extra, pending.last_t)
        landing = self.last_landing.pop(cell, None)
        if landing is not None and self.seeds.last() == landing[1]:
            self.seeds.drop_last()  # not a seed's mass after all, perhaps
        return True

    def _stray_back_and_next_seed_here(self, cell: int, t: float) -> bool:
        """A stray cell that moved and came back to about the same weight (one seed for
        another, see `_one_for_one`): the stray was taken back and the hand, sowing on, put a later seed right here before the reading could
        settle in between (10 SPS, fast hands). That holds only if the places sown before
        this one (one or more) already have their seed, waiting to be judged; otherwise this
        is the take-back grab pressing and letting go. The seed here is then owed as a step."""
        if not self.strays.get(cell):
            return False
        trial = self.game.copy()
        player = None
        for passed in range(MAX_SOWN_ON + 1):
            sow = next((s for s in trial.expected() if s.kind is StepKind.SOW), None)
            if sow is None or sow.at is None:
                return False
            here = self.cell_of[sow.at]
            if here == cell:
                if passed == 0:
                    return False
                break
            waiting = self.pending.get(here)
            if waiting is None or not self.seeds.one(self.seeds.count(waiting.net_g)):
                return False
            player = sow.player
            trial.feed(sow)
        else:
            return False
        assert player is not None
        self._unstray(cell, 1, t)
        self.owed[cell] = self.owed.get(cell, 0) + 1
        self.hand_of[cell] = player
        return True

    def _pay_owed(self, t: float) -> None:
        """Seeds already in place that the rules now expect (see `_explain_late`)."""
        while self.owed:
            step = next((s for s in self.game.expected() if s.kind is StepKind.SOW), None)
            if step is None or step.at is None:
                return
            cell = self.cell_of[step.at]
            if cell not in self.owed or not self.game.feed(step).accepted:
                return
            self.steps.append(RecognisedStep(t, step))
            self.owed[cell] -= 1
            if not self.owed[cell]:
                del self.owed[cell]

    def _take(
        self, cell: int, place: Place | None, lifted_g: float, t: float, guessed: int = 0
    ) -> None:
        """The expected pit was emptied: a pickup, or the hand taking a capture or sweep."""
        step = self._expected_at(place, *TAKES)
        if step is None or place is None:
            return
        self._feed_take(step, cell, place, lifted_g, t, guessed)
        self._emptied(cell)

    def _emptied(self, cell: int) -> None:
        """The pit is empty now: whatever it reads is its zero (drift, creep, a tare error).
        (A lift taken as under way there is over, whichever take it was.)"""
        self.lifting.pop(cell, None)
        self.detector.rezero(cell)
        self.detector.cells[cell].tracked_g = 0.0
        self.expected_g[cell] = 0.0

    def _feed_take(
        self,
        step: Step,
        cell: int,
        place: Place,
        lifted_g: float,
        t: float,
        guessed: int = 0,
        seed_before: bool = True,
    ) -> bool:
        along_g = 0.0
        sow = self._expected_at(place, StepKind.SOW) if seed_before else None
        if sow is not None and sow.player != step.player:
            # The other hand's seed is due here too (a simultaneous opening). The lift nets
            # the same whether that seed fell in just before and went with the rest, or is
            # still to come: what the hands do next tells (see `_decide`).
            trial = self.game.copy()
            if (
                trial.feed(sow).accepted
                and trial.feed(step).accepted
                and self._decide((cell, step), 2)
            ):
                self._feed_sow(sow, t)
                along_g = self.seed_g
                guessed += 1
        count = self.game.board[self.rules.index_of(place)]
        if not self.game.feed(step).accepted:
            return False
        self.steps.append(RecognisedStep(t, step))
        if step.kind is not StepKind.PICKUP:
            taker = step.player if step.kind is StepKind.CAPTURE else step.to_player
            assert taker is not None
            store = self.cell_of[Place(taker, "store")]
            self.carries.append(
                Carry(
                    taker,
                    count,
                    lifted_g + along_g,
                    store,
                    place,
                    guessed=guessed,
                    along_g=along_g,
                    taken=self.steps[-1],
                )
            )
        return True

    def _sown_then_taken(self, cell: int, place: Place | None, pending: Pending) -> bool:
        """The last seed of a lap fell in and the pit was lifted again (a relay, a capture)
        before the landing could be seen on its own: at 10 SPS a fast hand does both in the
        time one reading takes to settle. The net change is the pit's old content taken."""
        if place is None or not self._due_at(place, StepKind.SOW):
            return False
        before = self.game.board[self.rules.index_of(place)]
        if abs(self.seeds.count(pending.net_g) + before) > self.seeds.tolerance(before):
            return False
        sow = self._sow_then_lift(place)
        if sow is None or not self._sown_first(cell, place):
            return False  # (a take due there took the pit as it was: see `_feed_take`)
        lifted_g = self.seed_g - pending.net_g
        return self._sown_and_lifted(sow, cell, lifted_g, pending.last_t, guessed=1)

    def _missed_landing_then_capture(
        self, cell: int, place: Place | None, pending: Pending
    ) -> bool:
        """The last seed fell in an empty own pit and was captured with the opposite pit so
        soon that its own cup never showed a change; the opposite pit's lift shows it."""
        t = pending.last_t
        if place is None:
            return False
        for sow in self.game.expected():
            if sow.kind is not StepKind.SOW or sow.at is None:
                continue
            landing = self.cell_of[sow.at]
            if landing == cell or not self.seeds.empty(self.detector.cells[landing].level):
                continue
            captures = {s.at: s for s in self._takes_after(sow) if s.kind is StepKind.CAPTURE}
            if place not in captures or sow.at not in captures or not self._feed_sow(sow, t):
                continue
            self._feed_take(captures[sow.at], landing, sow.at, self.seed_g, t, guessed=1)
            self._emptied(landing)
            self._feed_take(captures[place], cell, place, -pending.net_g, t)
            self._emptied(cell)
            return True
        return False

    def _landing_carried(self, cell: int, place: Place | None, pending: Pending) -> bool:
        """The last seed fell in an empty own pit and the hand took it on to the store at once
        (a capture), before its cup settled in between: at 8 seeds a second 90 ms is too
        short, even at 80 SPS. The store's seed shows it before the opposite pit's lift does
        (`_missed_landing_then_capture` is the other order). The landing cup must have moved
        lately (the seed in and out), show no change still to judge, and be empty now.

        Only in a simultaneous opening (the other hand may be done by now): that is where it
        was seen, with the other hand's cups keeping the referee busy."""
        if place is None or not place.is_store or self._blocked() or not self.game.opening:
            return False
        for sow in self.game.expected():
            if sow.kind is not StepKind.SOW or sow.at is None or sow.player != place.player:
                continue
            landing = self.cell_of[sow.at]
            detector = self.detector.cells[landing]
            moved_until = detector.onset_t + detector.since_onset / detector.rate_sps
            waiting = self.pending.get(landing)
            if (
                landing == cell
                or detector.active
                or detector.onset_t <= 0.0  # (never moved)
                or self.now - moved_until > LANDING_CARRIED_S
                or not self.seeds.empty(detector.level)
                or (waiting is not None and _count(self.seeds.count(waiting.net_g)))
            ):
                continue
            capture = next(
                (
                    s
                    for s in self._takes_after(sow)
                    if s.kind is StepKind.CAPTURE and s.at == sow.at
                ),
                None,
            )
            if capture is None:
                continue
            t = pending.last_t
            if not self._feed_sow(sow, t):
                continue
            self.pending.pop(landing, None)  # (what its cup showed: the seed in and out)
            carried = len(self.carries)
            if self._feed_take(capture, landing, sow.at, self.seed_g, t, guessed=1):
                self._emptied(landing)
            self._arrive(self.carries[carried:], t, pending.net_g)
            return True
        return False

    def _confirm_take(self, cell: int, tentative: Tentative, lifted_g: float) -> None:
        self._emptied(cell)
        self._lifted_mass(tentative.step.at, lifted_g)

    def _lifted_mass(self, place: Place | None, lifted_g: float) -> None:
        """What actually left the pit, to find it in the store (taken early, it was a guess)."""
        for carry in self.carries:
            if carry.flag is None and carry.from_place == place:
                carry.mass_g = lifted_g + carry.along_g

    def _take_settled(self, cell: int, tentative: Tentative, pending: Pending, late: bool) -> bool:
        """The cup of a pit taken early has settled: the take is confirmed, or leaves seeds
        behind (at once only if they weigh a whole number of seeds, else after the hold), or
        was followed by the other hand's seed. False: not yet (or, late, not a take at all)."""
        n = self.seeds.count(pending.net_g)
        if self.seeds.empty(pending.level_g):
            del self.tentative[cell]
            self._confirm_take(cell, tentative, -pending.net_g)
            return True
        left = _count(self.seeds.count(pending.level_g))
        if n < -MIN_SEED and left == 1 and self._other_hand_sowed_after(cell, tentative, pending):
            return True
        whole = self.seeds.whole(self.seeds.count(pending.level_g))
        if n < -MIN_SEED and left >= 1 and (late or whole):
            # Lifted, but not everything: the step stands and the rest must follow.
            del self.tentative[cell]
            self._left_in_pit(cell, tentative.step, left, pending.level_g)
            if tentative.step.kind is not StepKind.PICKUP:  # (see `_lifted_in_part`)
                flag = self._raise(NOT_ALL_LIFTED, self.place_of.get(cell))
                self.left_behind[cell].flag = flag
            return True
        return False

    def _lifted_in_part(
        self, cell: int, take: Step, lifted_g: float, level_g: float, t: float
    ) -> None:
        """Seeds lifted from a pit whose take is due, whole seeds left in it. A pickup is
        taken with the seeds left owed by the hand (`LeftBehind`): a person lifts a full pit
        in two handfuls, and only sowing on without the rest is a mistake. A capture or sweep
        left part way is one at once (the seeds go to a store, not on round the board)."""
        place = take.at
        assert place is not None
        if take.kind is StepKind.PICKUP:
            before = len(self.steps)
            if self._feed_take(take, cell, place, lifted_g, t, seed_before=False):
                left = _count(self.seeds.count(level_g))
                if left:
                    self._left_in_pit(cell, self.steps[before].step, left, level_g)
                else:
                    self._emptied(cell)  # (what it reads is no seed: its zero)
                return
        # A second partial lift of the same pit is the same problem: one flag.
        previous, flag = self.partial.get(cell) or (0.0, self._raise(NOT_ALL_LIFTED, place))
        self.partial[cell] = (previous + lifted_g, flag)
        self.hand_of[cell] = take.player

    def _left_in_pit(self, cell: int, take: Step, left: int, level_g: float) -> None:
        taken = next((r for r in reversed(self.steps) if r.step == take), None)
        self.left_behind[cell] = LeftBehind(left, None, taken)
        self.hand_of[cell] = take.player
        self.expected_g[cell] = level_g

    def _rest_lifted(self, cell: int, pending: Pending) -> None:
        """Seeds lifted from a pit that a pickup left seeds in: the hand's next handful.
        Once the pit is empty the move is whole again (and a flag raised meanwhile is put
        right)."""
        left = self.left_behind[cell]
        if not self.seeds.empty(pending.level_g):
            left.count = max(1, _count(self.seeds.count(pending.level_g)))
            self.expected_g[cell] = pending.level_g
            return
        del self.left_behind[cell]
        if left.flag is not None:
            left.flag.resolved_t = pending.last_t
        self._emptied(cell)

    def _forget_carries_taken_back(self) -> None:
        """Seeds a capture or sweep took are on their way to a store only while that step
        stands: one taken back (a lean's rise and fall taken for a last seed and its capture)
        left a carry no seeds would ever end, and the next capture's seeds ended it instead,
        one capture behind for the rest of the game."""
        if self.carries:  # (most frames: none)
            self.carries = [
                c
                for c in self.carries
                if c.taken is None or c.taken in self.steps  # (by value)
            ]

    def _sown_on_without(self) -> None:
        """Raise `not_all_lifted` for seeds left in a pit once their hand sows on: a seed of
        that hand taken after its pickup, and seen to stay (a guess on the rise may be
        fingers brushing the cup). Not while the pit's cup moves: the second handful is
        being lifted (at 10 SPS the cup settles 0.4 s after the lift, and a fast hand has
        sown two seeds by then)."""
        guesses = {t.step for t in self.tentative.values()}
        for cell, left in list(self.left_behind.items()):
            if left.flag is not None or self._moving(cell):
                continue
            if left.taken not in self.steps:  # (by value: `adopt` swaps equal steps)
                del self.left_behind[cell]  # the pickup was taken back: nothing is owed
                continue
            player = self.hand_of.get(cell)
            for recognised in reversed(self.steps):
                if recognised == left.taken:
                    break
                step = recognised.step
                if step.player == player and step.kind is StepKind.SOW and step not in guesses:
                    left.flag = self._raise(NOT_ALL_LIFTED, self.place_of.get(cell))
                    break

    def _other_hand_sowed_after(self, cell: int, tentative: Tentative, pending: Pending) -> bool:
        """A pit taken early by one hand reads one seed when it settles, and the other hand's
        seed is due there (a simultaneous opening): it fell in just after the lift, before the
        cup could settle in between. The take stands; that seed is the other hand's sow.
        (The taking hand may be done with its move by now: a capture can end it.)"""
        place = tentative.step.at
        if place is None:
            return False
        if not self.seeds.one(self.seeds.count(pending.level_g)):
            return False
        sow = self._expected_at(place, StepKind.SOW)
        if sow is None or sow.player == tentative.step.player:
            return False
        if not self._sow(place, pending.last_t):
            return False
        del self.tentative[cell]
        self._lifted_mass(place, pending.level_g - pending.net_g)  # the content before
        self.expected_g[cell] = pending.level_g
        return True

    def _taken_then_sown(
        self, cell: int, place: Place | None, pending: Pending, ask: bool = False
    ) -> bool:
        """Two hands at one cup (a simultaneous opening): one took the pit (a capture or a
        relay) and the other's seed fell in just after, so the pit holds that one seed.
        `ask`: or the lift left a seed behind, and the other's is still to come (a question,
        see `_decide`: the first is likelier)."""
        if place is None or len(self.game.active_players()) < 2:
            return False
        if not self._due_at(place, *TAKES) or not self.seeds.one(self.seeds.count(pending.level_g)):
            return False
        count = self.game.board[self.rules.index_of(place)]
        if abs(self.seeds.count(pending.net_g) + count - 1) > self.seeds.tolerance(count):
            return False
        take = self._expected_at(place, *TAKES)
        assert take is not None
        # What was lifted: the pit's content before (its level less the net change).
        lifted_g = pending.level_g - pending.net_g
        question = (cell, "left a seed") if ask else None
        return self._taken_then_other_seed(cell, place, take, lifted_g, pending, question=question)

    def _taken_then_other_seed(
        self,
        cell: int,
        place: Place,
        take: Step,
        lifted_g: float,
        pending: Pending,
        guessed: int = 0,
        question: Hashable | None = None,
        still_lifting: bool = False,
    ) -> bool:
        """Take the pit, then the other hand's seed that fell in after it. The cup is not
        empty (the seed is in it), so its zero stays. A `question` asks first whether it was
        that (see `_decide`), or (`still_lifting`, a third answer) that seed fell in first
        and the hand is still lifting both."""
        sow = self._expected_at(place, StepKind.SOW)
        if sow is None or sow.player == take.player:
            return False
        trial = self.game.copy()
        if not (trial.feed(take).accepted and trial.feed(sow).accepted):
            return False
        if question is not None:
            answer = self._decide(question, 3 if still_lifting else 2)
            if answer == 2:
                return self._sown_while_lifting(cell, take, sow, lifted_g, pending)
            if answer:
                return False
        t = pending.last_t
        self._feed_take(take, cell, place, lifted_g, t, guessed, seed_before=False)
        self.expected_g[cell] = pending.level_g
        return self._feed_sow(sow, t)

    def _sown_while_lifting(
        self, cell: int, take: Step, sow: Step, lifted_g: float, pending: Pending
    ) -> bool:
        """The other hand's seed fell in before the lift, and the hand is still lifting: the
        cup reads one seed of those it will take (seeds leave a grip one by one, and at 80 SPS
        a cup can settle between two). The sow is taken now; the take once the cup empties,
        with what left it so far, or see `_lift_stopped` if it does not. `lifted_g` is what
        left the cup had the seed in it been the other hand's, with one guessed seed mass."""
        trial = self.game.copy()
        if not (trial.feed(sow).accepted and trial.feed(take).accepted):
            return False
        if not self._feed_sow(sow, pending.last_t):
            return False
        # What left: the pit before and both seeds (two masses guessed), less what it reads.
        left_g = lifted_g + self.seed_g - pending.level_g
        self.lifting[cell] = Lifting(take, left_g, pending.last_t, guessed=2)
        self.hand_of[cell] = take.player
        self.expected_g[cell] = pending.level_g
        return True

    def _lift_stopped(self, cell: int) -> None:
        """A pit taken as still being lifted has not emptied: the lift left seeds after all
        (see `_lifted_in_part`), and whatever else the cup does is judged as of a partial
        lift."""
        lifting = self.lifting.pop(cell)
        level_g = self.expected_g[cell] or 0.0
        self._lifted_in_part(cell, lifting.take, lifting.lifted_g, level_g, self.now)

    def _lost_seed_replaced(self, place: Place | None, pending: Pending) -> bool:
        """A seed came where one was expected while a stray waits further on.

        The hand lost the seed for this place (it fell off the board) and sowed the next one
        in its place further on; now a spare has filled the gap. Both are steps after all: the
        stray becomes the next sow, and its flag turns out to have been a lost seed here.
        """
        if place is None or not self.strays:
            return False
        if self._stray_moved_first(pending):
            return False  # the stray is being taken back: that is the other correction
        t = pending.last_t
        if not self._sow(place, t):
            return False
        while True:
            step = next((s for s in self.game.expected() if s.kind is StepKind.SOW), None)
            cell = None if step is None or step.at is None else self.cell_of[step.at]
            if (
                cell is None
                or not self.strays.get(cell)
                or not self._sow(step.at if step else None, t)
            ):
                return True
            flag = self.stray_flags.get(cell)
            self._unstray(cell, 1, t)
            if flag is not None and flag.kind == WRONG_PIT:
                flag.kind = SEED_LOST
                flag.at = place
                flag.named_t = t

    def _stray_moved_first(self, pending: Pending) -> bool:
        """Did a cup with a stray start moving before this change began? Then the stray is
        being taken back (perhaps into this cup), unless the cup now bears a finger's weight
        more (FINGER_SEEDS): a hand resting on the seed just sown there (a child's fingers stay
        on it while the spare goes in). A stray cup that only starts moving after is the hand
        going on (a spare in the gap, then the last seed's capture)."""
        began = pending.onset_t
        for cell in self.strays:
            detector = self.detector.cells[cell]
            waiting = self.pending.get(cell)
            first = waiting is not None and waiting.onset_t < began
            if not (first or (detector.active and detector.onset_t < began)):
                continue
            change_g = (waiting.net_g if waiting else 0.0) + (
                detector.rise if detector.active else 0.0
            )
            if change_g < FINGER_SEEDS * self.seed_g:
                return True
        return False

    def _correction_moving(self) -> bool:
        """Is a mistake being put right: a cup with strays, or one that lifted seeds are
        going back to, still moving or its change still waiting?"""
        back = {c.to_cell for c in self.carries if c.flag is not None}
        cells = back.union(self.strays)
        return any(self._moving(c) for c in cells)

    def _feed_dropped(self) -> None:
        """Steps dropped by a retraction may fit again once the change is explained another
        way: the guess was the right step at the wrong moment (a seed the other hand's lift
        came between, in a simultaneous opening), and the steps after it still stand."""
        dropped, self.dropped = self.dropped, []
        for recognised in dropped:
            if self.game.feed(recognised.step).accepted:
                self.steps.append(recognised)

    def _blip_undone(self, cell: int, pending: Pending, tentative: Tentative) -> bool:
        """Undo a guessed step whose cup came back to its level sooner than a hand lifts what
        landed: what rose was no seed (fingers brushing it, a seed striking it on its way to
        the next cup). Undone now, before what happens next is judged against it."""
        if (
            abs(self.seeds.count(pending.net_g)) >= MIN_SEED
            or pending.last_t - pending.onset_t >= BLIP_S
        ):
            return False
        del self.tentative[cell]
        self._retract(cell, tentative)
        self._feed_dropped()
        self._forget_stale_guesses()
        return True

    def _arm_g(self) -> float:
        """A cup read this far above its level is bearing a forearm or a palm: no seed's
        ring and grab's press together."""
        return PRESS_MAX_G + RING_MAX_SEEDS * self.seed_g

    def _arms_undone(self) -> None:
        """Undo a landing guessed on the rise of a cup that goes on rising past `_arm_g`: a
        forearm or palm settling on it, not a seed. Its change is judged as any other once
        it settles (a hand resting, see `_resting_for`)."""
        for cell, guess in list(self.tentative.items()):
            detector = self.detector.cells[cell]
            if (
                cell in self.tentative  # (not forgotten with another)
                and guess.step.kind is StepKind.SOW
                and detector.active
                and detector.rise > self._arm_g()  # (now: a palm lifted before may have)
            ):
                del self.tentative[cell]
                self._retract(cell, guess)
                self._feed_dropped()
                self._forget_stale_guesses()

    def _forget_stale_guesses(self) -> None:
        """Guesses taken after one that was undone, whose steps no longer fit, are no guesses
        now: their cups' changes are judged afresh when they settle (a seed that struck the
        due cup and hopped on into the next was guessed the next cup's seed)."""
        taken = {(r.t, r.step) for r in self.steps}
        for cell, guess in list(self.tentative.items()):
            if (guess.t, guess.step) not in taken:
                del self.tentative[cell]

    def _retract(self, cell: int, tentative: Tentative) -> None:
        """A guessed step did not happen: take it back, keeping the steps seen since.

        The game goes back to where it was before the guess and the later steps (other
        cells, other hands) are fed again; one that no longer fits is dropped too.
        """
        # By place in the list, not by time: guesses taken in one frame share their time,
        # and those before this one are in `before` already.
        steps = self.steps
        at = next(
            (k for k, r in enumerate(steps) if r.t == tentative.t and r.step == tentative.step),
            None,
        )
        if at is None:  # the guess was dropped already: what came at or after it is later
            cut = next((k for k, r in enumerate(steps) if r.t >= tentative.t), len(steps))
            earlier, later = steps[:cut], steps[cut:]
        else:
            earlier, later = steps[:at], steps[at + 1 :]
        self.game = tentative.before
        self.steps = earlier
        self._took_back(len(earlier))
        for recognised in later:
            if self.game.feed(recognised.step).accepted:
                self.steps.append(recognised)
            else:
                self.dropped.append(recognised)
        if tentative.step.kind is not StepKind.SOW:  # no seeds are on their way to a store
            self.carries = [
                c for c in self.carries if c.flag is not None or c.from_place != tentative.step.at
            ]

    def _carry_to(self, cell: int, net_g: float, strict: bool = True) -> list[Carry] | None:
        """The carried seeds this arrival brings: one carry, or all of those bound for the
        cell at once (two captured pits dropped into the store in one handful)."""
        bound = [c for c in self.carries if c.to_cell == cell]
        if not bound:
            return None
        # Each carry alone, or the first few together (handfuls go in in the order they were
        # taken): the closest fit within its tolerance (a seed whose mass was assumed widens
        # a carry's tolerance to where two carries arriving together may fit it too).
        options = [[carry] for carry in bound] + [bound[:k] for k in range(2, len(bound) + 1)]
        best: list[Carry] | None = None
        best_fit = 1.0
        for option in options:
            mass = sum(c.mass_g for c in option)
            fit = abs(net_g - mass) / self._carry_slack(mass, sum(c.guessed for c in option))
            if fit <= best_fit:
                best, best_fit = option, fit
        if best is not None:
            return best
        if bound[0].flag is not None and MIN_SEED * self.seed_g <= net_g < bound[0].mass_g:
            return [bound[0]]  # lifted seeds put back a few at a time (see `_arrive`)
        return None if strict else bound[:1]

    def _carry_slack(self, mass_g: float, guessed: int) -> float:
        """How far an arrival may weigh from what was carried: half a seed, the cells'
        calibration, and the spread of seeds whose mass was assumed."""
        slack = 0.45 * self.seed_g + 0.03 * mass_g
        if guessed:
            slack += 3 * self.seeds.cv() * self.seed_g * math.sqrt(guessed)
        return slack

    def _arrive(self, carries: list[Carry], t: float, net_g: float | None = None) -> None:
        for carry in carries:
            if (
                net_g is not None
                and carry.flag is not None
                and net_g < carry.mass_g - 0.5 * self.seed_g
            ):
                # Only some of the lifted seeds are back: the flag waits for the rest.
                carry.count -= _count(self.seeds.count(net_g))
                carry.mass_g -= net_g
                if carry.count > 0:
                    return
            self.carries.remove(carry)
            if carry.flag is not None:
                carry.flag.resolved_t = t

    def _starting_pit(self, place: Place | None) -> bool:
        if place is None or place.is_store:
            return False
        return any(self.game.hands[p].phase is Phase.START for p in self.game.active_players())

    def _wrong_lift(
        self, kind: str, cell: int, place: Place | None, lifted_g: float, t: float
    ) -> Carry | None:
        if place is None:
            return None
        flag = self._raise(kind, place)
        count = max(1, round(self.seeds.count(lifted_g)))
        carry = Carry(self._moving_hand(), count, lifted_g, cell, place, flag)
        self.carries.append(carry)
        return carry

    def _moving_hand(self) -> int:
        """The hand most likely at the board: one that is sowing, else the player to move."""
        sowing = self._sowing_player()
        if sowing is not None:
            return sowing
        active = self.game.active_players()
        return active[0] if active else 0

    def _sowing_player(self) -> int | None:
        for p in (0, 1):
            if self.game.hands[p].seeds > 0:
                return p
        return None

    def _stray(self, cell: int, n: int, t: float, kind: str | None = None) -> None:
        """Seeds where none were expected: flag once, and wait for them to be taken back."""
        place = self.place_of.get(cell)
        sowing = self._sowing_player()
        if kind is None:
            if sowing is None:
                kind = FOREIGN_SEED
            elif place is not None and place.is_store and place.player != sowing:
                kind = OPPONENT_STORE
            else:
                kind = WRONG_PIT
        self.strays[cell] = self.strays.get(cell, 0) + n
        if cell not in self.stray_flags:
            self.stray_flags[cell] = self._raise(kind, place)

    def _unstray(self, cell: int, n: int, t: float) -> None:
        self.strays[cell] -= n
        if self.strays[cell] <= 0:
            del self.strays[cell]
            flag = self.stray_flags.pop(cell, None)
            if flag is not None:
                flag.resolved_t = t

    def _raise(self, kind: str, at: Place | None, t: float | None = None, detail: str = "") -> Flag:
        """Raise a flag now (or, for a mistake only seen to be one later, at `t`)."""
        flag = Flag(
            self.now if t is None else t,
            kind,
            at,
            list(self._expected_places()),
            detail=detail,
            serial=next(self.serials),
            player=self._moving_hand() if kind in HAND_MISTAKES else None,
            shown_t=self.now,
        )
        self.flags.append(flag)
        return flag

    # -- sensors and the board at rest ----------------------------------------------------------

    def _sensor_faults(self, frame: Frame) -> None:
        """Flag the cells that cannot be weighed (faults.py), and resolve those read again."""
        cells = self.detector.cells
        noisy = [c.noisy for c in cells] if self.detector.noisy else None
        found, over = self.sensors.judge(frame.raw, noisy, self.fault_flags.keys())
        for cell, detail in found:
            place = self.place_of.get(cell)
            flag = self._raise(SENSOR_FAULT, place, frame.t, f"cell {cell}: {detail}")
            self.fault_flags[cell] = flag
            self._withdraw_early_lift(cell, frame.t)  # read off a failing cell
        for cell in over:
            self.fault_flags.pop(cell).resolved_t = frame.t

    def start_levels(self, levels_g: list[float]) -> None:
        """The levels of the board at rest when the referee starts (they match the belief)."""
        self.expected_g = list(levels_g)
        self.anchor = Anchor(self.game.copy(), tuple(levels_g), len(self.steps), self.now)
        self.motions.clear()

    def _follow_drift(self) -> None:
        """What the rest levels followed at rest (drift, creep, a landing's last settling)
        is no change of seeds: the accounts follow it too."""
        for cell, detector in enumerate(self.detector.cells):
            if detector.tracked_g:
                account = self.expected_g[cell]
                if account is not None:
                    self.expected_g[cell] = account + detector.tracked_g
                detector.tracked_g = 0.0

    def _check_at_rest(self, t: float) -> None:
        """At rest, each cell must read what the changes accounted for say it should.

        Every settled change is either explained (steps, flags) or judged to be nothing; a
        cell that reads differently from its account by a seed or more has changed without
        the referee seeing it (a slow push, a change hidden under a knock, a restart)."""
        self._follow_drift()
        if self.explained_rest != self.last_activity:
            self.explained_rest = self.last_activity  # once a rest: the cups stay as they are
            # The referee's own steps first (a few of them: cheap); the search only if they
            # do not fit or a doubt waits.
            if not self._anchor_if_certain(t) and self._explain_again(t, len(self.flags)):
                return
        if self._judging():
            return
        wrong: list[str] = []
        for cell, expected in enumerate(self.expected_g):
            detector = self.detector.cells[cell]
            if expected is None or detector.rest is None:
                continue
            seeds = self.seeds.count(detector.rest - expected)
            if abs(seeds) >= 0.6:
                place = self.place_of.get(cell)
                where = str(place) if place is not None else f"cell {cell}"
                wrong.append(f"{where}: {'too many' if seeds > 0 else 'too few'}")
        if wrong and self.mismatch is None:
            self.mismatch = self._raise(BOARD_MISMATCH, None, detail="; ".join(wrong))
        elif not wrong and self.mismatch is not None:
            self.mismatch.resolved_t = t
            self.mismatch = None

    # -- explaining the cups again (explain.py) -------------------------------------------------

    def _anchor_here(self, t: float) -> None:
        """Every cup at rest reads what the steps say and nothing is in doubt: a certain
        point, to explain the cups from."""
        levels = tuple(c.rest if c.rest is not None else c.level for c in self.detector.cells)
        self.anchor = Anchor(self.game.copy(), levels, len(self.steps), t)
        self.motions.clear()

    def _move_just_ended(self) -> bool:
        """No hand holds seeds, steps were taken since the last certain point, and this is
        not asked yet for them: at a turn's end, the board still, a certain point may be made
        (fast players rest less than `rest_check_s` between moves)."""
        anchor = self.anchor
        taken = len(self.steps)
        if anchor is None or taken == anchor.steps or taken == self.anchor_asked:
            return False
        return not any(hand.seeds for hand in self.game.hands)

    def _judging(self) -> bool:
        """Does a change wait to be judged, or seeds to arrive (carried, lifted, owed)?"""
        return any(
            (
                self.pending,
                self.tentative,
                self.carries,
                self.partial,
                self.lifting,
                self.left_behind,
                self.owed,
            )
        )

    def _anchor_if_certain(self, t: float) -> bool:
        """Make this rest a certain point if nothing is in doubt or waits to be judged, and
        the referee's steps leave every cup with its seeds."""
        self.anchor_asked = len(self.steps)
        if self._judging() or self._in_doubt() or not self._cups_fit_steps():
            return False
        self._anchor_here(t)
        return True

    def _cups_fit_steps(self) -> bool:
        """Do the referee's own steps since the anchor explain every cup at rest (though
        another sequence might too)? Then it is a certain point; a belief that differs from
        the cups unseen is never one."""
        anchor = self.anchor
        if not self.explaining or anchor is None:
            return False
        return fits(self._cups(anchor), [r.step for r in self.steps[anchor.steps :]])

    def _cups(self, anchor: Anchor, unread: set[int] | None = None) -> Cups:
        """What the cups say since `anchor`, but those `unread` (nothing is read of them; a
        step may be made there, but while the order search follows two hands: its replays,
        which do not ask the cups, could not take such a step back, see orders.py)."""
        readings = self._readings()
        for cell in unread or ():
            readings[cell] = None
        cells = self.cell_of
        if unread and self.orders is not None and self.orders.following:
            cells = {place: cell for place, cell in cells.items() if cell not in unread}
        return Cups(
            anchor,
            readings,
            cells,
            SeedModel(self.seed_g, self.seeds.cv()),
            self.motions,
        )

    def _readings(self) -> list[float | None]:
        """What each cup reads at rest, for the explanation (None: a faulty cell)."""
        readings: list[float | None] = [c.rest for c in self.detector.cells]
        for cell in self.fault_flags:
            readings[cell] = None
        return readings

    def _in_doubt(self) -> bool:
        """A flag on what the hands did waits, or a hand that should sow has stalled. (A board
        that reads other than its accounts with nothing judged wrong changed unseen: there is
        no step to explain it by.)"""
        judged = any(f.active and f.kind not in (SENSOR_FAULT, BOARD_MISMATCH) for f in self.flags)
        return judged or any(self._stalled(p) for p in (0, 1))

    def _judged_this_frame(self, flags_before: int) -> bool:
        return any(f.kind not in UNEXPLAINABLE for f in self.flags[flags_before:])

    def _explain_again(self, t: float, flags_before: int) -> bool:
        """Explain every cup that is still by due steps from the anchor (explain.py). If one
        sequence alone does, it is what happened: the referee takes it instead of its own
        steps since the anchor, the flags raised since are withdrawn (those of this frame
        were never shown, and go), and, the whole board at rest, it is a certain point again.
        Cups that cannot be read now (`_unread`) are left out of the reckoning, but steps
        may be made there: what they show once read is judged then, less the seeds the
        explanation put there (`_carried_over`)."""
        anchor = self.anchor
        if not self.explaining or anchor is None:
            return False
        if any(f.active and f.kind in UNEXPLAINABLE for f in self.flags):
            return False
        unread = self._unread()
        if unread and not self._may_leave_out(unread):
            return False
        since = self.steps[anchor.steps :]
        moves = len(self.game.completed) - len(anchor.game.completed)
        started = time.process_time()
        found = explain(self._cups(anchor, unread=unread), [r.step for r in since], moves)
        self.explain_s_max = max(self.explain_s_max, time.process_time() - started)
        if found is None or not self._disproves(found):
            return False
        kept = 0
        while kept < min(len(since), len(found.steps)) and since[kept].step == found.steps[kept]:
            kept += 1
        # Landings guessed on the rise of cups not read yet stand only where the explanation
        # is the referee's own steps: their seeds are then in the cups as it says.
        guesses = {cell: self.tentative[cell] for cell in unread if cell in self.tentative}
        if guesses and not kept == len(since) == len(found.steps):
            return False
        # Other steps than the referee's: its judgements were wrong, and its flags are
        # withdrawn. The same steps: its flags were right, and have been put right.
        changed = kept < len(since) or kept < len(found.steps)
        self.explained_again += changed
        del self.steps[anchor.steps + kept :]
        self._took_back(anchor.steps + kept)
        self.steps.extend(RecognisedStep(t, step) for step in found.steps[kept:])
        carried = self._carried_over(found.game, unread, t)
        self.game = found.game.copy()
        self._forget_judgements(t, flags_before, WITHDRAWN if changed else "")
        self.pending.update(carried)
        self.tentative.update(guesses)
        if not unread:
            self.explained_t = t
            self._anchor_here(t)
        return True

    def _unread(self) -> set[int]:
        """Cups whose seeds cannot be read now: still moving, or with a weight resting on
        them (waited out as a hand: see `_explain_late`; not where the referee took a step
        on trust, which that weight will confirm or take back)."""
        moving = {c for c, d in enumerate(self.detector.cells) if d.active}
        resting = {c for c, p in self.pending.items() if p.patience_until > 0}
        return moving | (resting - self.tentative.keys())

    def _carried_over(self, game: StepFollower, unread: set[int], t: float) -> dict[int, Pending]:
        """The changes still to be judged at the `unread` cups, less the seeds `game` (the
        explanation) counts there beyond the referee's own count: a seed sown under a resting
        finger is a step already, and the cup showing it once the finger lifts nets to nothing.
        So are seeds a hand still carries to a store the steps put them in (a capture: the
        carries are forgotten with the rest of the referee's judgements)."""
        arriving = dict.fromkeys(unread, 0.0)
        for carry in self.carries:
            if carry.flag is None and carry.to_cell in arriving:
                arriving[carry.to_cell] += carry.mass_g
        carried: dict[int, Pending] = {}
        for cell in unread:
            place = self.place_of.get(cell)
            if place is None:
                continue
            idx = self.rules.index_of(place)
            extra_g = (game.board[idx] - self.game.board[idx]) * self.seed_g + arriving[cell]
            pending = self.pending.get(cell)
            level = self.detector.cells[cell].rest
            if pending is None and extra_g and level is not None:
                onset = self.motions[cell][-1][0] if self.motions.get(cell) else t
                pending = Pending(t, t, 0.0, level, onset)
            if pending is not None:
                pending.net_g -= extra_g
                carried[cell] = pending
        return carried

    def _disproves(self, found: Explanation) -> bool:
        """Does the explanation rule out a mistake at every cup a flag it would take back
        stands at (those raised since the anchor and not put right)?"""
        flags = [f for f in self.flags if f.active]
        judged = [f for f in flags if f.kind not in (*UNEXPLAINABLE, SEED_LOST)]
        cells = {self.cell_of[f.at] for f in judged if f.at is not None and f.at in self.cell_of}
        return all(found.rules_out_a_mistake_at(cell) for cell in cells)

    def _may_leave_out(self, unread: set[int]) -> bool:
        """May these cups be left unread in an explanation? Not while a pit is being lifted,
        nor where the referee follows a step or a stray there: that would be judged twice
        (but for a landing guessed on the rise, kept if the explanation keeps its step).
        (A change waiting there, or seeds carried to it, are carried over: `_carried_over`.)"""
        if self.lifting or self.early_lifts:
            return False
        guessed_sows = {c for c, guess in self.tentative.items() if guess.step.kind is StepKind.SOW}
        waiting = (
            self.tentative.keys() - guessed_sows,
            self.partial,
            self.strays,
            self.left_behind,
            self.owed,
        )
        return not any(cell in per_cell for per_cell in waiting for cell in unread)

    def _forget_judgements(self, t: float, flags_before: int, why: str) -> None:
        """Everything judged per cup since the anchor is void: the cups are explained."""
        lost = any(hand.seeds for hand in self.game.hands)  # a lost seed may be in a hand
        stays = (*UNEXPLAINABLE, SEED_LOST) if lost else UNEXPLAINABLE
        for flag in self.flags[:flags_before]:
            if flag.active and flag.kind not in stays:
                flag.resolved_t = t
                if why:
                    flag.detail = (flag.detail + "; " if flag.detail else "") + why
        # (A flag of this frame already resolved is a mistake seen once it was put right: what
        # the cups say now cannot disprove it, and it stays on record.)
        self.flags[flags_before:] = [
            f for f in self.flags[flags_before:] if f.kind in stays or not f.active
        ]
        for per_cell in (
            self.strays,
            self.stray_flags,
            self.tentative,
            self.pending,
            self.partial,
            self.left_behind,
            self.lifting,
            self.owed,
            self.hand_of,
            self.early_lifts,
        ):
            per_cell.clear()
        self.carries, self.dropped, self.last_sow, self.mismatch = [], [], None, None
        self.expected_g = [c.rest for c in self.detector.cells]

    # -- what to show ---------------------------------------------------------------------------

    def _expected_places(self) -> tuple[Place, ...]:
        return tuple(self.game.expected_places())

    def expected_places(self) -> list[Place]:
        """Where the next step may happen (empty while a flag waits to be put right)."""
        return list(self._last_expected)

    def _publish(self, t: float, steps_before: int | None = None) -> None:
        if steps_before is not None and len(self.steps) != steps_before:
            self.detector.mark()  # (a step taken: `_rising_seed` looks from here)
        expected = self._expected_places()
        if expected != self._last_expected:
            self._last_expected = expected
            self.publications += 1
            self._follow_one_hand_sooner()

    def _follow_one_hand_sooner(self) -> None:
        """At 10 SPS, while hands take turns, cups start to move at SLOW_ONSET_SEEDS: the
        second reading after a landing shows a quarter to a half of the seed, and at the
        usual 0.3 seed a light one started on the third (the lights 100 ms later). Two hands
        racing in a simultaneous opening keep 0.3: there, when each cup began to move says
        whose seed came first (orders.py, explain.py), and the lower onset lost count
        (bench openings, 10 SPS, 0.125 s a seed: 96 of 100 exact against 99)."""
        if self.detector.slow:
            racing = len(self.game.active_players()) >= 2
            self.detector.set_onset(ONSET_SEEDS if racing else SLOW_ONSET_SEEDS)

    def doubts(self) -> int:
        """What speaks against the steps taken: flags raised for what the hands did (a
        sensor's fault is no judgement of them), and a hand that should hold seeds, or relay,
        but has stalled (see `_stalled`: a seed taken for one of its steps still to come, or
        for the other hand's)."""
        flags = sum(1 for f in self.flags if f.kind != SENSOR_FAULT)
        return flags + sum(self._stalled(p) for p in (0, 1))

    def _stalled(self, player: int) -> bool:
        """Has a hand that should hold seeds made no step for STALL_S, or, if it is slower,
        for three times the lower median of its last five intervals (a child may take 2 s a
        seed)? Or one that must relay, for RELAY_STALL_S? (In a simultaneous opening a last
        seed taken for the other hand's may leave a relay due that nobody makes.)"""
        hand = self.game.hands[player]
        relay = hand.phase is Phase.RELAY
        if not hand.seeds and not relay:
            return False
        times: list[float] = []
        for recognised in reversed(self.steps):
            if recognised.step.player == player:
                times.append(recognised.t)
                if len(times) == 6:
                    break
        if not times:
            return False
        slowest = max(STALL_S, 3 * (_usual_interval(times) or 0.0))
        return self.now - times[0] >= (max(slowest, RELAY_STALL_S) if relay else slowest)

    def active_flags(self) -> list[Flag]:
        return [f for f in self.flags if f.active]

    def position(self) -> Position:
        return self.game.position()

    def expected_kind(self) -> str:
        """pickup | sow | capture | sweep | none: what kind of step comes next."""
        return next_kind(self.game.expected())

    def phase(self) -> str:
        """start | sowing | relay | capturing | sweeping | over | blocked (a flag waits)."""
        return phase_of(self.game, self._blocked())

    def history(self) -> list[dict[str, int]]:
        """The moves completed so far: ply, player and the pit each started from."""
        return [
            {"ply": k, "player": move.player, "pit": move.pit}
            for k, move in enumerate(self.game.completed, start=1)
        ]

    def guidance_state(self, places: list[Place]) -> GuidanceState:
        """What the lights should show now (controller.leds.patterns)."""
        return guidance_of(self.game, self.flags, places, self._mismatch())

    def _mismatch(self) -> dict[Place, str]:
        """The cups at rest that disagree with the belief, while board_mismatch stands."""
        mismatch: dict[Place, str] = {}
        if self.mismatch is None:
            return mismatch
        for cell, account in enumerate(self.expected_g):
            detector = self.detector.cells[cell]
            place = self.place_of.get(cell)
            if account is None or detector.rest is None or place is None:
                continue
            seeds = self.seeds.count(detector.rest - account)
            if abs(seeds) >= 0.6:
                mismatch[place] = "too_many" if seeds > 0 else "too_few"
        return mismatch

    def belief(self) -> dict[str, Any]:
        """Where the referee thinks every seed physically is (strays and seeds in hand too)."""
        rules = self.rules
        board = list(self.game.board)
        hands = [h.seeds for h in self.game.hands]
        for carry in self.carries:
            # A capture or sweep: in the store for the follower, still in the hand. A wrong
            # lift: still in the pit for the follower, in the hand in fact.
            where = self.place_of[carry.to_cell] if carry.flag is None else carry.from_place
            board[rules.index_of(where)] -= carry.count
            hands[carry.player] += carry.count
        # Seeds partly lifted (in the hand, the follower has them in the pit), left behind
        # by a lift (in the pit, the follower has them in the hand) and owed as steps (in
        # the pit, still in the hand for the follower), each for the hand recorded then.
        lifted = [(c, mass) for c, (mass, _) in self.partial.items()]
        for cell, mass in lifted + [(c, x.lifted_g) for c, x in self.lifting.items()]:
            count = round(self.seeds.count(mass))
            board[rules.index_of(self.place_of[cell])] -= count
            hands[self.hand_of.get(cell, 0)] += count
        for cell, left in self.left_behind.items():
            board[rules.index_of(self.place_of[cell])] += left.count
            hands[self.hand_of.get(cell, 0)] -= left.count
        for cell, count in self.owed.items():
            board[rules.index_of(self.place_of[cell])] += count
            hands[self.hand_of.get(cell, 0)] -= count
        sowing = self._sowing_player()
        for cell, count in self.strays.items():
            board[rules.index_of(self.place_of[cell])] += count
            flag = self.stray_flags.get(cell)
            if sowing is not None and (flag is None or flag.kind != FOREIGN_SEED):
                hands[sowing] -= count
        return belief_json(self.game, board, hands)


def _usual_interval(times: list[float]) -> float | None:
    """A hand's usual interval from the times of its last steps (the latest first): the
    lower median of the gaps (a pause to pick up is not its tempo); None below two gaps."""
    gaps = sorted(a - b for a, b in itertools.pairwise(times))
    return gaps[(len(gaps) - 1) // 2] if len(gaps) >= 2 else None


def _count(n: float) -> int:
    """Seeds in a net change of `n` mean seeds (0: nothing moved)."""
    return 0 if abs(n) < MIN_SEED else max(1, round(abs(n)))
