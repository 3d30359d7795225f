"""`sowboard bench humans`: the referee on random full games played by people, not scripts.

Every combination of behaviour profile (child, adult, expert, visitor: controller/sim/human.py),
preset (congkak 7, kalah, oware), rate (10, 80 SPS) and seeds (glass marbles CV 3 %, natural
seeds CV 15 %) plays one clean game and one with the profile's real mistakes, in turn until
`--games` games are played. Clean means no mistake, not no touches: the person rests, leans,
brushes, knocks and pauses in both, and none of that may raise a flag. Noise 0.02 g, ring 60 ms,
glitches 1e-4 and a 2 % calibration error, as in `bench tracking`.

A game played with mistakes makes one at each move with the profile's `mistake_p`, and at
least one (at a random move from 1 to 6). Scores:

- `exact_final`: at the end the referee's belief equals the truth and the game is over;
- `false_flags`: every flag of a clean game, and every flag of a game with mistakes that is not
  at a mistake's place within FLAG_SPAN_S after it (after the first seed after it, for a seed
  lost off the board: until then the board cannot show it);
- `mistakes_flagged`: mistakes with a flag of their kind at their place within 0.5 s at 80 SPS
  and 1.0 s at 10 SPS (of the first seed after it, for a seed lost off the board); a flag
  renamed to that kind and place counts from the rename (`Flag.named_t`), not from when it
  was raised as something else;
- `flag_delay_ms_*`: mistake to its flag, over the mistakes flagged within FLAG_SPAN_S (a flag
  of that kind at that place later than that is another problem's, and the mistake counts as
  not flagged);
- `latency_ms_*`: a seed's true landing to the next place lit, 80 SPS games (the 10 SPS figures
  are in the `# by rate` line);
- `us_per_frame_cpu`: the referee's CPU time (`time.process_time`) per 16-cell frame, median
  over the 80 SPS congkak 7 games (the target's configuration) and over all games;
- `search_ms_max_cpu`: the referee's longest search (CPU time): the loop waits that long for
  a frame.

Progress goes to stderr; the last line is one JSON object. Before it, the figures by profile, by
rate, the mistakes flagged in time by rate and kind (`# by kind of mistake`), and by rate, kind
and class the mistakes not flagged in time and the false flags (`# misses by class`, `# false
flags by class`: `miss_class`, `false_class`).
"""

from __future__ import annotations

import itertools
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.rules import Place
from controller.sim import MistakeNotPossible, build_simulation, parse_scenario
from controller.sim.human import PROFILES
from controller.sim.player import InjectedMistake, VirtualPlayer
from controller.stats import percentile
from controller.tracking.session import latencies_ms
from controller.tracking.verdicts import Flag

from .tracking import ends_exact, flag_delay, flag_of, run_referee, seen_from, shown_at

PRESETS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("congkak", {"pits": 7}),
    ("kalah", {}),
    ("oware", {}),
)
RATES = (10, 80)
SEEDS = (("marbles", 0.03), ("natural", 0.15))
FLAG_WINDOW_S = {10: 1.0, 80: 0.5}
FLAG_SPAN_S = 5.0  # a flag this long after a mistake, at its place, is that mistake's
FORCED_MISTAKE_MOVES = (1, 6)


@dataclass
class HumanGame:
    """One game's outcome."""

    config: str
    profile: str
    variant: str
    rate: int
    exact: bool
    flags: list[dict[str, Any]]
    false_flags: int
    mistakes: list[InjectedMistake]
    in_time: list[bool]  # each of `mistakes`: flagged in time?
    # Each mistake not flagged in time, and each false flag: its kind and class ("seed_lost
    # renamed late": `miss_class`, `false_class`)
    misses: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)  # seconds, mistakes flagged at all
    latencies: list[float] = field(default_factory=list)
    us_per_frame_cpu: float = 0.0
    search_ms_max: float = 0.0  # the referee's longest search, CPU time

    @property
    def flagged(self) -> int:
        """Mistakes flagged in time."""
        return sum(self.in_time)


def plan_game(player: VirtualPlayer, rng: random.Random, with_mistakes: bool) -> None:
    """The person plays random legal moves to the end, with their mistakes if asked."""
    game = player.game
    human = player.human
    assert human is not None
    forced = rng.randint(*FORCED_MISTAKE_MOVES) if with_mistakes else None
    move = 0
    if game.to_move is None and not game.over:  # congkak's simultaneous opening
        player.play_opening(choose=lambda hand, legal: rng.choice(legal))
        game = player.game
    while not game.over:
        move += 1
        due = forced is not None and move >= forced and not player.mistakes
        if with_mistakes and (due or human.wants_mistake()):
            try:
                player.play_with_mistake(human.mistake_kind())
                game = player.game
                continue
            except MistakeNotPossible:
                pass
        player.play(rng.choice(game.legal_moves()))
        game = player.game


