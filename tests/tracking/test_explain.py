"""Explaining the cups (controller/tracking/explain.py): due steps from the last certain point
that make every cup read as it does, and the referee putting its own wrong judgements right by
them (issue 12)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.rules import Place, Rules, Step, StepFollower, StepKind
from controller.sim import build_simulation, load_scenario, parse_scenario
from controller.simulate import report
from controller.simulate import run_simulation as run_any
from controller.tracking.explain import (
    CLEAR,
    MAX_NODES,
    SHARP_SEEDS,
    Anchor,
    Cups,
    SeedModel,
    _Search,
    explain,
)
from controller.tracking.referee import WITHDRAWN, Referee
from controller.tracking.session import start_cases as start_referee

SEED_G = 5.0


def run_simulation(scenario: Any) -> Any:
    """These test the cases' referee (referee.py and its parts), which the one search replaced:
    they go with it (issue 12)."""
    return run_any(scenario, referee_kind="cases")


def _kalah(game: StepFollower | None = None) -> tuple[Anchor, dict[Place, int]]:
    rules = Rules.for_variant("kalah")
    game = game or StepFollower.new(rules)
    levels = tuple(SEED_G * seeds for seeds in game.board)
    return Anchor(game, levels, 0, 0.0), {rules.place(i): i for i in range(14)}


def _after(anchor: Anchor, cells: dict[Place, int], changes: dict[Place, float]) -> list[float]:
    readings = list(anchor.levels_g)
    for place, seeds in changes.items():
        cell = cells[place]
        readings[cell] = 0.0 if seeds == -99 else readings[cell] + seeds * SEED_G
    return readings


def _moving(cells: dict[Place, int], onsets: dict[Place, list[float]]) -> dict[int, Any]:
    """Cups that began to move at these times, each settling 60 ms later."""
    return {cells[place]: [(t, t + 0.06) for t in times] for place, times in onsets.items()}


def test_a_pickup_and_its_seeds_are_explained_and_a_rest_mid_sowing_too() -> None:
    anchor, cells = _kalah()
    # Pit 2's three seeds: lifted, two sown so far (the hand holds the third).
    readings = _after(anchor, cells, {Place(0, 2): -99, Place(0, 3): 1, Place(0, 4): 1})
    found = explain(Cups(anchor, readings, cells, SeedModel(SEED_G, 0.03)))
    assert found is not None
    assert [(s.kind, s.at) for s in found.steps] == [
        (StepKind.PICKUP, Place(0, 2)),
        (StepKind.SOW, Place(0, 3)),
        (StepKind.SOW, Place(0, 4)),
    ]
    assert found.game.hands[0].seeds == 1


def test_a_seed_cannot_hide_in_a_hand_by_a_pickup_at_a_cup_that_never_moved() -> None:
    """Hands are not weighed: without the cups' onsets, a seed in the wrong pit could be
    explained by the right sow and a pickup nobody made."""
    anchor, cells = _kalah()
    # Pit 2 lifted at 1 s; seeds land in pit 3 at 1.5 s and (wrongly) pit 5 at 2 s.
    readings = _after(anchor, cells, {Place(0, 2): -99, Place(0, 3): 1, Place(0, 5): 1})
    motions = _moving(cells, {Place(0, 2): [1.0], Place(0, 3): [1.5], Place(0, 5): [2.0]})
    assert explain(Cups(anchor, readings, cells, SeedModel(SEED_G, 0.03), motions)) is None


def test_steps_follow_the_order_their_cups_moved_in() -> None:
    anchor, cells = _kalah()
    readings = _after(anchor, cells, {Place(0, 2): -99, Place(0, 3): 1, Place(0, 4): 1})
    model = SeedModel(SEED_G, 0.03)
    in_order = {Place(0, 2): [1.0], Place(0, 3): [1.5], Place(0, 4): [2.0]}
    assert explain(Cups(anchor, readings, cells, model, _moving(cells, in_order))) is not None
    # The seed in pit 4 before the pit was lifted: not these steps.
    backwards = {**in_order, Place(0, 4): [0.5]}
    assert explain(Cups(anchor, readings, cells, model, _moving(cells, backwards))) is None


def test_a_seed_that_hops_on_is_not_the_next_player_lifting_it_at_once() -> None:
    """Player 0's last seed falls in player 1's empty pit 0 and hops into pit 1 (a `bounce`,
    a mistake). The cups alone read as if player 1 lifted it and sowed it on; but nobody starts
    a move 20 ms after the last one ended."""
    rules = Rules.for_variant("kalah")
    game = StepFollower(rules, [1, 0, 0, 0, 0, 2, 0, 0, 3, 3, 3, 3, 3, 0], 0)
    anchor, cells = _kalah(game)
    readings = _after(anchor, cells, {Place(0, 5): -99, Place(0, "store"): 1, Place(1, 1): 1})
    onsets = {
        Place(0, 5): [1.0],
        Place(0, "store"): [1.5],
        Place(1, 0): [2.0],
        Place(1, 1): [2.02],
    }
    model = SeedModel(SEED_G, 0.03)
    assert explain(Cups(anchor, readings, cells, model, _moving(cells, onsets))) is None
    onsets[Place(1, 1)] = [3.0]  # lifted and sown a second later: a move it may be
    onsets[Place(1, 0)] = [2.0, 2.6]
    found = explain(Cups(anchor, readings, cells, model, _moving(cells, onsets)))
    assert found is not None and found.steps[-2:] == (
        Step.pickup(1, Place(1, 0)),
        Step.sow(1, Place(1, 1)),
    )


def test_two_light_seeds_that_may_be_one_heavy_one_leave_the_judgement_to_the_referee() -> None:
    """Natural seeds (CV 15 %): 1.6 mean seeds where one is due is two seeds about as likely as
    one; no explanation is taken then, for one more seed is a mistake."""
    anchor, cells = _kalah()
    changes = {Place(0, 2): -99, Place(0, 3): 1, Place(0, 4): 1.6}
    readings = _after(anchor, cells, changes)
    assert explain(Cups(anchor, readings, cells, SeedModel(SEED_G, 0.15))) is None
    changes[Place(0, 4)] = 1.1  # a heavy seed, no more
    assert explain(Cups(anchor, _after(anchor, cells, changes), cells, SeedModel(SEED_G, 0.15)))


def test_a_store_never_gives_seeds_back_and_the_search_stays_within_its_budget() -> None:
    rules = Rules.for_variant("congkak", {"pits": 7})
    game = StepFollower.new(rules)
    cells = {rules.place(i): i for i in range(len(game.board))}
    anchor = Anchor(game, tuple(SEED_G * seeds for seeds in game.board), 0, 0.0)
    # Nothing moved but every cup may have: the opening's two hands, every pit to choose.
    moving = {cell: [(0.0, 10.0)] for cell in cells.values()}
    search = _Search(anchor, list(anchor.levels_g), cells, SeedModel(SEED_G, 0.03), (), 2, moving)
    search.walk(search.root())
    assert search.nodes <= MAX_NODES
    store = cells[Place(0, "store")]
    for found in search.found:  # none puts seeds into a store that reads none
        assert found.game.board[store] == 0


def _sabotaged_game(monkeypatch: pytest.MonkeyPatch | None) -> tuple[dict[str, Any], Referee]:
    """A correct kalah game in which the referee is made to misjudge its first seed as a stray
    (as a hand resting on the cup might have made it): the cascade the old referee could not
    leave. With `monkeypatch`, the cups' explanation is turned off."""
    if monkeypatch is not None:
        monkeypatch.setattr(Referee, "_explain_again", lambda self, t, flags_before: False)
    scenario = parse_scenario(
        {
            "variant": "kalah",
            "sensors": {"random_seed": 4},
            "player": {"seconds_per_seed": 0.3},
            "moves": [2, 1, 4, 0],
        },
        "test",
    )
    simulation = build_simulation(scenario)
    source = simulation.source()
    world = simulation.world
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, world.nominal_rate_sps)
    sabotaged = False
    while (frame := source.read(None)) is not None:
        referee.process(frame)
        if not sabotaged and referee.last_sow is not None:
            cell, before, sow = referee.last_sow
            referee.game = before
            referee.steps.remove(sow)
            referee.last_sow = None
            referee._stray(cell, 1, frame.t)
            sabotaged = True
    return report(simulation, referee), referee


