"""The hands' tempo read from a hypothesis's steps (controller/tracking/tempo.py)."""

from __future__ import annotations

from controller.rules import Place, Step
from controller.tracking.explanation import Taken
from controller.tracking.motions import Motion
from controller.tracking.tempo import HandTempo

# A congkak relay at 0.5 s a seed: pit 1 lifted at 0 s (the grab presses and lifts for 0.25 s),
# seeds at 0.75 and 1.25 s, the last of them into pit 3, which the hand lifts a beat later
# (1.75 s) and sows on from, its next seed at 2.5 s. Cells are the pits' numbers.
LIFTED, FIRST, LAST, RELAY_LIFT, RELAYED = 0.0, 0.75, 1.25, 1.75, 2.5


def _relay(relay_lift_has_own_motion: bool) -> tuple[HandTempo, Taken]:
    motions = [Motion(1, LIFTED, 0.0), Motion(2, FIRST, 0.0), Motion(3, LAST, 0.0)]
    relay_motion = 2
    if relay_lift_has_own_motion:
        motions.append(Motion(3, RELAY_LIFT, 0.0))
        relay_motion = 3
    motions.append(Motion(4, RELAYED, 0.0))
    steps = [
        (Step.pickup(0, Place(0, 1)), 0),
        (Step.sow(0, Place(0, 2)), 1),
        (Step.sow(0, Place(0, 3)), 2),
        (Step.pickup(0, Place(0, 3)), relay_motion),
        (Step.sow(0, Place(0, 4)), len(motions) - 1),
    ]
    last: Taken | None = None
    for step, motion in steps:
        last = Taken(step, motion, last)
    assert last is not None
    return HandTempo(motions, relays=True, sample_s=0.0125), last


def test_a_relay_lift_with_a_motion_of_its_own_counts_its_beat_to_the_next_seed() -> None:
    tempo, last = _relay(relay_lift_has_own_motion=True)
    times, usual = tempo.laps(last, player=0)
    assert times == [RELAYED]
    # the gaps: 0.5 between the seeds, 0.55 from each lift (less the lift's 0.2 s)
    assert usual is not None and round(usual, 3) == 0.55


def test_a_relay_lift_read_from_its_last_seeds_motion_has_no_beat_of_its_own() -> None:
    """The cup did not settle between the seed and the lift: the motion's onset is the
    seed's, two beats before the relay's first seed. Counted as one beat, it slowed the hand's
    tempo (1.05 s here among gaps of 0.5 s)."""
    tempo, last = _relay(relay_lift_has_own_motion=False)
    _, usual = tempo.laps(last, player=0)
    assert usual == 0.5


def test_a_lift_read_from_the_other_hands_seed_keeps_its_beat() -> None:
    """While both hands sow, player 1's seed falls in [0, 1] and player 0 lifts that pit in
    the same motion: its onset is as near the lift as the pickup's own, so the beat from it
    to player 0's first seed counts (left out, bench openings lost a game: 7 pits, 10 SPS,
    seed 528). Here that beat (0.3 s after the lift's 0.2) is the hand's tempo, not the
    0.7 s between its seeds."""
    motions = [Motion(1, 0.0, 0.0), Motion(2, 0.5, 0.0), Motion(3, 1.2, 0.0)]
    steps = [
        (Step.sow(1, Place(0, 1)), 0),
        (Step.pickup(0, Place(0, 1)), 0),
        (Step.sow(0, Place(0, 2)), 1),
        (Step.sow(0, Place(0, 3)), 2),
    ]
    last: Taken | None = None
    for step, motion in steps:
        last = Taken(step, motion, last)
    tempo = HandTempo(motions, relays=True, sample_s=0.0125)
    _, usual = tempo.laps(last, player=0)
    assert usual is not None and round(usual, 3) == 0.3


def _chain(steps: list[tuple[Step, int]]) -> Taken:
    last: Taken | None = None
    for step, motion in steps:
        last = Taken(step, motion, last)
    assert last is not None
    return last


# Player 0 sows a move at 0.5 s a seed (lifted at 0 s, seeds from 0.75 s), player 1 moves, and
# player 0 lifts a pit at 10 s (its motion settled at 10.3 s). Cells are motions' own.
LAST_MOVE = [Motion(1, 0.0, 0.0), Motion(2, 0.75, 0.0), Motion(3, 1.25, 0.0)]
LAST_MOVE += [Motion(4, 1.75, 0.0), Motion(8, 4.0, 0.0), Motion(9, 4.5, 0.0)]
LAST_MOVE += [Motion(5, 10.0, 0.0, settled_t=10.3), Motion(7, 11.2, 0.0)]
LAST_MOVE_STEPS = [
    (Step.pickup(0, Place(0, 1)), 0),
    (Step.sow(0, Place(0, 2)), 1),
    (Step.sow(0, Place(0, 3)), 2),
    (Step.sow(0, Place(0, 4)), 3),
    (Step.pickup(1, Place(1, 1)), 4),
    (Step.sow(1, Place(1, 2)), 5),
    (Step.pickup(0, Place(0, 5)), 6),
]


