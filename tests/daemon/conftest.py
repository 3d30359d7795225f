"""Fixtures for the daemon tests: a configuration in a temporary data directory, and the
daemon's loop on the simulated board, run headless and without ever sleeping (`speed=None`),
so a whole move takes a fraction of a second."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import Config, parse_config
from controller.daemon.loop import BoardLoop


def make_config(data_dir: Path, **sections: dict[str, Any]) -> Config:
    data: dict[str, Any] = {"data": {"dir": str(data_dir)}}
    for name, values in sections.items():
        if name == "sim":
            data.setdefault("hardware", {})["sim"] = values
        else:
            data[name] = values
    return parse_config(data, data_dir / "config.toml")


def quiet(messages: list[str]) -> Callable[[str], None]:
    return messages.append


class Board:
    """The daemon's loop with helpers that say what the people at the board do."""

    def __init__(self, config: Config, **kw: Any) -> None:
        self.messages: list[str] = []
        self.loop = BoardLoop(config, speed=None, out=self.messages.append, **kw)

    def run_until(self, done: Callable[[], bool], seconds: float = 60.0) -> None:
        assert self.loop.run_until(done, seconds), f"not within {seconds} simulated seconds"

    def wait(self, done: Callable[[], bool], wall_s: float = 120.0) -> None:
        """Run the loop until `done()`, for at most `wall_s` seconds of real time: for what
        the engine's process answers (it thinks in real time, at the lowest priority, while
        the loop's time here races ahead). While the engine thinks, the loop sleeps a
        millisecond an iteration: the engine's process runs only on CPU time nothing else
        wants (SCHED_IDLE), and a loop that never slept left it so little on one CPU that the
        two-round match took 153 s (18 s on two CPUs, 16.5 s on one with the sleep)."""
        end = time.monotonic() + wall_s
        while not done():
            assert time.monotonic() < end, f"not within {wall_s} s of real time: {self.stuck()}"
            self.loop.iterate()
            if self.loop.computer.thinker.thinking:
                time.sleep(0.001)

    def stuck(self) -> str:
        """What the board is doing, for a wait that ran out (CI's log is all there is)."""
        game = self.status()["game"]
        referee = self.loop.referee
        phase = None if referee is None else referee.phase()
        flags = [] if referee is None else [f.kind for f in referee.flags if f.active]
        return (
            f"computer {game['computer']}, to move {game['position']['to_move']}, "
            f"referee's phase {phase}, flags up {flags}, last messages {self.messages[-3:]}"
        )

    def run(self, seconds: float) -> None:
        self.loop.run_until(lambda: False, seconds)

    def status(self) -> dict[str, Any]:
        return self.loop.link.get_status()

    def ready(self) -> None:
        """Until the board was weighed and the referee follows the game (after an undo: the
        virtual hands walked the move back, 1.5 s a step); and what the daemon wrote on its
        way there is on the card, so that a test that fills the card next fails the writes of
        its own moves, not the new game's journal (the writer's thread, slow on a busy
        machine, once wrote that after the card was full: "rewrite failed")."""
        self.run_until(lambda: self.loop.referee is not None, 120.0)
        self.settle()
        assert self.loop.writer.flush(), "the writer's thread wrote nothing for 10 s"

    def settle(self) -> None:
        """Until the hands are done and the referee is between moves; one more tick publishes.
        For up to 300 simulated seconds (cheap: the loop does not sleep): a congkak move of
        many relays took the virtual hand 71 s, and the test against the computer, whose
        moves vary, failed now and then at the 60 s it once had."""

        def done() -> bool:
            loop = self.loop
            referee = loop.referee
            return (
                referee is not None
                and loop.now > loop.busy_until
                and referee.phase() in ("start", "over")
            )

        self.run_until(done, 300.0)
        self.run(0.1)

    def play(self, pit: int) -> dict[str, Any]:
        result = self.loop.execute("sim_move", {"pit": pit})
        self.settle()
        return result

    def mistake(self, kind: str, pit: int | None = None) -> dict[str, Any]:
        args: dict[str, Any] = {"kind": kind}
        if pit is not None:
            args["pit"] = pit
        result = self.loop.execute("sim_mistake", args)
        self.settle()
        return result

    def stop(self) -> None:
        self.loop.stop()


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return make_config(tmp_path / "data")


@pytest.fixture
def board(config: Config) -> Iterator[Board]:
    board = Board(config)
    yield board
    board.stop()