def test_the_cups_at_rest_put_a_wrong_judgement_right(monkeypatch: pytest.MonkeyPatch) -> None:
    result, referee = _sabotaged_game(None)
    assert result["belief"]["pits"] == result["truth"]["pits"]
    assert result["belief"]["stores"] == result["truth"]["stores"]
    assert referee.explained_again >= 1
    # The one flag the sabotage raised was shown, and is withdrawn: no other was raised.
    assert len(result["flags"]) == 1 and WITHDRAWN in result["flags"][0]["detail"]
    assert referee.game.completed[-1].pit == 0 and len(referee.game.completed) == 4
    sows = [s for s in result["steps"] if s["step"] == "sow"]
    assert sows[0]["at"] == [0, 3]  # the seed judged a stray is a sow again
    # Without the explanation the same game ends stuck on its flags.
    stuck, _ = _sabotaged_game(monkeypatch)
    assert stuck["belief"]["pits"] != stuck["truth"]["pits"] or len(stuck["flags"]) > 1


def test_a_mistake_is_ruled_out_only_where_the_cups_can_tell_one_seed() -> None:
    """A cup that gained one seed since the anchor tells one seed more from none (a flag there
    may be taken back); one that gained thirty natural seeds cannot (a flag there stands)."""
    rules = Rules.for_variant("kalah")
    game = StepFollower(rules, [1, 0, 0, 0, 0, 2, 0, 0, 3, 3, 3, 3, 3, 0], 0)
    anchor, cells = _kalah(game)
    search = _Search(anchor, list(anchor.levels_g), cells, SeedModel(SEED_G, 0.15), (), 1, {})
    pit, store = (
        next(c for c in search.cups if c.cell == cells[p]) for p in (Place(1, 0), Place(0, "store"))
    )
    pit = replace(pit, reading_g=pit.reading_g + SEED_G)
    store = replace(store, reading_g=30 * SEED_G)
    assert search.term(pit, 1, False)[1] <= -CLEAR and search.sigma(1) <= SHARP_SEEDS
    assert search.sigma(30) > SHARP_SEEDS


