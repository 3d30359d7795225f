"""The simulated board: seeds, hands and load cells, sampled like HX711s (SIMULATION.md).

The controller must see nothing but raw frames (`SimSource`); the rest of `SimWorld` (truth,
landings, the action log, cup masses, the true calibration) is for reports and tests.

Physics, and why each number (HARDWARE.md gives the hardware facts):

- Seeds: each has its own mass from N(seed_mean_g, seed_cv * mean), clipped at 0.2 * mean,
  drawn once, so a pit's weight is the sum of the seeds actually in it.
- Cells: zero offset uniform in +-200000 counts; scale 400-460 counts/g for a 1 kg pit cell
  (a 1 kg bar cell at gain 128 gives roughly 420 counts/g on an HX711 module), scaled by
  1000 g / capacity, so a 5 kg store cell gets 80-92 counts/g. Pit cups 26-34 g, store cups
  70-90 g; a cup sits on its cell, so the empty reading is offset + cup * scale. The output is
  24-bit signed and saturates at RAW_MIN / RAW_MAX.
- Noise: Gaussian, `noise_g` rms at the output. Drift: each cell drifts linearly at a rate
  uniform in +-drift_g_per_min, redrawn every 30-90 s (a slow wander, not a fixed slope).
  Creep: 0.03 % of the static load, approached with a 20 s time constant after every change.
- Sampling: every cell at once, one Frame per conversion. The oscillator is off by up to
  +-3 % (drawn once), timestamps jitter by 0.2 ms rms. A sample is the mean of the
  instantaneous load at the last 4 sample instants (HX711 settling: 50 % after 2 samples,
  100 % after 4). Transients (rings, presses) are averaged over each conversion period rather
  than point-sampled, as the sigma-delta converter integrates them.
- A landing seed rings: its weight steps in at once, plus a damped 35-45 Hz oscillation (per
  cell) whose peak puts the total at 3-6x the seed's weight, decaying to 5 % over ring_ms.
- A hand grabbing presses the cup with 20-60 g for 0.15 s (20 ms ramps), then the seeds leave
  one by one over 0.1 s. A `move` carries them 0.3 s and drops them all together.
- Human hands (SIMULATION.md, "Human hands"). A finger or palm resting on a cup (`rest`)
  lowers over `ramp_s` (0.15 s by default: slower than a press's 20 ms, a palm settles), stays
  `dur` and lifts off as slowly. A forearm leaning on the board's edge (`lean`) shares its `g`
  over its cells unevenly (each share uniform 0.5-1.5 before normalising: the arm is nearer
  some cups) with 0.3 s ramps. Fingers brushing a cup in passing (`brush`) are a triangle of
  `dur` (40 ms by default). A bouncing seed (`bounce`) strikes `at` (an impact of 2-4x its
  weight for 20 ms: it does not stay) and lands in `to` 60-150 ms later, ringing there as
  any landing.
- Glitches: at glitch_rate per sample per cell, a wild value: half random 24-bit words, half the
  true word with one of its 4 most significant bits flipped.
"""

from __future__ import annotations

import functools
import heapq
import math
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from controller.board import Board, BoardMapping
from controller.rules import Place, Position, Rules
from controller.sensing.frames import RAW_MAX, RAW_MIN, Frame, SourceStatus, to_signed24

from .scenario import Action, Scenario, ScenarioError

