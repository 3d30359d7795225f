"""The board's LEDs as the daemon drives them: the game's guidance, with the parts' faults on
top (health.py), teach mode's path and a hint when the hint button asked for one."""

from __future__ import annotations

import math

from controller.board import Board
from controller.leds.backends import LedStrip
from controller.leds.patterns import (
    PLAYER_COLORS,
    VERMILLION,
    WHITE,
    YELLOW,
    GuidanceState,
    Light,
    estimate_current_a,
    guidance,
    hex_color,
    render,
)
from controller.rules import Phase, Place, Rules, StepFollower
from controller.tracking.hypotheses import Tracker

from .clock import COUNTDOWN_S, Countdown
from .config import LedSettings
from .health import Health
from .session import GameSession
from .status import LedsStatus, PlaceLight

PATH_COLOR = (70, 70, 70)  # teach mode: where the rest of the hand's seeds will go


class BoardLights:
    """What the LEDs show now (`lights` by place, `pixels` by LED) and showing it."""

    def __init__(self, strip: LedStrip, board: Board, settings: LedSettings) -> None:
        self.strip = strip
        self.board = board
        self.settings = settings
        self.lights: dict[Place, Light] = {}
        self.pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * board.led_count

    def show(
        self,
        now: float,
        session: GameSession,
        health: Health,
        state: GuidanceState,
        *,
        teach: bool,
        hint: list[Place],
        countdown: Countdown | None = None,
    ) -> None:
        """`hint`: the places the hint blinks on (opponent.py: the engine's best pit);
        `countdown`: the thinking-time clock's last seconds (clock.py)."""
        places = session.game.mapping.places
        lights = health.lights(guidance(state), places)
        if session.game.match is not None and not state.idle:
            closed_pits(lights, session.game.rules)
        if not state.idle and session.referee is not None:
            if teach and self._too_soon(now, session.referee, state):
                lights = {p: v for p, v in lights.items() if v.meaning != "next"}
            if teach and state.expected_kind == "sow" and not state.flag_kind:
                for place in lap_path(session.follower(), session.game.rules):
                    lights.setdefault(place, Light(PATH_COLOR, "steady", "path"))
            for place in hint:
                lights[place] = Light(WHITE, "fast_blink", "hint")
            if countdown is not None and not state.flag_kind:
                count_down(lights, countdown, places)
        self.lights = lights
        self.pixels = render(
            lights,
            session.game.mapping.leds_of,
            self.board.led_count,
            now,
            brightness=self.settings.brightness,
            max_current_a=self.settings.max_current_a,
        )
        self.strip.show(self.pixels)

    def _too_soon(self, now: float, referee: Tracker, state: GuidanceState) -> bool:
        """Teach mode's slow pace: the next seed's place is shown only `slow_pace_s` after
        the last seed landed, so a child waits for each seed to settle before the next."""
        pace = self.settings.slow_pace_s
        if pace <= 0 or state.expected_kind != "sow" or not referee.steps:
            return False
        return now - referee.steps[-1].t < pace

    def places_status(self, places: list[Place]) -> dict[str, PlaceLight]:
        """Each place's light (dark where none is lit)."""
        out: dict[str, PlaceLight] = {
            place_key(place): {"color": hex_color(light.color), "effect": light.effect}
            for place, light in self.lights.items()
        }
        for place in places:
            out.setdefault(place_key(place), {"color": "#000000", "effect": "none"})
        return out

    def colors(self) -> list[str]:
        return [hex_color(p) for p in self.pixels]

    def get_status(self, colors: list[str], places: dict[str, PlaceLight]) -> LedsStatus:
        return {
            "colors": colors,
            "places": places,
            "current_a": round(estimate_current_a(self.pixels), 3),
            "brightness": self.settings.brightness,
        }


def closed_pits(lights: dict[Place, Light], rules: Rules) -> None:
    """A match round's closed pits (no seeds, never sown) glow steady vermillion: the board
    says which pits are out of this round, for laying it out and for playing it."""
    for player, pit in rules.options.closed:
        lights.setdefault(Place(player, pit), Light(VERMILLION, "steady", "closed"))


def count_down(lights: dict[Place, Light], countdown: Countdown, places: list[Place]) -> None:
    """The player's pits count the last COUNTDOWN_S down: their row goes dark from its last
    pit to its first (the pits still lit that may not be played glow yellow, so the row
    reads as a bar); once the time is up the player's store blinks vermillion."""
    player = countdown.player
    if countdown.overrun:
        lights[Place(player, "store")] = Light(VERMILLION, "blink", "time_up")
        return
    row = sorted((p for p in places if p.player == player and not p.is_store), key=str)
    lit = math.ceil(countdown.left_s / COUNTDOWN_S * len(row))
    for index, place in enumerate(row):
        if index >= lit:
            lights.pop(place, None)
        else:
            lights.setdefault(place, Light(YELLOW, "steady", "countdown"))
    lights.setdefault(Place(player, "store"), Light(PLAYER_COLORS[player], "steady", "clock"))


def guidance_state(session: GameSession, idle: bool) -> GuidanceState:
    """What the game asks of the hands now (the setup's: the places that do not fit)."""
    places = session.game.mapping.places
    if session.referee is None:
        setup = session.setup
        assert setup is not None
        return GuidanceState(
            to_move=setup.follower.to_move,
            mismatch={c.place: c.how for c in setup.wrong},
            places=places,
        )
    state = session.referee.guidance_state(places)
    state.idle = idle
    return state


def lap_path(follower: StepFollower, rules: Rules) -> list[Place]:
    """Teach mode: the places the seeds still in the hand will go to, after the next one."""
    out: list[Place] = []
    for p in follower.active_players():
        hand = follower.hands[p]
        if hand.phase is not Phase.SOWING or not hand.sequence:
            continue
        seq = hand.sequence
        for k in range(1, hand.seeds):
            out.append(rules.place(seq[(hand.sown + k) % len(seq)]))
    return out


def place_key(place: Place) -> str:
    return f"{place.player},{place.pit}"
