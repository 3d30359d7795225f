"""Demo mode on a real board (show.py, issue 15): nothing moves the seeds, so the lights and
the page replay a finished game of records.jsonl, step by step, instead of the idle chase."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.daemon.loop import BoardLoop
from controller.daemon.show import SHOW_END_S, SHOW_STEP_S, Show, showable
from controller.rules import Place
from controller.rules.game import Game
from controller.sensing.frames import Frame, SourceStatus

from .conftest import make_config


class StillBoard:
    """The load cells of a board nobody touches: a frame of the same readings 80 times a
    second, each read moving the test's clock on."""

    def __init__(self, cells: int) -> None:
        self.t = 100.0
        self.cell_count = cells
        self.seq = 0

    def clock(self) -> float:
        return self.t

    def read(self, timeout: float | None = None) -> Frame | None:
        self.t += 1 / 80
        self.seq += 1
        return Frame(self.t, (0,) * self.cell_count, self.seq)

    def status(self) -> SourceStatus:
        return SourceStatus("still board", True, 80.0)

    def close(self) -> None:
        pass


def finished_game(seed: int) -> list[int]:
    game, rng, moves = Game("congkak", {}), random.Random(seed), []
    while not game.over:
        moves.append(rng.choice(game.legal_moves()))
        game.play(moves[-1])
    return moves


def demo_loop(tmp_path: Path, records: list[dict[str, Any]]) -> BoardLoop:
    config = make_config(tmp_path, game={"mode": "demo"}, leds={"backend": "sim"})
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    board = StillBoard(len(config.board_file().cells))
    return BoardLoop(config, out=lambda _t: None, clock=board.clock, source=board)


def test_demo_on_a_real_board_replays_a_recorded_game_on_the_lights_and_the_page(
    tmp_path: Path,
) -> None:
    moves = finished_game(3)
    records = [
        {"variant": "congkak", "options": {}, "moves": moves, "finished": True},
        {"variant": "kalah", "options": {}, "moves": [2], "finished": True},  # 6 pits: no
        {"variant": "congkak", "options": {}, "moves": [1], "finished": False},  # unfinished
    ]
    loop = demo_loop(tmp_path, records)
    try:
        seen: list[dict[str, Any]] = []

        def three_moves() -> bool:
            status = loop.link.get_status()
            seen.append(status)
            return len(status["game"]["history"]) >= 3

        assert loop.run_until(three_moves, 600.0)
        show = loop.show
        assert show is not None and show.source == "record"
        status = seen[-1]
        game = status["game"]
        assert game["phase"] == "show"
        assert [m["pit"] for m in game["history"]] == moves[:3]
        assert game["position"] == show.follower.position().to_json()
        assert status["daemon"]["idle"] is False  # not the idle chase: the game replayed
        # The lights show the replayed game's next step where the page says it goes.
        lit = {p for p, light in loop.lights.lights.items() if light.meaning != "idle"}
        assert {Place.from_json(p) for p in game["expected"]} <= lit
        # One step at a time, at a person's pace.
        positions = [json.dumps(s["game"]["position"]) for s in seen]
        changes = sum(a != b for a, b in itertools.pairwise(positions))
        assert changes >= 3
        assert loop.now - 100.0 >= changes * SHOW_STEP_S
    finally:
        loop.stop()


def test_without_a_record_to_show_a_random_game_is_replayed(tmp_path: Path) -> None:
    loop = demo_loop(tmp_path, [])
    try:
        assert loop.run_until(lambda: len(loop.link.get_status()["game"]["history"]) >= 1, 300.0)
        assert loop.show is not None and loop.show.source == "random"
        assert loop.link.get_status()["game"]["phase"] == "show"
    finally:
        loop.stop()


def test_each_game_is_shown_to_its_end_and_then_another_begins(tmp_path: Path) -> None:
    moves = finished_game(5)
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"variant": "congkak", "moves": moves, "finished": True}) + "\n")
    game = SimpleNamespace(variant="congkak", options={}, rules=Game("congkak", {}).rules)
    show = Show(game, records, random.Random(1))  # type: ignore[arg-type]
    now, played = 0.0, []
    assert not show.tick(now)  # (the first step after SHOW_STEP_S)
    while not show.follower.over:
        now += SHOW_STEP_S
        assert show.tick(now)
        played = [m.pit for m in show.follower.completed]
    assert played == moves  # the record's game, to its end sweep
    assert not show.tick(now + SHOW_END_S - 0.1)  # it stays a while
    assert show.tick(now + SHOW_END_S) and show.follower.completed == []
    # A record its rules do not follow (a pit that cannot be played) gives way to a random game.
    records.write_text(json.dumps({"variant": "congkak", "moves": [0, 0], "finished": True}))
    assert showable(records.read_text(), 7) is None  # (it does not replay)
    show = Show(game, records, random.Random(1))  # type: ignore[arg-type]
    assert show.source == "random"