# -- physical constants -----------------------------------------------------------------------
ZERO_OFFSET_COUNTS = 200_000.0  # |zero offset| at most, raw counts
COUNTS_PER_G_1KG = (400.0, 460.0)  # a 1 kg cell at gain 128; scaled by 1000 g / capacity
PIT_CUP_G = (26.0, 34.0)
STORE_CUP_G = (70.0, 90.0)
CREEP_FRACTION = 0.0003  # of the static load, reached exponentially
CREEP_TAU_S = 20.0
DRIFT_PERIOD_S = (30.0, 90.0)  # a cell's drift rate is redrawn this often
SLOW_UPDATE_S = 0.1  # creep and drift are integrated at this step
OSCILLATOR_TOLERANCE = 0.03
TIMESTAMP_JITTER_S = 0.0002
SETTLE_SAMPLES = 4
IMPACT_PEAK = (3.0, 6.0)  # peak force / weight of a landing seed
RING_HZ = (35.0, 45.0)
GRAB_PRESS_G = (20.0, 60.0)
GRAB_PRESS_S = 0.15  # a grab presses this long before the seeds leave
GRAB_LIFT_S = 0.10  # ... and the seeds leave over this time
GRAB_S = GRAB_PRESS_S + GRAB_LIFT_S
MOVE_CARRY_S = 0.30  # from the end of the lift to the seeds landing at the destination
MOVE_S = GRAB_S + MOVE_CARRY_S
RAMP_S = 0.02  # rise and fall of a press or bump
LEAN_RAMP_S = 0.3  # a forearm settles on the board's edge slowly
LEAN_SHARE = (0.5, 1.5)  # a cell's share of a lean before normalising
BOUNCE_HOP_S = (0.06, 0.15)  # from striking one cup to landing in the next
BOUNCE_STRIKE = (2.0, 4.0)  # the strike's force / the seed's weight ...
BOUNCE_STRIKE_S = 0.02  # ... over this long
BUMP_RING = 0.5  # ring amplitude of a bump, as a fraction of its g
TARE_ERROR_G = 0.1  # rms error of a user's tare (clipped at 3 sigma)
SETTLE_TAIL_S = 2.0  # the simulation runs on this long after the last action
NOISE_TABLE_BITS = 16

_OFFSET = 1 << 23  # for rounding with int(): int(x + _OFFSET + 0.5) - _OFFSET == round(x)


@dataclass(frozen=True)
class CellCalibration:
    """Raw counts = offset + counts_per_g * grams (grams of seeds: the tare includes the cup)."""

    offset: float
    counts_per_g: float

    def grams(self, raw: float) -> float:
        return (raw - self.offset) / self.counts_per_g


class Landing(NamedTuple):
    """A seed fell into `place` at `t` (true time), from `hand`'s drop, move or add."""

    t: float
    place: Place
    hand: int


class LoggedAction(NamedTuple):
    """An action as performed; `note` says what differed from the script (e.g. an empty hand)."""

    t: float
    action: Action
    note: str


class ButtonPress(NamedTuple):
    t: float
    name: str


def action_end(action: Action) -> float:
    """When an action's physical effect is over (its last seed left or landed)."""
    if action.kind in ("grab", "take"):
        return action.t + GRAB_S
    if action.kind == "move":
        return action.t + MOVE_S
    if action.kind in ("press", "bump", "lean", "brush"):
        return action.t + action.dur
    if action.kind == "rest":
        return action.t + action.dur + 2 * action.ramp
    if action.kind == "bounce":
        return action.t + BOUNCE_HOP_S[1]
    return action.t


# -- transients ---------------------------------------------------------------------------------


class _Ring:
    """A damped oscillation exp(-s/tau) * (a_sin sin(w s) + a_cos cos(w s)) from onset t0."""

    __slots__ = ("a_cos", "a_sin", "cell", "end", "k", "t0", "tau", "w")

    def __init__(
        self, cell: int, t0: float, a_sin: float, a_cos: float, hz: float, tau: float
    ) -> None:
        self.cell = cell
        self.t0 = t0
        self.a_sin = a_sin
        self.a_cos = a_cos
        self.w = 2 * math.pi * hz
        self.tau = tau
        self.k = 1.0 / (1.0 / (tau * tau) + self.w * self.w)
        self.end = t0 + 8 * tau  # exp(-8) = 3e-4 of the amplitude

    def value(self, s: float) -> float:
        """The force at s seconds after onset (for tests and peak checks)."""
        if s < 0:
            return 0.0
        e = math.exp(-s / self.tau)
        return e * (self.a_sin * math.sin(self.w * s) + self.a_cos * math.cos(self.w * s))

    def _integral(self, s: float) -> float:
        """The integral of value() from 0 to s (closed form)."""
        w, inv_tau = self.w, 1.0 / self.tau
        e = math.exp(-s * inv_tau)
        sin, cos = math.sin(w * s), math.cos(w * s)
        of_cos = e * (w * sin - cos * inv_tau) + inv_tau
        of_sin = w - e * (sin * inv_tau + w * cos)
        return (self.a_cos * of_cos + self.a_sin * of_sin) * self.k

    def mean(self, a: float, b: float) -> float:
        """The mean over the conversion period (a, b]: a sigma-delta converter integrates."""
        s2 = b - self.t0
        if s2 <= 0:
            return 0.0
        s1 = max(a - self.t0, 0.0)
        return (self._integral(s2) - self._integral(s1)) / (b - a)


