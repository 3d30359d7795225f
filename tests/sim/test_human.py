"""Human hands on the simulated board (SIMULATION.md "Human hands", controller/sim/human.py):
the touches that move no seed, a bouncing seed, and the behaviour profiles."""

from __future__ import annotations

import itertools
import random

import pytest

from controller.bench.humans import plan_game
from controller.physical import PROFILE_NAMES
from controller.rules import Place
from controller.sim import ScenarioError, build_simulation, build_world
from controller.sim.human import AFTER_SEED_S, BEFORE_SEED_S, PROFILES, _seed_events
from controller.sim.scenario import Action

from .helpers import position_json, quiet, random_game, scenario, trace

PIT = Place(0, 3)


def _level(samples: list[tuple[float, float]], t0: float, t1: float) -> float:
    values = [g for t, g in samples if t0 <= t <= t1]
    return sum(values) / len(values)


@pytest.mark.parametrize(
    ("action", "loaded"),
    [
        ({"action": "rest", "at": [0, 3], "g": 120, "dur": 1.0, "ramp_s": 0.2}, 120.0),
        ({"action": "brush", "at": [0, 3], "g": 40, "dur": 0.06}, None),
    ],
)
def test_a_rest_or_a_brush_weighs_while_it_lasts_and_leaves_the_seeds_as_they_were(
    action: dict[str, object], loaded: float | None
) -> None:
    world = build_world(scenario(sensors=quiet(), actions=[{"t": 1.0, **action}]))
    seeds = sum(world.seed_masses(PIT))
    count = len(world.seed_masses(PIT))
    samples = trace(world, PIT, 4.5)
    assert _level(samples, 0.5, 0.9) == pytest.approx(seeds, abs=0.05)
    if loaded is not None:  # settled on the cup: after the ramp, before the lift-off
        assert _level(samples, 1.45, 1.9) == pytest.approx(seeds + loaded, abs=0.5)
    else:  # a brush is over in tens of milliseconds: it raised some samples, briefly
        assert max(g for t, g in samples if 1.0 <= t <= 1.2) > seeds + 5
    assert _level(samples, 3.5, 4.5) == pytest.approx(seeds, abs=0.05)
    assert world.truth()["pits"][0][3] == count


def test_a_lean_shares_its_weight_over_its_cells_and_goes_away_again() -> None:
    places = [Place(1, 0), Place(1, 1), Place(1, 2)]
    world = build_world(
        scenario(
            sensors=quiet(),
            actions=[
                {
                    "t": 1.0,
                    "action": "lean",
                    "at": [p.to_json() for p in places],
                    "g": 600,
                    "dur": 2.0,
                }
            ],
        )
    )
    cal = world.true_calibration()
    before = after = during = 0.0
    while world.now < 5.0:
        frame = world.step()
        total = sum(
            cal[world.cell_of[p]].grams(frame.raw[world.cell_of[p]])
            for p in places  # type: ignore[arg-type]
        )
        if 0.5 <= world.now < 0.6:
            before = total
        if 2.0 <= world.now < 2.1:
            during = total
        if 4.5 <= world.now < 4.6:
            after = total
    assert during - before == pytest.approx(600, abs=2)
    assert after == pytest.approx(before, abs=0.1)


