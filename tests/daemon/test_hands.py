"""The simulated board's virtual hands on a loop that falls behind (hands.py).

A busy Pi at speed 50 falls more than a second behind now and then. The feed then gives the
loop every frame of the move under way and skips simulated time once the board is still, or
at once when the loop is very far behind (feed.MAX_CATCH_UP_S, MAX_BEHIND_S). These tests drive
the loop with a wall clock of their own that stalls on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.daemon.loop import DEMO_STILL_NEW_GAME_S, BoardLoop
from controller.rules import StepKind
from controller.sim.world import GRAB_LIFT_S

from .conftest import Board, make_config

SPEED = 50.0


class StallingClock:
    """A wall clock the loop's waits advance (no real sleeping), and a test can stall."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    # the feed's wake event: waiting lets the clock run on
    def wait(self, timeout: float | None = None) -> bool:
        self.t += timeout or 0.0
        return False

    def set(self) -> None:
        pass

    def clear(self) -> None:
        pass


def demo_loop(tmp_path: Path, clock: StallingClock) -> BoardLoop:
    config = make_config(
        tmp_path, game={"mode": "demo"}, sim={"seconds_per_seed": 0.1, "random_seed": 3}
    )
    loop = BoardLoop(config, speed=SPEED, out=lambda _text: None, clock=clock)
    assert loop.sim is not None
    loop.sim.wake = clock  # type: ignore[assignment]
    loop.link.wake = clock.set
    return loop


def iterate_until(loop: BoardLoop, clock: StallingClock, done: object, wall_s: float) -> None:
    end = clock.t + wall_s
    while clock.t < end:
        loop.iterate()
        clock.t += 0.001
        if callable(done) and done():
            return
    raise AssertionError(f"not within {wall_s} s of wall time")


def test_a_loop_that_falls_behind_mid_move_does_not_start_another_move_over_it(
    tmp_path: Path,
) -> None:
    """The loop stalls for 3 s (150 simulated s) just after the demo scheduled a move: the
    move is still to be played, so the hands are still busy and no second move is scheduled
    on the same hand (which used to drop the seeds a capture was carrying and crash the loop
    with list.remove(x): x not in list)."""
    clock = StallingClock()
    loop = demo_loop(tmp_path, clock)
    try:
        iterate_until(loop, clock, lambda: loop.now < loop.busy_until, 60.0)
        assert loop.sim is not None
        world = loop.sim.world
        pending = len(world._events)
        clock.t += 3.0  # the stall
        loop.iterate()
        assert loop.sim.skipped_s > 100.0  # the feed did skip simulated time
        assert loop.now < loop.busy_until  # the world has not played the move yet
        assert len(world._events) <= pending  # and nothing was scheduled on top of it
        for _ in range(20):  # more stalls, mid-move or between moves: the demo plays on
            iterate_until(loop, clock, lambda: loop.now < loop.busy_until, 60.0)
            clock.t += 0.1 + 0.05 * (_ % 3)
            iterate_until(loop, clock, lambda: loop.now >= loop.busy_until, 60.0)
        assert len(loop.game.steps) > 20
    finally:
        loop.writer.close()


def visitor_plays_pit_3(tmp_path: Path, stall_while_carried: bool) -> BoardLoop:
    """tests/daemon/test_web_link.py's visitor's move (congkak, speed 20), played to the end;
    with `stall_while_carried`, the loop is 0.1 s (2 simulated s) late while the hand carries
    the move's capture to the store, the seed lifted out of its cup."""
    clock = StallingClock()
    loop = BoardLoop(make_config(tmp_path), speed=20.0, out=lambda _text: None, clock=clock)
    assert loop.sim is not None
    loop.sim.wake = clock  # type: ignore[assignment]
    loop.link.wake = clock.set
    world = loop.sim.world

    def between_moves() -> bool:
        referee = loop.referee
        return referee is not None and loop.now >= loop.busy_until and referee.phase() == "start"

    iterate_until(loop, clock, between_moves, 10.0)
    loop.execute("sim_move", {"pit": 3})
    if stall_while_carried:
        iterate_until(loop, clock, lambda: any(world.carried), 10.0)
        lifted = world.now + GRAB_LIFT_S  # (the seeds leave the cup over this time)
        iterate_until(loop, clock, lambda: world.now > lifted, 1.0)
        assert any(world.carried)  # (in the air: MOVE_CARRY_S)
        clock.t += 0.1
    iterate_until(loop, clock, lambda: loop.now >= loop.busy_until + 2.0, 10.0)
    loop.stop()
    return loop


