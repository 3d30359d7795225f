"""The virtual player: moves as the hands make them (SIMULATION.md "Scenario file", RULES.md 2).

The player turns the rules engine's step list of each move into timed actions; whatever the
tempo, the seeds must end where the rules say, and seeds are conserved on the way
(RULES.md 4: pits + stores + hand = total).
"""

from __future__ import annotations

import itertools
import random
import statistics

import pytest

from controller.rules import Game, Place, Step, StepFollower
from controller.sim import (
    MISTAKE_KINDS,
    MistakeNotPossible,
    SimWorld,
    VirtualPlayer,
    build_simulation,
)
from controller.sim.world import GRAB_PRESS_S, MOVE_S

from .helpers import position_json, random_game, scenario


def run_to_end(world: SimWorld, check_every: int = 8) -> None:
    """Run the world to its end, checking seed conservation on the way."""
    total = world.total_seeds()
    while not world.finished:
        world.step()
        if world._k % check_every == 0:
            assert world.total_seeds() == total + world.added - world.lost
    assert world.total_seeds() == total + world.added - world.lost


def truth_equals(world: SimWorld, game: Game) -> None:
    truth = world.truth()
    assert {"pits": truth["pits"], "stores": truth["stores"]} == position_json(game)
    assert truth["hand"] == [0, 0]
    assert [entry.note for entry in world.log if entry.note] == []


@pytest.mark.parametrize("variant", ["congkak", "kalah", "oware"])
def test_a_whole_game_ends_with_the_rules_engines_final_position(variant: str) -> None:
    """Every preset, every move of a random game, by hand: pickups, sowing, relays, captures
    and the end sweep (moved by hand to the right store)."""
    moves, game = random_game(variant, seed=11)
    simulation = build_simulation(scenario(variant, moves=moves, player={"seconds_per_seed": 0.2}))
    world = simulation.world
    run_to_end(world)
    truth_equals(world, game)
    assert simulation.player.game.over
    kinds = {entry.action.kind for entry in world.log}
    assert {"grab", "drop"} <= kinds
    sown = sum(1 for entry in world.log if entry.action.kind == "drop")
    assert len(world.landings) >= sown


def sow_intervals(world: SimWorld) -> list[float]:
    """Gaps between consecutive seeds of one lap (drops not interrupted by anything else)."""
    gaps = []
    for a, b in itertools.pairwise(world.log):
        if a.action.kind == b.action.kind == "drop" and a.action.hand == b.action.hand:
            gaps.append(b.t - a.t)
    return gaps


@pytest.mark.parametrize(("seconds_per_seed", "variant"), [(1.0, "kalah"), (0.125, "congkak")])
def test_a_slow_child_and_an_expert_both_play_whole_games(
    seconds_per_seed: float, variant: str
) -> None:
    """A child at 1 seed/s and an expert at 8 seeds/s (drops 125 ms apart) are one parameter."""
    moves, game = random_game(variant, seed=5)
    simulation = build_simulation(
        scenario(variant, moves=moves, player={"seconds_per_seed": seconds_per_seed, "jitter": 0.3})
    )
    run_to_end(simulation.world)
    truth_equals(simulation.world, game)
    gaps = sow_intervals(simulation.world)
    pace = simulation.player.pace
    assert statistics.mean(gaps) == pytest.approx(seconds_per_seed * statistics.mean(pace), rel=0.1)
    assert min(gaps) >= seconds_per_seed * 0.7 * min(pace) - 1e-9
    assert max(gaps) <= seconds_per_seed * 1.3 * max(pace) + 1e-9


def test_scripted_actions_count_from_the_end_of_the_last_move() -> None:
    """SIMULATION.md: with both, `moves` come first, then `actions`, whose times then count
    from the end of the last move; the default hand is the player to move."""
    simulation = build_simulation(
        scenario("kalah", moves=[2], actions=[{"t": 0.5, "action": "grab", "at": [1, 0]}])
    )
    world = simulation.world
    run_to_end(world)
    last_move_end = max(e.t for e in world.log if e.action.kind == "drop")
    grab = world.log[-1]
    assert grab.action.kind == "grab"
    assert grab.t == pytest.approx(last_move_end + 0.5)
    assert grab.action.hand == 1
    assert world.truth()["hand"] == [0, 3]


def physical_steps(world: SimWorld) -> list[tuple[float, Step]]:
    """The rule steps a perfect observer would read off the world's action log, in the order
    they physically happened: a pickup or capture when the seeds leave, a sow when it lands."""
    out = []
    for entry in world.log:
        action = entry.action
        assert action.at is not None and action.hand is not None
        if action.kind == "grab":
            out.append((entry.t + GRAB_PRESS_S, Step.pickup(action.hand, action.at)))
        elif action.kind == "drop":
            out.append((entry.t, Step.sow(action.hand, action.at)))
        elif action.kind == "move":
            assert action.to is not None
            out.append((entry.t + GRAB_PRESS_S, Step.capture(action.hand, action.at)))
    return sorted(out, key=lambda pair: pair[0])


