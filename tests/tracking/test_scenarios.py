"""Scenario files (tests/scenarios/): the referee on the simulated board, end to end.

Each scenario is a SIMULATION.md scenario file. For the rule cases the recognised steps must be
exactly the rules engine's step list of the moves (RULES.md 2) and the final belief the truth;
for the flag cases, one flag of the named kind at the named place, and once the hands have put
things right, the game goes on to the same belief as the truth.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.rules import Game, Place, Step, StepKind
from controller.sim import build_simulation, load_scenario, parse_scenario
from controller.sim.world import GRAB_S
from controller.simulate import report, run_simulation
from controller.tracking import hypotheses
from controller.tracking.hypotheses import Tracker
from controller.tracking.session import start_referee
from controller.tracking.verdicts import RecognisedStep

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

# (scenario, what the rule case must show in the engine's steps of its moves)
RULE_CASES = {
    "congkak_relay": lambda steps: sum(s.kind is StepKind.PICKUP for s in steps) == 2,
    "congkak_extra_turn": lambda steps: any(s.kind is StepKind.EXTRA_TURN for s in steps),
    "congkak_capture_empty_opposite": lambda steps: (
        sum(s.kind is StepKind.CAPTURE for s in steps[-4:]) == 1
    ),
    "kalah_capture_full_opposite": lambda steps: (
        sum(s.kind is StepKind.CAPTURE for s in steps[-4:]) == 2
    ),
    "congkak_pass": lambda steps: any(s.kind is StepKind.PASS for s in steps),
    "kalah_end_sweep": lambda steps: any(s.kind is StepKind.SWEEP for s in steps),
    "oware_lap_of_twelve": lambda steps: True,
    "oware_grand_slam": lambda steps: True,
}


def _run(name: str) -> tuple[dict[str, Any], Any]:
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    return report(simulation, referee), simulation


def _physical_in_order(steps: list[Step]) -> list[tuple[str, int, Any]]:
    """Physical steps; the captures of one move (or sweeps of one end) may come in any order."""
    out: list[tuple[str, int, Any]] = []
    group: list[tuple[str, int, Any]] = []
    for step in steps:
        if not step.kind.physical:
            continue
        item = (step.kind.value, step.player, tuple(step.at) if step.at else None)
        if step.kind in (StepKind.CAPTURE, StepKind.SWEEP):
            group.append(item)
            continue
        out.extend(sorted(group, key=repr))
        group = []
        out.append(item)
    return out + sorted(group, key=repr)


def _same_as_truth(result: dict[str, Any]) -> None:
    for key in ("pits", "stores", "hand"):
        assert result["belief"][key] == result["truth"][key], key


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rule_case_scenarios_are_followed_step_by_step(name: str) -> None:
    result, simulation = _run(name)
    scenario = simulation.scenario
    game = Game(scenario.variant, scenario.options)
    expected: list[Step] = []
    for pit in scenario.moves:
        expected.extend(game.steps(pit))
        game.play(pit)
    assert RULE_CASES[name](expected), "the scenario no longer shows its rule case"
    recognised = [Step.from_json(s) for s in result["steps"]]
    assert _physical_in_order(recognised) == _physical_in_order(expected)
    assert result["flags"] == []
    _same_as_truth(result)
    position = game.position().to_json()
    for key in ("to_move", "over", "winner"):
        assert result["belief"][key] == position[key]


FLAG_CASES = {
    "flag_wrong_pit": ("wrong_pit", [0, 5], [[0, 4]]),
    "flag_extra_seed": ("extra_seed", [0, 3], [[0, 4]]),
    "flag_opponent_store": ("opponent_store", [1, "store"], [[0, "store"]]),
    "flag_wrong_start": ("wrong_start", [1, 0], None),
    "flag_not_all_lifted": ("not_all_lifted", [0, 2], None),
    "flag_foreign_seed": ("foreign_seed", [1, 3], None),
}


@pytest.mark.parametrize("name", sorted(FLAG_CASES))
def test_each_mistake_is_flagged_once_at_its_place_and_play_goes_on(name: str) -> None:
    kind, at, expected = FLAG_CASES[name]
    result, simulation = _run(name)
    flags = result["flags"]
    assert [(f["kind"], f["at"]) for f in flags] == [(kind, at)]
    if expected is not None:
        assert flags[0]["expected"] == expected
    assert "resolved_t" in flags[0], "the hands put it right, so the flag must clear"
    mistake_t = min(a.t for a in simulation.scenario.actions)
    assert flags[0]["t"] - mistake_t < 1.5
    _same_as_truth(result)


# A seed falls off the board as the hand sows: the next seed lands a place on, and the hand puts
# a spare where the lost one should have gone. Second in its lap, after the hand's first seed
# came a beat after it lifted the pit: the gap of two beats before the next tells it at once.
# First in its lap, with no beat to go by, the spare tells it; and where the gap was a beat and a
# quarter (the hand slowed), the likelier a wrong pit by the beat. First in a later move, the
# hand's beat in its last move goes for the lift to that seed: the next seed 1.4 s after the lift
# and its 0.2 s, where the hand sowed a seed each 0.5 s, tells it at once.
LOST_SEED_CASES = {
    "flag_seed_lost_spare": ("at once", [0, 3], [0, 4], 3),
    "flag_seed_lost_spare_10sps": ("at once", [0, 3], [0, 4], 3),
    "flag_seed_lost_first_spare": ("by the spare", [0, 2], [0, 3], 2),
    "flag_seed_lost_first_of_a_move_spare": ("at once", [0, 1], [0, 2], 3),
    "flag_seed_lost_spare_slow_beat": ("by the spare", [0, 3], [0, 4], 3),
}


@pytest.mark.parametrize("name", sorted(LOST_SEED_CASES))
def test_a_lost_seed_is_put_right_by_a_spare_in_the_gap(name: str) -> None:
    """Seen as the next seed a place on, flagged at once; the spare in the gap puts it right
    and the game goes on with that seed as the next sow. Where the hand's beat does not tell
    it, the weights alone cannot tell a seed lost and a spare put in from a pit skipped and
    the spare the hand's next seed: the flag names the seed in the wrong pit first. But that
    hand would have sown on past its red light, and a person puts right what the light shows
    first (`_unheeded_step`): the flag names a seed lost at the gap as the spare comes, where
    the seed belonged, on a tie too (its light goes out then: the name no longer flickers)."""
    told, gap, next_place, sows = LOST_SEED_CASES[name]
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    result = report(simulation, referee)
    flags = result["flags"]
    assert [(f["kind"], f["at"], f["expected"]) for f in flags] == [("seed_lost", gap, [gap])]
    actions = simulation.scenario.actions
    lost_t = next(a.t for a in actions if a.kind == "drop_off")
    sown_on = next(
        a.t for a in actions if a.kind == "drop" and a.at == Place(*next_place) and a.t > lost_t
    )
    spare = next(a.t for a in actions if a.kind == "add")
    flag = referee.flags[0]
    assert flag.t - sown_on < 1.0 and flag.shown_t is not None and flag.shown_t - sown_on < 1.0
    if told == "at once":
        assert flag.named_t is None  # (named a seed lost when raised)
    else:
        assert flag.named_t is not None and 0 < flag.named_t - spare < 0.5
    assert 0 < flags[0]["resolved_t"] - spare < 0.5
    last_grab = max(k for k, a in enumerate(actions) if a.kind == "grab")
    earlier = [{"grab": "pickup", "drop": "sow"}[a.kind] for a in actions[:last_grab]]
    assert [s["step"] for s in result["steps"]] == [*earlier, "pickup", *["sow"] * sows]
    _same_as_truth(result)


def test_a_palm_settling_slowly_between_moves_is_no_foreign_seed() -> None:
    """Bench humans game 3 (adult, congkak, 10 SPS, natural seeds) to just after a palm of
    10.8 g (two seeds' weight) settled over 0.3 s on a pit between moves: weighed at its early
    level it read 1.86 seeds, a heavy seed from outside the game. The level is re-taken first."""
    result, _ = _run("humans_congkak_10sps_palm_between_moves")
    assert result["flags"] == []
    _same_as_truth(result)


def test_a_palm_settling_slowly_on_a_store_while_sowing_is_no_seed_there() -> None:
    """Bench humans game 12 (adult, kalah, 10 SPS, natural seeds, with mistakes) to just after
    a palm of 10.2 g settled on a store as the hand sowed on: weighed at its early level it
    read 1.58 seeds, and was flagged as a seed in the wrong place. The two mistakes before
    it are still flagged, each where it was made."""
    result, _ = _run("humans_kalah_10sps_palm_on_the_store_while_sowing")
    assert [(f["kind"], f["at"]) for f in result["flags"]] == [
        ("wrong_pit", [1, 5]),
        ("extra_seed", [0, "store"]),
    ]
    _same_as_truth(result)


def test_a_finger_resting_a_press_and_a_knock_are_not_steps() -> None:
    """SIMULATION.md: a finger on a cup, a hand pressing, the table knocked: no step, no flag."""
    result, _ = _run("press_and_knock_are_not_steps")
    assert result["flags"] == []
    assert [s["step"] for s in result["steps"]] == ["pickup", "sow", "sow", "sow"]
    _same_as_truth(result)


def test_latency_from_landing_to_the_next_place_lit() -> None:
    """Issue 3 target: at 80 SPS the next place lights within tens of milliseconds."""
    result, _ = _run("oware_lap_of_twelve")
    latency = result["latency_ms"]
    assert latency["n"] > 30
    assert latency["p99"] <= 80.0


def test_report_has_every_field_of_simulation_md() -> None:
    result, _ = _run("congkak_relay")
    # (and the game's record, which issue 16 added to the report)
    assert set(result) == {"truth", "belief", "steps", "flags", "latency_ms", "record"}
    assert set(result["belief"]) == {"pits", "stores", "hand", "to_move", "over", "winner"}
    assert set(result["latency_ms"]) == {"n", "p50", "p99", "max"}
    assert all({"t", "player", "step"} <= set(s) for s in result["steps"])
    assert Place(0, 0).to_json() == [0, 0]


def test_simultaneous_opening_two_hands_on_one_board() -> None:
    """RULES.md 3, congkak local rule 「同時進行」: both hands sow at once, each by its own rules
    on the shared board; the referee follows both and then the player who finished last."""
    result, simulation = _run("congkak_simultaneous_opening")
    assert result["flags"] == []
    _same_as_truth(result)
    players = {s["player"] for s in result["steps"]}
    assert players == {0, 1}
    pickups = [s for s in result["steps"] if s["step"] == "pickup"]
    assert {tuple(p["at"]) for p in pickups[:2]} == {(0, 3), (1, 2)}
    game_after = simulation.player.game
    assert result["belief"]["to_move"] == game_after.to_move


def _together(simulation: Any, within_s: float) -> set[tuple[str, str]]:
    """What the two hands did at one cup within `within_s` of each other: (first action,
    second action), e.g. ("drop", "drop") or ("grab", "drop")."""
    actions = [(a.t, a.action.to_json()) for a in simulation.world.log]
    out: set[tuple[str, str]] = set()
    for k, (t, first) in enumerate(actions):
        at = first.get("at", first.get("from"))
        for t2, second in actions[k + 1 :]:
            if t2 - t > within_s:
                break
            if second.get("at", second.get("from")) == at and second["hand"] != first["hand"]:
                out.add((first["action"], second["action"]))
    return out


# (scenario, what the hands do at one cup that weights cannot order)
ORDER_CASES = {
    # Hand 1's last seed lands in its empty pit 10 ms before hand 0's seed: a capture (of
    # both seeds), not a relay. Which came first shows only in what hand 1 does next.
    "congkak_simultaneous_capture_or_relay": ("drop", "drop"),
    # Hand 0's seed falls into the pit hand 1 is lifting (1 ms after the grab began) and
    # goes with the rest: the lift nets the same as if that seed were still to come.
    "congkak_simultaneous_seed_taken_along": ("grab", "drop"),
    # Hand 1's seed lands where hand 0's last seed just made a capture, and hand 0 takes
    # both: nothing after says so but that hand 1 then rests with no seed left to sow.
    "congkak_simultaneous_capture_takes_other_seed": ("drop", "move"),
    # Hand 1's last seed lands in its empty pit a moment after hand 0's (an order to answer
    # again), and hand 0's next seed falls into that pit while hand 1's capture presses on
    # it: it goes to hand 1's store with the capture, though the cup never weighed it.
    "congkak_simultaneous_seed_into_a_capture": ("move", "drop"),
}


@pytest.mark.parametrize("name", sorted(ORDER_CASES))
def test_whose_seed_came_first_is_told_by_what_the_hands_do_next(name: str) -> None:
    """RULES.md 3, `simultaneous_opening`: each hand sows by its own rules "as the seeds
    actually fall". Where two hands act on one cup too close together for the weights to
    order, the referee keeps both orders among its explanations until the hands show which
    (hypotheses.py): no flag, and the belief ends as the truth."""
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    assert ORDER_CASES[name] in _together(simulation, 0.35), "the case is gone"
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


# (scenario, what the hands did at one cup and within how long, where, the steps there)
AT_ONE_CUP: dict[str, tuple[tuple[str, str], float, Place, list[tuple[int, StepKind]]]] = {
    # RULES.md 3.3 (relay): hand 1 lifts [0, 0] to sow on, and hand 0's seed falls in 0.29 s
    # after the grab began; at 10 SPS one reading shows the cup go from six seeds to one.
    # That is the pit taken and hand 0's seed in it, not a lift that left a seed behind (the
    # likelier answer; a replay could change it).
    "congkak_simultaneous_lift_then_other_seed_10sps": (
        ("grab", "drop"),
        0.35,
        Place(0, 0),
        [(1, StepKind.PICKUP), (0, StepKind.SOW)],
    ),
    # RULES.md 3.4 (capture): hand 0's last seed and hand 1's seed fall into [0, 1] 5 ms
    # apart, and hand 0 takes both to its store while hand 1 sows [0, 2]. At 10 SPS the cup
    # never settles until the capture has lifted it; hand 1's seed in [0, 2] waits for it
    # (it is not a seed in the wrong place): hand 1's seed went with the capture.
    "congkak_simultaneous_both_seeds_captured_10sps": (
        ("drop", "drop"),
        0.01,
        Place(0, 1),
        [(0, StepKind.SOW), (1, StepKind.SOW), (0, StepKind.CAPTURE)],
    ),
    # The same at 80 SPS and 8 seeds a second: hand 1's seed falls 71 ms after hand 0's
    # last seed, and the capture's grab lets the two seeds go 0.1 s apart. The cup settles
    # for a moment at one seed in between: that is the lift under way (not the capture of
    # one seed with hand 1's seed after it), which the lift of the second seed shows.
    "congkak_simultaneous_capture_lifts_both_seeds": (
        ("drop", "drop"),
        0.08,
        Place(0, 1),
        [(0, StepKind.SOW), (1, StepKind.SOW), (0, StepKind.CAPTURE)],
    ),
}


@pytest.mark.parametrize("name", sorted(AT_ONE_CUP))
def test_two_hands_at_one_cup_within_one_reading(name: str) -> None:
    """RULES.md `simultaneous_opening`: what two hands did at one cup, too fast for the cup to
    settle in between, is told apart: the steps there in order, no flag, the truth."""
    together, within, place, steps = AT_ONE_CUP[name]
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    assert together in _together(simulation, within), "the case is gone"
    result = report(simulation, referee)
    assert result["flags"] == []
    at_cup = [(r.step.player, r.step.kind) for r in referee.steps if r.step.at == place]
    assert any(at_cup[i : i + len(steps)] == steps for i in range(len(at_cup))), at_cup
    _same_as_truth(result)


def test_a_last_seed_taken_on_to_the_store_before_its_cup_settled() -> None:
    """RULES.md 3.4 (capture): hand 0's last seed falls in its empty pit [0, 4] and the hand
    moves it to its store 87 ms later, before the cup settled in between (8 seeds a second,
    80 SPS; the other hand still at work). The store's seed arrives before the opposite pit
    is lifted: it is that capture, not a seed sown in the wrong place."""
    name = "congkak_simultaneous_landing_carried_at_once"
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    log = [(a.t, a.action.to_json()) for a in simulation.world.log]
    (landed,) = [t for t, a in log if a["action"] == "drop" and a["at"] == [0, 4] and t > 9]
    (moved,) = [t for t, a in log if a["action"] == "move" and a["from"] == [0, 4]]
    assert moved - landed < 0.1, "the case is gone"
    result = report(simulation, referee)
    assert result["flags"] == []
    last = [r.step for r in referee.steps if r.step.player == 0][-3:]
    assert [(s.kind, s.at) for s in last] == [
        (StepKind.SOW, Place(0, 4)),
        (StepKind.CAPTURE, Place(0, 4)),
        (StepKind.CAPTURE, Place(1, 0)),
    ]
    _same_as_truth(result)


def _exact_without_a_flag(name: str) -> None:
    """Run a simultaneous opening's scenario: no flag, the belief ends as the truth."""
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


# Simultaneous openings where whose seed fell at a cup is told only later, by what the hands do
# next: one answer changed and then two at once (a flag taken back); both hands at an
# expert's 8 seeds a second meeting in the same cups (80 SPS), told apart by their tempo; hands
# taken for each other in a 7-pit opening at 10 SPS, every answer from there on the other way.
LATE_ORDERS = [
    "congkak_simultaneous_two_answers_at_once",
    "congkak_simultaneous_convoy_by_tempo",
    "congkak7_simultaneous_hands_swapped_10sps",
]


@pytest.mark.parametrize("name", LATE_ORDERS)
def test_an_order_told_only_later_ends_exact_without_a_flag(name: str) -> None:
    """RULES.md `simultaneous_opening`: the explanations that take the hands the other way
    stay in the search until the hands tell them apart."""
    _exact_without_a_flag(name)


# 7 pits, 10 SPS, 0.25 s a seed (the daemon's simulated board, at the slower rate): where
# one hand captures and the other sows through the same cups.
CAPTURE_CASES = {
    # Hand 0 relays from [1, 3]; hand 1's last seed falls in the emptied pit and its capture
    # takes it to the store 0.18 s later. The cup was moving from the relay's grab on for a
    # second: it moved lately for as long as it moved, not since it began.
    "congkak7_simultaneous_capture_carried_after_a_relay_10sps": ("grab", "move"),
    # Hand 1's last seed lands in [1, 3] and its capture grabs it before the landing settles;
    # hand 0's seed falls in after the lift. The cup ends one seed up, as if only hand 1's
    # seed had landed, but a hand pressed on it: the seed, the capture, the other seed.
    "congkak7_simultaneous_capture_then_other_seed_10sps": ("move", "drop"),
    # Hand 1's capture of [0, 3] ends its move; hand 0's seed falls in after the lift. That
    # seed is hand 0's sow even though the taking hand is done (not a seed left behind).
    "congkak7_simultaneous_seed_after_a_last_capture_10sps": ("move", "drop"),
    # Hand 0's last seed in its empty pit [0, 3], its capture, hand 1's seed after the lift:
    # the grab's press settled for a moment on its own (a level of 3.7 seeds) before the lift.
    "congkak7_simultaneous_capture_press_settles_10sps": ("move", "drop"),
    # The same, with the grab's press read at 10 SPS as little more than one seed above the
    # seed left in the cup (a reading averages 100 ms).
    "congkak7_simultaneous_capture_light_press_10sps": ("move", "drop"),
}


@pytest.mark.parametrize("name", sorted(CAPTURE_CASES))
def test_a_capture_amid_the_other_hands_sowing(name: str) -> None:
    """RULES.md 3.4 (capture) and `simultaneous_opening`: no flag, the belief ends as the
    truth."""
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    assert CAPTURE_CASES[name] in _together(simulation, 0.8), "the case is gone"
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


def test_a_relay_from_the_pit_the_other_hand_must_capture() -> None:
    """RULES.md 3.4 (capture: that seed and everything in the opposite pit) and
    `simultaneous_opening`: hand 0's last seed falls in its empty pit [0, 0], so it must
    capture the opposite pit [1, 6]; hand 1's last seed falls in [1, 6] (not empty: a relay)
    and hand 1 lifts it first. The lift is hand 1's relay, and hand 0's capture takes only its
    own seed (the follower drops a capture of a pit the other hand emptied)."""
    name = "congkak7_simultaneous_relay_from_a_pit_to_capture_10sps"
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    log = [(a.t, a.action.to_json()) for a in simulation.world.log]
    grabs = [t for t, a in log if a["action"] == "grab" and a["at"] == [1, 6] and a["hand"] == 1]
    moves = [t for t, a in log if a["action"] == "move" and a["from"] == [0, 0]]
    assert any(0 < m - g < 0.1 for g in grabs for m in moves), "the case is gone"
    result = report(simulation, referee)
    assert result["flags"] == []
    at_cup = [(r.step.player, r.step.kind) for r in referee.steps if r.step.at == Place(1, 6)]
    assert (1, StepKind.PICKUP) in at_cup and (0, StepKind.CAPTURE) not in at_cup
    _same_as_truth(result)


def test_a_relay_pit_re_zeroed_as_its_level_settles_is_no_lift_of_its_own() -> None:
    """Issue 3, zero tracking: at 10 SPS hand 1's relay lift of [0, 3] settles early on the
    loads recovered from the readings, a third of a seed high, and the pit is re-zeroed at
    once (it is known empty). The readings that follow take the rest of the way as that same
    level, not as a third of a seed lifted from an empty pit (a wrong pickup)."""
    name = "congkak7_simultaneous_relay_settles_early_10sps"
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    log = [(a.t, a.action.to_json()) for a in simulation.world.log]
    assert any(a["action"] == "grab" and a["at"] == [0, 3] and t > 28 for t, a in log), (
        "the case is gone"
    )
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


def _press_on_the_next_cup(rate: int, grams: float) -> dict[str, Any]:
    """Kalah: pit [0, 2] (4 seeds) is lifted and sown; while [0, 4] is due, a finger rests on
    it with `grams` for a second, and then the hand sows on."""
    return {
        "variant": "kalah",
        "sensors": {"random_seed": 5, "rate_sps": rate},
        "actions": [
            {"t": 1.0, "action": "grab", "at": [0, 2]},
            {"t": 1.6, "action": "drop", "at": [0, 3]},
            {"t": 2.5, "action": "press", "at": [0, 4], "g": grams, "dur": 1.0},
            {"t": 4.3, "action": "drop", "at": [0, 4]},
            {"t": 4.7, "action": "drop", "at": [0, 5]},
        ],
    }


def _palm_on_the_next_cup(random_seed: int, after_s: float, grams: float) -> dict[str, Any]:
    """Kalah at 10 SPS: pit [0, 2] is lifted and sown; `after_s` after the seed in [0, 3] a
    palm of `grams` comes to rest on [0, 4], the cup due next, and lifts 1.9 s later; then
    the hand sows on there (bench humans games 276 and 555: a visitor's palm)."""
    return {
        "variant": "kalah",
        "sensors": {"random_seed": random_seed, "rate_sps": 10},
        "actions": [
            {"t": 1.0, "action": "grab", "at": [0, 2]},
            {"t": 1.6, "action": "drop", "at": [0, 3]},
            {
                "t": 1.6 + after_s,
                "action": "rest",
                "at": [0, 4],
                "g": grams,
                "dur": 1.9,
                "ramp_s": 0.05,
            },
            {"t": 4.3, "action": "drop", "at": [0, 4]},
            {"t": 4.7, "action": "drop", "at": [0, 5]},
        ],
    }


@pytest.mark.parametrize(
    ("random_seed", "after_s", "grams"),
    [(1, 0.1, 60.0), (1, 0.1, 100.0), (2, 0.2, 60.0), (4, 0.2, 100.0), (5, 0.1, 60.0)],
)
def test_a_palm_on_the_cup_due_next_is_no_seed_under_a_palm(
    random_seed: int, after_s: float, grams: float
) -> None:
    """A palm that comes to the cup a hand's next seed is due in, right after its last seed,
    is a touch: it weighs more than seeds slipping together could (NEXT_CUP_SEEDS). Priced as
    if it might be seeds, it was read as the hand's seed under a palm (which that prior does
    not price), and as it lifted, a wrong pickup: 11 of 30 such palms (5 random seeds, 0.1 to
    0.4 s after the seed, 60 and 100 g)."""
    scenario = parse_scenario(_palm_on_the_next_cup(random_seed, after_s, grams), "palm")
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
def test_a_finger_weighing_one_seed_on_the_next_cup_is_that_seed_taken_out_when_it_lifts(
    rate: int,
) -> None:
    """A press on the expected cup that weighs just what a seed weighs (5.4 g: lighter than any
    finger SIMULATION.md's hands rest with) is the seed while it rests, as nothing on the
    cups tells them apart; when it lifts, it is that seed taken out again, flagged until the
    hand's seed comes, and the belief ends exact. (The cases undid the sow without a word:
    a seed sown and taken out again went unflagged with it.)"""
    scenario = parse_scenario(_press_on_the_next_cup(rate, 5.4), "press")
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert [(f["kind"], f["at"]) for f in result["flags"]] == [("wrong_pickup", [0, 4])]
    flag = result["flags"][0]
    assert 3.5 <= flag["t"] < 4.3 and 4.3 < flag["resolved_t"] < 4.8
    steps = [(s["step"], s.get("at")) for s in result["steps"]]
    assert steps == [("pickup", [0, 2]), ("sow", [0, 3]), ("sow", [0, 4]), ("sow", [0, 5])]
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
def test_the_journal_is_told_which_steps_were_taken_back(rate: int) -> None:
    """A press of two seeds' weight on the expected cup may be the seed landing (and one more
    at 10 SPS); the sow taken on it is undone when it lifts. Whoever journals the steps is
    told so by `changes` (how many of its steps still stand), not left to compare step
    objects: a journal kept from those answers alone takes back that sow."""
    scenario = parse_scenario(_press_on_the_next_cup(rate, 10.8), "press")
    journal, taken_back, referee = _journal_from_changes(scenario)
    assert [str(r.step) for r in taken_back] == ["sow([0, 4]) by 0"]
    assert journal == referee.steps


# (The open cases too: test_open_cases.py pins what they should flag, as strict xfails.)
JOURNALED = sorted([*SCENARIOS.glob("*.json"), *SCENARIOS.glob("open/*.json")])


@pytest.mark.parametrize("path", JOURNALED, ids=lambda p: p.stem)
def test_a_journal_kept_from_the_referees_changes_ends_with_its_steps(path: Path) -> None:
    """Every scenario: explanations that took steps overtaken by others, and the journal told
    each time which steps still stand. (Without those answers, a guess undone and a step
    taken in one frame, or another order adopted, left twelve of these journals other than
    the referee's steps.)"""
    journal, _, referee = _journal_from_changes(load_scenario(path))
    assert [(r.t, r.step) for r in journal] == [(r.t, r.step) for r in referee.steps]


def _journal_from_changes(
    scenario: Any,
) -> tuple[list[RecognisedStep], list[RecognisedStep], Tracker]:
    """The referee over a scenario's frames, a journal kept as the daemon keeps it: after
    each frame, `changes` says how many of its steps stand and which come after."""
    simulation = build_simulation(scenario)
    world, source = simulation.world, simulation.source()
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, world.nominal_rate_sps)
    journal: list[RecognisedStep] = []
    taken_back: list[RecognisedStep] = []
    while (frame := source.read(None)) is not None:
        referee.process(frame)
        keep, new = referee.changes(len(journal))
        taken_back += journal[keep:]
        journal[keep:] = new
    return journal, taken_back, referee


