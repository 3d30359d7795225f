"""The compiled rules of one option set: ring tables, sowing, captures, turn order, game end.

Everything the two ways of playing share lives here: `Game` (whole moves, fast) and
`StepFollower` (one hand step at a time). Sowing itself is written twice, once seed by seed in
the follower and once in bulk here, and the property tests check that the two agree.

The board is a flat list: player p's pit i at `p * (pits + 1) + i`, p's store at
`p * (pits + 1) + pits`.

>>> rules = Rules.for_variant("kalah")
>>> board = rules.start_board()
>>> rules.apply_move(board, 0, 3)        # 3 seeds from pit 3: pits 4, 5 and the store
True
>>> rules.pits_of(board, 0), rules.stores_of(board)
((3, 3, 3, 0, 4, 4), (1, 0))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .options import OptionError, Options, Variant, find_variant
from .steps import STORE, Place


class Termination(StrEnum):
    """Why a game ended."""

    ALL_PITS_EMPTY = "all_pits_empty"
    SIDE_EMPTY = "side_empty"
    MAJORITY = "majority"
    NO_MOVE = "no_move"  # the player to move has no seeds and no_move=end
    CANNOT_FEED = "cannot_feed"  # must-feed and no move gives the empty opponent a seed
    CYCLE = "cycle"  # a position repeated and cycle=split_own


@dataclass(frozen=True)
class Outcome:
    """How a game ended, as python-chess's Outcome: `winner` is 0, 1 or None for a draw."""

    termination: Termination
    winner: int | None

    def result(self) -> int | str:
        """The record's `winner` field: 0, 1 or "draw"."""
        return "draw" if self.winner is None else self.winner


@dataclass(frozen=True)
class Settlement:
    """What happens after a move ends: who moves next, who passed, or why the game is over."""

    to_move: int | None
    passes: tuple[int, ...]
    termination: Termination | None


class PositionHistory:
    """Positions seen since the stores last changed, for the `cycle` option.

    Stores never shrink, so a position can only come back while nothing has been captured or
    stored; clearing the set whenever the stored total changes keeps it small.
    """

    def __init__(self) -> None:
        self.seen: set[tuple[int, ...]] = set()
        self.stored = -1

    def remember(self, rules: Rules, board: Sequence[int], to_move: int) -> bool:
        """Note the position with `to_move` next; True if it was seen before (a cycle)."""
        stored = board[rules.stores[0]] + board[rules.stores[1]]
        if stored != self.stored:
            self.seen.clear()
            self.stored = stored
        key = (*board, to_move)
        if key in self.seen:
            return True
        self.seen.add(key)
        return False

    def copy(self) -> PositionHistory:
        other = PositionHistory()
        other.seen = set(self.seen)
        other.stored = self.stored
        return other


