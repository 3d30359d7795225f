"""`sowboard bench rules`: random games for each preset, moves per second.

Two figures per variant: the fast path search uses (`Game.random_playout`) and the plain
per-move API (`legal_moves()` then `play()`). When DeepMind's OpenSpiel is installed
(`pip install open_spiel`), its C++ `mancala` (Kalah) and `oware` are driven from Python the
same way, side by side, and the ratios printed. The last three lines are the fast-path figures.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from controller.rules import Game, Rules

PRESETS = ("kalah", "oware", "congkak")
OPENSPIEL_GAMES = {"kalah": "mancala", "oware": "oware"}


def _median_rate(run: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        moves, elapsed = run(seconds)
        rates.append(moves / elapsed)
    return statistics.median(rates)


def _timed(one_game: Callable[[], int]) -> Callable[[float], tuple[int, float]]:
    """Whole games played back to back for `seconds`: (moves, elapsed)."""

    def run(seconds: float) -> tuple[int, float]:
        moves = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            moves += one_game()
        return moves, time.perf_counter() - start

    return run


def playout_rate(rules: Rules, seed: int = 1) -> Callable[[float], tuple[int, float]]:
    """The fast path search uses: `Game.random_playout`."""
    rng = random.Random(seed)
    return _timed(lambda: Game(rules).random_playout(rng.random))


def per_call_rate(rules: Rules, seed: int = 1) -> Callable[[float], tuple[int, float]]:
    """The plain per-move API: `legal_moves()` then `play()`."""
    rng = random.Random(seed)

    def one_game() -> int:
        game = Game(rules)
        moves = 0
        while game.outcome is None:
            game.play(rng.choice(game.legal_moves()))
            moves += 1
        return moves

    return _timed(one_game)


def openspiel_rate(name: str, seed: int = 1) -> Callable[[float], tuple[int, float]] | None:
    """OpenSpiel's C++ game driven from Python the way a Python user would."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(seed)

    def one_game() -> int:
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        return moves

    return _timed(one_game)


def main(seconds: float = 2.0, repeats: int = 5) -> int:
    print(f"# random games, median of {repeats} runs of {seconds:g} s per figure")
    fast: dict[str, float] = {}
    for name in PRESETS:
        rules = Rules.for_variant(name)
        per_call = _median_rate(per_call_rate(rules), seconds, repeats)
        print(f"{name}_per_call moves_per_s={per_call:.0f}", flush=True)
        fast[name] = _median_rate(playout_rate(rules), seconds, repeats)
        theirs_name = OPENSPIEL_GAMES.get(name)
        theirs = openspiel_rate(theirs_name) if theirs_name else None
        if theirs_name and theirs is None:
            print(f"# openspiel_{theirs_name}: pyspiel not installed (pip install open_spiel)")
        elif theirs_name and theirs is not None:
            rate = _median_rate(theirs, seconds, repeats)
            print(f"openspiel_{theirs_name} moves_per_s={rate:.0f}", flush=True)
            print(
                f"{name}/openspiel_{theirs_name} ratio={fast[name] / rate:.2f}"
                f" per_call_ratio={per_call / rate:.2f}",
                flush=True,
            )
    for name in PRESETS:
        print(f"{name} moves_per_s={fast[name]:.0f}")
    return 0