def test_a_finger_weighing_two_seeds_at_10_sps_is_an_extra_seed_until_it_lifts() -> None:
    """At 10 SPS two seeds' weight on the expected cup is what two seeds landing look like
    (a reading averages their strike away): flagged as an extra seed while it rests, cleared
    when it lifts, and the belief ends exact."""
    scenario = parse_scenario(_press_on_the_next_cup(10, 10.8), "press")
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert [(f["kind"], f["at"]) for f in result["flags"]] == [("extra_seed", [0, 4])]
    flag = result["flags"][0]
    assert 2.5 < flag["t"] < 3.5 and 3.5 < flag["resolved_t"] < 4.3
    _same_as_truth(result)


def test_a_finger_weighing_two_seeds_at_80_sps_is_no_seed() -> None:
    """At 80 SPS seeds let go strike the cup (LET_GO_RING) and a finger settles on it: two
    seeds' weight that did not strike is waited out as a hand resting, with no flag
    (SIMULATION.md: resting is never a mistake)."""
    scenario = parse_scenario(_press_on_the_next_cup(80, 10.8), "press")
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


# (scenario, (the cup, the hand whose last seed falls there)) where one hand's seed, the other
# hand's last seed and that hand's lift fall in one 10 SPS reading
RELAY_IN_ONE_READING = {
    "congkak_simultaneous_relay_after_other_seed_10sps": ([1, 1], 1),
    # The first hand's last seed went to its store just before: it may start again from any
    # pit of its row, so its lifting the pit as it was would fit the rules too (the landing
    # taken early, or not).
    "congkak_simultaneous_relay_or_new_move_10sps": ([0, 3], 1),
    "congkak_simultaneous_relay_or_new_move_late_10sps": ([1, 2], 0),
}


