"""Scenario files (SIMULATION.md, "Scenario file"): defaults, and errors that name the field.

Scenario files are written by hand, so every rejection must say which file, which field
(`actions[3].at`) and what would have been allowed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.rules import Place
from controller.sim import (
    Action,
    PlayerParams,
    Scenario,
    ScenarioError,
    SensorParams,
    build_simulation,
    load_scenario,
    parse_scenario,
)

# The example of SIMULATION.md, verbatim.
SPEC_EXAMPLE = {
    "variant": "congkak",
    "options": {"pits": 7},
    "sensors": {
        "rate_sps": 80,
        "noise_g": 0.02,
        "seed_mean_g": 5.4,
        "seed_cv": 0.03,
        "ring_ms": 60,
        "glitch_rate": 1e-4,
        "drift_g_per_min": 0.05,
        "calibration_error": 0.02,
        "random_seed": 7,
    },
    "player": {"seconds_per_seed": 0.25, "jitter": 0.3},
    "moves": [3, 0, 5],
    "actions": [],
}


def test_the_spec_example_parses_to_the_same_values_as_the_defaults() -> None:
    """SIMULATION.md: every field but `variant` has a default; the example spells them out."""
    full = parse_scenario(SPEC_EXAMPLE, "example.json")
    bare = parse_scenario({"variant": "congkak"}, "bare.json")
    assert full.sensors == bare.sensors == SensorParams()
    assert full.player == bare.player == PlayerParams()
    assert full.moves == (3, 0, 5) and bare.moves == ()
    assert full.actions == bare.actions == ()
    assert bare.options == {}
    assert full.board == bare.board == "congkak7"


def test_sensor_defaults_are_the_documented_ones() -> None:
    s = SensorParams()
    assert (s.rate_sps, s.noise_g, s.seed_mean_g, s.seed_cv, s.ring_ms) == (80, 0.02, 5.4, 0.03, 60)
    assert (s.glitch_rate, s.drift_g_per_min, s.calibration_error, s.random_seed) == (
        1e-4,
        0.05,
        0.02,
        7,
    )
    assert (PlayerParams().seconds_per_seed, PlayerParams().jitter) == (0.25, 0.3)


@pytest.mark.parametrize(
    ("variant", "options", "board", "cells"),
    [
        ("congkak", {}, "congkak7", 16),
        ("congkak", {"pits": 5}, "congkak5", 12),
        ("congkak", {"pits": 9}, "congkak9", 20),
        ("kalah", {}, "oware6", 14),
        ("oware", {}, "oware6", 14),
    ],
)
def test_default_board_follows_the_pit_count(
    variant: str, options: dict[str, Any], board: str, cells: int
) -> None:
    scenario = parse_scenario({"variant": variant, "options": options}, "b.json")
    assert scenario.board == board
    assert len(scenario.board_file().cells) == cells


def test_a_six_pit_game_on_the_seven_pit_board_uses_its_layout() -> None:
    """HARDWARE.md: a 7-pit board plays 6-pit games with one pit per row closed."""
    scenario = parse_scenario({"variant": "kalah", "board": "congkak7"}, "b.json")
    mapping = scenario.mapping()
    assert mapping.idle_cells == (3, 11)
    assert mapping.cell_of[Place(0, 3)] == 4  # game pit 3 sits on the board's pit 4


def test_actions_parse_with_their_defaults() -> None:
    scenario = parse_scenario(
        {
            "variant": "kalah",
            "actions": [
                {"t": 0.5, "action": "grab", "at": [0, 2]},
                {"t": 0.9, "action": "drop", "at": [0, 3], "hand": 1},
                {"t": 1.2, "action": "move", "from": [1, 2], "to": [0, "store"]},
                {"t": 1.5, "action": "press", "at": [1, "store"], "g": 40, "dur": 0.2},
                {"t": 1.5, "action": "bump", "g": -30, "dur": 0.05},
                {"t": 2.0, "action": "drop_off"},
                {"t": 2.0, "action": "add", "at": [1, 0], "n": 3},
                {"t": 2.5, "action": "take", "at": [1, 0], "n": 2},
                {"t": 3.0, "action": "button", "name": "undo"},
            ],
        },
        "a.json",
    )
    grab, drop, move, press, bump, drop_off, add, take, button = scenario.actions
    assert grab == Action(0.5, "grab", at=Place(0, 2))
    assert (drop.n, drop.hand) == (1, 1)
    assert (move.at, move.to) == (Place(1, 2), Place(0, "store"))
    assert (press.g, press.dur) == (40.0, 0.2)
    assert bump.g == -30.0
    assert drop_off.n == 1
    assert (add.at, add.n) == (Place(1, 0), 3)
    assert take.n == 2
    assert button.name == "undo"
    # to_json writes the scenario's own spelling back
    assert move.to_json() == {"t": 1.2, "action": "move", "from": [1, 2], "to": [0, "store"]}
    assert parse_scenario(scenario.to_json(), "again.json").actions == scenario.actions


# (change to the scenario, field the message must name, words of what is allowed)
BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"variant": "bao"}, "variant", "congkak, kalah, oware"),
    ({"variant": 3}, "variant", "variant name"),
    ({"options": {"pits": 6}}, "options", "5, 7, 9"),
    ({"options": {"seedz": 3}}, "options", "known options"),
    ({"colour": "red"}, "top level", "allowed: variant"),
    ({"board": "chess8"}, "board", "congkak7"),
    ({"board": 7}, "board", "board name"),
    ({"sensors": {"rate_sps": 40}}, "sensors.rate_sps", "10 or 80"),
    ({"sensors": {"rate_sps": 80.0}}, "sensors.rate_sps", "not an integer"),
    ({"sensors": {"noise_g": -0.1}}, "sensors.noise_g", "0 to 100"),
    ({"sensors": {"noise_g": "low"}}, "sensors.noise_g", "not a number"),
    ({"sensors": {"seed_cv": 0.6}}, "sensors.seed_cv", "0 to 0.5"),
    ({"sensors": {"glitch_rate": 2}}, "sensors.glitch_rate", "0 to 1"),
    ({"sensors": {"calibration_error": 0.9}}, "sensors.calibration_error", "0 to 0.5"),
    ({"sensors": {"random_seed": -1}}, "sensors.random_seed", "integer"),
    ({"sensors": {"gain": 128}}, "sensors", "allowed: rate_sps"),
    ({"sensors": [80]}, "sensors", "expected an object"),
    ({"player": {"seconds_per_seed": 0}}, "player.seconds_per_seed", "0.05 to 10"),
    ({"player": {"jitter": 1.0}}, "player.jitter", "0 to 0.9"),
    ({"moves": [3, 7]}, "moves[1]", "0 to 6"),
    ({"moves": [True]}, "moves[0]", "integer"),
    ({"moves": 3}, "moves", "list of pit numbers"),
    ({"start": [7]}, "start", "{pits, stores, to_move}"),
    ({"start": {"pits": [[7] * 7] * 2, "stores": [0, 0], "to_move": 2}}, "start", "0, 1 or null"),
    ({"start": {"pits": [[7] * 6] * 2, "stores": [0, 0], "to_move": 0}}, "start", "7 pits"),
    ({"steps": []}, "top level", "allowed: variant"),  # (a record's steps: not a scenario's)
    ({"actions": {}}, "actions", "list of actions"),
    ({"actions": [{"t": 1, "action": "grab", "at": [0, 1]}, 5]}, "actions[1]", "an object"),
    ({"actions": [{"t": 1, "action": "throw"}]}, "actions[0].action", "grab, take, drop"),
    ({"actions": [{"t": 1, "at": [0, 1]}]}, "actions[0].action", "grab, take, drop"),
    ({"actions": [{"t": 1, "action": "grab"}]}, "actions[0].at", "needs at"),
    ({"actions": [{"action": "grab", "at": [0, 1]}]}, "actions[0].t", "needs at"),
    ({"actions": [{"t": -1, "action": "grab", "at": [0, 1]}]}, "actions[0].t", "0 to 86400"),
    ({"actions": [{"t": 1, "action": "grab", "at": [0, 7]}]}, "actions[0].at", "0 to 6"),
    ({"actions": [{"t": 1, "action": "grab", "at": [2, 1]}]}, "actions[0].at", "player 0 or 1"),
    ({"actions": [{"t": 1, "action": "grab", "at": [0, "pot"]}]}, "actions[0].at", '"store"'),
    ({"actions": [{"t": 1, "action": "grab", "at": [0, 1], "n": 2}]}, "actions[0]", "allowed: t"),
    ({"actions": [{"t": 1, "action": "take", "at": [0, 1], "n": 0}]}, "actions[0].n", "1 to 200"),
    (
        {"actions": [{"t": 1, "action": "drop", "at": [0, 1], "hand": 2}]},
        "actions[0].hand",
        "0 to 1",
    ),
    (
        {"actions": [{"t": 1, "action": "move", "from": [0, 1], "to": [0, 1]}]},
        "actions[0].to",
        "same place",
    ),
    (
        {"actions": [{"t": 1, "action": "press", "at": [0, 1], "g": 0, "dur": 1}]},
        "actions[0].g",
        "more than 0",
    ),
    ({"actions": [{"t": 1, "action": "bump", "g": 10, "dur": 0}]}, "actions[0].dur", "more than 0"),
    (
        {"actions": [{"t": 1, "action": "button", "name": "reset"}]},
        "actions[0].name",
        "new_game, undo, hint, mode",
    ),
    (
        {
            "actions": [
                {"t": 2, "action": "grab", "at": [0, 1]},
                {"t": 2, "action": "drop", "at": [0, 2]},
                {"t": 1.5, "action": "drop", "at": [0, 3]},
            ]
        },
        "actions[2].t",
        "must not go backwards",
    ),
]


@pytest.mark.parametrize(("change", "field", "allowed"), BAD, ids=[b[1] for b in BAD])
def test_every_error_names_the_file_the_field_and_what_is_allowed(
    change: dict[str, Any], field: str, allowed: str
) -> None:
    data = {"variant": "congkak", **change}
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data, "games/bad.json")
    message = str(caught.value)
    assert message.startswith("games/bad.json: "), message
    assert f": {field}:" in message or f": {field} " in message, message
    assert allowed in message, message


def test_a_record_with_its_own_start_is_a_scenario() -> None:
    """docs/records.md: a match round's record (its `start`, its `match` and the fields of
    records.jsonl) is played by the virtual player from the round's own layout."""
    start = {"pits": [[0, 0, 0, 0, 0, 0, 1], [0] * 7], "stores": [5, 92], "to_move": 0}
    record = {
        "variant": "congkak",
        "options": {"handicap_rounds": True},
        "match": {"round": 2, "won_before": [1, 0], "won": [1, 1], "over": True},
        "start": start,
        "moves": [6],
        "finished": True,
        "saved": "2026-11-25T10:00:00Z",
    }
    scenario = parse_scenario(record, "round2.json")
    assert scenario.to_json()["start"] == start
    assert parse_scenario(scenario.to_json(), "again.json").start == scenario.start
    world = build_simulation(scenario).world
    assert world.truth()["stores"] == [5, 92]  # (before the move: laid out as `start`)


