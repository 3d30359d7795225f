"""`sowboard bench rules`: random games for each preset, moves per second.

Two figures per variant: the fast path search uses (`Game.random_playout`) and the plain
per-move API (`legal_moves()` then `play()`). When DeepMind's OpenSpiel is installed
(`pip install open_spiel`), its C++ `mancala` (Kalah) and `oware` are driven from Python the
same way, side by side, and the ratios printed.

Then the engine's batch playouts (`controller.engine.batch`, many games at once on numpy
arrays) in Kalah(6,4), oware and congkak, beside OpenSpiel's C++ random rollouts measured in the
same run: `pyspiel.MCTSBot` with one simulation of a `pyspiel.RandomRolloutEvaluator` of
`ROLLOUTS` rollouts from the start, all in C++. OpenSpiel does not count the moves of its
rollouts: each is a uniformly random game from the start, so its moves are the mean length of
such games, taken from the batch's own games (same rules: `sowboard bench openspiel`). The two
are measured in turns and the ratio is the median of each pair's ratio.

The last three lines are the fast-path figures.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from controller.engine.batch import BatchRules
from controller.rules import Game, Rules

PRESETS = ("kalah", "oware", "congkak")
OPENSPIEL_GAMES = {"kalah": "mancala", "oware": "oware"}
KALAH_6_4 = {"seeds": 4, "capture_requires_opposite": True, "end_sweep": "owner"}
# name: (variant, options, OpenSpiel game with the same rules or None)
BATCH_GAMES: dict[str, tuple[str, dict[str, object], str | None]] = {
    "kalah_6_4": ("kalah", KALAH_6_4, "mancala"),
    "oware": ("oware", {}, "oware"),
    "congkak": ("congkak", {}, None),
}
BATCH_SIZE = 16384  # games played at once
ROLLOUTS = 1000  # OpenSpiel rollouts per timed call


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


def batch_rate(rules: Rules, seed: int = 1) -> tuple[Callable[[float], tuple[int, float]], float]:
    """Batch playouts of `BATCH_SIZE` games from the start; and the mean length of a game."""
    batch = BatchRules(rules)
    boards = batch.start_boards(BATCH_SIZE)
    to_move = np.zeros(BATCH_SIZE, np.int8)
    rng = np.random.default_rng(seed)
    first = batch.playouts(boards, to_move, rng=rng)  # also warms the tables and caches

    def run(seconds: float) -> tuple[int, float]:
        moves = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            moves += batch.playouts(boards, to_move, rng=rng).total_moves
        return moves, time.perf_counter() - start

    return run, first.total_moves / BATCH_SIZE


def openspiel_rollout_rate(
    name: str, game_length: float, seed: int = 1
) -> Callable[[float], tuple[int, float]] | None:
    """OpenSpiel's C++ random rollouts: one MCTS simulation of `ROLLOUTS` rollouts a call."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    evaluator = pyspiel.RandomRolloutEvaluator(ROLLOUTS, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 1, 1000, False, seed, False)
    state = game.new_initial_state()

    def run(seconds: float) -> tuple[int, float]:
        calls = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            bot.step(state)
            calls += 1
        return round(calls * ROLLOUTS * game_length), time.perf_counter() - start

    return run


def batch_figures(seconds: float, repeats: int) -> None:
    """Ours and OpenSpiel's measured in turns, `repeats` times each: on a machine whose load
    changes (a shared PC, a Pi running the daemon) a pair measured back to back shares it, so
    the ratio printed is the median of the pairs' ratios."""
    print(
        f"# batch playouts, {BATCH_SIZE} games at once, beside OpenSpiel's C++ random rollouts "
        f"(MCTSBot, one simulation of a RandomRolloutEvaluator of {ROLLOUTS} rollouts), "
        f"measured in turns, medians of {repeats}",
        flush=True,
    )
    for name, (variant, options, theirs_name) in BATCH_GAMES.items():
        run, length = batch_rate(Rules.for_variant(variant, options))
        theirs_run = openspiel_rollout_rate(theirs_name, length) if theirs_name else None
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(repeats):
            ours.append(_median_rate(run, seconds, 1))
            if theirs_run is not None:
                theirs.append(_median_rate(theirs_run, seconds, 1))
        rate = statistics.median(ours)
        print(f"{name}_batch moves_per_s={rate:.0f} game_length={length:.1f}", flush=True)
        if theirs_name is None:
            continue
        if theirs_run is None:
            print(f"# openspiel_{theirs_name}_rollouts: pyspiel not installed")
            continue
        print(f"openspiel_{theirs_name}_rollouts moves_per_s={statistics.median(theirs):.0f}")
        ratio = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
        print(f"{name}_batch/openspiel_{theirs_name}_rollouts ratio={ratio:.2f}", flush=True)


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
    batch_figures(seconds, repeats)
    for name in PRESETS:
        print(f"{name} moves_per_s={fast[name]:.0f}")
    return 0
