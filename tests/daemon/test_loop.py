"""The daemon's loop on the simulated board, headless and without sleeping: visitors play
moves with the virtual hand, make mistakes, take moves back, press the board's buttons, and
the status snapshot (position, lights, flags, history, record) follows what the hands did."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.journal import read_journal, replay
from controller.daemon.link import CommandError
from controller.daemon.loop import COMMAND_BUDGET_S, DEMO_STILL_NEW_GAME_S
from controller.leds.patterns import BLUE, GREEN, ORANGE, VERMILLION, WHITE, hex_color
from controller.rules import Game, Place
from controller.tracking.verdicts import Flag
from tests.daemon.conftest import Board, make_config


def leds_of(status: dict[str, Any], place: list[Any]) -> list[str]:
    """The colours the LEDs of one place show now."""
    for entry in status["board"]["places"]:
        if entry["place"] == place:
            return [status["leds"]["colors"][k] for k in entry["leds"]]
    raise KeyError(place)


def rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def light(status: dict[str, Any], place: list[Any]) -> dict[str, str]:
    return status["leds"]["places"][f"{place[0]},{place[1]}"]


def test_a_visitor_plays_two_moves_and_the_status_follows_the_wood(board: Board) -> None:
    board.ready()
    status = board.status()
    game = status["game"]
    assert status["sim"] is True
    assert status["daemon"]["state"] == "playing"
    assert game["position"]["pits"] == [[7] * 7, [7] * 7]
    assert (game["expected_kind"], game["phase"]) == ("pickup", "start")
    assert game["expected"] == [[0, i] for i in range(7)]
    # Player 1's pits pulse in their colour (blue); the other row is dark.
    assert light(status, [0, 3]) == {"color": hex_color(BLUE), "effect": "pulse"}
    assert light(status, [1, 3]) == {"color": "#000000", "effect": "none"}
    for color in leds_of(status, [0, 3]):
        r, g, b = rgb(color)
        assert r == 0 and b > g > 0  # a dimmed blue (brightness cap 0.4, pulsing)
    assert set(leds_of(status, [1, 3])) == {"#000000"}

    reference = Game("congkak")
    history = []
    for ply, pit in enumerate((3, 1), start=1):
        history.append({"ply": ply, "player": reference.to_move, "pit": pit})
        board.play(pit)
        reference.play(pit)
    status = board.status()
    game = status["game"]
    assert game["position"] == reference.position().to_json()
    assert game["history"] == history
    assert game["record"] == {"variant": "congkak", "options": {}, "moves": [3, 1]}
    assert [f for f in status["flags"] if f["active"]] == []
    truth = board.loop.sim.world.truth()  # type: ignore[union-attr]
    assert truth["pits"] == game["position"]["pits"]
    assert truth["stores"] == game["position"]["stores"]


def test_the_next_place_lights_white_while_the_hand_sows(board: Board) -> None:
    board.ready()
    board.loop.execute("sim_move", {"pit": 3})
    board.run_until(lambda: board.status()["game"]["expected_kind"] == "sow")
    status = board.status()
    (place,) = status["game"]["expected"]
    assert light(status, place) == {"color": hex_color(WHITE), "effect": "steady"}
    r, g, b = rgb(leds_of(status, place)[0])
    assert r == g == b == round(255 * 0.4)  # steady white at the brightness cap
    assert status["game"]["phase"] in ("sowing", "relay")
    board.settle()


def test_a_seed_in_the_wrong_pit_is_flagged_lit_and_put_right(board: Board) -> None:
    board.ready()
    result = board.loop.execute("sim_mistake", {"kind": "wrong_pit"})
    board.run_until(lambda: any(f["active"] for f in board.status()["flags"]))
    status = board.status()
    (flag,) = [f for f in status["flags"] if f["active"]]
    assert flag["kind"] == "wrong_pit"
    assert flag["at"] == result["at"]
    assert light(status, flag["at"]) == {"color": hex_color(VERMILLION), "effect": "fast_blink"}
    for place in flag["expected"]:
        assert light(status, place) == {"color": hex_color(GREEN), "effect": "steady"}
    assert status["game"]["phase"] == "blocked"

    board.settle()  # the hand takes the seed back and sows on
    status = board.status()
    assert [(f["kind"], f["active"]) for f in status["flags"]] == [("wrong_pit", False)]
    assert status["game"]["history"] == [{"ply": 1, "player": 0, "pit": result["pit"]}]
    reference = Game("congkak")
    reference.play(result["pit"])
    assert status["game"]["position"] == reference.position().to_json()


@pytest.mark.parametrize("kind", ["wrong_start", "extra_seed", "foreign_seed"])
def test_other_mistakes_are_flagged_and_the_move_still_counts(board: Board, kind: str) -> None:
    board.ready()
    result = board.mistake(kind)
    status = board.status()
    assert kind in [f["kind"] for f in status["flags"]]
    assert not any(f["active"] for f in status["flags"])
    assert status["game"]["record"]["moves"] == [result["pit"]]


def test_every_step_is_in_the_journal_and_replays_to_the_same_game(board: Board) -> None:
    board.ready()
    board.play(3)
    board.mistake("wrong_pit")
    board.loop.writer.flush()
    journal = read_journal(board.loop.journal_path)
    assert journal is not None
    assert journal.problems == []
    assert journal.seed_g == pytest.approx(5.4, rel=0.05)
    replayed = replay(journal)
    assert replayed.taken_back == []
    status = board.status()
    assert replayed.follower.position().to_json() == status["game"]["position"]
    assert [s.step for s in replayed.steps] == [s for _t, s in board.loop.game.steps]


def test_a_teacher_takes_a_move_back_and_the_hands_put_the_seeds_back(board: Board) -> None:
    board.ready()
    board.play(3)
    after_one = board.status()["game"]["position"]
    board.play(1)
    assert len(board.status()["game"]["history"]) == 2

    assert board.loop.execute("undo", {})["moves"] == 1
    board.ready()
    status = board.status()
    assert status["game"]["position"] == after_one
    assert status["game"]["history"] == [{"ply": 1, "player": 0, "pit": 3}]
    board.loop.writer.flush()
    journal = read_journal(board.loop.journal_path)
    assert journal is not None
    assert replay(journal).follower.position().to_json() == after_one

    board.loop.execute("undo", {})
    board.ready()
    with pytest.raises(CommandError, match="no move to undo") as caught:
        board.loop.execute("undo", {})
    assert caught.value.field == "command"


def test_a_new_game_of_kalah_on_the_congkak_board_closes_a_pit_per_row(board: Board) -> None:
    board.ready()
    board.play(3)
    result = board.loop.execute("new_game", {"variant": "kalah"})
    assert result == {"variant": "kalah", "options": {}, "opponent": None}
    board.ready()
    status = board.status()
    assert status["game"]["variant"] == "kalah"
    assert status["game"]["position"]["pits"] == [[3] * 6, [3] * 6]
    assert status["game"]["history"] == []
    assert status["board"]["pits"] == 6
    assert len(status["board"]["idle_cells"]) == 2
    assert status["flags"] == []
    # The unfinished congkak game went to the records.
    board.loop.writer.flush()
    records = board.loop.records_path.read_text().splitlines()
    assert [json.loads(r)["moves"] for r in records] == [[3]]
    assert json.loads(records[0])["finished"] is False


def test_commands_that_cannot_be_carried_out_say_which_field(board: Board) -> None:
    board.ready()
    cases: list[tuple[str, dict[str, Any], str, str]] = [
        ("new_game", {"variant": "chess"}, "variant", "unknown variant"),
        ("new_game", {"options": {"pits": 8}}, "options", "pits"),
        ("new_game", {"variant": "oware", "options": {"pits": 9}}, "options", ""),
        ("mode", {"mode": "party"}, "mode", "allowed: play, teach, demo"),
        ("calibrate", {"stage": "reference"}, "grams", "weight in grams"),
        ("sim_move", {"pit": 9}, "pit", ""),
        ("sim_actions", {"actions": [{"t": 0, "action": "fly"}]}, "actions", "fly"),
        ("dance", {}, "command", "unknown command"),
    ]
    for name, args, field, text in cases:
        with pytest.raises(CommandError) as caught:
            board.loop.execute(name, args)
        assert caught.value.field == field, (name, args, caught.value)
        assert text in caught.value.message
    board.loop.execute("sim_move", {"pit": 3})
    with pytest.raises(CommandError, match="busy") as busy:
        board.loop.execute("sim_move", {"pit": 4})
    assert busy.value.field == "command"
    board.settle()


def test_teach_mode_shows_where_the_rest_of_the_hand_goes(board: Board) -> None:
    board.ready()
    assert board.loop.execute("mode", {"mode": "teach"}) == {"mode": "teach"}
    board.loop.execute("sim_move", {"pit": 0})  # seven seeds: six pits and the store
    board.run_until(lambda: board.status()["game"]["hand"][0] >= 4)
    status = board.status()
    paths = [k for k, v in status["leds"]["places"].items() if v["color"] == "#464646"]
    assert len(paths) == status["game"]["hand"][0] - 1
    assert status["mode"] == "teach"
    board.settle()


def test_the_board_buttons_undo_change_mode_and_hint(board: Board) -> None:
    board.ready()
    board.play(3)
    press = [{"t": 0.1, "action": "button", "name": "mode"}]
    board.loop.execute("sim_actions", {"actions": press})
    board.run(1.0)
    assert board.status()["mode"] == "teach"
    board.loop.execute("sim_actions", {"actions": [{"t": 0.1, "action": "button", "name": "hint"}]})
    board.run(0.5)
    effects = {v["effect"] for v in board.status()["leds"]["places"].values()}
    assert "fast_blink" in effects  # the places to play now blink for a few seconds
    board.loop.execute("sim_actions", {"actions": [{"t": 0.1, "action": "button", "name": "undo"}]})
    board.run(0.5)
    board.ready()
    assert board.status()["game"]["history"] == []


def test_an_untouched_board_turns_to_its_attract_animation(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, leds={"idle_minutes": 0.05}))  # 3 s
    try:
        board.ready()
        assert board.status()["daemon"]["idle"] is False
        board.run(4.0)
        status = board.status()
        assert status["daemon"]["idle"] is True
        effects = {v["effect"] for v in status["leds"]["places"].values()}
        assert effects == {"chase"}
        board.play(3)  # a visitor: the guidance is back
        assert board.status()["daemon"]["idle"] is False
        assert light(board.status(), [1, 0])["color"] == hex_color(ORANGE)
    finally:
        board.stop()


def test_the_power_budget_caps_the_leds(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, leds={"brightness": 1.0, "max_current_a": 0.1}))
    try:
        board.ready()
        status = board.status()
        assert status["leds"]["brightness"] == 1.0
        assert status["leds"]["current_a"] <= 0.1 + 0.001
        assert any(c != "#000000" for c in status["leds"]["colors"])
    finally:
        board.stop()


def test_a_demo_plays_a_whole_game_shows_the_winner_and_starts_again(tmp_path: Path) -> None:
    """A museum leaves the board in demo mode: the virtual hand plays on its own."""
    config = make_config(
        tmp_path, game={"variant": "kalah", "options": {"seeds": 1}, "mode": "demo"}
    )
    board = Board(config)
    try:
        board.ready()
        board.run_until(lambda: board.status()["game"]["position"]["over"], 300)
        board.run(0.2)
        status = board.status()
        position = status["game"]["position"]
        winner = position["winner"]
        effects = {v["effect"] for v in status["leds"]["places"].values() if v["effect"] != "none"}
        assert effects == {"pulse"}  # the winner's side (both, for a draw) pulses
        if winner != "draw":
            lit = {k for k, v in status["leds"]["places"].items() if v["effect"] == "pulse"}
            assert all(k.startswith(f"{winner},") for k in lit)
        board.loop.writer.flush()
        (record,) = [json.loads(r) for r in board.loop.records_path.read_text().splitlines()]
        assert record["finished"] is True
        assert record["moves"] == [m["pit"] for m in status["game"]["history"]]
        board.run_until(lambda: not board.status()["game"]["position"]["over"], 10)
        assert board.status()["game"]["history"] == []
    finally:
        board.stop()


def test_a_demo_nobody_puts_right_starts_a_new_game(tmp_path: Path) -> None:
    """A museum's demo board has nobody at it: a flag left waiting (here a seed dropped on the
    board) starts a new game after DEMO_STILL_NEW_GAME_S, and the old game's flags go."""
    config = make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 2}})
    board = Board(config)
    try:
        board.ready()
        board.play(2)
        board.loop.execute("sim_actions", {"actions": [{"t": 0.2, "action": "add", "at": [1, 1]}]})
        board.run_until(lambda: any(f["active"] for f in board.status()["flags"]), 10)
        board.loop.execute("mode", {"mode": "demo"})
        board.run(DEMO_STILL_NEW_GAME_S - 2)
        assert board.status()["game"]["history"] != []  # still waiting for a person
        board.run_until(lambda: board.status()["game"]["history"] == [], 10)
        assert any("a flag waited with nobody to put it right" in m for m in board.messages)
        assert board.status()["flags"] == []
        board.run_until(lambda: board.status()["game"]["history"] != [], 60)  # playing again
    finally:
        board.stop()


