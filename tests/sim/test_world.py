"""The load cells as the controller sees them (SIMULATION.md "What the simulator models",
HARDWARE.md "HX711").

Each test switches off what it does not measure (noise, glitches, drift, ringing) and reads
grams through the true calibration, which only tests may use.
"""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from controller.rules import Place
from controller.sensing.frames import RAW_MAX, RAW_MIN, SampleSource
from controller.sim import Action, SimSource, SimWorld, build_simulation, build_world
from controller.sim.world import (
    COUNTS_PER_G_1KG,
    GRAB_PRESS_S,
    GRAB_S,
    OSCILLATOR_TOLERANCE,
    SETTLE_TAIL_S,
    impact_ring,
)

from .helpers import quiet, random_game, scenario, trace

PIT = Place(0, 3)


def add_one_seed_at(t: float, **sensors: object) -> SimWorld:
    return build_world(
        scenario(sensors=quiet(**sensors), actions=[{"t": t, "action": "add", "at": [0, 3]}])
    )


@pytest.mark.parametrize("rate", [10, 80])
def test_a_step_settles_in_four_samples(rate: int) -> None:
    """HARDWARE.md: a step settles in 4 samples (400 ms at 10 SPS, 50 ms at 80 SPS);
    SIMULATION.md: it reaches 50 % after 2 samples and 100 % after 4."""
    world = add_one_seed_at(1.0, rate_sps=rate)
    samples = trace(world, PIT, 3.0)
    before = [g for t, g in samples if t < 1.0][-1]
    after = [g - before for t, g in samples if t >= 1.0]
    seed = world.seed_masses(PIT)[-1]
    fractions = [round(a / seed, 2) for a in after[:6]]
    assert fractions == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert world.period == pytest.approx(1 / rate, rel=OSCILLATOR_TOLERANCE)


def test_noise_rms_is_noise_g_on_every_cell() -> None:
    """SIMULATION.md: Gaussian noise of `noise_g` grams rms (HARDWARE.md: 0.01-0.02 g at 80 SPS)."""
    world = build_world(scenario(sensors={"noise_g": 0.02, "glitch_rate": 0, "drift_g_per_min": 0}))
    cal = world.true_calibration()
    readings: list[list[float]] = [[] for _ in range(world.cell_count)]
    for _ in range(3000):
        frame = world.step()
        for c, raw in enumerate(frame.raw):
            assert raw is not None
            readings[c].append(cal[c].grams(raw))
    for c, values in enumerate(readings):
        # A store cell has ~85 counts/g, so its 1-count quantisation adds 0.0034 g rms.
        assert statistics.pstdev(values) == pytest.approx(0.02, rel=0.1), f"cell {c}"


def test_the_empty_cup_and_the_seeds_are_what_the_cell_weighs() -> None:
    """A pit weighs the seeds actually in it plus its cup; the raw reading is
    offset + scale * (cup + seeds), and idle cells of closed pits weigh just their cup."""
    world = build_world(scenario("kalah", board="congkak7", sensors=quiet()))
    frame = world.step()
    true = world.true_calibration()
    for place, cell in world.cell_of.items():
        expected = sum(world.seed_masses(place))
        raw = frame.raw[cell]
        assert raw is not None
        assert true[cell].grams(raw) == pytest.approx(expected, abs=0.02)
        assert world.cell_load_g(cell) == pytest.approx(world.cup_mass_g(cell) + expected)
    for cell in world.mapping.idle_cells:
        raw = frame.raw[cell]
        assert raw is not None
        assert true[cell].grams(raw) == pytest.approx(0.0, abs=0.02)


def test_cells_have_realistic_hx711_scales() -> None:
    """A 1 kg cell at gain 128 gives roughly 420 counts/g; a 5 kg store cell a fifth of that."""
    world = build_world(scenario("congkak"))
    for spec, cal in zip(world.board.cells, world.true_calibration(), strict=True):
        low, high = (s * 1000.0 / spec.capacity_g for s in COUNTS_PER_G_1KG)
        assert low <= cal.counts_per_g <= high
    scales = {
        spec.place.is_store: cal.counts_per_g
        for spec, cal in zip(world.board.cells, world.true_calibration(), strict=True)
    }
    assert scales[True] < scales[False] / 4


