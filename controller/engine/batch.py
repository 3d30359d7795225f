"""Random playouts of many games at once, on numpy arrays: the engine's fast path.

`Rules.apply_move` sows one seed at a time in Python; a search wants millions of moves a
second. Here every game of a batch is a row of one integer array and each move of every game is
a handful of array operations:

- a lap is one table look-up: `sow[player, start, seeds]` is the whole change a lap of `seeds`
  seeds from `start` makes to the board (the lifted pit included), `last[...]` where it ends.
  Relays (congkak) repeat the look-up for the games whose last seed fell in a full pit;
- captures, turn order, passes, the end rules and sweeps are masks over the batch;
- must-feed and forbidden grand slams are decided by trying every pit on copies of the boards,
  exactly as `Rules.legal_moves` does one at a time;
- the `cycle` rule keeps, per game, the positions seen since the stores last changed, packed
  into integers. A game that goes longer than `HISTORY` moves without a capture is finished by
  the per-move engine (`Game`) from its exact history: rare, and always the same rules.

The property tests (tests/engine) replay every batch game's moves through `Game` and compare
the final positions, for every preset and random option mixes.

>>> from controller.rules import Rules
>>> batch = BatchRules(Rules.for_variant("kalah"))
>>> result = batch.playouts(batch.start_boards(100), np.zeros(100, np.int8), seed=1)
>>> int(result.boards[:, :14].sum(axis=1).max()), int(result.boards[:, :14].sum(axis=1).min())
(36, 36)
>>> bool(np.isin(result.winners, (0, 1, DRAW)).all())
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from controller.rules import Game, Position, PositionHistory, Rules, Termination

Ints = npt.NDArray[np.int64]
Seeds = npt.NDArray[np.int16]  # boards: 16 bits hold any game (at most 32 pits of 100 seeds)
Bools = npt.NDArray[np.bool_]

DRAW = 2  # `winners` entry of a drawn game
# Positions kept per game for the cycle rule. Most games capture every few moves (which clears
# it); one that goes on longer without leaves the batch for the per-move fast path.
HISTORY = 128  # random oware: 1 game in 500 goes longer
_LENGTH_CLASSES = (4, 16, 48, HISTORY)

# Termination codes in `BatchResult.terminations`, in the order of `Termination`.
TERMINATIONS: tuple[Termination, ...] = tuple(Termination)
_CODE = {t: np.int8(i) for i, t in enumerate(TERMINATIONS)}


@dataclass
class BatchResult:
    """The end of every game of a batch, in the order the games were given.

    `boards` uses the flat layout of `Rules` (with one spare column at the end, always 0);
    `winners` is 0, 1 or `DRAW`; `moves` counts the moves each game played; `played` holds each
    game's pits in order when the playouts were asked to record them.
    """

    boards: Seeds
    winners: npt.NDArray[np.int8]
    terminations: npt.NDArray[np.int8]
    moves: Ints
    played: list[list[int]] | None = None

    @property
    def total_moves(self) -> int:
        return int(self.moves.sum())


class BatchRules:
    """One option set compiled into numpy tables for batch playouts."""

    def __init__(self, rules: Rules, seeds_in_game: int | None = None) -> None:
        """`seeds_in_game`: the most seeds a position may hold (default: the start position's;
        a handicap round's layout may differ)."""
        self.rules = rules
        options = rules.options
        n = self.n = rules.n
        self.width = rules.size + 1  # a spare column: "no place", always empty
        self.spare = rules.size
        self.total = seeds_in_game or sum(rules.start_board())
        self.stores = np.array(rules.stores, np.int64)
        self.pit_index = np.array([[rules.index(p, i) for i in range(n)] for p in (0, 1)])
        self._build_sowing()
        self._build_captures()
        self.counts_mask = np.zeros(self.total + 2, np.bool_)
        for c in options.capture_counts:
            if c <= self.total:
                self.counts_mask[c] = True
        self._build_packing()

    # -- tables ---------------------------------------------------------------------------------

    def _build_sowing(self) -> None:
        """`sow[p, start, s]`: the change of a lap of s seeds; `last[p, start, s]`: its end."""
        rules, width, total = self.rules, self.width, self.total
        seeds = np.arange(total + 1)
        self.sow = np.zeros((2, width, total + 1, width), np.int16)
        self.last = np.full((2, width, total + 1), self.spare, np.int64)
        for p in (0, 1):
            for start, seq in rules.lap_sequences[p].items():
                length = len(seq)
                order = np.arange(length)
                # Place k of the lap gets one seed per time round the lap that reaches it.
                drops = np.maximum(0, (seeds[:, None] - order[None, :] + length - 1) // length)
                table = self.sow[p, start]  # (seeds, places), a view
                table[:, list(seq)] = drops
                table[:, start] -= seeds.astype(np.int16)
                self.last[p, start, 1:] = np.array(seq)[(seeds[1:] - 1) % length]

    def _build_captures(self) -> None:
        rules, width, spare = self.rules, self.width, self.spare
        self.own_row = np.zeros((2, width), np.bool_)
        for p in (0, 1):
            self.own_row[p, list(rules.rows[p])] = True
        self.opposite = np.full(width, spare, np.int64)
        for idx, opp in rules.opposite.items():
            self.opposite[idx] = opp
        # Oware's capture walks back along the ring from the last seed while in the opponent's
        # row: `back[p, last]` lists those pits, padded with the spare column (never a count).
        self.back = np.full((2, width, self.n), spare, np.int64)
        for p in (0, 1):
            ring = rules.rings[p]
            for k, idx in enumerate(ring):
                walk = []
                while k >= 0 and rules.row_of.get(ring[k]) == 1 - p:
                    walk.append(ring[k])
                    k -= 1
                self.back[p, idx, : len(walk)] = walk

    def _build_packing(self) -> None:
        """Positions for the cycle rule as a few int64 words: pits and the player to move."""
        bits = max(1, self.total.bit_length())
        per_word = max(1, 62 // bits)
        places = [*self.pit_index[0], *self.pit_index[1], self.spare]  # spare: the player
        self.pack_groups = [places[i : i + per_word] for i in range(0, len(places), per_word)]
        self.pack_shifts = [np.array([bits * j for j in range(len(g))]) for g in self.pack_groups]
        self.pack_bits = bits
        # Odd multipliers that mix the words into one hash word (wrapping int64 arithmetic).
        mix = np.random.default_rng(14).integers(1, 2**62, len(self.pack_groups)) | 1
        self.pack_mix = mix.astype(np.int64)

    # -- starting boards ------------------------------------------------------------------------

    def start_boards(self, count: int) -> Seeds:
        """`count` copies of the start position."""
        return self.boards_from([self.rules.start_board()] * count)

    def boards_from(self, boards: list[list[int]]) -> Seeds:
        """Flat `Rules` boards as a batch array (with the spare column)."""
        out = np.zeros((len(boards), self.width), np.int16)
        out[:, : self.rules.size] = np.array(boards, np.int16).reshape(len(boards), -1)
        return out

    # -- playouts -------------------------------------------------------------------------------

    def playouts(
        self,
        boards: Seeds,
        to_move: npt.NDArray[np.integer],
        *,
        seed: int | None = None,
        rng: np.random.Generator | None = None,
        record: bool = False,
    ) -> BatchResult:
        """Play every game to its end with uniformly random legal moves.

        Each start position must be one a game can be in: not over, and `to_move` has a legal
        move. For the cycle rule each game's history starts at its start position, as a `Game`
        built from that position.
        """
        if len(boards) and int(boards.sum(axis=1).max()) > self.total:
            raise ValueError(
                f"a board holds more than {self.total} seeds: give BatchRules seeds_in_game"
            )
        rng = rng if rng is not None else np.random.default_rng(seed)
        run = _Run(self, boards.astype(np.int16, copy=True), to_move, rng, record)
        return run.play()


class _Run:
    """The state of one batch of playouts: the games still going, compacted as they end."""

    def __init__(
        self,
        batch: BatchRules,
        boards: Seeds,
        to_move: npt.NDArray[np.integer],
        rng: np.random.Generator,
        record: bool,
    ) -> None:
        self.b = batch
        self.rng = rng
        count = len(boards)
        self.out_boards = boards.copy()
        self.out_winners = np.zeros(count, np.int8)
        self.out_terms = np.zeros(count, np.int8)
        self.out_moves = np.zeros(count, np.int64)
        self.played: list[list[int]] | None = [[] for _ in range(count)] if record else None
        self.py_random = random.Random(int(rng.integers(2**62))).random  # for `Game`
        self.board = boards
        self.player = np.asarray(to_move, np.int64).copy()
        self.ids = np.arange(count)
        self.moves = np.zeros(count, np.int64)
        self.cycle = batch.rules.options.cycle != "none"
        if self.cycle:
            # By game id: rows are compacted as games end, histories are not.
            self.hist = np.zeros((count, HISTORY, len(batch.pack_groups)), np.int64)
            self.hist_hash = np.zeros((count, HISTORY), np.int64)
            self.hist_len = np.zeros(count, np.int64)
            self.hist_stored = self._stored(self.board)
            self._remember(np.arange(count))
        self.legal = self._legal(self.board, self.player)
        if count and not self.legal.any(axis=1).all():
            raise ValueError("a start position has no legal move (the game is over)")

    # -- the loop -------------------------------------------------------------------------------

    def play(self) -> BatchResult:
        while len(self.ids):
            self._step()
        return BatchResult(
            self.out_boards, self.out_winners, self.out_terms, self.out_moves, self.played
        )

    def _step(self) -> None:
        pits = self._choose(self.legal)
        if self.played is not None:
            for game, pit in zip(self.ids.tolist(), pits.tolist(), strict=True):
                self.played[game].append(pit)
        self.moves += 1
        extra = _apply(self.b, self.board, self.player, pits)[0]
        candidate = np.where(extra, self.player, 1 - self.player)
        terms = self._settle(candidate, *_row_totals(self.b, self.board))
        if self.cycle:
            self._cycle_check(terms)
        done = terms >= 0
        if done.any():
            self._finish(done, terms)

    def _choose(self, legal: Bools) -> Ints:
        """A uniformly random legal pit per game: the r-th open choice of each row."""
        count = legal.sum(axis=1)
        r = (self.rng.random(len(count)) * count).astype(np.int64)
        pits: Ints = (np.cumsum(legal, axis=1) <= r[:, None]).sum(axis=1)
        return pits

    def _settle(self, candidate: Ints, r0: Ints, r1: Ints) -> npt.NDArray[np.int8]:
        """As `Rules.settle`: the next player, or a termination code (-1: the game goes on).

        `r0`, `r1`: the seeds in each row."""
        b, board = self.b, self.board
        options = b.rules.options
        terms = np.full(len(board), -1, np.int8)
        end = options.end
        if end == "side_empty":
            terms[(r0 == 0) | (r1 == 0)] = _CODE[Termination.SIDE_EMPTY]
        elif end == "all_pits_empty":
            terms[(r0 == 0) & (r1 == 0)] = _CODE[Termination.ALL_PITS_EMPTY]
        else:
            s0, s1 = board[:, b.stores[0]], board[:, b.stores[1]]
            total = r0 + r1 + s0 + s1
            majority = (2 * s0 > total) | (2 * s1 > total) | ((s0 == s1) & (2 * s0 == total))
            terms[majority] = _CODE[Termination.MAJORITY]
        going = terms < 0
        here = np.where(candidate == 0, r0, r1)
        there = np.where(candidate == 0, r1, r0)
        if options.no_move == "end":
            terms[going & (here == 0)] = _CODE[Termination.NO_MOVE]
            player = candidate
        else:
            terms[going & (here == 0) & (there == 0)] = _CODE[Termination.NO_MOVE]
            player = np.where(here == 0, 1 - candidate, candidate)
        self.player = player
        self.legal = self._legal(board, player, (r0, r1))
        if options.must_feed:
            stuck = (terms < 0) & ~self.legal.any(axis=1)
            terms[stuck] = _CODE[Termination.CANNOT_FEED]
        return terms

    def _legal(self, board: Seeds, player: Ints, totals: tuple[Ints, Ints] | None = None) -> Bools:
        """As `Rules.legal_moves`, as a mask of pits per game (`totals`: the row totals)."""
        b = self.b
        options = b.rules.options
        n = b.n
        legal: Bools = np.where(player[:, None] == 0, board[:, :n], board[:, n + 1 : 2 * n + 1]) > 0
        if options.must_feed:
            r0, r1 = totals if totals is not None else _row_totals(b, board)
            hungry = np.nonzero(np.where(player == 0, r1, r0) == 0)[0]
            if len(hungry):
                feeds, _ = _try_every_pit(b, board[hungry], player[hungry], legal[hungry])
                legal[hungry] &= feeds
        if options.grand_slam == "forbidden" and options.capture == "counts":
            _, slams = _try_every_pit(b, board, player, legal)
            fair = legal & ~slams
            keep = fair.any(axis=1)
            legal[keep] = fair[keep]
        return legal

    # -- the cycle rule -------------------------------------------------------------------------

    def _stored(self, board: Seeds) -> Ints:
        stores = board[:, self.b.stores].astype(np.int64)
        stored: Ints = stores.sum(axis=1)
        return stored

    def _pack(self, rows: Ints) -> Ints:
        b = self.b
        board = self.board[rows].astype(np.int64)
        board[:, b.spare] = self.player[rows]
        return np.stack(
            [
                (board[:, group] << shifts).sum(axis=1)
                for group, shifts in zip(b.pack_groups, b.pack_shifts, strict=True)
            ],
            axis=1,
        )

    def _remember(self, rows: Ints) -> Bools:
        """As `PositionHistory.remember` for the games `rows`: True where a position repeats.

        Each game's history is indexed by its id (never compacted). A one-word hash of each
        position is compared first, over only as many entries as the games of a length class
        hold; a hash that matches is checked on the whole key.
        """
        ids = self.ids[rows]
        stored = self._stored(self.board[rows])
        changed = stored != self.hist_stored[ids]
        self.hist_len[ids[changed]] = 0
        self.hist_stored[ids] = stored
        keys = self._pack(rows)
        hashes = keys @ self.b.pack_mix
        lengths = self.hist_len[ids]
        repeat = np.zeros(len(rows), np.bool_)
        low = 0
        for cap in _LENGTH_CLASSES:
            cls = np.nonzero((lengths > low) & (lengths <= cap))[0]
            low = cap
            if not len(cls):
                continue
            hits = self.hist_hash[ids[cls], :cap] == hashes[cls, None]
            hits &= np.arange(cap)[None, :] < lengths[cls, None]
            k, j = np.nonzero(hits)
            same = (self.hist[ids[cls[k]], j] == keys[cls[k]]).all(axis=1)
            repeat[cls[k[same]]] = True
        fresh = ~repeat
        full = fresh & (lengths >= HISTORY)
        put = np.nonzero(fresh & ~full)[0]
        self.hist[ids[put], lengths[put]] = keys[put]
        self.hist_hash[ids[put], lengths[put]] = hashes[put]
        self.hist_len[ids[put]] += 1
        self.overflow = rows[full]
        return repeat

    def _cycle_check(self, terms: npt.NDArray[np.int8]) -> None:
        rows = np.nonzero(terms < 0)[0]
        repeat = self._remember(rows)
        terms[rows[repeat]] = _CODE[Termination.CYCLE]
        for row in self.overflow.tolist():
            self._finish_one_by_one(row)
            terms[row] = 100  # finished by `Game`: only to be taken out of the batch

    def _finish_one_by_one(self, row: int) -> None:
        """Hand a game with a long history to the per-move engine, history and all: its fast
        path, or move by move when the moves are recorded."""
        b, rules = self.b, self.b.rules
        board = self.board[row, : rules.size].tolist()
        player = int(self.player[row])
        game = Game(rules, start=Position.from_board(rules, board, player))
        history = PositionHistory()
        game_id = int(self.ids[row])
        history.stored = int(self.hist_stored[game_id])
        for words in self.hist[game_id, : self.hist_len[game_id]]:
            history.seen.add(self._unpack(words, board))
        history.seen.add((*board, player))
        game.history = history
        moves = 0
        if self.played is None:
            moves = game.random_playout(self.py_random)
        while game.outcome is None:
            legal = game.legal_moves()
            pit = legal[int(self.py_random() * len(legal))]
            game.play(pit)
            moves += 1
            if self.played is not None:
                self.played[game_id].append(pit)
        assert game.outcome is not None
        self.out_boards[game_id, : rules.size] = game.board
        self.out_boards[game_id, b.spare] = 0
        outcome = game.outcome
        self.out_winners[game_id] = DRAW if outcome.winner is None else outcome.winner
        self.out_terms[game_id] = _CODE[outcome.termination]
        self.out_moves[game_id] = self.moves[row] + moves

    def _unpack(self, words: Ints, board: list[int]) -> tuple[int, ...]:
        """A packed key back as `PositionHistory`'s key (the stores are those of `board`)."""
        b = self.b
        key = [*board, 0]
        mask = (1 << b.pack_bits) - 1
        for word, group in zip(words.tolist(), b.pack_groups, strict=True):
            for j, idx in enumerate(group):
                key[int(idx)] = (word >> (b.pack_bits * j)) & mask
        return tuple(key)

    # -- the end of a game ----------------------------------------------------------------------

    def _finish(self, done: Bools, terms: npt.NDArray[np.int8]) -> None:
        b = self.b
        rows = np.nonzero(done & (terms < 100))[0]
        board = self.board[rows]
        _sweep(b, board, terms[rows])
        s0, s1 = board[:, b.stores[0]], board[:, b.stores[1]]
        ids = self.ids[rows]
        self.out_boards[ids] = board
        self.out_winners[ids] = np.where(s0 > s1, 0, np.where(s1 > s0, 1, DRAW))
        self.out_terms[ids] = terms[rows]
        self.out_moves[ids] = self.moves[rows]
        keep = ~done
        self.board = self.board[keep]
        self.player = self.player[keep]
        self.legal = self.legal[keep]
        self.ids = self.ids[keep]
        self.moves = self.moves[keep]


# -- whole moves on many boards ---------------------------------------------------------------


def _row_totals(b: BatchRules, board: Seeds) -> tuple[Ints, Ints]:
    n = b.n
    return board[:, :n].sum(axis=1), board[:, n + 1 : 2 * n + 1].sum(axis=1)


def _apply(b: BatchRules, board: Seeds, player: Ints, pits: Ints) -> tuple[Bools, Bools]:
    """As `Rules.apply_move` on every row (in place): (extra turn, would be a grand slam).

    "Would be a grand slam" is `Rules._would_grand_slam`: the capture run takes every seed of
    the opponent's row (whether or not the options then let it capture).
    """
    rows = np.arange(len(board))
    start = b.pit_index[player, pits]
    seeds = board[rows, start]
    board += b.sow[player, start, seeds]
    last: Ints = b.last[player, start, seeds]
    own_store = b.stores[player]
    if b.rules.options.laps == "relay":
        # A relay goes on from a pit that held seeds before the last one fell.
        going = np.nonzero((last != own_store) & (board[rows, last] > 1))[0]
        while len(going):
            last[going] = _lap(b, board, going, player[going], last[going])
            going = going[(last[going] != own_store[going]) & (board[going, last[going]] > 1)]
    in_store = last == own_store
    capture = b.rules.options.capture
    slams = np.zeros(len(board), np.bool_)
    if capture == "opposite":
        _capture_opposite(b, board, player, last, in_store)
    elif capture == "counts":
        slams = _capture_counts(b, board, player, last)
    return in_store & b.rules.options.extra_turn, slams


def _lap(b: BatchRules, board: Seeds, rows: Ints, player: Ints, start: Ints) -> Ints:
    """Lift `start` and sow it once round (the rows `rows`); where each last seed fell."""
    seeds = board[rows, start]
    board[rows] += b.sow[player, start, seeds]
    last: Ints = b.last[player, start, seeds]
    return last


def _capture_opposite(
    b: BatchRules, board: Seeds, player: Ints, last: Ints, in_store: Bools
) -> None:
    rows = np.arange(len(board))
    hit = ~in_store & b.own_row[player, last] & (board[rows, last] == 1)
    if not hit.any():
        return
    rows, player, last = rows[hit], player[hit], last[hit]
    opposite = b.opposite[last]
    seeds = board[rows, opposite]
    if b.rules.options.capture_requires_opposite:
        keep = seeds > 0
        rows, player, last, opposite, seeds = (
            rows[keep],
            player[keep],
            last[keep],
            opposite[keep],
            seeds[keep],
        )
    board[rows, b.stores[player]] += seeds + 1
    board[rows, last] = 0
    board[rows, opposite] = 0


def _capture_counts(b: BatchRules, board: Seeds, player: Ints, last: Ints) -> Bools:
    """Oware's capture on every row; returns where the run would take the whole opposing row."""
    walk = b.back[player, last]  # (games, n): the pits the run may take, in order
    seeds = np.take_along_axis(board, walk, axis=1)
    run = np.logical_and.accumulate(b.counts_mask[np.minimum(seeds, b.total + 1)], axis=1)
    taken = (seeds * run).sum(axis=1)
    r0, r1 = _row_totals(b, board)
    slams: Bools = run[:, 0] & (taken == np.where(player == 0, r1, r0))
    go = run[:, 0] & ~slams if b.rules.options.grand_slam != "allowed" else run[:, 0]
    if go.any():
        rows = np.nonzero(go)[0]
        board[rows, b.stores[player[rows]]] += taken[rows]
        cleared = np.where(run[rows], walk[rows], b.spare)
        board[rows[:, None], cleared] = 0
    return slams


def _try_every_pit(b: BatchRules, board: Seeds, player: Ints, legal: Bools) -> tuple[Bools, Bools]:
    """Each open pit played on a copy: (does it feed the opponent, would it be a grand slam)."""
    n = b.n
    game, pit = np.nonzero(legal)
    trial = board[game].copy()
    mover = player[game]
    _, slams = _apply(b, trial, mover, pit)
    r0, r1 = _row_totals(b, trial)
    feeds = np.zeros((len(board), n), np.bool_)
    slam = np.zeros((len(board), n), np.bool_)
    feeds[game, pit] = np.where(mover == 0, r1, r0) > 0
    slam[game, pit] = slams
    return feeds, slam


def _sweep(b: BatchRules, board: Seeds, terms: npt.NDArray[np.int8]) -> None:
    """As `Rules.apply_sweep` on ended games (a cycle always sweeps to the owner)."""
    n = b.n
    r0, r1 = _row_totals(b, board)
    kind = b.rules.options.end_sweep
    owner = terms == _CODE[Termination.CYCLE]
    if kind == "owner":
        owner[:] = True
    if kind == "emptier":
        one_empty = (r0 == 0) ^ (r1 == 0)
        emptier = np.where(r0 == 0, 0, 1)
        rows = np.nonzero(one_empty & ~owner)[0]
        board[rows, b.stores[emptier[rows]]] += r0[rows] + r1[rows]
        board[rows, :n] = 0
        board[rows, n + 1 : 2 * n + 1] = 0
        owner |= ~one_empty
    rows = np.nonzero(owner)[0]
    board[rows, b.stores[0]] += r0[rows]
    board[rows, b.stores[1]] += r1[rows]
    board[rows, :n] = 0
    board[rows, n + 1 : 2 * n + 1] = 0