def test_a_loop_late_while_a_capture_is_carried_sees_the_move_as_played(tmp_path: Path) -> None:
    """How the web test's move failed under load: a hiccup of the loop thread while the hand
    carried the captured seed to the store. The feed skipped the simulated time it was late,
    so the frames held the seed in the air for 2 s, and the referee flagged it as a wrong pit
    in the store: blocked. Now the loop is given the move's frames as sampled, late: the same
    steps as a loop on time, and no flag."""
    on_time = visitor_plays_pit_3(tmp_path / "on_time", stall_while_carried=False)
    late = visitor_plays_pit_3(tmp_path / "late", stall_while_carried=True)
    assert late.referee is not None and on_time.referee is not None
    assert [f.to_json() for f in late.referee.flags] == []
    assert late.referee.phase() == "start"
    assert [r.step for r in late.referee.steps] == [r.step for r in on_time.referee.steps]
    assert any(r.step.kind is StepKind.CAPTURE for r in late.referee.steps)


def killed(board: Board) -> None:
    """The process dies here: what was queued reaches the disk, nothing else happens (no
    shutdown, so no last layout save); the kernel drops a dead process's lock."""
    board.loop.writer.flush()
    board.loop.writer.close()
    board.loop.datalock.release()


def test_a_kill_between_a_moves_last_step_and_the_layout_resumes_without_a_mismatch(
    tmp_path: Path,
) -> None:
    """The journal gets the move's last step; the layout would be saved only when the hand
    rests. Killed in between, the restarted daemon finds a layout a move behind the journal:
    the journal decides, and play resumes at once (it used to wait in setup for ever with
    board_mismatch flags)."""
    config = make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 3}})
    first = Board(config)
    first.ready()
    first.play(2)  # the layout is saved after this move
    first.loop.execute("sim_move", {"pit": 2})
    referee = first.loop.referee
    assert referee is not None
    first.run_until(lambda: len(referee.game.completed) == 2, 30)
    first.run(0.05)  # the tick that journals the step
    assert first.loop.now < first.loop.busy_until  # the layout is not saved yet
    position = referee.game.position().to_json()
    killed(first)
    saved = json.loads(first.loop.sim_board_path.read_text())
    assert saved["steps"] < len(first.loop.game.steps)  # the window this test is about

    demo = make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 3}, "mode": "demo"})
    second = Board(demo)
    try:
        second.run_until(lambda: second.loop.referee is not None, 10)
        status = second.status()
        assert status["game"]["position"]["pits"] == position["pits"]
        assert not [f for f in status["flags"] if f["kind"] == "board_mismatch"]
        assert any("lay the board out as the journal has it" in n for n in second.loop.notices)
    finally:
        second.stop()


def test_a_demo_waiting_in_setup_for_a_board_nobody_puts_right_lays_it_out(
    tmp_path: Path,
) -> None:
    """Demo mode with a board that does not match the game while it is weighed (a seed put in
    while the board was checked): nobody comes, so after DEMO_STILL_NEW_GAME_S the virtual
    hands lay the board out and play starts."""
    config = make_config(tmp_path, game={"variant": "kalah", "options": {"seeds": 2}})
    board = Board(config)
    try:
        board.ready()
        board.play(2)
        board.loop.execute("new_game", {})
        board.loop.execute(
            "sim_actions", {"actions": [{"t": 0.0, "action": "add", "at": [1, 1], "n": 6}]}
        )
        board.run_until(lambda: any(f["active"] for f in board.status()["flags"]), 10)
        assert board.loop.referee is None
        board.loop.execute("mode", {"mode": "demo"})
        board.run_until(lambda: board.loop.referee is not None, DEMO_STILL_NEW_GAME_S + 10)
        assert not [f for f in board.status()["flags"] if f["active"]]
        # (On the page, not only in the log.)
        notices = [n["text"] for n in board.status()["daemon"]["notices"]]
        assert any("nobody to put it right" in n for n in notices)
        assert any("laid out again" in n for n in notices)
    finally:
        board.stop()