# Bench humans games (seed, cut after the case) in which the referee before explain.py raised
# flags on a correct game and, but for one, never left them: a finger resting on a cup before
# a capture (game 1), a fast two-hand opening (49), fingers brushing a cup a seed then fell in
# while it still rang (57), a palm on the store and a forearm on the edge (9), a palm on a cup
# under the seed (89), one heavy natural seed (11). Made with the bench's own player: each is
# the physical script (`actions`) of that game.
HUMAN_CASES = (
    "humans_congkak_10sps_rest_before_capture",
    "humans_congkak_10sps_fast_opening",
    "humans_kalah_10sps_brush_before_capture",
    "humans_kalah_10sps_rest_on_store_and_lean",
    "humans_oware_10sps_palm_on_a_cup",
    "humans_kalah_10sps_heavy_seed",
)


@pytest.mark.parametrize("name", HUMAN_CASES)
def test_what_people_did_is_followed_without_a_flag(name: str) -> None:
    result, _ = _run_case(name)
    assert result["flags"] == []
    for key in ("pits", "stores", "hand"):
        assert result["belief"][key] == result["truth"][key]


# The palm on the store (9) no longer needs the cups' explanation: at 10 SPS its slow settle
# (0.3 s, where a step's ramp is over in 4 samples) was weighed at its early level only, 0.2 of
# a seed light, and so passed for one seed; the detector now weighs the rest of it (`_refine`).
# Nor does the brush before a capture (57): the seed that fell in while the brushed cup still
# moved is now taken on its rise from the brush's trough (`Referee._rising_seed`), in turn.
NEED_EXPLAINING = tuple(
    name
    for name in HUMAN_CASES
    if name
    not in ("humans_kalah_10sps_rest_on_store_and_lean", "humans_kalah_10sps_brush_before_capture")
)


@pytest.mark.parametrize("name", NEED_EXPLAINING)
def test_without_the_cups_explanation_the_case_is_still_flagged(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cases are still there: the referee's own judgements flag them."""
    monkeypatch.setattr(Referee, "_explain_again", lambda self, t, flags_before: False)
    monkeypatch.setattr(Referee, "_anchor_if_certain", lambda self, t: False)
    result, _ = _run_case(name)
    assert result["flags"]


def _run_case(name: str) -> tuple[dict[str, Any], Referee]:
    scenario = load_scenario(Path(__file__).resolve().parent.parent / "scenarios" / f"{name}.json")
    simulation, referee = run_simulation(scenario)
    return report(simulation, referee), referee