def test_a_moves_first_seed_is_timed_from_the_lift_by_the_hands_last_move() -> None:
    """The next seed comes at 11.2 s: two beats after the lift's 0.2 s (its first seed lost
    off the board), not one. The move has no gap of its own yet, so the last move's beat
    prices them: 0 for two beats, 0.67 for one (spread by MOVE_TEMPO_SPREAD). Less than the
    lost seed's LOST_COST edge of 1.0: a gap of 2.4 beats names it at once
    (test_scenarios.py, `flag_seed_lost_first_of_a_move_spare`). Before, neither was priced."""
    last = _chain(LAST_MOVE_STEPS)
    tempo = HandTempo(LAST_MOVE, relays=False, sample_s=0.0125)
    assert tempo.laps(last, player=0) == ([], None)
    assert tempo.last_move_beat(last, player=0) == 0.5
    assert tempo.lap_begun(last, player=0, first_t=11.2) == 10.2
    lost = tempo.off_tempo(last, 0, onset_t=11.2, beats=2)
    wrong_pit = tempo.off_tempo(last, 0, onset_t=11.2, beats=1)
    assert lost == 0.0 and round(wrong_pit, 2) == 0.67


def test_the_last_moves_beat_is_found_past_its_captures_and_an_extra_turn() -> None:
    """The hand's last move ended in a capture (player 1's seed taken to player 0's store),
    or its last seed fell in its own store and it lifts again (an extra turn, no other
    hand's steps between): its beat is that move's, from its last seed."""
    captured = [*LAST_MOVE_STEPS[:4], (Step.capture(0, Place(1, 1)), 3), *LAST_MOVE_STEPS[4:]]
    tempo = HandTempo(LAST_MOVE, relays=False, sample_s=0.0125)
    assert tempo.last_move_beat(_chain(captured), player=0) == 0.5
    into_store = (Step.sow(0, Place(0, "store")), 4)  # (its last seed: into the store)
    extra_turn = [*LAST_MOVE_STEPS[:4], into_store, (Step.pickup(0, Place(0, 0)), 6)]
    assert tempo.last_move_beat(_chain(extra_turn), player=0) == 0.5
    assert tempo.last_move_beat(_chain(LAST_MOVE_STEPS[:1]), player=0) is None  # (none)


def test_the_last_moves_beat_is_found_past_a_long_move_of_the_other_hand() -> None:
    """Between the hand's last move and this one the other hand sowed 546 steps (a congkak
    move of relays with 9 pits did, in a review's random games): the walk back reaches the
    hand's last seeds past them (TEMPO_WALK), and its first seed is priced by their beat.
    (At 512 it stopped short, and the move's first seed lost off the board had no beat.)"""
    long_move = [(Step.sow(1, Place(1, 2)), 5)] * 545
    steps = [*LAST_MOVE_STEPS[:5], *long_move, LAST_MOVE_STEPS[6]]
    tempo = HandTempo(LAST_MOVE, relays=False, sample_s=0.0125)
    assert tempo.last_move_beat(_chain(steps), player=0) == 0.5


def test_a_lift_after_a_hand_rested_on_the_pit_is_timed_from_its_settling() -> None:
    """A palm rested on the pit from 7 s: the pickup's motion began then and settled at
    10.3 s as the pit was lifted at 10 s. The lift is taken LIFT_MAX_S and six readings before
    that settling (9.825 s at 80 SPS, 0.175 s before the lift), not at the palm's onset, from
    which a seed a beat after the lift would read as seven. The lap's lift beat, which the
    tempo of its next seeds counts, is taken from there too."""
    motions = [*LAST_MOVE[:6], Motion(5, 7.0, 0.0, settled_t=10.3), LAST_MOVE[7]]
    tempo = HandTempo(motions, relays=False, sample_s=0.0125)
    lap_begun = tempo.lap_begun(_chain(LAST_MOVE_STEPS), player=0, first_t=11.2)
    assert lap_begun is not None and round(lap_begun, 3) == 10.025
    sown = _chain([*LAST_MOVE_STEPS, (Step.sow(0, Place(1, 0)), 7)])
    _, usual = tempo.laps(sown, player=0)
    assert usual is not None and round(usual, 3) == 1.175  # (11.2 less 9.825 and LIFT_S)


def test_in_the_opening_the_lap_is_timed_from_the_hands_own_lift() -> None:
    """Both hands sow at once: player 1's seed fell after player 0 lifted its pit at 10 s.
    Player 0's first seed is timed from its own lift, behind the other hand's step."""
    motions = [Motion(5, 10.0, 0.0, settled_t=10.3), Motion(9, 10.4, 0.0), Motion(7, 11.2, 0.0)]
    steps = [(Step.pickup(0, Place(0, 5)), 0), (Step.sow(1, Place(1, 2)), 1)]
    tempo = HandTempo(motions, relays=True, sample_s=0.0125)
    assert tempo.lap_begun(_chain(steps), player=0, first_t=11.2) == 10.2


def test_a_relay_lifted_in_its_last_seeds_motion_has_no_lift_time_of_its_own() -> None:
    """The relay's pit was lifted before its last seed's motion settled (at 2.6 s, a second
    after that seed): the motion's times are the seed's, so the lap has no lift to time from,
    however late the motion settled."""
    motions = [Motion(1, 0.0, 0.0, settled_t=0.3), Motion(2, 0.75, 0.0)]
    motions += [Motion(3, 1.25, 0.0, settled_t=2.6), Motion(4, 3.0, 0.0)]
    steps = [
        (Step.pickup(0, Place(0, 1)), 0),
        (Step.sow(0, Place(0, 2)), 1),
        (Step.sow(0, Place(0, 3)), 2),
        (Step.pickup(0, Place(0, 3)), 2),
    ]
    tempo = HandTempo(motions, relays=True, sample_s=0.0125)
    assert tempo.lap_begun(_chain(steps), player=0, first_t=3.0) is None
