"""The computer opponent in the daemon (controller/daemon/opponent.py): configured, chosen by
the new-game command, thinking in its own process while the loop runs, its pit lit, its moves
played by the simulated board's virtual hand, and the hint."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.bench.daemonproc import DaemonProcess
from controller.daemon.config import ConfigError
from controller.daemon.link import CommandError
from controller.daemon.loop import BoardLoop
from controller.daemon.notices import Notices
from controller.daemon.opponent import (
    ENGINE_RETRY_S,
    LEVEL_NUMBERS,
    ComputerPlayer,
    Opponent,
    Request,
    Thinker,
    turn_key,
)
from controller.daemon.run import make_app
from controller.engine import LEVELS
from controller.rules import Game, StepFollower
from tests.daemon.conftest import Board, make_config
from tests.daemon.test_web_link import wait_for

# A short game on the congkak board: kalah, 6 pits, 3 seeds (about 25 moves).
SHORT = {"variant": "kalah", "options": {"pits": 6, "seeds": 3}}


def check_legal(record: dict[str, Any], computer: int) -> int:
    """Replay the record's moves through the rules engine; every move, the computer's
    included, must be legal where it was played. The computer's move count."""
    game = Game(record["variant"], record["options"])
    computer_moves = 0
    for ply, pit in enumerate(record["moves"], start=1):
        mover = game.to_move
        reason = game.why_illegal(pit)
        assert reason is None, f"ply {ply}: player {mover} played pit {pit}: {reason}"
        computer_moves += mover == computer
        game.play(pit)
    return computer_moves


# -- the whole game through the page's API --------------------------------------------------------


@pytest.fixture
def running(tmp_path: Path) -> Iterator[BoardLoop]:
    config = make_config(
        tmp_path,
        game={**SHORT, "opponent": {"player": 1, "level": 3, "think_s": 0.2}},
    )
    loop = BoardLoop(config, speed=20.0, out=[].append).start()
    yield loop
    loop.stop()


@pytest.fixture
def client(running: BoardLoop) -> FlaskClient:
    app = make_app(running, running.config, TESTING=True, SSE_HEARTBEAT_S=0.3, SSE_POLL_S=0.05)
    return app.test_client()


def persons_turn(status: dict[str, Any]) -> bool:
    if "daemon" not in status:
        return False  # (the loop has not published yet: only the version is there)
    position = status["game"]["position"]
    return position.get("over") is True or (
        status["daemon"]["state"] == "playing"
        and not status["daemon"]["sim_busy"]
        and status["game"]["phase"] == "start"
        and position["to_move"] == 0
    )


def test_a_game_against_the_computer_is_played_to_the_end_through_the_api(
    running: BoardLoop, client: FlaskClient
) -> None:
    rng = random.Random(7)
    shown: set[int] = set()  # the computer's pits the page was told of, lit on the board

    def computers_choice(status: dict[str, Any]) -> bool:
        computer = status.get("game", {}).get("computer", {})
        pit = computer.get("move")
        if pit is not None and status["game"]["position"]["to_move"] == 1:
            light = status["leds"]["places"][f"1,{pit}"]
            others = [
                status["leds"]["places"][f"1,{i}"]["effect"]
                for i in range(6)
                if i != pit and status["game"]["phase"] == "start"
            ]
            if light["effect"] == "pulse" and set(others) <= {"none"}:
                shown.add(len(status["game"]["history"]))
        return persons_turn(status)

    status = wait_for(running, persons_turn, 30.0)
    assert status["game"]["computer"]["player"] == 1
    assert status["game"]["computer"]["level"] == 3
    while not status["game"]["position"]["over"]:
        pits = status["game"]["position"]["pits"][0]
        pit = rng.choice([i for i, n in enumerate(pits) if n])
        plies = len(status["game"]["history"])
        answer = client.post("/api/sim/move", json={"pit": pit})
        assert answer.status_code == 200, answer.get_json()
        # (a snapshot from before the hand started would still look like the person's turn)
        wait_for(running, lambda s, plies=plies: len(s["game"]["history"]) > plies, 60.0)
        status = wait_for(running, computers_choice, 60.0)
    record = client.get("/api/record").get_json()
    assert record["opponent"] == {"player": 1, "level": 3, "think_s": 0.2}
    computer_moves = check_legal(record, computer=1)
    assert computer_moves >= 3
    # The page saw the computer's pit lit (alone of its row) before most of its moves.
    assert len(shown) >= computer_moves // 2, (shown, computer_moves)