def test_load_scenario_reads_a_file_and_reports_json_errors_with_the_line(
    tmp_path: Path,
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(SPEC_EXAMPLE), encoding="utf-8")
    assert load_scenario(good).moves == (3, 0, 5)
    assert load_scenario(good).source == str(good)
    broken = tmp_path / "broken.json"
    broken.write_text('{"variant": "congkak",\n "moves": [1,, 2]}', encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"broken\.json: invalid JSON at line 2"):
        load_scenario(broken)
    with pytest.raises(ScenarioError, match=r"missing\.json: cannot read"):
        load_scenario(tmp_path / "missing.json")


def test_an_illegal_move_is_named_when_the_world_is_built() -> None:
    """Legality depends on the game so far: it is checked when the player plans the moves."""
    # kalah: pit 2 holds 3 seeds (pits 3, 4, 5); player 1 moves next, and then player 0's
    # pit 2 is empty.
    scenario = parse_scenario({"variant": "kalah", "moves": [2, 0, 2]}, "m.json")
    with pytest.raises(ScenarioError, match=r"m\.json: moves\[2\]: pit 2: .*empty"):
        build_simulation(scenario)


def test_a_scenario_built_in_code_gets_its_default_board() -> None:
    assert Scenario("oware").board_file().name == "oware6"


def test_actions_arriving_at_run_time_are_checked_the_same_way() -> None:
    """The daemon's `sim_actions` (controller/daemon/link.py) sends scenario actions live."""
    from controller.sim import parse_actions

    [drop] = parse_actions([{"t": 0.2, "action": "drop", "at": [1, 4]}], 5, "sim_actions")
    assert (drop.at, drop.n, drop.hand) == (Place(1, 4), 1, None)
    with pytest.raises(ScenarioError, match=r"^sim_actions: actions\[0\]\.at: .*0 to 4"):
        parse_actions([{"t": 0.2, "action": "drop", "at": [1, 5]}], 5, "sim_actions")
    with pytest.raises(ValueError, match="'throw' is not an action"):
        Action(0.0, "throw")