@pytest.mark.parametrize("name", sorted(RELAY_IN_ONE_READING))
def test_at_10_sps_a_relay_after_the_other_hands_seed_in_one_reading_is_followed(
    name: str,
) -> None:
    """RULES.md 3, `simultaneous_opening`, read at 10 SPS: one hand sows into a cup, the other
    hand's last seed falls there too (a relay) and that hand lifts the pit, all within the
    0.4 s one reading takes to follow a change. The cup's one change is those three steps."""
    simulation, referee = run_simulation(load_scenario(SCENARIOS / f"{name}.json"))
    actions = [(a.t, a.action.to_json()) for a in simulation.world.log]
    cup, last = RELAY_IN_ONE_READING[name]
    at_cup = [(t, a["action"], a["hand"]) for t, a in actions if a.get("at") == cup]
    pattern = [("drop", 1 - last), ("drop", last), ("grab", last)]
    assert any(
        [(kind, hand) for _, kind, hand in at_cup[k : k + 3]] == pattern
        and at_cup[k + 2][0] - at_cup[k][0] < 0.6
        for k in range(len(at_cup) - 2)
    ), "the case is gone"
    result = report(simulation, referee)
    assert result["flags"] == []
    _same_as_truth(result)


def _resting_hands(rate: int, grams: float, seconds: float) -> dict[str, Any]:
    """Kalah: pit 2 sown by player 0 while a palm rests on player 1's pit 1 and a forearm leans
    on player 1's side; then player 1 plays pit 2, sowing into the cups leant on."""
    after = max(seconds, 5.5)  # the rest and the lean are over
    return {
        "variant": "kalah",
        "sensors": {"rate_sps": rate, "random_seed": 3},
        "player": {"seconds_per_seed": 0.4},
        "actions": [
            {"t": 1.0, "action": "rest", "at": [1, 1], "g": grams, "dur": seconds},
            {"t": 1.5, "action": "grab", "at": [0, 2]},
            {"t": 2.0, "action": "drop", "at": [0, 3]},
            {"t": 2.4, "action": "drop", "at": [0, 4]},
            {"t": 2.8, "action": "drop", "at": [0, 5]},
            {
                "t": 3.0,
                "action": "lean",
                "at": [[1, 3], [1, 4], [1, "store"]],
                "g": 900,
                "dur": 4.0,
            },
            {"t": after + 2.0, "action": "grab", "at": [1, 2], "hand": 1},
            {"t": after + 2.5, "action": "drop", "at": [1, 3], "hand": 1},
            {"t": after + 2.9, "action": "drop", "at": [1, 4], "hand": 1},
            {"t": after + 3.3, "action": "drop", "at": [1, 5], "hand": 1},
        ],
    }