@pytest.mark.parametrize("seed", range(6))
def test_the_simultaneous_opening_follows_the_rules_as_the_seeds_fall(seed: int) -> None:
    """RULES.md 3: in a simultaneous opening each hand sows by its own rules on the shared
    board as the seeds actually fall. Feeding the steps in physical order to a fresh follower
    must accept every one and end where the seeds are."""
    scn = scenario("congkak", options={"simultaneous_opening": True}, sensors={"random_seed": seed})
    world = SimWorld(scn)
    rng = random.Random(seed)
    player = VirtualPlayer(Game(world.rules), scn.player, world.rng)
    player.play_opening([rng.randrange(7), rng.randrange(7)], lambda h, legal: rng.choice(legal))
    world.schedule(player.actions, relative=False)
    run_to_end(world)
    truth_equals(world, player.game)

    follower = StepFollower.new(world.rules)
    for _, step in physical_steps(world):
        verdict = follower.feed(step)
        assert verdict.accepted, verdict.reason
    assert not follower.opening
    assert position_json(Game(world.rules, start=follower.position())) == position_json(player.game)
    # Both hands really played at the same time: their seeds interleave.
    hands = [e.action.hand for e in world.log if e.action.kind == "drop"]
    switches = sum(1 for a, b in itertools.pairwise(hands) if a != b)
    assert switches > 4


def test_the_game_goes_on_by_turns_after_the_opening() -> None:
    moves = [0, 0, 1, 2, 3, 4, 5, 6] * 4
    scn = scenario("congkak", options={"simultaneous_opening": True}, sensors={"random_seed": 3})
    world = SimWorld(scn)
    player = VirtualPlayer(Game(world.rules), scn.player, world.rng)
    used = player.play_opening(moves[:2], lambda h, legal: legal[0])
    assert used == 2 and player.game.to_move in (0, 1)
    rng = random.Random(1)
    for _ in range(5):
        player.play(rng.choice(player.game.legal_moves()))
    world.schedule(player.actions, relative=False)
    run_to_end(world)
    truth_equals(world, player.game)


def test_an_opening_choice_that_is_not_legal_names_its_index() -> None:
    from controller.sim import ScenarioError

    # Both start from pit 0 and end in their own stores (rule A), so each needs another pit;
    # pit 0 is empty by then.
    scn = scenario("congkak", options={"simultaneous_opening": True}, moves=[0, 0, 0, 1])
    with pytest.raises(ScenarioError, match=r"moves\[2\]: pit 0 \(simultaneous opening\)"):
        build_simulation(scn)


# -- mistakes ---------------------------------------------------------------------------------

# The action that makes each mistake, at the recorded time (grab: the recorded time is the
# lift, GRAB_PRESS_S after the action starts; not_all_lifted: the seed sown without the rest).
MISTAKE_ACTION = {
    "wrong_start": ("grab", GRAB_PRESS_S),
    "not_all_lifted": ("drop", 0.0),
    "wrong_pit": ("drop", 0.0),
    "extra_seed": ("drop", 0.0),
    "opponent_store": ("drop", 0.0),
    "seed_lost": ("drop_off", 0.0),
    "foreign_seed": ("add", 0.0),
}


@pytest.mark.parametrize("variant", ["congkak", "kalah", "oware"])
@pytest.mark.parametrize("kind", MISTAKE_KINDS)
def test_each_mistake_and_its_correction_leave_the_truth_consistent(
    variant: str, kind: str
) -> None:
    """SIMULATION.md: after a flag the hands put the board right and play carries on. The
    recorded mistake (kind, true time, place) is what a benchmark checks the flags against."""
    scn = scenario(variant, sensors={"random_seed": 4})
    world = SimWorld(scn)
    player = VirtualPlayer(Game(world.rules), scn.player, world.rng)
    rng = random.Random(2)
    for _ in range(3):
        player.play(rng.choice(player.game.legal_moves()))
    try:
        player.play_with_mistake(kind)
    except MistakeNotPossible:
        pytest.skip(f"{kind} is not possible in this position")
    for _ in range(2):
        if not player.game.over:
            player.play(rng.choice(player.game.legal_moves()))
    world.schedule(player.actions, relative=False)
    run_to_end(world)
    truth_equals(world, player.game)

    [mistake] = player.mistakes
    assert mistake.kind == kind
    action_kind, lift = MISTAKE_ACTION[kind]
    made = [
        e
        for e in world.log
        if e.t == pytest.approx(mistake.t - lift) and e.action.kind == action_kind
    ]
    assert made, f"no {action_kind} at {mistake.t}"
    action = made[0].action
    if kind == "opponent_store":
        assert mistake.at == Place(1 - mistake.hand, "store")
    if kind in ("wrong_pit", "extra_seed", "opponent_store", "wrong_start", "foreign_seed"):
        assert action.at == mistake.at
    if kind == "wrong_pit":
        assert mistake.at != mistake.expected and not mistake.at.is_store
    if kind == "not_all_lifted":
        # Part of the pit was lifted before that seed, and the rest stayed there till then.
        earlier = [e for e in world.log if e.t < made[0].t and e.action.at == mistake.at]
        assert earlier and earlier[-1].action.kind == "take" and action.at != mistake.at
    if kind == "extra_seed":
        assert action.n == 2 and mistake.at == mistake.expected
    if kind in ("seed_lost", "foreign_seed"):
        assert (world.lost, world.added) == (1, 1)  # one seed left the game, one came in
    else:
        assert (world.lost, world.added) == (0, 0)
    # The correction touches the mistake's place again within a couple of seconds.
    later = [e for e in world.log if mistake.t < e.t < mistake.t + 2.5 and e is not made[0]]
    assert any(e.action.at == mistake.at for e in later)


