"""`sowboard selfplay --games N [--variant V] [--sim]`: games nobody plays (issue 16, build 4).

Each game picks uniformly among the legal moves (a seeded random player: game k of a run
with `--seed S` is the same game every time). Without `--sim` the rules engine alone plays;
with `--sim` the virtual hands play it on the simulated board and the referee follows the
frames, as the daemon does: the record written is then the referee's (the moves it
recognised), and the summary says whether it equals the moves the hands played, whether the
referee ended knowing where every seed is, and how many flags it raised (none is right: the
hands make no mistakes).

Each game's record (RULES.md section 5, plus its winner and stores) goes to
`<out>/game-NNNN.json` (`sowboard replay` reads it); the summary goes to `<out>/summary.json`
and is the last line printed.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules import Game, Rules

MAX_PLIES = 5000  # a game still going then is cut short and counted as unfinished


class SelfPlayError(ValueError):
    """The games cannot be played as asked (the message says why)."""


@dataclass
class Played:
    record: dict[str, Any]
    over: bool
    winner: int | str | None
    plies: int
    agreed: bool | None = None  # --sim: the referee's moves are the hands'
    exact: bool | None = None  # --sim: the referee ends knowing every seed
    flags: int = 0  # --sim: flags raised (the hands make no mistakes)


def check_rules(variant: str, options: dict[str, Any]) -> Rules:
    from controller.rules import OptionError

    try:
        rules = Rules.for_variant(variant, options)
    except OptionError as err:
        raise SelfPlayError(str(err)) from None
    if rules.options.simultaneous_opening:
        raise SelfPlayError("simultaneous_opening games are not played by selfplay (yet)")
    return rules


def random_moves(
    variant: str, options: dict[str, Any], rng: random.Random
) -> tuple[Game, list[int]]:
    game = Game(variant, options)
    moves: list[int] = []
    while not game.over and len(moves) < MAX_PLIES:
        pit = rng.choice(game.legal_moves())
        game.play(pit)
        moves.append(pit)
    return game, moves


def _record(variant: str, options: dict[str, Any], moves: list[int], game: Game) -> dict[str, Any]:
    position = game.position().to_json()
    return {
        "variant": variant,
        "options": options,
        "moves": moves,
        "over": game.over,
        "winner": position["winner"],
        "stores": list(game.stores()),
    }


def engine_game(variant: str, options: dict[str, Any], seed: int) -> Played:
    game, moves = random_moves(variant, options, random.Random(seed))
    record = _record(variant, options, moves, game)
    return Played(record, game.over, record["winner"], len(moves))


def sim_game(variant: str, options: dict[str, Any], seed: int) -> Played:
    """The same random game played by the virtual hands and followed by the referee."""
    from controller.bench.tracking import ends_exact, run_referee
    from controller.sim import build_simulation, parse_scenario

    _engine, moves = random_moves(variant, options, random.Random(seed))
    scenario = parse_scenario(
        {
            "variant": variant,
            "options": options,
            "sensors": {"random_seed": seed},
            "moves": moves,
        },
        f"selfplay:{variant}:{seed}",
    )
    simulation = build_simulation(scenario)
    referee, _us = run_referee(simulation, time.perf_counter)
    seen = [m.pit for m in referee.game.completed]
    followed = Game(variant, options)
    for pit in seen:
        followed.play(pit)
    record = _record(variant, options, seen, followed)
    return Played(
        record,
        followed.over,
        record["winner"],
        len(seen),
        agreed=seen == moves,
        exact=ends_exact(simulation, referee),
        flags=len(referee.flags),
    )


def summary(played: list[Played], variant: str, sim: bool, seconds: float) -> dict[str, Any]:
    plies = [p.plies for p in played]
    finished = [p for p in played if p.over]
    out: dict[str, Any] = {
        "games": len(played),
        "variant": variant,
        "on": "simulated board, referee" if sim else "rules engine",
        "wins": [sum(1 for p in finished if p.winner == k) for k in (0, 1)],
        "draws": sum(1 for p in finished if p.winner == "draw"),
        "unfinished": len(played) - len(finished),
        "plies_mean": round(statistics.fmean(plies), 1) if plies else 0,
        "plies_max": max(plies, default=0),
        "seconds": round(seconds, 2),
    }
    if sim:
        out["referee_agreed"] = sum(1 for p in played if p.agreed)
        out["exact_final"] = sum(1 for p in played if p.exact)
        out["flags"] = sum(p.flags for p in played)
    return out


def main(
    games: int, variant: str, options: dict[str, Any], sim: bool, out_dir: Path, seed: int
) -> dict[str, Any]:
    """Play, write the records and the summary; the summary."""
    check_rules(variant, options)
    try:
        return _play_and_write(games, variant, options, sim, out_dir, seed)
    except OSError as err:  # --out is a file, or below one, or not writable
        where = err.filename or out_dir
        raise SelfPlayError(f"--out {out_dir}: cannot write {where}: {err.strerror}") from None


def _play_and_write(
    games: int, variant: str, options: dict[str, Any], sim: bool, out_dir: Path, seed: int
) -> dict[str, Any]:
    out_dir.mkdir(parents=True, exist_ok=True)
    play = sim_game if sim else engine_game
    played: list[Played] = []
    started = time.perf_counter()
    for k in range(games):
        result = play(variant, options, seed + k)
        path = out_dir / f"game-{k + 1:04d}.json"
        path.write_text(json.dumps(result.record) + "\n", encoding="utf-8")
        played.append(result)
    report = summary(played, variant, sim, time.perf_counter() - started)
    (out_dir / "summary.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report
