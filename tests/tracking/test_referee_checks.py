"""The referee's checks that are not hand steps: a sensor that dies, a board that does not match
(issue 3: `sensor_fault`, `board_mismatch`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from controller.rules import Phase, Place, Step
from controller.sim import build_simulation, parse_scenario
from controller.tracking.hypotheses import Entry, Tracker
from controller.tracking.referee import (
    BOARD_MISMATCH,
    SENSOR_FAULT,
    Lifting,
    Referee,
)
from controller.tracking.session import STARTERS, AnyReferee
from controller.tracking.verdicts import RecognisedStep

# The sensor checks hold for both referees: the cases, and the one search replacing them.
BOTH = pytest.mark.parametrize("kind", sorted(STARTERS))


def _referee(seed_cv: float = 0.03) -> tuple[Referee, object]:
    referee, source = _any_referee("cases", seed_cv)
    assert isinstance(referee, Referee)
    return referee, source


def _any_referee(kind: str, seed_cv: float = 0.03) -> tuple[AnyReferee, object]:
    sensors = {"random_seed": 2, "seed_cv": seed_cv}
    scenario = parse_scenario({"variant": "kalah", "sensors": sensors}, "test")
    simulation = build_simulation(scenario)
    world = simulation.world
    source = simulation.source(endless=True)
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    start = STARTERS[kind]
    referee = start(source, calibration, world.rules, world.mapping, world.nominal_rate_sps)
    return referee, source


@BOTH
def test_a_cell_that_stops_answering_is_a_sensor_fault_naming_it_until_it_answers_again(
    kind: str,
) -> None:
    referee, source = _any_referee(kind)
    cell = referee.cell_of[Place(1, 2)]
    for k in range(120):  # 1.5 s at 80 SPS, the cell silent for the middle second
        frame = source.read(None)  # type: ignore[attr-defined]
        assert frame is not None
        if 20 <= k < 100:
            raw = list(frame.raw)
            raw[cell] = None
            frame = replace(frame, raw=tuple(raw))
        referee.process(frame)
    faults = [f for f in referee.flags if f.kind == SENSOR_FAULT]
    assert len(faults) == 1
    assert faults[0].at == Place(1, 2) and f"cell {cell}" in faults[0].detail
    assert faults[0].resolved_t is not None
    assert referee.phase() == "start"  # the game is not blocked by a sensor


def test_a_board_that_weighs_other_than_the_belief_at_rest_is_a_board_mismatch() -> None:
    referee, source = _referee()
    cell = referee.cell_of[Place(0, 4)]
    # The referee believes one seed fewer there than the cell weighs (as after a restart
    # with a seed put in by someone while the daemon was off): its account of the cell, and
    # the level its last certain point saw there (explain.py), are a seed short.
    account = referee.expected_g[cell]
    assert account is not None and referee.anchor is not None
    referee.expected_g[cell] = account - referee.seed_g
    levels = list(referee.anchor.levels_g)
    levels[cell] -= referee.seed_g
    referee.anchor = replace(referee.anchor, levels_g=tuple(levels))
    for _ in range(200):
        frame = source.read(None)  # type: ignore[attr-defined]
        assert frame is not None
        referee.process(frame)
    mismatches = [f for f in referee.flags if f.kind == BOARD_MISMATCH]
    assert len(mismatches) == 1
    assert mismatches[0].detail == "[0, 4]: too many"
    lights = referee.guidance_state(list(referee.cell_of)).mismatch
    assert lights == {Place(0, 4): "too_many"}


@BOTH
def test_a_cell_gone_noisy_is_a_sensor_fault_whose_changes_are_not_seeds(kind: str) -> None:
    """Issue 5: a noisy cell is a sensor_fault naming it; the referee does not take its noise
    for seeds and play goes on; the fault clears when the cell is quiet again."""
    import random

    referee, source = _any_referee(kind)
    cell = referee.cell_of[Place(1, 3)]
    _offset, scale = referee.detector.calibration[cell]
    rng = random.Random(3)
    for k in range(400):  # 5 s at 80 SPS; the cell jumps by +-20 g for the middle 2.5 s
        frame = source.read(None)  # type: ignore[attr-defined]
        assert frame is not None
        if 80 <= k < 280:
            raw = list(frame.raw)
            raw[cell] = int(raw[cell] + rng.uniform(-20, 20) * scale)  # type: ignore[operator]
            frame = replace(frame, raw=tuple(raw))
        referee.process(frame)
    faults = [f for f in referee.flags if f.kind == SENSOR_FAULT]
    assert len(faults) == 1 and faults[0].detail == f"cell {cell}: too noisy"
    assert faults[0].at == Place(1, 3) and faults[0].resolved_t is not None
    assert [f for f in referee.flags if f.kind != SENSOR_FAULT] == []
    assert referee.steps == [] and referee.phase() == "start"


@BOTH
def test_a_frozen_reading_is_a_sensor_fault(kind: str) -> None:
    """Issue 5: a stuck cell (the converter or the link frozen on one value) is a sensor_fault
    naming it, cleared when readings move again."""
    referee, source = _any_referee(kind)
    cell = referee.cell_of[Place(0, 1)]
    frozen = None
    for k in range(500):  # the cell frozen from 0.5 s to 5 s
        frame = source.read(None)  # type: ignore[attr-defined]
        assert frame is not None
        if 40 <= k < 400:
            frozen = frame.raw[cell] if frozen is None else frozen
            raw = list(frame.raw)
            raw[cell] = frozen
            frame = replace(frame, raw=tuple(raw))
        referee.process(frame)
    faults = [f for f in referee.flags if f.kind == SENSOR_FAULT]
    assert len(faults) == 1 and "reading stuck" in faults[0].detail
    assert faults[0].at == Place(0, 1) and faults[0].resolved_t is not None


@BOTH
@pytest.mark.parametrize(("rate", "wild"), [(80, 0), (10, 0), (10, 5)])
def test_a_wild_sample_at_start_up_is_a_glitch_not_a_lift(kind: str, rate: int, wild: int) -> None:
    """A bad read among the start-up frames (HARDWARE.md: rare wild words) must not become
    the level a cell is measured from: levels are medians of at least five settled samples
    (at 10 SPS half a second gives only two), and the detectors start from them, so the
    first sample is judged like any other."""
    scenario = parse_scenario(
        {"variant": "kalah", "sensors": {"random_seed": 2, "rate_sps": rate}}, "test"
    )
    simulation = build_simulation(scenario)
    world = simulation.world
    inner = simulation.source(endless=True)
    cell = world.mapping.cell_of[Place(1, 2)]

    class OneFrameGlitched:
        count = 0

        def read(self, timeout: float | None = None) -> object:
            frame = inner.read(timeout)
            assert frame is not None
            # On time to the tick (a loose oscillator may add a frame to start-up's half second).
            frame = replace(frame, t=self.count / rate)
            if self.count == wild:
                raw = list(frame.raw)
                raw[cell] = 8_000_000  # near full scale: some kilograms off
                frame = replace(frame, raw=tuple(raw))
            self.count += 1
            return frame

    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    source = OneFrameGlitched()
    referee = STARTERS[kind](
        source,
        calibration,
        world.rules,
        world.mapping,
        world.nominal_rate_sps,
    )
    for _ in range(2 * rate):
        referee.process(source.read(None))  # type: ignore[arg-type]
    assert referee.flags == [] and referee.steps == []
    detector = referee.detector.cells[cell]
    assert detector.rest is not None and abs(detector.rest - detector.level) < 1.0
    if isinstance(referee, Referee):  # (the cases' own account of the cell)
        account = referee.expected_g[cell]
        assert account is not None and abs(account - detector.level) < 1.0


@pytest.mark.parametrize("taken_back", [False, True])
def test_a_landing_that_settles_again_a_little_lower_is_one_seed(taken_back: bool) -> None:
    """A cup can come to rest while a landing's impact still rings (a seed landing just as a
    lift there ends) and settle again a fraction of a seed lower. That second settling is no
    seed taken (what is left is a whole seed, not the half a light seed leaves): no flag, the
    sow counted once. (Natural seeds: 1.4 seeds may be one heavy seed, so the first level is
    taken at once.) If the hand then takes that seed back, the sow is undone: what leaves
    weighs what the landing came to, not its first reading."""
    referee, source = _referee(seed_cv=0.15)
    lifted, landed = referee.cell_of[Place(0, 2)], referee.cell_of[Place(0, 3)]
    seed = referee.seed_g
    content = referee.expected_g[lifted]
    assert content is not None

    def grams(k: int) -> dict[int, float]:
        # Pit [0, 2] lifted at 1 s; a seed in [0, 3] at 1.5 s that first reads 1.4 seeds and
        # 0.15 s later settles at one; perhaps taken back at 2.5 s.
        out: dict[int, float] = {}
        if k >= 80:
            out[lifted] = -content
        if k >= 120:
            out[landed] = seed * (1.4 if k < 132 else 1.0)
        if taken_back and k >= 200:
            out[landed] = 0.0
        return out

    for k in range(320):
        frame = source.read(None)  # type: ignore[attr-defined]
        assert frame is not None
        raw = list(frame.raw)
        for cell, delta in grams(k).items():
            raw[cell] = int(raw[cell] + delta * referee.detector.calibration[cell][1])  # type: ignore[operator]
        referee.process(replace(frame, raw=tuple(raw)))
    assert referee.flags == []
    steps = [(r.step.kind.value, r.step.at) for r in referee.steps]
    assert steps == [("pickup", Place(0, 2))] + ([] if taken_back else [("sow", Place(0, 3))])
    assert referee.expected_places() == ([Place(0, 3)] if taken_back else [Place(0, 4)])


def test_a_pit_taken_as_still_being_lifted_that_does_not_empty_leaves_seeds_owed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RULES.md `simultaneous_opening`: a cup that settles at one seed while a capture lifts
    both hands' seeds is taken as the lift under way (`Referee._sown_while_lifting`). If the
    cup then stays as it is for `hold_s`, the hand left seeds. A pickup is taken, the seeds
    still in the pit owed by the hand; no flag yet (a pit may be lifted in two handfuls: only
    sowing on without the rest is `not_all_lifted`). (The mechanism alone: a Kalah board at
    rest, a pit marked as being lifted by hand, so the cups at rest, which show no lift, are
    not asked: explain.py.)"""
    monkeypatch.setattr(Referee, "_explain_again", lambda self, t, flags_before: False)
    referee, source = _referee()
    cell = referee.cell_of[Place(0, 2)]
    before = referee.belief()
    frame = source.read(None)  # type: ignore[attr-defined]
    referee.process(frame)
    take = Step.pickup(0, Place(0, 2))
    referee.lifting[cell] = Lifting(take, referee.seed_g, frame.t, guessed=2)
    referee.hand_of[cell] = 0
    for _ in range(40):  # 0.5 s at 80 SPS, the board at rest
        frame = source.read(None)  # type: ignore[attr-defined]
        referee.process(frame)
    assert referee.flags == [] and not referee.lifting
    assert referee.steps[-1].step == take
    left = referee.left_behind[cell]
    assert left.flag is None and left.count == before["pits"][0][2]
    assert referee.belief()["pits"][0][2] == before["pits"][0][2]  # still in the pit
    assert referee.belief()["hand"] == before["hand"]  # the hand owes them: it holds none


