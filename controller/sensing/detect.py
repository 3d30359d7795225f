"""Signal processing: raw readings of each cell to onsets and settled weight changes.

Knows grams and time, never rules. Per cell it tells apart:

- a **glitch sample** (one wild read: HX711 bit errors, a power-down read): dropped;
- an **impact spike** (a seed landing rings the cup for tens of ms): the onset is reported at
  once, the change only once the level has settled;
- a **finger resting on a cup** or a **knock on the table**: a change that goes away again
  settles back to the old level, so no settled change is reported (a knock also moves many cells
  at once, which marks it as common-mode);
- **drift and creep**: slow changes below the onset threshold are followed by the rest level.

At 10 SPS a reading needs 4 samples (0.4 s) to follow a change, so a change that ramps like
one step settles on its 4th sample, and a fall (a lift) once the loads recovered from the
readings agree; the readings after that re-take the level. Anything else settles on agreeing
readings, as at 80 SPS.

>>> d = CellDetector(rate_sps=80, seed_g=5.0, noise_g=0.02)
>>> events = [d.update(0.0125 * k, 100.0) for k in range(20)]     # at rest at 100 g
>>> [e for e in events if e]
[]
>>> trace = [100 + 5 * f for f in (0.25, 1.9, 1.4, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)]
>>> out = [d.update(0.0125 * (20 + k), g) for k, g in enumerate(trace)]
>>> [type(e).__name__ for e in out if e]
['Onset', 'Settled']
>>> round(next(e for e in out if isinstance(e, Settled)).change_g, 2)
5.0
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

SETTLE_STEPS = 4  # an HX711 reading follows a step completely on the 4th sample after it
RAMP_MAX_SEEDS = 3.5  # changes up to this many seeds may settle on their ramp (10 SPS)
# A cell whose samples jump back (see `CellDetector.jumps`) this often is too noisy: random
# noise turns back in two jumps of three, a hand's load once in a ramp of several.
NOISY_SHARE = 0.4
# Readings after an early settle within which three must agree to re-take the level.
REFINE_MAX = 2 * SETTLE_STEPS
# Readings from an onset for which the loads recovered from them are trusted to tell a change
# under way (`CellDetector._loads_moved`): their errors add up, +-1.3 g after five readings
# with 0.05 g of noise, and a settle is held back no longer than this.
LOADS_TRUSTED = 3 * SETTLE_STEPS


def slow_rate(rate_sps: float) -> bool:
    """The HX711's 10 SPS (its other rate is 80): a reading takes 0.4 s to follow a change."""
    return rate_sps < 40


@dataclass(frozen=True, slots=True)
class Onset:
    """The reading of `cell` left its rest level at `t` (first sample beyond the threshold)."""

    cell: int
    t: float
    rise_g: float


@dataclass(frozen=True, slots=True)
class Settled:
    """`cell` came to rest at `level_g` (or, at 10 SPS, is bound to read it next), `change_g`
    from the previous rest level.

    `change_g` may be about zero: a press or knock that went away again (`transient`).
    """

    cell: int
    t: float
    onset_t: float
    level_g: float
    change_g: float
    peak_g: float  # the largest excursion from the old rest level while active
    trough_g: float = 0.0  # the lowest (0 or less): seeds lifted and put back dip below it
    # The highest (0 or more): a seed let go into a pit just before it is lifted shows here,
    # not in `peak_g`, which the lift's larger excursion takes.
    crest_g: float = 0.0


Event = Onset | Settled