def test_a_bouncing_seed_strikes_one_cup_and_stays_in_the_next() -> None:
    world = build_world(
        scenario(
            sensors=quiet(),
            actions=[
                {"t": 1.0, "action": "grab", "at": [0, 0]},
                {"t": 1.6, "action": "bounce", "at": [0, 1], "to": [0, 2]},
            ],
        )
    )
    samples = trace(world, Place(0, 1), 3.5)
    seed = world.seed_mean_g
    peak = max(g for t, g in samples if 1.6 <= t <= 1.7)
    base = _level(samples, 0.5, 0.9)
    assert peak > base + seed  # the strike weighs more than the seed ...
    assert _level(samples, 3.0, 3.5) == pytest.approx(base, abs=0.05)  # ... which did not stay
    truth = world.truth()
    assert truth["pits"][0][:3] == [0, 3, 4] and truth["hand"][world.default_hand] == 2
    assert [landing.place for landing in world.landings] == [Place(0, 2)]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"action": "lean", "at": [0, 1], "g": 100, "dur": 1}, "actions[0].at: expected a list"),
        ({"action": "lean", "at": [[0, 1], [0, 1]], "g": 100, "dur": 1}, "names a place twice"),
        ({"action": "rest", "at": [0, 1], "g": 0, "dur": 1}, "actions[0].g: 0 is not allowed"),
        ({"action": "rest", "at": [0, 1], "g": 10}, "actions[0].dur: is missing"),
        ({"action": "brush", "at": [0, 1], "g": 10, "dur": 3}, "actions[0].dur: 3 is not allowed"),
        ({"action": "bounce", "at": [0, 1], "to": [0, 1]}, "actions[0].to: [0, 1] is the same"),
        ({"action": "rest", "at": [0, 1], "g": 5, "dur": 1, "ramp_s": -1}, "ramp_s: -1 is not"),
    ],
)
def test_bad_human_actions_name_the_field(action: dict[str, object], message: str) -> None:
    with pytest.raises(ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")):
        scenario(actions=[{"t": 1.0, **action}])


def test_an_unknown_profile_is_refused_with_the_ones_there_are() -> None:
    with pytest.raises(
        ScenarioError, match=r'player\.profile: "toddler" is not a profile, allowed'
    ):
        scenario(player={"profile": "toddler"})


def test_human_actions_write_back_as_they_were_read() -> None:
    raw = [
        {"t": 1.0, "action": "rest", "at": [0, 1], "g": 30.0, "dur": 2.0, "ramp_s": 0.2},
        {"t": 2.0, "action": "lean", "at": [[1, 0], [1, "store"]], "g": 300.0, "dur": 1.0},
        {"t": 3.0, "action": "brush", "at": [0, 2], "g": 20.0, "dur": 0.05},
        {"t": 4.0, "action": "bounce", "at": [0, 2], "to": [0, 3]},
    ]
    actions = scenario(actions=raw).actions
    assert [a.to_json() for a in actions] == raw


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_person_of_every_profile_plays_a_whole_game_to_the_rules_position(profile: str) -> None:
    """Touches move no seed: after a person's whole game, with every rest, lean, brush, knock
    and two-handed pickup, the seeds lie where the rules engine says."""
    moves, game = random_game("kalah", seed=11)
    simulation = build_simulation(
        scenario(sensors=quiet(), player={"profile": profile}, moves=moves)
    )
    world = simulation.world
    while not world.finished:
        world.step()
    truth = world.truth()
    assert {"pits": truth["pits"], "stores": truth["stores"]} == position_json(game)
    assert truth["hand"] == [0, 0]
    kinds = {entry.action.kind for entry in world.log}
    assert {"grab", "drop"} <= kinds


def _touches(profile: str, seed: int) -> tuple[list[Action], list[Action]]:
    simulation = build_simulation(
        scenario(player={"profile": profile}, sensors={"random_seed": seed})
    )
    plan_game(simulation.player, random.Random(seed), with_mistakes=False)
    return simulation.player.actions, simulation.player.touches()


def test_touches_keep_out_of_the_moments_a_seed_arrives_at_or_leaves_their_cup() -> None:
    seen: set[str] = set()
    for profile in ("child", "visitor"):
        for seed in (1, 2):
            actions, touches = _touches(profile, seed)
            seen.update(t.kind for t in touches)
            events = [e for a in actions for e in _seed_events(a)]
            for touch in touches:
                places = touch.places or ((touch.at,) if touch.at is not None else ())
                end = touch.t + touch.dur + 2 * touch.ramp
                for place, a, b in events:
                    if place in places:
                        assert end <= a - BEFORE_SEED_S + 1e-9 or touch.t >= b + AFTER_SEED_S - 1e-9
    assert {"rest", "lean"} <= seen


def test_the_same_random_seed_gives_the_same_person() -> None:
    first = [a.to_json() for a in [*_touches("visitor", 5)[0], *_touches("visitor", 5)[1]]]
    again = [a.to_json() for a in [*_touches("visitor", 5)[0], *_touches("visitor", 5)[1]]]
    other = [a.to_json() for a in [*_touches("visitor", 6)[0], *_touches("visitor", 6)[1]]]
    assert first == again != other


def test_the_profiles_are_the_ones_scenario_files_may_name() -> None:
    assert tuple(PROFILES) == PROFILE_NAMES


def test_profiles_span_the_tempos_and_pauses_people_have() -> None:
    """0.08 to 2 s a seed across the profiles, pauses mid-sowing up to 20 s, rests of 10 to
    300 g for 0.2 to 10 s (the issue's ranges)."""
    tempos = [t for p in PROFILES.values() for t in p.tempo_s]
    assert min(tempos) == 0.08 and max(tempos) == 2.0
    assert max(p.pause_s[1] for p in PROFILES.values()) == 20.0
    assert max(p.rest_g[1] for p in PROFILES.values()) == 300.0
    assert min(p.rest_s[0] for p in PROFILES.values()) == 0.2
    assert max(p.rest_s[1] for p in PROFILES.values()) == 10.0


def test_a_full_pit_is_sometimes_lifted_in_two_handfuls_and_ends_in_the_hand() -> None:
    actions, _ = _touches("child", 3)
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(actions)
        if a.kind == "take" and b.kind == "grab" and a.at == b.at
    ]
    assert pairs, "a child lifts some big pit in two handfuls"