@pytest.mark.parametrize("random_seed", range(8))
def test_a_landing_seed_spikes_then_settles_to_its_weight(random_seed: int) -> None:
    """SIMULATION.md: a seed landing adds an impact transient, a short spike several times its
    weight ringing down over ring_ms, before the new weight settles. The converter averages
    the spike (4 samples), so the samples overshoot by a fraction of the weight at 80 SPS."""
    world = add_one_seed_at(1.0, ring_ms=60, random_seed=random_seed)
    samples = trace(world, PIT, 2.0)
    before = [g for t, g in samples if t < 1.0][-1]
    after = [(t - 1.0, g - before) for t, g in samples if t >= 1.0]
    seed = world.seed_masses(PIT)[-1]
    early = [g for dt, g in after if dt < 0.1]
    # The ring is down to 5 % after ring_ms, below the noise after twice that.
    late = [g for dt, g in after if dt > 2 * 0.06 + 4 / 80]
    assert max(early) > 1.15 * seed  # overshoots the new weight ...
    assert min(early[4:]) < seed - 0.01  # ... rings below it (no noise here) ...
    assert all(abs(g - seed) < 0.02 for g in late)  # ... and settles once the ring is gone


def test_without_ringing_a_landing_rises_monotonically() -> None:
    world = add_one_seed_at(1.0, ring_ms=0)
    values = [g for t, g in trace(world, PIT, 1.5) if t >= 1.0]
    assert values == sorted(values)


@pytest.mark.parametrize("peak", [3.0, 4.5, 6.0])
def test_the_impact_force_peaks_at_the_chosen_multiple_of_the_weight(peak: float) -> None:
    """The force itself (before the converter averages it): weight plus ring, peak 3-6x."""
    ring = impact_ring(0, 0.0, 1.0, peak, 40.0, 0.06 / 3)
    force = [1.0 + ring.value(i * 1e-4) for i in range(1200)]  # 120 ms
    assert force[0] == pytest.approx(0.0)  # the spring has not moved yet
    assert max(force) == pytest.approx(peak, rel=0.05)
    assert abs(force[600] - 1.0) < 0.07 * peak  # 5 % of the ring left after ring_ms
    assert abs(force[-1] - 1.0) < 0.05


def test_a_grab_presses_the_cup_before_the_seeds_leave() -> None:
    """SIMULATION.md: a hand grabbing seeds presses on the cup first."""
    world = build_world(
        scenario(sensors=quiet(), actions=[{"t": 1.0, "action": "grab", "at": [0, 3]}])
    )
    held = sum(world.seed_masses(PIT))
    samples = trace(world, PIT, 2.0)
    # The press rises over 20 ms and the converter needs 4 samples (50 ms) to show it all.
    pressing = [g for t, g in samples if 1.0 + 0.075 < t < 1.0 + GRAB_PRESS_S]
    assert len(pressing) >= 5
    assert all(g > held + 15 for g in pressing)  # 20-60 g of finger on top of the seeds
    assert world.truth()["hand"] == [3, 0]
    assert all(abs(g) < 0.01 for t, g in samples if t > 1.0 + GRAB_S + 4 / 80)


def test_a_bump_is_felt_by_every_cell() -> None:
    world = build_world(
        scenario(sensors=quiet(), actions=[{"t": 1.0, "action": "bump", "g": 50, "dur": 0.2}])
    )
    cal = world.true_calibration()
    rest = world.step().raw
    while world.now < 1.15:
        frame = world.step()
    for c, (a, b) in enumerate(zip(rest, frame.raw, strict=True)):
        assert a is not None and b is not None
        assert cal[c].grams(b) - cal[c].grams(a) == pytest.approx(50, abs=1)


def test_readings_clip_at_the_24_bit_limits() -> None:
    """HX711 output is 24-bit two's complement: beyond full scale it saturates."""
    world = build_world(
        scenario(
            sensors=quiet(),
            actions=[
                {"t": 0.5, "action": "press", "at": [0, 3], "g": 40000, "dur": 0.5},
                {"t": 1.5, "action": "bump", "g": -40000, "dur": 0.5},
            ],
        )
    )
    cell = world.cell_of[PIT]
    during_press, during_bump, after = [], [], []
    while not world.finished:
        frame = world.step()
        if 0.7 < world.now < 0.95:
            during_press.append(frame.raw)
        elif 1.7 < world.now < 1.95:
            during_bump.append(frame.raw)
        elif world.now > 2.5:
            after.append(frame.raw)
    assert during_press and all(raw[cell] == RAW_MAX for raw in during_press)
    # -40 kg is beyond every 1 kg pit cell's 24-bit range (about 20 kg at 420 counts/g), while
    # a 5 kg store cell (about 85 counts/g) still reads it.
    stores = {world.cell_of[Place(p, "store")] for p in (0, 1)}
    cal = world.true_calibration()
    assert during_bump
    for raw in during_bump:
        assert all(r == RAW_MIN for c, r in enumerate(raw) if c not in stores)
        for c in stores:
            assert cal[c].grams(raw[c]) == pytest.approx(-40000, rel=0.01)  # type: ignore[arg-type]
    assert after and all(RAW_MIN < r < RAW_MAX for raw in after for r in raw if r is not None)


