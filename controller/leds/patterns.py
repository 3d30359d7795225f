"""Light patterns: the referee's state to a colour and an effect per place.

Colours come from the Okabe-Ito palette, which stays distinct for the common kinds of colour
blindness, and every meaning also has a second cue in its effect (steady, slow pulse, blink,
fast blink), so nothing depends on telling two hues apart.

>>> from controller.rules import Place
>>> lights = guidance(GuidanceState(to_move=0, expected_kind="pickup",
...                                 expected=[Place(0, 1), Place(0, 2)]))
>>> lights[Place(0, 1)]
Light(color=(0, 114, 178), effect='pulse', meaning='start')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from controller.rules import Place

RGB = tuple[int, int, int]
Effect = Literal["steady", "pulse", "blink", "fast_blink", "chase"]

# Okabe-Ito colours.
BLUE: RGB = (0, 114, 178)  # player 0
ORANGE: RGB = (230, 159, 0)  # player 1
WHITE: RGB = (255, 255, 255)  # the next place
YELLOW: RGB = (240, 228, 66)  # pick up again (relay)
VERMILLION: RGB = (213, 94, 0)  # something is wrong here
GREEN: RGB = (0, 158, 115)  # it belongs here
SKY: RGB = (86, 180, 233)  # too few seeds
PURPLE: RGB = (204, 121, 167)  # too many seeds
OFF: RGB = (0, 0, 0)

PLAYER_COLORS = (BLUE, ORANGE)


@dataclass(frozen=True)
class Light:
    color: RGB
    effect: Effect
    meaning: str


@dataclass(frozen=True)
class HandGuidance:
    """What one hand of the simultaneous opening is to do next."""

    kind: str  # pickup | sow | capture | sweep
    places: list[Place]
    relay: bool = False


@dataclass
class GuidanceState:
    """What the lights need to know (built from the referee's status)."""

    to_move: int | None = None
    expected_kind: str = "none"  # pickup | sow | capture | sweep | none
    expected: list[Place] = field(default_factory=list)
    relay: bool = False  # the expected pickup is a relay ("pick up again")
    mover: int | None = None  # whose hand is moving (for captures: the taker)
    flag_kind: str | None = None
    flag_at: Place | None = None
    flag_expected: list[Place] = field(default_factory=list)
    mismatch: dict[Place, str] = field(default_factory=dict)  # place -> "too_few"/"too_many"
    extra_turn: bool = False
    passed: int | None = None  # the player who just passed
    over: bool = False
    winner: int | None = None  # with over: 0, 1, or None for a draw
    idle: bool = False
    places: list[Place] = field(default_factory=list)  # every place of the board
    # The simultaneous opening: each hand's own next step (the lights show them apart).
    hands: dict[int, HandGuidance] = field(default_factory=dict)


def guidance(state: GuidanceState) -> dict[Place, Light]:
    """Colour and effect per place; places not in the result are dark."""
    lights: dict[Place, Light] = {}
    if state.idle:
        return {p: Light(PLAYER_COLORS[p.player], "chase", "idle") for p in state.places}
    if state.over:
        winners = (0, 1) if state.winner is None else (state.winner,)
        for place in state.places:
            if place.player in winners:
                lights[place] = Light(PLAYER_COLORS[place.player], "pulse", "winner")
        return lights
    if state.mismatch:
        for place, how in state.mismatch.items():
            if how == "too_few":
                lights[place] = Light(SKY, "pulse", "too_few")
            else:
                lights[place] = Light(PURPLE, "fast_blink", "too_many")
        return lights
    if state.flag_kind is not None and state.flag_kind not in ("board_mismatch", "sensor_fault"):
        # The stray place blinks fast in vermillion; where it belongs glows steady green.
        for place in state.flag_expected:
            lights[place] = Light(GREEN, "steady", "belongs_here")
        if state.flag_at is not None:
            lights[state.flag_at] = Light(VERMILLION, "fast_blink", "wrong_here")
        return lights
    if state.hands:
        for player, hand in sorted(state.hands.items()):
            # Both hands sow at once: each hand's next seed is lit in its own colour, or two
            # white lights would not say whose is which; a place both hands' next seeds go to
            # is white (one seed each), as one light cannot show two colours.
            for place, light in _step_lights(
                hand.kind, hand.places, hand.relay, player, own=True
            ).items():
                known = lights.get(place)
                both = known is not None and known.meaning == light.meaning == "next"
                lights[place] = Light(WHITE, "steady", "next") if both else light
        return lights
    player = state.to_move if state.to_move is not None else 0
    if state.expected_kind in ("capture", "sweep"):
        player = state.mover if state.mover is not None else 0
    lights.update(_step_lights(state.expected_kind, state.expected, state.relay, player))
    again = state.extra_turn or state.passed is not None
    if state.expected_kind == "pickup" and not state.relay and again:
        lights[Place(player, "store")] = Light(
            PLAYER_COLORS[player], "blink", "extra_turn" if state.extra_turn else "pass"
        )
    return lights


def _step_lights(
    kind: str, places: list[Place], relay: bool, player: int, own: bool = False
) -> dict[Place, Light]:
    """The lights of one hand's next step. `player`: who takes the seeds (capture, sweep: they
    blink in the taker's colour, the store steady; not vermillion, which says "wrong here"),
    whose seed is sown (`own`: lit in that player's colour, else white)."""
    lights: dict[Place, Light] = {}
    if kind == "pickup" and relay:
        for place in places:
            lights[place] = Light(YELLOW, "blink", "pick_up_again")
    elif kind == "pickup":
        for place in places:  # (a hand starts from its own pits: the owner's colour)
            lights[place] = Light(PLAYER_COLORS[place.player], "pulse", "start")
    elif kind == "sow":
        color = PLAYER_COLORS[player] if own else WHITE
        for place in places:
            lights[place] = Light(color, "steady", "next")
    elif kind in ("capture", "sweep"):
        for place in places:
            lights[place] = Light(PLAYER_COLORS[player], "blink", kind)
        lights[Place(player, "store")] = Light(PLAYER_COLORS[player], "steady", "to_store")
    return lights


def effect_level(effect: Effect, t: float, phase: float = 0.0) -> float:
    """Brightness factor 0..1 of an effect at time `t` (seconds)."""
    if effect == "steady":
        return 1.0
    if effect == "pulse":
        return 0.35 + 0.65 * (0.5 + 0.5 * math.sin(2 * math.pi * 0.8 * t))
    if effect == "blink":
        return 1.0 if (t * 2.0) % 1.0 < 0.5 else 0.15
    if effect == "fast_blink":
        return 1.0 if (t * 5.0) % 1.0 < 0.5 else 0.0
    return 0.5 + 0.5 * math.sin(2 * math.pi * (0.5 * t - phase))  # chase


# WS2812B: about 20 mA per colour channel at full duty (60 mA white) and ~1 mA quiescent.
MA_PER_CHANNEL = 20.0
MA_IDLE = 1.0


def estimate_current_a(pixels: list[RGB]) -> float:
    """The LEDs' supply current in amps for these pixel values."""
    ma = sum(MA_IDLE + MA_PER_CHANNEL * (r + g + b) / 255 for r, g, b in pixels)
    return ma / 1000


def render(
    lights: dict[Place, Light],
    leds_of: dict[Place, tuple[int, ...]],
    led_count: int,
    t: float,
    *,
    brightness: float = 0.4,
    max_current_a: float = 2.0,
) -> list[RGB]:
    """Pixel values at time `t`, under the brightness cap and within the power budget.

    >>> from controller.rules import Place
    >>> pixels = render({Place(0, 0): Light(WHITE, "steady", "next")}, {Place(0, 0): (0, 1)}, 3, 0.0,
    ...                 brightness=0.5)
    >>> pixels
    [(128, 128, 128), (128, 128, 128), (0, 0, 0)]
    """
    brightness = min(max(brightness, 0.0), 1.0)
    pixels: list[RGB] = [OFF] * led_count
    for k, (place, light) in enumerate(lights.items()):
        level = brightness * effect_level(light.effect, t, phase=k / max(1, len(lights)))
        value = tuple(round(c * level) for c in light.color)
        for led in leds_of.get(place, ()):
            if 0 <= led < led_count:
                pixels[led] = value  # type: ignore[assignment]
    current = estimate_current_a(pixels)
    if current > max_current_a:
        # Scale the colour part down so the estimate meets the budget (idle current stays).
        idle = led_count * MA_IDLE / 1000
        scale = max(0.0, (max_current_a - idle) / max(current - idle, 1e-9))
        pixels = [(int(r * scale), int(g * scale), int(b * scale)) for r, g, b in pixels]
    return pixels


def hex_color(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)