def test_a_demo_whose_referee_waits_for_a_step_nobody_makes_starts_a_new_game(
    tmp_path: Path,
) -> None:
    """A museum's demo board: the referee waits for a step the virtual hands will not make
    and no flag says so (here a hand stopped with a seed in it; in a simultaneous opening, a
    relay the referee wrongly expects). That stands still as a flag would: a new game after
    DEMO_STILL_NEW_GAME_S."""
    config = make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 2}})
    board = Board(config)
    try:
        board.ready()
        actions = [
            {"t": 0.2, "action": "grab", "at": [0, 2]},
            {"t": 0.8, "action": "drop", "at": [0, 3]},
        ]
        board.loop.execute("sim_actions", {"actions": actions})
        board.run(2.0)
        assert board.status()["flags"] == [] and board.status()["game"]["history"] == []
        board.loop.execute("mode", {"mode": "demo"})
        board.run(DEMO_STILL_NEW_GAME_S - 2)
        assert not any("a new game" in m for m in board.messages)  # still waiting
        board.run_until(lambda: any("a new game" in m for m in board.messages), 10)
        assert any("waited for what the hands will not do" in m for m in board.messages)
        board.run_until(lambda: board.status()["game"]["history"] != [], 60)  # playing again
    finally:
        board.stop()


