"""`sowboard bench tracking`: the referee on many random full games on the simulated board.

Every combination of preset (congkak, kalah, oware), seeds (glass marbles CV 3 %, natural seeds
CV 15 %), noise (0.02, 0.05 g), rate (10, 80 SPS) and tempo (a child at 1 seed/s, an expert at
8 seeds/s) plays one clean game and one game with an injected mistake (the kinds in turn), with
ring 60 ms, glitches 1e-4 and a 2 % calibration error. The last line is one JSON object:

    games, exact_final, false_flags, mistakes, mistakes_flagged,
    latency_ms_p50, latency_ms_p99 (80 SPS games), us_per_frame (referee only, per 16 cells)

A mistake counts as flagged when a flag of its kind names its place within 0.5 s of it (for
`seed_lost`, of the first seed that lands after it: a seed falling off the board weighs
nothing, so the referee can only see what the hand does next).
"""

from __future__ import annotations

import itertools
import json
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.rules import Game, Place
from controller.sim import (
    MISTAKE_KINDS,
    MistakeNotPossible,
    Simulation,
    build_simulation,
    parse_scenario,
)
from controller.sim.player import InjectedMistake
from controller.stats import percentile
from controller.tracking.hypotheses import Tracker
from controller.tracking.session import latencies_ms, start_referee
from controller.tracking.verdicts import Flag

PRESETS = ("congkak", "kalah", "oware")
SEEDS = (("marbles", 0.03), ("natural", 0.15))
NOISES = (0.02, 0.05)
RATES = (10, 80)
TEMPOS = (("child", 1.0), ("expert", 0.125))
FLAG_WINDOW_S = 0.5


@dataclass
class GameResult:
    config: str
    exact: bool
    flags: list[dict[str, Any]]
    mistakes: list[InjectedMistake]
    flagged: int
    latencies: list[float]
    rate: int
    us_per_frame: float
    delays: list[float] = field(default_factory=list)  # mistake to its flag, seconds


def play_game(
    variant: str,
    sensors: dict[str, Any],
    seconds_per_seed: float,
    seed: int,
    mistake: str | None = None,
) -> GameResult:
    scenario = parse_scenario(
        {
            "variant": variant,
            "sensors": {**sensors, "random_seed": seed},
            "player": {"seconds_per_seed": seconds_per_seed, "jitter": 0.3},
        },
        f"bench:{variant}:{seed}",
    )
    simulation = build_simulation(scenario)
    world, player = simulation.world, simulation.player
    rng = random.Random(seed)
    game: Game = player.game
    mistake_at = None
    if mistake is not None:
        mistake_at = rng.randint(1, 6)
    move = 0
    while not game.over:
        if mistake is not None and move >= (mistake_at or 0) and not player.mistakes:
            try:
                player.play_with_mistake(mistake)
                move += 1
                continue
            except MistakeNotPossible:
                pass
        player.play(rng.choice(game.legal_moves()))
        move += 1
    world.schedule(player.actions, relative=False)
    referee, us_per_frame = run_referee(simulation, time.perf_counter)
    exact = ends_exact(simulation, referee)
    landings = [(landing.t, landing.place, landing.hand) for landing in world.landings]
    delays = [flag_delay(m, referee, world.landings) for m in player.mistakes]
    flagged = sum(1 for d in delays if d is not None and d <= FLAG_WINDOW_S)
    config = f"{variant} seeds_cv={sensors['seed_cv']} noise={sensors['noise_g']} sps={sensors['rate_sps']} s/seed={seconds_per_seed}"
    return GameResult(
        config,
        exact,
        [f.to_json() for f in referee.flags],
        list(player.mistakes),
        flagged,
        latencies_ms(referee, landings),
        int(sensors["rate_sps"]),
        us_per_frame,
        delays=[d for d in delays if d is not None],
    )


def run_referee(simulation: Simulation, clock: Callable[[], float]) -> tuple[Tracker, float]:
    """The referee over every frame of a planned simulation, as the daemon would run it, and
    its cost in microseconds per 16-cell frame on `clock` (wall or CPU time)."""
    world = simulation.world
    source = simulation.source()
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, world.nominal_rate_sps)
    spent = 0.0
    frames = 0
    while (frame := source.read(None)) is not None:
        t0 = clock()
        referee.process(frame)
        spent += clock() - t0
        frames += 1
    return referee, spent / max(1, frames) * 1e6 * 16 / len(world.board.cells)


def ends_exact(simulation: Simulation, referee: Tracker) -> bool:
    """The referee knows where every seed is at the end, and that the game is over."""
    truth = simulation.world.truth()
    belief = referee.belief()
    exact = all(truth[k] == belief[k] for k in ("pits", "stores", "hand"))
    return exact and belief["over"] and belief["to_move"] is None