def test_the_computer_plays_first_in_congkak_and_every_move_is_legal(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={"opponent": {"player": 0, "level": 1}}))
    try:
        board.ready()
        rng = random.Random(3)
        end = time.monotonic() + 120
        while not board.status()["game"]["position"]["over"]:
            assert time.monotonic() < end, "the game did not end in two minutes"
            position = board.status()["game"]["position"]
            if position["to_move"] == 1:
                board.play(rng.choice([i for i, n in enumerate(position["pits"][1]) if n]))
            else:  # (extra turns included: congkak's relays can make that a long while)
                plies = len(board.status()["game"]["history"])
                board.wait(lambda n=plies: len(board.status()["game"]["history"]) > n)
                board.settle()
        record = board.status()["game"]["record"]
        assert check_legal(record, computer=0) >= 3
        assert record["moves"][0] in range(7)
    finally:
        board.stop()


class FakePool(Executor):
    """The engine's process without a process: a request's future waits until the test
    answers it, so a test says where in the game each answer arrives."""

    def __init__(self) -> None:
        self.requests: list[Request] = []  # (every request submitted, in order)
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        if args and isinstance(args[0], Request):
            self.requests.append(args[0])
            self.futures.append(future)
        else:
            future.set_result(None)  # (the warm-up)
        return future

    def answer(self, pit: int | None = None, error: Exception | None = None) -> None:
        """The request thinking now finishes: with `pit`, or raising `error`."""
        future = self.futures[-1]
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(pit)


def kalah_turns() -> tuple[StepFollower, StepFollower]:
    """Two turns of player 0 in kalah 6 x 3: the start, and after a move each."""
    other = Game("kalah", {"pits": 6, "seeds": 3})
    other.play(0)
    other.play(0)  # (player 1's pit 0: player 0 to move again, another board)
    return StepFollower.from_game(Game("kalah", {"pits": 6, "seeds": 3})), StepFollower.from_game(
        other
    )


def computer_with(pool: FakePool, clock: Callable[[], float] = time.monotonic) -> ComputerPlayer:
    computer = ComputerPlayer(Thinker(clock=clock, pool=lambda: pool), Notices(lambda _text: None))
    computer.new_game(Opponent(player=0, level=5, think_s=30.0))
    return computer


def asked_for_a_move() -> tuple[FakePool, ComputerPlayer, StepFollower, StepFollower]:
    """The computer (player 0) asked for its move at kalah's start, at loop time 1.0: its
    pool, itself, that turn, and another turn of player 0's (`kalah_turns`)."""
    pool = FakePool()
    computer = computer_with(pool)
    turn, other_view = kalah_turns()
    computer.tick(1.0, "game", turn, ready=True)
    return pool, computer, turn, other_view


def test_the_computer_asks_again_for_a_turn_the_referee_comes_back_to() -> None:
    """The computer asks once while the engine thinks. The referee may change its mind about
    the board (a hypothesis that explained the cups better): the engine's answer for the turn
    it left arrives while it holds another view, and is dropped; when the referee comes back
    to the first turn, the computer asks again. It once remembered having asked and waited
    for ever (CI: no move in 120 s)."""
    pool, computer, turn, other_view = asked_for_a_move()
    computer.tick(1.1, "game", turn, ready=True)
    assert [r.key for r in pool.requests] == [turn_key("game", turn)]
    pool.answer(2)
    computer.tick(2.0, "game", other_view, ready=False)
    assert computer.move is None  # (the answer came for a turn that is not the board's)
    computer.tick(3.0, "game", turn, ready=True)
    assert [r.key for r in pool.requests] == [turn_key("game", turn)] * 2
    pool.answer(2)
    computer.tick(4.0, "game", turn, ready=True)
    assert computer.move is not None and computer.move.pit == 2


def test_a_request_for_a_turn_that_is_gone_is_not_thought_about() -> None:
    """The referee's view goes to another turn and comes back while the engine thinks: the
    request asked for the other turn, waiting, is dropped; the first turn's answer is the
    move, and the engine is not asked again (a review found the other turn thought about
    after, its answer taking the lit pit's place)."""
    pool, computer, turn, other_view = asked_for_a_move()
    computer.tick(1.1, "game", other_view, ready=True)
    computer.tick(1.2, "game", turn, ready=True)
    pool.answer(4)
    for now in (2.0, 2.1, 2.2):
        computer.tick(now, "game", turn, ready=True)
    assert [r.key for r in pool.requests] == [turn_key("game", turn)]
    assert computer.move is not None and computer.move.pit == 4
    assert not computer.thinker.busy("move")


