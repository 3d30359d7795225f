"""The game the journal holds, and finding it again at start-up.

Three things are called a game in the daemon, and they are three types: `JournaledGame` (this
module: the rules, the board's mapping and every step written to `game.jsonl`), the rules
engine's `StepFollower` (the position step by step; the loop calls it the follower) and the
rules engine's `Game` (whole moves, which the virtual hands plan with).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.board import Board, BoardFileError, BoardMapping
from controller.rules import Rules, Step, StepFollower, StepKind
from controller.rules.record import start_json

from .hands import JournalPoint
from .journal import (
    Journal,
    JournalError,
    JournalWriter,
    Replay,
    game_header,
    load_game,
    step_entry,
)
from .match import (
    Match,
    first_round,
    match_record,
    next_round,
    parse_match,
    round_follower,
)
from .notices import Notices
from .opponent import Opponent, alternating_options, parse_opponent


@dataclass
class JournaledGame:
    """The game in play: its rules and every journaled step."""

    variant: str
    options: dict[str, Any]  # as given (the record's options)
    rules: Rules
    mapping: BoardMapping
    header: dict[str, Any]
    steps: list[tuple[float, Step]] = field(default_factory=list)
    seed_g: float | None = None
    seed_cv: float | None = None
    recorded: bool = False
    opponent: Opponent | None = None  # the computer player (the header's "opponent")
    # Moves started after the time limit ({ply, player, limit_s}, clock.py's `warn`).
    overruns: list[dict[str, Any]] = field(default_factory=list)
    match: Match | None = None  # a round of a match (the header's "match")

    def entries(self) -> list[dict[str, Any]]:
        out = [dict(self.header)]
        if self.seed_g is not None:
            out.append({"type": "seed", "seed_g": self.seed_g, "seed_cv": self.seed_cv})
        out.extend(step_entry(t, s) for t, s in self.steps)
        out.extend({"type": "overrun", **o} for o in self.overruns)
        return out

    def point(self) -> JournalPoint:
        """Where the journal stands: this game, and how many steps it holds."""
        return JournalPoint(str(self.header.get("started", "")), len(self.steps))

    def start_follower(self) -> StepFollower:
        """The game at its start (a match round's own layout)."""
        return round_follower(self.rules, None if self.match is None else self.match.start)

    def follower(self, upto: int | None = None) -> StepFollower:
        follower = self.start_follower()
        for _t, step in self.steps[:upto]:
            follower.feed(step)
        return follower

    def step_list(self) -> tuple[Step, ...]:
        return tuple(step for _t, step in self.steps)


def new_game(
    board: Board,
    board_name: str,
    variant: str,
    options: dict[str, Any],
    opponent: Opponent | None = None,
    match: Match | None = None,
) -> JournaledGame:
    """A game not yet played (raises OptionError, BoardFileError); with a computer player
    its options are those of the alternating opening; `match`: the match it is a round of
    (`options` are then the round's)."""
    rules = Rules.for_variant(variant, options)
    if opponent is not None:
        options = alternating_options(options, rules)
        rules = Rules.for_variant(variant, options)
    mapping = board.mapping(rules.n)
    header = game_header(rules.variant, options, board_name)
    if opponent is not None:
        header["opponent"] = opponent.to_json()
    if match is not None:
        header["match"] = match.to_json()
    return JournaledGame(
        rules.variant, dict(options), rules, mapping, header, opponent=opponent, match=match
    )


def game_record(game: JournaledGame, follower: StepFollower) -> dict[str, Any]:
    """The game's record (RULES.md 5); `follower`: where it stands."""
    record: dict[str, Any] = {"variant": game.variant, "options": dict(game.options)}
    if game.opponent is not None:  # (a field replay leaves alone, RULES.md 5)
        record["opponent"] = game.opponent.to_json()
    match = game.match
    if match is not None:  # a round of a match: which, and its own start layout
        record["match"] = match_record(match, game.variant, follower)
        if match.start is not None:
            record["start"] = start_json(match.start)
    steps = game.step_list()
    if game.rules.options.simultaneous_opening or any(s.kind is StepKind.TIMEOUT for s in steps):
        # (pit choices alone cannot tell an opening played at once, or a turn passed)
        record["steps"] = [s.to_json() for s in steps]
    record["moves"] = [m.pit for m in follower.completed]
    if game.overruns:  # moves started after move_time_limit_s (`warn`)
        record["overruns"] = [dict(o) for o in game.overruns]
    return record


def record_line(record: dict[str, Any], finished: bool) -> str:
    """The line of records.jsonl that keeps `record`."""
    record = {**record, "finished": finished}
    record["saved"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return json.dumps(record, separators=(",", ":")) + "\n"


def last_record(path: Path) -> dict[str, Any] | None:
    """The last game in records.jsonl (checked at start, check_records), None if none."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            return record if isinstance(record, dict) else None
    return None


class GameOpener:
    """Resume the journal's game if there is one in progress, else a new game of the
    configuration's (every reason on the way is a notice)."""

    def __init__(
        self,
        path: Path,
        board: Board,
        board_name: str,
        writer: JournalWriter,
        notices: Notices,
        records_path: Path | None = None,
    ) -> None:
        self.path = path
        self.records_path = records_path
        self.board = board
        self.board_name = board_name
        self.writer = writer
        self.notices = notices

    def open(
        self,
        variant: str,
        options: Mapping[str, Any],
        opponent: Opponent | None = None,
        *,
        match: bool = False,
    ) -> tuple[JournaledGame, StepFollower | None]:
        """The game and, when it is resumed, its follower (None: a new game). A resumed game
        keeps its own computer player and match, as it keeps its options; `match`: a new
        game is the first round of a match."""
        resumed = self._resume()
        if resumed is not None:
            return resumed
        first = first_round(options) if match else None
        if first is not None:
            options = first.options
        game = new_game(self.board, self.board_name, variant, dict(options), opponent, first)
        self.writer.rewrite(game.entries())
        return game, None

    def _resume(self) -> tuple[JournaledGame, StepFollower] | None:
        path = self.path
        try:
            loaded = load_game(path)
        except JournalError as err:
            self.notices.warning(f"journal unusable, starting a new game: {err}")
            self.notices.keep_damaged(path)
            return None
        if loaded is None:
            return None
        journal, replayed = loaded
        for problem in replayed.problems:
            self.notices.warning(f"journal {path}: {problem}")
        if journal.board != self.board_name:
            self.notices.warning(
                f"journal {path}: the game was played on board {journal.board!r}, "
                f"this is {self.board_name!r}: starting a new game"
            )
            return None
        if replayed.follower.over:
            self._record_if_missing(journal, replayed)
            return self._next_round(journal, replayed)
        try:
            game = self._state(journal, replayed.rules, replayed.steps)
        except (ValueError, BoardFileError) as err:  # (OptionError is a ValueError)
            self.notices.warning(f"journal {path}: cannot resume ({err}): starting a new game")
            return None
        self._resumed(game, replayed)
        return game, replayed.follower

    def _record_if_missing(self, journal: Journal, replayed: Replay) -> None:
        """A game over whose record the plug kept from records.jsonl (it is written after
        the end sweep, seconds after the last move is journaled): written now. A game whose
        record is the last one there already is not written twice."""
        if self.records_path is None:
            return
        try:
            finished = self._state(journal, replayed.rules, replayed.steps)
        except (ValueError, BoardFileError):
            return
        record = game_record(finished, replayed.follower)
        last = last_record(self.records_path)
        kept = {k: v for k, v in (last or {}).items() if k not in ("finished", "saved")}
        if not record["moves"] or kept == record:
            return
        self.writer.append_to(self.records_path, record_line(record, True))
        self.notices.info(
            f"the finished game ({len(record['moves'])} moves) was not in "
            f"{self.records_path.name}: recorded now"
        )

    def _next_round(
        self, journal: Journal, replayed: Replay
    ) -> tuple[JournaledGame, StepFollower] | None:
        """The last game was over: a match whose round ended just before the daemon stopped
        (before the next round was laid out) goes on with its next round; a match that ended
        with it is resumed as it ended (its last round on the board, who won on the page,
        until a new game); else None. (The match's end is not a line of its own: the round's
        game line and steps give it, by the same handicap rule as in play.)"""
        try:
            finished = self._state(journal, replayed.rules, replayed.steps)
        except (ValueError, BoardFileError):
            finished = None
        match = None if finished is None else finished.match
        if finished is None or match is None:
            self.notices.info("the last game was over: starting a new game")
            return None
        following, options = next_round(match, finished.variant, replayed.follower.position())
        if following.result is not None:
            finished.match = following
            finished.recorded = True  # (records.jsonl has it: _record_if_missing)
            won = following.result
            self.notices.info(
                f"the match was over after {following.round} rounds, won {won[0]}-{won[1]}: "
                "its last round is shown until a new game"
            )
            return finished, replayed.follower
        game = new_game(
            self.board, self.board_name, finished.variant, options, finished.opponent, following
        )
        self.writer.rewrite(game.entries())
        self.notices.info(f"the match goes on: round {following.round} is laid out")
        return game, game.start_follower()

    def _resumed(self, game: JournaledGame, replayed: Replay) -> None:
        """Say what was resumed; a journal with damage or a cut-off move is written anew."""
        path = self.path
        moves = len(replayed.follower.completed)
        self.notices.info(
            f"resumed the {game.variant} game from {path}: {moves} moves, {len(game.steps)} steps"
        )
        if replayed.taken_back:
            first = replayed.taken_back[0]
            self.notices.warning(
                f"the move in progress ({len(replayed.taken_back)} steps from "
                f"{first.step}) was cut off by the restart and is taken back"
            )
        if replayed.problems:
            self.notices.keep_damaged(path)
        if replayed.problems or replayed.taken_back:
            self.writer.rewrite(game.entries())

    def _state(self, journal: Journal, rules: Rules, steps: list[Any]) -> JournaledGame:
        mapping = self.board.mapping(rules.n)
        return JournaledGame(
            rules.variant,
            journal.options,
            rules,
            mapping,
            dict(journal.header),
            [(s.t, s.step) for s in steps],
            journal.seed_g,
            journal.seed_cv,
            opponent=parse_opponent(journal.header.get("opponent"), "the game line's opponent"),
            overruns=[dict(o) for o in journal.overruns],
            match=parse_match(journal.header.get("match"), rules.variant, "the game line's match"),
        )
