"""The computer opponent and the hint in the daemon: the engine (controller/engine) thinks in
a process of its own, beside the loop, and the loop only ever looks whether it has answered.

The engine's search is pure Python and numpy and holds the interpreter for the whole think
budget: in a thread of the daemon it would take the interpreter from the loop every few
milliseconds for a second at a time. In its own process (started once, kept, at a lower
priority than the loop) it costs the loop one small pickled request and one answer.

`ComputerPlayer` is the part of the loop (a component with `get_status()`): on the computer's
turn it asks for a move, and once the engine answered the board lights that pit; the hands then
make the move seed by seed as the guidance shows, and the referee checks it like any move. On
the simulated board the virtual hand plays it (loop.py). The hint button (the board's and the
page's) asks the engine for the best move of whoever is to move.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from controller.leds.patterns import GuidanceState
from controller.rules import OptionError, Place, Position, Rules, StepFollower

from .journal import at_move_boundary
from .notices import Notices
from .status import ComputerStatus

DEFAULT_THINK_S = 1.0  # about what level 5 needs on a Pi 4 (docs/engine.md)
MAX_THINK_S = 30.0
HINT_THINK_S = 1.0
HINT_SHOW_S = 3.0  # the hint's pit blinks this long once the engine answered
ENGINE_NICE = 19  # where SCHED_IDLE is not to be had: the lowest nice
ORPHAN_CHECK_S = 1.0  # the engine's process looks this often whether the daemon is still there
# An answer this long past its think budget: the engine's process gets no CPU time (it runs
# only on what nothing else wants, `_below_everything`), and the board would wait silently.
# Far above the first request's wait for the engine's import (a second or more on a Pi).
ENGINE_LATE_S = 15.0
ENGINE_RETRY_S = 5.0  # the engine gave no move for a turn (an error): asked again after this
OPPONENT_KEYS = ("player", "level", "think_s")
# controller.engine's LEVELS (a test holds them equal): importing the engine here would load
# numpy into the daemon's process, which never runs the engine (a few MB on a Pi).
LEVEL_NUMBERS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Opponent:
    """Who the computer plays (`player` 0 or 1), how well (`level` 1 to 5) and how long it may
    think a move (`think_s`, wall seconds)."""

    player: int
    level: int
    think_s: float = DEFAULT_THINK_S

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "level": self.level, "think_s": self.think_s}


def parse_opponent(value: Any, key: str) -> Opponent | None:
    """An opponent from `{player, level, think_s?}` (None: none); ValueError names `key`'s
    part that is wrong and what is allowed (the configuration, the new-game command and the
    journal all read it here)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError(
            f"{key} = {value!r} is not allowed, allowed: a table {{ player = 0 or 1, "
            f"level = 1 to {LEVEL_NUMBERS[-1]} }}"
        )
    unknown = sorted(set(value) - set(OPPONENT_KEYS))
    if unknown:
        raise ValueError(f"{key}.{unknown[0]} is not a key, allowed: {', '.join(OPPONENT_KEYS)}")
    for needed in ("player", "level"):
        if needed not in value:
            raise ValueError(f"{key}.{needed} is missing")
    player = _whole(value["player"], f"{key}.player", 0, 1)
    level = _whole(value["level"], f"{key}.level", LEVEL_NUMBERS[0], LEVEL_NUMBERS[-1])
    think_s = value.get("think_s", DEFAULT_THINK_S)
    if isinstance(think_s, bool) or not isinstance(think_s, int | float):
        raise ValueError(f"{key}.think_s = {think_s!r} is not a number, allowed: 0.05 to 30")
    if not 0.05 <= think_s <= MAX_THINK_S:
        raise ValueError(f"{key}.think_s = {think_s} is out of range, allowed: 0.05 to 30")
    return Opponent(player, level, float(think_s))


