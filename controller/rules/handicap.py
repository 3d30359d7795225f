"""Handicap rounds (congkak local rule, seed congkak-rules-ja.txt "ハンディ戦").

From round 2 each player fills their own row from the seeds they took last round: the winner
fills every pit with `seeds` and keeps the rest in their store; the loser fills from own pit 0
(their rightmost) onwards, and a pit that gets no seed is closed for the round. With
`handicap_partial="burn"` a pit that cannot be filled completely is closed too and its seeds go
to the store. The match ends when a player cannot put a seed in any pit.

>>> from controller.rules.options import find_variant
>>> setup = handicap_round(find_variant("congkak").options(pits=5, handicap_rounds=True), (33, 17))
>>> setup.position.pits, setup.position.stores, sorted(setup.options.closed)
(((5, 5, 5, 5, 5), (5, 5, 5, 2, 0)), (8, 0), [(1, 4)])
>>> setup.position.to_move                   # the previous round's loser starts
1
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .options import Options
from .position import Position


class HandicapError(ValueError):
    """Stocks that cannot start a handicap round."""


@dataclass(frozen=True)
class RoundSetup:
    """The options (with this round's closed pits) and start position of a handicap round."""

    options: Options
    position: Position


def handicap_round(
    options: Options, stocks: tuple[int, int], to_move: int | None = None
) -> RoundSetup | None:
    """Set up the next round from each player's stock; None when the match is over.

    `to_move` defaults to the player with the smaller stock (last round's loser), player 0 when
    the stocks are equal.
    """
    if not options.handicap_rounds:
        raise HandicapError("option 'handicap_rounds' is false for this game")
    if len(stocks) != 2 or any(not isinstance(s, int) or s < 0 for s in stocks):
        raise HandicapError(f"stocks {stocks!r}: expected two seed counts of 0 or more")
    n, per_pit = options.pits, options.seeds
    # `options` are the match's, not a round's: only the board's own closed pits stay closed.
    closed = set(options.closed)
    total = per_pit * (2 * n - len(closed))
    if sum(stocks) != total:
        raise HandicapError(
            f"stocks {list(stocks)} hold {sum(stocks)} seeds, the match has {total} "
            "(pass the match's options, not a round's)"
        )
    pits: list[tuple[int, ...]] = []
    stores: list[int] = []
    for player, stock in enumerate(stocks):
        row = [0] * n
        left = stock
        for i in range(n):
            if (player, i) in closed:
                continue
            if left >= per_pit or (left > 0 and options.handicap_partial == "keep"):
                row[i] = min(per_pit, left)
                left -= row[i]
            else:
                closed.add((player, i))
        if not any(row):
            return None  # this player cannot put a seed in any pit: the match is over
        pits.append(tuple(row))
        stores.append(left)
    if options.simultaneous_opening:
        first: int | None = None  # both hands start together
    elif to_move is None:
        first = 1 if stocks[1] < stocks[0] else 0
    else:
        first = to_move
    round_options = dataclasses.replace(options, closed=frozenset(closed))
    position = Position((pits[0], pits[1]), (stores[0], stores[1]), first)
    return RoundSetup(round_options, position)
