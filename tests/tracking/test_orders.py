"""Following the other order of a simultaneous opening (controller/tracking/orders.py): what it
keeps, and that a game without one pays nothing for it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.sensing.frames import Frame
from controller.sim import build_simulation, load_scenario, parse_scenario
from controller.simulate import report
from controller.simulate import run_simulation as run_any
from controller.tracking.orders import SEARCH_S, OrderSearch
from controller.tracking.referee import Referee
from controller.tracking.session import start_cases as start_referee

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def run_simulation(scenario: Any) -> Any:
    """These test the cases' referee (referee.py and its parts), which the one search replaced:
    they go with it (issue 12)."""
    return run_any(scenario, referee_kind="cases")


def _opening(extra: dict[str, object]) -> dict[str, object]:
    return {
        "variant": "congkak",
        "options": {"pits": 5, "simultaneous_opening": True},
        "sensors": {"random_seed": 6},
        "player": {"seconds_per_seed": 0.3},
        "moves": [1, 1],
        **extra,
    }


def test_the_frames_of_an_opening_are_let_go_once_it_is_long_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (The hands' tempo answers this opening right at once, and the cups' explanation once
    # the cups are read: neither is asked, so a search is kept.)
    monkeypatch.setattr(Referee, "_due_by_tempo", lambda self, options: None)
    monkeypatch.setattr(Referee, "_explain_again", lambda self, t, flags_before: False)
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


def test_a_game_without_a_simultaneous_opening_never_has_a_choice_to_make() -> None:
    """One hand at a time: no step of two hands is ever due at one place, so nothing is kept
    and nothing searched (the referee follows every frame at once)."""
    scenario = parse_scenario({"variant": "congkak", "options": {"pits": 5}, "moves": [1, 2]}, "x")
    simulation = build_simulation(scenario)
    world = simulation.world
    source = simulation.source()
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, 80)
    assert referee.orders is None
    while (frame := source.read(None)) is not None:
        referee.process(frame)
        assert referee.choices == []
    assert len(referee.game.completed) == 2


def test_a_copy_of_the_referee_shares_the_steps_taken() -> None:
    """The daemon journals steps by identity: a copy taken on (orders.py) must not make the
    steps before the answer changed look new."""
    _, referee = run_simulation(parse_scenario(_opening({}), "copy"))
    copy = referee.snapshot()
    assert copy.steps == referee.steps
    assert all(a is b for a, b in zip(copy.steps, referee.steps, strict=True))
    assert copy.orders is None
    assert copy.game is not referee.game and copy.detector is not referee.detector


def test_bench_openings_prints_one_figure_per_board_rate_and_tempo(capsys: object) -> None:
    from controller.bench.openings import main

    assert main(games=1) == 0
    out = capsys.readouterr().out.strip().splitlines()  # type: ignore[attr-defined]
    figures = json.loads(out[-1])
    assert set(figures) == {
        "80sps_0.3s",
        "80sps_0.125s",
        "10sps_0.3s",
        "10sps_0.125s",
        "7pits_80sps_0.25s",
        "7pits_10sps_0.25s",
    }
    for figure in figures.values():
        assert figure["games"] == 1 and 0 <= figure["exact"] <= 1
        assert figure["search_ms_max"] >= 0.0


def test_bench_openings_plays_the_same_openings_with_the_one_search() -> None:
    """`--referee search`: the same opening, the search's own figures (no order search)."""
    from controller.bench.openings import play_opening

    result = play_opening(80, 0.3, 1, 5, referee_kind="search")
    assert result["exact"] and not result["flagged"]
    assert result["answered_again"] == 0 and 0.0 < result["longest_search_ms"] < 1000.0


def test_an_opening_without_a_choice_is_let_go_as_well() -> None:
    """Two hands that never meet in one cup leave nothing to answer again; the frames are let
    go SEARCH_S after the opening all the same (review: at 80 SPS they were kept for good)."""
    late = {"actions": [{"t": SEARCH_S + 4, "action": "press", "at": [0, 0], "g": 0.5, "dur": 0.2}]}
    scenario = {**_opening(late), "sensors": {"random_seed": 1}, "moves": [1, 0]}
    _, referee = run_simulation(parse_scenario(scenario, "no choice"))
    orders = referee.orders
    assert orders is not None
    assert orders.choices_made == 0
    assert not orders.following and orders.frames == [] and orders.states == {}