def test_a_mistake_that_cannot_happen_says_so() -> None:
    """A game where every pit holds one seed cannot leave one behind."""
    from controller.rules import Position

    start = Position(((1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1)), (0, 0), 0)
    player = VirtualPlayer(Game("kalah", start=start))
    with pytest.raises(MistakeNotPossible):
        player.play_with_mistake("not_all_lifted")
    with pytest.raises(ValueError, match="unknown mistake"):
        player.play_with_mistake("sneeze")


def test_captures_and_the_end_sweep_are_moved_by_hand_to_the_right_store() -> None:
    """RULES.md 2: capture(from): all seeds in pit `from` go to the mover's store; sweep(from,
    to_player) at the end of the game. Kalah: the seeds left go to the player whose row is
    empty (end_sweep=emptier)."""
    from controller.rules import Position

    # Player 0 sows pit 4's single seed into empty pit 5 and captures it with the 3 seeds
    # opposite in (1, 0); row 0 is then empty, so player 0 also sweeps row 1's 5 seeds.
    start = Position(((0, 0, 0, 0, 1, 0), (3, 1, 1, 1, 1, 1)), (10, 10), 0)
    scn = scenario("kalah")
    world = SimWorld(scn, start=start)
    player = VirtualPlayer(Game("kalah", start=start), scn.player, world.rng)
    actions = player.play(4)
    assert [a.kind for a in actions] == ["grab", "drop"] + ["move"] * 7
    assert {(a.at, a.to) for a in actions[2:4]} == {
        (Place(0, 5), Place(0, "store")),
        (Place(1, 0), Place(0, "store")),
    }
    assert {a.to for a in actions[4:]} == {Place(0, "store")}
    world.schedule(actions, relative=False)
    run_to_end(world)
    truth_equals(world, player.game)
    assert world.truth()["stores"] == [10 + 4 + 5, 10]
    landed = [land for land in world.landings if land.place == Place(0, "store")]
    assert landed[0].t == pytest.approx(actions[2].t + MOVE_S)


def test_the_daemon_can_have_the_virtual_hand_play_a_clicked_move() -> None:
    """A running endless board: a move (then one with a mistake) is scheduled from now on."""
    from controller.sim import SimSource, schedule_move

    world = SimWorld(scenario("kalah"))
    source = SimSource(world, endless=True)
    for _ in range(200):
        source.read()
    started = world.now
    first = schedule_move(world, Game("kalah"), 2)
    assert first.pit == 2 and first.mistakes == [] and first.actions[0].t > started
    second = schedule_move(world, first.game, mistake="wrong_pit")
    [mistake] = second.mistakes
    assert mistake.kind == "wrong_pit" and second.game.to_move == 0
    assert any(a.t == mistake.t and a.at == mistake.at for a in second.actions)
    while world.now < second.actions[-1].t + 1.0:
        source.read()
    truth = world.truth()
    assert {"pits": truth["pits"], "stores": truth["stores"]} == position_json(second.game)
    assert truth["hand"] == [0, 0]


def test_the_daemon_can_have_both_virtual_hands_play_the_opening() -> None:
    """RULES.md `simultaneous_opening`: on a running board both hands start now, from the
    pits given; the hands end with the truth at the game after the opening."""
    from controller.sim import SimSource, schedule_opening

    world = SimWorld(scenario("congkak", options={"pits": 5, "simultaneous_opening": True}))
    source = SimSource(world, endless=True)
    for _ in range(200):
        source.read()
    started = world.now
    opening = schedule_opening(world, StepFollower.new(world.rules), {0: 3, 1: 1})
    assert opening.pits == {0: 3, 1: 1} and opening.actions[0].t > started
    firsts = [next(a for a in opening.actions if a.hand == h) for h in (0, 1)]
    assert [(a.kind, a.at) for a in firsts] == [("grab", Place(0, 3)), ("grab", Place(1, 1))]
    assert opening.game.to_move is not None  # the opening is over
    while world.now < max(a.t for a in opening.actions) + 2.0:
        source.read()
    truth = world.truth()
    assert {"pits": truth["pits"], "stores": truth["stores"]} == position_json(opening.game)
    assert truth["hand"] == [0, 0]
