"""`sowboard bench opponent`: the computer opponent against OpenSpiel's MCTS, and its own levels.

Three matches, colours alternated game by game:

- level 5 against OpenSpiel's C++ MCTS bot (`pyspiel.MCTSBot`, UCT with one random rollout
  per leaf, MCTS-Solver on, as OpenSpiel's own mcts example) in Kalah(6,4) (OpenSpiel's
  `mancala`) and in oware, each side given the same wall time per move (`--move-s`);
- level 5 against level 1 in congkak with 7 pits.

Both sides of a match play on our `Game` (the referee) and on OpenSpiel's state; a move that
the two disagree on stops the bench. The last line is one JSON object: games, wins, draws,
losses and the win rate of level 5 per match, and the mean think time per move of each side.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from controller.engine.search import best_move
from controller.rules import Game, Rules

KALAH_6_4 = {"seeds": 4, "capture_requires_opposite": True, "end_sweep": "owner"}

# A player: (game, seconds) -> pit.
Player = Callable[[Game, float], int]


def level_player(level: int, seed: int) -> Player:
    def play(game: Game, seconds: float) -> int:
        return best_move(game.position(), game.rules, level, seconds, seed=seed + game.ply)

    return play


def _to_action(name: str, player: int, pit: int) -> int:
    """OpenSpiel's action for our pit: mancala numbers slots 1-6 and 8-13, oware pits 0-5."""
    if name == "mancala":
        return 1 + pit if player == 0 else 8 + pit
    return pit


def _to_pit(name: str, action: int) -> int:
    if name == "mancala":
        return action - 1 if action <= 6 else action - 8
    return int(action)


def openspiel_match(
    pyspiel: Any, name: str, rules: Rules, games: range, seconds: float, seed: int
) -> Tally:
    """Level 5 against OpenSpiel's MCTS in OpenSpiel game `name`; level 5 is player g % 2."""
    spiel_game = pyspiel.load_game(name)
    ours = level_player(5, seed)
    tally = Tally()
    for g in games:
        engine_side = g % 2
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed + g)
        bot = pyspiel.MCTSBot(
            spiel_game, evaluator, 2.0, 10**9, 1000, True, seed + g, False,
            pyspiel.ChildSelectionPolicy.UCT, seconds,
        )  # fmt: skip
        state = spiel_game.new_initial_state()
        game = Game(rules)
        while game.outcome is None:
            mover = game.to_move
            assert mover is not None and mover == state.current_player()
            started = time.perf_counter()
            if mover == engine_side:
                pit = ours(game, seconds)
                tally.engine_s.append(time.perf_counter() - started)
            else:
                pit = _to_pit(name, bot.step(state))
                tally.other_s.append(time.perf_counter() - started)
            state.apply_action(_to_action(name, mover, pit))
            game.play(pit)
        if not state.is_terminal():
            raise RuntimeError(f"{name}: OpenSpiel's game goes on where ours ended")
        tally.add(game, engine_side)
    return tally


def level_match(rules: Rules, games: range, seconds: float, seed: int) -> Tally:
    """Level 5 against level 1; level 5 is player g % 2."""
    strong, weak = level_player(5, seed), level_player(1, seed + 1)
    tally = Tally()
    for g in games:
        engine_side = g % 2
        game = Game(rules)
        while game.outcome is None:
            started = time.perf_counter()
            if game.to_move == engine_side:
                game.play(strong(game, seconds))
                tally.engine_s.append(time.perf_counter() - started)
            else:
                game.play(weak(game, seconds))
                tally.other_s.append(time.perf_counter() - started)
        tally.add(game, engine_side)
    return tally


@dataclass
class Tally:
    """Results of level 5 in some games of a match, and the think times of both sides."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    engine_s: list[float] = field(default_factory=list)
    other_s: list[float] = field(default_factory=list)

    def add(self, game: Game, engine_side: int) -> None:
        assert game.outcome is not None
        winner = game.outcome.winner
        if winner is None:
            self.draws += 1
        elif winner == engine_side:
            self.wins += 1
        else:
            self.losses += 1

    def merge(self, other: Tally) -> None:
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.engine_s += other.engine_s
        self.other_s += other.other_s

    def summary(self) -> dict[str, Any]:
        games = self.wins + self.draws + self.losses
        return {
            "games": games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.wins / games, 3) if games else None,
            "level5_mean_move_s": _mean(self.engine_s),
            "other_mean_move_s": _mean(self.other_s),
        }


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


MATCHES = ("kalah_6_4_vs_openspiel_mcts", "oware_vs_openspiel_mcts", "congkak_7_vs_level_1")


def play_chunk(match: str, games: range, seconds: float, seed: int) -> Tally:
    """Games `games` of one match (run in a worker process)."""
    if match == "congkak_7_vs_level_1":
        return level_match(Rules.for_variant("congkak"), games, seconds, seed)
    import pyspiel

    if match == "kalah_6_4_vs_openspiel_mcts":
        rules = Rules.for_variant("kalah", KALAH_6_4)
        return openspiel_match(pyspiel, "mancala", rules, games, seconds, seed)
    return openspiel_match(pyspiel, "oware", Rules.for_variant("oware"), games, seconds, seed)


def main(
    games: int = 100,
    seconds: float = 0.4,
    seed: int = 1,
    chunk: int = 10,
    matches: tuple[str, ...] = MATCHES,
) -> int:
    """Play `matches` (all three by default; one alone screens a change in a quarter of the
    time) and print their tallies."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("pyspiel is not installed: pip install open_spiel (or the bench extra)")
        return 2
    # Games run in chunks, one worker process per CPU: each game is still one process playing
    # both sides in turn, so both get the same wall time under the same load.
    workers = max(1, min(os.cpu_count() or 1, 4))
    print(
        f"# level 5 with {seconds:g} s a move, OpenSpiel's MCTS the same; {games} games a match, "
        f"colours alternated; {workers} games at a time"
    )
    tallies = {match: Tally() for match in matches}
    with ProcessPoolExecutor(workers) as pool:
        futures = {
            pool.submit(play_chunk, match, range(first, min(games, first + chunk)), seconds, seed):
            match
            for first in range(0, games, chunk)
            for match in matches
        }  # fmt: skip
        for future in as_completed(futures):
            match = futures[future]
            tallies[match].merge(future.result())
            print(f"{match} {json.dumps(tallies[match].summary())}", flush=True)
    results: dict[str, Any] = {match: tallies[match].summary() for match in matches}
    engine = [t for match in matches for t in tallies[match].engine_s]
    results["level5_mean_move_s"] = _mean(engine)
    results["move_s"] = seconds
    print(json.dumps(results))
    return 0