def test_glitches_come_at_glitch_rate_and_are_wild() -> None:
    """SIMULATION.md: rare glitch samples (a bad read) at glitch_rate per sample."""
    rate = 0.005
    world = build_world(scenario(sensors={"glitch_rate": rate, "drift_g_per_min": 0}))
    cal = world.true_calibration()
    frames = 6000
    wild = 0
    for _ in range(frames):
        frame = world.step()
        glitched = {c for k, c in world.glitches if k == frame.seq}
        for c, raw in enumerate(frame.raw):
            assert raw is not None
            off = abs(cal[c].grams(raw) - (world.cell_load_g(c) - world.cup_mass_g(c)))
            if c in glitched:
                wild += off > 100
            else:
                assert off < 1.0
    expected = rate * frames * world.cell_count
    assert abs(len(world.glitches) - expected) < 4 * math.sqrt(expected)
    assert wild >= 0.95 * len(world.glitches)


def test_the_oscillator_is_loose_and_timestamps_jitter() -> None:
    """HARDWARE.md: the internal oscillator is loose; timestamp samples, never assume them."""
    rates = [build_world(scenario(sensors={"random_seed": s})).rate_sps for s in range(20)]
    assert all(abs(r / 80 - 1) <= OSCILLATOR_TOLERANCE for r in rates)
    assert len(set(rates)) == 20
    world = build_world(scenario())
    frames = [world.step() for _ in range(400)]
    gaps = [b.t - a.t for a, b in itertools.pairwise(frames)]
    assert all(g > 0 for g in gaps)
    assert statistics.mean(gaps) == pytest.approx(world.period, rel=1e-3)
    assert 0.0001 < statistics.pstdev(gaps) < 0.001
    assert [f.seq for f in frames] == list(range(1, 401))


def test_creep_follows_a_load_change_over_tens_of_seconds() -> None:
    """Load cells creep: a fraction of a per mille of the load, over ~20 s."""
    world = build_world(
        scenario(sensors=quiet(), actions=[{"t": 1.0, "action": "add", "at": [0, 3], "n": 100}])
    )
    samples = dict(trace(world, PIT, 80.0))
    times = sorted(samples)
    first = samples[next(t for t in times if t > 1.5)]
    last = samples[times[-1]]
    load = first  # about 540 g of seeds
    assert 0.00012 * load < last - first < 0.0003 * load


def test_drift_stays_within_drift_g_per_min() -> None:
    world = build_world(scenario(sensors=quiet(drift_g_per_min=0.05)))
    cal = world.true_calibration()
    start = world.step().raw
    while world.now < 600:
        frame = world.step()
    changes = [
        abs(cal[c].grams(b) - cal[c].grams(a))  # type: ignore[arg-type]
        for c, (a, b) in enumerate(zip(start, frame.raw, strict=True))
    ]
    assert max(changes) <= 0.05 * 10 + 0.01
    assert max(changes) > 0.02  # it does drift


def test_user_calibration_is_off_by_at_most_calibration_error() -> None:
    """SIMULATION.md: the controller starts with a calibration a user would have made, wrong
    by up to calibration_error per cell. The user tared the empty board, cups on."""
    world = build_world(scenario("congkak", sensors={"calibration_error": 0.02}))
    for user, true in zip(world.user_calibration(), world.true_calibration(), strict=True):
        assert abs(user.counts_per_g / true.counts_per_g - 1) <= 0.02
        assert abs(user.grams(true.offset)) < 0.5  # the zero is off by a little
    assert (
        len(
            {
                round(u.counts_per_g / t.counts_per_g, 6)
                for u, t in zip(world.user_calibration(), world.true_calibration(), strict=True)
            }
        )
        > 1
    )


@pytest.mark.parametrize("cv", [0.0, 0.03, 0.25])
def test_every_seed_has_its_own_mass(cv: float) -> None:
    """HARDWARE.md: glass marbles spread about 3 %, natural seeds 10-25 %."""
    world = build_world(scenario("congkak", options={"pits": 9}, sensors={"seed_cv": cv}))
    masses = [m for place in world.places for m in world.seed_masses(place)]
    assert len(masses) == 2 * 9 * 9
    assert statistics.mean(masses) == pytest.approx(5.4, rel=0.03)
    assert statistics.pstdev(masses) == pytest.approx(cv * 5.4, abs=0.02 * 5.4)
    assert min(masses) >= 0.2 * 5.4