def test_a_waiting_request_is_dropped_when_the_computer_is_not_to_move() -> None:
    """The engine thinks about turn K, turn K' waits; then it is a person's turn: K' is not
    thought about after K (a hint the person asks for would wait behind it)."""
    pool, computer, turn, other_view = asked_for_a_move()
    computer.tick(1.1, "game", other_view, ready=True)
    persons_turn = turn.copy()
    persons_turn.complete_move(0)
    computer.tick(1.2, "game", persons_turn, ready=True)
    pool.answer(4)
    computer.tick(2.0, "game", persons_turn, ready=True)
    assert [r.key for r in pool.requests] == [turn_key("game", turn)]
    assert not computer.thinker.busy("move")


def test_after_the_engine_gave_no_move_it_is_asked_again_after_a_while() -> None:
    """An engine's error is told, and the move asked for again ENGINE_RETRY_S later, not at
    every tick (each ask of an engine whose process keeps dying starts a new process)."""
    pool, computer, turn, _ = asked_for_a_move()
    pool.answer(error=RuntimeError("out of memory"))
    computer.tick(2.0, "game", turn, ready=True)
    assert computer.error == "RuntimeError: out of memory"
    (warning,) = computer.notes.warnings
    assert warning.text == "the engine gave no move: RuntimeError: out of memory"
    computer.tick(2.0 + ENGINE_RETRY_S - 0.1, "game", turn, ready=True)
    assert len(pool.requests) == 1
    computer.tick(2.0 + ENGINE_RETRY_S, "game", turn, ready=True)
    assert len(pool.requests) == 2


def test_an_answer_for_a_turn_that_is_gone_is_no_move() -> None:
    """The engine answers after the computer's turn was played by hand (its pit never lit):
    the answer is dropped, and nobody is told the computer chose another pit."""
    pool, computer, turn, _ = asked_for_a_move()
    played = turn.copy()
    played.complete_move(0)  # (3 seeds to pits 1 to 3: player 1 to move)
    pool.answer(4)
    computer.tick(2.0, "game", played, ready=True)
    assert computer.move is None
    assert computer.notes.records() == []


def test_an_engine_process_that_dies_is_asked_again_once_in_a_new_one() -> None:
    """The engine's process dies on a request: it is asked again, once, in a new process;
    when that dies too, the page is told, and the turn asked about again ENGINE_RETRY_S
    later."""
    pool, computer, turn, _ = asked_for_a_move()
    pool.answer(error=BrokenProcessPool("died"))
    computer.tick(2.0, "game", turn, ready=True)
    assert [r.retried for r in pool.requests] == [False, True]
    assert computer.notes.records() == []
    pool.answer(error=BrokenProcessPool("died again"))
    computer.tick(3.0, "game", turn, ready=True)
    (warning,) = computer.notes.warnings
    assert "the engine's process stopped twice on this" in warning.text
    computer.tick(3.0 + ENGINE_RETRY_S - 0.1, "game", turn, ready=True)
    assert len(pool.requests) == 2
    computer.tick(3.0 + ENGINE_RETRY_S, "game", turn, ready=True)
    assert len(pool.requests) == 3


def process_running(pid: int) -> bool:
    """The process is there and not a zombie (killed, not yet reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_closing_the_thinker_kills_a_think_in_progress() -> None:
    """close() does not wait for a think to end (30 s here): the daemon's stop would."""
    thinker = Thinker()
    turn, _ = kalah_turns()
    thinker.ask(Request("move", turn_key("game", turn), turn.position(), turn.rules, 5, 30.0))
    end = time.monotonic() + 30
    while not thinker.pids():
        assert time.monotonic() < end, "the engine's process did not start"
        time.sleep(0.01)
    (pid,) = thinker.pids()
    thinker.close()
    end = time.monotonic() + 10  # (the think would end at 30 s)
    while process_running(pid):
        assert time.monotonic() < end, "the engine's process was not killed"
        time.sleep(0.01)
    assert not thinker.thinking


def test_a_new_game_does_not_wait_for_the_old_games_think() -> None:
    """A think of the old game's (30 s here) is stopped by a new game, whose first move is
    asked for at once, in a new process."""
    pools = [FakePool(), FakePool()]
    made = iter(pools)
    computer = ComputerPlayer(Thinker(pool=lambda: next(made)), Notices(lambda _text: None))
    computer.new_game(Opponent(player=0, level=5, think_s=30.0))
    turn, _ = kalah_turns()
    computer.tick(1.0, "old game", turn, ready=True)
    computer.new_game(Opponent(player=0, level=5, think_s=30.0))
    computer.tick(2.0, "new game", turn, ready=True)
    assert [r.key[0] for r in pools[1].requests] == ["new game"]
    pools[0].answer(3)  # (the old process's answer comes to nothing)
    pools[1].answer(2)
    computer.tick(3.0, "new game", turn, ready=True)
    assert computer.move is not None and computer.move.pit == 2


