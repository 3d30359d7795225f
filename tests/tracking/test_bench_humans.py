"""How `sowboard bench humans` scores a game: exact, false flags, mistakes flagged in time."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from controller.bench import humans
from controller.rules import Place
from controller.sim import human
from controller.sim.player import InjectedMistake
from controller.tracking.verdicts import Flag


def _flag(kind: str, at: Place, t: float) -> Flag:
    return Flag(t=t, kind=kind, at=at, expected=[])


def test_a_flag_counts_as_false_unless_a_mistake_at_its_place_came_just_before() -> None:
    mistake = InjectedMistake("wrong_pit", 10.0, Place(0, 2), 0, Place(0, 1))

    flags = [
        _flag("wrong_pit", Place(0, 2), 10.3),  # the mistake's
        _flag("extra_seed", Place(0, 2), 11.0),  # same place, soon after: the same mistake
        _flag("foreign_seed", Place(1, 4), 10.3),  # elsewhere
        _flag("wrong_pit", Place(0, 2), 10.0 + humans.FLAG_SPAN_S + 1),  # long after
    ]
    assert len(humans._false_flags(flags, [mistake], [])) == 2
    assert len(humans._false_flags(flags, [], [])) == 4


def test_a_flag_shown_after_its_mistake_is_its_own_whenever_it_reckons_it_was_made() -> None:
    # Fingers brushed [0, 2] at 9.8 s and the seed fell there, in the wrong pit, at 10.0 s: the
    # referee reckons the mistake from when the cup began to move (its `t`), and shows the
    # flag once the cup has settled. Shown after the mistake, it is the mistake's; shown
    # before it, it is not.
    mistake = InjectedMistake("wrong_pit", 10.0, Place(0, 2), 0, Place(0, 1))
    flag = Flag(t=9.8, kind="wrong_pit", at=Place(0, 2), expected=[], shown_t=10.3)
    assert len(humans._false_flags([flag], [mistake], [])) == 0
    flag.shown_t = 9.9
    assert len(humans._false_flags([flag], [mistake], [])) == 1


def test_a_flag_renamed_to_its_mistake_is_judged_from_the_rename() -> None:
    # A seed lost for [0, 2] at 10 s, the next seed in [0, 3] at 10.5 s, flagged there as a
    # wrong pit at 10.7 s and renamed a seed lost at [0, 2]: the light moved to [0, 2] then.
    mistake = InjectedMistake("seed_lost", 10.0, Place(0, 2), 0, Place(0, 2))
    landings = [SimpleNamespace(t=10.5)]
    flag = Flag(t=10.5, kind="seed_lost", at=Place(0, 2), expected=[], shown_t=10.7)
    flag.named_t = 12.0
    assert len(humans._false_flags([flag], [mistake], landings)) == 0
    flag.named_t = 10.5 + humans.FLAG_SPAN_S + 1.0  # (renamed long after: another problem's)
    assert len(humans._false_flags([flag], [mistake], landings)) == 1


def test_a_seed_lost_is_flagged_in_time_from_the_next_seed_after_a_pause() -> None:
    # A child lost a seed for [0, 2] at 10 s, paused 9 s with seeds in hand, and sowed the
    # next one at 19 s: only then can the board show the loss, and its flag at 19.2 s is the
    # mistake's (not a false flag), within the window.
    mistake = InjectedMistake("seed_lost", 10.0, Place(0, 2), 0, Place(0, 2))
    landings = [SimpleNamespace(t=9.0), SimpleNamespace(t=19.0)]
    flag = _flag("seed_lost", Place(0, 2), 19.2)
    assert len(humans._false_flags([flag], [mistake], landings)) == 0
    assert len(humans._false_flags([flag], [mistake], [])) == 1  # (timed from the loss itself)


def test_a_flag_renamed_to_the_mistake_counts_from_the_rename() -> None:
    # A seed lost for [0, 2] at 10 s; the next seed landed in [0, 3] at 10.5 s and was flagged
    # there as a wrong pit at 10.7 s, renamed a seed lost at [0, 2] at 12.0 s: the board
    # showed the loss from 12.0 s (1.5 s: late at 80 SPS), not from 10.7 s.
    mistake = InjectedMistake("seed_lost", 10.0, Place(0, 2), 0, Place(0, 2))
    landings = [SimpleNamespace(t=10.5)]
    flag = Flag(t=10.5, kind="seed_lost", at=Place(0, 2), expected=[], shown_t=10.7)
    referee = SimpleNamespace(flags=[flag])
    assert humans.flag_delay(mistake, referee, landings) == pytest.approx(0.2)
    flag.named_t = 12.0
    assert humans.flag_delay(mistake, referee, landings) == pytest.approx(1.5)


def test_a_miss_is_classed_by_what_its_flag_did() -> None:
    # A seed lost for [0, 2] at 10 s, the next seed in [0, 3] at 10.5 s.
    mistake = InjectedMistake("seed_lost", 10.0, Place(0, 2), 0, Place(0, 2))
    landings = [SimpleNamespace(t=10.5)]
    lost = Flag(t=10.5, kind="seed_lost", at=Place(0, 2), expected=[], shown_t=10.7)
    assert humans.miss_class(mistake, [lost], landings) == "raised late"
    lost.named_t = 11.7  # (flagged as the next seed in the wrong pit, renamed at the spare)
    assert humans.miss_class(mistake, [lost], landings) == "renamed late"
    stray = Flag(t=10.5, kind="wrong_pit", at=Place(0, 3), expected=[], shown_t=10.7)
    assert humans.miss_class(mistake, [stray], landings) == "named otherwise"
    stray.shown_t = 10.5 + humans.FLAG_SPAN_S + 1.0  # (long after: another problem's)
    assert humans.miss_class(mistake, [stray], landings) == "never"
    assert humans.miss_class(mistake, [], landings) == "never"


def test_a_false_flag_is_classed_by_what_became_of_it() -> None:
    flag = _flag("extra_seed", Place(0, 2), 10.0)
    assert humans.false_class(flag) == "raised"
    flag.named_t = 11.0
    assert humans.false_class(flag) == "renamed"
    flag.detail = "withdrawn: the cups are explained without it"
    assert humans.false_class(flag) == "withdrawn"


def test_misses_and_false_flags_are_counted_by_rate_and_class() -> None:
    def game(rate: int, misses: list[str], false: list[str]) -> humans.HumanGame:
        return humans.HumanGame(
            "", "child", "oware", rate, True, [], len(false), [], [], misses=misses, false=false
        )

    games = [
        game(10, ["seed_lost renamed late", "extra_seed never"], []),
        game(10, ["seed_lost renamed late"], ["extra_seed withdrawn"]),
        game(80, ["seed_lost renamed late"], []),
    ]
    assert humans.by_class(games, lambda r: r.misses) == {
        "10 SPS extra_seed never": 1,
        "10 SPS seed_lost renamed late": 2,
        "80 SPS seed_lost renamed late": 1,
    }
    assert humans.by_class(games, lambda r: r.false) == {"10 SPS extra_seed withdrawn": 1}


@pytest.fixture
def still_adult(monkeypatch: pytest.MonkeyPatch) -> None:
    """An adult's tempo and pauses, without touches (what the referee handled before)."""
    quiet = dataclasses.replace(
        human.PROFILES["adult"],
        rest_p=0.0,
        lean_p=0.0,
        brush_p=0.0,
        two_handfuls_p=0.0,
        knock_p=0.0,
        other_person_p=0.0,
    )
    monkeypatch.setitem(human.PROFILES, "adult", quiet)