def test_a_flag_the_referee_withdraws_keeps_its_id_to_itself(board: Board) -> None:
    """The referee withdraws a flag once the cups are explained without its mistake
    (hypotheses.py): that flag goes from the active ones on the status, and a flag raised
    after does not get its id. The steps stay in the journal as they were."""
    board.ready()
    board.play(2)
    referee = board.loop.referee
    assert referee is not None
    steps_before = len(board.loop.session_steps)

    def raised(kind: str, at: Place) -> Flag:
        flag = Flag(referee.now, kind, at, [], shown_t=referee.now, serial=len(referee.flags) + 1)
        referee.flags.append(flag)
        return flag

    first = raised("wrong_pit", Place(0, 1))
    board.run(0.1)
    (shown,) = [f for f in board.status()["flags"] if f["active"]]
    first.resolved_t, first.detail = referee.now, "withdrawn: the cups are explained without it"
    raised("seed_lost", Place(1, 1))
    board.run(0.1)
    flags = [f for f in board.status()["flags"] if f["active"]]
    assert [(f["kind"], f["at"]) for f in flags] == [("seed_lost", [1, 1])]
    assert flags[0]["id"] != shown["id"]
    assert len(board.loop.session_steps) == steps_before
    assert all(a is b for a, b in zip(board.loop.session_steps, referee.steps, strict=True))


def test_queued_commands_share_a_pass_of_the_loop_within_a_time_budget(board: Board) -> None:
    """However many requests queue commands at once, one pass of the loop spends about
    COMMAND_BUDGET_S on them and leaves the rest for the next passes (frames and ticks come
    between), instead of carrying them all out in one go."""
    board.ready()
    loop = board.loop
    done: list[str] = []

    def slow(name: str, args: dict[str, Any]) -> dict[str, Any]:
        time.sleep(COMMAND_BUDGET_S * 0.6)
        done.append(name)
        return {}

    loop.execute = slow  # type: ignore[method-assign]
    senders = [
        threading.Thread(target=loop.link.command, args=("mode", {"mode": "play"}))
        for _ in range(6)
    ]
    for sender in senders:
        sender.start()
    while len(loop.link._queue) < len(senders):
        time.sleep(0.01)

    loop.iterate()
    in_one_pass = len(done)
    while len(done) < len(senders):
        loop.iterate()
    for sender in senders:
        sender.join()

    assert 1 <= in_one_pass <= 2