@pytest.mark.parametrize("rate", [80, 10])
@pytest.mark.parametrize(("grams", "seconds"), [(30, 0.5), (80, 0.6), (150, 1.0), (300, 8.0)])
def test_a_palm_resting_and_a_forearm_leaning_where_no_step_is_due_raise_no_flag(
    rate: int, grams: float, seconds: float
) -> None:
    """Issue 12: rests of 30 g for 0.5 s to 300 g for 8 s on a cup where nothing is due (and a
    forearm on the board's edge meanwhile) are hands, not seeds: no flag, no step, and the
    belief stays the truth."""
    simulation, referee = run_simulation(
        parse_scenario(_resting_hands(rate, grams, seconds), "rest")
    )
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [(s["step"], s["at"]) for s in result["steps"] if s["step"] != "end_turn"][:4] == [
        ("pickup", [0, 2]),
        ("sow", [0, 3]),
        ("sow", [0, 4]),
        ("sow", [0, 5]),
    ]
    _same_as_truth(result)


def _sown_with(touch: dict[str, Any]) -> dict[str, Any]:
    """Kalah at 80 SPS, marbles: player 0 sows pit 2 (pits 3, 4, 5), with `touch` on the way."""
    return {
        "variant": "kalah",
        "sensors": {"rate_sps": 80, "random_seed": 4, "seed_cv": 0.03},
        "actions": sorted(
            [
                {"t": 1.0, "action": "grab", "at": [0, 2]},
                {"t": 1.6, "action": "drop", "at": [0, 3]},
                {"t": 2.2, "action": "drop", "at": [0, 4]},
                {"t": 2.8, "action": "drop", "at": [0, 5]},
                touch,
            ],
            key=lambda a: a["t"],
        ),
    }