class CellDetector:
    """One cell's grams in, `Onset` and `Settled` events out.

    Thresholds scale with the seed mass and the cell's noise: an onset needs a move of
    `onset_seeds` seeds (or 6 sigma of noise, whichever is larger); settling needs the last
    `settle_samples` readings to agree within `settle_seeds` seeds (or 5 sigma), or at 10 SPS
    the shortcuts of the module docstring.
    """

    def __init__(
        self,
        cell: int = 0,
        *,
        rate_sps: float = 80.0,
        seed_g: float = 5.4,
        noise_g: float = 0.02,
        onset_seeds: float = 0.3,
        settle_seeds: float | None = None,
        glitch_g: float = 400.0,
        track_rate: float = 0.02,
    ) -> None:
        self.cell = cell
        self.rate_sps = rate_sps
        self.seed_g = seed_g
        self.noise_g = noise_g
        self.onset_g = max(onset_seeds * seed_g, 6 * noise_g)
        # At 80 SPS a landing still rings a little when the level has settled; at 10 SPS the
        # converter has averaged the ring away but the 4-sample ramp must be waited out.
        if settle_seeds is None:
            settle_seeds = 0.1 if slow_rate(rate_sps) else 0.25
        self.settle_g = max(settle_seeds * seed_g, 5 * noise_g)
        self.track_g = max(4 * noise_g, 0.05 * seed_g)  # rest follows readings this close
        self.glitch_g = glitch_g
        self.track_rate = track_rate
        # The HX711 needs 4 samples to follow a step; wait that long after the onset, and for a
        # window long enough to span a landing's ring (about 60 ms) at 80 SPS.
        # At 10 SPS a landing ramps up over 4 samples of 100 ms: agreeing samples are only
        # looked for after it (a level averaged over the ramp's tail is a part of a gram off).
        # And a touch shorter than a sample (fingers brushing a cup, 30 to 80 ms) is in the
        # readings as a plateau, up in a sample or two, there for the next four, gone on the
        # sixth: its plateau agreed on the fifth, and a seed sown a moment after it was split
        # in two motions, a third of a seed's level for the first (bench humans games 108 and
        # 403: an extra seed flagged).
        self.settle_samples = 3 if slow_rate(rate_sps) else 4
        self.min_active = 6 if slow_rate(rate_sps) else 4
        # At 10 SPS, waiting for three agreeing samples after the ramp takes 0.5-0.6 s. But the
        # converter has followed a single step completely on its 4th sample (50 % on the 2nd):
        # a rise or fall that ramps like one step is settled there, 0.3-0.4 s after it
        # happened. Anything else (a press then a lift, two seeds in a row) waits as before.
        self.slow = slow_rate(rate_sps)
        self.move_g = max(4 * noise_g, 0.1 * seed_g)  # a first ramp sample moves this much
        self.ramp: list[float] | None = None
        # After a settle on the ramp the cup may still ring a little: the next readings re-take
        # the rest level once three agree, and the accounts follow the difference
        # (`tracked_g`).
        self.refine: list[float] | None = None
        self.refine_g = 0.0  # how far the early level may be off
        self.refine_seen = 0  # readings at rest since the early settle
        # At 10 SPS, the loads the converter averaged, recovered from its readings (each is the
        # mean of the last 4 loads): three equal loads after a fall mean the reading will be
        # that on the next sample. A lift with a press before it settles that way 0.2-0.3 s
        # sooner. None while not known (at rest, or after a missing or dropped sample).
        self.loads: list[float] | None = None
        # Recovering a load amplifies the noise (x4 per reading, and it adds up over the
        # change: +-1.3 g after five readings with 0.05 g of noise): loads this close are
        # equal. A seed leaving, or a press, moves a load twice as far. (0.6 seed let the
        # loads of a hand letting go pass for equal, and the level was half a seed off.)
        self.loads_g = max(0.5 * seed_g, 30 * noise_g)
        self.loads4_g = max(0.6 * seed_g, 36 * noise_g)
        # Two loads this far from where the readings agree: a change is under way in them
        # (half a seed, where a brush leaves them as a seed comes: `_loads_moved`), beyond the
        # errors of a dozen recovered loads.
        self.loads_moved_g = max(0.35 * seed_g, 30 * noise_g)
        self.loads_from_rest = True  # the loads were recovered from a cup at rest
        self.rest: float | None = None
        self.last: float | None = None
        # The lowest reading since `mark` while the cell moved (readings at rest stay within
        # `track_g` of the rest level, and are not looked at): how far a cup has risen since a
        # moment, a fingertip's brush or a palm lifted off before it.
        self.low_g = math.inf
        self.active = False
        self.onset_t = 0.0
        self.peak = 0.0
        self.trough = 0.0
        self.crest = 0.0
        self.since_onset = 0
        self.window: deque[float] = deque(maxlen=self.settle_samples)
        self._held: tuple[float, float] | None = None  # a suspect sample waiting for the next
        self.glitches = 0
        self.tracked_g = 0.0  # how far the rest level has followed drift (for accounts)
        # Which of the last samples (a second, or 3 s at 10 SPS) jumped back by a third
        # of a seed, against the jump before it: a failing cell or a loose wire reads up and
        # down (two in three of its jumps turn back), a landing or a lift turns back once, and
        # so do hands' loads, however long they ramp (a forearm and a palm on one cup for 3 s
        # at 10 SPS jumped in most samples, one way, and were called noise).
        # Kept as the numbers (`compared`) of those that jumped back among the last
        # `jumps_span`: most samples jump not at all, and cost a comparison.
        self.jumps_span = max(30, int(rate_sps))
        self.jumps: deque[int] = deque()
        self.compared = 0  # samples compared with the one before (`start_at` gives a first)
        self.noisy_jumps = NOISY_SHARE * self.jumps_span  # more than this: noisy
        self.rising = False  # the direction of the last jump
        # Many recent samples jumped back: the cell is too noisy to weigh seeds.
        self.noisy = False
        self.jump_g = seed_g / 3

    @property
    def level(self) -> float:
        """The latest accepted reading (grams)."""
        return 0.0 if self.last is None else self.last

    @property
    def falling(self) -> bool:
        """The last two readings went down (or stayed): a cup being emptied, not shaking."""
        window = self.window
        return (
            len(window) >= 3
            and window[-1] <= window[-2] + 4 * self.noise_g <= window[-3] + 8 * self.noise_g
        )

    @property
    def rise(self) -> float:
        """How far the latest reading is from the rest level (grams)."""
        if self.rest is None or self.last is None:
            return 0.0
        return self.last - self.rest

    def update(self, t: float, grams: float | None) -> Event | None:
        """Feed one reading (None: missing). Returns at most one event."""
        if grams is None:
            self.loads = None  # a period lost: the loads can no longer be recovered
            return None
        if self.last is None:
            self.last = self.rest = grams
            self.window.append(grams)
            return None
        last = self.last
        self.compared = n = self.compared + 1
        jumps = self.jumps
        if jumps and jumps[0] <= n - self.jumps_span:
            jumps.popleft()
        jump_g = self.jump_g
        if grams - last > jump_g or last - grams > jump_g:
            rising = grams > last
            if rising != self.rising:
                jumps.append(n)
            self.rising = rising
        self.noisy = n > self.jumps_span and len(jumps) > self.noisy_jumps
        held = self._held
        rest = self.rest
        if held is None and not self.active and self.refine is None and rest is not None:
            drift = grams - rest
            if -self.track_g <= drift <= self.track_g:
                # Most readings: a cell at rest following drift (`_accept`'s last case, taken
                # here at half the cost: it is 16 cells times 80 a second).
                self.last = grams
                self.window.append(grams)
                step = self.track_rate * drift
                self.rest = rest + step
                self.tracked_g += step
                return None
        if held is not None:
            self._held = None
            if abs(grams - self.last) < self.glitch_g / 2:
                self.glitches += 1  # the suspect sample was alone: a glitch, dropped
                self.loads = None
            else:
                first = self._accept(held[0], held[1])  # a real jump: take both in turn
                return self._accept(t, grams) or first
        elif abs(grams - self.last) > self.glitch_g:
            self._held = (t, grams)
            return None
        return self._accept(t, grams)

    def _accept(self, t: float, grams: float) -> Event | None:
        self.last = grams
        self.window.append(grams)
        rest = self.rest
        assert rest is not None
        if not self.active:
            if self.refine is not None:
                self.refine_seen += 1
                if self.refine_seen > REFINE_MAX:
                    self.refine = None  # the readings never agreed: the level stands
            if self.refine is not None and abs(grams - rest) <= max(self.refine_g, self.onset_g):
                # Re-taking a level settled early: within its uncertainty this is no change;
                # beyond it, the change went on after the early level (`_refine`).
                return self._refine(t, grams)
            if abs(grams - rest) > self.onset_g:
                self.active = True
                self.onset_t = t
                self.peak = grams - rest
                self.trough = min(0.0, grams - rest)
                self.crest = max(0.0, grams - rest)
                self.since_onset = 1
                # (Begun as a level settled early was re-taken, the cup still moving: the
                # loads before it were not the rest level, and those recovered are off.)
                self.loads_from_rest = self.refine is None
                self.refine = None
                if self.slow:
                    self.ramp = self._ramp_start(grams - rest)
                    self.loads = [rest] * (SETTLE_STEPS - 1)
                    for value in self.ramp:
                        self._recover_load(value)
                return Onset(self.cell, t, grams - rest)
            # At rest: follow drift and creep slowly, but not the first samples of a change.
            if abs(grams - rest) <= self.track_g:
                step = self.track_rate * (grams - rest)
                self.rest = rest + step
                self.tracked_g += step
            return None
        self.since_onset += 1
        if grams < self.low_g:
            self.low_g = grams
        if abs(grams - rest) > abs(self.peak):
            self.peak = grams - rest
        self.trough = min(self.trough, grams - rest)
        self.crest = max(self.crest, grams - rest)
        loads = self.loads
        if loads is not None:
            self._recover_load(grams)
            # Three loads that agree within loads_g, or four within a little more (their
            # noise grows: one more agreeing load is the evidence for the wider bound).
            for count, within in ((SETTLE_STEPS - 1, self.loads_g), (SETTLE_STEPS, self.loads4_g)):
                last = loads[-count:]
                level = sum(last) / count
                if (
                    len(loads) >= SETTLE_STEPS - 1 + count
                    and max(last) - min(last) <= within
                    and level - rest < -self.onset_g
                ):
                    # Recovered loads are noisy: the readings re-take the level.
                    return self._settle(t, level, rest, early=True, within_g=within)
        ramp = self.ramp
        if ramp is not None:
            ramp.append(grams)
            if len(ramp) == SETTLE_STEPS:
                self.ramp = None
                if self._one_step(ramp, rest):
                    # The landing's ring adds to the first sample of the ramp (and so to the
                    # 4th), not to the last step of it: take that excess off the level.
                    level = grams - ((ramp[0] - rest) - (ramp[3] - ramp[2]))
                    return self._settle(t, level, rest, early=True, within_g=self.settle_g)
        window = self.window
        if (
            self.since_onset >= self.min_active
            and len(window) == window.maxlen
            and max(window) - min(window) <= self.settle_g
            and not self._loads_moved(sum(window) / len(window))
        ):
            return self._settle(t, sum(window) / len(window), rest, early=False, within_g=0.0)
        return None

    def _loads_moved(self, level: float) -> bool:
        """At 10 SPS: do the last two loads recovered from the readings differ from `level`
        (by `loads_moved_g`)? Readings that agree then are two changes that cancel in the mean: a
        brush's load leaving it as a seed's comes in (bench humans game 339: a brush of 3 g
        and a seed of 6.3 g 0.36 s later, both in a cup, read flat for three readings at half
        the seed, and the seed was split over two motions). Looked at for LOADS_TRUSTED
        readings from the onset (the errors of recovered loads add up), and only where the
        cup was at rest before the onset (`loads_from_rest`; found in review: a palm's slow
        ramp re-taken after an early settle held its seed's settle back the whole twelve)."""
        loads = self.loads
        if loads is None or not self.loads_from_rest or self.since_onset > LOADS_TRUSTED:
            return False
        return all(abs(load - level) > self.loads_moved_g for load in loads[-2:])

    def _settle(self, t: float, level: float, rest: float, early: bool, within_g: float) -> Settled:
        """Come to rest at `level`. Settled `early` (before the readings agree), the next
        readings re-take the level (see `_refine`)."""
        self.active = False
        self.rest = level
        self.ramp = self.loads = None
        self.refine = [] if early else None
        self.refine_seen = 0
        self.refine_g = within_g
        return Settled(
            self.cell, t, self.onset_t, level, level - rest, self.peak, self.trough, self.crest
        )

    def _recover_load(self, reading: float) -> None:
        """The load of the latest period: 4 readings' worth less the 3 loads before it."""
        loads = self.loads
        assert loads is not None
        loads.append(SETTLE_STEPS * reading - sum(loads[-(SETTLE_STEPS - 1) :]))

    def _ramp_start(self, rise: float) -> list[float]:
        """The ramp so far at an onset: this sample, and those before it that had moved the
        same way too (the quarter steps of a light seed stay under the onset threshold)."""
        rest = self.rest
        assert rest is not None
        ramp = [self.window[-1]]
        for value in reversed(list(self.window)[:-1]):
            moved = value - rest
            if abs(moved) <= self.move_g or (moved > 0) != (rise > 0):
                break
            ramp.insert(0, value)
        return ramp

    def _one_step(self, ramp: list[float], rest: float) -> bool:
        """Do 4 samples look like the converter following one step (HARDWARE.md: 50 % after
        2 samples, 100 % after 4; SIMULATION.md: the mean of the last 4 instants)? Monotone,
        half-way on the second sample, a quarter step on each of the last two. A converter
        that follows steps differently never settles here, only later, as at 80 SPS."""
        total = ramp[-1] - rest
        if not self.onset_g < abs(total) <= RAMP_MAX_SEEDS * self.seed_g:
            return False  # a handful rings for longer, and its level matters to the gram
        slack = 0.08 * abs(total) + 4 * self.noise_g
        if abs(ramp[1] - rest - total / 2) > slack:
            return False
        # The ring is in the first quarter step (and may spill into the second); the last
        # two are a quarter of the step each, or something else moved as well.
        if any(abs(ramp[k] - ramp[k - 1] - total / 4) > slack for k in (2, 3)):
            return False
        if abs((ramp[0] - rest) - (ramp[3] - ramp[2])) > 0.3 * abs(total):
            return False  # more than a ring on the first quarter step
        sign = 1.0 if total > 0 else -1.0
        previous = rest
        for value in ramp:
            if sign * (value - previous) < -4 * self.noise_g:
                return False
            previous = value
        return True

    def _refine(self, t: float, grams: float) -> Settled | None:
        """Re-take a level settled early once three readings agree. Within the early level's
        uncertainty the difference is no change (the accounts follow it: `tracked_g`). Beyond
        it the change went on after the early level, as a palm settling over 0.3 s does (a
        step's ramp is over in 4 samples, a slower load is not): what it added settles as a
        change of its own, so that the referee weighs all of it."""
        refine = self.refine
        assert refine is not None and self.rest is not None
        refine.append(grams)
        last = refine[-(SETTLE_STEPS - 1) :]
        if len(refine) < SETTLE_STEPS - 1 or max(last) - min(last) > self.settle_g:
            return None  # (the readings still follow the last loads: a reading spans four)
        self.refine = None
        step = sum(last) / len(last) - self.rest
        self.rest += step
        if abs(step) <= self.refine_g:
            self.tracked_g += step
            return None
        return Settled(self.cell, t, self.onset_t, self.rest, step, step, crest_g=max(step, 0.0))

    def mark(self) -> None:
        """Start looking for the lowest reading again from now (see `low_g`)."""
        self.low_g = self.level

    @property
    def risen_g(self) -> float:
        """How far the latest reading is above the lowest since `mark` (0 before a mark)."""
        return self.level - self.low_g if self.low_g != math.inf else 0.0

    def start_at(self, grams: float) -> None:
        """Start from a level read at rest (a median), so that a wild first sample is a glitch
        like any other instead of the level everything after is measured from."""
        if self.last is None:
            self.last = self.rest = grams
            self.window.append(grams)

    def set_rest(self, grams: float) -> None:
        """Re-zero the rest level (zero tracking on a pit known to be empty and at rest)."""
        if not self.active and self.rest is not None:
            delta = grams - self.rest
            self.rest = grams
            if self.last is not None:
                self.last += delta
            # Readings kept from before are in the old zero's terms: move them along. A level
            # settled early is still being re-taken: that goes on (a lift settled on its
            # recovered loads can be a third of a seed off; cut short, the rest of the way
            # would be a change of its own).
            kept = [value + delta for value in self.window]
            self.window.clear()
            self.window.extend(kept)
            if self.refine is not None:
                self.refine = [value + delta for value in self.refine]


