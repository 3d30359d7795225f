"""Following the other order of a simultaneous opening (controller/tracking/orders.py): what it
keeps, and that a game without one pays nothing for it."""

from __future__ import annotations

import json

from controller.sim import parse_scenario
from controller.simulate import report, run_simulation
from controller.tracking.orders import SEARCH_S


def _opening(extra: dict[str, object]) -> dict[str, object]:
    return {
        "variant": "congkak",
        "options": {"pits": 5, "simultaneous_opening": True},
        "sensors": {"random_seed": 6},
        "player": {"seconds_per_seed": 0.3},
        "moves": [1, 1],
        **extra,
    }


def test_the_frames_of_an_opening_are_let_go_once_it_is_long_over() -> None:
    # A light touch long after the opening keeps the board running that long.
    late = {"actions": [{"t": SEARCH_S + 4, "action": "press", "at": [0, 0], "g": 0.5, "dur": 0.2}]}
    simulation, referee = run_simulation(parse_scenario(_opening(late), "late"))
    orders = referee.orders
    assert orders is not None
    assert orders.taken_back >= 1, "this opening needs an order answered again"
    assert not orders.following
    assert orders.frames == [] and orders.states == {} and orders.choices == []
    result = report(simulation, referee)
    assert result["flags"] == []
    assert result["belief"]["pits"] == result["truth"]["pits"]


def test_a_game_without_a_simultaneous_opening_follows_no_orders() -> None:
    scenario = parse_scenario({"variant": "congkak", "options": {"pits": 5}, "moves": [1]}, "x")
    _, referee = run_simulation(scenario)
    assert referee.orders is None
    assert referee.choices == []


def test_a_copy_of_the_referee_shares_the_steps_taken() -> None:
    """The daemon journals steps by identity: a copy taken on (orders.py) must not make the
    steps before the answer changed look new."""
    _, referee = run_simulation(parse_scenario(_opening({}), "copy"))
    copy = referee.snapshot()
    assert copy.steps == referee.steps
    assert all(a is b for a, b in zip(copy.steps, referee.steps, strict=True))
    assert copy.orders is None
    assert copy.game is not referee.game and copy.detector is not referee.detector


def test_bench_openings_prints_one_figure_per_rate_and_tempo(capsys: object) -> None:
    from controller.bench.openings import main

    assert main(games=1) == 0
    out = capsys.readouterr().out.strip().splitlines()  # type: ignore[attr-defined]
    figures = json.loads(out[-1])
    assert set(figures) == {"80sps_0.3s", "80sps_0.125s", "10sps_0.3s", "10sps_0.125s"}
    for figure in figures.values():
        assert figure["games"] == 1 and 0 <= figure["exact"] <= 1
        assert figure["search_ms_max"] >= 0.0
