"""The thinking-time clock (先読み): `move_time_limit_s` seconds to start a move, and what
happens when a player does not (`move_time_consequence`).

The clock runs while a player is to move and has not started the move: it starts when the
other player's turn ends (or when play starts, for the first move and after the board was
weighed again), never before the board is checked and never in a simultaneous opening,
where nobody in particular is to move. It stops when the move starts (the pickup): the limit
is for thinking, not for sowing.

- `warn`: over the last COUNTDOWN_S the player's pits go dark one after another (lights.py),
  then the player's store blinks; the page shows the time left and the overrun, and the
  overrun is journaled and goes into the game's record (`overruns`).
- `pass`: when the time is up the turn passes to the other player (a `timeout` step, fed to
  the rules engine and journaled like the hands' steps; loop.py weighs the board again and
  starts the referee from the new turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .status import TurnTimer

COUNTDOWN_S = 5.0  # the lights count the last seconds down


@dataclass(frozen=True)
class Countdown:
    """What the lights show of the clock: `player`'s time `left_s` (0 once it is up)."""

    player: int
    left_s: float
    overrun: bool


@dataclass
class TurnClock:
    """One turn's clock (see the module docstring). `limit_s` None: no limit (the time is
    still shown)."""

    limit_s: float | None = None
    consequence: str = "warn"
    player: int | None = None  # whose clock runs (None: none runs)
    started: float | None = None  # loop time the turn's clock started
    moved_after_s: float | None = None  # the move started this long into the turn
    overrun_noted: bool = False

    def start(self, now: float, player: int | None) -> None:
        """A new turn of `player` (None: nobody's clock runs: opening, game over, setup)."""
        self.player = player
        self.started = None if player is None else now
        self.moved_after_s = None
        self.overrun_noted = False

    def stop(self) -> None:
        self.start(0.0, None)

    def move_started(self, now: float) -> None:
        """The player picked up: the clock stops where it stands."""
        if self.started is not None and self.moved_after_s is None:
            self.moved_after_s = now - self.started

    def elapsed(self, now: float) -> float | None:
        if self.started is None:
            return None
        if self.moved_after_s is not None:
            return self.moved_after_s
        return max(0.0, now - self.started)

    def running(self) -> bool:
        return self.started is not None and self.moved_after_s is None

    def time_up(self, now: float) -> bool:
        elapsed = self.elapsed(now)
        return (
            self.running()
            and self.limit_s is not None
            and elapsed is not None
            and elapsed >= self.limit_s
        )

    def new_overrun(self, now: float, ply: int) -> dict[str, Any] | None:
        """(`warn`) The overrun to note, once a turn: {ply, player, limit_s}."""
        if self.consequence != "warn" or self.overrun_noted or not self.time_up(now):
            return None
        assert self.player is not None and self.limit_s is not None
        self.overrun_noted = True
        return {"ply": ply, "player": self.player, "limit_s": self.limit_s}

    def countdown(self, now: float) -> Countdown | None:
        """The lights' part: the last COUNTDOWN_S before the limit, and a `warn` overrun."""
        elapsed = self.elapsed(now)
        if not self.running() or self.limit_s is None or elapsed is None or self.player is None:
            return None
        left = self.limit_s - elapsed
        if left > COUNTDOWN_S:
            return None
        return Countdown(self.player, max(0.0, left), left <= 0)

    def get_status(self, now: float) -> TurnTimer:
        elapsed = self.elapsed(now)
        limit = self.limit_s
        return {
            "limit_s": limit,
            "consequence": self.consequence,
            "player": self.player,
            "elapsed_s": None if elapsed is None else round(elapsed, 1),
            "running": self.running(),
            "overrun": limit is not None and elapsed is not None and elapsed >= limit,
        }