def impact_ring(cell: int, t0: float, weight: float, peak: float, hz: float, tau: float) -> _Ring:
    """The ring of `weight` grams landing at t0, so that the force peaks at `peak` x weight.

    The cell's force is continuous: the weight steps in together with a -weight cosine term
    (the spring has not compressed yet), and the impact's momentum drives a sine term. With
    amplitude R = sqrt(1 + B**2) of the combined ring, the force peaks near
    weight * (1 + R * exp(-s_peak / tau)); B is solved for the wanted peak.
    """
    w = 2 * math.pi * hz
    r = peak - 1.0
    for _ in range(4):  # fixed point: the peak's time depends on the phase, which depends on B
        b = math.sqrt(max(r * r - 1.0, 0.0))
        s_peak = (math.pi / 2 + math.atan2(1.0, b)) / w
        r = (peak - 1.0) * math.exp(s_peak / tau)
    b = math.sqrt(max(r * r - 1.0, 0.0))
    return _Ring(cell, t0, b * weight, -weight, hz, tau)


class _Plateau:
    """A force g from t0 to t1 with linear ramps (a press, or a bump when cell is -1)."""

    __slots__ = ("cell", "end", "g", "ramp", "t0")

    def __init__(self, cell: int, t0: float, t1: float, g: float, ramp: float = RAMP_S) -> None:
        self.cell = cell
        self.t0 = t0
        self.end = t1
        self.g = g
        self.ramp = min(ramp, (t1 - t0) / 2)

    def _integral(self, t: float) -> float:
        s = t - self.t0
        r = self.ramp
        length = self.end - self.t0
        if s <= 0:
            return 0.0
        if s >= length:
            return length - r
        if s < r:
            return s * s / (2 * r)
        if s <= length - r:
            return s - r / 2
        rest = length - s
        return length - r - rest * rest / (2 * r)

    def mean(self, a: float, b: float) -> float:
        return self.g * (self._integral(b) - self._integral(a)) / (b - a)


_Transient = _Ring | _Plateau


# -- the world ------------------------------------------------------------------------------------