def play_game(
    profile: str,
    variant: str,
    options: dict[str, Any],
    rate: int,
    cv: float,
    seed: int,
    mistakes: bool,
) -> HumanGame:
    scenario = parse_scenario(
        {
            "variant": variant,
            "options": options,
            "sensors": {
                "rate_sps": rate,
                "noise_g": 0.02,
                "seed_cv": cv,
                "ring_ms": 60,
                "glitch_rate": 1e-4,
                "calibration_error": 0.02,
                "random_seed": seed,
            },
            "player": {"profile": profile},
        },
        f"bench humans:{profile}:{variant}:{seed}",
    )
    simulation = build_simulation(scenario)
    world, player = simulation.world, simulation.player
    plan_game(player, random.Random(seed), mistakes)
    world.schedule([*player.actions, *player.touches()], relative=False)
    referee, us = run_referee(simulation, time.process_time)
    delays = [flag_delay(m, referee, world.landings) for m in player.mistakes]
    window = FLAG_WINDOW_S[rate]
    landings = [(landing.t, landing.place, landing.hand) for landing in world.landings]
    in_time = [d is not None and d <= window for d in delays]
    false = _false_flags(referee.flags, player.mistakes, world.landings)
    return HumanGame(
        config=f"{profile} {variant} sps={rate} seed_cv={cv} seed={seed}",
        profile=profile,
        variant=variant,
        rate=rate,
        exact=ends_exact(simulation, referee),
        flags=[f.to_json() for f in referee.flags],
        false_flags=len(false),
        mistakes=list(player.mistakes),
        in_time=in_time,
        misses=[
            f"{m.kind} {miss_class(m, referee.flags, world.landings)}"
            for m, flagged in zip(player.mistakes, in_time, strict=True)
            if not flagged
        ],
        false=[f"{flag.kind} {false_class(flag)}" for flag in false],
        delays=[d for d in delays if d is not None and d <= FLAG_SPAN_S],
        latencies=latencies_ms(referee, landings),
        us_per_frame_cpu=us,
        search_ms_max=referee.search_s_max * 1000,
    )


def _false_flags(
    flags: list[Flag], mistakes: list[InjectedMistake], landings: list[Any]
) -> list[Flag]:
    """Flags at no mistake's place, or shown long after the board could first show it
    (FLAG_SPAN_S, see `seen_from`), or before it was made: shown as `flag_delay` takes it
    (`shown_at`), not at its `t`, which is when the referee reckons the mistake was made. At
    10 SPS that is known to a reading, and where fingers brushed the cup before the seed, it
    is when they came (bench humans game 44: a brush at 35.28 s, the seed in the wrong pit at
    35.51 s, the flag's `t` 35.34 s and shown at 35.64 s)."""
    made = [(Place(*m.at), m.t, seen_from(m, landings)) for m in mistakes]

    def explained(flag: Flag) -> bool:
        shown = shown_at(flag)
        return any(
            at == flag.at and t - 0.05 <= shown <= seen + FLAG_SPAN_S for at, t, seen in made
        )

    return [flag for flag in flags if not explained(flag)]


def miss_class(mistake: InjectedMistake, flags: list[Flag], landings: list[Any]) -> str:
    """Why a mistake was not flagged in time: its flag came late, by a rename (`renamed late`:
    first named another mistake, as a seed lost and the next seed in the wrong pit are until
    the hand puts it right) or raised late (`raised late`); no flag of its kind at its place,
    but some flag shown within FLAG_SPAN_S of the moment the board could show it (`named
    otherwise`: mostly one that named it another mistake at another place, and may be another
    mistake's); or no flag near it at all (`never`). (The flag of its kind at its place is
    looked for again here, as `flag_delay` did: a few flags a game.)"""
    flag = flag_of(mistake, flags, landings)
    if flag is not None:
        return "renamed late" if flag.named_t is not None else "raised late"
    start = seen_from(mistake, landings)
    if any(start - 0.05 <= shown_at(f) <= start + FLAG_SPAN_S for f in flags):
        return "named otherwise"
    return "never"


def false_class(flag: Flag) -> str:
    """What became of a false flag: `withdrawn` (the cups were explained without it),
    `renamed` (it named another mistake, and that one was no mistake's either) or `raised`
    (and put right, or left)."""
    if flag.detail.startswith("withdrawn"):
        return "withdrawn"
    return "renamed" if flag.named_t is not None else "raised"