def _replays_as_followed(orders: OrderSearch, referee: Referee) -> bool:
    """Replaying every frame kept, from the oldest copy kept, with the answers the referee
    followed, must give the referee as it is (else a search would start from a past that
    never was)."""
    start = min(orders.states)
    forced = {c.frame: c.taken for c in orders.choices}
    stop = orders.first + len(orders.frames)
    replayed, _ = orders._replay(orders.states[start], start, stop, forced)
    return (
        replayed.steps == referee.steps
        and [r.fell for r in replayed.steps] == [r.fell for r in referee.steps]  # (not compared)
        and [f.to_json() for f in replayed.flags] == [f.to_json() for f in referee.flags]
        and replayed.belief() == referee.belief()
    )


LONG_OPENING = {
    "sensors": {"random_seed": 24},
    "player": {"seconds_per_seed": 1.0},
    "moves": [4, 4],
}


@pytest.mark.parametrize(
    "scenario",
    [
        "congkak_simultaneous_seed_taken_along",
        "congkak_simultaneous_capture_or_relay",
        "long",
    ],
)
def test_what_is_kept_replays_to_the_referee_followed(
    scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever is kept (a child's two-minute opening keeps only its last seconds), and
    whichever answers a search changed, replays to the same referee. (The hands' tempo is
    not asked in the capture-or-relay case: it answers that right at once, with nothing to
    change.)"""
    if scenario == "congkak_simultaneous_capture_or_relay":
        monkeypatch.setattr(Referee, "_due_by_tempo", lambda self, options: None)
    if scenario == "long":
        parsed = parse_scenario({**_opening({}), **LONG_OPENING}, "long")
    else:
        parsed = load_scenario(SCENARIOS / f"{scenario}.json")
    simulation = build_simulation(parsed)
    world = simulation.world
    source = simulation.source()
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, 80)
    orders = referee.orders
    assert orders is not None
    checked = 0
    while (frame := source.read(None)) is not None:
        referee.process(frame)
        if orders.following and orders.choices and len(orders.frames) % 97 == 0:
            assert _replays_as_followed(orders, referee), f"at {frame.t:.2f} s"
            checked += 1
    assert checked >= 3 and orders.taken_back >= 1


def test_a_referee_that_takes_on_a_replay_still_knows_its_last_sow() -> None:
    """After `adopt`, the steps both followed alike are the live referee's objects; the last
    sow (a finger or a take-back may undo it, see `_sow_taken_back`) must still be known."""
    scenario = parse_scenario({"variant": "kalah", "moves": [2]}, "kalah")
    simulation = build_simulation(scenario)
    world = simulation.world
    source = simulation.source()
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, 80)
    copy: Referee | None = None
    while (frame := source.read(None)) is not None:
        referee.process(frame)
        if copy is not None:
            copy.process(frame)
        sows = [r for r in referee.steps if r.step.kind.value == "sow"]
        if copy is None and len(sows) == 1:
            copy = referee.snapshot()
        if len(sows) == 2:
            break
    assert copy is not None and copy.steps == referee.steps
    assert copy.steps[-1] is not referee.steps[-1]  # followed apart: equal, not the same
    referee.adopt(copy)
    last = referee.steps[-1]
    assert last.step.at is not None
    assert referee._last_sown_here(referee.cell_of[last.step.at])


class _ExplainedReferee:
    """Just what `OrderSearch.process` asks of a referee: two hands at play, and a frame in
    which the cups explain everything (explain.py) yet a doubt remains (a lost seed's flag,
    which stays while a hand holds seeds)."""

    def __init__(self, explained_at: float) -> None:
        self.game = SimpleNamespace(active_players=lambda: [0, 1])
        self.explained_at = explained_at
        self.explained_t = -1.0
        self.choices: list[tuple[int, int]] = []
        self.flags = 0

    def snapshot(self) -> _ExplainedReferee:
        return self

    def doubts(self) -> int:
        return self.flags

    def follow(self, frame: Frame) -> None:
        if frame.t == self.explained_at:
            self.explained_t = frame.t
            self.flags += 1


def test_what_the_cups_explained_is_not_searched_again() -> None:
    """Once the cups explained every step (the referee's `explained_t`), what was kept starts
    over from the next frame: a doubt raised in that same frame has nothing to replay (it
    used to index an empty list of frames), and later frames are kept from there."""
    search = OrderSearch()
    referee = _ExplainedReferee(explained_at=0.5)
    frames = [Frame(t=k / 10, raw=()) for k in range(10)]
    for frame in frames:
        search.process(referee, frame)  # type: ignore[arg-type]
    assert search.searches == 0
    assert search.first == 6 and search.frames == frames[6:]
    assert list(search.states) == [6]
