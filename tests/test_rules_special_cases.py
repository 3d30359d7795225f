"""Hand-built positions for each special case of RULES.md section 3."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.rules import (
    Game,
    IllegalMoveError,
    OptionError,
    Place,
    Rules,
    Step,
    StepFollower,
    StepKind,
    Termination,
    find_variant,
    handicap_round,
)
from controller.rules.record import parse_record, replay

from .rules_helpers import game_at, kinds, places

# -- captures -------------------------------------------------------------------------------------


def test_congkak_capture_with_an_empty_opposite_pit_takes_only_the_last_seed() -> None:
    """RULES.md 3 (C): 「その田に配った最後の1粒と…向かいにある相手の田にある種を全部取って」;
    with the opposite pit empty only the last seed goes to the store."""
    # Pit 2's seed falls in own empty pit 3; the opposite pit is [1, 5 - 1 - 3] = [1, 1], empty.
    game = game_at("congkak", [0, 0, 1, 0, 2], [1, 0, 1, 1, 1], pits=5)
    steps = game.steps(2)
    assert places(steps, StepKind.CAPTURE) == [Place(0, 3)]
    game.play(2)
    assert game.pits(0) == (0, 0, 0, 0, 2)
    assert game.stores() == (1, 0)
    assert game.to_move == 1


def test_congkak_capture_takes_the_opposite_pit() -> None:
    game = game_at("congkak", [0, 0, 1, 0, 2], [1, 4, 0, 1, 1], pits=5)
    game.play(2)  # last seed in own empty pit 3; opposite is [1, 1]
    assert game.pits(1) == (1, 0, 0, 1, 1)
    assert game.stores() == (5, 0)


def test_kalah_6_4_capture_needs_seeds_opposite() -> None:
    """RULES.md 3: Kalah(6,4) is kalah with seeds=4 capture_requires_opposite=true end_sweep=owner."""
    options = {"seeds": 4, "capture_requires_opposite": True, "end_sweep": "owner"}
    game = game_at("kalah", [1, 0, 0, 0, 0, 3], [1, 1, 1, 1, 0, 1], **options)
    game.play(0)  # lands in own empty pit 1; the opposite pit [1, 4] is empty: the seed stays
    assert game.pits(0) == (0, 1, 0, 0, 0, 3)
    assert game.stores() == (0, 0)
    plain = game_at("kalah", [1, 0, 0, 0, 0, 3], [1, 1, 1, 1, 0, 1])
    plain.play(0)  # plain kalah captures the lone seed (as congkak's C)
    assert plain.pits(0) == (0, 0, 0, 0, 0, 3)
    assert plain.stores() == (1, 0)


def test_last_seed_in_an_opponent_empty_pit_stays() -> None:
    """Seed (D): 「相手の陣地の田で配り終わり、その田に種がなかった場合…最後に相手側の田に入った種はそのまま」."""
    game = game_at("congkak", [0, 0, 0, 0, 2], [0, 3, 3, 3, 3], pits=5)
    game.play(4)  # store, then [1, 0] which was empty
    assert game.pits(1) == (1, 3, 3, 3, 3)
    assert game.stores() == (1, 0)
    assert game.to_move == 1


def test_oware_capture_walks_back_through_twos_and_threes_in_the_opponents_row() -> None:
    """Seed Oware: 「その直前の穴の石の数が2または3個になっていたら、その穴の石も全て同様に取る」."""
    # 4 seeds from pit 3: own 4, 5, then opponent 0 (1->2), 1 (2->3). Opponent pit 2 keeps 5.
    game = game_at("oware", [0, 0, 0, 4, 0, 0], [1, 2, 5, 0, 0, 0])
    game.play(3)
    assert game.pits(1) == (0, 0, 5, 0, 0, 0)
    assert game.stores() == (5, 0)


def test_oware_capture_stops_at_a_pit_that_is_not_two_or_three() -> None:
    game = game_at("oware", [0, 0, 0, 4, 0, 0], [3, 2, 5, 0, 0, 0])
    game.play(3)  # opponent 0 becomes 4 (no), 1 becomes 3 (yes): only pit 1 is taken
    assert game.pits(1) == (4, 0, 5, 0, 0, 0)
    assert game.stores() == (3, 0)


# -- grand slam ---------------------------------------------------------------------------------

GRAND_SLAM = ([1, 0, 0, 0, 3, 0], [1, 2, 0, 0, 0, 0])  # pit 4 would take both opposing pits


def test_grand_slam_no_capture_the_move_stands() -> None:
    game = game_at("oware", *GRAND_SLAM)
    assert game.legal_moves() == [0, 4]
    game.play(4)
    assert game.pits(1) == (2, 3, 0, 0, 0, 0)
    assert game.stores() == (0, 0)


def test_grand_slam_forbidden_unless_every_move_is_one() -> None:
    game = game_at("oware", *GRAND_SLAM, grand_slam="forbidden")
    assert game.legal_moves() == [0]
    with pytest.raises(IllegalMoveError, match="grand slam"):
        game.play(4)
    only = game_at("oware", [0, 0, 0, 0, 3, 0], [1, 2, 0, 0, 0, 0], grand_slam="forbidden")
    assert only.legal_moves() == [4]  # the player must move: it captures nothing
    only.play(4)
    assert only.stores() == (0, 0)


def test_grand_slam_allowed_takes_everything() -> None:
    game = game_at("oware", *GRAND_SLAM, grand_slam="allowed")
    game.play(4)
    # 5 of 7 seeds stored is a majority: the game ends and the owner sweep gives P0 its pits.
    assert game.stores() == (7, 0)
    assert game.outcome is not None and game.outcome.termination is Termination.MAJORITY
    assert game.outcome.winner == 0


# -- must feed ----------------------------------------------------------------------------------


def test_must_feed_allows_only_feeding_moves() -> None:
    """Seed Oware: 「もし相手の穴が全て空であれば、相手の穴のどれかには石が残るように石撒きをしなければならない」."""
    game = game_at("oware", [1, 0, 0, 0, 2, 0], [0, 0, 0, 0, 0, 0], stores=(20, 20))
    assert game.legal_moves() == [4]


def test_must_feed_with_no_feeding_move_ends_the_game_and_the_mover_takes_their_row() -> None:
    """Seed: 「そのような手が不可能な場合は、その時点でゲームが終わり、その時点で自陣の石を全て取り」."""
    # Player 1 sows its last seed into [0, 0]; player 0 then cannot reach player 1's row.
    game = game_at("oware", [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1], stores=(20, 20), to_move=1)
    game.play(5)
    assert game.outcome is not None
    assert game.outcome.termination is Termination.CANNOT_FEED
    assert game.stores() == (22, 20)
    assert game.pits(0) == (0,) * 6
    assert game.outcome.winner == 0


def test_oware_majority_of_25_wins_and_24_all_is_a_draw() -> None:
    """Seed: 「どちらかが25個の石を取った時点で、そのプレイヤーの勝ち…双方が24個ずつ取れば…引き分け」."""
    game = game_at("oware", [0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 1], stores=(23, 22))
    game.play(5)  # [1, 0] goes from 1 to 2 and is captured: 23 + 2 = 25
    assert game.outcome is not None and game.outcome.termination is Termination.MAJORITY
    assert game.outcome.winner == 0
    assert game.stores() == (25, 23)  # the owner sweep gives player 1 its last seed
    # 24-24 with every seed stored needs the last capture to empty a row: a grand slam, so
    # only where grand slams capture.
    draw = game_at(
        "oware", [0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0], stores=(22, 24), grand_slam="allowed"
    )
    draw.play(5)  # [1, 0] goes from 1 to 2 and is captured: 24-24
    assert draw.stores() == (24, 24)
    assert draw.outcome is not None and draw.outcome.winner is None
    assert draw.position().to_json()["winner"] == "draw"


# -- passes, extra turns, end sweeps --------------------------------------------------------------


def test_congkak_pass_chain_the_same_player_moves_again_while_the_opponent_has_no_seeds() -> None:
    """Seed: 「自分の陣地に種がある田がなかったら、手番をパスする。パスの回数に制限はない」."""
    game = game_at("congkak", [0, 0, 1, 0, 2], [0, 0, 0, 0, 0], pits=5)
    steps = game.steps(2)
    assert kinds(steps)[-2:] == ["end_turn", "pass"]
    assert steps[-1] == Step(StepKind.PASS, 1)
    game.play(2)  # captures its own seed; player 1 has nothing: passes
    assert game.to_move == 0
    game.play(4)  # store, then [1, 0] (empty): the turn ends and player 1 has a seed
    assert game.to_move == 1
    game.play(0)  # [1, 1] empty own pit, nothing opposite: captures its seed; all pits empty
    assert game.outcome is not None and game.outcome.termination is Termination.ALL_PITS_EMPTY
    assert game.stores() == (2, 1)


def test_congkak_extra_turn_with_an_empty_row_passes_to_the_opponent() -> None:
    game = game_at("congkak", [0, 0, 0, 0, 1], [0, 0, 5, 0, 0], pits=5)
    steps = game.steps(4)
    assert kinds(steps)[-2:] == ["extra_turn", "pass"]
    game.play(4)
    assert game.to_move == 1


def test_kalah_extra_turn_in_own_store() -> None:
    """Seed Kalah: 「ラップが自分のストアで終われば…再び自陣の好きな穴から石を取り撒き始めることができる」."""
    game = Game("kalah")
    game.play(3)
    assert game.to_move == 0


def test_kalah_end_sweep_goes_to_the_player_whose_row_is_empty() -> None:
    """Seed Kalah: 「その時に穴に残っていた石全ては、空になった側のプレイヤーのものになり」."""
    game = game_at("kalah", [0, 0, 0, 0, 0, 1], [1, 1, 1, 0, 0, 0], stores=(10, 12))
    steps = game.steps(5)
    sweeps = [s for s in steps if s.kind is StepKind.SWEEP]
    assert [(s.at, s.to_player) for s in sweeps] == [
        (Place(1, 0), 0),
        (Place(1, 1), 0),
        (Place(1, 2), 0),
    ]
    game.play(5)
    assert game.stores() == (14, 12)
    assert game.outcome is not None and game.outcome.termination is Termination.SIDE_EMPTY


def test_kalah_6_4_end_sweep_goes_to_each_rows_owner() -> None:
    game = game_at(
        "kalah", [0, 0, 0, 0, 0, 1], [1, 1, 1, 0, 0, 0], stores=(10, 12), end_sweep="owner"
    )
    game.play(5)
    assert game.stores() == (11, 15)
    assert game.outcome is not None and game.outcome.winner == 1


def test_oware_cycle_ends_the_game_each_taking_their_own_row() -> None:
    """RULES.md 3 `cycle=split_own`: a repeated position ends the game."""
    # One seed each, chasing each other round the board: the position repeats after 12 moves.
    game = game_at("oware", [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1], stores=(23, 23))
    plies = 0
    while not game.over:
        (move,) = game.legal_moves()
        game.play(move)
        plies += 1
    assert game.outcome is not None and game.outcome.termination is Termination.CYCLE
    assert sum(game.stores()) == 48 and plies <= 24


# -- closed pits and handicap rounds ------------------------------------------------------------


def test_closed_pits_are_skipped_never_played_and_hold_nothing() -> None:
    """RULES.md 3: 「Closed pits … are skipped by sowing, cannot be chosen, and hold nothing」."""
    game = Game("congkak", {"pits": 7, "closed": [[0, 3], [1, 3]]})
    assert game.pits(0) == (7, 7, 7, 0, 7, 7, 7)
    assert 3 not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match="closed"):
        game.play(3)
    steps = game.steps(1)
    assert Place(0, 3) not in places(steps, StepKind.SOW)
    assert Place(1, 3) not in places(steps, StepKind.SOW)
    game.play(1)
    assert game.pits(0)[3] == 0 and game.pits(1)[3] == 0


def test_handicap_round_from_given_stocks_keep() -> None:
    """Seed 「ハンディ戦」: the winner fills every pit and keeps the rest in the store; the loser
    fills from the right end; a pit that gets no seed is closed for the round."""
    options = find_variant("congkak").options(pits=7, handicap_rounds=True)
    setup = handicap_round(options, (60, 38))
    assert setup is not None
    assert setup.position.pits == ((7,) * 7, (7, 7, 7, 7, 7, 3, 0))
    assert setup.position.stores == (11, 0)
    assert setup.options.closed == {(1, 6)}
    game = Game(Rules(setup.options, "congkak"), start=setup.position)
    assert game.position().total == 98
    assert game.to_move == 1
    assert 6 not in game.legal_moves()


def test_handicap_round_burn_closes_the_partly_filled_pit() -> None:
    options = find_variant("congkak").options(pits=7, handicap_rounds=True, handicap_partial="burn")
    setup = handicap_round(options, (60, 38))
    assert setup is not None
    assert setup.position.pits[1] == (7, 7, 7, 7, 7, 0, 0)
    assert setup.position.stores == (11, 3)
    assert setup.options.closed == {(1, 5), (1, 6)}


def test_handicap_match_ends_when_a_player_cannot_fill_a_pit() -> None:
    options = find_variant("congkak").options(pits=5, handicap_rounds=True)
    assert handicap_round(options, (50, 0)) is None
    burn = find_variant("congkak").options(pits=5, handicap_rounds=True, handicap_partial="burn")
    assert handicap_round(burn, (46, 4)) is None  # 4 seeds cannot fill a 5-seed pit
    assert handicap_round(options, (46, 4)) is not None  # keep: one pit of 4


# -- simultaneous opening -----------------------------------------------------------------------


def _play_opening(schedule: str, starts: tuple[int, int], pits: int = 5) -> StepFollower:
    """Both hands play their opening; `schedule` says whose step comes next ('0'/'1'), repeated."""
    rules = Rules.for_variant("congkak", {"pits": pits, "simultaneous_opening": True})
    follower = StepFollower.new(rules)
    for p in (0, 1):
        assert follower.feed(Step.pickup(p, Place(p, starts[p]))).accepted
    k = 0
    while follower.opening:
        options = follower.expected()
        mine = [s for s in options if s.player == int(schedule[k % len(schedule)])] or options
        # A hand back at the start of a move (extra turn) starts from its first playable pit.
        verdict = follower.feed(mine[0])
        assert verdict.accepted, verdict.reason
        k += 1
    return follower


def test_simultaneous_opening_the_faster_hand_changes_the_outcome() -> None:
    """Seed 「同時進行」: 「配るスピードによって最後に配った先の田に種があるかないかが変わってきて」."""
    fast0 = _play_opening("0001", (1, 1))
    fast1 = _play_opening("0111", (1, 1))
    assert fast0.position().total == fast1.position().total == 50
    assert fast0.board != fast1.board
    # Normal turns start with the player who finished last (opening_next=slower).
    assert fast0.to_move == fast0.finish_order[-1]
    assert fast1.to_move == fast1.finish_order[-1]


def test_simultaneous_opening_accepts_either_hand_and_then_normal_turns() -> None:
    follower = _play_opening("01", (0, 3))
    assert not follower.opening
    assert follower.to_move in (0, 1)
    expected = follower.expected()
    assert expected and all(
        s.kind is StepKind.PICKUP and s.player == follower.to_move for s in expected
    )


def test_simultaneous_opening_faster_option() -> None:
    rules = Rules.for_variant(
        "congkak", {"pits": 5, "simultaneous_opening": True, "opening_next": "faster"}
    )
    follower = StepFollower.new(rules)
    follower.feed(Step.pickup(0, Place(0, 1)))
    follower.feed(Step.pickup(1, Place(1, 2)))
    while follower.opening:
        follower.feed(follower.expected()[0])
    assert follower.to_move == follower.finish_order[0]


# -- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "overrides", "message"),
    [
        (
            "kalah",
            {"pits": 0},
            "option 'pits': 0 is out of range, allowed: an integer from 1 to 16",
        ),
        ("kalah", {"seeds": -1}, "option 'seeds': -1 is out of range"),
        ("kalah", {"seeds": "4"}, "option 'seeds': \"4\" is not an integer"),
        (
            "kalah",
            {"laps": "double"},
            "option 'laps': \"double\" is not allowed, allowed: one of single, relay",
        ),
        ("kalah", {"extra_turn": 1}, "option 'extra_turn': 1 is not a boolean"),
        ("kalah", {"colour": "red"}, "unknown option 'colour' for variant 'kalah'"),
        ("congkak", {"pits": 6}, "option 'pits': 6 is not allowed for congkak, allowed: 5, 7, 9"),
        ("oware", {"capture_counts": []}, "option 'capture_counts'"),
        ("kalah", {"closed": [[0, 9]]}, "option 'closed': [0, 9] is not a pit of a 6-pit row"),
        ("oware", {"move_time_limit_s": -3}, "option 'move_time_limit_s': -3 is out of range"),
    ],
)
def test_bad_options_are_clear_errors_naming_the_option(
    variant: str, overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(OptionError) as err:
        find_variant(variant).options_from(overrides)
    assert message in str(err.value)


def test_relay_without_own_store_is_refused() -> None:
    with pytest.raises(OptionError, match="relay needs sow_own_store=true"):
        Rules.for_variant("oware", {"laps": "relay"})


def test_presets_match_the_rules_table() -> None:
    """RULES.md 3 table, column by column."""
    congkak = find_variant("congkak").options()
    assert (congkak.pits, congkak.seeds, congkak.laps, congkak.end, congkak.no_move) == (
        7,
        7,
        "relay",
        "all_pits_empty",
        "pass",
    )
    kalah = find_variant("kalah").options()
    assert (kalah.pits, kalah.seeds, kalah.laps, kalah.end, kalah.end_sweep) == (
        6,
        3,
        "single",
        "side_empty",
        "emptier",
    )
    oware = find_variant("oware").options()
    assert (
        oware.sow_own_store,
        oware.capture,
        oware.skip_origin,
        oware.must_feed,
        oware.cycle,
    ) == (
        False,
        "counts",
        True,
        True,
        "split_own",
    )
    assert congkak.move_time_limit_s is None and not congkak.simultaneous_opening


def test_handicap_rounds_need_the_match_options_and_its_seed_total() -> None:
    options = find_variant("congkak").options(pits=5, handicap_rounds=True)
    with pytest.raises(ValueError, match="hold 6 seeds, the match has 50"):
        handicap_round(options, (3, 3))
    simultaneous = find_variant("congkak").options(
        pits=5, handicap_rounds=True, simultaneous_opening=True
    )
    setup = handicap_round(simultaneous, (30, 20))
    assert setup is not None and setup.position.to_move is None  # both hands start together


def test_no_store_to_sow_and_no_cycle_rule_is_refused() -> None:
    with pytest.raises(OptionError, match=r"cycle.*go round for ever"):
        Rules.for_variant("oware", {"cycle": "none"})


# -- the clock's timeout (move_time_consequence = pass) ---------------------------------------


def test_a_timeout_passes_the_turn_and_a_record_with_it_replays() -> None:
    rules = Rules.for_variant("kalah", {"move_time_limit_s": 5, "move_time_consequence": "pass"})
    follower = StepFollower.new(rules)
    steps = follower.complete_move(2)  # player 0 sows 2, the turn goes to player 1
    assert follower.to_move == 1
    timeout = Step(StepKind.TIMEOUT, 1)
    assert follower.feed(timeout).accepted
    assert follower.to_move == 0 and len(follower.completed) == 1
    steps += [timeout, *follower.complete_move(0)]
    record = {
        "variant": "kalah",
        "options": {"move_time_limit_s": 5, "move_time_consequence": "pass"},
        "steps": [s.to_json() for s in steps if s.kind.physical or s.kind is StepKind.TIMEOUT],
        "moves": [2, 0],
    }
    lines = list(replay(parse_record(json.dumps(record))))
    assert [(line["player"], line["pit"]) for line in lines] == [(0, 2), (0, 0)]
    assert lines[-1]["pits"] == follower.position().to_json()["pits"]


@pytest.mark.parametrize(
    ("options", "moves", "reason"),
    [
        ({"move_time_limit_s": 5}, [], "this game's clock never passes"),
        ({"move_time_consequence": "pass"}, [], "this game's clock never passes"),
        ({"move_time_limit_s": 5, "move_time_consequence": "pass"}, [2], "only the player to"),
    ],
)
def test_a_timeout_is_refused_where_the_clock_cannot_pass(
    options: dict[str, Any], moves: list[int], reason: str
) -> None:
    follower = StepFollower.new(Rules.for_variant("kalah", options))
    for pit in moves:
        follower.complete_move(pit)
    verdict = follower.feed(Step(StepKind.TIMEOUT, 0))
    assert not verdict.accepted and reason in verdict.reason


def test_the_clock_consequence_is_checked() -> None:
    with pytest.raises(OptionError, match="option 'move_time_consequence': \"forfeit\""):
        Rules.for_variant("oware", {"move_time_consequence": "forfeit"})
