"""The light-following child (controller/sim/lightchild.py): what it reads from LED frames,
and whole games it plays on the daemon's simulated board knowing nothing but the lights."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.bench.child import play_game
from controller.leds.patterns import (
    BLUE,
    ORANGE,
    WHITE,
    YELLOW,
    GuidanceState,
    HandGuidance,
    Light,
    guidance,
    render,
)
from controller.rules import Place
from controller.sim.lightchild import LightChild, Seen, read_lights

PATH = (70, 70, 70)


def frames(lights: dict[Place, Light], seconds: float = 0.6) -> list[list[tuple[int, int, int]]]:
    """What the LED backend gets for `lights` over `seconds` at 30 frames a second."""
    leds_of = {place: (k,) for k, place in enumerate(lights)}
    return [render(lights, leds_of, len(lights), k / 30) for k in range(round(seconds * 30))]


def test_colours_and_whether_they_are_steady_are_read_from_the_frames() -> None:
    lights = {
        Place(0, 1): Light(BLUE, "pulse", "start"),
        Place(0, 2): Light(WHITE, "steady", "next"),
        Place(0, 3): Light(PATH, "steady", "path"),
        Place(1, 1): Light(YELLOW, "blink", "pick_up_again"),
        Place(1, "store"): Light(ORANGE, "steady", "to_store"),
    }
    seen = read_lights(frames(lights), {place: (k,) for k, place in enumerate(lights)})
    assert {p: (s.colour, s.steady) for p, s in seen.items()} == {
        Place(0, 1): ("blue", False),
        Place(0, 2): ("white", True),
        Place(0, 3): ("white", True),
        Place(1, 1): ("yellow", False),
        Place(1, "store"): ("orange", True),
    }
    assert seen[Place(0, 3)].level < 0.5 * seen[Place(0, 2)].level  # the dim path


def test_the_child_sows_into_the_bright_white_not_the_dim_path() -> None:
    child = LightChild(0, random.Random(1))
    seen = {Place(0, 2): Seen("white", True, 102), Place(0, 3): Seen("white", True, 28)}
    assert child.decide(seen, 3) == {"action": "drop", "hand": 0, "at": [0, 2], "n": 1}


def test_in_the_opening_each_hand_sees_its_own_next_seed() -> None:
    state = GuidanceState(
        hands={0: HandGuidance("sow", [Place(1, 2)]), 1: HandGuidance("sow", [Place(0, 5)])}
    )
    lights = guidance(state)
    assert lights[Place(1, 2)] == Light(BLUE, "steady", "next")
    assert lights[Place(0, 5)] == Light(ORANGE, "steady", "next")
    seen = {
        p: Seen("blue" if light.color == BLUE else "orange", True, 99)
        for p, light in lights.items()
    }
    rng = random.Random(1)
    assert LightChild(0, rng).decide(seen, 2) == {"action": "drop", "hand": 0, "at": [1, 2], "n": 1}
    assert LightChild(1, rng).decide(seen, 5) == {"action": "drop", "hand": 1, "at": [0, 5], "n": 1}


def test_where_both_hands_next_seeds_go_the_opening_lights_white_one_seed_each() -> None:
    """One light cannot show two colours: bench child found a hand waiting for its colour at
    a place lit in the other's, while the other's seed there was taken for its own."""
    state = GuidanceState(
        hands={0: HandGuidance("sow", [Place(1, 0)]), 1: HandGuidance("sow", [Place(1, 0)])}
    )
    assert guidance(state)[Place(1, 0)] == Light(WHITE, "steady", "next")
    seen = {Place(1, 0): Seen("white", True, 102)}
    for player in (0, 1):
        action = LightChild(player, random.Random(1)).decide(seen, 3)
        assert action == {"action": "drop", "hand": player, "at": [1, 0], "n": 1}
    assert LightChild(0, random.Random(1)).decide(seen, 0) is None  # an empty hand sows nothing


def test_two_white_lights_are_a_hole_the_child_names() -> None:
    child = LightChild(0, random.Random(1))
    seen = {Place(0, 2): Seen("white", True, 102), Place(1, 3): Seen("white", True, 102)}
    assert child.decide(seen, 4) is None
    assert child.holes == ["2 lights say 'one seed here': which one is mine?"]


@pytest.mark.parametrize("preset", ["congkak", "congkak-opening", "kalah", "oware"])
def test_light_following_children_play_a_whole_game_without_a_flag(
    tmp_path: Path, preset: str
) -> None:
    game = play_game(preset, 0, tmp_path)
    assert game.over, game.stall
    assert game.stall == ""
    assert game.flags == []
    # What the lights had to get across, besides sowing.
    assert game.events["capture"] > 0
    if preset.startswith("congkak"):
        assert game.events["relay"] > 0 and game.events["extra_turn"] > 0
    else:
        assert game.events["sweep"] == 1


def test_a_yellow_light_where_the_other_hand_sowed_last_is_not_this_childs_relay() -> None:
    """Both hands' seeds may fall in one pit in the simultaneous opening (bench child found
    it: both children grabbed there, and the game stalled)."""
    child = LightChild(0, random.Random(1))
    pit = Place(1, 2)
    assert child.decide({pit: Seen("blue", True, 99)}, 1) == {
        "action": "drop",
        "hand": 0,
        "at": [1, 2],
        "n": 1,
    }
    assert child.decide({pit: Seen("orange", True, 99)}, 0) is None  # the other hand's seed
    assert child.decide({pit: Seen("yellow", False, 99)}, 0) is None  # its relay, not mine
    mine = LightChild(1, random.Random(1))
    mine.decide({pit: Seen("orange", True, 99)}, 1)
    assert mine.decide({pit: Seen("yellow", False, 99)}, 0) == {
        "action": "grab",
        "hand": 1,
        "at": [1, 2],
    }


def test_in_teach_mode_the_dim_path_and_the_slow_pace_do_not_mislead_the_children(
    tmp_path: Path,
) -> None:
    game = play_game("kalah", 3, tmp_path, mode="teach")
    assert game.good, (game.stall, game.flags)


def test_teach_modes_dim_path_beside_an_openings_coloured_target_is_no_target() -> None:
    """In the opening the next seed's place is in the hand's colour: the dim path is then the
    only white on the board, and still no place to sow (bench child in teach mode)."""
    child = LightChild(0, random.Random(1))
    seen = {
        Place(0, 4): Seen("blue", True, 71),
        Place(0, 5): Seen("white", True, 28),
        Place(0, 6): Seen("white", True, 28),
    }
    assert child.decide(seen, 6) == {"action": "drop", "hand": 0, "at": [0, 4], "n": 1}