def test_a_hand_that_just_lifted_a_pit_is_due_one_interval_after_the_lift() -> None:
    """RULES.md `simultaneous_opening`: whose seed fell, when both hands are due at one cup,
    is the hand whose own tempo puts its next seed nearest (`Referee._choose`). A hand that
    lifted a pit again since its last seed (a relay) sows its next one an interval after the
    lift, not after that seed: here hand 0 (a seed every 0.25 s, then a relay lift taken at
    1.3 s) and hand 1 (a seed every 0.25 s, the last at 1.1 s) are both due at [1, 3], and the
    seed that falls there at 1.55 s is hand 0's."""
    referee, _ = _referee()
    place = Place(1, 3)
    own = [RecognisedStep(t, Step.sow(0, Place(0, 1)), t) for t in (0.0, 0.25, 0.5, 0.75)]
    other = [RecognisedStep(t, Step.sow(1, Place(1, 0)), t) for t in (0.1, 0.35, 0.6, 0.85, 1.1)]
    lift = RecognisedStep(1.3, Step.pickup(0, Place(1, 2)))
    referee.steps = [*sorted(own + other, key=lambda r: r.t), lift]
    referee.now, referee.judged = 1.6, (referee.cell_of[place], 1.55)
    options = (Step.sow(1, place), Step.sow(0, place))
    assert referee._choose(options).player == 0
    referee.steps.remove(lift)  # without the lift hand 0 would have been due at 1.0 s
    referee.choices, referee._answers = [], {}  # (a new frame)
    assert referee._choose(options).player == 1


