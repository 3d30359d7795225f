"""Whole congkak matches (`[game] match = true`): rounds by the seed's handicap rule
(ハンディ戦, controller/rules/handicap.py), one journaled game each.

After a round, each player lays the seeds they won into their own pits, the winner's surplus
in their store, and the loser's pits that cannot be filled are closed for the round
(`handicap_partial`: keep or burn); the match ends when a player cannot fill one pit. Each
round is a game of its own in the journal and in the records, whose game line carries the
match (`round`, the rounds won before it, the match's own options) and the round's start
layout, so a pulled plug resumes the round, and with it the match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from controller.rules import Game, OptionError, Position, Rules, StepFollower, handicap_round
from controller.rules.record import RecordError, start_json, start_position

from .status import MatchStatus

ROUND_PAUSE_S = 4.0  # a finished round stays on the lights this long before the next


@dataclass(frozen=True)
class Match:
    """Where a match stands: this `round` (from 1), the rounds each player `won` before it,
    the match's `options` (without a round's closed pits) and this round's `start` layout
    (None: the variant's own start). `result`: the match ended with this round, and these
    are the rounds each player won in it (this round's included)."""

    round: int
    won: tuple[int, int]
    options: Mapping[str, Any]
    start: Position | None = None
    result: tuple[int, int] | None = None

    @property
    def over(self) -> bool:
        return self.result is not None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round": self.round,
            "won": list(self.won),
            "options": dict(self.options),
        }
        if self.start is not None:
            out["start"] = start_json(self.start)
        return out

    def round_options(self, closed: frozenset[tuple[int, int]]) -> dict[str, Any]:
        """This round's options: the match's and the pits the round closed."""
        if not closed:
            return dict(self.options)
        return {**self.options, "closed": [list(place) for place in sorted(closed)]}

    def get_status(self) -> MatchStatus:
        won = self.won if self.result is None else self.result
        return {"round": self.round, "won": list(won), "over": self.over}


def match_record(match: Match, variant: str, follower: StepFollower) -> dict[str, Any]:
    """A round's record's `match`: the round and the rounds each player won before it; once
    the round is over, also the rounds won after it (`won`) and whether the match ended with it
    (`over`): the last round's record holds the match's result."""
    record: dict[str, Any] = {"round": match.round, "won_before": list(match.won)}
    if follower.over and not follower.pending_sweeps:
        following, _ = next_round(match, variant, follower.position())
        record["won"] = list(following.won if following.result is None else following.result)
        record["over"] = following.over
    return record


def match_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A match's options: the rounds are handicap rounds (OptionError when the options say
    they are not)."""
    if options.get("handicap_rounds") is False:
        raise OptionError(
            "handicap_rounds = false: a match is played in handicap rounds, allowed: true"
        )
    return {**options, "handicap_rounds": True}


def first_round(options: Mapping[str, Any]) -> Match:
    return Match(1, (0, 0), match_options(options))


def parse_match(value: Any, variant: str, key: str) -> Match | None:
    """The game line's `match` (ValueError names what is wrong)."""
    if value is None:
        return None
    try:
        round_ = int(value["round"])
        won = (int(value["won"][0]), int(value["won"][1]))
        options = dict(value["options"])
        rules = Rules.for_variant(variant, options)
        raw_start = value.get("start")
        start = None if raw_start is None else start_position(raw_start, rules)
    except (KeyError, TypeError, IndexError, RecordError, OptionError) as err:
        raise ValueError(f"{key}: not a match ({err})") from None
    if round_ < 1 or min(won) < 0:
        raise ValueError(f"{key}: round {round_} or rounds won {list(won)} out of range")
    return Match(round_, won, options, start)


def round_follower(rules: Rules, start: Position | None) -> StepFollower:
    """A round's game at its start: the variant's layout, or a handicap round's."""
    if start is None:
        return StepFollower.new(rules)
    return StepFollower.from_game(Game(rules, start=start))


def next_round(match: Match, variant: str, final: Position) -> tuple[Match, dict[str, Any]]:
    """The match after a finished round: the next round and its options, or (the match over)
    the same round with its `result` and no options."""
    winner = final.outcome.winner if final.outcome is not None else None
    won = list(match.won)
    if winner in (0, 1):
        won[winner] += 1
    rules = Rules.for_variant(variant, match.options)
    # (seeds still in a row at the end, where the variant leaves them, go to its owner)
    stocks = (final.stores[0] + sum(final.pits[0]), final.stores[1] + sum(final.pits[1]))
    setup = handicap_round(rules.options, stocks)
    if setup is None:
        return replace(match, result=(won[0], won[1])), {}
    following = Match(match.round + 1, (won[0], won[1]), match.options, setup.position)
    return following, following.round_options(setup.options.closed)
