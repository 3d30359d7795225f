"""`sowboard bench openspiel`: the rules engine against DeepMind's OpenSpiel, move by move.

OpenSpiel (`pip install open_spiel`, the `bench` extra) implements two of our rule sets in C++:
`mancala` is Kalah(6,4) (RULES.md: kalah with seeds=4, capture_requires_opposite=true,
end_sweep=owner) and `oware` is abapa Oware, as our preset. Random games are played in both;
before every move the boards, stores, player to move (and for oware the legal moves) must be the
same, and at the end the winner. Prints the number of games, plies and disagreements.
"""

from __future__ import annotations

import random
from typing import Any

from controller.rules import Game

KALAH_6_4 = {"seeds": 4, "capture_requires_opposite": True, "end_sweep": "owner"}


def _winner(returns: list[float]) -> int | None:
    return 0 if returns[0] > 0 else 1 if returns[1] > 0 else None


def check_mancala(pyspiel: Any, games: int, seed: int) -> tuple[int, int]:
    """OpenSpiel's board: slot 0 is player 1's store, 1-6 player 0's pits, 7 its store, 8-13
    player 1's pits; an action is the slot sown from."""
    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    bad = plies = 0
    for _ in range(games):
        state = game.new_initial_state()
        ours = Game("kalah", KALAH_6_4)
        while not state.is_terminal():
            slots = [int(x) for x in state.observation_tensor()[:14]]
            mine = [ours.stores()[1], *ours.pits(0), ours.stores()[0], *ours.pits(1)]
            if slots != mine or state.current_player() != ours.to_move:
                bad += 1
                break
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            ours.play(action - 1 if action <= 6 else action - 8)
            plies += 1
        else:
            if ours.outcome is None or ours.outcome.winner != _winner(state.returns()):
                bad += 1
    return bad, plies


def check_oware(pyspiel: Any, games: int, seed: int) -> tuple[int, int]:
    """OpenSpiel's observation: 12 houses (player 0's first) then the two scores, over 48."""
    game = pyspiel.load_game("oware")
    rng = random.Random(seed)
    bad = plies = 0
    for _ in range(games):
        state = game.new_initial_state()
        ours = Game("oware")
        while not state.is_terminal():
            seen = [round(x * 48) for x in state.observation_tensor()]
            mine = [*ours.pits(0), *ours.pits(1), *ours.stores()]
            legal = sorted(state.legal_actions())
            if (
                seen != mine
                or state.current_player() != ours.to_move
                or legal != ours.legal_moves()
            ):
                bad += 1
                break
            action = rng.choice(legal)
            state.apply_action(action)
            ours.play(action)
            plies += 1
        else:
            if ours.outcome is None or ours.outcome.winner != _winner(state.returns()):
                bad += 1
    return bad, plies


def main(games: int = 1000) -> int:
    try:
        import pyspiel
    except ImportError:
        print("pyspiel is not installed: pip install open_spiel (or the bench extra)")
        return 2
    bad_k, plies_k = check_mancala(pyspiel, games, seed=1)
    print(f"kalah(6,4) vs openspiel mancala: games={games} plies={plies_k} disagreements={bad_k}")
    bad_o, plies_o = check_oware(pyspiel, games, seed=2)
    print(f"oware vs openspiel oware: games={games} plies={plies_o} disagreements={bad_o}")
    return 1 if bad_k or bad_o else 0
