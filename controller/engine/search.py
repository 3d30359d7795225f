"""The computer player: a move for any position of any option set, at five levels.

Every move the engine considers comes from `Rules.legal_moves` and is played with
`Rules.apply_move`, `Rules.settle` and `Rules.apply_sweep`: the search never has rules of its
own, so closed pits, relays, must-feed, grand slams and every end rule are the referee's.

The levels (docs/engine.md has the table):

1. a random legal move: a young child can win;
2. flat Monte Carlo: each legal move scored by random playouts (`batch`), a few per move;
3. alpha-beta 3 moves deep;
4. alpha-beta, iterative deepening for a quarter of the think budget, at most 8 moves deep;
5. alpha-beta, iterative deepening for the whole think budget.

The alpha-beta scores a position by the difference of the stores (what every variant here is
won by); a finished game by its swept final stores, far beyond any store difference. An extra
turn is a move like any other: the same side simply moves again one level deeper.

>>> from controller.rules import Position, Rules
>>> rules = Rules.for_variant("kalah")
>>> best_move(Position.start(rules), rules, level=5, budget_s=0.2) in range(6)
True
>>> think(Position.start(rules), rules, level=3).depth
3
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from controller.rules import Position, Rules

from .batch import DRAW, BatchRules

WIN = 10_000  # a won game scores beyond any store difference
MAX_DEPTH = 64
_QUIET_DEPTH = 4  # captures and extra turns searched past the horizon, along one line
_EXTENSIONS = 8  # extra turns searched without using up depth, along one line


@dataclass(frozen=True)
class Level:
    """What a level does: `depth` for alpha-beta (0: none), `budget_share` of the think budget,
    `playouts` per legal move for flat Monte Carlo (0: none)."""

    number: int
    name: str
    depth: int
    budget_share: float
    playouts: int = 0


LEVELS: dict[int, Level] = {
    level.number: level
    for level in (
        Level(1, "random legal move", depth=0, budget_share=0.0),
        Level(2, "flat Monte Carlo, 24 random playouts a move", 0, 0.25, playouts=24),
        Level(3, "alpha-beta 3 moves deep", depth=3, budget_share=1.0),
        Level(4, "alpha-beta, a quarter of the budget, at most 8 deep", 8, 0.25),
        Level(5, "alpha-beta for the whole budget", depth=MAX_DEPTH, budget_share=1.0),
    )
}


@dataclass(frozen=True)
class Thought:
    """A chosen move and how it was found: `score` is the store difference the mover expects
    (from the search, 0 for levels without one), `depth` the deepest finished search."""

    pit: int
    score: float
    depth: int
    nodes: int
    elapsed_s: float


def best_move(
    position: Position,
    rules: Rules,
    level: int = 5,
    budget_s: float = 1.0,
    *,
    seed: int | None = None,
    max_nodes: int | None = None,
) -> int:
    """The pit the computer plays at `level` (1 to 5) within about `budget_s` seconds."""
    return think(position, rules, level, budget_s, seed=seed, max_nodes=max_nodes).pit


def hint(position: Position, rules: Rules, budget_s: float = 1.0) -> int:
    """The engine's best move for the player to move (level 5), for the hint button."""
    return best_move(position, rules, 5, budget_s, seed=0)


def think(
    position: Position,
    rules: Rules,
    level: int = 5,
    budget_s: float = 1.0,
    *,
    seed: int | None = None,
    max_nodes: int | None = None,
) -> Thought:
    """Choose a move for the player to move; ValueError if there is none (game over).

    `max_nodes` also stops the search after about that many nodes (checked every 1024): with a
    budget that never runs out, the same move whatever the machine's load (tests).
    """
    if level not in LEVELS:
        raise ValueError(f"level {level} does not exist, levels are 1 to {len(LEVELS)}")
    if position.to_move is None or position.over:
        raise ValueError("nobody is to move: the game is over or in its simultaneous opening")
    board = position.board(rules)
    player = position.to_move
    moves = rules.legal_moves(board, player)
    if not moves:
        raise ValueError("the player to move has no legal move")
    spec = LEVELS[level]
    started = time.perf_counter()
    rng = random.Random(seed)
    if spec.playouts:
        pit, score = _monte_carlo(rules, board, player, moves, spec.playouts, rng)
        return Thought(pit, score, 0, spec.playouts * len(moves), _since(started))
    if not spec.depth or len(moves) == 1:
        return Thought(rng.choice(moves) if not spec.depth else moves[0], 0.0, 0, 0, 0.0)
    deadline = started + budget_s * spec.budget_share
    search = _AlphaBeta(rules, deadline, sum(board), max_nodes)
    if spec.depth == MAX_DEPTH and max_nodes is None:  # a repeatable search starts afresh
        search.table = _kept_table(rules, search.total)
    pit, score, depth = search.iterate(board, player, moves, spec.depth)
    return Thought(pit, score, depth, search.nodes, _since(started))


