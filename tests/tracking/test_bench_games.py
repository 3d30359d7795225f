"""The games `sowboard bench tracking` plays: clean and with a mistake, at 80 and at 10 SPS."""

from __future__ import annotations

import pytest

from controller.bench.tracking import FLAG_WINDOW_S, play_game

SENSORS = {
    "rate_sps": 80,
    "noise_g": 0.05,
    "seed_cv": 0.15,
    "ring_ms": 60,
    "glitch_rate": 1e-4,
    "calibration_error": 0.02,
}


def test_a_clean_expert_game_of_natural_seeds_ends_exact_without_flags() -> None:
    result = play_game("kalah", SENSORS, 0.125, seed=3)
    assert result.exact and result.flags == []
    assert result.latencies and max(result.latencies) < 80.0


def test_a_game_with_a_wrong_pit_is_flagged_in_time_and_ends_exact() -> None:
    result = play_game("kalah", SENSORS, 0.125, seed=4, mistake="wrong_pit")
    assert [m.kind for m in result.mistakes] == ["wrong_pit"]
    assert result.flagged == 1 and result.delays[0] <= FLAG_WINDOW_S
    assert result.exact


SLOW = {**SENSORS, "rate_sps": 10}


def test_a_clean_expert_game_at_ten_samples_per_second_ends_exact_without_flags() -> None:
    result = play_game("oware", SLOW, 0.125, seed=5)
    assert result.exact and result.flags == []


# What the referee does not yet flag in time in this game, and why (issue 12: the cases the one
# search replaced flagged both).
NOT_YET = {
    "extra_seed": "two seeds let go together, one of half a seed's weight, read as one heavy",
}


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(kind, marks=pytest.mark.xfail(reason=NOT_YET[kind], strict=True))
        if kind in NOT_YET
        else kind
        for kind in ("wrong_pit", "extra_seed", "not_all_lifted", "wrong_start")
    ],
)
def test_at_ten_samples_per_second_every_hand_mistake_is_flagged_within_half_a_second(
    kind: str,
) -> None:
    """Issue 3's target at 10 SPS, where a reading takes 0.4 s to follow a change: one seed in
    the wrong place, two in one place, seeds left in a lifted pit, the wrong pit lifted."""
    result = play_game("kalah", SLOW, 0.125, seed=2, mistake=kind)
    assert [m.kind for m in result.mistakes] == [kind]
    assert result.flagged == 1 and result.delays[0] <= FLAG_WINDOW_S, kind
    assert result.exact, kind
