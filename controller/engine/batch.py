"""Random playouts of many games at once, on numpy arrays: the engine's fast path.

`Rules.apply_move` sows one seed at a time in Python; a search wants millions of moves a
second. Here every game of a batch is a row of one array and each move of every game is a
handful of array operations:

- a lap is one table look-up: a row of `sow` is the whole change a lap of `seeds` seeds from
  `start` makes to the board (the lifted pit included), `last` says where it ends. Relays
  (congkak) repeat the look-up for the games whose last seed fell in a full pit;
- the boards are float32 (exact for whole numbers far beyond any game): row totals, stores,
  the pits of the player to move and the random choice among them are products with small
  0/1 matrices, which BLAS (on one thread) does many times faster than numpy's reductions
  over short rows; single places are read and written through the flat array (`np.take`,
  `np.put`);
- captures, turn order, passes, the end rules and sweeps are masks over the batch;
- must-feed and forbidden grand slams are decided by trying every pit on copies of the boards,
  exactly as `Rules.legal_moves` does one at a time (must-feed by a table where the lap alone
  decides);
- the `cycle` rule keeps, per game, exact keys of the positions seen since the stores last
  changed, behind a Bloom filter. A game that goes longer than `HISTORY` moves without a
  capture is finished by the per-move engine (`Game`) from its exact history: rare (1 random
  oware game in 500), and always the same rules.

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
from threadpoolctl import threadpool_limits

from controller.rules import Game, Position, PositionHistory, Rules, Termination

Ints = npt.NDArray[np.int64]
Seeds = npt.NDArray[np.int16]  # boards given and returned: 16 bits hold any game
Board = npt.NDArray[np.float32]  # boards while playing
Floats = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]

DRAW = 2  # `winners` entry of a drawn game
# Positions kept per game for the cycle rule. Most games capture every few moves (which clears
# it); one that goes on longer without leaves the batch for the per-move fast path.
HISTORY = 128  # random oware: 1 game in 500 goes longer
_LENGTH_CLASSES = (4, 16, 48, HISTORY)
_RECENT = 16  # entries of a history kept in the small array
_BLOOM_WORDS = 4  # 256 bits a game: with 20 positions, 1 new one in 13 needs a compare
CYCLE_CHUNK = 16384  # games played together when the cycle rule keeps histories (34 MB)

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
        self._build_matrices()
        self.counts_mask = np.zeros(self.total + 2, np.bool_)
        for c in options.capture_counts:
            if c <= self.total:
                self.counts_mask[c] = True
        self._build_packing()

    # -- tables ---------------------------------------------------------------------------------

    def code(self, player: Ints, start: Ints, seeds: Ints) -> Ints:
        """The row of `sow` and `last` for a lap of `seeds` seeds of `player` from `start`."""
        code: Ints = (player * self.width + start) * (self.total + 1) + seeds
        return code

    def _build_sowing(self) -> None:
        """`sow[code]`: the change a lap makes to the board; `last[code]`: where it ends."""
        rules, width, total = self.rules, self.width, self.total
        seeds = np.arange(total + 1)
        sow = np.zeros((2, width, total + 1, width), np.float32)
        last = np.full((2, width, total + 1), self.spare, np.int64)
        for p in (0, 1):
            for start, seq in rules.lap_sequences[p].items():
                length = len(seq)
                order = np.arange(length)
                # Place k of the lap gets one seed per time round the lap that reaches it.
                drops = np.maximum(0, (seeds[:, None] - order[None, :] + length - 1) // length)
                table = sow[p, start]  # (seeds, places), a view
                table[:, list(seq)] = drops
                table[:, start] -= seeds
                last[p, start, 1:] = np.array(seq)[(seeds[1:] - 1) % length]
        self.sow = sow.reshape(-1, width)
        self.last = last.reshape(-1)
        # Does the lap drop a seed in the opponent's row? With single laps and no capture
        # that can empty that row again, that is whether the move feeds a starving opponent.
        reaches = np.stack(
            [(sow[p][..., list(rules.rows[1 - p])] > 0).any(axis=-1) for p in (0, 1)]
        )
        self.reaches = reaches.reshape(-1)
        options = rules.options
        self.feeds_by_table = options.laps == "single" and (
            options.capture == "none"
            or (options.capture == "counts" and options.grand_slam != "allowed")
        )

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

    def _build_matrices(self) -> None:
        """0/1 matrices: board @ totals = (row 0, row 1, store 0, store 1); board @ pits = both
        rows' pits; legal @ upto = running count of open pits; legal @ ones = their number."""
        n, width = self.n, self.width
        self.totals = np.zeros((width, 4), np.float32)
        self.pits = np.zeros((width, 2 * n), np.float32)
        for p in (0, 1):
            self.totals[self.pit_index[p], p] = 1
            self.totals[self.stores[p], 2 + p] = 1
            self.pits[self.pit_index[p], np.arange(n) + p * n] = 1
        self.upto = np.triu(np.ones((n, n), np.float32))
        self.ones = np.ones(n, np.float32)

    def _build_packing(self) -> None:
        """Exact keys of positions for the cycle rule: pits and the player to move.

        Within one history the stores do not change, so neither does the number of seeds in
        the pits: the last pit follows from the others. When the other pits fit one int64 in
        base `total + 1` (oware does, just), a key is that one word, made from two float64
        products (each exact); otherwise it is a few words of 52 bits, `pack_bits` a place.
        """
        radix = self.total + 1
        self.key_fields = [*self.pit_index[0], *self.pit_index[1][:-1]]
        fields = len(self.key_fields)
        self.key_radix = radix if 2 * radix**fields < 2**63 else 0
        if self.key_radix:
            low = max(k for k in range(fields + 1) if radix**k < 2**53)
            self.key_split = radix**low
            self.pack = np.zeros((self.width, 2), np.float64)
            for j, idx in enumerate(self.key_fields):
                self.pack[idx, int(j >= low)] = float(radix ** (j if j < low else j - low))
            self.key_words = 1
            return
        bits = max(1, self.total.bit_length())
        per_word = max(1, 52 // bits)
        places = [*self.pit_index[0], *self.pit_index[1], self.spare]  # spare: the player
        self.pack_groups = [places[i : i + per_word] for i in range(0, len(places), per_word)]
        self.pack_bits = bits
        self.pack = np.zeros((self.width, len(self.pack_groups)), np.float64)
        for w, group in enumerate(self.pack_groups):
            for j, idx in enumerate(group):
                self.pack[idx, w] = 2.0 ** (bits * j)
        self.pack_player = self.pack[self.spare].copy()
        self.pack[self.spare] = 0
        self.key_words = len(self.pack_groups)

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
        # The matrices are small: BLAS threads cost more to wake than they save, the more so
        # on a busy Pi (three times slower on a loaded two-CPU PC).
        with threadpool_limits(1, "blas"):
            if self.rules.options.cycle == "none" or len(boards) <= CYCLE_CHUNK:
                return _Run(self, boards.astype(np.float32), to_move, rng, record).play()
            # Histories are written all over memory: in chunks they stay in the caches.
            parts = [
                _Run(self, boards[k : k + CYCLE_CHUNK].astype(np.float32),
                     np.asarray(to_move)[k : k + CYCLE_CHUNK], rng, record).play()
                for k in range(0, len(boards), CYCLE_CHUNK)
            ]  # fmt: skip
            return _joined(parts)


def _joined(parts: list[BatchResult]) -> BatchResult:
    played = None
    if all(part.played is not None for part in parts):
        played = [moves for part in parts for moves in part.played or []]
    return BatchResult(
        np.concatenate([part.boards for part in parts]),
        np.concatenate([part.winners for part in parts]),
        np.concatenate([part.terminations for part in parts]),
        np.concatenate([part.moves for part in parts]),
        played,
    )


class _Run:
    """The state of one batch of playouts: the games still going, compacted as they end."""

    def __init__(
        self,
        batch: BatchRules,
        boards: Board,
        to_move: npt.NDArray[np.integer],
        rng: np.random.Generator,
        record: bool,
    ) -> None:
        self.b = batch
        self.rng = rng
        count = len(boards)
        self.out_boards = boards.astype(np.int16)
        self.out_winners = np.zeros(count, np.int8)
        self.out_terms = np.zeros(count, np.int8)
        self.out_moves = np.zeros(count, np.int64)
        self.played: list[list[int]] | None = [[] for _ in range(count)] if record else None
        self.py_random = random.Random(int(rng.integers(2**62))).random  # for `Game`
        self.board = np.ascontiguousarray(boards)
        self.player = np.asarray(to_move, np.int64).copy()
        self.ids = np.arange(count)
        self.moves = np.zeros(count, np.int64)
        self.cycle = batch.rules.options.cycle != "none"
        if self.cycle:
            # By game id, a row of entries a game: rows are compacted as games end, these
            # are not.
            # The first `_RECENT` entries apart: most histories are short, and that smaller
            # array stays in the caches while every game writes to it.
            recent = min(_RECENT, HISTORY)
            self.recent = np.zeros((batch.key_words, count, recent), np.int64)
            self.older = np.zeros((batch.key_words, count, HISTORY - recent), np.int64)
            # By row: lengths, stored seeds, Bloom filters.
            self.hist_len = np.zeros(count, np.int64)
            self.bloom = np.zeros((count, _BLOOM_WORDS), np.uint64)
            self.hist_stored = _stored(batch, self.board)
            self._remember(self.hist_stored.copy())
        self.legal = _legal(batch, self.board, self.player, _totals(batch, self.board))
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
        totals = _totals(self.b, self.board)
        terms = self._settle(candidate, totals)
        if self.cycle:
            self._cycle_check(terms, totals)
        done = terms >= 0
        if done.any():
            self._finish(done, terms)

    def _choose(self, legal: Bools) -> Ints:
        """A uniformly random legal pit per game: the r-th open choice of each row."""
        b = self.b
        open_pits = legal.astype(np.float32)
        r = np.floor(self.rng.random(len(legal), np.float32) * (open_pits @ b.ones))
        before = (open_pits @ b.upto <= r[:, None]).astype(np.float32)
        pits: Ints = (before @ b.ones).astype(np.int64)
        return pits

    def _settle(self, candidate: Ints, totals: Floats) -> npt.NDArray[np.int8]:
        """As `Rules.settle`: the next player, or a termination code (-1: the game goes on).

        `totals`: each board's (row 0, row 1, store 0, store 1)."""
        b, board = self.b, self.board
        options = b.rules.options
        r0, r1 = totals[:, 0], totals[:, 1]
        end = options.end
        if end == "side_empty":
            ended, code = (r0 == 0) | (r1 == 0), _CODE[Termination.SIDE_EMPTY]
        elif end == "all_pits_empty":
            ended, code = (r0 == 0) & (r1 == 0), _CODE[Termination.ALL_PITS_EMPTY]
        else:
            s0, s1 = totals[:, 2], totals[:, 3]
            total = r0 + r1 + s0 + s1
            ended = (2 * s0 > total) | (2 * s1 > total) | ((s0 == s1) & (2 * s0 == total))
            code = _CODE[Termination.MAJORITY]
        terms = np.where(ended, code, np.int8(-1))
        here = _row_of(totals, candidate)
        if options.no_move == "end":
            stuck = ~ended & (here == 0)
            player = candidate
        else:
            stuck = ~ended & (here == 0) & (_row_of(totals, 1 - candidate) == 0)
            player = np.where(here == 0, 1 - candidate, candidate)
        terms = np.where(stuck, _CODE[Termination.NO_MOVE], terms)
        self.player = player
        self.legal = _legal(b, board, player, totals)
        if options.must_feed:
            # Only a starving opponent's mover can be left without a move.
            theirs = _row_of(totals, 1 - player)
            hungry = np.nonzero((theirs == 0) & (terms < 0))[0]
            stuck = hungry[~self.legal[hungry].any(axis=1)]
            terms[stuck] = _CODE[Termination.CANNOT_FEED]
        return terms

    # -- the cycle rule -------------------------------------------------------------------------

    def _pack(self) -> Ints:
        """Exact keys of the positions (see `BatchRules._build_packing`), a row a game."""
        b = self.b
        parts = self.board @ b.pack
        if b.key_radix:
            low, high = parts[:, 0].astype(np.int64), parts[:, 1].astype(np.int64)
            key: Ints = ((high * b.key_split + low) * 2 + self.player)[:, None]
            return key
        keys: Ints = (parts + self.player[:, None] * b.pack_player).astype(np.int64)
        return keys

    def _remember(self, stored: Ints) -> tuple[Bools, Bools]:
        """As `PositionHistory.remember` for every game (`stored`: seeds in its stores):
        (the position repeats, the history is full).

        A history's packed keys are kept by game id (never compacted), a row of entries a
        game. A 256-bit Bloom filter per game says at once that most positions are new; for the
        others the first words are compared over only as many entries as the games of a length
        class hold, and the other words where the first is equal.
        """
        ids, lengths = self.ids, self.hist_len
        changed = stored != self.hist_stored
        lengths[changed] = 0
        self.bloom[changed] = 0
        self.hist_stored = stored
        keys = self._pack()
        spread = keys[:, 0] * np.int64(-7046029254386353131)  # odd: mixes the bits upwards
        for w in range(1, keys.shape[1]):
            spread += keys[:, w] * np.int64(-4658895280553007687)
        bits = np.left_shift(np.uint64(1), (spread >> 58).astype(np.uint64) & np.uint64(63))
        word = np.arange(len(ids)) * _BLOOM_WORDS + ((spread >> 52) & (_BLOOM_WORDS - 1))
        bloom = self.bloom.reshape(-1)
        maybe = (np.take(bloom, word) & bits) != 0
        repeat = np.zeros(len(ids), np.bool_)
        low = 0
        for cap in _LENGTH_CLASSES:
            cls = np.nonzero(maybe & (lengths > low) & (lengths <= cap))[0]
            low = cap
            if not len(cls):
                continue
            recent = self.recent.shape[2]
            for store, first, size in (
                (self.recent, 0, min(cap, recent)),
                (self.older, recent, cap - recent),
            ):
                if size <= 0:
                    continue
                hits = store[0][ids[cls], :size] == keys[cls, 0][:, None]
                hits &= np.arange(first, first + size)[None, :] < lengths[cls, None]
                k, j = np.nonzero(hits)
                same = np.ones(len(k), np.bool_)
                for w in range(1, keys.shape[1]):
                    same &= store[w, ids[cls[k]], j] == keys[cls[k], w]
                repeat[cls[k[same]]] = True
        full = ~repeat & (lengths >= HISTORY)
        put = ~repeat & ~full
        for store, first in ((self.recent, 0), (self.older, self.recent.shape[2])):
            size = store.shape[2]
            here = put & (lengths >= first) & (lengths < first + size)
            slots = ids[here] * size + lengths[here] - first
            for w in range(keys.shape[1]):
                np.put(store[w].reshape(-1), slots, keys[here, w])
        np.put(bloom, word[put], np.take(bloom, word[put]) | bits[put])
        lengths[put] += 1
        return repeat, full

    def _key(self, row: int) -> tuple[int, ...]:
        """`PositionHistory`'s key of a game's position now."""
        board = [int(seeds) for seeds in self.board[row, : self.b.rules.size]]
        return (*board, int(self.player[row]))

    def _entries(self, row: int) -> list[tuple[int, ...]]:
        """The positions of a game's history as `PositionHistory` keys (the stores are those
        of now: they have not changed since the history began)."""
        now = self._key(row)
        game_id = int(self.ids[row])
        recent = self.recent.shape[2]
        return [
            self._unpack(
                (
                    self.recent[:, game_id, k] if k < recent else self.older[:, game_id, k - recent]
                ).tolist(),
                now,
            )
            for k in range(int(self.hist_len[row]))
        ]

    def _unpack(self, words: list[int], now: tuple[int, ...]) -> tuple[int, ...]:
        b = self.b
        key = list(now)
        if b.key_radix:
            word = words[0]
            key[-1], word = word & 1, word >> 1
            for idx in b.key_fields:
                word, key[int(idx)] = divmod(word, b.key_radix)
            pits = sum(now[int(idx)] for idx in [*b.key_fields, b.pit_index[1][-1]])
            key[int(b.pit_index[1][-1])] = pits - sum(key[int(idx)] for idx in b.key_fields)
            return tuple(key)
        mask = (1 << b.pack_bits) - 1
        for word, group in zip(words, b.pack_groups, strict=True):
            for j, idx in enumerate(group):
                key[int(idx)] = (word >> (b.pack_bits * j)) & mask
        return tuple(key)

    def _cycle_check(self, terms: npt.NDArray[np.int8], totals: Floats) -> None:
        """Games whose position came before end (`terms`); games whose history is full are
        finished by `Game` (only the positions of going games are remembered: the ended ones
        leave the batch)."""
        stored = (totals[:, 2] + totals[:, 3]).astype(np.int64)
        repeat, full = self._remember(stored)
        going = terms < 0
        terms[going & repeat] = _CODE[Termination.CYCLE]
        for row in np.nonzero(going & full)[0].tolist():
            self._finish_one_by_one(row)
            terms[row] = 100  # finished by `Game`: only to be taken out of the batch

    def _finish_one_by_one(self, row: int) -> None:
        """Hand a game with a long history to the per-move engine, history and all: its fast
        path, or move by move when the moves are recorded."""
        b, rules = self.b, self.b.rules
        key = self._key(row)
        board, player = list(key[:-1]), key[-1]
        game = Game(rules, start=Position.from_board(rules, board, player))
        history = PositionHistory()
        history.stored = int(self.hist_stored[row])
        history.seen = {*self._entries(row), key}
        game.history = history
        game_id = int(self.ids[row])
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

    # -- the end of a game ----------------------------------------------------------------------

    def _finish(self, done: Bools, terms: npt.NDArray[np.int8]) -> None:
        b = self.b
        rows = np.nonzero(done & (terms < 100))[0]
        board = np.take(self.board, rows, axis=0)
        _sweep(b, board, terms[rows])
        totals = _totals(b, board)
        s0, s1 = totals[:, 2], totals[:, 3]
        ids = self.ids[rows]
        self.out_boards[ids] = board
        self.out_winners[ids] = np.where(s0 > s1, 0, np.where(s1 > s0, 1, DRAW))
        self.out_terms[ids] = terms[rows]
        self.out_moves[ids] = self.moves[rows]
        keep = np.nonzero(~done)[0]
        self.board = np.take(self.board, keep, axis=0)
        self.player = np.take(self.player, keep)
        self.legal = np.take(self.legal, keep, axis=0)
        self.ids = np.take(self.ids, keep)
        self.moves = np.take(self.moves, keep)
        if self.cycle:
            self.hist_len = np.take(self.hist_len, keep)
            self.hist_stored = np.take(self.hist_stored, keep)
            self.bloom = np.take(self.bloom, keep, axis=0)


# -- whole moves on many boards ---------------------------------------------------------------


def _totals(b: BatchRules, board: Board) -> Floats:
    """(row 0, row 1, store 0, store 1) of every board."""
    totals: Floats = board @ b.totals
    return totals


def _row_of(totals: Floats, player: Ints) -> Floats:
    """The seeds in `player`'s row, from `_totals`."""
    row: Floats = np.take(totals.reshape(-1), np.arange(len(totals)) * 4 + player)
    return row


def _stored(b: BatchRules, board: Board) -> Ints:
    totals = _totals(b, board)
    stored: Ints = (totals[:, 2] + totals[:, 3]).astype(np.int64)
    return stored


def _at(board: Board, places: Ints, rows: Ints | None = None) -> Floats:
    """board[row, place] for each row (all rows, or `rows`), through the flat array."""
    width = board.shape[1]
    base = np.arange(len(board)) * width if rows is None else rows * width
    values: Floats = np.take(board.reshape(-1), base + places)
    return values


def _put(board: Board, rows: Ints, places: Ints, values: Floats | float) -> None:
    np.put(board.reshape(-1), rows * board.shape[1] + places, values)


def _legal(b: BatchRules, board: Board, player: Ints, totals: Floats) -> Bools:
    """As `Rules.legal_moves`, as a mask of pits per game (`totals`: as `_totals`)."""
    options = b.rules.options
    n = b.n
    both = (board @ b.pits).reshape(-1, n)  # player 0's pits, player 1's, row by row
    mine = np.take(both, np.arange(len(board)) * 2 + player, axis=0)
    legal: Bools = mine > 0
    if options.must_feed:
        theirs = np.where(player == 0, totals[:, 1], totals[:, 0])
        hungry = np.nonzero(theirs == 0)[0]
        if len(hungry) and b.feeds_by_table:
            starts = b.pit_index[player[hungry]]
            seeds = mine[hungry].astype(np.int64)
            legal[hungry] &= b.reaches[b.code(player[hungry][:, None], starts, seeds)]
        elif len(hungry):
            feeds, _ = _try_every_pit(b, board[hungry], player[hungry], legal[hungry])
            legal[hungry] &= feeds
    if options.grand_slam == "forbidden" and options.capture == "counts":
        _, slams = _try_every_pit(b, board, player, legal)
        fair = legal & ~slams
        keep = fair.any(axis=1)
        legal[keep] = fair[keep]
    return legal


def _apply(b: BatchRules, board: Board, player: Ints, pits: Ints) -> tuple[Bools, Bools]:
    """As `Rules.apply_move` on every row (in place): (extra turn, would be a grand slam).

    "Would be a grand slam" is `Rules._would_grand_slam`: the capture run takes every seed of
    the opponent's row (whether or not the options then let it capture).
    """
    start = player * (b.n + 1) + pits
    code = b.code(player, start, _at(board, start).astype(np.int64))
    board += np.take(b.sow, code, axis=0)
    last: Ints = np.take(b.last, code)
    own_store = b.stores[player]
    if b.rules.options.laps == "relay":
        # A relay goes on from a pit that held seeds before the last one fell.
        going = np.nonzero((last != own_store) & (_at(board, last) > 1))[0]
        while len(going):
            seeds = _at(board, last[going], going).astype(np.int64)
            code = b.code(player[going], last[going], seeds)
            board[going] += np.take(b.sow, code, axis=0)
            last[going] = np.take(b.last, code)
            going = going[(last[going] != own_store[going]) & (_at(board, last[going], going) > 1)]
    in_store = last == own_store
    capture = b.rules.options.capture
    slams = np.zeros(len(board), np.bool_)
    if capture == "opposite":
        _capture_opposite(b, board, player, last, in_store)
    elif capture == "counts":
        slams = _capture_counts(b, board, player, last)
    return in_store & b.rules.options.extra_turn, slams


def _capture_opposite(
    b: BatchRules, board: Board, player: Ints, last: Ints, in_store: Bools
) -> None:
    hit = ~in_store & np.take(b.own_row.reshape(-1), player * b.width + last)
    hit &= _at(board, last) == 1
    rows = np.nonzero(hit)[0]
    if not len(rows):
        return
    player, last = player[rows], last[rows]
    opposite = b.opposite[last]
    seeds = _at(board, opposite, rows)
    if b.rules.options.capture_requires_opposite:
        keep = seeds > 0
        rows, player, last, opposite, seeds = (
            rows[keep],
            player[keep],
            last[keep],
            opposite[keep],
            seeds[keep],
        )
    stores = b.stores[player]
    _put(board, rows, stores, _at(board, stores, rows) + seeds + 1)
    _put(board, rows, last, 0.0)
    _put(board, rows, opposite, 0.0)


def _capture_counts(b: BatchRules, board: Board, player: Ints, last: Ints) -> Bools:
    """Oware's capture on every row; returns where the run would take the whole opposing row.

    Most last seeds capture nothing: the run is only walked where the last pit itself counts.
    """
    slams = np.zeros(len(board), np.bool_)
    first = b.back[player, last, 0]  # the last pit, or the spare column if not the opponent's
    counted = b.counts_mask[np.minimum(_at(board, first), b.total + 1).astype(np.int64)]
    rows = np.nonzero(counted)[0]
    if not len(rows):
        return slams
    player = player[rows]
    walk = b.back[player, last[rows]]  # (games, n): the pits the run may take, in order
    flat = (rows * board.shape[1])[:, None] + walk
    seeds = np.take(board.reshape(-1), flat)
    counts = np.minimum(seeds, b.total + 1).astype(np.int64)
    run = np.logical_and.accumulate(b.counts_mask[counts], axis=1)
    taken = (seeds * run) @ b.ones
    totals = _totals(b, np.take(board, rows, axis=0))
    slam = taken == np.where(player == 0, totals[:, 1], totals[:, 0])
    slams[rows] = slam
    go = ~slam if b.rules.options.grand_slam != "allowed" else np.ones(len(rows), np.bool_)
    if go.any():
        rows, player, taken, flat, run = rows[go], player[go], taken[go], flat[go], run[go]
        stores = b.stores[player]
        _put(board, rows, stores, _at(board, stores, rows) + taken)
        np.put(board.reshape(-1), flat[run], 0.0)
    return slams


def _try_every_pit(b: BatchRules, board: Board, player: Ints, legal: Bools) -> tuple[Bools, Bools]:
    """Each open pit played on a copy: (does it feed the opponent, would it be a grand slam)."""
    n = b.n
    game, pit = np.nonzero(legal)
    trial = np.take(board, game, axis=0)
    mover = player[game]
    _, slams = _apply(b, trial, mover, pit)
    totals = _totals(b, trial)
    feeds = np.zeros((len(board), n), np.bool_)
    slam = np.zeros((len(board), n), np.bool_)
    feeds[game, pit] = np.where(mover == 0, totals[:, 1], totals[:, 0]) > 0
    slam[game, pit] = slams
    return feeds, slam


def _sweep(b: BatchRules, board: Board, terms: npt.NDArray[np.int8]) -> None:
    """As `Rules.apply_sweep` on ended games (a cycle always sweeps to the owner)."""
    n = b.n
    totals = _totals(b, board)
    r0, r1 = totals[:, 0], totals[:, 1]
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