class Rules:
    """One validated option set compiled into lookup tables."""

    def __init__(self, options: Options, variant: str = "custom") -> None:
        if options.laps == "relay" and not options.sow_own_store:
            # Every relay lap that comes round passes the mover's store and leaves a seed there,
            # which is what makes relay moves finite. Without it a relay can circle for ever.
            raise OptionError(
                "option 'laps': relay needs sow_own_store=true "
                "(without a store to drain it a relay lap can go round for ever)"
            )
        if not options.sow_own_store and options.cycle == "none":
            # Without a store to sow, seeds can circle for ever (two lone seeds chasing each
            # other round the board): only the cycle rule makes every game end.
            raise OptionError(
                "option 'cycle': none with sow_own_store=false lets a game go round for ever, "
                "allowed: split_own"
            )
        self.options = options
        self.variant = variant
        n = self.n = options.pits
        self.size = 2 * n + 2
        self.stores = (n, 2 * n + 1)
        self.closed_indices = frozenset(self.index(p, i) for p, i in options.closed)
        # Open pits of each row, in index order.
        self.rows: tuple[tuple[int, ...], tuple[int, ...]] = tuple(  # type: ignore[assignment]
            tuple(self.index(p, i) for i in range(n) if self.index(p, i) not in self.closed_indices)
            for p in (0, 1)
        )
        # The ring of RULES.md section 1 for each mover: own pits, own store (if sown), the
        # opponent's pits; the opponent's store is never sown. Closed pits are skipped.
        self.rings: tuple[tuple[int, ...], tuple[int, ...]] = tuple(  # type: ignore[assignment]
            self.rows[p] + ((self.stores[p],) if options.sow_own_store else ()) + self.rows[1 - p]
            for p in (0, 1)
        )
        # For each mover and each place a lap may start from, the places the lap sows in order.
        # With skip_origin the start pit is left out, so a lap that comes round passes it by.
        self.lap_sequences: tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]] = tuple(  # type: ignore[assignment]
            {
                start: self._lap_sequence(ring, k)
                for k, start in enumerate(ring)
                if start not in self.stores
            }
            for ring in self.rings
        )
        self.opposite = {
            self.index(p, i): self.index(1 - p, n - 1 - i) for p in (0, 1) for i in range(n)
        }
        self.row_of = {idx: p for p in (0, 1) for idx in self.rows[p]}
        self._counts = frozenset(options.capture_counts)

    def _lap_sequence(self, ring: tuple[int, ...], k: int) -> tuple[int, ...]:
        after = ring[k + 1 :] + ring[:k]
        return after if self.options.skip_origin else (*after, ring[k])

    @classmethod
    def for_variant(
        cls, variant: str | Variant = "kalah", overrides: Mapping[str, Any] | None = None
    ) -> Rules:
        v = find_variant(variant) if isinstance(variant, str) else variant
        return cls(v.options_from(overrides or {}), v.name)

    # -- coordinates ----------------------------------------------------------------------------

    def index(self, player: int, pit: int) -> int:
        return player * (self.n + 1) + pit

    def place(self, idx: int) -> Place:
        player, i = divmod(idx, self.n + 1)
        return Place(player, STORE if i == self.n else i)

    def index_of(self, place: Place) -> int:
        """Flat index of a place; ValueError when the place is not on this board."""
        if place.player not in (0, 1):
            raise ValueError(f"{place} is not a place: player must be 0 or 1")
        if place.pit == STORE:
            return self.stores[place.player]
        if not isinstance(place.pit, int) or not 0 <= place.pit < self.n:
            raise ValueError(f"{place} is not a place: pit index must be 0 to {self.n - 1}")
        return self.index(place.player, place.pit)

    def is_closed(self, player: int, pit: int) -> bool:
        return (player, pit) in self.options.closed

    # -- positions ------------------------------------------------------------------------------

    def start_board(self) -> list[int]:
        board = [0] * self.size
        for row in self.rows:
            for idx in row:
                board[idx] = self.options.seeds
        return board

    def pits_of(self, board: Sequence[int], player: int) -> tuple[int, ...]:
        base = player * (self.n + 1)
        return tuple(board[base : base + self.n])

    def stores_of(self, board: Sequence[int]) -> tuple[int, int]:
        return board[self.stores[0]], board[self.stores[1]]

    def row_total(self, board: Sequence[int], player: int) -> int:
        base = player * (self.n + 1)
        return sum(board[base : base + self.n])

    # -- whole moves (the fast path) ------------------------------------------------------------

    def sow(self, board: list[int], player: int, start: int) -> int:
        """Lift pit `start`, sow it (with relays), return where the last seed of the move fell."""
        seqs = self.lap_sequences[player]
        own_store = self.stores[player]
        relay = self.options.laps == "relay"
        seeds = board[start]
        board[start] = 0
        while True:
            seq = seqs[start]
            length = len(seq)
            if seeds <= length:
                for idx in seq[:seeds]:
                    board[idx] += 1
                last = seq[seeds - 1]
            else:
                rounds, rest = divmod(seeds, length)
                for idx in seq:
                    board[idx] += rounds
                for idx in seq[:rest]:
                    board[idx] += 1
                last = seq[rest - 1] if rest else seq[-1]
            # A relay goes on from a pit that held seeds before the last one fell.
            if relay and last != own_store and board[last] > 1:
                seeds = board[last]
                board[last] = 0
                start = last
                continue
            return last

    def apply_move(self, board: list[int], player: int, pit: int) -> bool:
        """Play `pit` of `player` on `board` (sowing and capture); True when it earns an extra turn.

        Turn order and game end are `settle`'s business.
        """
        last = self.sow(board, player, self.index(player, pit))
        if last == self.stores[player]:
            return self.options.extra_turn
        captured = self.capture_places(board, player, last)
        if captured:
            store = self.stores[player]
            for idx in captured:
                board[store] += board[idx]
                board[idx] = 0
        return False

    def capture_places(self, board: Sequence[int], player: int, last: int) -> list[int]:
        """The pits a move captures when its last seed fell in `last` (board after sowing)."""
        options = self.options
        if options.capture == "opposite":
            if self.row_of.get(last) != player or board[last] != 1:
                return []
            opposite = self.opposite[last]
            if board[opposite]:
                return [last, opposite]
            return [] if options.capture_requires_opposite else [last]
        if options.capture == "counts":
            taken = self._count_run(board, player, last)
            if taken and options.grand_slam != "allowed":
                row_total = self.row_total(board, 1 - player)
                if sum(board[idx] for idx in taken) == row_total:
                    # A grand slam takes nothing: the move stands (no_capture), or it is only
                    # played when every legal move is one (forbidden, see `legal_moves`).
                    return []
            return taken
        return []

    def _count_run(self, board: Sequence[int], player: int, last: int) -> list[int]:
        """Oware's capture: from the last pit backwards while in the opponent's row and 2 or 3."""
        opponent = 1 - player
        counts = self._counts
        ring = self.rings[player]
        k = ring.index(last)
        taken: list[int] = []
        while k >= 0 and self.row_of.get(ring[k]) == opponent and board[ring[k]] in counts:
            taken.append(ring[k])
            k -= 1
        return taken

    def spared_grand_slam(self, board: Sequence[int], player: int, last: int) -> bool:
        """Did a move of `player` whose last seed fell in `last` (board after sowing) capture
        nothing because it would have taken every opposing seed (grand_slam no_capture)?"""
        options = self.options
        if options.capture != "counts" or options.grand_slam == "allowed":
            return False
        taken = self._count_run(board, player, last)
        return bool(taken) and sum(board[i] for i in taken) == self.row_total(board, 1 - player)

    def _would_grand_slam(self, board: Sequence[int], player: int, pit: int) -> bool:
        after = list(board)
        last = self.sow(after, player, self.index(player, pit))
        taken = self._count_run(after, player, last) if last != self.stores[player] else []
        return bool(taken) and sum(after[i] for i in taken) == self.row_total(after, 1 - player)

    def legal_moves(self, board: Sequence[int], player: int) -> list[int]:
        """Pit indices `player` may play: open, non-empty, feeding and no forbidden grand slam."""
        base = player * (self.n + 1)
        moves = [i for i in range(self.n) if board[base + i]]
        options = self.options
        if moves and options.must_feed and not self.row_total(board, 1 - player):
            moves = [m for m in moves if self._feeds(board, player, m)]
        if moves and options.grand_slam == "forbidden" and options.capture == "counts":
            fair = [m for m in moves if not self._would_grand_slam(board, player, m)]
            # If every move is a grand slam, the player still has to move: it captures nothing.
            moves = fair or moves
        return moves

    def _feeds(self, board: Sequence[int], player: int, pit: int) -> bool:
        after = list(board)
        self.apply_move(after, player, pit)
        return self.row_total(after, 1 - player) > 0

    # -- turn order and game end ----------------------------------------------------------------

    def end_condition(self, board: Sequence[int]) -> Termination | None:
        """The `end` option: does this position end the game by itself?"""
        rows = self.row_total(board, 0), self.row_total(board, 1)
        end = self.options.end
        if end == "side_empty":
            return Termination.SIDE_EMPTY if not rows[0] or not rows[1] else None
        if end == "all_pits_empty":
            return Termination.ALL_PITS_EMPTY if not rows[0] and not rows[1] else None
        stores = self.stores_of(board)
        total = rows[0] + rows[1] + stores[0] + stores[1]
        if (
            2 * stores[0] > total
            or 2 * stores[1] > total
            or 2 * stores[0] == 2 * stores[1] == total
        ):
            return Termination.MAJORITY
        return None

    def settle(self, board: Sequence[int], candidate: int) -> Settlement:
        """After a move: the game ends, or `candidate` (or after passes, the other) moves next."""
        termination = self.end_condition(board)
        if termination is not None:
            return Settlement(None, (), termination)
        passes: list[int] = []
        player = candidate
        while self.row_total(board, player) == 0:
            if self.options.no_move == "end" or len(passes) == 2:
                return Settlement(None, tuple(passes), Termination.NO_MOVE)
            passes.append(player)
            player = 1 - player
        if (
            self.options.must_feed
            and not self.row_total(board, 1 - player)
            and not self.legal_moves(board, player)
        ):
            return Settlement(None, tuple(passes), Termination.CANNOT_FEED)
        return Settlement(player, tuple(passes), None)

    def sweep_plan(self, board: Sequence[int], termination: Termination) -> list[tuple[int, int]]:
        """(pit, player whose store takes it) for every non-empty pit at the end of the game."""
        sweep = "owner" if termination is Termination.CYCLE else self.options.end_sweep
        if sweep == "none":
            return []
        plan: list[tuple[int, int]] = []
        empty = [p for p in (0, 1) if not self.row_total(board, p)]
        for owner in (0, 1):
            taker = owner
            if sweep == "emptier" and len(empty) == 1:
                taker = empty[0]
            plan.extend((idx, taker) for idx in self.rows[owner] if board[idx])
        return plan

    def apply_sweep(self, board: list[int], termination: Termination) -> None:
        for idx, taker in self.sweep_plan(board, termination):
            board[self.stores[taker]] += board[idx]
            board[idx] = 0

    def outcome(self, board: Sequence[int], termination: Termination) -> Outcome:
        s0, s1 = self.stores_of(board)
        return Outcome(termination, 0 if s0 > s1 else 1 if s1 > s0 else None)


