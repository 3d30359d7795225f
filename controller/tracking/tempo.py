"""A hand's tempo: how likely its next seed is so long after its last (the search's priors of
time, hypotheses.py).

A hand sows at its own pace: the gaps between its seeds' onsets spread about their median by
`TEMPO_SPREAD` (log-normal: 30 % jitter, and pauses); a lap's first seed comes a beat after the
lift of its pit, and a move's first seeds, before it has a gap of its own, go by the hand's
beat in its last move, spread wider (`MOVE_TEMPO_SPREAD`). The costs are negative log
likelihoods (natural log), as the search's: pure functions of times in seconds, and
`HandTempo`, which reads a hand's seeds from a hypothesis's steps, and prices a turn taken
before the other player's last seed could be seen to fall (`hasty_turn`).
"""

from __future__ import annotations

import itertools
import math

from controller.rules import Place, StepKind

from .explanation import Taken, hands_last
from .motions import Motion

TEMPO_SEEDS = 6  # a hand's tempo is the median gap of its last this many seeds ...
# ... once it has this many gaps in the move: one is some evidence, and a seed lost early in
# a lap is told from one in the wrong pit by it or not at all (docs/referee.md) ...
TEMPO_MIN_GAPS = 1
# ... but two while both hands sow (`off_beat`): one gap of a hand sowing a seed a reading is
# no beat to tell whose seed a cup took by (docs/referee.md)
OFF_BEAT_MIN_GAPS = 2
# A lap's first seed comes a beat after the hand lifted the pit, and the lift itself: fingers
# press and raise the seeds from the cup's onset (SIMULATION.md's grab: 0.25 s in all); a little
# under it, as a hand may move on while the last seeds leave (docs/referee.md)
LIFT_S = 0.2
TEMPO_SPREAD = 0.35  # how a hand's gaps spread about it (log): jitter 30 %, and pauses ...
TEMPO_MAX_COST = 6.0  # ... so that a pause costs half a mistake at most (`off_tempo`: 0.5 z²)
# A move's first seeds go by the hand's tempo in its last move, which is all there is while the
# move has no gap yet, spread this much (log): a person's pace changes from move to move (in
# SIMULATION.md the log of two moves' paces differs by 0.4 to 0.8, one standard deviation)
# (docs/referee.md)
MOVE_TEMPO_SPREAD = 0.6
# Steps looked back for the hand's last move, past the other hand's whole move: a congkak move
# of relays takes up to 232 steps with 7 pits and 546 with 9; beyond this the move's first
# seeds have no beat. The walk costs only while a move has no gap of its own (docs/referee.md)
TEMPO_WALK = 1024
# A pit's lift settles within this of its onset, and this many readings (a grab presses and
# lifts in 0.25 s): a motion begun sooner was a hand resting on the pit first (docs/referee.md)
LIFT_MAX_S = 0.4
LIFT_SETTLE_READINGS = 6
OFF_BEAT_MAX_COST = 1.0  # a seed off a hand's beat while both hands sow (`off_beat`)
# A person takes their turn once they have seen the other's last seed fall: not sooner than this
# after it (a quarter second is a quick reaction alone). Quicker, it is the other hand's seed
# that hopped on, not a pit lifted under it (`HandTempo.hasty_turn`; docs/referee.md)
TURN_MIN_S = 0.25
HASTY_TURN_COST = 10.0


