"""The game session on the board: setup, then playing.

- **setup**: the board is weighed at rest and compared with the game's position (a new game's
  start layout, a resumed game, the position an undo went back to). Places that do not fit get
  a `board_mismatch` flag each and light up (too few / too many) until the hands put them
  right; then the referee starts from that board, with the game's `StepFollower`.
- **playing**: the referee follows the hands; each step it recognises is journaled, and a step
  it takes back is retracted in the journal.

The session is fed the frames and reports the game's part of the status; what the game looks
like on the lights is lights.py's, what a command does to it is loop.py's.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from controller.board import Board
from controller.rules import Place, Rules, Step, StepFollower, StepKind
from controller.rules.options import option_applies
from controller.rules.record import start_json
from controller.sensing.frames import Frame, SourceStatus
from controller.tracking.hypotheses import Tracker
from controller.tracking.session import STARTUP_FRAMES, STARTUP_S, start_referee
from controller.tracking.verdicts import RecognisedStep

from .boardcheck import (
    DEFAULT_CV,
    LevelWindow,
    PlaceCheck,
    check_board,
    estimate_seed_g,
    place_counts,
)
from .calibration import SEED_GUESS_G, Calibrator
from .clock import TurnClock
from .feed import Feed
from .flags import GameFlags
from .game import JournaledGame, game_record, record_line
from .journal import JournalWriter, at_move_boundary, step_entry
from .link import CommandError
from .notices import Notices
from .recorder import Recorder, SessionInfo
from .ruleevents import Explainer
from .status import (
    BoardStatus,
    ComputerStatus,
    GameCore,
    PlaceJson,
    PositionStatus,
    SensorStatus,
    TurnTimer,
)
from .undo import UndoPath, undo_path

CHECK_EVERY_S = 0.25  # how often the setup weighs the board
MIN_SEED_G = 0.3  # less a seed than this: the board weighs nothing (noise around zero)


@dataclass
class Setup:
    """Waiting for the board to hold `follower`'s position before the referee starts."""

    follower: StepFollower
    counts: dict[Place, int]
    since: float
    last_check: float = -1e9
    wrong: list[PlaceCheck] = field(default_factory=list)
    checked: bool = False
    path: UndoPath | None = None  # a guided undo: the layouts the hands walk back through


class _FrameList:
    """A SampleSource over frames already read, so `start_referee` never blocks the loop."""

    def __init__(self, frames: list[Frame], cell_count: int) -> None:
        self.frames = deque(frames)
        self.cell_count = cell_count

    def read(self, timeout: float | None = None) -> Frame | None:
        return self.frames.popleft() if self.frames else None

    def status(self) -> SourceStatus:
        return SourceStatus("startup frames", True, 0.0)

    def close(self) -> None:
        self.frames.clear()


@dataclass
class SessionParts:
    """What the session works with and does not own."""

    board: Board
    feed: Feed
    calibrator: Calibrator
    recorder: Recorder
    writer: JournalWriter
    flags: GameFlags
    notices: Notices
    records_path: Path
    board_text: str
    rate_sps: float


