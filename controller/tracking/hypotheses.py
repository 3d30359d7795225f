"""One search over what the hands did: the cups' motions explained by due steps and touches.

The referee (issue 12: one mechanism, where a case per scenario was before). A **motion** is a
cup moving, from the detector's onset to its settling (a cup that moves again within `HOLD_S`
had only paused: fingers brushing it). Every motion is explained by one choice, each a branch:

- **due steps** of either hand, from the rules' `StepFollower` (never a rule written again),
  ending with one at this cup: a seed sown, a pit lifted, a capture or sweep taken; with
  those of the motions that began before this one settled, up to `SEQUENCE_MAX` in all
  (`OPENING_SEQUENCE_MAX` while both hands sow): a seed and the relay pickup after it; a pit
  lifted by one hand and sown into by the other's seed a moment later, the other hand's steps
  between (each step is read from its own cup's motion).
  A seed sown before a lift in the same motion raises the cup first: a lift that never rose
  is no seed and then the lift (`_unseen_rise`); a step at a cup's later motion, passing an
  earlier one of it that rose by seeds, is a little less likely (`_passed_over`); a cup's
  waiting motion is scored before a later motion of it takes a step (`_settled_before`);
- **nothing**: a brush, a knock, a press that went away (the cup settles where it was); seeds
  lifted and put back, `LIFTED_BACK_COST` less likely, if the cup dipped by `DIP_SEEDS`
  (`SLOW_DIP_SEEDS` at 10 SPS) on the way (not while the table is knocked: it rings every
  cup down as well as up)
  (a dip with due steps is a seed of the ledger taken back as the hand sows that cup);
- a **touch**: a finger, palm or forearm that stays on the cup, its weight fitted, `TOUCH_COST`
  less likely than a step, and at 10 SPS `NEXT_CUP_TOUCH_COST` less again on the cup a sowing
  hand's next seed is due in, come after its last seed (that is its seeds: no strike tells two
  seeds from a finger there), unless another cup began to bear weight with it (a forearm) or
  the hand has let go of all its seeds (`_in_hand`; not while both hands sow);
  `ARRIVED_TOGETHER_COST` less again where seeds came or went in the same motion (a hand
  does not sow into, or lift from, a cup it puts its weight on); it goes when the cup falls
  back by it;
- seeds of the **ledger** coming right: a stray taken back, the rest of a pit lifted (a first
  handful takes FIRST_HANDFUL of the pit at the least, read by what it left or what it
  lifted), a spare put where a seed was lost
  (captured seeds reach the store by themselves, see below);
- a **mistake**, `MISTAKE_COST` less likely: seeds where none are due (`EXTRA_SEED_COST` each
  more but for all the hand holds, dropped at once), a pit lifted that may not be, two seeds
  where one is due, a seed lost off the board (a due seed that never fell: the next comes two
  beats after the last, by the hand's tempo, where a seed in the wrong pit comes after one; a
  lap's first seed a beat after the lift of its pit, and while the move has no beat yet, by
  the hand's beat in its last move). Its flag's kind is what the follower answers when fed
  the mistaken step.

A **hypothesis** is one choice per motion: its game (a follower copy), the **ledger** of seeds
that are not where the game has them (each entry a cup's seeds more or fewer, and why: carried
to the store, left for a second handful, or a mistake), the touches resting on cups, the
mistakes it made, and its **cost** (negative log-likelihood):

- the priors of its choices;
- for every settled motion, how far the cup's level is from what the choice puts there
  (Gaussian: the seeds' spread as the start layout shows it, the calibration's gain error, a cup's
  noise at rest). Captured seeds are followed by their weight, what their cup held before it
  was lifted, and reach the store in the order they were taken, the first k of them at a
  motion of the store, whichever k fits. A level shows every step made before it settled, so
  a motion is scored once every motion begun before it settled is explained;
- at 80 SPS, the strike: seeds let go ring the cup over their weight, a hand settling does not
  (not while the table is knocked: its peak is the knock's);
- a hand that holds seeds and does nothing for long (`_stalled`), and a mistake left as it is
  for long (`_unheeded`: a person puts right what the red light shows);
- while both hands sow, each seed read as a hand's by that hand's beat (`HandTempo.off_beat`): whose
  seed a shared cup took ties on the levels until the hands part.

An empty cup reads its tare, whatever left it: only the noise is in doubt there.

A change is read as each whole number of seeds its weight may be (`Levels.whole`): natural seeds of
15 % spread weigh 1.42 seeds two at a time as often as one at a time.

A **beam** of the `BEAM` likeliest hypotheses is kept (Viterbi with pruning, ranked with their
settled motions scored as things stand), and hypotheses that reach the same state (two orders
of the same steps, the two hands' in either order) are merged, the likelier kept; while
both hands sow, `OPENING_BEAM` are kept. Motions that have settled, in order, advance
the beam for good (the frontier); the motions still under way are explained again at each
event from the frontier on their priors, so the due step leads at once where a due cup begins
to move and the next place is lit on the first samples. If the cup settles without a seed the
step's misfit drops it from the lead and the light goes back. A search does `SEARCH_WORK`
(branches scored and steps fed) and goes on at the next frame, in the middle of a motion's
explanations if need be (a knock moves every cup at once), the leader as it was meanwhile.

**Flags**: a mistake of the leader (the likeliest, its settled motions scored as they stand;
in the beam a motion waiting to be scored counts at most WAITING_MAX_COST, since motions
under way may yet explain it) is flagged once its motion has held and no hypothesis
without a mistake comes within MARGIN. One flag a motion: if the leader comes to explain that
motion by another mistake, the flag is renamed (it keeps the time it was raised); it is
resolved when the leader puts it right, and withdrawn if the leader never made it. A flag is
timed when its seed came (`_made_t`), not when fingers first moved the cup. A cell that cannot
be weighed is a `sensor_fault` (faults.py), and what it did meanwhile is nothing.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from controller.board import BoardMapping
from controller.leds.patterns import GuidanceState
from controller.rules import Phase, Place, Rules, Step, StepFollower, StepKind
from controller.rules.follower import Mistake
from controller.sensing.detect import BoardDetector
from controller.sensing.frames import Frame

from .explanation import (
    Before,
    Entry,
    Fitted,
    Hypothesis,
    Taken,
    both_sowing,
    hands_last,
    leading,
)
from .faults import SensorWatch
from .levels import CALIBRATION, LET_GO_RING, MIN_TOUCH_G, NO_STRIKE_COST, SIGMA0_SEEDS, Levels
from .mismatch import REST_S, mismatches
from .motions import HOLD_S, Motion, MotionLog
from .publish import MARGIN, Publication
from .seeds import SeedWeights
from .tempo import HandTempo, takes_turn
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

# -- the priors, in natural log (a step where its cup moved costs nothing) ---------------------
TOUCH_COST = 3.0  # a hand resting on a cup
MISTAKE_COST = 6.0  # a seed or a pit where the rules say otherwise
EXTRA_SEED_COST = 3.0  # each seed more than one let go where none was due
PENDING_COST = 0.5  # a moving cup left unexplained for now, where a step could explain it
PAUSED_SEEDS_WITHIN = 0.25  # a pause this near whole seeds is seeds resting (`_branches`)
PASSED_OVER_COST = 1.0  # a step at a cup's later motion, its earlier one risen (`_passed_over`)
# A seed lost off the board: rarer than one in the wrong pit (a hop into the next cup among
# them), which it ties with on the cups until the hand's tempo or its last seed tells them
# apart; rarer by 1, less than MARGIN, so that the tempo still decides (docs/referee.md)
LOST_COST = MISTAKE_COST + 1.0
# A seed lost off the board where its cup struck and fell back since the hand's last step:
# that is the seed hopping on into another cup (SIMULATION.md's `bounce`: it strikes at 2 to
# 4 times its weight for 20 ms), seen as a wrong pit there. ...
STRUCK_LOST_COST = 3.0
# ... a strike rises this many seeds at least (at 10 SPS its 20 ms are a fifth of a reading: a
# strike of 2 to 4 seeds shows as 0.4 to 0.8)
STRIKE_SEEDS = 0.3
# Seeds sown into a cup before it was lifted in the same motion raise it first: a peak under
# this share of a seed shows none came (`_unseen_rise`)
UNSEEN_RISE_SEEDS = 0.25
# A weight that comes onto the cup a sowing hand's next seed is due in, after its last seed, is
# its seeds (two slipping together), a touch only at this much more. At 10 SPS only (at 80 SPS
# the strike tells them apart); a timing prior tuned on the bench, not a law (docs/referee.md)
NEXT_CUP_TOUCH_COST = 6.0
LEAN_TOGETHER_S = 0.2  # ... unless another cup began to bear weight with it: a forearm
# ... and only on a weight that seeds slipping together could be: with the prior a touch (9)
# loses to two seeds let go, ties three and beats four, so above this the prior told nothing
# apart and only misread a palm (docs/referee.md)
NEXT_CUP_SEEDS = 3.5
# -- the search ---------------------------------------------------------------------------------
# Hypotheses kept. Most motions have one explanation far ahead: a wider beam mostly carries
# mistakes nobody made, and one narrower than this needs a way back to the truth first (the
# cups at rest against the belief) (docs/referee.md)
BEAM = 5
# ... and while both hands sow (a simultaneous opening), this many: whose seed was whose makes
# ties that the cups tell apart only later (a capture, a relay), and a narrow beam kept one of
# them at random (docs/referee.md)
OPENING_BEAM = 10
WORSE = 15.0  # nor any this much less likely than the best
# Two cups' onsets this close may be in either order: at 10 SPS a reading is the mean of the
# last 100 ms and a light seed crosses the onset a sample after a heavy one; at 80 SPS a
# seed's onset is its first or second sample.
SLACK_S = 0.25
FAST_SLACK_S = 0.03
# Steps one motion may explain, with those of near motions: a cup a forearm leans on from
# before the pickup takes its seed only after the hand has sown on from there (seven to ten
# steps, and a capture, in bench humans; docs/referee.md).
# (The enumeration follows due steps, at cups that moved: mostly one line, not a tree.) ...
SEQUENCE_MAX = 12
# ... with those begun at most this long after it: a grab and the other hand's seed, or a cup
# that bore a forearm as the hand sowed on and settled only with its own seed (docs/referee.md)
NEAR_MAX_S = 2.5
# While both hands sow, a motion explains this many steps at most: two hands' steps at near cups
# make a tree of orders, not a line, and their alternatives crowd the beam (docs/referee.md)
OPENING_SEQUENCE_MAX = 6
# ... and, while one hand sows, at most this many steps fed to follower copies to find them:
# a lean before a pickup feeds a few dozen, a knock (every cup moving, every order of the
# hands' steps a candidate) hundreds (docs/referee.md)
SEQUENCE_FEEDS = 64
# The work of one search (branches scored, and steps fed to follower copies to find them), past
# which the rest waits for the next frame, mid-motion too (`Advance`); a unit costs 20 to 160 us
# of CPU. Not a bound: it is looked at after each branch (docs/referee.md)
SEARCH_WORK = 150
SLOW_ONSET_SEEDS = 0.15
WAITING_MAX_COST = MISTAKE_COST  # a settled motion waiting to be scored, in the beam (`_rank`)
# A cup that dipped this far and came back: seeds lifted and put back, which a hand does hardly
# ever but to put a mistake right; three times the cups' noise (SIGMA0_SEEDS) (docs/referee.md)
DIP_SEEDS = 0.35
# At 10 SPS the fingers that take a seed back press on the cup as they do, and the mean of
# 100 ms blurs the seed's absence with them (to 0.22 seed in bench humans), while a reading's
# noise is a hundredth of a seed (docs/referee.md)
SLOW_DIP_SEEDS = 0.15
EMPTIED_SEEDS = 0.5  # a cup settled this far below where it began was lifted (`_emptied`)
# A cup this far over its seeds' strike bore fingers first (`_made_t`) (docs/referee.md)
BRUSHED_SEEDS = 0.35
LIFTED_BACK_COST = TOUCH_COST
FIRST_HANDFUL = 0.2  # of a pit's seeds, at the least, in the first of two handfuls
TWO_HANDFULS_COST = 1.0  # a pit lifted in two handfuls: some hands do, most take it at once
RECONSIDER_S = 0.25  # the explanations are weighed again this often while nothing moves
STALL_FREE_S = 3.0  # a hand holding seeds may rest this long for nothing (`_stalled`) ...
STALL_RATE = 0.5  # ... and then costs this much a second ...
# ... up to this: less than a mistake by more than MARGIN, so that a child's pause of up to 20 s
# (SIMULATION.md) never makes a mistake nobody made the likelier (docs/referee.md)
STALL_MAX_COST = MISTAKE_COST - MARGIN - 1.0
# A person sees a red light and puts it right before sowing on, and waits for the other to
# put theirs right before taking the turn: a hand that sows this long after its own mistake,
# or lifts a pit to begin its move this long after anyone's, with it still there, costs this
# much (`_unheeded_step`): above LOST_COST's 1.0 over a mistake, so that a seed left in the
# wrong pit as the hand sows on no longer ties with a seed lost and its spare (docs/referee.md)
HEED_S = 0.8
UNHEEDED_STEP_COST = 1.5
UNHEEDED_FREE_S = 10.0  # a mistake may be left as it is this long for nothing (`_unheeded`) ...
UNHEEDED_RATE = 0.5  # ... and then costs this much a second, up to MISTAKE_COST

# What a follower's mistake is called on the board (SIMULATION.md's flag kinds)
FLAG_OF = {
    Mistake.WRONG_START: "wrong_start",
    Mistake.WRONG_PICKUP: "wrong_pickup",
    Mistake.WRONG_PLACE: "wrong_pit",
    Mistake.SECOND_SEED: "extra_seed",
    Mistake.OPPONENT_STORE: "opponent_store",
}


@dataclass
class Advance:
    """One motion's explanations from a beam, branch by branch: kept to go on at the next
    frame when the search's SEARCH_WORK runs out in the middle of them (a knock's motion,
    every order of the steps of the cups it moved, is hundreds of branches). The search that
    takes it up keeps the caches it was begun with (`fits`, `leans`)."""

    index: int
    beam: list[Hypothesis]
    following: float  # when the next motion began (`_score_settled`)
    branches: Iterator[Hypothesis]
    best: dict[tuple[Any, ...], Hypothesis] = field(default_factory=dict)


@dataclass
class Tracker:
    """Follows a game on the board from frames of raw readings, by one search (module doc)."""

    rules: Rules
    mapping: BoardMapping
    detector: BoardDetector
    seed_g: float
    start_cv: float = 0.25
    follower: StepFollower | None = None
    steps: list[RecognisedStep] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)

    def __post_init__(self) -> None:
        game = self.follower if self.follower is not None else StepFollower.new(self.rules)
        self.frontier: list[Hypothesis] = [Hypothesis(game, None)]
        self.leader: Hypothesis = self.frontier[0]
        # A motion is final once settled HOLD_S (at 80 SPS fingers brushing a cup, 30 to 80 ms,
        # may read as settled for a moment; at 10 SPS a reading averages them away).
        self.slow = self.detector.slow
        self.dip_min_g = (SLOW_DIP_SEEDS if self.slow else DIP_SEEDS) * self.seed_g  # `_branches`
        self.motion_log = MotionLog(
            0.0 if self.slow else HOLD_S,
            len(self.mapping.place_of),
            SLACK_S if self.slow else FAST_SLACK_S,
            NEAR_MAX_S,
        )
        self.motions = self.motion_log.items
        self.done = 0  # motions[:done] are settled and in the frontier
        # The beam after each motion from the frontier on, as last explained (kept until a
        # motion changes: most events add a motion, and only it is explained)
        self.trail: list[list[Hypothesis]] = []
        self.seeds = SeedWeights(self.seed_g, self.start_cv)
        self.levels = Levels(self.seeds, self.slow, self.motion_log.knocked)
        self.cell_of = self.mapping.cell_of
        self.place_of = self.mapping.place_of
        if self.slow:
            # A reading is the mean of the last 100 ms: a seed shows a quarter of its weight on
            # its first sample, and the lights follow it from there.
            self.detector.set_onset(SLOW_ONSET_SEEDS)
        self.now = 0.0
        self.search_s_max = 0.0
        self.work = 0  # branches scored and steps fed in this search (SEARCH_WORK)
        self.searched_t = 0.0
        self.holds_t = math.inf  # when the first motion not in the frontier will have held
        # What it says (the daemon's contract), and the cells that cannot be weighed (faults.py)
        self.publication = Publication(
            self.steps, self.flags, self.mapping, tuple(game.expected_places())
        )
        self.fault_flags: dict[int, Flag] = {}
        # The cups at rest that do not weigh what the leader counts (mismatch.py), and its flag
        self.mismatch: dict[Place, str] = {}
        self.mismatch_flag: Flag | None = None
        self.weighed_t = -math.inf
        cells = self.detector.cells
        rate_sps = cells[0].rate_sps if cells else 80.0
        self.sensors = SensorWatch(len(cells), rate_sps)
        self.sample_s = 1.0 / rate_sps  # (an onset is known to a sample: `off_beat`)
        self.tempo = HandTempo(self.motions, self.rules.options.laps == "relay", self.sample_s)
        # `_fitted` and `_leaned`, for the search under way (the motions may move on after it)
        self.fits: dict[tuple[Any, ...], Fitted] = {}
        self.leans: dict[int, bool] = {}
        # Motions explained as moving in the trail: explained again once they hold (`_level`)
        self.moving_in_trail: set[int] = set()
        self.advancing: Advance | None = None  # an advance the last search left unfinished

    @property
    def game(self) -> StepFollower:
        return self.leader.game

    # -- frames in --------------------------------------------------------------------------

    def start_levels(self, levels_g: list[float]) -> None:
        del levels_g  # the detector keeps the levels; motions are changes from them

    def process(self, frame: Frame) -> None:
        self.now = frame.t
        batch = self.detector.update(frame.t, frame.raw)
        changed = self._sensor_faults(frame)
        for event in batch.events:
            if event.cell not in self.fault_flags:  # (a faulty cell's changes are no seeds)
                rest = self.detector.cells[event.cell].rest
                changes = self.motion_log.on_event(event, rest, self.done, self._emptied)
                if changes is not None:
                    self._changed(changes)
                    changed = True
        # Nothing moving tells too: a hand that holds seeds stops sowing only for a while
        # (`_stalled`), so the explanations are weighed again now and then while all is still.
        if changed or self.now >= self.holds_t or self.now - self.searched_t >= RECONSIDER_S:
            began = time.process_time()
            self._search()
            self.search_s_max = max(self.search_s_max, time.process_time() - began)
        if changed or self.detector.active or self.now - self.motion_log.last_t < REST_S:
            return
        # (Every motion held and explained for good; weighed as often as the search is.)
        if self.done == len(self.motions) and self.now - self.weighed_t >= RECONSIDER_S:
            self.weighed_t = self.now
            self._weigh_at_rest()

    def _weigh_at_rest(self) -> None:
        """The board at rest against the leader's counts (mismatch.py): `board_mismatch` while
        a cup does not match, naming each, resolved once all do. Cups a hand rests on, and
        cells that cannot be weighed, are left out. (The rest level as the detector follows
        it: what it followed as drift includes the last settling of landings, which the
        motions' levels were taken before.)"""
        leader = self.leader
        touched = {cell for cell, _, _ in leader.touches}
        counts: dict[Place, int] = {}
        levels: dict[Place, float] = {}
        for cell, place in self.place_of.items():
            rest = self.detector.cells[cell].rest
            if cell in touched or cell in self.fault_flags or rest is None:
                continue
            counts[place] = self._count(leader.game, leader.ledger, cell)
            levels[place] = rest
        cv = self.seeds.cv()
        self.mismatch = mismatches(counts, levels, self.seed_g, cv, SIGMA0_SEEDS, CALIBRATION)
        flag = self.mismatch_flag
        if self.mismatch and flag is None:
            detail = "; ".join(f"{p}: {how.replace('_', ' ')}" for p, how in self.mismatch.items())
            flag = Flag(self.now, BOARD_MISMATCH, None, [], detail=detail, shown_t=self.now)
            self.mismatch_flag = self.publication.raise_(flag)
        elif not self.mismatch and flag is not None:
            flag.resolved_t = self.now
            self.mismatch_flag = None

    def _sensor_faults(self, frame: Frame) -> bool:
        """Flag the cells that cannot be weighed (faults.py), and resolve those read again.
        What a cell did while it was failing is no seeds: its motions not yet final are
        taken as nothing (the noise that made it look failing came first). Did any?"""
        cells = self.detector.cells
        noisy = [c.noisy for c in cells] if self.detector.noisy else None
        found, over = self.sensors.judge(frame.raw, noisy, self.fault_flags.keys())
        changed = False
        for cell, detail in found:
            place = self.place_of.get(cell)
            flag = Flag(
                frame.t, SENSOR_FAULT, place, [], detail=f"cell {cell}: {detail}", shown_t=frame.t
            )
            self.fault_flags[cell] = self.publication.raise_(flag)
            voided = self.motion_log.void(cell, frame.t, self.done)
            if voided is not None:
                self._changed(voided)
                changed = True
        for cell in over:
            self.fault_flags.pop(cell).resolved_t = frame.t
        return changed

    def _emptied(self, motion: Motion) -> bool:
        """Did the cup settle half a seed or more below where it began while both hands sow (a
        simultaneous opening)? Then it moving again a moment later is the other hand's seed
        after a relay pickup, a motion of its own (bench: a convoy of two hands at 8 seeds a
        second). With one hand sowing it is the hand's fingers leaving the cup: on 96 bench
        humans games, splitting those too made 62 false flags, nearly all at 80 SPS."""
        assert motion.after_g is not None
        lifted = motion.after_g - motion.before_g <= -EMPTIED_SEEDS * self.seed_g
        return lifted and both_sowing(self.leader.game)

    # -- the search ---------------------------------------------------------------------------

    def _search(self) -> None:
        """Advance the frontier through the motions settled in order, then explain the ones
        under way from it: the leader is the likeliest. Once SEARCH_WORK is done, the rest is
        explained at the next frame, the leader and the lights as they were until then."""
        if self.advancing is None:  # (an advance goes on as it began: its branches compare)
            self.fits.clear()  # (the motions may have moved on since)
            self.leans.clear()
        held = [k for k in self.moving_in_trail if self._held(self.motions[k])]
        if held:
            self._changed(min(held))  # (explained while they had settled only for a moment)
        self.work = 0
        while self.done < len(self.motions) and self._held(self.motions[self.done]):
            # (Explained already from the frontier, and nothing changed since: the same beam.)
            if self.trail:
                self.frontier = self.trail.pop(0)
            else:
                advanced = self._advance(self.frontier, self.done)
                if advanced is None:
                    break
                self.frontier = advanced
            self.done += 1
        self.searched_t = self.now
        # (Searched again as soon as a motion holds: it is weighed then, and its flag waits
        # for that, not for RECONSIDER_S.)
        self.holds_t = min(
            (
                m.settled_t + self.motion_log.hold_s
                for m in self.motions[self.done :]
                if m.after_g is not None and not self._held(m)
            ),
            default=math.inf,
        )
        beam = self.trail[-1] if self.trail else self.frontier
        for index in range(self.done + len(self.trail), len(self.motions)):
            advanced = self._advance(beam, index)
            if advanced is None:
                self.holds_t = self.now  # (the rest at the next frame)
                return
            beam = advanced
            self.trail.append(beam)
        self.leader = self._leading(beam)  # (ranked now: a hand stalls as time passes)
        self.publication.steps_of(self.leader, self.now)
        self.publication.flags_of(self.frontier, self._rank, self._made_t, self.now)

    def _changed(self, index: int) -> None:
        """A motion settled, or moved again: the motions from it are explained again."""
        del self.trail[max(0, index - self.done) :]
        self.moving_in_trail = {k for k in self.moving_in_trail if k < index}
        if self.advancing is not None and self.advancing.index >= index:
            self.advancing = None

    def _held(self, motion: Motion) -> bool:
        """Settled for `hold_s`: final (a brush may settle for a moment, and go on)."""
        return self._level(motion) is not None

    def _level(self, motion: Motion) -> float | None:
        """The level to weigh it at, once it held (explained again then: `moving_in_trail`)."""
        return self.motion_log.level(motion, self.now)

    def _advance(self, beam: list[Hypothesis], index: int) -> list[Hypothesis] | None:
        """The beam after motion `index`, or None once this search's work is done: the
        advance goes on from there at the next frame (`advancing`), unless a motion up to
        `index` changed (`_changed`) or the next one began since (`following`). (Motions
        under way read as they stand: they are explained again once they hold.)"""
        if self.work >= SEARCH_WORK:
            return None
        motion = self.motions[index]
        following = self.motions[index + 1].onset_t if index + 1 < len(self.motions) else math.inf
        advance, self.advancing = self.advancing, None
        if not (
            advance is not None
            and (advance.index, advance.following) == (index, following)
            and advance.beam is beam
        ):
            per_hypothesis = (self._branches(h, index, motion) for h in beam)
            branches = itertools.chain.from_iterable(per_hypothesis)
            advance = Advance(index, beam, following, branches)
        best = advance.best
        for explained in advance.branches:
            branch = self._score_settled(explained, following)
            key = branch.key()
            if key not in best or branch.cost < best[key].cost:
                best[key] = branch
            if self.work >= SEARCH_WORK:
                self.advancing = advance
                return None
        scored = sorted(
            (self._rank(h, WAITING_MAX_COST), k, h) for k, h in enumerate(best.values())
        )
        if not scored:
            return beam  # (a cup no place is mapped to: nothing to explain)
        floor = scored[0][0] + WORSE
        # (Both hands sowing, whose seed was whose makes ties the cups tell apart only later.)
        width = OPENING_BEAM if both_sowing(scored[0][2].game) else BEAM
        return [h for rank, _, h in scored[:width] if rank <= floor]

    def _leading(self, beam: list[Hypothesis]) -> Hypothesis:
        return leading(beam, self._rank)

    def _rank(self, hyp: Hypothesis, waiting_max: float = math.inf) -> float:
        """A hypothesis's cost with its settled motions that wait to be scored (a motion
        begun before they settled is still under way) scored as things stand: unscored, a
        wrong guess would pass for free. To keep it in the beam, at most `waiting_max` each:
        what the motions under way turn out to be may still explain it (captured seeds let go
        in a store that began to move before they were taken: bench humans game 81, a forearm
        on the store). The leader and the flags take them as they stand: a flag waiting for
        that costs a flag's time (on 96 games, 4 flags more than a second late)."""
        rank = hyp.cost + self._stalled(hyp) + self._unheeded(hyp)
        for waiting in hyp.unscored:
            motion = self.motions[waiting[0]]
            if self._level(motion) is not None:
                rank += min(self._fitted(hyp, motion, waiting)[0], waiting_max)
        return rank

    def _branches(self, hyp: Hypothesis, index: int, motion: Motion) -> Iterator[Hypothesis]:
        place = self.place_of.get(motion.cell)
        if place is None:
            return
        if index in hyp.ahead:
            # Its step was taken with an earlier motion's: nothing more, or one more step here
            # (the relay pickup after a seed).
            hyp = hyp.but(ahead=tuple(k for k in hyp.ahead if k != index))
            yield hyp
            for step in self._due_at(hyp.game, place):
                game = hyp.game.copy()
                game.feed(step)
                yield from self._with_steps(hyp, index, motion, game, (step,), place)
            return
        # Nothing: a brush, a knock, a press that went away; seeds lifted and put back, if the
        # cup dipped by DIP_SEEDS (SLOW_DIP_SEEDS at 10 SPS) on the way (`LIFTED_BACK_COST`).
        lifted_back = motion.dip_g >= self.dip_min_g and not self.motion_log.knocked(motion)
        nothing = LIFTED_BACK_COST if lifted_back else 0.0
        paused = self.seeds.count(motion.paused_g)
        if round(paused) >= 1 and abs(paused - round(paused)) <= PAUSED_SEEDS_WITHIN:
            # (It rested whole seeds up for a moment: a seed came, and went with a lift, as a
            # capture's is taken, more likely than nothing; they tied once it held, and the
            # capture's light went out until the store showed its seed. Not a bounce's
            # touch in passing, 0.7 seeds: bench humans game 56.)
            nothing += PENDING_COST
        yield from self._scored(hyp, index, motion, hyp.game, (), hyp.ledger, nothing)
        later = self._near(hyp, index, motion, place)
        settlings = self._settlings(hyp, motion)
        taken_back = [sl for sl in settlings if lifted_back and all(e.seeds > 0 for e in sl)]
        both = both_sowing(hyp.game)
        depth = OPENING_SEQUENCE_MAX if both else SEQUENCE_MAX
        for game, steps, elsewhere_at in self._sequences(hyp.game, place, later, depth, both):
            ahead = tuple(dict.fromkeys(elsewhere_at))
            first = self._settled_before(hyp, ahead)
            base = first.but(
                ahead=(*hyp.ahead, *ahead),
                unscored=(*first.unscored, *(self._before(first, k) for k in ahead)),
                cost=first.cost + self._passed_over(later, ahead),
            )
            # Each step is read from its cup's motion: this one's, or the near one it was
            # taken at (`elsewhere_at`, in the order of the steps elsewhere).
            elsewhere = iter(elsewhere_at)
            read = tuple(index if s.at == place else next(elsewhere) for s in steps)
            # (With seeds of the ledger here coming right as well: a seed in the wrong pit
            # taken back as the hand sows there, the cup's level where it was but for a dip.)
            for settled in ((), *taken_back):
                yield from self._with_steps(base, index, motion, game, steps, place, settled, read)
        for settled in settlings:
            ledger = tuple(e for e in hyp.ledger if e not in settled)
            # (A spare in the gap is what a seed lost comes to: its edge over a seed in the
            # wrong pit, LOST_COST's, goes with it: flag_seed_lost_spare.)
            spares = sum(e.kind == "seed_lost" for e in settled)
            prior = -(LOST_COST - MISTAKE_COST) * spares
            yield from self._scored(hyp, index, motion, hyp.game, (), ledger, prior)
        yield from self._mistakes(hyp, index, motion, place)

    def _settled_before(self, hyp: Hypothesis, ahead: tuple[int, ...]) -> Hypothesis:
        """Scored now: the waiting motions of the cups whose later motions take steps early
        (`ahead`) that settled before those began. Their levels show none of those steps
        (bench openings, 10 SPS 0.125 s, seed 325: a pit lifted, scored with the other hand's
        seed that came after it settled, in the cup's next motion: the truth cost two
        mistakes, and was pruned)."""
        for k in ahead:
            later = self.motions[k]
            for waiting in hyp.unscored:
                motion = self.motions[waiting[0]]
                if motion.cell == later.cell and motion.settled_t <= later.onset_t:
                    rest = tuple(u for u in hyp.unscored if u is not waiting)
                    hyp = self._fit(hyp.but(unscored=rest), motion, waiting)
        return hyp

    def _passed_over(self, near: list[tuple[int, Place]], ahead: tuple[int, ...]) -> float:
        """A step taken early at a cup's later motion, passing over an earlier one of the cup
        that settled with seeds more: the step is that rise's more likely, and the later
        motion a seed after it (bench openings, 10 SPS 0.125 s, seed 305: the two tie until
        the risen cup is explained, and the truth was pruned as a tie)."""
        cost = 0.0
        for k in ahead:
            cell = self.motions[k].cell
            for j, _ in near:
                motion = self.motions[j]
                if j >= k:
                    break
                level = self._level(motion)
                if motion.cell != cell or j in ahead or level is None:
                    continue
                if min(self.levels.whole(level - motion.before_g)) >= 1:
                    cost += PASSED_OVER_COST
        return cost

    def _near(
        self, hyp: Hypothesis, index: int, motion: Motion, place: Place
    ) -> list[tuple[int, Place]]:
        """Later motions at other cups that began before this one settled (or within SLACK_S
        after its onset): their steps may come first. A cup's level shows everything that
        happened to it until it settled: a pit lifted by one hand and sown into by the
        other's seed a moment later is one motion, the other hand's steps between. And cups
        may show their motions in another order than the hands made them: at 10 SPS a light
        seed crosses the onset a sample after a heavy one."""
        slack = SLACK_S if self.slow else FAST_SLACK_S
        until = max(
            motion.onset_t + slack, min(motion.settled_t, self.now, motion.onset_t + NEAR_MAX_S)
        )
        out = []
        for later in range(index + 1, len(self.motions)):
            other = self.motions[later]
            if other.onset_t > until:
                break
            there = self.place_of.get(other.cell)
            if there is not None and there != place and later not in hyp.ahead:
                out.append((later, there))
        return out

    def _sequences(
        self,
        game: StepFollower,
        place: Place,
        near: list[tuple[int, Place]],
        depth: int,
        both: bool,
    ) -> Iterator[tuple[StepFollower, tuple[Step, ...], tuple[int, ...]]]:
        """Due steps that end with one here: steps here (a seed and the relay pickup after it,
        both hands' seeds) and at the near motions' cups, in any order the rules allow, a run
        of the hand's steps at each of those; `elsewhere_at` holds the motion each step
        elsewhere was read from. `both`: both hands sow (no relay read with its seed).
        Depth first, in the rules' order, and at most SEQUENCE_FEEDS steps fed to follower
        copies: a knock makes every cup near, and every order of the hands' steps a candidate.
        (Not while both hands sow: their orders make a tree, bounded by OPENING_SEQUENCE_MAX.)"""
        Node = tuple[StepFollower, tuple[Step, ...], tuple[int, ...], bool]
        stack: list[Node] = [(game, (), (), False)]
        budget = math.inf if both else SEQUENCE_FEEDS
        while stack:
            before, steps, elsewhere_at, here = stack.pop()
            if here:
                yield before, steps, elsewhere_at
            if len(steps) == depth or budget == 0:
                continue  # (those fed already are still yielded)
            children: list[Node] = []
            for step in before.expected():
                reads = self._reads(step, place, near, steps, elsewhere_at, both)
                if not reads:
                    continue
                if budget == 0:
                    break
                budget -= 1
                then = before.copy()
                then.feed(step)
                self.work += 1
                children.extend(
                    (then, (*steps, step), elsewhere_at, True)
                    if read is None
                    else (then, (*steps, step), (*elsewhere_at, read), False)
                    for read in reads
                )
            stack.extend(reversed(children))

    @staticmethod
    def _reads(
        step: Step,
        place: Place,
        near: list[tuple[int, Place]],
        steps: tuple[Step, ...],
        elsewhere_at: tuple[int, ...],
        both: bool,
    ) -> list[int | None]:
        """The motions `step` may be read from, after `steps`: this one's (None), or a near
        one at its cup not read yet. (Any of the cup's near motions: fingers may brush it
        before its seed comes. A relay pickup after the hand's seed there may be read from
        that seed's motion, but not while both hands sow: bench openings as
        OPENING_SEQUENCE_MAX.)"""
        if step.at == place:
            return [None]
        others: list[int | None] = [k for k, at in near if at == step.at and k not in elsewhere_at]
        relay = (
            not both
            and step.kind is StepKind.PICKUP
            and bool(steps)
            and steps[-1].at == step.at
            and steps[-1].player == step.player
        )
        return [elsewhere_at[-1], *others] if relay else others

    def _stalled(self, hyp: Hypothesis) -> float:
        """A hand holding seeds to sow, or captured seeds for its store, that does nothing for
        long is unlikely: children pause up to 20 s mid-sowing (SIMULATION.md), so the cost
        grows slowly from STALL_FREE_S after the last cup began to move. It tells apart, once
        the hands are still, explanations that leave seeds in a hand from those that do not
        (a seed lost, and its spare put in, against a seed in the wrong pit)."""
        quiet = self.now - (self.motions[-1].onset_t if self.motions else 0.0)
        if quiet <= STALL_FREE_S:
            return 0.0
        holding = any(
            hand.seeds > 0 and hand.phase in (Phase.SOWING, Phase.RELAY) for hand in hyp.game.hands
        ) or any(e.kind == "carried" for e in hyp.ledger)
        return min((quiet - STALL_FREE_S) * STALL_RATE, STALL_MAX_COST) if holding else 0.0

    def _unheeded(self, hyp: Hypothesis) -> float:
        """A mistake left as it is for long is unlikely: its red light shows where it is, and
        a person puts it right (and the game waits for that). So a hypothesis that holds one
        open since long ago costs more as time passes, up to a mistake more: it keeps an old
        explanation from passing a new mistake off as putting its own right (bench humans
        game 36: a pit lifted that may not be 72 s before, made right by the next seed in the
        wrong pit, against that seed flagged)."""
        late = self.now - self._open_since(hyp.ledger) - UNHEEDED_FREE_S
        return min(late * UNHEEDED_RATE, MISTAKE_COST) if late > 0 else 0.0

    def _open_since(self, ledger: tuple[Entry, ...], players: set[int] | None = None) -> float:
        """When the oldest mistake still open in `ledger` was made (by one of `players`, if
        given; none: never)."""
        return min(
            (
                self.motions[e.motion].onset_t
                for e in ledger
                if e.mistake and (players is None or e.player in players)
            ),
            default=math.inf,
        )

    def _before(self, hyp: Hypothesis, index: int) -> Before:
        cell = self.motions[index].cell
        count = self._count(hyp.game, hyp.ledger, cell)
        return (index, count, *hyp.touch(cell))

    def _with_steps(
        self,
        hyp: Hypothesis,
        index: int,
        motion: Motion,
        game: StepFollower,
        steps: tuple[Step, ...],
        place: Place,
        settled: tuple[Entry, ...] = (),
        read: tuple[int, ...] = (),
    ) -> Iterator[Hypothesis]:
        """Due steps in this motion (and `settled` of the ledger coming right): a capture or
        sweep leaves its seeds in the hand on their way to the store (the ledger's 'carried');
        a pickup that leaves seeds in the pit is a first handful ('left'). `read`: the motion
        each step was read from (none: this one)."""
        kept = [e for e in hyp.ledger if e not in settled]
        carried = self._carried(hyp, index, motion, steps, place, read)
        ledger, cost = self._sown_on(kept + carried, steps, index)
        last = steps[-1]
        yield from self._scored(hyp, index, motion, game, steps, ledger, cost, read)
        made = self._count(game, ledger, motion.cell) - self._count(
            hyp.game, hyp.ledger, motion.cell
        )
        for seen in self._seeds_seen(motion) if last.kind is StepKind.SOW else ():
            if seen <= made:
                continue
            # More seeds than the steps put there: two slipped where one was due (more hardly
            # ever, as in `_mistakes`).
            kind, player = self._mistake_kind(game, place, seen - made)
            extra = Entry(motion.cell, seen - made, kind, player, index)
            prior = cost + self._let_go_cost(self._in_hand(hyp, player), seen, made)
            yield from self._scored(hyp, index, motion, game, steps, (*ledger, extra), prior, read)
        if last.kind is StepKind.PICKUP and self._level(motion) is not None:
            for left in self._first_handful(hyp, motion):
                entry = Entry(motion.cell, left, "left", last.player, index)
                prior = cost + TWO_HANDFULS_COST
                yield from self._scored(
                    hyp, index, motion, game, steps, (*ledger, entry), prior, read
                )

    def _carried(
        self,
        hyp: Hypothesis,
        index: int,
        motion: Motion,
        steps: tuple[Step, ...],
        place: Place,
        read: tuple[int, ...] = (),
    ) -> list[Entry]:
        """The seeds the captures and sweeps among `steps` took, in the hand on their way to
        the store. (What each took: the steps played again up to it; most sequences take
        none, and are not.) They are followed by their weight where the cup showed it: the
        seeds it held before it moved. Seeds sown into it in the same motion (the last seed
        of an oware move, then its capture; the other hand's seed a moment before) go along
        unweighed: bench tracking game 91, three heavy seeds in the store, fitted at a
        nominal weight, read as a hand; a daemon opening at 10 SPS, a capture's own seed
        sown in the motion before (`ahead`), weighed as its cup's 0.05 g, read as a seed
        in the wrong store. Each is the motion of the cup it was taken from (`read`)."""
        if not any(s.kind in (StepKind.CAPTURE, StepKind.SWEEP) for s in steps):
            return []
        carried: list[Entry] = []
        held = next(
            (u[1] for u in hyp.unscored if u[0] == index),
            self._count(hyp.game, hyp.ledger, motion.cell),
        )
        replay = hyp.game.copy()
        for k, step in enumerate(steps):
            assert step.at is not None
            taken = replay.board[self.rules.index_of(step.at)]
            replay.feed(step)
            if step.kind not in (StepKind.CAPTURE, StepKind.SWEEP) or not taken:
                continue
            taker = step.player if step.to_player is None else step.to_player
            store = self.cell_of[Place(taker, "store")]
            lifted = read[k] if read else index
            earlier = [s.kind for s in steps[:k] if s.at == place]
            weighed = min(taken, held)
            if step.at != place or any(kind is not StepKind.SOW for kind in earlier):
                weighed = 0  # (taken from elsewhere, or after a part of it was)
            if weighed:
                grams = motion.before_g - hyp.touch_g(motion.cell)
                carried.append(Entry(store, -weighed, "carried", taker, lifted, grams))
            if taken > weighed:
                carried.append(Entry(store, weighed - taken, "carried", taker, lifted))
        return carried

    @staticmethod
    def _sown_on(
        ledger: list[Entry], steps: tuple[Step, ...], index: int
    ) -> tuple[tuple[Entry, ...], float]:
        """A hand that sows on without the seeds it left in the pit (a first handful) has not
        lifted them all: the ledger's 'left' becomes that mistake, at this motion."""
        sown_by = {s.player for s in steps if s.kind is StepKind.SOW}
        if not any(e.kind == "left" and e.player in sown_by for e in ledger):
            return tuple(ledger), 0.0
        marked = tuple(
            replace(e, kind="not_all_lifted", motion=index)
            if e.kind == "left" and e.player in sown_by
            else e
            for e in ledger
        )
        return marked, MISTAKE_COST

    def _first_handful(self, hyp: Hypothesis, motion: Motion) -> list[int]:
        """Seeds a pickup may have left for a second handful: what the cup reads, with the
        hand that pressed on it to grab still there or lifted. A hand grabs what it can hold:
        the first handful takes a good part of the pit (FIRST_HANDFUL), not a seed or two of
        many (that is a seed taken back: bench humans game 4, one seed of eight taken from
        the cup it had bounced into, read as a pit lifted in two handfuls). What it left is
        also the pit less what it lifted, as weighed: the few seeds lifted spread less than
        the many left (game 479: six heavy seeds, two lifted, the four left weighed as five
        and a twentieth)."""
        assert motion.after_g is not None
        there = self._count(hyp.game, hyp.ledger, motion.cell)
        touch = hyp.touch_g(motion.cell)
        options = {
            n for g in (motion.after_g, motion.after_g - touch) for n in self.levels.whole(g)
        }
        lifted = motion.before_g - motion.after_g
        options.update(there - n for g in (lifted, lifted - touch) for n in self.levels.whole(g))
        return [n for n in sorted(options) if n >= 1 and there - n >= FIRST_HANDFUL * there]

    @staticmethod
    def _settlings(hyp: Hypothesis, motion: Motion) -> list[tuple[Entry, ...]]:
        """Seeds of the ledger at this cup that may come right: each entry, or all of them."""
        here = tuple(e for e in hyp.ledger if e.cell == motion.cell and e.kind != "carried")
        return [(e,) for e in here] + ([here] if len(here) > 1 else [])

    def _mistakes(
        self, hyp: Hypothesis, index: int, motion: Motion, place: Place
    ) -> Iterator[Hypothesis]:
        """Seeds put where none are due, or a pit lifted that may not be; and a seed lost."""
        changes = self._changes_seen(hyp, motion) or [1]  # (moving: priced, not yet scored)
        # (Seeds where the hand's seed is due are that seed and more: `_with_steps`.)
        sow_due = any(s.kind is StepKind.SOW for s in self._due_at(hyp.game, place))
        for change in changes:
            if change == 0 or (change > 0 and sow_due):
                continue
            kind, player = self._mistake_kind(hyp.game, place, change)
            entry = Entry(motion.cell, change, kind, player, index)
            ledger = (*hyp.ledger, entry)
            held = self._in_hand(hyp, player)
            prior = self._let_go_cost(held, change, 0) if change > 0 else MISTAKE_COST
            if player is not None and change > 0:
                prior += self.tempo.off_tempo(hyp.last, player, motion.onset_t, beats=1)
            yield from self._scored(hyp, index, motion, hyp.game, (), ledger, prior)
        yield from self._lost(hyp, index, motion, place)

    @staticmethod
    def _let_go_cost(held: int, seeds: int, due: int) -> float:
        """The prior of `seeds` let go at once where `due` were: two slip together at times,
        more hardly ever (that is a hand's weight), but for all the hand holds (`held`),
        dropped in one place."""
        if seeds > 1 and seeds == held:
            return MISTAKE_COST
        return MISTAKE_COST + EXTRA_SEED_COST * max(0, seeds - due - 1)

    def _lost(
        self, hyp: Hypothesis, index: int, motion: Motion, place: Place
    ) -> Iterator[Hypothesis]:
        """A seed lost off the board: the hand's due seed never fell, and this is its next."""
        for due in hyp.game.expected():
            if due.kind is not StepKind.SOW or due.at is None or due.at == place:
                continue
            game = hyp.game.copy()
            game.feed(due)
            nexts = [s for s in self._due_at(game, place) if s.player == due.player]
            for step in nexts:
                then = game.copy()
                then.feed(step)
                lost = Entry(self.cell_of[due.at], -1, "seed_lost", due.player, index)
                ledger = (*hyp.ledger, lost)
                prior = LOST_COST + self.tempo.off_tempo(
                    hyp.last, due.player, motion.onset_t, beats=2
                )
                if self._struck(hyp, due, index):
                    prior += STRUCK_LOST_COST
                yield from self._scored(hyp, index, motion, then, (due, step), ledger, prior)

    def _struck(self, hyp: Hypothesis, due: Step, index: int) -> bool:
        """Did the cup `due` is at strike and fall back since the hand's last step: its seed
        fell there and hopped on (a bounce), rather than off the board? (Not a motion the
        table's knock began: every cup strikes then; bench humans game 128, a seed lost at the
        store as the table was knocked, read as the next seed in the wrong pit for eight
        seconds. A cup struck before the knock keeps its strike: a bounce, then a knock.)"""
        assert due.at is not None
        cell = self.cell_of[due.at]
        own = hands_last(hyp.last, due.player)
        since = -1 if own is None else own.motion
        for motion in self.motions[since + 1 : index]:
            if motion.cell != cell or motion.peak_g < STRIKE_SEEDS * self.seed_g:
                continue
            if self.motion_log.begun_by_knock(motion):
                continue
            if self._seeds_seen(motion)[:1] == [0]:  # (held, and back where it was)
                return True
        return False

    def _mistake_kind(
        self, game: StepFollower, place: Place, change: int
    ) -> tuple[str, int | None]:
        """The flag a mistaken step would raise: what the follower answers when fed it."""
        sowing = [p for p in game.active_players() if game.hands[p].seeds > 0]
        active = sowing or game.active_players()
        if not active:
            return "foreign_seed", None
        if change > 0 and not sowing:
            return "foreign_seed", None
        player = active[0]
        step = Step.sow(player, place) if change > 0 else Step.pickup(player, place)
        kind = None
        if step not in game.expected():
            # (Rejected, so the game is left as it was: no copy needed.)
            verdict = game.feed(step)
            kind = FLAG_OF.get(verdict.mistake) if verdict.mistake is not None else None
        return kind or ("foreign_seed" if change > 0 else "wrong_pickup"), player

    # -- scoring ------------------------------------------------------------------------------

    def _scored(
        self,
        hyp: Hypothesis,
        index: int,
        motion: Motion,
        game: StepFollower,
        steps: tuple[Step, ...],
        ledger: tuple[Entry, ...],
        prior: float,
        read: tuple[int, ...] = (),
    ) -> Iterator[Hypothesis]:
        """The branch priced and, if its motion settled, scored: the best touch for it.
        `read`: the motion each step was read from (none: this one)."""
        self.work += 1
        last = hyp.last
        both = both_sowing(hyp.game)
        turn_taken = False  # (a pickup that begins a player's move)
        for k, step in enumerate(steps):
            at = read[k] if read else index  # (the motion it was read from)
            if both and step.kind is StepKind.SOW:
                prior += self.tempo.off_beat(last, step.player, self.motions[at].onset_t)
            if step.kind is StepKind.PICKUP and not hyp.game.opening:
                prior += self.tempo.hasty_turn(last, step.player, at)
                turn_taken |= takes_turn(last, step.player)
            last = Taken(step, at, last)
        held = self._level(motion) is not None
        if held:  # (while cups move, a correction may be under way: the lights wait not)
            prior += self._unheeded_step(ledger, steps, motion, turn_taken)
        if self._count(game, ledger, motion.cell) < 0:
            return
        prior += self._unseen_rise(motion, steps)
        unscored = hyp.unscored
        if index not in (u[0] for u in unscored):
            unscored = (*unscored, self._before(hyp, index))
        made = hyp.made + tuple(e for e in ledger if e.mistake and e not in hyp.ledger)
        base = hyp.but(
            game=game,
            last=last,
            ledger=ledger,
            cost=hyp.cost + prior,
            unscored=unscored,
            made=made,
        )
        if not held:
            self.moving_in_trail.add(index)
            # (A spare's edge, a negative prior (`_branches`), explains no more than a settling.)
            yield self._priced_moving(base, index, motion, bool(steps) or prior > 0)
            return
        yield base

    def _unheeded_step(
        self, ledger: tuple[Entry, ...], steps: tuple[Step, ...], motion: Motion, turn_taken: bool
    ) -> float:
        """A hand sowing on past its own mistake, or taking its turn past anyone's, HEED_S after
        it was made: its red light showed by then, and a person puts right what it shows
        before sowing on, and waits for the other to put theirs right before taking the turn.
        It tells a seed lost and its spare put in the gap from a seed in the wrong pit left
        there and the spare the hand's next, which tie on the cups (bench humans game 40: the
        light at the wrong cup for five seconds, until the hands had stood still); and a seed
        in the wrong pit taken back from the next player lifting that pit while the other's
        seed lost waits for its spare (games 192 and 328). Priced once the motion holds
        (`_scored`)."""
        sowers = {s.player for s in steps if s.kind is StepKind.SOW}
        if not sowers and not turn_taken:
            return 0.0
        since = self._open_since(ledger, None if turn_taken else sowers)
        return UNHEEDED_STEP_COST if motion.onset_t - since >= HEED_S else 0.0

    def _unseen_rise(self, motion: Motion, steps: tuple[Step, ...]) -> float:
        """A seed sown into the cup before it was lifted in the same motion (a relay pickup
        after the hand's last seed, the other hand's seed before a pickup) shows in its peak:
        the cup rose before it fell. One that settled without rising had the seed come after
        (bench openings, 10 SPS 0.125 s, seed 325: a pit lifted by one hand, explained as the
        other hand's seed first and then the pickup, at no cost, until its seed came; the
        order the cups showed was pruned as a tie)."""
        if self._level(motion) is None or motion.peak_g >= UNSEEN_RISE_SEEDS * self.seed_g:
            return 0.0
        place = self.place_of[motion.cell]
        here = [s.kind is StepKind.SOW for s in steps if s.at == place]
        lifted = here.index(False) if False in here else 0
        return NO_STRIKE_COST if lifted > 0 else 0.0

    def _priced_moving(
        self, hyp: Hypothesis, index: int, motion: Motion, explained: bool
    ) -> Hypothesis:
        """A cup still moving tells that something happened there, not what: a step or a
        mistake explains it, nothing explains it a little worse (PENDING_COST); a seed cannot
        come into a cup falling away."""
        before = next(u[1] for u in hyp.unscored if u[0] == index)
        change = self._count(hyp.game, hyp.ledger, motion.cell) - before
        rise = self.detector.cells[motion.cell].rise
        cost = 0.0 if explained else PENDING_COST
        if change > 0 and rise < -0.3 * self.seed_g:
            cost += MISTAKE_COST
        return hyp.but(cost=hyp.cost + cost)

    def _score_settled(self, hyp: Hypothesis, following: float) -> Hypothesis:
        """Score every explained motion that settled before the next motion began."""
        for entry in hyp.unscored:
            motion = self.motions[entry[0]]
            if self._level(motion) is None or motion.settled_t > following:
                continue
            rest = tuple(u for u in hyp.unscored if u is not entry)
            hyp = self._fit(hyp.but(unscored=rest), motion, entry)
        return hyp

    def _fit(self, hyp: Hypothesis, motion: Motion, before: Before) -> Hypothesis:
        """Score a settled motion: its level against the seeds the hypothesis puts there by
        then, with captured seeds on their way to this store arrived or not, and the touch on
        it unchanged, lifted, or newly put (its weight fitted), whichever fits best."""
        total, touch, arrived = self._fitted(hyp, motion, before)
        cell = motion.cell
        ledger = tuple(e for e in hyp.ledger if e not in arrived) if arrived else hyp.ledger
        touches = tuple(t for t in hyp.touches if t[0] != cell)
        if touch[0] > 0:
            touches = (*touches, (cell, *touch))
        return hyp.but(touches=touches, ledger=ledger, cost=hyp.cost + total)

    def _fitted(self, hyp: Hypothesis, motion: Motion, before: Before) -> Fitted:
        """`_fit`'s best: its cost, the touch, and the captured seeds arrived. Kept for the
        search under way (`fits`): the beam's branches share most of their waiting motions
        and what those cups hold, and each branch is ranked with them."""
        cell = motion.cell
        # The hand puts captured seeds in the store in the order it took them (the first k of
        # them arrive): as their cups settled, for a lean or a brush may begin a cup's motion
        # long before its seeds leave (bench humans game 195: a forearm on the pit captured
        # from, the capturing pit's own seed taken to the store first).
        carried = (
            tuple(
                sorted(
                    (e for e in hyp.ledger if e.cell == cell and e.kind == "carried"),
                    key=lambda e: (self.motions[e.motion].settled_t, e.motion),
                )
            )
            if self.place_of[cell].is_store
            else ()
        )
        count = self._count(hyp.game, hyp.ledger, cell)
        # (At 80 SPS the strike tells seeds from a finger: `Levels.misfit`.)
        sowing = self.slow and not self._leaned(before[0]) and self._sowing_into(hyp, motion)
        key = (before, count, carried, sowing)
        known_fit = self.fits.get(key)
        if known_fit is not None:
            return known_fit

        def touch_cost(grams: float) -> float:
            slipping = sowing and grams <= NEXT_CUP_SEEDS * self.seed_g
            return TOUCH_COST + (NEXT_CUP_TOUCH_COST if slipping else 0.0)

        _, count_before, touch_g, touch_spread = before
        best: Fitted | None = None
        for k in range(len(carried) + 1):
            arrived = carried[:k]
            after = count - sum(e.seeds for e in arrived)
            weighed = [e for e in arrived if e.grams is not None]
            known = (-sum(e.seeds for e in weighed), sum(e.grams or 0.0 for e in weighed))
            total, touch = self.levels.misfit(
                motion, count_before, after, (touch_g, touch_spread), known, touch_cost
            )
            if best is None or total < best[0]:
                best = (total, touch, arrived)
        assert best is not None
        self.fits[key] = best
        return best

    def _leaned(self, index: int) -> bool:
        """Did a neighbouring cup begin to bear weight (MIN_TOUCH_G: more than a seed) within
        LEAN_TOGETHER_S of this one: a forearm on the board's edge, not a hand's seeds? A
        forearm presses cups side by side; a finger put on a cup further on as the hand's two
        seeds slip is no forearm (bench humans game 20, natural seeds at 10 SPS: a rest on
        [1, 5] began 0.1 s before two seeds in [1, 3], read as a touch and never flagged).
        (Kept for the search under way, as `fits`.)"""
        known = self.leans.get(index)
        if known is not None:
            return known
        motion = self.motions[index]
        leaned = any(
            self._side_by_side(other.cell, motion.cell) and self._rise(other) >= MIN_TOUCH_G
            for other in self.motion_log.begun_with(index, LEAN_TOGETHER_S)
        )
        self.leans[index] = leaned
        return leaned

    def _side_by_side(self, cell: int, other: int) -> bool:
        """Are the two cells neighbours in a side's row (its pits and its store), closed pits
        between them left out? (A forearm on the board's edge lies along one side.)"""
        here, there = self.place_of.get(cell), self.place_of.get(other)
        if here is None or there is None or here.player != there.player or here == there:
            return False  # (a cell of no place: the unused cups of a larger board)
        a, b = sorted((self.rules.index_of(here), self.rules.index_of(there)))
        between = (self.rules.place(k) for k in range(a + 1, b))
        return all(
            isinstance(p.pit, int) and self.rules.is_closed(p.player, p.pit) for p in between
        )

    def _rise(self, motion: Motion) -> float:
        """How far the cup rose in the motion (still moving: as far as it has risen now)."""
        if motion.after_g is None:
            return self.detector.cells[motion.cell].rise
        return max(motion.peak_g, motion.after_g - motion.before_g)

    def _sowing_into(self, hyp: Hypothesis, motion: Motion) -> bool:
        """Did the cup begin to move after a sowing hand's last seed, its next seed due there?
        Or after the pit it lifted settled: a hand lifting a pit may rest the other on the
        next cup as it grabs (SIMULATION.md), but the first seed comes after the lift (bench
        humans: 15 more seeds flagged in time at 10 SPS, two seeds let go in the first cup
        after a pickup, once rests that began with the grab were told apart from them). Not
        once the hand let go of all it holds where they were not due: its last seed bounced
        into the next cup, it rests on the cup while it takes it back (bench humans game 236,
        flagged a foreign seed there)."""
        place = self.place_of[motion.cell]
        both = both_sowing(hyp.game)  # (then `_mistake_kind` charges mistakes to the first)
        for step in hyp.game.expected():
            if step.at != place or step.kind is not StepKind.SOW:
                continue
            if not both and self._in_hand(hyp, step.player) <= 0:
                continue  # (it has let go of all it holds)
            node = hands_last(hyp.last, step.player)
            if node is None:
                continue
            last = self.motions[node.motion]
            if node.step.kind is StepKind.SOW and motion.onset_t > last.onset_t:
                return True
            if node.step.kind is StepKind.PICKUP and motion.onset_t >= last.settled_t:
                return True
        return False

    @staticmethod
    def _in_hand(hyp: Hypothesis, player: int | None) -> int:
        """The seeds the hand holds to sow: the game's, less the ledger's mistaken seeds charged
        to that player (let go where they were not due, or left in a pit it sowed on from),
        which the game still has in the hand. (Roughly, as is enough to tell a hand that let
        go of its last seed: a mistake left open from an earlier move counts against it, and
        seeds lifted where they may not be, which `belief` puts in the hand, are left out.)
        No hand (a seed nobody's): none."""
        if player is None:
            return 0
        let_go = sum(
            e.seeds for e in hyp.ledger if e.player == player and e.mistake and e.seeds > 0
        )
        return hyp.game.hands[player].seeds - let_go

    def _count(self, game: StepFollower, ledger: tuple[Entry, ...], cell: int) -> int:
        """Seeds in the cup, by the game and the ledger."""
        place = self.place_of[cell]
        count = game.board[self.rules.index_of(place)]
        return count + sum(e.seeds for e in ledger if e.cell == cell)

    def _seeds_seen(self, motion: Motion) -> list[int]:
        """Seeds the settled motion may have put in its cup, whole (none: still moving). (Not
        less a touch that lifted, as `_changes_seen`: with that, one false flag more and one
        seed flagged in time more on 96 bench humans games.)"""
        level = self._level(motion)
        if level is None:
            return []
        return self.levels.whole(level - motion.before_g)

    def _changes_seen(self, hyp: Hypothesis, motion: Motion) -> list[int]:
        """Seeds the settled motion may have moved, whole: its change, and its change less
        the hand that rested on the cup, if it lifted (none while it moves)."""
        level = self._level(motion)
        if level is None:
            return []
        change = level - motion.before_g
        counts = self.levels.whole(change)
        touch = hyp.touch_g(motion.cell)
        if touch:
            counts += [n for n in self.levels.whole(change + touch) if n not in counts]
        return counts

    @staticmethod
    def _due_at(game: StepFollower, place: Place) -> list[Step]:
        return [s for s in game.expected() if s.at == place]

    # -- what the leader says -------------------------------------------------------------------

    def _made_t(self, index: int) -> float:
        """When a mistake read from this motion was made: its onset, unless something else
        moved the cup first, then when the cup began to read steady. At 80 SPS that shows as
        the cup going higher than its seeds' strike (fingers brushing it before the seed:
        bench humans games 94 and 96); at 10 SPS a reading averages a brush away, but its
        first tenth of a second begins the motion, up to 0.3 s before the seed (game 42)."""
        motion = self.motions[index]
        if motion.after_g is None:
            return motion.onset_t
        change = max(motion.after_g - motion.before_g, 0.0)
        passed = motion.peak_g - change >= BRUSHED_SEEDS * self.seed_g + LET_GO_RING * change
        if not (passed or self.slow):
            return motion.onset_t
        settling_s = self.detector.cells[motion.cell].settle_samples * self.sample_s
        return max(motion.onset_t, motion.settled_t - settling_s)

    # -- the referee's contract -----------------------------------------------------------------

    @property
    def publications(self) -> int:
        return self.publication.publications

    @property
    def last_activity(self) -> float:
        """When a cup last began or stopped moving (the daemon's idle time counts from it)."""
        return self.motion_log.last_t

    def expected_places(self) -> list[Place]:
        return list(self.publication.expected)

    def expected_kind(self) -> str:
        """pickup | sow | capture | sweep | none: what kind of step comes next."""
        return next_kind(self.game.expected())

    def phase(self) -> str:
        """start | sowing | relay | capturing | sweeping | over | blocked (a flag waits to be
        put right)."""
        waits = any(f.active and f.kind not in (SENSOR_FAULT, BOARD_MISMATCH) for f in self.flags)
        return phase_of(self.game, waits)

    def guidance_state(self, places: list[Place]) -> GuidanceState:
        """What the lights should show now: the leader's next steps, its newest flag, and the
        cups at rest that do not match its counts."""
        return guidance_of(self.game, self.flags, places, self.mismatch)

    def changes(self, known: int) -> tuple[int, list[RecognisedStep]]:
        return self.publication.changes(known)

    def belief(self) -> dict[str, Any]:
        """Where every seed is: the leader's game, with its ledger."""
        rules = self.rules
        game = self.leader.game
        board = list(game.board)
        hands = [h.seeds for h in game.hands]
        for entry in self.leader.ledger:
            board[rules.index_of(self.place_of[entry.cell])] += entry.seeds
            if entry.player is not None and entry.kind != "seed_lost":
                hands[entry.player] -= entry.seeds
        return belief_json(game, board, hands)
