"""`sowboard bench opponent` is registered with its defaults, and its matches run (briefly)."""

from __future__ import annotations

import json

import pytest

from controller import cli
from controller.bench import opponent

from ..test_cli_args import record_call


def test_bench_opponent_gets_its_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_call(monkeypatch, "controller.bench.opponent")
    assert cli.main(["bench", "opponent"]) == 0
    assert cli.main(["bench", "opponent", "--games", "4", "--seconds", "0.1"]) == 0
    assert cli.main(["bench", "opponent", "--match", "oware_vs_openspiel_mcts"]) == 0
    assert calls == [
        {"games": 100, "seconds": 0.4, "matches": opponent.MATCHES},
        {"games": 4, "seconds": 0.1, "matches": opponent.MATCHES},
        {"games": 100, "seconds": 0.4, "matches": ("oware_vs_openspiel_mcts",)},
    ]


def test_level_match_alternates_colours_and_counts() -> None:
    from controller.rules import Rules

    tally = opponent.level_match(Rules.for_variant("congkak", {"pits": 5}), range(2), 0.01, 1)
    summary = tally.summary()
    assert summary["games"] == 2
    assert summary["wins"] + summary["draws"] + summary["losses"] == 2
    json.dumps(summary)


def test_openspiel_match_plays_legal_games_on_both_engines() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from controller.rules import Rules

    for name, rules in (
        ("mancala", Rules.for_variant("kalah", opponent.KALAH_6_4)),
        ("oware", Rules.for_variant("oware")),
    ):
        tally = opponent.openspiel_match(pyspiel, name, rules, range(1), 0.005, 1)
        assert tally.summary()["games"] == 1


def test_the_match_option_names_every_match() -> None:
    choices = {option: names for option, names, _, _ in cli.BENCH_CHOICES}
    assert tuple(choices["--match"]) == opponent.MATCHES