def _whole(value: Any, key: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{key} = {value!r} is not allowed, allowed: a whole number {lo} to {hi}")
    return value


def alternating_options(options: Mapping[str, Any], rules: Rules) -> dict[str, Any]:
    """The options of a game with a computer player: the engine plays whole moves, so the
    opening is the alternating one (ValueError when the options ask for the simultaneous
    one by name; a preset's simultaneous opening is turned off)."""
    if options.get("simultaneous_opening") is True:
        raise OptionError(
            "simultaneous_opening = true: a game with a computer player uses the alternating "
            "opening (the engine plays whole moves), allowed: false"
        )
    if rules.options.simultaneous_opening:
        return {**options, "simultaneous_opening": False}
    return dict(options)


# -- the engine's process -------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """What the engine is asked: the best move at `level` for `position` (its player to move).
    `key` says which turn it is for; `purpose` is "move" or "hint"."""

    purpose: str
    key: tuple[Any, ...]
    position: Position
    rules: Rules
    level: int
    budget_s: float
    retried: bool = False  # (asked again once after the engine's process died on it)


@dataclass
class Running:
    """The request the engine's process works on, since when (the Thinker's clock), and
    whether it was told late."""

    request: Request
    future: Future[int]
    since: float
    told_late: bool = False


@dataclass(frozen=True)
class Answer:
    request: Request
    pit: int | None
    error: str | None = None


def _engine_process_start(daemon_pid: int) -> None:
    """The engine process's start: below the loop, so that on a busy CPU the loop goes first;
    and gone with the daemon. A daemon killed with SIGKILL (a pulled plug does the same to
    both, but `sowboard bench kills` and systemd's last resort do not) left its engine
    process waiting for requests for ever: each kill one more orphan of some 40 MB."""
    _below_everything()
    threading.Thread(target=_exit_with, args=(daemon_pid,), daemon=True).start()


def _below_everything() -> None:
    """Linux's SCHED_IDLE: the engine runs only on CPU time nothing else wants, so it never
    delays the loop's thread (nor the web's) however busy the machine is; its think budget is
    wall time, so on a busy CPU it searches less deep rather than longer. At nice 10 the
    loop's lag p99 while it thought was 94 ms against 20 ms overall, on this 2-CPU PC at a
    load of 7 (`sowboard bench web --level 5`). Elsewhere: the lowest nice."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(ENGINE_NICE)


def _exit_with(daemon_pid: int) -> None:
    while os.getppid() == daemon_pid:
        time.sleep(ORPHAN_CHECK_S)
    os._exit(0)


