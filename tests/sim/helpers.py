"""Builders shared by the simulator tests."""

from __future__ import annotations

import random
from typing import Any

from controller.rules import Game, Place
from controller.sim import Scenario, SimWorld, parse_scenario
from controller.sim.world import CellCalibration

QUIET = {"noise_g": 0.0, "glitch_rate": 0.0, "drift_g_per_min": 0.0, "ring_ms": 0.0}


def scenario(
    variant: str = "kalah", sensors: dict[str, Any] | None = None, **rest: Any
) -> Scenario:
    return parse_scenario({"variant": variant, "sensors": sensors or {}, **rest}, "test.json")


def quiet(**sensors: Any) -> dict[str, Any]:
    """Sensors without noise, glitches, drift or ringing, so that one effect can be measured."""
    return {**QUIET, **sensors}


def grams(world: SimWorld, raw: int | None, cell: int, cal: list[CellCalibration]) -> float:
    assert raw is not None
    return cal[cell].grams(raw)


def trace(world: SimWorld, place: Place, until: float) -> list[tuple[float, float]]:
    """(true sample time, grams of seeds by the true calibration) of `place` up to `until`."""
    cal = world.true_calibration()
    cell = world.cell_of[place]
    out = []
    while world.now < until:
        frame = world.step()
        out.append((world.now, grams(world, frame.raw[cell], cell, cal)))
    return out


def random_game(variant: str, seed: int, **options: Any) -> tuple[list[int], Game]:
    """A whole game of random legal moves: its pit choices and the finished game."""
    game = Game(variant, options)
    rng = random.Random(seed)
    moves = []
    while not game.over:
        pit = rng.choice(game.legal_moves())
        moves.append(pit)
        game.play(pit)
    return moves, game


def position_json(game: Game) -> dict[str, Any]:
    position = game.position()
    return {
        "pits": [list(position.pits[0]), list(position.pits[1])],
        "stores": list(position.stores),
    }
