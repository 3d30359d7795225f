"""`sowboard bench child [--games N] [--variant V]`: light-following children play whole games.

Two `LightChild`ren (controller/sim/lightchild.py), who know no rules, play each other on the
daemon's own loop with the simulated board: each looks at the LED frames for half a second,
the one the lights ask makes one action through `sim_actions`, and then both wait until the
lights change. A game counts as good when it ends with no flag and without a stall (nobody
the lights ask anything of for STALL_LOOKS looks in a row, or the lights not changing after
an action for CHANGE_S). Every game tallies the rule events it went through (relays,
captures, extra turns, passes, end sweeps: teach mode's explanations, from `game.events`).

Progress on stderr, the last line one JSON object.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.daemon.config import Config, parse_config
from controller.daemon.loop import BoardLoop
from controller.leds.backends import SimulatedLeds
from controller.rules import Place
from controller.sim.lightchild import LightChild, Seen, read_lights

# name -> (variant, options): congkak 7 both as preset (one player opens) and with the
# simultaneous opening, where both hands sow at once.
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "congkak": ("congkak", {"pits": 7}),
    "congkak-opening": ("congkak", {"pits": 7, "simultaneous_opening": True}),
    "kalah": ("kalah", {}),
    "oware": ("oware", {}),
}
LOOK_S = 0.6  # how long a child looks at the lights before acting (a pulse's half cycle)
CHANGE_S = 6.0  # the lights must change this soon after an action
STALL_LOOKS = 10  # looks in a row without anything to do: the game stalls
MAX_ACTIONS = 5000
# Both hands acting in one frame (the first version) made the referee credit a seed of one hand
# to the other in the simultaneous opening, with no flag, and the game stalled (issue 15 notes).
HANDS_APART_S = 0.15


@dataclass
class ChildGame:
    preset: str
    seed: int
    over: bool = False
    stall: str = ""
    actions: int = 0
    moves: int = 0
    flags: list[str] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)
    seen_events: set[int] = field(default_factory=set)  # (the step index of each, as counted)

    @property
    def good(self) -> bool:
        return self.over and not self.stall and not self.flags


def looks(strip: SimulatedLeds, loop: BoardLoop) -> dict[Place, Seen]:
    frames = max(2, round(LOOK_S * loop.config.leds.fps))
    return read_lights(list(strip.frames)[-frames:], loop.game.mapping.leds_of)


def steady_look(strip: SimulatedLeds, loop: BoardLoop) -> dict[Place, Seen]:
    """Look until two looks in a row agree: a light that came on or changed during a look is
    seen as changing (a pulse), and a child waits for the lights to settle before acting."""
    before: dict[Place, tuple[str, bool]] | None = None
    for _ in range(STALL_LOOKS):
        loop.run_until(lambda: False, LOOK_S)
        seen = looks(strip, loop)
        if summary(seen) == before:
            break
        before = summary(seen)
    return seen


def changed(
    strip: SimulatedLeds, loop: BoardLoop, before: dict[Place, tuple[str, bool]]
) -> Callable[[], bool]:
    """Have the lights changed from `before`?"""
    return lambda: summary(looks(strip, loop)) != before


def summary(seen: dict[Place, Seen]) -> dict[Place, tuple[str, bool]]:
    """What a child notices changing: colours and steadiness (not a pulse's level)."""
    return {p: (s.colour, s.steady) for p, s in seen.items()}


def play_game(preset: str, seed: int, data_dir: Path, mode: str = "play") -> ChildGame:
    """One game of two children; `mode` teach adds the dim path and the slow pace."""
    variant, game_options = PRESETS[preset]
    leds: dict[str, Any] = {"idle_minutes": 0}
    if mode == "teach":
        leds["slow_pace_s"] = 1.0
    config = parse_config(
        {
            "game": {"variant": variant, "options": game_options, "mode": mode},
            "data": {"dir": str(data_dir)},
            "hardware": {"sim": {"random_seed": seed}},
            "recorder": {"on_flag": False},
            "leds": leds,
        },
        data_dir / "config.toml",
    )
    strip = SimulatedLeds(find_led_count(config), keep=64)
    messages: list[str] = []
    loop = BoardLoop(config, speed=None, leds=strip, out=messages.append)
    result = ChildGame(preset, seed)
    try:
        assert loop.run_until(lambda: loop.referee is not None, 30.0), "the board was not ready"
        _play(loop, strip, [LightChild(p, random.Random(seed * 2 + p)) for p in (0, 1)], result)
        status = loop.link.get_status()
        result.flags = [f"{f['kind']} at {f['at']}" for f in status["flags"]]
        result.moves = len(loop.follower().completed)
    finally:
        loop.stop()
    return result


def find_led_count(config: Config) -> int:
    return config.board_file().led_count


def _play(
    loop: BoardLoop, strip: SimulatedLeds, children: list[LightChild], result: ChildGame
) -> None:
    idle_looks = 0
    while result.actions < MAX_ACTIONS:
        seen = steady_look(strip, loop)
        if loop.follower().over:
            result.over = True
            return
        world = loop.sim.world if loop.sim is not None else None
        assert world is not None
        held = world.truth()["hand"]
        acts = [a for a in (c.decide(seen, held[c.player]) for c in children) if a is not None]
        if not acts:
            idle_looks += 1
            if idle_looks >= STALL_LOOKS:
                holes = [h for c in children for h in c.holes[-1:]]
                result.stall = f"nothing to do for {STALL_LOOKS} looks; {'; '.join(holes)}"
                return
            continue
        idle_looks = 0
        before = summary(seen)
        # Two children never act in the same instant: the second a moment after the first.
        timed = [dict(a, t=0.05 + HANDS_APART_S * k) for k, a in enumerate(acts)]
        loop.execute("sim_actions", {"actions": timed})
        result.actions += len(acts)
        _count_events(loop, result)
        if not loop.run_until(changed(strip, loop, before), CHANGE_S):
            result.stall = f"the lights did not change after {acts}"
            return
        _count_events(loop, result)
    result.stall = f"more than {MAX_ACTIONS} actions"


def _count_events(loop: BoardLoop, result: ChildGame) -> None:
    """The rule events teach mode would explain, each once (a snapshot holds the newest)."""
    for event in loop.link.get_status().get("game", {}).get("events", []):
        if event["n"] not in result.seen_events:
            result.seen_events.add(event["n"])
            result.events[event["kind"]] += 1


def main(games: int = 100, presets: tuple[str, ...] = tuple(PRESETS)) -> int:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="sowboard-child-") as tmp:
        for variant in presets:
            played = []
            for k in range(games):
                data_dir = Path(tmp) / f"{variant}-{k}"
                game = play_game(variant, k, data_dir)
                played.append(game)
                print(
                    f"child: {variant} game {k + 1}/{games}: "
                    f"{'good' if game.good else 'BAD'} {game.moves} moves {game.actions} actions"
                    f"{' stall: ' + game.stall if game.stall else ''}"
                    f"{' flags: ' + ', '.join(game.flags) if game.flags else ''}",
                    file=sys.stderr,
                    flush=True,
                )
            events: Counter[str] = Counter()
            for game in played:
                events.update(game.events)
            out[variant] = {
                "games": games,
                "good": sum(g.good for g in played),
                "stalled": sum(bool(g.stall) for g in played),
                "flagged": sum(bool(g.flags) for g in played),
                "moves": sum(g.moves for g in played),
                "events": dict(events),
                "first_stall": next((g.stall for g in played if g.stall), None),
            }
    out["targets_met"] = all(v["good"] == v["games"] for k, v in out.items() if k in PRESETS)
    print(json.dumps(out), flush=True)
    return 0 if out["targets_met"] else 1