# Level 5's transposition table is kept from one move to the next (the game's positions after
# the two moves played were searched then). A table of other rules, or grown past the limit
# (about 70 MB), starts again empty.
KEPT_ENTRIES = 200_000
_kept: dict[tuple[object, int], dict[tuple[int, ...], tuple[int, float, int, int]]] = {}


def _kept_table(rules: Rules, total: int) -> dict[tuple[int, ...], tuple[int, float, int, int]]:
    key = (rules.options, total)
    table = _kept.get(key)
    if table is None or len(table) > KEPT_ENTRIES:
        _kept.clear()
        table = _kept[key] = {}
    return table


def _since(started: float) -> float:
    return time.perf_counter() - started


# -- level 2: flat Monte Carlo ------------------------------------------------------------------


def _monte_carlo(
    rules: Rules,
    board: list[int],
    player: int,
    moves: Sequence[int],
    playouts: int,
    rng: random.Random,
) -> tuple[int, float]:
    """Each move played, then `playouts` random games from there: the best win rate wins."""
    batch = BatchRules(rules, sum(board))
    starts: list[list[int]] = []
    to_move: list[int] = []
    scores: dict[int, float] = {}
    going: list[int] = []  # moves that do not end the game: scored by playouts
    for pit in moves:
        child = list(board)
        extra = rules.apply_move(child, player, pit)
        settlement = rules.settle(child, player if extra else 1 - player)
        if settlement.termination is not None:
            rules.apply_sweep(child, settlement.termination)
            scores[pit] = playouts * _result(rules, child, player)
            continue
        assert settlement.to_move is not None
        going.append(pit)
        starts.extend([child] * playouts)
        to_move.extend([settlement.to_move] * playouts)
    if starts:
        result = batch.playouts(
            batch.boards_from(starts), np.array(to_move), seed=rng.randrange(2**32)
        )
        won = result.winners == player
        points = np.where(won, 1.0, np.where(result.winners == DRAW, 0.5, 0.0))
        for k, pit in enumerate(going):
            scores[pit] = float(points[k * playouts : (k + 1) * playouts].sum())
    best = max(scores.values())
    pit = rng.choice([pit for pit in moves if scores[pit] == best])
    return pit, best / playouts


def _result(rules: Rules, board: Sequence[int], player: int) -> float:
    """1 for a win of `player`, 0.5 a draw, 0 a loss (on a finished, swept board)."""
    mine, theirs = board[rules.stores[player]], board[rules.stores[1 - player]]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


# -- levels 3 to 5: alpha-beta ------------------------------------------------------------------


class _OutOfTime(Exception):
    """The think budget ran out in the middle of a search."""


_EXACT, _LOWER, _UPPER = 0, 1, 2