def test_a_relay_due_that_no_hand_makes_is_a_doubt() -> None:
    """RULES.md 3 (B: a last seed in a non-empty pit is picked up again) and
    `simultaneous_opening`: a hand that must relay but rests, its last step long ago, counts
    against the steps taken (`Referee.doubts`: what sets the order search going), as a hand
    resting with seeds in it does. Its last seed taken for the other hand's can leave such a
    relay due that nobody makes, and no flag would ever say so. A player may stop to look
    before a relay, though: that takes RELAY_STALL_S, longer than a hand holding seeds."""
    referee, _ = _referee()
    referee.steps = [RecognisedStep(0.0, Step.sow(0, Place(1, 4)), 0.0)]
    hand = referee.game.hands[0]
    hand.seeds, hand.phase = 0, Phase.RELAY
    referee.now = 4.0
    assert referee.doubts() == 0
    referee.now = 5.0
    assert referee.doubts() == 1
    hand.phase = Phase.DONE  # a hand whose move is over rests as long as it likes
    assert referee.doubts() == 0


def test_the_search_flags_a_board_that_weighs_other_than_its_belief_at_rest() -> None:
    """The one search's `board_mismatch` (mismatch.py): its belief has a seed fewer in [0, 4]
    than the cup weighs, and one more in [0, 5] (as after a seed moved under a knock that hid
    it, or the search losing track). No cup moves, so no motion explains it; at rest the cups
    are weighed against the belief: one flag naming both, the lights showing each, the game
    not held up by it; resolved once the belief and the cups agree again."""
    referee, source = _any_referee("search")
    assert isinstance(referee, Tracker)
    four, five = referee.cell_of[Place(0, 4)], referee.cell_of[Place(0, 5)]
    moved = (Entry(four, -1, "left", None, 0), Entry(five, 1, "left", None, 0))
    referee.frontier = [h.but(ledger=moved) for h in referee.frontier]
    for _ in range(int(1.6 * 80)):
        referee.process(source.read(None))  # type: ignore[attr-defined]
    (flag,) = referee.flags
    assert flag.kind == BOARD_MISMATCH and flag.active
    assert flag.detail == "[0, 4]: too many; [0, 5]: too few"
    lights = referee.guidance_state(list(referee.cell_of)).mismatch
    assert lights == {Place(0, 4): "too_many", Place(0, 5): "too_few"}
    assert referee.phase() == "start"
    referee.frontier = [h.but(ledger=()) for h in referee.frontier]
    for _ in range(40):
        referee.process(source.read(None))  # type: ignore[attr-defined]
    assert not flag.active and referee.mismatch == {}


def test_the_search_raises_no_mismatch_for_a_board_of_natural_seeds_as_believed() -> None:
    """Natural seeds (15 % spread): each cup's own spread allows it."""
    referee, source = _any_referee("search", seed_cv=0.15)
    for _ in range(240):
        referee.process(source.read(None))  # type: ignore[attr-defined]
    assert isinstance(referee, Tracker)
    assert referee.flags == [] and referee.mismatch == {}
