"""The games `sowboard bench tracking` plays: one clean and one with a mistake, at 80 SPS."""

from __future__ import annotations

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