def usual_gap(
    laps: list[list[float]], min_gaps: int = TEMPO_MIN_GAPS, lifts: tuple[float, ...] = ()
) -> float | None:
    """The hand's tempo: the median gap between the onsets of its last seeds, each lap's
    (newest first) apart, the gap of a pickup between laps left out, and `lifts`, each lap's
    beat from the lift of its pit to its first seed; None while it has fewer than `min_gaps`
    gaps, or seeds at one instant.

    >>> usual_gap([[3.0, 2.5, 2.0, 1.4]])
    0.5
    >>> usual_gap([[3.0, 2.5], [1.0, 0.4]])
    0.5
    >>> usual_gap([[3.0], [1.0, 0.4]])
    0.6
    >>> usual_gap([[3.0], [1.0]]) is None
    True
    >>> usual_gap([[3.0], [1.0, 0.4]], min_gaps=OFF_BEAT_MIN_GAPS) is None
    True
    >>> usual_gap([[3.0]], lifts=(0.8,))
    0.8
    """
    gaps = sorted([*(a - b for lap in laps for a, b in itertools.pairwise(lap)), *lifts])
    if len(gaps) < min_gaps or gaps[(len(gaps) - 1) // 2] <= 0:
        return None
    return gaps[(len(gaps) - 1) // 2]


def off_tempo(
    gap_s: float, usual_s: float, beats: int, sample_s: float, spread: float = TEMPO_SPREAD
) -> float:
    """-log likelihood that `beats` of the hand's seeds fell in `gap_s` since its last, at a
    tempo of `usual_s` a seed, with onsets known to a reading (`sample_s`). A seed lost off
    the board leaves a beat with no cup moving: the next seed comes two beats after the last,
    where a seed in the wrong pit comes after one. At 10 SPS a fast hand's beat is a reading
    or two, and the beats hardly tell the two apart (bench humans: experts' mistakes at 10 SPS
    flagged in time the more, games 50, 68, 162, 258, 450, 530, 532, 538, 546).

    >>> off_tempo(1.0, 0.5, beats=2, sample_s=0.0125)
    0.0
    >>> round(off_tempo(1.0, 0.5, beats=1, sample_s=0.0125), 2)
    1.95
    >>> round(off_tempo(0.3, 0.15, beats=1, sample_s=0.1), 2)
    0.42
    """
    z = math.log(gap_s / (beats * usual_s)) / math.hypot(spread, sample_s / usual_s)
    return 0.5 * min(z * z, TEMPO_MAX_COST)


def off_beat(gap_s: float, usual_s: float, sample_s: float) -> float:
    """While both hands sow: -log likelihood of a hand's next seed `gap_s` after its last, one
    beat by `off_tempo` (a gap under half a reading is half a reading: at 10 SPS an onset is
    known to a tenth of a second), at most OFF_BEAT_MAX_COST.

    >>> off_beat(0.3, 0.3, 0.0125)
    0.0
    >>> off_beat(0.1, 0.3, 0.1)
    1.0
    """
    on_beat = off_tempo(max(gap_s, sample_s / 2), usual_s, beats=1, sample_s=sample_s)
    return min(on_beat, OFF_BEAT_MAX_COST)


def _shared(before: Taken | None, index: int, player: int) -> bool:
    """Was the hand's pickup, read from motion `index`, read from the same motion as its step
    `before` it (a relay's last seed: the cup did not settle between the seed and the lift)?"""
    return before is not None and before.motion == index and before.step.player == player


def takes_turn(last: Taken | None, player: int) -> bool:
    """Does a pit lifted by `player` after step `last` begin their move (not a relay of it)?"""
    return last is None or last.step.player != player


class HandTempo:
    """The hands' tempo along a hypothesis's steps: each step's onset is its motion's. Where
    laps relay, a relay lifts the pit its last seed fell in and sows on at the same pace."""

    def __init__(self, motions: list[Motion], relays: bool, sample_s: float) -> None:
        self.motions = motions
        self.relays = relays
        self.sample_s = sample_s  # (an onset is known to a reading)

    def laps(
        self, last: Taken | None, player: int, min_gaps: int = TEMPO_MIN_GAPS
    ) -> tuple[list[float], float | None]:
        """The onsets of the hand's last seeds of this lap (newest first), and its tempo
        (`usual_gap`: None while too few) over this lap and those before it in the move.
        (Where laps are single, a move begun from the pit the hand's last move ended in is no
        relay.)"""
        laps: list[list[float]] = [[]]
        lifts: list[float] = []  # each lap's beat from its pit's lift to its first seed
        lifted: Place | None = None  # this lap's pickup: was the seed before it there?
        node = last
        while node is not None and sum(map(len, laps)) < TEMPO_SEEDS + len(laps):
            step, index = node.step, node.motion
            node = node.parent
            if step.player != player:
                continue
            if lifted is not None:
                if step.kind is not StepKind.SOW or step.at != lifted:
                    break  # the move's first lap
                laps.append([])
                lifted = None
            if step.kind is StepKind.SOW:
                laps[-1].append(self.motions[index].onset_t)
                continue
            if step.kind is StepKind.PICKUP and laps[-1]:
                # (`node` is now the step before the pickup: its seed, if a relay's)
                lifted_t = self._lifted_t(index, laps[-1][-1], _shared(node, index, player))
                beat = laps[-1][-1] - lifted_t - LIFT_S if lifted_t is not None else 0.0
                if beat > 0:
                    lifts.append(beat)
            if step.kind is not StepKind.PICKUP or not self.relays:
                break
            lifted = step.at
        return laps[0], usual_gap(laps, min_gaps, tuple(lifts))

    def _lifted_t(self, index: int, first_t: float, shared: bool) -> float | None:
        """When the pit the pickup at motion `index` lifted last began to move before the
        lap's first seed (`first_t`): a pit lifted in two handfuls is the second's (the
        pickup is read from the first). None if the lift had no motion of its own: read from
        the motion of the hand's step before it (`shared`: a relay's last seed, the cup not
        settled before the hand lifted it), whose onset is the seed's, a beat before the lift.
        (The other hand's seed in the same motion, while both sow, is left as it was: its
        onset is as near the lift as the pickup's own; taking it out lost bench openings' 7
        pits at 10 SPS, 0.25 s a seed, seed 528.)"""
        cell = self.motions[index].cell
        lifted_t = None if shared else self._lift_began(index)
        for k in range(index + 1, len(self.motions)):
            motion = self.motions[k]
            if motion.onset_t >= first_t:
                break
            lifted_t = motion.onset_t if motion.cell == cell else lifted_t
        return lifted_t

    def _lift_began(self, index: int) -> float:
        """Motion `index`'s onset, or if it settled long after (a hand resting on the pit
        first), LIFT_MAX_S and LIFT_SETTLE_READINGS before it settled."""
        motion = self.motions[index]
        settling_s = LIFT_MAX_S + LIFT_SETTLE_READINGS * self.sample_s
        if not math.isfinite(motion.settled_t):
            return motion.onset_t
        return max(motion.onset_t, motion.settled_t - settling_s)

    def hasty_turn(self, last: Taken | None, player: int, index: int) -> float:
        """A pit lifted by `player` (read from motion `index`) less than TURN_MIN_S after the
        other player's last step: their turn taken before they could see the other's end.
        (Lifted by when its motion settled: a motion may begin with a hand resting there long
        before, bench humans game 211.)"""
        if last is None or not takes_turn(last, player):
            return 0.0
        lifted_by = self.motions[index].settled_t - self.motions[last.motion].onset_t
        return HASTY_TURN_COST if lifted_by < TURN_MIN_S else 0.0

    def off_tempo(self, last: Taken | None, player: int, onset_t: float, beats: int) -> float:
        """-log likelihood that `beats` of the hand's seeds fell by `onset_t` since its last
        seed, or since it lifted the pit (`lap_begun`) if this lap has none yet, by its tempo
        in this move, or in its last one while this has no gap (`off_tempo`)."""
        times, usual = self.laps(last, player)
        since = times[0] if times else self.lap_begun(last, player, onset_t)
        if since is None or onset_t <= since:
            return 0.0
        spread = TEMPO_SPREAD
        if usual is None:
            usual, spread = self.last_move_beat(last, player), MOVE_TEMPO_SPREAD
        if usual is None:
            return 0.0
        return off_tempo(onset_t - since, usual, beats, self.sample_s, spread)

    def lap_begun(self, last: Taken | None, player: int, first_t: float) -> float | None:
        """When the lap whose first seed is due came to be sown: a beat before its first seed
        (at `first_t` or after it), LIFT_S after the hand lifted its pit. None if the hand's
        last step is no pickup, or the lift had no motion of its own (`_lifted_t`)."""
        pickup = hands_last(last, player)
        if pickup is None or pickup.step.kind is not StepKind.PICKUP:
            return None
        shared = _shared(pickup.parent, pickup.motion, player)
        lifted_t = self._lifted_t(pickup.motion, first_t, shared)
        return None if lifted_t is None else lifted_t + LIFT_S

    def last_move_beat(self, last: Taken | None, player: int) -> float | None:
        """The hand's tempo in its move before this one (`laps` from its last seed there):
        back to the pickup that began this move (a relay's, after the hand's own seed in that
        pit, did not), then past that move's captures and the other hand's steps to its last
        seed. (At most TEMPO_WALK steps in all: a hand with no seeds passes, and the other
        moves on.)"""
        node, walked = last, 0
        lifted: Place | None = None  # the hand's pickup seen last, its step before it not yet
        while node is not None and walked < TEMPO_WALK:
            step = node.step
            if step.player == player:
                relay = self.relays and step.kind is StepKind.SOW and step.at == lifted
                if lifted is not None and not relay:
                    break  # (the pickup seen last began this move)
                lifted = step.at if step.kind is StepKind.PICKUP else None
            node, walked = node.parent, walked + 1
        while node is not None and walked < TEMPO_WALK:
            if node.step.player == player and node.step.kind is StepKind.SOW:
                return self.laps(node, player)[1]
            node, walked = node.parent, walked + 1
        return None

    def off_beat(self, last: Taken | None, player: int, onset_t: float) -> float:
        """While both hands sow: the hand's next seed begun at `onset_t`, by its tempo
        (`off_beat`). Both hands' seeds meet in the same cups: which hand's seed a cup took
        ties on the levels, and a hand sows at its own pace (bench openings, 10 SPS 0.3 s,
        seed 234: a seed read as the hand's a tenth of a second after its last, at 0.3 s a
        seed)."""
        times, usual = self.laps(last, player, OFF_BEAT_MIN_GAPS)
        if usual is None or not times:
            return 0.0
        return off_beat(onset_t - times[0], usual, self.sample_s)
