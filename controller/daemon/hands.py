"""The simulated board's virtual hands as the loop sees them: how long they are acting, and
where they left the seeds (`sim_board.json`).

The loop's clock and the simulated world's clock differ by `SimFeed.offset`, and that offset
grows whenever the loop falls more than a second behind (the feed skips simulated time rather
than replaying it; on a busy Pi at speed 50 that happens every few moves). A hand's work must
therefore be kept in the world's time, where its actions are scheduled, and only turned into
the loop's time when asked: kept in loop time, a skip made the loop believe a move was over
that the world had not even started, and the demo scheduled the next move over it, so one hand
dropped the seeds another action of its own was still carrying.

The layout is saved when the hands are empty, at a moment that is not the moment the journal
gets a move's last step: a process killed in between left a journal one move ahead of the
layout, and the restarted daemon waited for ever for people to put a simulated board right.
The layout therefore names the journal's game and step count it goes with, and a restart that
finds a layout behind the journal (an earlier step, another game) lets the journal decide: the
virtual hands lay the board out as the journal has it. The writer thread writes in order, so a
layout is never saved ahead of the steps it follows; a layout ahead of the journal means the
journal lost lines (a damaged card), and then the layout is the wood: it stays, and the places
that differ are flagged, as on a real board.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from controller.rules import Position, Rules
from controller.sim import Action, action_end

from .feed import SimFeed
from .files import DataFileError, layout_json, load_sim_board, write_json_atomic

# After a hand's last action the board still rings and settles: the hand counts as busy this
# much longer, so the next command does not start on a board the referee sees moving.
HAND_REST_S = 0.3


@dataclass(frozen=True)
class JournalPoint:
    """A point of the journal: its game (the `started` stamp) and how many steps it holds."""

    game: str
    steps: int


def resume_layout(
    path: Path, board: str, rules: Rules, point: JournalPoint, journal_position: Position
) -> tuple[Position, str | None, bool]:
    """Where a resumed game's simulated seeds lie, a notice when that is not the file's, and
    whether the file is damaged (to be kept aside before it is overwritten).

    The saved layout is used when it was saved for this game at the point the journal resumes
    at or later; otherwise (another game, an earlier step, an unreadable file) the journal's
    position."""
    try:
        saved = load_sim_board(path, board, rules)
    except DataFileError as err:
        return journal_position, f"simulated board layout not used: {err}", True
    if saved is None:
        return journal_position, None, False
    if saved.game != point.game or saved.steps is None or saved.steps < point.steps:
        behind = (
            f"{path}: saved at step {saved.steps} of the game started {saved.game}, the journal "
            f"is at step {point.steps} of the game started {point.game}: the virtual hands lay "
            "the board out as the journal has it"
        )
        return journal_position, behind, False
    return saved.position, None, False


class VirtualHands:
    """When the virtual hands are done with what they were given, and saving where they left
    the seeds (see the module docstring). `write(path, job)` queues the job that replaces the file (JournalWriter.save)."""

    def __init__(
        self,
        feed: SimFeed,
        layout_path: Path,
        board: str,
        write: Callable[[Path, Callable[[], None]], None],
    ) -> None:
        self.feed = feed
        self.layout_path = layout_path
        self.board = board
        self.write = write
        self.layout_pending = False  # seeds moved since the layout was last saved
        self._done_at = -math.inf  # world time: the last scheduled action's effect is over

    def note(self, actions: Iterable[Action]) -> None:
        """Actions already scheduled on the world (their times are world times)."""
        for action in actions:
            self._done_at = max(self._done_at, action_end(action) + HAND_REST_S)

    def relaid(self) -> None:
        """A new world (a new game, an undo): nothing is scheduled on it."""
        self._done_at = -math.inf

    @property
    def busy_until(self) -> float:
        """The loop time when the hands are done, by the offset as it stands now."""
        if self._done_at == -math.inf:
            return -1.0
        return self.feed.to_loop(self._done_at)

    def busy(self, now: float) -> bool:
        return now < self.busy_until

    def save_layout(self, rules: Rules, point: JournalPoint, force: bool = False) -> None:
        """Queue the layout for writing; only when no hand holds seeds, unless `force`."""
        truth = self.feed.world.truth()
        if any(truth["hand"]) and not force:
            return
        self.layout_pending = False
        data = layout_json(self.board, rules, truth, point.game, point.steps)
        path = self.layout_path
        self.write(path, lambda: write_json_atomic(path, data))