@pytest.mark.parametrize("grams", [8.0, 10.0, 40.0])
@pytest.mark.parametrize("lead", [0.12, 0.16, 0.2])
def test_fingers_brushing_the_cup_about_to_be_sown_are_no_seed(grams: float, lead: float) -> None:
    """A brush 0.12-0.2 s before the seed, on the very cup it lands in, rises past half a seed
    and may settle there for a moment (8-10 g over 30 ms reads 0.4 seed): no seed (lighter
    than any marble), no flag."""
    brush = {"t": 2.2 - lead, "action": "brush", "at": [0, 4], "g": grams, "dur": 0.03}
    simulation, referee = run_simulation(parse_scenario(_sown_with(brush), "brush"))
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["at"] for s in result["steps"] if s["step"] == "sow"] == [[0, 3], [0, 4], [0, 5]]
    _same_as_truth(result)


def test_a_seed_bouncing_on_into_the_next_cup_is_a_wrong_pit_there() -> None:
    """A seed strikes the due cup (pit 4) and hops on into pit 5: the strike is no seed, the
    seed in pit 5 is one in the wrong place, flagged there within half a second."""
    scenario = _sown_with({"t": 2.2, "action": "bounce", "at": [0, 4], "to": [0, 5]})
    scenario["actions"] = [a for a in scenario["actions"] if a["action"] != "drop" or a["t"] < 2]
    simulation, referee = run_simulation(parse_scenario(scenario, "bounce"))
    result = report(simulation, referee)
    assert [(f["kind"], f["at"], f["expected"]) for f in result["flags"]] == [
        ("wrong_pit", [0, 5], [[0, 4]])
    ]
    assert result["flags"][0]["t"] - 2.2 < 0.5


@pytest.mark.parametrize("random_seed", [1, 2, 3])
def test_fingers_brushing_two_cups_ahead_of_a_fast_hand_are_no_seeds(random_seed: int) -> None:
    """An expert's fingers brush the next two cups while the seed lands in the due one: all
    three rises are guessed landings in one frame; the two that fall back are undone, and the
    one that stays is kept (a guess is undone by its place in the steps, not by its time)."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 0]},
        {"t": 1.44, "action": "brush", "at": [0, 2], "g": 32, "dur": 0.05},
        {"t": 1.48, "action": "brush", "at": [0, 3], "g": 20, "dur": 0.05},
        {"t": 1.5, "action": "drop", "at": [0, 1]},
        {"t": 1.65, "action": "drop", "at": [0, 2]},
        {"t": 1.8, "action": "drop", "at": [0, 3]},
    ]
    scenario = {"variant": "kalah", "sensors": {"random_seed": random_seed}, "actions": actions}
    simulation, referee = run_simulation(parse_scenario(scenario, "brushes"))
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["at"] for s in result["steps"] if s["step"] == "sow"] == [[0, 1], [0, 2], [0, 3]]
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
@pytest.mark.parametrize("random_seed", [1, 2])
def test_a_forearm_on_the_cups_about_to_be_sown_is_no_seed_of_theirs(
    rate: int, random_seed: int
) -> None:
    """A forearm leans on the next three cups while the hand sows the one before them, and
    lifts off before their seeds come: its rise is no seed (it began before the hand's last
    seed fell), so the seeds after are taken in turn."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 0]},
        {"t": 1.3, "action": "lean", "at": [[0, 2], [0, 3], [0, 4]], "g": 400, "dur": 0.8},
        {"t": 1.6, "action": "drop", "at": [0, 1]},
        {"t": 2.5, "action": "drop", "at": [0, 2]},
        {"t": 2.9, "action": "drop", "at": [0, 3]},
    ]
    scenario = {
        "variant": "kalah",
        "sensors": {"rate_sps": rate, "random_seed": random_seed},
        "actions": actions,
    }
    simulation, referee = run_simulation(parse_scenario(scenario, "lean"))
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["at"] for s in result["steps"] if s["step"] == "sow"] == [[0, 1], [0, 2], [0, 3]]
    _same_as_truth(result)


