"""Small builders shared by the rules tests."""

from __future__ import annotations

from typing import Any

from controller.rules import Game, Place, Position, Rules, Step, StepFollower, StepKind


def position(
    p0: list[int], p1: list[int], stores: tuple[int, int] = (0, 0), to_move: int = 0
) -> Position:
    return Position((tuple(p0), tuple(p1)), stores, to_move)


def game_at(
    variant: str,
    p0: list[int],
    p1: list[int],
    stores: tuple[int, int] = (0, 0),
    to_move: int = 0,
    **options: Any,
) -> Game:
    """A game of `variant` (with `options`) from a hand-built position."""
    return Game(variant, options, start=position(p0, p1, stores, to_move))


def kinds(steps: list[Step]) -> list[str]:
    return [s.kind.value for s in steps]


def physical(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s.kind.physical]


def places(steps: list[Step], kind: StepKind) -> list[Place]:
    return [s.at for s in steps if s.kind is kind and s.at is not None]


def state(game: Game | StepFollower) -> tuple[Any, ...]:
    """Everything that decides the rest of the game, comparable between Game and follower."""
    outcome = game.outcome
    return (
        tuple(game.board),
        game.to_move,
        None if outcome is None else (outcome.termination, outcome.winner),
    )


def rules_of(variant: str, **options: Any) -> Rules:
    return Rules.for_variant(variant, options)
