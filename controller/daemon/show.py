"""Demo mode on a real board: nothing can move the seeds, so the page and the LEDs replay a
game, one step every SHOW_STEP_S, as the lights would have guided it.

The game is one of the last SHOW_RECORDS finished games in records.jsonl that this board can
show (its rules with this many pits and the alternating opening, from the variant's own
start), else, or when a record does not replay, a random game of the game's rules (the
alternating opening). A game over stays SHOW_END_S, then another one begins. The referee goes
on weighing the real seeds beside it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import cast

from controller.leds.patterns import GuidanceState
from controller.rules import Phase, Place, Rules, Step, StepFollower
from controller.rules.options import find_variant
from controller.rules.record import RecordError, parse_record, record_rules, replay
from controller.rules.steps import StepKind
from controller.tracking.verdicts import guidance_of, next_kind

from .game import JournaledGame
from .opponent import alternating_options
from .status import GameCore, PositionStatus

SHOW_STEP_S = 0.6  # a step of the replayed game (a person's tempo)
SHOW_END_S = 6.0  # a finished game stays this long
SHOW_RECORDS = 20  # the newest finished records one is chosen from
RECORDS_TAIL = 1 << 20  # the bytes of records.jsonl read for them (the file only grows)


class Show:
    """The game replayed for `game` (the daemon's game: its rules and pits)."""

    def __init__(self, game: JournaledGame, records: Path, rng: random.Random) -> None:
        self.game = game
        self.records = records
        self.rng = rng
        self.source = ""  # "record" or "random"
        self.moves: list[int] = []  # the recorded moves ([] for a random game)
        self.follower = self._next_game()
        self.next_at: float | None = None

    def _next_game(self) -> StepFollower:
        chosen = self._record(self.game.rules.n)
        if chosen is None:
            return self._random_game()
        self.source, (rules, self.moves) = "record", chosen
        return StepFollower.new(rules)

    def _random_game(self) -> StepFollower:
        options = alternating_options(self.game.options, self.game.rules)
        self.source, self.moves = "random", []
        return StepFollower.new(Rules.for_variant(find_variant(self.game.variant), options))

    def _record(self, pits: int) -> tuple[Rules, list[int]] | None:
        """A finished game of records.jsonl this board can show, chosen at random."""
        try:
            with self.records.open("rb") as file:
                file.seek(max(0, file.seek(0, 2) - RECORDS_TAIL))  # (the newest games)
                lines = file.read().decode("utf-8", errors="replace").splitlines()
        except OSError:
            return None
        fit: list[tuple[Rules, list[int]]] = []
        for line in reversed(lines):
            game = showable(line, pits)
            if game is not None:
                fit.append(game)
                if len(fit) >= SHOW_RECORDS:
                    break
        return self.rng.choice(fit) if fit else None

    def tick(self, now: float) -> bool:
        """One more step when it is due (True: the game shown changed)."""
        if self.next_at is None:
            self.next_at = now + SHOW_STEP_S
        if now < self.next_at:
            return False
        follower = self.follower
        if follower.over:
            self.follower = self._next_game()
            self.next_at = now + SHOW_STEP_S
            return True
        verdict = follower.feed(self._step(follower))
        if not verdict.accepted:  # (a record its own rules do not follow: a random game)
            self.follower = follower = self._random_game()
        self.next_at = now + (SHOW_END_S if follower.over else SHOW_STEP_S)
        return True

    def _step(self, follower: StepFollower) -> Step:
        first = follower.expected()[0]
        player = first.player
        if first.kind is not StepKind.PICKUP or follower.hands[player].phase is not Phase.START:
            return first  # the move goes on as the rules say
        legal = follower.rules.legal_moves(follower.board, player)
        ply = len(follower.completed)
        pit = self.moves[ply] if ply < len(self.moves) else self.rng.choice(legal)
        return Step.pickup(player, Place(player, pit))

    def state(self, places: list[Place]) -> GuidanceState:
        """What the lights show for the game replayed: the referee's guidance for it, with
        no flag and no cup out of place."""
        return guidance_of(self.follower, [], places, {})

    def game_status(self, game: GameCore) -> GameCore:
        """The daemon's game section with the replayed game's position and next step
        (`phase` "show": the page says it is a replay, not what to do)."""
        follower = self.follower
        steps = follower.expected()
        return {
            **game,
            "position": cast(PositionStatus, follower.position().to_json()),
            "hand": [follower.hands[0].seeds, follower.hands[1].seeds],
            "expected": [s.at.to_json() for s in steps if s.at is not None],
            "expected_kind": next_kind(steps),
            "phase": "show",
            "history": [
                {"ply": k, "player": m.player, "pit": m.pit}
                for k, m in enumerate(follower.completed, start=1)
            ],
            "events": [],
        }


def showable(line: str, pits: int) -> tuple[Rules, list[int]] | None:
    """A line of records.jsonl as a game a board of `pits` pits can replay: its rules and
    moves (None: unfinished, laid out or opened otherwise, or it does not replay)."""
    try:
        data = json.loads(line)
        if not isinstance(data, dict) or data.get("finished") is not True:
            return None
        record = parse_record(line)
        rules = record_rules(record)
        list(replay(record))
    except (ValueError, RecordError):
        return None
    if record.start is not None or record.steps is not None or rules.n != pits:
        return None
    return None if rules.options.simultaneous_opening else (rules, list(record.moves))