@pytest.mark.parametrize("random_seed", [2, 3, 4])
def test_a_seed_in_the_wrong_pit_just_after_a_palm_lifted_from_it_strikes_the_cup(
    random_seed: int,
) -> None:
    """At 80 SPS a palm of four seeds' weight lifts from pit 2 and, 0.2 s later, the hand's
    first seed falls there instead of in pit 1: one motion, three seeds down. Read from where
    the motion began, the seed struck nothing (the cup was below that all along), and three
    seeds lifted from under the palm won: a wrong pickup. The seed strikes above the level the
    palm left (bench humans game 240: `Motion.strike_g`)."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 0]},
        {"t": 1.0, "action": "rest", "at": [0, 2], "g": 21.6, "dur": 1.08, "ramp_s": 0.06},
        {"t": 2.28, "action": "drop", "at": [0, 2]},
    ]
    scenario = {
        "variant": "kalah",
        "sensors": {"rate_sps": 80, "random_seed": random_seed, "seed_cv": 0.15},
        "actions": actions,
    }
    simulation, referee = run_simulation(parse_scenario(scenario, "palm then seed"))
    result = report(simulation, referee)
    assert [(f["kind"], f["at"]) for f in result["flags"]] == [("wrong_pit", [0, 2])]


def test_fast_hands_both_sowing_at_10_sps_are_told_apart_by_two_gaps_of_their_beat() -> None:
    """bench openings, 5 pits, 10 SPS, 0.125 s a seed, seed 385: each hand sows a seed a
    reading. Whose seed a shared cup took is weighed by each hand's beat (`off_beat`), and a
    beat from one gap, a reading give or take one, read the seeds as a seed lost and one in
    the wrong pit at the store (`OFF_BEAT_MIN_GAPS`)."""
    result, _ = _run("congkak_simultaneous_fast_hands_by_their_beat_10sps")
    assert result["flags"] == []
    _same_as_truth(result)


@pytest.mark.parametrize(
    ("name", "work"),
    [
        ("press_and_knock_are_not_steps", 1),
        # (At 10 SPS a motion settles, and is explained again, in the middle of advances: an
        # advance left from before it must be dropped, not resumed.)
        ("flag_seed_lost_spare_10sps", 5),
        ("finger_on_the_next_cup_10sps", 5),
    ],
)
def test_a_search_spread_over_frames_ends_where_one_search_would(
    monkeypatch: pytest.MonkeyPatch, name: str, work: int
) -> None:
    """A knock moves every cup at once; a search that has done SEARCH_WORK (branches scored,
    steps fed) leaves the rest for the next frame, in the middle of a motion's explanations
    too (the loop is held no longer than that), the leader as it was meanwhile. At a unit or
    a few of work a search, the steps, flags and belief are those of searches never cut, only
    lit later."""
    whole, _ = _run(name)
    searches = unfinished = most = 0
    search = Tracker._search

    def counted_search(self: Tracker) -> None:
        nonlocal searches, unfinished, most
        searches += 1
        search(self)
        unfinished += self.advancing is not None
        most = max(most, self.work)

    monkeypatch.setattr(hypotheses, "SEARCH_WORK", work)
    monkeypatch.setattr(Tracker, "_search", counted_search)
    cut, _ = _run(name)
    assert unfinished > 0  # (some searches stopped in the middle of a motion's explanations)
    # (checked at each branch: the steps fed to find it, a branch that left no seeds too;
    # one hand sows in these)
    assert most <= work + hypotheses.SEQUENCE_FEEDS + 1

    def without_times(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in item.items() if k != "t" and not k.endswith("_t")} for item in items
        ]

    for key in ("steps", "flags"):
        assert without_times(cut[key]) == without_times(whole[key]), key
    assert all(c["t"] >= w["t"] for c, w in zip(cut["steps"], whole["steps"], strict=True))
    assert cut["belief"] == whole["belief"]


def test_a_forearm_leaning_from_before_a_relay_on_the_cups_sown_after_it() -> None:
    """Bench humans game 243 (expert, congkak 7, 10 SPS, natural seeds) to 19 s: at 14.52 s a
    forearm leans on pits [1, 0] to [1, 3] as the hand relays from [0, 1] (14.67 s), and lifts
    at 15.24 s; the hand's seeds reach those pits only at 15.60 to 15.91 s, so their motions
    begin 1.1 s before their seeds, and the relay pickup and the five seeds at [0, 2] to
    [0, 6] (cups that began to move later) come first: seven steps read with one motion. Read
    with at most six, the lean was a wrong pit and a seed lost (`SEQUENCE_MAX`)."""
    result, _ = _run("humans_congkak_10sps_lean_before_a_relay")
    assert result["flags"] == []
    _same_as_truth(result)


def test_captured_seeds_reach_the_store_in_the_order_their_cups_gave_them_up() -> None:
    """Bench humans game 195 (adult, congkak 7, 10 SPS, natural seeds) to 45 s: at 41.12 s a
    forearm of 473 g leans on [0, 0] to [0, 2]; the hand's last seed falls in [1, 6] (41.40 s)
    and captures [0, 0] opposite. It takes its own seed to the store first (41.73 s), then
    the twelve of [0, 0] (42.53 s), whose motion began with the lean, before [1, 6]'s. Taken
    in the order the cups began to move, the one seed in the store was none of the twelve
    expected first: a foreign seed."""
    result, _ = _run("humans_congkak_10sps_lean_on_the_pit_captured_from")
    assert result["flags"] == []
    _same_as_truth(result)


def test_a_bounced_seed_taken_back_at_10sps_is_a_wrong_pit_put_right() -> None:
    """Bench humans game 242 (expert, congkak 7, 10 SPS, marbles) to 57 s: at 53.98 s the
    hand's seed for [1, 5] bounces into [1, 6]; at 54.98 s the hand takes it back and sows it
    in [1, 5] (55.31 s), then its next in [1, 6] (55.38 s). Fingers press on [1, 6] as they
    take the seed, and a reading is the mean of 100 ms: the cup dips by 0.22 seed only
    between the two. Below DIP_SEEDS, nothing seemed taken back there, and the story that
    fitted was a seed lost before [1, 6] and a spare put in the gap: the flag moved to
    [1, 5] as a seed lost after the hand had put the wrong pit right (SLOW_DIP_SEEDS)."""
    result, _ = _run("humans_congkak_10sps_bounced_seed_taken_back")
    assert [(f["kind"], f["at"]) for f in result["flags"]] == [
        ("wrong_pit", [1, 3]),
        ("wrong_pit", [1, 6]),
    ]
    assert all(f["resolved_t"] is not None for f in result["flags"])
    _same_as_truth(result)


def test_a_pit_lifted_in_two_handfuls_is_read_by_what_the_first_lifted() -> None:
    """Six seeds of 30 % spread in [0, 2]; the hand lifts two, then the other four 0.7 s
    later. The four left weigh as more than four seeds of the mean, and read by their
    weight alone they were no first handful's rest: the two lifted were a wrong pickup. What
    the first handful lifted, as weighed, spreads less (bench humans game 479, six heavy
    natural seeds)."""
    result, _ = _run("two_handfuls_of_uneven_seeds")
    assert result["flags"] == []
    assert [s["step"] for s in result["steps"]][:2] == ["pickup", "sow"]
    _same_as_truth(result)


def test_a_forearm_coming_down_over_the_due_cup_brought_no_seed() -> None:
    """Bench humans game 190 (visitor, oware, 80 SPS, marbles) to 191 s: the hand, with
    seeds to sow, pauses 16 s; at 183.98 s a forearm of 400 g comes down on [1, 1] to [1, 4]
    for 3.7 s, [1, 4] the cup due next. Under a forearm's weight a seed's strike does not
    show, and the seed read as sown with it was free: when the forearm lifted, the seed was
    not there, a wrong pickup. A seed and a hand arriving at a cup at the same moment is a
    coincidence, priced (`ARRIVED_TOGETHER_COST`). The seed then falls in [1, 5] (188.84 s,
    a real wrong pit) and is put right."""
    result, _ = _run("humans_oware_80sps_lean_over_the_due_cup")
    assert [(f["kind"], f["at"]) for f in result["flags"]][-1] == ("wrong_pit", [1, 5])
    assert all(f["kind"] != "wrong_pickup" for f in result["flags"])
    _same_as_truth(result)


def test_the_last_seed_hopping_on_is_no_turn_taken_as_it_lands() -> None:
    """Bench humans game 14 (adult, kalah, 80 SPS, marbles) to 90 s: player 2's last seed
    strikes [0, 0] at 85.82 s and hops on into [0, 1]. That was read as player 1 lifting
    [0, 0] as the seed landed and sowing it into [0, 1], free, until the seed was taken back
    from [0, 1]: a wrong start. Nobody takes their turn before they have seen the other's last
    seed fall (`TURN_MIN_S`): the seed is in the wrong pit, flagged as it lands."""
    simulation, referee = run_simulation(
        load_scenario(SCENARIOS / "humans_kalah_80sps_last_seed_hops_on.json")
    )
    result = report(simulation, referee)
    flags = [(f["kind"], f["at"]) for f in result["flags"]]
    assert flags[-1] == ("wrong_pit", [0, 1]) and ("wrong_start", [0, 1]) not in flags
    bounced = next(a.t for a in simulation.scenario.actions if a.kind == "bounce")
    flag = referee.flags[-1]
    # (Shown as it landed, and named so then: not a wrong start renamed once the seed was back.)
    assert flag.shown_t is not None and flag.shown_t - bounced < 0.5 and flag.named_t is None
    _same_as_truth(result)


def test_a_brush_before_the_seed_at_10sps_is_no_seed_of_its_own() -> None:
    """Bench humans game 403 (adult, oware, 10 SPS, natural seeds) to 188 s: fingers brush
    [1, 2] at 186.25 s (21 g for 73 ms), and the hand's seed falls there at 186.62 s. In the
    readings the brush is a plateau of 1.9 g for four samples; it agreed on the fifth, and
    the seed was split in two motions, its other 4.2 g read as an extra seed. A cup settles
    no sooner than the sixth reading after its onset, when a brush has left the readings."""
    result, _ = _run("humans_oware_10sps_brush_before_the_seed")
    assert result["flags"] == []
    _same_as_truth(result)


def test_a_finger_lifted_as_its_seed_comes_is_no_seed_missing() -> None:
    """Bench humans game 436 (expert, congkak 7, 10 SPS, natural seeds) to 125 s, its one
    mistake (two seeds dropped at 20.3 s, one taken back) left out: at 109.77 s a finger of
    25.8 g rests on [1, 0] and lifts at 110.54 s, a reading or three before the hand's seed
    there (110.86 s). The step taken with that cup's later motion must start from the level
    with the finger fitted, not before it: read the other way, the finger went with the seed
    as 25 g missing, and 25 flags followed (`_settled_before`, `_before`)."""
    result, _ = _run("humans_congkak_10sps_finger_lifted_as_its_seed_comes")
    assert result["flags"] == []
    _same_as_truth(result)


@pytest.mark.parametrize(
    "rate",
    [
        80,
        # (Not yet, issue 12: at 10 SPS no strike tells the seeds from a palm, and a palm of
        # three seeds' weight resting is likelier than three seeds let go where none was due.)
        pytest.param(10, marks=pytest.mark.xfail(reason="read as a palm resting", strict=True)),
    ],
)
def test_a_hand_that_drops_its_seeds_in_the_wrong_pit_is_flagged_at_once(rate: int) -> None:
    """Three seeds where nothing is due weigh like a resting finger, but the hand holds three:
    they are its seeds, flagged within a second, not waited for as a hand resting."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 2]},
        {"t": 1.8, "action": "drop", "at": [1, 1], "n": 3},
    ]
    scenario = {"variant": "kalah", "sensors": {"rate_sps": rate}, "actions": actions}
    simulation, referee = run_simulation(parse_scenario(scenario, "dump"))
    result = report(simulation, referee)
    assert [(f["kind"], f["at"]) for f in result["flags"]] == [("wrong_pit", [1, 1])]
    assert result["flags"][0]["t"] - 1.8 < 1.0


