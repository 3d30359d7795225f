"""The referee's checks that are not hand steps: a sensor that dies, goes noisy or freezes
(issue 3: `sensor_fault`), a wild sample at start-up."""

from __future__ import annotations

from dataclasses import replace

import pytest

from controller.rules import Place
from controller.sim import build_simulation, parse_scenario
from controller.tracking.hypotheses import Entry, Tracker
from controller.tracking.session import start_referee
from controller.tracking.verdicts import BOARD_MISMATCH, SENSOR_FAULT


def _any_referee(seed_cv: float = 0.03) -> tuple[Tracker, object]:
    sensors = {"random_seed": 2, "seed_cv": seed_cv}
    scenario = parse_scenario({"variant": "kalah", "sensors": sensors}, "test")
    simulation = build_simulation(scenario)
    world = simulation.world
    source = simulation.source(endless=True)
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, world.nominal_rate_sps)
    return referee, source


def test_a_cell_that_stops_answering_is_a_sensor_fault_naming_it_until_it_answers_again() -> None:
    referee, source = _any_referee()
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


def test_a_cell_gone_noisy_is_a_sensor_fault_whose_changes_are_not_seeds() -> None:
    """Issue 5: a noisy cell is a sensor_fault naming it; the referee does not take its noise
    for seeds and play goes on; the fault clears when the cell is quiet again."""
    import random

    referee, source = _any_referee()
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


def test_a_frozen_reading_is_a_sensor_fault() -> None:
    """Issue 5: a stuck cell (the converter or the link frozen on one value) is a sensor_fault
    naming it, cleared when readings move again."""
    referee, source = _any_referee()
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


@pytest.mark.parametrize(("rate", "wild"), [(80, 0), (10, 0), (10, 5)])
def test_a_wild_sample_at_start_up_is_a_glitch_not_a_lift(rate: int, wild: int) -> None:
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
    referee = start_referee(
        source,  # type: ignore[arg-type]
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


def test_the_search_flags_a_board_that_weighs_other_than_its_belief_at_rest() -> None:
    """The one search's `board_mismatch` (mismatch.py): its belief has a seed fewer in [0, 4]
    than the cup weighs, and one more in [0, 5] (as after a seed moved under a knock that hid
    it, or the search losing track). No cup moves, so no motion explains it; at rest the cups
    are weighed against the belief: one flag naming both, the lights showing each, the game
    not held up by it; resolved once the belief and the cups agree again."""
    referee, source = _any_referee()
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
    referee, source = _any_referee(seed_cv=0.15)
    for _ in range(240):
        referee.process(source.read(None))  # type: ignore[attr-defined]
    assert isinstance(referee, Tracker)
    assert referee.flags == [] and referee.mismatch == {}