@pytest.mark.usefixtures("still_adult")
def test_a_clean_game_at_a_persons_tempo_scores_exact_with_no_false_flag() -> None:
    result = humans.play_game("adult", "kalah", {}, 80, 0.03, seed=3, mistakes=False)
    assert result.mistakes == [] and result.exact and result.false_flags == 0
    assert result.latencies and result.us_per_frame_cpu > 0


@pytest.mark.usefixtures("still_adult")
def test_every_mistake_of_a_still_adult_at_80_sps_is_flagged_in_time_and_ends_exact() -> None:
    """Two seeds slipping together, a bounce into the next cup and the wrong pit, each put
    right as a person would: each flagged at its place within 0.5 s, no other flag."""
    result = humans.play_game("adult", "kalah", {}, 80, 0.03, seed=4, mistakes=True)
    assert len(result.mistakes) >= 3
    assert result.flagged == len(result.mistakes) and result.false_flags == 0
    assert len(result.delays) == len(result.mistakes)
    assert max(result.delays) <= humans.FLAG_WINDOW_S[80] and result.exact


def test_the_mistakes_are_counted_by_rate_and_kind_with_those_flagged_in_time() -> None:
    def game(rate: int, kinds: list[str], in_time: list[bool]) -> humans.HumanGame:
        mistakes = [InjectedMistake(k, 1.0, Place(0, 1), 0, Place(0, 1)) for k in kinds]
        return humans.HumanGame("", "adult", "kalah", rate, True, [], 0, mistakes, in_time)

    games = [
        game(80, ["seed_lost", "wrong_pit"], [False, True]),
        game(10, ["seed_lost"], [True]),
        game(80, ["seed_lost"], [True]),
    ]
    assert humans.by_kind(games) == {
        "10 SPS seed_lost": {"mistakes": 1, "flagged": 1},
        "80 SPS seed_lost": {"mistakes": 2, "flagged": 1},
        "80 SPS wrong_pit": {"mistakes": 1, "flagged": 1},
    }


def test_the_summary_has_the_issues_keys() -> None:
    keys = set(humans.summary([]))
    assert {
        "games",
        "exact_final",
        "false_flags",
        "mistakes",
        "mistakes_flagged",
        "flag_delay_ms_p50",
        "flag_delay_ms_max",
        "latency_ms_p50",
        "latency_ms_p99",
        "us_per_frame_cpu",
    } <= keys


def test_a_run_from_a_later_game_plays_the_games_of_a_run_from_the_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--first`: game k is configuration k of the grid with random seed k whatever game the
    run starts with, so runs can share out the 600 games, or hold some out."""
    played: list[tuple[object, ...]] = []

    def play(*config: object, seed: int, mistakes: bool) -> object:
        played.append((*config, seed, mistakes))
        return humans.HumanGame(f"game {seed}", "child", "kalah", 80, True, [], 0, [], [])

    monkeypatch.setattr(humans, "play_game", play)
    monkeypatch.setattr(humans, "summary", lambda results, fast_only=True: {"n": len(results)})
    assert humans.main(games=5) == 0
    whole = list(played)
    played.clear()
    assert humans.main(games=2, first=4) == 0
    assert played == whole[3:5]
    assert "# 2/2 game 5" in capsys.readouterr().err