def configs(profiles: list[str]) -> list[tuple[str, str, dict[str, Any], int, float, bool]]:
    return [
        (profile, variant, options, rate, cv, mistakes)
        for profile, (variant, options), rate, (_, cv), mistakes in itertools.product(
            profiles, PRESETS, RATES, SEEDS, (False, True)
        )
    ]


def main(games: int = 96, profile: str | None = None, verbose: bool = False, first: int = 1) -> int:
    """Games `first` to `first + games - 1`: game k is the grid's configuration k (in turn)
    with random seed k, whatever game a run starts from, so that a long run can be shared out
    among processes, and games a change was not tuned on held out (issue 12: 96 games were
    overfitted)."""
    profiles = [profile] if profile else sorted(PROFILES)
    grid = configs(profiles)
    results: list[HumanGame] = []
    for seed in range(first, first + games):
        config = grid[(seed - 1) % len(grid)]
        result = play_game(*config[:5], seed=seed, mistakes=config[5])
        results.append(result)
        bad = not result.exact or result.false_flags or result.flagged < len(result.mistakes)
        print(
            f"# {len(results)}/{games} {result.config} mistakes={len(result.mistakes)}: "
            f"exact={result.exact} false_flags={result.false_flags} "
            f"flagged={result.flagged}/{len(result.mistakes)}",
            file=sys.stderr,
            flush=True,
        )
        if verbose or bad:
            print(
                f"#   flags={[(f['kind'], f['at'], round(f['t'], 2)) for f in result.flags][:6]} "
                f"mistakes={[(m.kind, m.at.to_json(), round(m.t, 2)) for m in result.mistakes][:6]}",
                file=sys.stderr,
                flush=True,
            )
    print("# by profile: " + json.dumps(_by(results, lambda r: r.profile)))
    print("# by rate (SPS): " + json.dumps(_by(results, lambda r: str(r.rate), fast_only=False)))
    print("# by kind of mistake: " + json.dumps(by_kind(results)))
    print("# misses by class: " + json.dumps(by_class(results, lambda r: r.misses)))
    print("# false flags by class: " + json.dumps(by_class(results, lambda r: r.false)))
    print(json.dumps(summary(results)))
    return 0


def _by(results: list[HumanGame], key: Any, fast_only: bool = True) -> dict[str, Any]:
    groups: dict[str, list[HumanGame]] = {}
    for r in results:
        groups.setdefault(key(r), []).append(r)
    return {k: summary(v, fast_only) for k, v in sorted(groups.items())}


def by_class(results: list[HumanGame], classes: Callable[[HumanGame], list[str]]) -> dict[str, int]:
    """How many of each class, by rate ("10 SPS seed_lost renamed late"): what kind of miss or
    false flag the misses and false flags are."""
    counts = Counter(f"{r.rate} SPS {c}" for r in results for c in classes(r))
    return dict(sorted(counts.items()))


def by_kind(results: list[HumanGame]) -> dict[str, dict[str, int]]:
    """Mistakes and those flagged in time, by rate and kind ("10 SPS seed_lost"): where the
    misses are."""
    counts: dict[str, dict[str, int]] = {}
    for r in results:
        for mistake, in_time in zip(r.mistakes, r.in_time, strict=True):
            row = counts.setdefault(f"{r.rate} SPS {mistake.kind}", {"mistakes": 0, "flagged": 0})
            row["mistakes"] += 1
            row["flagged"] += in_time
    return dict(sorted(counts.items()))


def summary(results: list[HumanGame], fast_only: bool = True) -> dict[str, Any]:
    """The figures of `results`; latency and CPU time of the 80 SPS games only (the targets'
    configuration) unless not `fast_only`."""
    delays = [d * 1000 for r in results for d in r.delays]
    timed = [r for r in results if r.rate == 80 or not fast_only]
    fast = [x for r in timed for x in r.latencies]
    target = [r.us_per_frame_cpu for r in timed if r.variant == "congkak"]
    return {
        "games": len(results),
        "exact_final": sum(r.exact for r in results),
        "false_flags": sum(r.false_flags for r in results),
        "mistakes": sum(len(r.mistakes) for r in results),
        "mistakes_flagged": sum(r.flagged for r in results),
        "flag_delay_ms_p50": round(percentile(delays, 50), 1) if delays else None,
        "flag_delay_ms_max": round(max(delays), 1) if delays else None,
        "latency_ms_p50": round(percentile(fast, 50), 1) if fast else None,
        "latency_ms_p99": round(percentile(fast, 99), 1) if fast else None,
        "us_per_frame_cpu": round(statistics.median(target), 1) if target else None,
        "us_per_frame_cpu_all": round(statistics.median(r.us_per_frame_cpu for r in results), 1)
        if results
        else None,
        "search_ms_max_cpu": round(max((r.search_ms_max for r in results), default=0.0), 2),
    }
