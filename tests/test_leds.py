"""Light guidance (issue 4 item 3): a pattern for every referee state, a second cue beside
colour, the brightness cap and the power budget; buttons through gpiozero's mock pins."""

from __future__ import annotations

import pytest

from controller.buttons import Buttons
from controller.leds.backends import LedError, NeoPixelLeds, SimulatedLeds
from controller.leds.patterns import (
    GREEN,
    PLAYER_COLORS,
    VERMILLION,
    WHITE,
    YELLOW,
    GuidanceState,
    Light,
    estimate_current_a,
    guidance,
    render,
)
from controller.rules import Place

PLACES = [Place(p, i) for p in (0, 1) for i in range(5)] + [Place(0, "store"), Place(1, "store")]


def test_the_player_to_move_sees_their_playable_pits_in_their_colour() -> None:
    lights = guidance(
        GuidanceState(to_move=1, expected_kind="pickup", expected=[Place(1, 0), Place(1, 3)])
    )
    assert {p for p in lights} == {Place(1, 0), Place(1, 3)}
    assert all(
        light.color == PLAYER_COLORS[1] and light.effect == "pulse" for light in lights.values()
    )


def test_the_next_place_is_bright_and_a_relay_blinks_yellow() -> None:
    sow = guidance(GuidanceState(to_move=0, expected_kind="sow", expected=[Place(1, 2)]))
    assert sow == {Place(1, 2): Light(WHITE, "steady", "next")}
    relay = guidance(
        GuidanceState(to_move=0, expected_kind="pickup", expected=[Place(1, 2)], relay=True)
    )
    assert relay[Place(1, 2)] == Light(YELLOW, "blink", "pick_up_again")


def test_a_capture_shows_the_pits_and_the_store_they_go_to() -> None:
    lights = guidance(
        GuidanceState(
            to_move=0, mover=0, expected_kind="capture", expected=[Place(0, 3), Place(1, 1)]
        )
    )
    assert lights[Place(0, "store")].meaning == "to_store"
    assert lights[Place(1, 1)].meaning == "capture"


def test_a_wrong_place_blinks_fast_and_the_right_one_is_steady() -> None:
    """Red and green alone fail for red-green colour blindness: the effects differ too."""
    lights = guidance(
        GuidanceState(flag_kind="wrong_pit", flag_at=Place(1, 4), flag_expected=[Place(1, 3)])
    )
    assert lights[Place(1, 4)] == Light(VERMILLION, "fast_blink", "wrong_here")
    assert lights[Place(1, 3)] == Light(GREEN, "steady", "belongs_here")


def test_extra_turn_pass_mismatch_game_over_and_idle_each_have_a_pattern() -> None:
    extra = guidance(
        GuidanceState(to_move=0, expected_kind="pickup", expected=[Place(0, 1)], extra_turn=True)
    )
    assert extra[Place(0, "store")].meaning == "extra_turn"
    passed = guidance(
        GuidanceState(to_move=0, expected_kind="pickup", expected=[Place(0, 1)], passed=1)
    )
    assert passed[Place(0, "store")].meaning == "pass"
    mismatch = guidance(GuidanceState(mismatch={Place(0, 1): "too_few", Place(1, 1): "too_many"}))
    assert mismatch[Place(0, 1)].effect != mismatch[Place(1, 1)].effect
    over = guidance(GuidanceState(over=True, winner=1, places=PLACES))
    assert {p.player for p in over} == {1}
    draw = guidance(GuidanceState(over=True, winner=None, places=PLACES))
    assert {p.player for p in draw} == {0, 1}
    idle = guidance(GuidanceState(idle=True, places=PLACES))
    assert len(idle) == len(PLACES) and all(light.effect == "chase" for light in idle.values())


def test_no_two_meanings_share_colour_and_effect() -> None:
    seen: dict[tuple[object, str], str] = {}
    states = [
        GuidanceState(to_move=0, expected_kind="sow", expected=[Place(0, 1)]),
        GuidanceState(to_move=0, expected_kind="pickup", expected=[Place(0, 1)], relay=True),
        GuidanceState(flag_kind="wrong_pit", flag_at=Place(1, 4), flag_expected=[Place(1, 3)]),
        GuidanceState(mismatch={Place(0, 1): "too_few", Place(1, 1): "too_many"}),
        GuidanceState(to_move=0, mover=0, expected_kind="capture", expected=[Place(1, 1)]),
    ]
    for state in states:
        for light in guidance(state).values():
            key = (light.color, light.effect)
            assert seen.setdefault(key, light.meaning) == light.meaning


def test_brightness_cap_and_power_budget() -> None:
    lights = {p: Light(WHITE, "steady", "next") for p in PLACES}
    leds = {p: (k,) for k, p in enumerate(PLACES)}
    capped = render(lights, leds, len(PLACES), 0.0, brightness=0.25, max_current_a=10.0)
    assert max(max(px) for px in capped) == 64
    budget = render(lights, leds, len(PLACES), 0.0, brightness=1.0, max_current_a=0.3)
    assert estimate_current_a(budget) <= 0.3
    assert (
        estimate_current_a(render(lights, leds, len(PLACES), 0.0, brightness=1.0, max_current_a=5))
        > 0.3
    )


def test_simulated_strip_keeps_frames() -> None:
    strip = SimulatedLeds(3)
    strip.show([(1, 2, 3)] * 3)
    assert strip.pixels == [(1, 2, 3)] * 3 and strip.shown == 1
    with pytest.raises(ValueError, match="2 pixels for a strip of 3"):
        strip.show([(0, 0, 0)] * 2)


def test_neopixel_backend_on_a_pc_says_what_to_do() -> None:
    with pytest.raises(LedError, match=r"pi extra|not available"):
        NeoPixelLeds(10)


def test_buttons_through_gpiozero_mock_pins() -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    Device.pin_factory = factory
    try:
        buttons = Buttons({"new_game": 5, "undo": 6}, pin_factory=factory)
        factory.pin(6).drive_low()
        factory.pin(6).drive_high()
        factory.pin(5).drive_low()
        assert buttons.drain() == ["undo", "new_game"]
        assert buttons.drain() == []
        buttons.close()
    finally:
        Device.pin_factory = None