def seen_from(mistake: InjectedMistake, landings: list[Any]) -> float:
    """When the board can first show the mistake: when it is made, but a seed lost off the
    board, which shows only when the next seed lands where the lost one belonged (a child may
    pause ten seconds, seeds in hand, before sowing on)."""
    if mistake.kind != "seed_lost":
        return mistake.t
    later = [landing.t for landing in landings if landing.t > mistake.t]
    return min(later) if later else mistake.t


def shown_at(flag: Flag) -> float:
    """When the board showed what the flag names: when it was raised, or renamed to that (a
    wrong pit found to be a seed lost before it: its light moved then). Its `t` is when the
    referee reckons the mistake was made."""
    return max(flag.t if flag.shown_t is None else flag.shown_t, flag.named_t or 0.0)


def flag_delay(mistake: InjectedMistake, referee: Tracker, landings: list[Any]) -> float | None:
    """Seconds from the mistake to the first flag of its kind at its place being shown
    (`shown_at`; None: none)."""
    flag = flag_of(mistake, referee.flags, landings)
    return None if flag is None else max(0.0, shown_at(flag) - seen_from(mistake, landings))


def flag_of(mistake: InjectedMistake, flags: list[Flag], landings: list[Any]) -> Flag | None:
    """The first flag of the mistake's kind at its place shown once the board could show it
    (`seen_from`, `shown_at`)."""
    start = seen_from(mistake, landings)
    for flag in flags:
        if (
            flag.kind == mistake.kind
            and flag.at == Place(*mistake.at)
            and shown_at(flag) >= start - 0.05
        ):
            return flag
    return None


def configs() -> list[tuple[str, dict[str, Any], float]]:
    out = []
    for variant, (_, cv), noise, rate, (_, tempo) in itertools.product(
        PRESETS, SEEDS, NOISES, RATES, TEMPOS
    ):
        sensors = {
            "rate_sps": rate,
            "noise_g": noise,
            "seed_cv": cv,
            "ring_ms": 60,
            "glitch_rate": 1e-4,
            "calibration_error": 0.02,
        }
        out.append((variant, sensors, tempo))
    return out


def main(rounds: int = 1, verbose: bool = False) -> int:
    results: list[GameResult] = []
    kinds = itertools.cycle(MISTAKE_KINDS)
    seed = 0
    for _ in range(rounds):
        for variant, sensors, tempo in configs():
            for mistake in (None, next(kinds)):
                seed += 1
                result = play_game(variant, sensors, tempo, seed, mistake)
                results.append(result)
                bad = (
                    not result.exact
                    or (mistake is None and result.flags)
                    or (mistake is not None and result.flagged < len(result.mistakes))
                )
                if verbose or bad:
                    what = f"mistake={mistake}" if mistake else "clean"
                    print(
                        f"# seed {seed} {result.config} {what}: exact={result.exact} "
                        f"flags={[(f['kind'], f['at']) for f in result.flags][:4]} "
                        f"mistakes={[m.to_json() for m in result.mistakes]}",
                        flush=True,
                    )
    clean = [r for r in results if not r.mistakes]
    with_mistakes = [r for r in results if r.mistakes]
    fast = [x for r in results if r.rate == 80 for x in r.latencies]
    by_rate: dict[str, Any] = {}
    for rate in RATES:
        mine = [r for r in results if r.rate == rate]
        delays = [d * 1000 for r in mine for d in r.delays]
        landings = [x for r in mine for x in r.latencies]
        by_rate[str(rate)] = {
            "games": len(mine),
            "exact_final": sum(r.exact for r in mine),
            "false_flags": sum(len(r.flags) for r in mine if not r.mistakes),
            "mistakes": sum(len(r.mistakes) for r in mine),
            "mistakes_flagged": sum(r.flagged for r in mine),
            "flag_delay_ms_p50": round(percentile(delays, 50), 1),
            "flag_delay_ms_max": round(max(delays), 1) if delays else None,
            "latency_ms_p50": round(percentile(landings, 50), 1),
            "latency_ms_p99": round(percentile(landings, 99), 1),
        }
    print("# by rate (SPS): " + json.dumps(by_rate))
    summary = {
        "games": len(results),
        "exact_final": sum(r.exact for r in results),
        "false_flags": sum(len(r.flags) for r in clean),
        "mistakes": sum(len(r.mistakes) for r in with_mistakes),
        "mistakes_flagged": sum(r.flagged for r in with_mistakes),
        "latency_ms_p50": round(percentile(fast, 50), 1),
        "latency_ms_p99": round(percentile(fast, 99), 1),
        "us_per_frame": round(statistics.median(r.us_per_frame for r in results), 1),
    }
    print(json.dumps(summary))
    return 0