def _engine_pool() -> Executor:
    """The engine's process: one, spawned (not forked from a daemon with threads), below the
    loop and gone with the daemon (`_engine_process_start`)."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_engine_process_start,
        initargs=(os.getpid(),),
    )


def _warm_up() -> None:
    """(In the engine's process.) Import the engine before the first request needs it."""
    import controller.engine  # noqa: F401


def _think(request: Request) -> int:
    """(In the engine's process.)"""
    from controller.engine import best_move

    return best_move(request.position, request.rules, request.level, request.budget_s)


class Thinker:
    """The engine's process: one request thinks at a time, the newest request of each purpose
    waits (an older one waiting for the same purpose is of a turn that is gone). `answers()`
    never waits: it returns what finished."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        pool: Callable[[], Executor] = _engine_pool,
    ) -> None:
        self._pool: Executor | None = None
        self._running: Running | None = None
        self._waiting: dict[str, Request] = {}
        # (Elapsed real time, as the think budget is; not the loop's, which races in tests.)
        self._clock = clock
        self._new_pool = pool

    def start(self) -> None:
        """Start the process now (it imports the engine: a second or more on a Pi), so that
        the first move does not wait for it."""
        if self._pool is None:
            self._pool = self._new_pool()
            self._pool.submit(_warm_up)

    def ask(self, request: Request) -> None:
        """Think about `request` next, unless its turn is thought about already. A request of
        its purpose for another turn that waits is of a turn that is gone: dropped."""
        running = self._running
        if running is not None and same_request(running.request, request):
            self._waiting.pop(request.purpose, None)
            return
        waiting = self._waiting.get(request.purpose)
        # (The same turn's waiting request is kept: it may be the one asked again once after
        # its process died, `retried`, whose second death is told instead of asked again.)
        if waiting is None or not same_request(waiting, request):
            self._waiting[request.purpose] = request
        self._submit()

    @property
    def thinking(self) -> bool:
        """The engine's process is working on a request now."""
        return self._running is not None

    def busy(self, purpose: str) -> bool:
        running = self._running is not None and self._running.request.purpose == purpose
        return running or purpose in self._waiting

    def answers(self) -> list[Answer]:
        """What the engine finished since the last call (and the next request started)."""
        out: list[Answer] = []
        running = self._running
        if running is not None and running.future.done():
            self._running = None
            answer = self._answer(running.request, running.future)
            if answer is not None:
                out.append(answer)
        self._submit()
        return out

    def _answer(self, request: Request, future: Future[int]) -> Answer | None:
        """The answer to `request`; None when it was asked again (its process died under it:
        once, in a new process, unless a newer request of its purpose waits already)."""
        try:
            return Answer(request, future.result())
        except BrokenProcessPool:
            self.close()  # (a new process next time)
            if request.retried:
                return Answer(request, None, "the engine's process stopped twice on this")
            self._waiting.setdefault(request.purpose, dataclasses.replace(request, retried=True))
            return None
        except ValueError as err:  # (the engine's: no move here, and why)
            return Answer(request, None, str(err))
        except Exception as err:  # a fault of the engine's must not stop the board's loop
            return Answer(request, None, f"{type(err).__name__}: {err}")

    def _submit(self) -> None:
        if self._running is not None or not self._waiting:
            return
        purpose = "move" if "move" in self._waiting else next(iter(self._waiting))
        request = self._waiting.pop(purpose)
        self.start()
        assert self._pool is not None
        try:
            future = self._pool.submit(_think, request)
            self._running = Running(request, future, self._clock())
        except BrokenProcessPool:
            self.close()
            self._waiting[purpose] = request

    def overdue(self) -> Request | None:
        """The request the engine works on, once, when it is ENGINE_LATE_S past its budget."""
        running = self._running
        if running is None or running.told_late:
            return None
        if self._clock() - running.since < running.request.budget_s + ENGINE_LATE_S:
            return None
        running.told_late = True
        return running.request

    def forget(self, purpose: str) -> None:
        """A waiting request of `purpose` is of a turn that is gone (the running one ends)."""
        self._waiting.pop(purpose, None)

    def pids(self) -> list[int]:
        """The engine's process ids (none before it started): for diagnostics and tests."""
        return sorted(self._processes())

    def _processes(self) -> dict[int, Any]:
        return getattr(self._pool, "_processes", None) or {}

    def close(self) -> None:
        """Stop the process without waiting for a think to finish: it is killed (a pool shut
        down without waiting still holds the interpreter's exit until its think ends, up to
        MAX_THINK_S: the daemon's stop, and each test that left a think running). Not when
        the pool broke: it reaped its process, whose pid may be another's by now; and through
        the process, which signals only one it has not reaped."""
        pool = self._pool
        if pool is not None:
            if not getattr(pool, "_broken", False):
                for process in list(self._processes().values()):
                    with contextlib.suppress(OSError, ValueError):  # (gone, or closed)
                        process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._running = None


def same_request(a: Request, b: Request) -> bool:
    return a.purpose == b.purpose and a.key == b.key


# -- the computer player --------------------------------------------------------------------------


def turn_key(started: str, follower: StepFollower) -> tuple[Any, ...]:
    """Which turn of which game a move or a hint is for: the game, the moves made, the board."""
    position = follower.position()
    return (
        started,
        len(follower.completed),
        position.to_move,
        tuple(tuple(row) for row in position.pits),
        tuple(position.stores),
    )


def same_turn(chosen: tuple[Any, ...], now: tuple[Any, ...], follower: StepFollower) -> bool:
    """A choice still stands: between moves, for this very position; while a move is made
    (the board changes seed by seed), until that move is completed."""
    if at_move_boundary(follower):
        return chosen == now
    return chosen[:2] == now[:2]


@dataclass
class Chosen:
    """The engine's answer for a turn: `pit`, chosen at loop time `at`."""

    key: tuple[Any, ...]
    pit: int
    at: float
    played: bool = False  # (the simulated board's virtual hand is playing it)


@dataclass
class ComputerPlayer:
    """The computer's side of the game and the hint (see the module docstring)."""

    thinker: Thinker
    notes: Notices
    opponent: Opponent | None = None
    move: Chosen | None = None
    hint: Chosen | None = None
    hint_until: float = -1.0
    hint_wanted: tuple[Any, ...] | None = None
    error: str | None = None
    # The turn the engine gave no move for, and the loop time it is asked about again.
    retry: tuple[tuple[Any, ...], float] | None = None

    def new_game(self, opponent: Opponent | None) -> None:
        """A new game: what the engine thinks about is of the old one, and is stopped (a think
        of up to MAX_THINK_S would hold the new game's first move; a new process costs its
        import, a second or more on a Pi)."""
        self.opponent = opponent
        self.move = None
        self.hint = None
        self.hint_wanted = None
        self.retry = None
        self.thinker.forget("move")
        self.thinker.forget("hint")
        if self.thinker.thinking:
            self.thinker.close()
        if opponent is not None:
            self.thinker.start()

    def tick(self, now: float, started: str, follower: StepFollower | None, ready: bool) -> None:
        """Take the engine's answers; on the computer's turn (`ready`: the board is between
        moves with no flag up), ask for its move."""
        key = None if follower is None else turn_key(started, follower)
        for answer in self.thinker.answers():
            self._take(answer, now, key)
        self._tell_late()
        if follower is None or key is None:
            return
        if self.move is not None and not same_turn(self.move.key, key, follower):
            self._check_played(self.move, follower)
            self.move = None
        if self.hint is not None and not same_turn(self.hint.key, key, follower):
            self.hint = None
        # Asked at every tick until there is a move: the engine's queue knows what it thinks
        # about (`Thinker.ask`). A record of what was asked, kept here, once hung the game:
        # the referee came back to a turn whose answer had arrived while it held another view
        # of the board (and was dropped), and the record said it was asked.
        wanted = ready and self.computer_to_move(follower) and self.move is None
        if not wanted:
            self.thinker.forget("move")  # (of a turn that is gone; a hint would wait behind it)
        elif self.retry is None or self.retry[0] != key or now >= self.retry[1]:
            self._ask_move(key, follower)

    def _tell_late(self) -> None:
        late = self.thinker.overdue()
        if late is not None:
            self.notes.warning(
                f"the engine has not answered the {late.purpose} in "
                f"{late.budget_s + ENGINE_LATE_S:g} s (its budget is {late.budget_s:g} s): it "
                "runs only on CPU time nothing else on this computer wants, and something "
                "takes it all (top shows what)"
            )

    def _check_played(self, move: Chosen, follower: StepFollower) -> None:
        """The move made on the computer's turn is the referee's, whichever pit the hand took:
        say so when it was not the pit the computer chose (the lights showed that one)."""
        opponent = self.opponent
        made_before = move.key[1]
        if opponent is None or len(follower.completed) <= made_before:
            return  # (an undo or a new game, not a move)
        made = follower.completed[made_before]
        if made.player == opponent.player and made.pit != move.pit:
            self.notes.info(
                f"the computer chose pit {move.pit + 1}, pit {made.pit + 1} was played: the "
                "game goes on with it (undo takes it back)"
            )

    def computer_to_move(self, follower: StepFollower) -> bool:
        opponent = self.opponent
        return opponent is not None and not follower.over and follower.to_move == opponent.player

    def _ask_move(self, key: tuple[Any, ...], follower: StepFollower) -> None:
        opponent = self.opponent
        assert opponent is not None
        self.thinker.ask(
            Request(
                "move",
                key,
                follower.position(),
                follower.rules,
                opponent.level,
                opponent.think_s,
            )
        )

    def ask_hint(self, now: float, started: str, follower: StepFollower) -> bool:
        """The hint button: ask the engine (False: nobody is to move, no hint to ask for)."""
        if follower.over or follower.to_move is None:
            return False
        key = turn_key(started, follower)
        self.hint_until = now + HINT_SHOW_S
        if self.hint is not None and self.hint.key == key:
            return True  # (asked already: show it again)
        self.hint_wanted = key
        self.thinker.ask(Request("hint", key, follower.position(), follower.rules, 5, HINT_THINK_S))
        return True

    def _take(self, answer: Answer, now: float, key: tuple[Any, ...] | None) -> None:
        """An answer of the engine's; a move only for the turn the board is at (`key`): one
        for a turn that is gone was never lit, and is no choice of the computer's."""
        request = answer.request
        if answer.pit is None:
            self.error = answer.error
            self.notes.warning(f"the engine gave no {request.purpose}: {answer.error}")
            if request.purpose == "move":  # (not at every tick: each ask may start a process)
                self.retry = (request.key, now + ENGINE_RETRY_S)
            return
        self.error = None
        chosen = Chosen(request.key, answer.pit, now)
        if request.purpose == "move":
            if request.key == key:
                self.move = chosen
        elif request.key == self.hint_wanted:
            self.hint = chosen
            self.hint_until = now + HINT_SHOW_S

    # -- what the lights and the virtual hand do with it --------------------------------------

    def guide(self, state: GuidanceState, follower: StepFollower) -> None:
        """On the computer's turn the board lights the pit it chose (nothing while it thinks)
        instead of every pit it could play; the guidance after the pickup is the referee's."""
        if not self.computer_to_move(follower) or state.expected_kind != "pickup" or state.relay:
            return
        player = follower.to_move
        assert player is not None
        state.expected = [] if self.move is None else [Place(player, self.move.pit)]

    def hint_places(self, now: float, state: GuidanceState) -> list[Place]:
        """Where the hint blinks: the engine's best pit once it answered, until then (or
        where it cannot answer, as in a simultaneous opening) the pits that may be played."""
        if now >= self.hint_until or state.expected_kind != "pickup":
            return []
        if self.hint is not None and state.to_move is not None:
            return [Place(state.to_move, self.hint.pit)]
        return list(state.expected)

    def to_play(self, now: float, show_s: float) -> int | None:
        """The computer's pit once it has been lit `show_s` (for the virtual hand)."""
        move = self.move
        if move is None or move.played or now - move.at < show_s:
            return None
        return move.pit

    def get_status(self, now: float) -> ComputerStatus:
        opponent = self.opponent
        hinting = now < self.hint_until
        return {
            "player": None if opponent is None else opponent.player,
            "level": None if opponent is None else opponent.level,
            "thinking": self.thinker.busy("move"),
            "move": None if self.move is None else self.move.pit,
            "hint": self.hint.pit if hinting and self.hint is not None else None,
            "hint_thinking": hinting and self.hint is None and self.thinker.busy("hint"),
            "error": self.error,
        }
