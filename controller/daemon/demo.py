"""Demo mode on the simulated board: the virtual hands play on their own, random moves, game
after game.

Nobody is at a demo board to put anything right, so whatever makes the game stand still (a
flag, a board that does not match the game, a referee waiting for a step the hands will not
make) makes way after DEMO_STILL_NEW_GAME_S: a board that does not match is laid out again as
the game stands, anything else starts a new game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from controller.rules import StepFollower
from controller.sim import starting_hands

from .link import CommandError
from .notices import Notices
from .session import GameSession
from .simboard import SimBoard

DEMO_NEW_GAME_S = 5.0  # a finished game stays on the lights this long
DEMO_STILL_NEW_GAME_S = 20.0  # a game standing still this long makes way (see above)


class Demo:
    """`new_game()` starts a new game; `relay_setup()` lays the board out as the game the
    setup waits for stands; `computer_moves(follower)`: the computer player is to move (its
    move is the engine's, not the demo's)."""

    def __init__(
        self,
        sim: SimBoard,
        rng: random.Random,
        notices: Notices,
        new_game: Callable[[], None],
        relay_setup: Callable[[], None],
        computer_moves: Callable[[StepFollower], bool] = lambda follower: False,
    ) -> None:
        self.sim = sim
        self.rng = rng
        self.notices = notices
        self.new_game = new_game
        self.relay_setup = relay_setup
        self.computer_moves = computer_moves  # the computer's turn: its own move is played
        self.still_since: float | None = None  # the game has stood still since

    def reset(self) -> None:
        """A new game: it has not stood still yet."""
        self.still_since = None

    def tick(self, now: float, session: GameSession) -> None:
        """Once the hands are done: the next move, or what to do about a game standing
        still."""
        if now < self.sim.busy_until:
            return
        referee = session.referee
        if referee is None:
            self._setup(now, session)
        elif referee.game.over:
            match = session.game.match
            if match is not None and not match.over:
                return  # the loop lays out the match's next round
            if session.over_since is not None and now - session.over_since >= DEMO_NEW_GAME_S:
                self.new_game()
        elif any(f.active for f in referee.flags):
            # The referee's own flag, if the virtual hands made no mistake: nobody puts it
            # right, so after a while start again rather than stand still.
            self._standing_still(now, "a flag waited with nobody to put it right")
        else:
            self._play(now, session)

    def _setup(self, now: float, session: GameSession) -> None:
        """The board weighed before play: a board that does not match the game has nobody to
        put it right, so after a while the virtual hands lay it out as the game stands (the
        game is kept: it is the board, not the game, that is wrong)."""
        setup = session.setup
        if setup is None or not setup.wrong:
            self.still_since = None
            return
        self._standing_still(
            now, "the board did not match the game with nobody to put it right", self.relay_setup
        )

    def _play(self, now: float, session: GameSession) -> None:
        try:
            follower = self.sim.playable(session, now)
            if follower.to_move is None:
                self._opening(follower, session)
                return
            if self.computer_moves(follower):
                self.still_since = None
                return
            rules_game = self.sim.move_game(follower, session.game)
        except CommandError as err:
            # The hands are done, yet the referee waits for a step (or the board does not
            # match it): the referee's mistake with no flag to show for it, that nobody will
            # put right either.
            self._standing_still(
                now, f"the game waited for what the hands will not do ({err.message})"
            )
            return
        self.still_since = None
        self.sim.play(rules_game, self.rng.choice(rules_game.legal_moves()), session.game)

    def _opening(self, follower: StepFollower, session: GameSession) -> None:
        """Each hand about to start picks a random pit of its own that holds seeds."""
        rules, board = follower.rules, follower.board
        starts = [rules.legal_moves(board, h) for h in starting_hands(follower)]
        if not all(starts):
            return
        picks = [self.rng.choice(pits) for pits in starts]
        args: dict[str, Any] = {"pits": picks} if len(picks) == 2 else {"pit": picks[0]}
        self.sim.opening(follower, args, session.game)
        self.still_since = None

    def _standing_still(
        self, now: float, why: str, remedy: Callable[[], None] | None = None
    ) -> None:
        """Demo mode cannot go on: after DEMO_STILL_NEW_GAME_S of that, `remedy` (by default
        a new game)."""
        if self.still_since is None:
            self.still_since = now
        elif now - self.still_since >= DEMO_STILL_NEW_GAME_S:
            self.still_since = None
            if remedy is None:
                self.notices.info(f"demo: {why}; a new game")
                self.new_game()
            else:
                self.notices.info(f"demo: {why}")
                remedy()