def random_playout(
    rules: Rules,
    board: list[int],
    to_move: int,
    random: Callable[[], float],
    history: PositionHistory,
) -> tuple[int, Outcome]:
    """Play uniformly random legal moves to the end of the game; return (moves, outcome).

    The fast path for search: the same rules as `Rules.apply_move` + `Rules.settle`, with the
    common cases inlined (the property tests hold the two to each other). `board` is changed.
    """
    options = rules.options
    n1 = rules.n + 1
    stores = rules.stores
    seq_tables = rules.lap_sequences
    own_pits = tuple(tuple(p * n1 + i for i in range(rules.n)) for p in (0, 1))
    relay = options.laps == "relay"
    extra_turn = options.extra_turn
    capture_places = rules.capture_places
    opposite_capture = options.capture == "opposite"
    counts_capture = options.capture == "counts"
    counts = frozenset(options.capture_counts)
    row_of = rules.row_of.get
    must_feed = options.must_feed
    forbidden_slam = options.grand_slam == "forbidden" and options.capture == "counts"
    check_cycle = options.cycle != "none"
    end = options.end
    total = sum(board)
    rows = (slice(0, n1 - 1), slice(n1, 2 * n1 - 1))
    store0, store1 = stores
    seen = history.seen
    player = to_move
    opponent_empty = must_feed and not sum(board[rows[1 - player]])
    moves = 0
    while True:
        if forbidden_slam or opponent_empty:
            choices = [player * n1 + m for m in rules.legal_moves(board, player)]
        else:
            choices = [j for j in own_pits[player] if board[j]]
        start = choices[int(random() * len(choices))]
        moves += 1
        # Sow, as Rules.sow.
        own_store = stores[player]
        seqs = seq_tables[player]
        seeds = board[start]
        board[start] = 0
        while True:
            seq = seqs[start]
            if seeds <= len(seq):
                for idx in seq[:seeds]:
                    board[idx] += 1
                last = seq[seeds - 1]
            else:
                rounds, rest = divmod(seeds, len(seq))
                for idx in seq:
                    board[idx] += rounds
                for idx in seq[:rest]:
                    board[idx] += 1
                last = seq[rest - 1] if rest else seq[-1]
            if relay and last != own_store and board[last] > 1:
                seeds = board[last]
                board[last] = 0
                start = last
                continue
            break
        if last == own_store:
            candidate = player if extra_turn else 1 - player
        else:
            candidate = 1 - player
            # Cheap tests first: most last seeds capture nothing.
            if (opposite_capture and board[last] == 1 and row_of(last) == player) or (
                counts_capture and board[last] in counts and row_of(last) == candidate
            ):
                for idx in capture_places(board, player, last):
                    board[own_store] += board[idx]
                    board[idx] = 0
        # Settle, as Rules.settle; the plain case (no end, the candidate can move) inline.
        here = sum(board[rows[candidate]])
        there = sum(board[rows[1 - candidate]])
        if end == "majority":
            s0, s1 = board[stores[0]], board[stores[1]]
            ended = 2 * s0 > total or 2 * s1 > total or 2 * s0 == 2 * s1 == total
        elif end == "side_empty":
            ended = not here or not there
        else:
            ended = not here and not there
        if ended or not here or (must_feed and not there):
            settlement = rules.settle(board, candidate)
            termination = settlement.termination
            if termination is not None:
                rules.apply_sweep(board, termination)
                return moves, rules.outcome(board, termination)
            assert settlement.to_move is not None
            player = settlement.to_move
            opponent_empty = must_feed and not sum(board[rows[1 - player]])
        else:
            player = candidate
            opponent_empty = False  # `there` holds seeds, or must_feed is off
        if check_cycle:
            # As PositionHistory.remember, inline.
            stored = board[store0] + board[store1]
            if stored != history.stored:
                seen.clear()
                history.stored = stored
            key = (*board, player)
            if key in seen:
                rules.apply_sweep(board, Termination.CYCLE)
                return moves, rules.outcome(board, Termination.CYCLE)
            seen.add(key)
