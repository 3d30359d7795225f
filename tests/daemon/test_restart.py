"""The plug is pulled in the middle of a move: `sowboard run` is killed with SIGKILL (no
clean-up at all), started again, and the page shows the game as it was before that move."""

from __future__ import annotations

import json
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.bench.daemonproc import DaemonProcess
from tests.daemon.conftest import Board, make_config


class Daemon(DaemonProcess):
    """`sowboard run` as a subprocess (the benches' `DaemonProcess`), with the API calls the
    test makes."""

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            data: dict[str, Any] = json.loads(response.read())
            return data

    def wait(self, check: Any, timeout: float = 20.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            state = self.state()
            if check(state):
                return state
            assert time.monotonic() < end, f"timed out: {state['game']}, {state['daemon']}"
            time.sleep(0.02)


def playing(moves: int) -> Any:
    def check(state: dict[str, Any]) -> bool:
        return (
            state["daemon"]["state"] == "playing"
            and not state["daemon"]["sim_busy"]
            and state["game"]["phase"] == "start"
            and len(state["game"]["history"]) == moves
        )

    return check


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[web]\nport = 0\n[data]\ndir = "{tmp_path / "data"}"\n[hardware.sim]\nspeed = 8.0\n'
    )
    return path


def test_a_pulled_plug_mid_move_resumes_the_game_as_it_was(config: Path) -> None:
    first = Daemon(config)
    try:
        first.wait(playing(0))
        first.post("/api/sim/move", {"pit": 3})
        before = first.wait(playing(1))
        mover = before["game"]["position"]["to_move"]
        pits = before["game"]["position"]["pits"][mover]
        pit = max(range(len(pits)), key=lambda i: pits[i])
        first.post("/api/sim/move", {"pit": pit})
        first.wait(lambda s: s["game"]["phase"] in ("sowing", "relay") and s["game"]["hand"][mover])
        first.proc.send_signal(signal.SIGKILL)  # the plug
        assert first.proc.wait(timeout=10) == -signal.SIGKILL
    finally:
        if first.proc.poll() is None:
            first.proc.kill()

    second = Daemon(config)
    try:
        after = second.wait(playing(1))
        assert after["game"]["history"] == before["game"]["history"]
        assert after["game"]["position"] == before["game"]["position"]
        assert after["game"]["position"]["to_move"] == mover
        assert after["game"]["record"] == before["game"]["record"]
        assert not [f for f in after["flags"] if f["active"]]
        assert any("taken back" in n["text"] for n in after["daemon"]["notices"])
        # The game goes on: the move is played again, to its end.
        second.post("/api/sim/move", {"pit": pit})
        second.wait(playing(2))
        second.proc.send_signal(signal.SIGTERM)  # systemd's stop: a clean exit
        assert second.proc.wait(timeout=10) == 0
        assert "stopping (SIGTERM)" in second.drain()
    finally:
        if second.proc.poll() is None:
            second.proc.kill()


def test_a_clean_stop_mid_move_leaves_the_simulated_board_as_the_journal(
    tmp_path: Path,
) -> None:
    """SIGTERM's clean stop in the middle of a move, at a moment the virtual hand holds no
    seed (a lap has ended, its relay not yet picked up): the journal takes the move back at
    the restart, so the simulated seeds must lie as after the last whole move, as after
    SIGKILL. Else the board does not match the game and demo mode stands still for 20 s."""
    config = make_config(tmp_path / "data")
    board = Board(config)
    try:
        board.ready()
        board.play(3)
        before = board.status()["game"]
        pits = before["position"]["pits"][before["position"]["to_move"]]
        board.loop.execute("sim_move", {"pit": max(range(len(pits)), key=lambda i: pits[i])})
        simboard = board.loop.simboard
        assert simboard is not None
        world = simboard.feed.world

        def hand_empty_mid_move() -> bool:
            # (The move begun on the board too: a referee that lights the pickup as the hand
            # comes down on the pit, as the one search does, is mid-move before the seeds are.)
            referee = board.loop.referee
            truth = world.truth()
            return (
                referee is not None
                and referee.phase() not in ("start", "over")
                and not any(truth["hand"])
                and truth["pits"] != before["position"]["pits"]
            )

        board.run_until(hand_empty_mid_move, 60)
        assert world.truth()["pits"] != before["position"]["pits"]
    finally:
        board.stop()  # what SIGTERM does (run.py): the loop stops and shuts down cleanly
    again = Board(config)
    try:
        again.run_until(lambda: again.loop.referee is not None, 5.0)  # (not 20 s)
        status = again.status()
        assert status["game"]["position"] == before["position"]
        assert status["game"]["history"] == before["history"]
        assert not [f for f in status["flags"] if f["kind"] == "board_mismatch"]
        assert any("taken back" in n for n in again.loop.notices)
    finally:
        again.stop()