class SimWorld:
    """Seeds in places and hands, load cells under the places, and a clock of HX711 samples.

    Build it with `controller.sim.build_world(scenario)` (which has the virtual player plan the
    scenario's moves), or directly for a board at rest and `schedule` actions yourself.
    Everything random comes from one `random.Random(random_seed)`, so a scenario always gives
    the same frames.
    """

    def __init__(self, scenario: Scenario, start: Position | None = None) -> None:
        self.scenario = scenario
        self.rules: Rules = scenario.rules()
        self.board: Board = scenario.board_file()
        self.mapping: BoardMapping = self.board.mapping(self.rules.n)
        sensors = scenario.sensors
        self.sensors = sensors
        rng = self.rng = random.Random(sensors.random_seed)
        n = self.cell_count = len(self.board.cells)

        # Seeds, in game places. The start layout comes from the rules engine.
        self.seed_mean_g = sensors.seed_mean_g
        self.places: dict[Place, list[float]] = {place: [] for place in self.mapping.cell_of}
        self.hands: tuple[list[float], list[float]] = ([], [])
        # Seeds a `move` has lifted and not yet landed: in the hand, but on their way to one
        # place, so no other action of that hand can drop them (see _move_land).
        self.carried: tuple[list[float], list[float]] = ([], [])
        position = start if start is not None else Position.start(self.rules)
        for place, count in _counts(self.rules, position).items():
            self.places[place].extend(self.new_seed() for _ in range(count))
        self.cell_of = dict(self.mapping.cell_of)

        # Cells. They come from their own random stream, so that the same board (same
        # random_seed) has the same cells whatever seeds lie on it: a calibration made on it
        # still fits after a new game of another variant.
        cell_rng = random.Random(f"cells-{sensors.random_seed}")
        self._offset: list[float] = []
        self._scale: list[float] = []
        self._cup: list[float] = []
        self._ring_hz: list[float] = []
        for spec in self.board.cells:
            self._offset.append(cell_rng.uniform(-ZERO_OFFSET_COUNTS, ZERO_OFFSET_COUNTS))
            self._scale.append(cell_rng.uniform(*COUNTS_PER_G_1KG) * 1000.0 / spec.capacity_g)
            self._cup.append(cell_rng.uniform(*(STORE_CUP_G if spec.place.is_store else PIT_CUP_G)))
            self._ring_hz.append(cell_rng.uniform(*RING_HZ))
        self._mass = [0.0] * n  # grams of seeds resting on each cell
        for place, seeds in self.places.items():
            self._mass[self.cell_of[place]] = sum(seeds)
        self._creep_k = [CREEP_FRACTION * cell_rng.uniform(0.5, 1.0) for _ in range(n)]
        # The board has stood loaded for a while: creep starts settled.
        self._creep = [
            k * (cup + m) for k, cup, m in zip(self._creep_k, self._cup, self._mass, strict=True)
        ]
        per_s = sensors.drift_g_per_min / 60.0
        self._drift = [0.0] * n
        self._drift_rate = [rng.uniform(-per_s, per_s) for _ in range(n)]
        self._drift_next = [rng.uniform(*DRIFT_PERIOD_S) for _ in range(n)]
        self._static = [0.0] * n
        self._refresh_static()

        # The user's calibration, made before the game with empty cups (see user_calibration).
        err = sensors.calibration_error
        self._user_cal = [
            CellCalibration(
                off + scale * (cup + k * cup + _clipped_gauss(cell_rng, TARE_ERROR_G)),
                scale * (1.0 + cell_rng.uniform(-err, err)),
            )
            for off, scale, cup, k in zip(
                self._offset, self._scale, self._cup, self._creep_k, strict=True
            )
        ]

        # The converter.
        self.nominal_rate_sps = sensors.rate_sps
        self.rate_sps = sensors.rate_sps * (
            1.0 + rng.uniform(-OSCILLATOR_TOLERANCE, OSCILLATOR_TOLERANCE)
        )
        self.period = 1.0 / self.rate_sps
        self._noise = _gauss_table(sensors.noise_g)
        self._jitter = _jitter_table()
        self._k = 0  # samples taken
        self.now = 0.0  # true time of the last sample
        first = list(self._static)
        self._h1, self._h2, self._h3 = first, list(first), list(first)
        self._next_slow = SLOW_UPDATE_S
        self._last_slow = 0.0
        self._transients: list[_Transient] = []
        self._glitch_p = sensors.glitch_rate
        # Index k * cells + cell of the next glitch sample; the first frame is k = 1.
        self._next_glitch = n + self._glitch_gap()
        self.glitches: list[tuple[int, int]] = []  # (seq, cell) of every glitch sample

        # Events: (time, order, function, argument).
        self._events: list[tuple[float, int, Callable[[Any], None], Any]] = []
        self._order = 0
        self._loaded_k = 0  # the sample at which a cell's load last changed (see `still`)
        self.end_time = SETTLE_TAIL_S
        self.default_hand = 0
        self._lock = threading.Lock()

        # Ground truth for reports.
        self.landings: list[Landing] = []
        self.log: list[LoggedAction] = []
        self.buttons: list[ButtonPress] = []
        self.lost = 0  # seeds dropped off the board
        self.added = 0  # seeds put in from outside

    # -- seeds and truth ------------------------------------------------------------------------

    def new_seed(self) -> float:
        """A seed's mass, drawn once: N(mean, cv * mean), clipped at 0.2 * mean."""
        mean = self.seed_mean_g
        return max(0.2 * mean, self.rng.gauss(mean, self.sensors.seed_cv * mean))

    def truth(self) -> dict[str, Any]:
        """Seed counts by place in game coordinates (SIMULATION.md report's `truth`)."""
        n = self.rules.n
        return {
            "pits": [[len(self.places[Place(p, i)]) for i in range(n)] for p in (0, 1)],
            "stores": [len(self.places[Place(p, "store")]) for p in (0, 1)],
            "hand": [len(self.hands[h]) + len(self.carried[h]) for h in (0, 1)],
        }

    def total_seeds(self) -> int:
        in_hands = sum(len(self.hands[h]) + len(self.carried[h]) for h in (0, 1))
        return sum(map(len, self.places.values())) + in_hands

    def seed_masses(self, place: Place) -> list[float]:
        """The masses of the seeds in `place`, oldest first (test helper)."""
        return list(self.places[place])

    def cup_mass_g(self, cell: int) -> float:
        """Test helper: the cup's mass on `cell`. The controller never gets this."""
        return self._cup[cell]

    def cell_load_g(self, cell: int) -> float:
        """Test helper: the static load on `cell` now (cup and seeds, no creep or drift)."""
        return self._cup[cell] + self._mass[cell]

    # -- calibration ----------------------------------------------------------------------------

    def user_calibration(self) -> list[CellCalibration]:
        """The calibration a user would have made, one per cell.

        The user tared the empty board (cups on, so grams are grams of seeds) and weighed a
        reference: each zero is off by a little (0.1 g rms) and each scale by up to
        `calibration_error` (a fraction), as SIMULATION.md says.
        """
        return list(self._user_cal)

    def true_calibration(self) -> list[CellCalibration]:
        """Test helper: the exact zero (empty cup, settled, no drift) and scale of every cell."""
        return [
            CellCalibration(off + scale * cup * (1.0 + k), scale)
            for off, scale, cup, k in zip(
                self._offset, self._scale, self._cup, self._creep_k, strict=True
            )
        ]

    # -- scheduling -----------------------------------------------------------------------------

    def schedule(self, actions: Iterable[Action], relative: bool = True) -> float:
        """Add actions; with `relative` their times count from now (the last sample).

        Returns the time the actions' times were counted from. Safe to call from another
        thread while a reader calls `step`. Times before now are performed at the next sample.
        Actions without a hand get `default_hand`.
        """
        with self._lock:
            base = self.now if relative else 0.0
            for action in actions:
                if action.t < 0 or not math.isfinite(action.t):
                    raise ScenarioError(f"action {action}: time must be 0 or more")
                action = action.shifted(base).with_hand(self.default_hand)
                self._push(action.t, self._perform, action)
                self.end_time = max(self.end_time, action_end(action) + SETTLE_TAIL_S)
            return base

    def _push(self, t: float, fn: Callable[[Any], None], arg: Any) -> None:
        self._order += 1
        heapq.heappush(self._events, (t, self._order, fn, arg))

    @property
    def finished(self) -> bool:
        """True once the next sample would come after `end_time`."""
        return (self._k + 1) * self.period > self.end_time

    @property
    def still(self) -> bool:
        """Nothing on the board moves: no action to come, no ring or touch dying away, and
        the converter's last SETTLE_SAMPLES instants all weigh the load as it stands. Until the
        next action the cells read the same, noise, creep and drift aside."""
        return (
            not self._events and not self._transients and self._k - self._loaded_k >= SETTLE_SAMPLES
        )

    # -- performing actions ---------------------------------------------------------------------

    def _perform(self, action: Action) -> None:
        t = action.t
        hand = action.hand if action.hand is not None else self.default_hand
        kind = action.kind
        note = ""
        if kind in ("grab", "take", "move"):
            assert action.at is not None
            cell = self.cell_of[action.at]
            press = self.rng.uniform(*GRAB_PRESS_G)
            self._transients.append(_Plateau(cell, t, t + GRAB_PRESS_S, press))
            self._push(t + GRAB_PRESS_S, self._lift, action)
        elif kind == "drop":
            assert action.at is not None and action.n is not None
            seeds, note = self._from_hand(hand, action.n)
            self._land(t, action.at, seeds, hand)
        elif kind == "add":
            assert action.at is not None and action.n is not None
            seeds = [self.new_seed() for _ in range(action.n)]
            self.added += len(seeds)
            self._land(t, action.at, seeds, hand)
        elif kind == "drop_off":
            assert action.n is not None
            seeds, note = self._from_hand(hand, action.n)
            self.lost += len(seeds)
        elif kind == "press":
            assert action.at is not None
            cell = self.cell_of[action.at]
            self._transients.append(_Plateau(cell, t, t + action.dur, action.g))
        elif kind == "bump":
            self._transients.append(_Plateau(-1, t, t + action.dur, action.g))
            if self.sensors.ring_ms > 0:
                tau = self.sensors.ring_ms / 3000.0
                for cell, hz in enumerate(self._ring_hz):
                    self._transients.append(_Ring(cell, t, BUMP_RING * action.g, 0.0, hz, tau))
        elif kind in ("rest", "lean", "brush"):
            self._touch(action)
        elif kind == "bounce":
            note = self._bounce(action, hand)
        elif kind == "button":
            self.buttons.append(ButtonPress(t, action.name))
        else:  # pragma: no cover - parse_scenario admits only the kinds above
            raise ValueError(f"unknown action {kind!r}")
        self.log.append(LoggedAction(t, action, note))

    def _touch(self, action: Action) -> None:
        """A load that comes and goes again: a rest, a lean or a brush (never a seed)."""
        t = action.t
        if action.kind == "rest":
            assert action.at is not None
            end = t + action.dur + 2 * action.ramp
            ramp = max(action.ramp, RAMP_S)
            self._transients.append(_Plateau(self.cell_of[action.at], t, end, action.g, ramp))
        elif action.kind == "brush":
            assert action.at is not None
            cell = self.cell_of[action.at]
            self._transients.append(_Plateau(cell, t, t + action.dur, action.g, action.dur / 2))
        else:
            shares = [self.rng.uniform(*LEAN_SHARE) for _ in action.places]
            total = sum(shares)
            for place, share in zip(action.places, shares, strict=True):
                g = action.g * share / total
                plateau = _Plateau(self.cell_of[place], t, t + action.dur, g, LEAN_RAMP_S)
                self._transients.append(plateau)

    def _bounce(self, action: Action, hand: int) -> str:
        """One seed from the hand strikes `at` and hops on into `to`."""
        assert action.at is not None and action.to is not None
        seeds, note = self._from_hand(hand, 1)
        if not seeds:
            return note
        t = action.t
        strike = seeds[0] * self.rng.uniform(*BOUNCE_STRIKE)
        cell = self.cell_of[action.at]
        self._transients.append(_Plateau(cell, t, t + BOUNCE_STRIKE_S, strike, 0.005))
        hop = t + self.rng.uniform(*BOUNCE_HOP_S)
        self._push(hop, self._hop_land, (hop, action.to, seeds, hand))
        return note

    def _hop_land(self, arg: tuple[float, Place, list[float], int]) -> None:
        self._land(*arg)

    def _from_hand(self, hand: int, n: int) -> tuple[list[float], str]:
        held = self.hands[hand]
        k = min(n, len(held))
        seeds = held[len(held) - k :]
        del held[len(held) - k :]
        note = "" if k == n else f"hand {hand} held only {k} of {n} seeds"
        return seeds, note

    def _lift(self, action: Action) -> None:
        """The seeds leave the cup (truth: into the hand now; weight: one by one)."""
        t = action.t + GRAB_PRESS_S
        hand = action.hand if action.hand is not None else self.default_hand
        assert action.at is not None
        seeds = self.places[action.at]
        want = len(seeds) if action.n is None else action.n  # grab and move: every seed
        k = min(want, len(seeds))
        taken = seeds[len(seeds) - k :]  # the latest seeds first: a stray seed is taken back
        del seeds[len(seeds) - k :]
        (self.carried if action.kind == "move" else self.hands)[hand].extend(taken)
        cell = self.cell_of[action.at]
        for m in taken:
            self._push(t + self.rng.uniform(0.0, GRAB_LIFT_S), self._mass_change, (cell, -m))
        if k < want:
            self.log.append(LoggedAction(t, action, f"{action.at} held only {k} of {want} seeds"))
        if action.kind == "move":
            assert action.to is not None
            self._push(action.t + MOVE_S, self._move_land, (action, taken))

    def _move_land(self, arg: tuple[Action, list[float]]) -> None:
        """The carried seeds land. They were kept apart from the hand's other seeds: kept in
        the hand, a drop of that hand's scheduled during the carry (the daemon scheduling a
        move over one still played) took them, and this removal raised ValueError and ended
        the daemon's loop. Now such a drop takes only what the hand holds besides, and the
        log notes it held fewer seeds; the truth counts carried seeds in the hand throughout.
        """
        action, carried = arg
        hand = action.hand if action.hand is not None else self.default_hand
        flying = self.carried[hand]
        for m in carried:
            flying.remove(m)
        assert action.to is not None
        self._land(action.t + MOVE_S, action.to, carried, hand)

    def _land(self, t: float, place: Place, seeds: list[float], hand: int) -> None:
        if not seeds:
            return
        self.places[place].extend(seeds)
        cell = self.cell_of[place]
        weight = sum(seeds)
        self._mass_change((cell, weight))
        if self.sensors.ring_ms > 0:
            peak = self.rng.uniform(*IMPACT_PEAK)
            tau = self.sensors.ring_ms / 3000.0  # exp(-3) = 5 % left after ring_ms
            hz = self._ring_hz[cell]
            self._transients.append(impact_ring(cell, t, weight, peak, hz, tau))
        self.landings.extend(Landing(t, place, hand) for _ in seeds)

    def _mass_change(self, arg: tuple[int, float]) -> None:
        cell, grams = arg
        self._mass[cell] += grams
        self._static[cell] += grams
        self._loaded_k = self._k

    # -- the converter --------------------------------------------------------------------------

    def _refresh_static(self) -> None:
        self._static = [
            cup + m + creep + drift
            for cup, m, creep, drift in zip(
                self._cup, self._mass, self._creep, self._drift, strict=True
            )
        ]

    def _slow_update(self, t: float) -> None:
        """Integrate creep and drift (they change over seconds, not samples)."""
        dt = t - self._last_slow
        self._last_slow = t
        self._next_slow = t + SLOW_UPDATE_S
        alpha = 1.0 - math.exp(-dt / CREEP_TAU_S)
        per_s = self.sensors.drift_g_per_min / 60.0
        for c in range(self.cell_count):
            target = self._creep_k[c] * (self._cup[c] + self._mass[c])
            self._creep[c] += (target - self._creep[c]) * alpha
            self._drift[c] += self._drift_rate[c] * dt
            if t >= self._drift_next[c]:
                self._drift_rate[c] = self.rng.uniform(-per_s, per_s)
                self._drift_next[c] = t + self.rng.uniform(*DRIFT_PERIOD_S)
        self._refresh_static()

    def _glitch_gap(self) -> float:
        """Cell-samples until the next glitch (geometric), or infinity without glitches."""
        p = self._glitch_p
        if p <= 0:
            return math.inf
        if p >= 1:
            return 0
        return math.floor(math.log(1.0 - self.rng.random()) / math.log(1.0 - p))

    def step(self) -> Frame:
        """Advance to the next sample instant and return the frame every cell gives there."""
        with self._lock:
            return self._step()

    def _step(self) -> Frame:
        k = self._k = self._k + 1
        before = self.now
        t = self.now = k * self.period
        events = self._events
        while events and events[0][0] <= t:
            _, _, fn, arg = heapq.heappop(events)
            fn(arg)
        if t >= self._next_slow:
            self._slow_update(t)
        inst = self._static.copy()
        if self._transients:
            self._add_transients(inst, before, t)
        h1, h2, h3 = self._h1, self._h2, self._h3
        self._h1, self._h2, self._h3 = inst, h1, h2
        noise = self._noise
        bits = self.rng.getrandbits
        raw = [
            int(off + scale * ((a + b + c + d) * 0.25 + noise[bits(NOISE_TABLE_BITS)]) + 8388608.5)
            - _OFFSET
            for a, b, c, d, off, scale in zip(
                inst, h1, h2, h3, self._offset, self._scale, strict=True
            )
        ]
        if max(raw) > RAW_MAX or min(raw) < RAW_MIN:
            raw = [RAW_MAX if r > RAW_MAX else RAW_MIN if r < RAW_MIN else r for r in raw]
        cells = self.cell_count
        if self._next_glitch < (k + 1) * cells:
            self._glitch(raw, k)
        stamp = t + self._jitter[bits(NOISE_TABLE_BITS)]
        return Frame(stamp, tuple(raw), k)

    def _add_transients(self, inst: list[float], a: float, b: float) -> None:
        keep: list[_Transient] = []
        for tr in self._transients:
            value = tr.mean(a, b)
            if tr.cell < 0:
                for c in range(self.cell_count):
                    inst[c] += value
            else:
                inst[tr.cell] += value
            if tr.end > b:
                keep.append(tr)
        self._transients = keep

    def _glitch(self, raw: list[int], k: int) -> None:
        cells = self.cell_count
        base = k * cells
        while self._next_glitch < base + cells:
            c = int(self._next_glitch) - base
            if self.rng.random() < 0.5:
                raw[c] = to_signed24(self.rng.getrandbits(24))
            else:
                raw[c] = to_signed24((raw[c] & 0xFFFFFF) ^ (1 << (23 - self.rng.randrange(4))))
            self.glitches.append((k, c))
            self._next_glitch += 1 + self._glitch_gap()

    def source(self, endless: bool = False, realtime: bool = False) -> SimSource:
        return SimSource(self, endless=endless, realtime=realtime)