@pytest.mark.parametrize("grams", [16.0, 16.5])
def test_a_palm_weighing_what_the_hand_holds_is_no_handful_let_go(grams: float) -> None:
    """Three marbles' weight (16.2 g) where nothing is due, while the hand holding three pauses
    for 2.5 s: a palm (a second person's), not the hand letting its seeds go. At 80 SPS seeds
    let go strike the cup (their reading overshoots), a palm settles on it."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 2]},
        {"t": 1.5, "action": "rest", "at": [1, 1], "g": grams, "dur": 3.0, "ramp_s": 0.15},
        {"t": 4.0, "action": "drop", "at": [0, 3]},
        {"t": 4.4, "action": "drop", "at": [0, 4]},
        {"t": 4.8, "action": "drop", "at": [0, 5]},
    ]
    simulation, referee = run_simulation(parse_scenario(_kalah(actions), "palm"))
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["step"] for s in result["steps"]] == ["pickup", "sow", "sow", "sow"]
    _same_as_truth(result)


def _capture_held(name: str, hold_s: float, rate: int) -> dict[str, Any]:
    """The scenario `name` as its virtual hands play it at `rate` SPS, but the first capture's
    seed is held `hold_s` in the air before it reaches the store (the rest of the game that
    much later)."""
    scenario = load_scenario(SCENARIOS / f"{name}.json")
    actions = [a.to_json() for a in build_simulation(scenario).player.actions]
    first = next(k for k, a in enumerate(actions) if a["action"] == "move")
    move = actions[first]
    hand = move["hand"]
    held = [
        {"t": move["t"], "action": "take", "at": move["from"], "n": 1, "hand": hand},
        {
            "t": move["t"] + GRAB_S + hold_s,
            "action": "drop",
            "at": move["to"],
            "n": 1,
            "hand": hand,
        },
    ]
    later = [{**a, "t": a["t"] + hold_s} for a in actions[first + 1 :]]
    data = {**scenario.to_json(), "moves": [], "actions": actions[:first] + held + later}
    data["sensors"]["rate_sps"] = rate
    return data


@pytest.mark.parametrize("name", ["kalah_capture_full_opposite", "congkak_capture_empty_opposite"])
@pytest.mark.parametrize("hold_s", [0.3, 1.5, 4.0])
@pytest.mark.parametrize("rate", [80, 10])
def test_a_hand_that_holds_a_captured_seed_before_the_store_is_no_mistake(
    name: str, hold_s: float, rate: int
) -> None:
    """The last seed lands in an empty own pit; the hand takes it and holds it in the air for
    a while before the store (a player thinking, talking). The board rests a second with the
    seed in no cup: the cups alone then say it was never sown, and the referee used to take
    that explanation, so the seed in the store was a wrong pit and the game stood blocked.
    (The daemon's loop, late mid-capture under load, froze the simulated hand the same way.)"""
    scenario = parse_scenario(_capture_held(name, hold_s, rate), "held")
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert result["flags"] == []
    assert any(s["step"] == "capture" for s in result["steps"])
    _same_as_truth(result)


def _kalah(actions: list[dict[str, Any]], rate: int = 80, random_seed: int = 4) -> dict[str, Any]:
    return {
        "variant": "kalah",
        "sensors": {"rate_sps": rate, "random_seed": random_seed, "seed_cv": 0.03},
        "actions": actions,
    }


@pytest.mark.parametrize("rate", [80, 10])
def test_a_pit_lifted_in_two_handfuls_is_no_mistake(rate: int) -> None:
    """SIMULATION.md's human hands: a small hand lifts pit 2's three seeds in two grabs half a
    second apart, then sows. Seeds left in the pit are owed until the hand sows on without
    them: here it does not, so no flag, and the move is followed seed by seed."""
    actions = [
        {"t": 1.0, "action": "take", "at": [0, 2], "n": 2},
        {"t": 1.7, "action": "grab", "at": [0, 2]},
        {"t": 2.4, "action": "drop", "at": [0, 3]},
        {"t": 2.9, "action": "drop", "at": [0, 4]},
        {"t": 3.4, "action": "drop", "at": [0, 5]},
    ]
    simulation, referee = run_simulation(parse_scenario(_kalah(actions, rate), "two handfuls"))
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["at"] for s in result["steps"] if s["step"] == "sow"] == [[0, 3], [0, 4], [0, 5]]
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
def test_sowing_on_without_the_seeds_left_is_not_all_lifted_until_they_are_fetched(
    rate: int,
) -> None:
    """RULES.md: a pickup takes every seed of the pit. The hand lifts two of three and sows two
    seeds before it goes back for the last: `not_all_lifted` at the pit once a seed is sown
    without them, put right when the pit is emptied; the seeds sown meanwhile are the move's
    steps (its pickup stands), not seeds in the wrong place."""
    actions = [
        {"t": 1.0, "action": "take", "at": [0, 2], "n": 2},
        {"t": 1.6, "action": "drop", "at": [0, 3]},
        {"t": 2.0, "action": "drop", "at": [0, 4]},
        {"t": 3.0, "action": "grab", "at": [0, 2]},
        {"t": 3.6, "action": "drop", "at": [0, 5]},
    ]
    simulation, referee = run_simulation(parse_scenario(_kalah(actions, rate), "sown on"))
    result = report(simulation, referee)
    [flag] = result["flags"]
    assert (flag["kind"], flag["at"]) == ("not_all_lifted", [0, 2])
    assert 1.6 < flag["t"] < 1.6 + (0.5 if rate == 80 else 1.0)
    assert 3.0 < flag["resolved_t"] < 4.0
    assert [s["at"] for s in result["steps"] if s["step"] == "sow"] == [[0, 3], [0, 4], [0, 5]]
    _same_as_truth(result)