@dataclass(frozen=True)
class BoardEvents:
    """What one frame brought: per-cell events, and whether it looks like a knock."""

    t: float
    events: list[Event]
    common_mode: bool


class BoardDetector:
    """All cells of a board: raw frames to grams to events, with common-mode (knock) marking.

    `calibration` gives per cell (zero offset in raw counts, raw counts per gram).
    """

    def __init__(
        self,
        calibration: list[tuple[float, float]],
        *,
        rate_sps: float = 80.0,
        seed_g: float = 5.4,
        noise_g: float = 0.02,
        knock_cells: int | None = None,
    ) -> None:
        self.calibration = list(calibration)
        self.cells = [
            CellDetector(i, rate_sps=rate_sps, seed_g=seed_g, noise_g=noise_g)
            for i in range(len(calibration))
        ]
        # A knock moves most cells at once; hands move one or two (and a fast hand at 10 SPS
        # can start three in one 100 ms frame).
        self.knock_cells = knock_cells or max(4, len(calibration) // 2)
        self.slow = slow_rate(rate_sps)
        self.common_until = -1.0
        self.frames = 0
        self.noisy = False  # a cell is too noisy to weigh seeds (as of the last frame)
        self.active = False  # a cell is moving (cells start and stop only in `update`)

    def grams(self, cell: int, raw: int) -> float:
        offset, scale = self.calibration[cell]
        return (raw - offset) / scale

    def update(self, t: float, raw: tuple[int | None, ...]) -> BoardEvents:
        self.frames += 1
        events: list[Event] = []
        onsets = 0
        cal = self.calibration
        noisy = active = False
        for cell, value in zip(self.cells, raw, strict=False):
            if value is None:
                cell.update(t, None)  # a lost period: what spans it cannot be recovered
                noisy = noisy or cell.noisy
                active = active or cell.active
                continue
            offset, scale = cal[cell.cell]
            event = cell.update(t, (value - offset) / scale)
            noisy = noisy or cell.noisy
            active = active or cell.active
            if event is not None:
                events.append(event)
                if isinstance(event, Onset):
                    onsets += 1
        if onsets >= self.knock_cells:
            # Hands move one or two places at a time; many cells starting together is the
            # table being knocked. Remember it for a moment so late settles are judged too.
            self.common_until = t + 0.5
        self.noisy = noisy
        self.active = active
        return BoardEvents(t, events, t <= self.common_until)

    def start_at(self, levels_g: list[float]) -> None:
        """Start every cell from its level at rest (see `CellDetector.start_at`)."""
        for cell, level in zip(self.cells, levels_g, strict=False):
            cell.start_at(level)

    def rezero(self, cell: int) -> None:
        """Take the cell's present rest level as its zero (it is known to be empty)."""
        detector = self.cells[cell]
        if detector.active or detector.rest is None:
            return
        offset, scale = self.calibration[cell]
        self.calibration[cell] = (offset + detector.rest * scale, scale)
        detector.set_rest(0.0)

    def set_onset(self, seeds: float) -> None:
        """Start a movement at `seeds` seeds from now on (or 6 sigma of noise)."""
        for cell in self.cells:
            cell.onset_g = max(seeds * cell.seed_g, 6 * cell.noise_g)

    def mark(self) -> None:
        """Mark every cell (see `CellDetector.low_g`)."""
        for cell in self.cells:
            cell.mark()

    def levels(self) -> list[float]:
        return [
            c.level if c.rest is None else (c.rest if not c.active else c.level) for c in self.cells
        ]

    def at_rest(self) -> bool:
        return not self.active