def _counts(rules: Rules, position: Position) -> dict[Place, int]:
    out: dict[Place, int] = {}
    for p in (0, 1):
        for i, seeds in enumerate(position.pits[p]):
            out[Place(p, i)] = seeds
        out[Place(p, "store")] = position.stores[p]
    return out


def _clipped_gauss(rng: random.Random, sigma: float) -> float:
    return max(-3 * sigma, min(3 * sigma, rng.gauss(0.0, sigma)))


_UNIT_NORMALS: list[float] = []


@functools.lru_cache(maxsize=8)
def _gauss_table(sigma: float) -> tuple[float, ...]:
    """2**16 normal values scaled to rms exactly `sigma`: a noise draw is one table lookup.

    random.gauss costs ten times a getrandbits(16) lookup, and the simulator draws one noise
    value per cell per frame; 65536 values are plenty for the statistics it must have. The
    table is the same for every world (drawn once from a fixed seed), the world's own random
    stream picks the entries, so a world is still fully determined by its random_seed.
    Read-only and shared by every world with this `sigma`: building it cost a new game 25 ms
    of the daemon's loop.
    """
    if not _UNIT_NORMALS:
        rng = random.Random(0x5EED)
        size = 1 << NOISE_TABLE_BITS
        table = [rng.gauss(0.0, 1.0) for _ in range(size)]
        mean = sum(table) / size
        rms = math.sqrt(sum((z - mean) ** 2 for z in table) / size)
        _UNIT_NORMALS.extend((z - mean) / rms for z in table)
    return tuple(sigma * z for z in _UNIT_NORMALS)