def test_a_forearm_on_the_cup_about_to_be_sown_is_not_its_seed() -> None:
    """A forearm leans 1.3 kg on the next two cups for two seconds while the hand lifts its
    pit, and lifts off before the seeds come (SIMULATION.md's human hands): a cup read past a
    seed's ring and a grab's press together bears an arm, so no landing is guessed there."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 2]},
        {"t": 1.1, "action": "lean", "at": [[0, 3], [0, 4]], "g": 1300, "dur": 1.5},
        {"t": 3.6, "action": "drop", "at": [0, 3]},
        {"t": 4.1, "action": "drop", "at": [0, 4]},
        {"t": 4.6, "action": "drop", "at": [0, 5]},
    ]
    simulation, referee = run_simulation(parse_scenario(_kalah(actions), "forearm"))
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["at"] for s in result["steps"] if s["step"] == "sow"] == [[0, 3], [0, 4], [0, 5]]
    _same_as_truth(result)


def test_a_palm_lifted_off_the_cup_about_to_be_sown_is_no_pickup_of_it() -> None:
    """Kalah at 80 SPS: player 0 sows its last seed into its store; while player 1 grabs pit
    [1, 5], a palm rests 32 g on [0, 0], the cup its first seed is due in, and lifts off before
    the seed comes. The rise is no seed, and its going no pickup of that cup by player 0."""
    actions = [
        {"t": 1.0, "action": "grab", "at": [0, 2]},
        {"t": 1.6, "action": "drop", "at": [0, 3]},
        {"t": 2.1, "action": "drop", "at": [0, 4]},
        {"t": 2.6, "action": "drop", "at": [0, 5]},
        {"t": 3.1, "action": "drop", "at": [0, "store"]},
        {"t": 4.5, "action": "grab", "at": [1, 5], "hand": 1},
        {"t": 4.5, "action": "rest", "at": [0, 0], "g": 32, "dur": 0.15, "hand": 1},
        {"t": 5.4, "action": "drop", "at": [1, "store"], "hand": 1},
        {"t": 5.9, "action": "drop", "at": [0, 0], "hand": 1},
    ]
    simulation, referee = run_simulation(parse_scenario(_kalah(actions), "palm"))
    result = report(simulation, referee)
    assert result["flags"] == []
    steps = [(s["step"], s["at"]) for s in result["steps"]]
    assert steps[-3:] == [("pickup", [1, 5]), ("sow", [1, "store"]), ("sow", [0, 0])]
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
def test_a_forearm_on_a_cup_a_palm_rests_on_is_waited_for_from_when_it_came(rate: int) -> None:
    """A palm rests on a cup for 10 s and, a second before it lifts, a forearm leans on that
    cup and its neighbours for 7 s (bench humans games 89 and 375). The cup's weight changed
    again when the forearm came: it is waited for as a hand from then, not called a foreign
    seed once 12 s have passed since the palm came."""
    scenario = parse_scenario(
        {
            "variant": "kalah",
            "sensors": {"random_seed": 5, "rate_sps": rate},
            "actions": [
                {"t": 1.0, "action": "rest", "at": [0, 3], "g": 60.0, "dur": 10.0},
                {
                    "t": 9.0,
                    "action": "lean",
                    "at": [[0, 2], [0, 3], [0, 4]],
                    "g": 400.0,
                    "dur": 7.0,
                },
                {"t": 18.0, "action": "grab", "at": [0, 0]},
                {"t": 18.6, "action": "drop", "at": [0, 1]},
                {"t": 19.1, "action": "drop", "at": [0, 2]},
                {"t": 19.6, "action": "drop", "at": [0, 3]},
            ],
        },
        "palm and forearm",
    )
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["step"] for s in result["steps"]] == ["pickup", "sow", "sow", "sow"]
    _same_as_truth(result)


def test_a_finger_of_two_seeds_weight_on_the_cup_just_sown_is_no_seed() -> None:
    """80 SPS, natural seeds: a move ends, and 0.4 s later a finger of 10.2 g (two seeds'
    weight, or one heavy seed's) rests on the cup its last seed fell in, for 2.6 s, while the
    other player plays (bench humans game 311). It settled on the cup without a strike, as a
    finger does and seeds do not: no foreign seed, no wrong pit."""
    scenario = parse_scenario(
        {
            "variant": "kalah",
            "sensors": {"random_seed": 5, "rate_sps": 80, "seed_cv": 0.15},
            "actions": [
                {"t": 1.0, "action": "grab", "at": [0, 4]},
                {"t": 1.6, "action": "drop", "at": [0, 5]},
                {"t": 2.1, "action": "drop", "at": [0, "store"]},
                {"t": 2.6, "action": "drop", "at": [1, 0]},
                {"t": 3.0, "action": "rest", "at": [1, 0], "g": 10.2, "dur": 2.6, "ramp_s": 0.26},
                {"t": 4.0, "action": "grab", "at": [1, 2], "hand": 1},
                {"t": 4.6, "action": "drop", "at": [1, 3], "hand": 1},
                {"t": 5.1, "action": "drop", "at": [1, 4], "hand": 1},
            ],
        },
        "finger",
    )
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert result["flags"] == []
    assert len(result["steps"]) == 7
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
def test_a_seed_that_hops_from_its_cup_into_the_next_is_flagged_where_it_lies(rate: int) -> None:
    """SIMULATION.md `bounce`: the hand's fourth seed, due in [0, 4], strikes it and hops into
    [0, 5]. On the cups that ties with the seed lost off the board and the next one sown in
    [0, 5]; but a lost seed strikes no cup, and is the rarer mistake (hypotheses.py
    `STRUCK_LOST_COST`, `LOST_COST`): a wrong pit where the seed lies, not a seed lost at the
    gap. (Before them, a seed lost at [0, 4] at both rates.)"""
    t, actions = 1.0, [{"t": 1.0, "action": "grab", "at": [0, 0]}]
    for pit in (1, 2, 3):
        t += 0.2
        actions.append({"t": t, "action": "drop", "at": [0, pit]})
    t += 0.2
    actions.append({"t": t, "action": "bounce", "at": [0, 4], "to": [0, 5]})
    scenario = {
        "variant": "congkak",
        "options": {"pits": 7},
        "sensors": {"rate_sps": rate},
        "actions": actions,
    }
    simulation, referee = run_simulation(parse_scenario(scenario, "bounce"))
    flags = report(simulation, referee)["flags"]
    assert [(f["kind"], f["at"]) for f in flags] == [("wrong_pit", [0, 5])]
    assert flags[0]["t"] - t < 0.5


def test_two_seeds_as_a_finger_rests_further_on_at_10sps_are_two_seeds() -> None:
    """Bench humans game 20 (adult, oware, 10 SPS, natural seeds) to 28.6 s: a finger of 27 g
    comes to rest on [1, 5] at 26.47 s, and two seeds slip into [1, 3], the cup due, at
    26.58 s (one is taken back a second later). The cups began to move a reading apart, which
    read as a forearm leaning on the board, so the second seed was a touch and never flagged.
    A forearm presses cups side by side; [1, 5] is two further on."""
    simulation, referee = run_simulation(
        load_scenario(SCENARIOS / "humans_oware_10sps_two_seeds_as_a_finger_rests_further_on.json")
    )
    drops = [a for a in simulation.scenario.actions if a.kind == "drop" and a.n == 2]
    slipped = drops[-1].t
    flag = referee.flags[-1]
    assert (flag.kind, flag.at) == ("extra_seed", Place(1, 3))
    assert flag.shown_t is not None and flag.shown_t - slipped <= 1.0
    _same_as_truth(report(simulation, referee))


def test_a_seed_taken_back_from_the_next_pit_is_no_turn_taken_past_a_red_light() -> None:
    """Bench humans game 328 (child, kalah, 80 SPS, natural seeds) to 186.5 s: the seed due in
    the store falls in [1, 0] (180.40 s), is taken back (181.40 s), put in the store (183.77 s)
    and the hand's next seed goes to [1, 0] (185.75 s). The seed taken back was read as player
    1 beginning a move from [1, 0] while player 0's seed lost at the store waited for its
    spare, so the flag was named only when the seed came to [1, 0] again. Nobody takes their
    turn past the other's red light (`_unheeded_step`): named as the seed is taken back."""
    simulation, referee = run_simulation(
        load_scenario(SCENARIOS / "humans_kalah_80sps_seed_in_the_next_pit_taken_back.json")
    )
    taken = next(a.t for a in simulation.scenario.actions if a.kind == "take" and a.t > 180)
    stored = next(a.t for a in simulation.scenario.actions if a.kind == "drop" and a.t > taken)
    flag = referee.flags[-1]
    assert (flag.kind, flag.at) == ("wrong_pit", Place(1, 0))
    named = flag.named_t if flag.named_t is not None else flag.t
    assert taken < named < stored
    _same_as_truth(report(simulation, referee))


def test_a_knock_on_a_larger_board_at_10sps_moves_its_unused_cups_too() -> None:
    """Kalah's six pits on the congkak 7 board: the cups of pit 7 are weighed and have no
    place in the game. A knock moves them with the rest; at 10 SPS every cup that began to
    move with a cup is asked whether it leans beside it (a forearm), and one of no place must
    be no neighbour, not a KeyError that stops the referee (found in review)."""
    scenario = parse_scenario(
        {
            "variant": "kalah",
            "board": "congkak7",
            "sensors": {"random_seed": 7, "rate_sps": 10},
            "player": {"seconds_per_seed": 0.5},
            "moves": [2],
            "actions": [{"t": 2.3, "action": "bump", "g": 300, "dur": 0.5}],
        },
        "a knock on the congkak 7 board playing kalah",
    )
    simulation, referee = run_simulation(scenario)
    result = report(simulation, referee)
    assert result["flags"] == []
    assert [s["at"] for s in result["steps"]][:2] == [[0, 2], [0, 3]]
    _same_as_truth(result)


@pytest.mark.parametrize("rate", [80, 10])
def test_one_seed_of_a_pit_of_two_left_behind_is_not_all_lifted(rate: int) -> None:
    """The simulator's people leave a seed behind in a pit of two or more (player.py): the
    hand lifts one of pit 2's two seeds, sows it, then fetches the other. Seeds a pickup left
    are how the referee knows the pit was not all lifted, for a pit of two too (a rule that a
    pit of two is lifted in one grab lost this, found in review)."""
    scenario = {
        **_kalah(
            [
                {"t": 1.0, "action": "take", "at": [0, 2], "n": 1},
                {"t": 1.6, "action": "drop", "at": [0, 3]},
                {"t": 2.6, "action": "grab", "at": [0, 2]},
                {"t": 3.2, "action": "drop", "at": [0, 4]},
            ],
            rate,
            random_seed=5,
        ),
        "start": {"pits": [[4, 4, 2, 4, 4, 4], [4] * 6], "stores": [0, 2], "to_move": 0},
    }
    simulation, referee = run_simulation(parse_scenario(scenario, "one of two left"))
    result = report(simulation, referee)
    [flag] = result["flags"]
    assert (flag["kind"], flag["at"]) == ("not_all_lifted", [0, 2])
    assert 1.6 < flag["t"] < 1.6 + (0.5 if rate == 80 else 1.0)
    _same_as_truth(result)
