"""A light-following child: a virtual player that knows no rules and acts only on the LEDs.

It reads nothing but the frames the LED backend received (one colour per LED, 30 a second)
and the board's map of which LEDs sit at which place, as a child sees which cup is lit. What
it has been told is only what the lights mean (controller/leds/patterns.py):

- a pit glowing and changing in my colour (blue: player 1, orange: player 2) while my store
  is not steady: I may start here: pick up all its seeds;
- a steady bright white light, or (when both hands sow at once) a steady light in my colour:
  put one seed here, when I hold seeds (a dim white one is only the path; in the opening a
  white light is where both hands' next seeds go, one each);
- a blinking yellow light where I just put my seed: pick up all the seeds here again;
- my store steady in my colour and pits blinking in my colour: move those seeds into my
  store, one pit at a time.

It remembers only where it put its last seed, until the lights move on from there. After each action it waits until the lights
change (a real child waits for the light to move). A step it cannot read from the lights
alone is a hole in the guidance: it then does nothing, and the game stalls (the bench counts
it). Two bright white lights at once were such a hole in the simultaneous congkak opening
(one for each hand, neither saying whose): the opening now lights each hand's next seed in
that hand's colour, and captured seeds blink in the taker's colour rather than red.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.leds.patterns import (
    BLUE,
    GREEN,
    ORANGE,
    PURPLE,
    RGB,
    SKY,
    VERMILLION,
    WHITE,
    YELLOW,
)
from controller.rules import Place

# The colours a child is told the names of (the Okabe-Ito palette of the guidance).
PALETTE: dict[str, RGB] = {
    "blue": BLUE,
    "orange": ORANGE,
    "white": WHITE,
    "yellow": YELLOW,
    "red": VERMILLION,
    "green": GREEN,
    "light blue": SKY,
    "pink": PURPLE,
}
PLAYER_COLOURS = ("blue", "orange")
DARK = 6  # a channel level below this is an LED that is off
STEADY = 0.9  # darkest / brightest over the window: a steady light
DIM = 0.5  # a white light under half the brightest light is the dim path


@dataclass(frozen=True)
class Seen:
    """What a place's light looks like: its colour's name, steady or changing, how bright."""

    colour: str
    steady: bool
    level: int


def colour_name(rgb: RGB) -> str:
    """The palette colour nearest to `rgb` (scaled by the LEDs' brightness, so compared after
    scaling both to their brightest channel)."""
    top = max(rgb) or 1

    def distance(ref: RGB) -> float:
        ref_top = max(ref)
        return sum((a / top - b / ref_top) ** 2 for a, b in zip(rgb, ref, strict=True))

    return min(PALETTE, key=lambda name: distance(PALETTE[name]))


def read_lights(
    frames: Sequence[Sequence[RGB]], leds_of: Mapping[Place, Sequence[int]]
) -> dict[Place, Seen]:
    """Each lit place as seen over `frames` (about half a second of them)."""
    seen: dict[Place, Seen] = {}
    for place, leds in leds_of.items():
        if not leds:
            continue
        colours = [frame[leds[0]] for frame in frames]
        levels = [max(c) for c in colours]
        brightest = max(levels, default=0)
        if brightest < DARK:
            continue
        colour = colour_name(colours[levels.index(brightest)])
        seen[place] = Seen(colour, min(levels) >= STEADY * brightest, brightest)
    return seen


class LightChild:
    """Player `player`'s child (0 or 1); `rng` picks among the pits it may start from."""

    def __init__(self, player: int, rng: random.Random) -> None:
        self.player = player
        self.mine = PLAYER_COLOURS[player]
        self.rng = rng
        self.holes: list[str] = []  # what the lights left it unable to read
        self.last_drop: Place | None = None  # where it put its last seed

    def decide(self, seen: Mapping[Place, Seen], holding: int) -> dict[str, Any] | None:
        """The one action the lights ask of this child now (sim_actions JSON), or None.
        `holding`: the seeds in its hand (a child feels them)."""
        self._forget(seen)
        action = self._to_store(seen)
        if holding:
            action = action or self._sow(seen)
        else:
            action = action or self._relay(seen) or self._start(seen)
        if action is not None and action["action"] == "drop":
            self.last_drop = Place.from_json(action["at"])
        elif action is not None:
            self.last_drop = None
        return action

    def _act(self, action: str, **fields: Any) -> dict[str, Any]:
        out = {"action": action, "hand": self.player}
        for key, value in fields.items():
            out[key] = value.to_json() if isinstance(value, Place) else value
        return out

    def _sow(self, seen: Mapping[Place, Seen]) -> dict[str, Any] | None:
        whites = {p: s for p, s in seen.items() if s.colour == "white" and s.steady}
        top = max((s.level for s in seen.values()), default=0)  # (dim beside every light)
        targets = [p for p, s in whites.items() if s.level >= DIM * top]
        targets += [p for p, s in seen.items() if s.colour == self.mine and s.steady]
        if len(targets) > 1:
            self.holes.append(f"{len(targets)} lights say 'one seed here': which one is mine?")
            return None
        return self._act("drop", at=targets[0], n=1) if targets else None

    def _forget(self, seen: Mapping[Place, Seen]) -> None:
        """Where it put its last seed matters only until the lights move on from there: a
        yellow light there later is the other hand's (both hands' seeds may fall in one pit
        in the simultaneous opening)."""
        if self.last_drop is None:
            return
        light = seen.get(self.last_drop)
        waiting = light is not None and light.steady and light.colour in ("white", self.mine)
        if not waiting and (light is None or light.colour != "yellow"):
            self.last_drop = None

    def _relay(self, seen: Mapping[Place, Seen]) -> dict[str, Any] | None:
        light = seen.get(self.last_drop) if self.last_drop is not None else None
        if light is None or light.colour != "yellow" or light.steady:
            return None
        return self._act("grab", at=self.last_drop)

    def _to_store(self, seen: Mapping[Place, Seen]) -> dict[str, Any] | None:
        store = Place(self.player, "store")
        light = seen.get(store)
        if light is None or light.colour != self.mine or not light.steady:
            return None
        blinking = [
            p
            for p, s in sorted(seen.items(), key=_order)
            if not p.is_store and not s.steady and s.colour == self.mine
        ]
        return self._act("move", **{"from": blinking[0], "to": store}) if blinking else None

    def _start(self, seen: Mapping[Place, Seen]) -> dict[str, Any] | None:
        store = seen.get(Place(self.player, "store"))
        if store is not None and store.colour == self.mine and store.steady:
            return None  # (seeds to move into my store, not a move to start)
        mine = [
            p
            for p, s in sorted(seen.items(), key=_order)
            if p.player == self.player and not p.is_store and s.colour == self.mine and not s.steady
        ]
        return self._act("grab", at=self.rng.choice(mine)) if mine else None


def _order(item: tuple[Place, Seen]) -> tuple[int, int]:
    place = item[0]
    return place.player, place.pit if isinstance(place.pit, int) else 1000