def test_an_engine_that_gets_no_cpu_time_is_told_once() -> None:
    """The engine's process runs only on CPU time nothing else wants: when something takes
    it all, the engine never answers, and the board would wait in silence. 15 s past the
    think budget (the Thinker's own clock, wall time) the page is told, once."""
    clock = [0.0]
    computer = computer_with(FakePool(), clock=lambda: clock[0])
    turn, _ = kalah_turns()
    computer.tick(0.0, "game", turn, ready=True)
    assert computer.thinker.thinking
    clock[0] = 44.9
    computer.tick(1.0, "game", turn, ready=True)
    assert computer.notes.warnings == []
    clock[0] = 45.1
    computer.tick(2.0, "game", turn, ready=True)
    computer.tick(3.0, "game", turn, ready=True)
    (warning,) = computer.notes.warnings
    assert warning.text.startswith("the engine has not answered the move in 45 s (its budget")


# -- choosing the opponent -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opponent", "message"),
    [
        ({"player": 2, "level": 3}, "game.opponent.player = 2 is not allowed"),
        ({"player": 1, "level": 0}, "game.opponent.level = 0 is not allowed, allowed: a whole"),
        ({"player": 1, "level": 6}, "allowed: a whole number 1 to 5"),
        ({"player": 1}, "game.opponent.level is missing"),
        ({"player": 1, "level": 3, "colour": "red"}, "game.opponent.colour is not a key"),
        ({"player": 1, "level": 3, "think_s": 0}, "game.opponent.think_s = 0 is out of range"),
        ({"player": True, "level": 3}, "game.opponent.player = True is not allowed"),
        ("computer", "game.opponent = 'computer' is not allowed, allowed: a table"),
    ],
)
def test_a_wrong_opponent_in_the_configuration_is_named(
    tmp_path: Path, opponent: Any, message: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        make_config(tmp_path, game={"opponent": opponent})


def test_the_daemon_knows_the_engines_levels() -> None:
    assert tuple(sorted(LEVELS)) == LEVEL_NUMBERS


def test_the_daemon_process_does_not_load_the_engine() -> None:
    """The engine (and numpy) load in the engine's own process only: the daemon's memory."""
    code = (
        "import sys; import controller.daemon.loop, controller.daemon.run; "
        "print('numpy' in sys.modules, 'controller.engine' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_computer_game_cannot_open_simultaneously(tmp_path: Path) -> None:
    game = {"opponent": {"player": 1, "level": 2}, "options": {"simultaneous_opening": True}}
    with pytest.raises(ConfigError, match=r"game\.options: simultaneous_opening = true: a game "):
        make_config(tmp_path, game=game)


def test_the_new_game_command_chooses_keeps_and_drops_the_opponent(board: Board) -> None:
    board.ready()
    loop = board.loop
    result = loop.execute("new_game", {"opponent": {"player": 1, "level": 4}})
    assert result["opponent"] == {"player": 1, "level": 4, "think_s": 1.0}
    assert loop.execute("new_game", {})["opponent"]["level"] == 4  # kept
    board.ready()
    assert board.status()["game"]["computer"]["level"] == 4
    with pytest.raises(CommandError) as wrong:
        loop.execute("new_game", {"opponent": {"player": 1, "level": 9}})
    assert wrong.value.field == "opponent"
    assert "opponent.level = 9 is not allowed" in wrong.value.message
    with pytest.raises(CommandError) as opening:
        loop.execute("new_game", {"options": {"simultaneous_opening": True}})
    assert opening.value.field == "options"
    assert loop.execute("new_game", {"opponent": None})["opponent"] is None
    board.ready()
    assert board.status()["game"]["computer"]["player"] is None


def test_a_resumed_game_keeps_its_computer_player(tmp_path: Path) -> None:
    config = make_config(tmp_path, game={"opponent": {"player": 1, "level": 2}})
    first = Board(config)
    first.ready()
    first.play(3)
    first.wait(lambda: first.status()["game"]["position"]["to_move"] == 0)
    first.settle()
    first.stop()
    # The configuration now names no opponent: the journal's game still has its own.
    second = Board(make_config(tmp_path))
    try:
        second.ready()
        status = second.status()
        assert status["game"]["computer"]["player"] == 1
        assert status["game"]["record"]["opponent"]["level"] == 2
        assert len(status["game"]["history"]) >= 2
    finally:
        second.stop()


# -- the hint -------------------------------------------------------------------------------------


def test_the_hint_lights_the_engines_best_pit_only(tmp_path: Path) -> None:
    # The loop's time races here while the engine thinks in real time: on a loaded machine it
    # ran past the idle minutes before the answer came, and the idle lights hid the hint.
    board = Board(make_config(tmp_path / "data", leds={"idle_minutes": 0}))
    try:
        _the_hint_lights_the_engines_best_pit_only(board)
    finally:
        board.stop()


def _the_hint_lights_the_engines_best_pit_only(board: Board) -> None:
    board.ready()
    assert board.loop.execute("hint", {}) == {"asked": True}
    board.wait(lambda: board.status()["game"]["computer"]["hint"] is not None)
    pit = board.status()["game"]["computer"]["hint"]

    def lit() -> list[str]:
        places = board.status()["leds"]["places"]
        return [k for k, v in places.items() if v["effect"] == "fast_blink"]

    # (The lights are written at the loop's next LED tick, not with the engine's answer.)
    board.wait(lambda: bool(lit()) or board.status()["game"]["computer"]["hint"] is None, 10.0)
    assert board.status()["game"]["position"]["pits"][0][pit] > 0
    assert lit() == [f"0,{pit}"]
    board.run(4.0)  # the hint shows for a few seconds only
    assert board.status()["game"]["computer"]["hint"] is None


def test_the_page_asks_for_a_hint(client: FlaskClient, running: BoardLoop) -> None:
    wait_for(running, persons_turn, 30.0)
    answer = client.post("/api/hint", json={})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["result"] == {"asked": True}
    # (The engine thinks at the lowest priority: on a busy machine it waits its turn.)
    status = wait_for(running, lambda s: s["game"]["computer"]["hint"] is not None, 120.0)
    assert status["game"]["position"]["pits"][0][status["game"]["computer"]["hint"]] > 0


def test_a_hand_that_plays_another_pit_than_the_computers_is_told(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path, game={**SHORT, "opponent": {"player": 1, "level": 3}}))
    try:
        board.ready()
        board.play(0)
        board.wait(lambda: board.status()["game"]["computer"]["move"] is not None)
        chosen = board.status()["game"]["computer"]["move"]
        pits = board.status()["game"]["position"]["pits"][1]
        other = next(i for i, n in enumerate(pits) if n and i != chosen)
        board.play(other)  # before the virtual hand plays the computer's pit
        history = board.status()["game"]["history"]
        assert history[1] == {"ply": 2, "player": 1, "pit": other}  # the referee's move
        told = f"the computer chose pit {chosen + 1}, pit {other + 1} was played"
        assert any(told in notice for notice in board.loop.notices)
    finally:
        board.stop()


def test_the_engines_process_goes_with_a_killed_daemon(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[game]\nmode = "demo"\nopponent = { player = 0, level = 5, think_s = 5.0 }\n'
        f'[web]\nport = 0\n[data]\ndir = "{tmp_path / "data"}"\n[recorder]\non_flag = false\n'
    )
    daemon = DaemonProcess(config)
    try:
        deadline = time.monotonic() + 60
        while not daemon.state()["game"]["computer"]["thinking"]:
            assert time.monotonic() < deadline, "the computer did not start thinking"
            time.sleep(0.1)
        engine = [
            int(pid)
            for pid in subprocess.run(
                ["pgrep", "-P", str(daemon.proc.pid)], capture_output=True, text=True
            ).stdout.split()
        ]
        assert engine, "no engine process"
    finally:
        daemon.kill()  # SIGKILL: no clean-up in the daemon
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in engine):
        assert time.monotonic() < deadline, f"engine processes {engine} outlived the daemon"
        time.sleep(0.2)


def test_the_board_plays_on_when_the_engines_process_dies(board: Board) -> None:
    """The engine's process killed (out of memory, say): the loop goes on and the next
    request gets a new process."""
    board.ready()
    computer = board.loop.computer
    assert computer.ask_hint(board.loop.now, board.loop._started(), board.loop.follower())
    board.wait(lambda: computer.hint is not None)
    engine = computer.thinker.pids()
    assert engine
    for pid in engine:
        os.kill(pid, signal.SIGKILL)
    board.play(3)  # a new position: a new hint is asked for
    assert computer.ask_hint(board.loop.now, board.loop._started(), board.loop.follower())
    board.wait(lambda: computer.hint is not None)
    assert computer.thinker.pids() and not set(computer.thinker.pids()) & set(engine)
    to_move = board.status()["game"]["position"]["to_move"]
    assert board.status()["game"]["position"]["pits"][to_move][computer.hint.pit] > 0
