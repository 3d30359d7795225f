"""Each flag in the status says whose mistake it is (`player`), so the page can word it for
that player: the referee's hand mistakes carry the hand at the board, a seed from outside the
game and the daemon's own faults carry none."""

from __future__ import annotations

from pathlib import Path

from controller.daemon.status import missing_keys
from tests.daemon.conftest import Board, make_config


def test_a_hand_mistake_is_the_movers_and_a_foreign_seed_nobodys(tmp_path: Path) -> None:
    board = Board(make_config(tmp_path))
    try:
        board.ready()
        board.play(3)
        mover = board.loop.follower().to_move
        assert mover is not None
        board.mistake("opponent_store")
        flags = board.status()["flags"]
        store = [f for f in flags if f["kind"] == "opponent_store"]
        assert store and all(f["player"] == mover for f in store), flags
        assert store[0]["at"] == [1 - mover, "store"]  # the other player's store
        board.mistake("foreign_seed")
        status = board.status()
        foreign = [f for f in status["flags"] if f["kind"] == "foreign_seed"]
        assert foreign and all(f["player"] is None for f in foreign), status["flags"]
        assert missing_keys(status) == []
    finally:
        board.stop()