def test_the_same_random_seed_gives_the_same_frames() -> None:
    """Benchmarks compare runs: a scenario must always give exactly the same frames."""
    moves, _ = random_game("kalah", 1)
    runs = []
    for seed in (7, 7, 8):
        sensors = {"glitch_rate": 0.01, "random_seed": seed}
        world = build_simulation(scenario(moves=moves[:6], sensors=sensors)).world
        runs.append([world.step() for _ in range(2000)])
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_sim_source_is_a_sample_source_that_ends_two_seconds_after_the_last_action() -> None:
    """SIMULATION.md: after the last action the simulation runs on for two seconds."""
    world = build_world(scenario(actions=[{"t": 1.0, "action": "grab", "at": [0, 1]}]))
    source = world.source()
    assert isinstance(source, SampleSource)
    assert source.cell_count == 14
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    assert world.now == pytest.approx(1.0 + GRAB_S + SETTLE_TAIL_S, abs=world.period)
    assert source.read() is None
    assert source.status().rate_sps == world.rate_sps


def test_an_endless_source_takes_actions_scheduled_while_it_runs() -> None:
    """The daemon's virtual hand: actions scheduled relative to now, while frames flow."""
    world = build_world(scenario())
    source = SimSource(world, endless=True)
    for _ in range(400):  # 5 s, beyond the finite end
        assert source.read() is not None
    now = world.now
    world.schedule([Action(0.5, "grab", at=Place(0, 1)), Action(1.2, "drop", at=Place(0, 2))])
    while world.now < now + 2.0:
        source.read()
    assert world.truth()["pits"][0][:3] == [3, 0, 4]
    assert world.truth()["hand"] == [2, 0]  # the default hand: player 0, to move
    assert world.log[0].t == pytest.approx(now + 0.5)


def test_dropping_from_an_empty_hand_is_logged_not_invented() -> None:
    world = build_world(scenario(actions=[{"t": 0.5, "action": "drop", "at": [0, 1], "n": 2}]))
    while not world.finished:
        world.step()
    assert world.truth()["pits"][0][1] == 3
    assert world.log[0].note == "hand 0 held only 0 of 2 seeds"


def test_buttons_are_reported_to_the_source() -> None:
    world = build_world(scenario(actions=[{"t": 0.5, "action": "button", "name": "undo"}]))
    source = world.source()
    while source.read() is not None:
        pass
    assert [(round(p.t, 3), p.name) for p in source.poll_buttons()] == [(0.5, "undo")]
    assert source.poll_buttons() == []


def test_the_same_board_has_the_same_cells_whatever_lies_on_it() -> None:
    """A calibration made on the board must still fit after a new game of another variant
    (the daemon rebuilds the simulated board then): the cells do not depend on the seeds."""
    from controller.sim import parse_scenario

    kalah = SimWorld(
        parse_scenario({"variant": "kalah", "board": "congkak7", "options": {"pits": 7}}, "a")
    )
    congkak = SimWorld(parse_scenario({"variant": "congkak", "board": "congkak7"}, "b"))
    assert kalah.user_calibration() == congkak.user_calibration()


def test_a_drop_while_the_same_hand_carries_seeds_cannot_take_them() -> None:
    """A hand carries a pit's seeds to the store (a `move`) and, from a move scheduled over
    it, drops a seed before they land: the drop finds the hand otherwise empty (noted in the
    log), the carried seeds land in the store, and no seed appears or vanishes. It used to
    take the carried seeds, and the landing's list.remove raised ValueError."""
    world = build_world(
        scenario(
            sensors=quiet(),
            actions=[
                {"t": 0.5, "action": "move", "from": [0, 3], "to": [0, "store"], "hand": 0},
                {"t": 0.5 + 0.3, "action": "drop", "at": [1, 1], "n": 1, "hand": 0},
            ],
        )
    )
    total = world.total_seeds()
    seeds = world.truth()["pits"][0][3]
    mid = None
    while not world.finished:
        world.step()
        if mid is None and world.now > 0.5 + 0.35:
            mid = world.truth()
    assert mid is not None and mid["hand"] == [seeds, 0]  # in flight, counted in the hand
    truth = world.truth()
    assert truth["stores"][0] == seeds and truth["pits"][0][3] == 0 and truth["hand"] == [0, 0]
    assert world.total_seeds() == total
    assert any("held only 0 of 1" in logged.note for logged in world.log)


def test_a_new_world_shares_the_noise_tables_instead_of_building_them() -> None:
    """The daemon builds a world at every new game, on its loop: two 65,536-entry tables a
    world were 25 ms of the loop's CPU a new game (its lag p99 under `bench fuzz`). Worlds
    with the same noise share one read-only table; another noise gets its own."""
    first, second = (build_world(scenario(sensors={"noise_g": 0.02})) for _ in range(2))
    other = build_world(scenario(sensors={"noise_g": 0.05}))

    assert first._noise is second._noise
    assert first._jitter is second._jitter
    assert other._noise is not first._noise
    assert other._noise[7] == pytest.approx(first._noise[7] * 2.5)
    with pytest.raises(TypeError):
        first._noise[0] = 0.0  # type: ignore[index]