class _AlphaBeta:
    """Negamax with alpha-beta, a transposition table and iterative deepening."""

    def __init__(
        self, rules: Rules, deadline: float, total: int, max_nodes: int | None = None
    ) -> None:
        self.rules = rules
        self.deadline = deadline
        self.max_nodes = max_nodes if max_nodes is not None else float("inf")
        self.nodes = 0
        self.extensions = 0
        options = rules.options
        self.end = options.end
        self.must_feed = options.must_feed
        n = rules.n
        self.rows = (slice(0, n), slice(n + 1, 2 * n + 1))
        self.stores = rules.stores
        self.foretell = options.laps == "single"
        self.extra_turn = options.extra_turn
        self.counts = frozenset(options.capture_counts)
        self.capture = options.capture
        self.row_of = rules.row_of.get
        self.opposite = rules.opposite
        # Must-feed and forbidden grand slams can make a sowable pit illegal.
        self.filtered = options.must_feed or options.grand_slam == "forbidden"
        self.total = total  # seeds in the game: a handicap round may not hold the usual
        self.single = options.laps == "single"
        n1 = n + 1
        # Each player's (pit, flat index, lap from there) in pit order: a single lap's places.
        self.laps = tuple(
            tuple((i, p * n1 + i, rules.lap_sequences[p].get(p * n1 + i, ())) for i in range(n))
            for p in (0, 1)
        )
        self.history = ([0] * n, [0] * n)  # cut-offs by move, weighted by depth
        # (board, player) -> (depth, score, bound, best pit)
        self.table: dict[tuple[int, ...], tuple[int, float, int, int]] = {}

    def iterate(
        self, board: list[int], player: int, moves: list[int], max_depth: int
    ) -> tuple[int, float, int]:
        """Deeper and deeper until the budget is spent; the last finished search decides,
        unless the unfinished one already found a move better than that search's choice."""
        best, score, reached = moves[0], 0.0, 0
        for depth in range(1, max_depth + 1):
            self.partial: tuple[int, float] | None = None
            try:
                best, score = self._root(board, player, moves, depth, best)
            except _OutOfTime:
                if self.partial is not None:
                    best, score = self.partial
                break
            reached = depth
            if abs(score) >= WIN:
                break  # the game's end is within reach: deeper cannot change the verdict
        return best, score, reached

    def _root(
        self, board: list[int], player: int, moves: list[int], depth: int, first: int
    ) -> tuple[int, float]:
        """The best move searched `depth` deep; the previous best is searched first, so any
        move found better during the search is better at this depth (`partial`)."""
        ordered = [first, *(m for m in moves if m != first)]
        alpha, best = -float("inf"), first
        for k, pit in enumerate(ordered):
            if k:
                score = self._scout(board, player, pit, depth, alpha, float("inf"))
            else:
                score = self._child(board, player, pit, depth, alpha, float("inf"))
            if score > alpha:
                alpha, best = score, pit
            self.partial = best, alpha
        return best, alpha

    def _child(
        self, board: list[int], player: int, pit: int, depth: int, alpha: float, beta: float
    ) -> float:
        """The score for `player` of playing `pit`, searched `depth - 1` further.

        An extra turn does not count as a level: a side's chain of store landings is one move
        in spirit, and cutting it off at the horizon misjudges it badly (at most `_EXTENSIONS`
        of them along a line, as congkak can chain many).
        """
        child, following = self._play(board, player, pit)
        if following is None:
            return self._final(child, player)
        if following == player:
            extend = self.extensions < _EXTENSIONS
            self.extensions += extend
            try:
                return self._negamax(child, player, depth - (not extend), alpha, beta)
            finally:
                self.extensions -= extend
        return -self._negamax(child, following, depth - 1, -beta, -alpha)

    def _play(self, board: list[int], player: int, pit: int) -> tuple[list[int], int | None]:
        """The board after `pit` and who moves next (None: the game is over, board swept).

        `Rules.settle` decides; the plain case (the game goes on and the candidate can move)
        is tested inline first, as `core.random_playout` does.
        """
        rules = self.rules
        child = list(board)
        if self.single:
            extra = self._single_lap(child, player, pit)
        else:
            extra = rules.apply_move(child, player, pit)
        candidate = player if extra else 1 - player
        here = sum(child[self.rows[candidate]])
        there = sum(child[self.rows[1 - candidate]])
        end = self.end
        if end == "side_empty":
            ended = not here or not there
        elif end == "all_pits_empty":
            ended = not here and not there
        else:
            s0, s1 = child[self.stores[0]], child[self.stores[1]]
            ended = 2 * s0 > self.total or 2 * s1 > self.total or 2 * s0 == 2 * s1 == self.total
        if ended or not here or (self.must_feed and not there):
            settlement = rules.settle(child, candidate)
            if settlement.termination is not None:
                rules.apply_sweep(child, settlement.termination)
                return child, None
            return child, settlement.to_move
        return child, candidate

    def _single_lap(self, board: list[int], player: int, pit: int) -> bool:
        """`Rules.apply_move` for single laps, inline (the search's hot path; the tests hold
        the two to each other): True when the move earns an extra turn."""
        _, start, lap = self.laps[player][pit]
        seeds = board[start]
        board[start] = 0
        length = len(lap)
        if seeds <= length:
            for idx in lap[:seeds]:
                board[idx] += 1
            last = lap[seeds - 1]
        else:
            rounds, rest = divmod(seeds, length)
            for idx in lap:
                board[idx] += rounds
            for idx in lap[:rest]:
                board[idx] += 1
            last = lap[rest - 1] if rest else lap[-1]
        store = self.stores[player]
        if last == store:
            return self.extra_turn
        for idx in self.rules.capture_places(board, player, last):
            board[store] += board[idx]
            board[idx] = 0
        return False

    def _negamax(
        self, board: list[int], player: int, depth: int, alpha: float, beta: float
    ) -> float:
        self.nodes += 1
        if not self.nodes & 1023 and (
            self.nodes >= self.max_nodes or time.perf_counter() > self.deadline
        ):
            raise _OutOfTime
        if depth <= 0:
            return self._quiet(board, player, alpha, beta, _QUIET_DEPTH)
        key = (*board, player)
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            seen_depth, seen, bound, first = entry
            if seen_depth >= depth and (
                bound == _EXACT
                or (bound == _LOWER and seen >= beta)
                or (bound == _UPPER and seen <= alpha)
            ):
                return seen
        moves = self._ordered(board, player, first, depth)
        start_alpha, best_score, best = alpha, -float("inf"), moves[0]
        for k, pit in enumerate(moves):
            if k:  # (alpha is a score now)
                score = self._scout(board, player, pit, depth, alpha, beta)
            else:
                score = self._child(board, player, pit, depth, alpha, beta)
            if score > best_score:
                best_score, best = score, pit
                alpha = max(alpha, score)
                if alpha >= beta:
                    self.history[player][pit] += depth * depth
                    break
        bound = _LOWER if best_score >= beta else _UPPER if best_score <= start_alpha else _EXACT
        self.table[key] = (depth, best_score, bound, best)
        return best_score

    def _scout(
        self, board: list[int], player: int, pit: int, depth: int, alpha: float, beta: float
    ) -> float:
        """A move after the first (principal variation search): first only asked whether it
        beats `alpha` (a null window: scores are whole numbers), searched in full if so."""
        score = self._child(board, player, pit, depth, alpha, alpha + 1)
        if alpha < score < beta:
            score = self._child(board, player, pit, depth, alpha, beta)
        return score

    def _ordered(self, board: list[int], player: int, first: int, depth: int) -> list[int]:
        """Legal moves, best first: the table's best move, then (away from the horizon, where
        the ordering pays for itself) extra turns and captures, by the order of `_noisy`, then
        the others by how often they cut the search off before (the history heuristic)."""
        if depth >= 2:
            noisy = self._noisy(board, player)
            quiet = [m for m in self.rules.legal_moves(board, player) if m not in noisy]
            quiet.sort(key=self.history[player].__getitem__, reverse=True)
            moves = noisy + quiet
        else:
            moves = self.rules.legal_moves(board, player)
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def _evaluate(self, board: list[int], player: int) -> float:
        """A position's worth to `player`: the store difference."""
        stores = self.stores
        return board[stores[player]] - board[stores[1 - player]]

    def _quiet(self, board: list[int], player: int, alpha: float, beta: float, depth: int) -> float:
        """Past the horizon, only captures and extra turns are searched (a quiescence search):
        the side to move may also stand on the position as it is."""
        best = self._evaluate(board, player)
        if best >= beta or not depth:
            return best
        alpha = max(alpha, best)
        for pit in self._noisy(board, player):
            self.nodes += 1
            child, following = self._play(board, player, pit)
            if following is None:
                score = self._final(child, player)
            elif following == player:
                score = self._quiet(child, player, alpha, beta, depth - 1)
            else:
                score = -self._quiet(child, following, -beta, -alpha, depth - 1)
            if score > best:
                best = score
                alpha = max(alpha, score)
                if alpha >= beta:
                    break
        return best

    def _noisy(self, board: list[int], player: int) -> list[int]:
        """The legal moves whose single lap ends in the own store (an extra turn) or where a
        capture may follow; none for relays, whose end no table foretells."""
        if not self.foretell:
            return []
        own_store = self.stores[player]
        capture = self.capture
        row_of = self.row_of
        noisy = []
        for pit, start, lap in self.laps[player]:
            seeds = board[start]
            if not seeds:
                continue
            last = lap[(seeds - 1) % len(lap)]
            if last == own_store:
                noisy.append(pit)
            elif seeds >= len(lap):
                continue  # the lap comes round: its last pit is not what it was
            elif capture == "opposite":
                if row_of(last) == player and not board[last] and board[self.opposite[last]]:
                    noisy.append(pit)
            elif (
                capture == "counts"
                and row_of(last) == 1 - player
                and board[last] + 1 in self.counts
            ):
                noisy.append(pit)
        if noisy and self.filtered:
            legal = self.rules.legal_moves(board, player)
            return [pit for pit in noisy if pit in legal]
        return noisy

    def _final(self, board: Sequence[int], player: int) -> float:
        """A finished game: a win or loss beyond any store difference, by how much."""
        diff = board[self.rules.stores[player]] - board[self.rules.stores[1 - player]]
        return diff + (WIN if diff > 0 else -WIN if diff < 0 else 0)