class GameSession:
    """The game (`game`, as journaled), and the referee or the setup that follows it."""

    def __init__(self, game: JournaledGame, parts: SessionParts) -> None:
        self.game = game
        self.parts = parts
        self.window = LevelWindow(parts.feed.cell_count, seconds=1.0)
        self.last_frame: Frame | None = None
        self.referee: Tracker | None = None
        self.setup: Setup | None = None
        self.steps: list[RecognisedStep] = []  # the referee's steps journaled so far
        self.base = 0  # the game's steps before the referee's first
        self.explainer = Explainer()
        # The last undo: the steps kept and the move taken back (guided undo's path).
        self.undone: tuple[tuple[Step, ...], tuple[Step, ...]] = ((), ())
        self._publications = 0
        self._completed_seen = 0
        self._turn_key: tuple[Any, ...] = ()
        # (not started here: before play starts nobody's time runs; issue 14 found the
        # page showing "30 s" counted from the daemon's start before the first move)
        self.clock = TurnClock()
        self.over_since: float | None = None  # when the game ended (its record archived)

    @property
    def calibration(self) -> list[tuple[float, float]]:
        return list(self.parts.calibrator.current.cells)

    def follower(self) -> StepFollower:
        """The game as it stands (the referee's, or the one the setup waits to start)."""
        if self.referee is not None:
            return self.referee.game
        assert self.setup is not None
        return self.setup.follower

    def state_name(self) -> str:
        return "playing" if self.referee is not None else "setup"

    # -- setup: weigh the board before the referee starts ----------------------------------------

    def enter_setup(self, follower: StepFollower, path: UndoPath | None = None) -> None:
        """Weigh the board until it holds `follower`'s position (`path`: through the layouts
        of a guided undo first), then start the referee."""
        parts = self.parts
        # (first: a flag's recording still waiting is saved with the referee that raised it)
        parts.recorder.new_session(
            SessionInfo(
                parts.board.name,
                parts.board_text,
                self.game.variant,
                dict(self.game.options),
                parts.calibrator.current.cells,
                self.game.step_list(),
                self._layout(),
            )
        )
        parts.flags.referee_ended(self.referee)
        self.referee = None
        self.clock.stop()
        counts = place_counts(self.game.rules, follower.position())
        self.setup = Setup(follower, counts, parts.feed.now(), path=path)
        self.window.clear()
        self._completed_seen = len(follower.completed)

    def _layout(self) -> dict[str, Any] | None:
        """The game's own start layout (a match round's), for a recording's header."""
        match = self.game.match
        return None if match is None or match.start is None else start_json(match.start)

    def add_frames(self, frames: list[Frame]) -> bool:
        """The frames to the referee (or the setup); True when the lights are to change now
        rather than at the next tick (the next place changed, or play started)."""
        referee = self.referee
        for frame in frames:
            self.window.add(frame)
            if referee is not None:
                referee.process(frame)
        self.last_frame = frames[-1]
        if referee is not None:
            if referee.publications == self._publications:
                return False
            self._publications = referee.publications
            return True
        return self.setup is not None and self._check_setup(frames[-1].t)

    def _seed_guess(self, levels: list[float | None], counts: dict[Place, int]) -> float | None:
        known = self.game.seed_g or self.parts.calibrator.current.seed_g
        if known:
            return known
        estimate = estimate_seed_g(levels, self.game.mapping, counts)
        if estimate is not None and estimate >= MIN_SEED_G:
            return estimate
        return SEED_GUESS_G if any(counts.values()) else None

    def _window_ready(self) -> bool:
        window = self.window
        return window.span() >= STARTUP_S + 0.1 and len(window.frames) >= STARTUP_FRAMES

    def _check_setup(self, t: float) -> bool:
        """Weigh the board (every CHECK_EVERY_S); True when the referee started."""
        setup = self.setup
        assert setup is not None
        if t - setup.last_check < CHECK_EVERY_S or not self._window_ready():
            return False
        setup.last_check = t
        cal = self.calibration
        levels = self.window.medians(cal)
        seed_g = self._seed_guess(levels, setup.counts)
        if seed_g is None or seed_g <= 0 or not self.window.at_rest(cal, seed_g):
            return False
        cv = self.game.seed_cv or self.parts.calibrator.current.seed_cv or DEFAULT_CV
        if setup.path is not None and not setup.path.done:
            return self._follow_undo(t, setup.path, levels, seed_g, cv)
        wrong = check_board(levels, self.game.mapping, setup.counts, seed_g, cv)
        setup.wrong = wrong
        setup.checked = True
        self.parts.flags.board_checked(t, wrong)
        return not wrong and self._start_referee(setup.follower)

    def _follow_undo(
        self, t: float, path: UndoPath, levels: list[float | None], seed_g: float, cv: float
    ) -> bool:
        """A guided undo: the furthest layout of the path the board holds now; the places the
        next step changes are lit (as too few / too many). Only a board on none of the path's
        layouts is a problem (board_mismatch flags)."""
        setup = self.setup
        assert setup is not None
        mapping = self.game.mapping
        # The furthest layout from here on the board holds (the hands may be quicker than a
        # check), else the nearest one behind (a step done twice or put back).
        on_path = False
        order = [*range(len(path.layouts) - 1, path.at - 1, -1), *range(path.at - 1, -1, -1)]
        for k in order:
            if not check_board(levels, mapping, path.layouts[k], seed_g, cv):
                path.at, on_path = k, True
                break
        wrong = check_board(levels, mapping, path.next_layout(), seed_g, cv)
        setup.wrong = wrong
        setup.checked = True
        self.parts.flags.board_checked(t, [] if on_path else wrong)
        return not wrong and path.done and self._start_referee(setup.follower)

    def _start_referee(self, follower: StepFollower) -> bool:
        frames = list(self.window.frames)
        source = _FrameList(frames, self.parts.feed.cell_count)
        try:
            referee = start_referee(
                source,
                self.calibration,
                self.game.rules,
                self.game.mapping,
                self.parts.rate_sps,
                follower=follower.copy(),
            )
        except (RuntimeError, ValueError) as err:
            self.parts.notices.info(f"the referee could not start yet: {err}")
            return False
        for frame in source.frames:  # what start-up did not need
            referee.process(frame)
        self.parts.recorder.anchor(len(frames), "start", self.game.step_list())
        self.referee = referee
        self.setup = None
        self.steps = []
        self.base = len(self.game.steps)
        self._publications = referee.publications
        self._completed_seen = len(referee.game.completed)
        self._start_clock(referee.game)
        self._note_seed(referee)
        return True

    def _start_clock(self, follower: StepFollower) -> None:
        """Play starts (or starts again after the board was weighed): the turn's clock with
        this game's limit."""
        options = self.game.rules.options
        self.clock.limit_s = options.move_time_limit_s
        self.clock.consequence = options.move_time_consequence
        self._turn_key = self._turn(follower)
        self.clock.start(self.parts.feed.now(), None if follower.over else follower.to_move)

    @staticmethod
    def _turn(follower: StepFollower) -> tuple[Any, ...]:
        position = follower.position()
        return (position.to_move, len(follower.completed), position.over)

    def _note_seed(self, referee: Tracker) -> None:
        """The seeds' mass the referee measured, for a game that has none yet."""
        game = self.game
        if game.seed_g is None:
            game.seed_g = round(referee.seed_g, 4)
            game.seed_cv = round(referee.start_cv, 4)
            self.parts.writer.append(
                {"type": "seed", "seed_g": game.seed_g, "seed_cv": game.seed_cv}
            )

    # -- playing ----------------------------------------------------------------------------------

    def journal_steps(self) -> None:
        """Append the referee's new steps; a step it took back is retracted in the journal."""
        referee = self.referee
        assert referee is not None
        known = self.steps
        keep, new = referee.changes(len(known))
        if keep < len(known):
            del known[keep:]
            del self.game.steps[self.base + keep :]
            self.parts.writer.append({"type": "retract", "keep": len(self.game.steps)})
        for recognised in new:
            known.append(recognised)
            self.game.steps.append((recognised.t, recognised.step))
            self.parts.writer.append(step_entry(recognised.t, recognised.step))

    def follow(self, now: float) -> bool:
        """After the referee's new steps: the turn's start, a finished game's record; True
        when a move was completed since the last call."""
        referee = self.referee
        assert referee is not None
        follower = referee.game
        completed = len(follower.completed) != self._completed_seen
        self._completed_seen = len(follower.completed)
        key = self._turn(follower)
        if key != self._turn_key:  # the other player's turn ended: this one's clock starts
            self._turn_key = key
            self.clock.start(now, None if follower.over else follower.to_move)
        elif not at_move_boundary(follower):
            self.clock.move_started(now)
        if follower.over and not follower.pending_sweeps and self.over_since is None:
            self.over_since = now  # (a resumed game over, a match's end: recorded already)
            if not self.game.recorded:
                self.game.recorded = True
                self.archive_record(finished=True)
        return completed

    def turn_timer(self, now: float) -> TurnTimer:
        return self.clock.get_status(now)

    def note_overrun(self, now: float) -> dict[str, Any] | None:
        """(`warn`) A move not started in time, once a turn: journaled for the record."""
        referee = self.referee
        if referee is None:
            return None
        overrun = self.clock.new_overrun(now, len(referee.game.completed) + 1)
        if overrun is not None:
            self.game.overruns.append(overrun)
            self.parts.writer.append({"type": "overrun", **overrun})
        return overrun

    def time_out(self, now: float) -> StepFollower | None:
        """(`pass`) The player to move did not start in time: a `timeout` step is journaled
        and the game's follower after it returned, for the setup that starts the referee on
        the other player's turn (the referee follows hands, not clocks). None when the rules
        refuse it (the move started after all)."""
        referee = self.referee
        player = self.clock.player
        if referee is None or player is None:
            return None
        self.journal_steps()
        step = Step(StepKind.TIMEOUT, player)
        follower = self.game.follower()
        if not follower.feed(step).accepted:
            return None
        self.game.steps.append((now, step))
        self.parts.writer.append(step_entry(now, step))
        return follower

    # -- a command's part -------------------------------------------------------------------------

    def replace_game(self, game: JournaledGame) -> StepFollower:
        """A new game instead of this one (whose record is kept when it was not yet): its
        journal is written, and its follower returned for the setup."""
        if not self.game.recorded:
            self.archive_record(finished=False)
        self.game = game
        self.parts.writer.rewrite(game.entries())
        self.over_since = None
        return game.start_follower()

    def undo(self) -> StepFollower:
        """The game back at the last move's start (or the move before, when the last one is
        whole); its journal is written anew, its follower returned for the setup."""
        game = self.game
        if self.referee is not None:
            self.journal_steps()
        keep = self._undo_point()
        steps = game.step_list()
        self.undone = (steps[:keep], steps[keep:])
        game.steps = game.steps[:keep]
        game.recorded = False
        if game.match is not None and game.match.over:  # (the round goes on, and the match)
            game.match = replace(game.match, result=None)
        follower = game.follower()
        moves = len(follower.completed)
        game.overruns = [o for o in game.overruns if o["ply"] <= moves]  # (of moves kept)
        self.parts.writer.rewrite(game.entries())
        self.over_since = None
        return follower

    def can_undo(self) -> bool:
        """Would `undo` take anything back (a step played, journaled or not)? It refuses
        before the game's first step and nowhere else (`_undo_point`)."""
        referee = self.referee
        if referee is not None:
            return self.base + len(referee.steps) > 0
        return bool(self.game.steps)

    def _undo_point(self) -> int:
        follower = self.game.start_follower()
        boundaries = [0]
        for k, (_t, step) in enumerate(self.game.steps):
            follower.feed(step)
            if at_move_boundary(follower):
                boundaries.append(k + 1)
        if boundaries[-1] != len(self.game.steps):
            return boundaries[-1]
        if len(boundaries) < 2:
            raise CommandError("command", "there is no move to undo")
        return boundaries[-2]

    def undo_path(self) -> UndoPath:
        """The layouts the last undo walks the hands back through."""
        before, move = self.undone
        return undo_path(self.game.rules, before, move)

    def check_again(self) -> None:
        """Weigh the board again from scratch (a new calibration)."""
        if self.referee is not None:
            self.journal_steps()
        self.enter_setup(self.game.follower())

    # -- the recorder -----------------------------------------------------------------------------

    def recorder_tick(self, now: float) -> None:
        """Note the board at rest between moves for the recorder, and tell it of the
        referee's new flags (not the setup's `board_mismatch`: a board being laid out for a
        new game is not a mistake worth a recording)."""
        referee = self.referee
        recorder = self.parts.recorder
        if referee is not None and recorder.wants_rest_anchor(now) and self._at_rest(referee):
            recorder.anchor(len(self.window.frames), "rest", self.game.step_list())
        newest = max((f.serial for f in referee.flags), default=0) if referee else 0
        recorder.tick(now, newest)

    def _at_rest(self, referee: Tracker) -> bool:
        """Between moves, no flag up, and the last second of frames at rest: a referee started
        from these frames with the game's steps would see what the live one sees."""
        return (
            referee.phase() == "start"
            and at_move_boundary(referee.game)
            and not any(f.active for f in referee.flags)
            and self._window_ready()
            and self.window.at_rest(self.calibration, referee.seed_g)
        )

    def live_results(self, since: float) -> dict[str, Any]:
        """What the live referee recognised and flagged from `since` on (a recording's)."""
        referee = self.referee
        if referee is None:
            return {"steps": [], "flags": []}
        return {
            "steps": [s.to_json() for s in referee.steps if s.t >= since],
            "flags": [f.to_json() for f in referee.flags if f.t >= since],
        }

    # -- records ----------------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game's record (RULES.md 5)."""
        return game_record(self.game, self.follower())

    def archive_record(self, finished: bool) -> None:
        record = self.record()
        if record["moves"]:
            self.parts.writer.append_to(self.parts.records_path, record_line(record, finished))

    # -- status -----------------------------------------------------------------------------------

    def get_status(self, computer: ComputerStatus) -> GameCore:
        """The game's section; `computer` is the computer player's (opponent.py)."""
        referee = self.referee
        follower = self.follower()
        undoing = self._undo_places()
        return {
            "variant": self.game.variant,
            "options": options_status(self.game.rules),
            "position": cast(PositionStatus, follower.position().to_json()),
            "hand": referee.belief()["hand"] if referee is not None else [0, 0],
            "expected": [p.to_json() for p in referee.expected_places()] if referee else undoing,
            "expected_kind": referee.expected_kind() if referee else "undo" if undoing else "none",
            "phase": referee.phase() if referee else "undoing" if undoing else "waiting",
            "history": [
                {"ply": k, "player": m.player, "pit": m.pit}
                for k, m in enumerate(follower.completed, start=1)
            ],
            "can_undo": self.can_undo(),
            "record": self.record(),
            "computer": computer,
            "match": None if self.game.match is None else self.game.match.get_status(),
            "events": self.explainer.get_status(self.game.rules, self.game.step_list()),
        }

    def _undo_places(self) -> list[PlaceJson]:
        """A guided undo's next places to change (as the lights show them), else none."""
        setup = self.setup
        if setup is None or setup.path is None or setup.path.done:
            return []
        return [c.place.to_json() for c in setup.wrong]

    def board_status(self) -> BoardStatus:
        mapping = self.game.mapping
        board = self.parts.board
        return {
            "name": board.name,
            "pits": mapping.pits,
            "led_count": board.led_count,
            "places": [
                {"place": place.to_json(), "cell": cell, "leds": list(mapping.leds_of[place])}
                for place, cell in mapping.cell_of.items()
            ],
            "idle_cells": list(mapping.idle_cells),
        }

    def sensors_status(self) -> list[SensorStatus]:
        referee = self.referee
        cal = referee.detector.calibration if referee else self.calibration
        levels = self.window.medians(cal)
        noise = self.window.noise(cal)
        feed = self.parts.feed
        rate = round(feed.rate_sps(), 1)
        status = feed.status()
        place_of = self.game.mapping.place_of
        frame = self.last_frame
        out: list[SensorStatus] = []
        for cell in range(feed.cell_count):
            place = place_of.get(cell)
            level = levels[cell]
            out.append(
                {
                    "cell": cell,
                    "place": None if place is None else place.to_json(),
                    "raw": None if frame is None else frame.raw[cell],
                    "grams": None if level is None else round(level, 2),
                    "noise_g": None if noise[cell] is None else round(noise[cell] or 0.0, 3),
                    "rate_sps": rate,
                    "fault": self._cell_fault(cell, status),
                }
            )
        return out

    def _cell_fault(self, cell: int, status: SourceStatus) -> str | None:
        referee = self.referee
        if referee is not None and cell in referee.fault_flags:
            return referee.fault_flags[cell].detail or "fault"
        if status.fault and f"cell {cell}" in status.fault:
            return status.fault
        return None


def options_status(rules: Rules) -> dict[str, Any]:
    """The rule options that change anything in this game (`option_applies`: no grand slam
    rule where nothing is captured by counts); `closed` (pits a handicap round closed, not an
    option anyone sets) only when there are any. The game record keeps every option."""
    options = rules.options.to_json()
    if not options.get("closed"):
        options.pop("closed", None)
    return {k: v for k, v in options.items() if option_applies(k, options)}