@functools.lru_cache(maxsize=1)
def _jitter_table() -> tuple[float, ...]:
    """The timestamps' jitter, clipped at 5 sigma (shared as `_gauss_table`)."""
    limit = 5 * TIMESTAMP_JITTER_S
    return tuple(max(-limit, min(limit, z)) for z in _gauss_table(TIMESTAMP_JITTER_S))


class SimSource:
    """The simulated board as a `SampleSource` (controller/sensing/frames.py).

    `read()` advances simulated time by one sample and returns that frame; it returns None once
    the scenario is over (2 s after the last action) unless `endless`. With `realtime` it paces
    frames to the wall clock (for the daemon) and honours `timeout`.
    """

    def __init__(self, world: SimWorld, *, endless: bool = False, realtime: bool = False) -> None:
        self.world = world  # ground truth: for reports and tests, never for the controller
        self.cell_count = world.cell_count
        self.endless = endless
        self.realtime = realtime
        self.closed = False
        self._wall0: float | None = None
        self._buttons_seen = 0

    def read(self, timeout: float | None = None) -> Frame | None:
        world = self.world
        if self.closed or (not self.endless and world.finished):
            return None
        if self.realtime:
            now = time.monotonic()
            if self._wall0 is None:
                self._wall0 = now - world.now
            due = self._wall0 + world.now + world.period
            wait = due - now
            if wait > 0:
                if timeout is not None and wait > timeout:
                    time.sleep(timeout)
                    return None
                time.sleep(wait)
        return world.step()

    def poll_buttons(self) -> list[ButtonPress]:
        """Board buttons pressed since the last poll (the buttons are not load cells)."""
        presses = self.world.buttons[self._buttons_seen :]
        self._buttons_seen += len(presses)
        return presses

    def status(self) -> SourceStatus:
        return SourceStatus("simulated board", not self.closed, self.world.rate_sps)

    def close(self) -> None:
        self.closed = True
