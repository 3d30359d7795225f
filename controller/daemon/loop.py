"""The daemon's loop: one thread owns every piece of state (Klipper's reactor, in small).

Each iteration takes the frames that are ready from the feed (waiting at most until the next
LED frame is due), runs them through the referee, carries out the commands the web layer and
the board buttons queued, and on every tick (`leds.fps` a second) renders the lights, writes
new steps to the journal and publishes a status snapshot when something changed. Nothing else
touches the referee, the rules engine or the simulated world, so none of them needs a lock;
the web layer sees immutable snapshots and talks through `LoopLink.command`.

A game goes through two states:

- **setup**: the board is weighed at rest and compared with the game's position (a new game's
  start layout, a resumed game, the position an undo went back to). Places that do not fit get
  a `board_mismatch` flag each and light up (too few / too many) until the hands put them
  right; then the referee starts from that board, with the game's `StepFollower`.
- **playing**: the referee follows the hands; each step it recognises is journaled.

On the simulated board the virtual hand plays `sim_move` / `sim_mistake` / `sim_actions`, and in
`demo` mode it plays on its own; the simulated seeds' layout is saved after every move, so the
simulated wood survives a restart as real wood does.
"""

from __future__ import annotations

import contextlib
import random
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.board import Board, BoardFileError, BoardMapping, find_board
from controller.buttons import Buttons
from controller.leds.backends import LedStrip
from controller.leds.patterns import (
    WHITE,
    GuidanceState,
    Light,
    estimate_current_a,
    guidance,
    hex_color,
    render,
)
from controller.rules import OptionError, Phase, Place, Rules, Step, StepFollower
from controller.sensing.frames import Frame, SampleSource, SourceStatus
from controller.sim import (
    MistakeNotPossible,
    OpeningChoiceError,
    PlayerParams,
    Scenario,
    ScenarioError,
    SensorParams,
    SimWorld,
    parse_actions,
    schedule_move,
    schedule_opening,
    starting_hands,
)
from controller.sim.world import CellCalibration
from controller.tracking.referee import Flag, RecognisedStep, Referee
from controller.tracking.session import STARTUP_FRAMES, STARTUP_S, start_referee

from .boardcheck import (
    DEFAULT_CV,
    LevelWindow,
    PlaceCheck,
    check_board,
    estimate_seed_g,
    loaded_cells,
    place_counts,
)
from .config import MODES, Config
from .datalock import DataDirLock
from .feed import Feed, HardwareFeed, SimFeed
from .files import (
    CALIBRATION_FILE,
    JOURNAL_FILE,
    RECORDINGS_DIR,
    RECORDS_FILE,
    SIM_BOARD_FILE,
    Calibration,
    DataFileError,
    keep_damaged,
    load_calibration,
    save_calibration,
)
from .hands import JournalPoint, VirtualHands, resume_layout
from .hardware import open_buttons, open_leds, open_source, source_rate
from .health import LINK_FAULT, WRITE_FAILED, Health, LinkWatch, WriteHealth
from .journal import (
    Journal,
    JournalError,
    JournalWriter,
    at_move_boundary,
    game_header,
    load_game,
    step_entry,
)
from .link import CommandError
from .notify import Notifier
from .recorder import Recorder, SessionInfo, read_board_text, software_version

COMMANDS = (
    "new_game",
    "undo",
    "calibrate",
    "mode",
    "save_recording",
    "sim_move",
    "sim_mistake",
    "sim_actions",
)
LED_PUBLISH_S = 0.1  # animated colours reach the page at most 10 times a second
SENSOR_PUBLISH_S = 1.0  # sensor readings (they change with every frame) once a second
CHECK_EVERY_S = 0.25  # how often the setup weighs the board
HINT_S = 3.0
# A button counts once in this window: a finger presses a button a few times a second at the
# most, and a bouncing contact or a script of presses must not cost the loop one command each
# (500 scripted `new_game` presses in one tick held the loop for 14 s, past the watchdog).
BUTTON_REPEAT_S = 0.25
COMMAND_BUDGET_S = 0.05  # loop time for queued commands in one pass (the tick is 1/30 s)
WRITE_RETRY_S = 2.0  # a failed write is tried again this often (space may have been freed)
DEMO_NEW_GAME_S = 5.0  # demo mode: a finished game stays on the lights this long
# demo mode: a game standing still this long (a flag nobody puts right, a step the virtual
# hands will not make) makes way for a new one
DEMO_STILL_NEW_GAME_S = 20.0
MAX_FLAGS = 50  # flags in a snapshot (the newest)
PATH_COLOR = (70, 70, 70)  # teach mode: where the rest of the hand's seeds will go
# A seed's mass when nothing on the board tells it: a board that weighs nothing where the game
# has seeds (zeros taken with the seeds on it) is then checked against it, and every place is
# flagged as holding too few, instead of waiting without a flag for a mass it cannot measure.
SEED_GUESS_G = 5.0
MIN_SEED_G = 0.3  # less a seed than this: the board weighs nothing (noise around zero)
NOMINAL_COUNTS_PER_G = 420.0  # an uncalibrated 1 kg cell at gain 128 (sim/world.py)


class LoopLink:
    """The `DaemonLink` of the real daemon: snapshots out, commands in.

    Snapshots are published by the loop thread and never changed afterwards, so readers get
    the same dict without copying (50 live pages must not cost 50 deep copies each update).
    Treat them as read-only.
    """

    def __init__(self, command_timeout: float = 10.0) -> None:
        self._cond = threading.Condition()
        self._status: dict[str, Any] = {"version": 0}
        self._version = 0
        self._queue: deque[tuple[str, dict[str, Any], Future[dict[str, Any]]]] = deque()
        self._lock = threading.Lock()
        self.command_timeout = command_timeout
        self.accepting = False
        self.wake: Callable[[], None] = lambda: None

    # -- DaemonLink -----------------------------------------------------------------------------

    def get_status(self) -> dict[str, Any]:
        with self._cond:
            return self._status

    def wait_for_change(self, since_version: int, timeout: float) -> dict[str, Any] | None:
        with self._cond:
            if not self._cond.wait_for(lambda: self._version > since_version, timeout):
                return None
            return self._status

    def command(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name not in COMMANDS:
            raise CommandError("command", f"unknown command {name!r}, known: {', '.join(COMMANDS)}")
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if not self.accepting:
                raise CommandError("command", "the board daemon is not running")
            self._queue.append((name, dict(args), future))
        self.wake()
        try:
            return future.result(timeout=self.command_timeout)
        except TimeoutError:
            raise CommandError("command", "the board did not answer in time") from None

    # -- the loop's side ------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._version

    def publish(self, status: dict[str, Any]) -> int:
        with self._cond:
            self._version += 1
            status["version"] = self._version
            status["published_at"] = time.time()
            self._status = status
            self._cond.notify_all()
            return self._version

    def take_command(self) -> tuple[str, dict[str, Any], Future[dict[str, Any]]] | None:
        """The oldest queued command, if any."""
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def close(self) -> None:
        """Refuse new commands and fail the queued ones (the loop is stopping)."""
        with self._lock:
            self.accepting = False
            pending = list(self._queue)
            self._queue.clear()
        for _name, _args, future in pending:
            future.set_exception(CommandError("command", "the board daemon is stopping"))


@dataclass
class GameState:
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

    def entries(self) -> list[dict[str, Any]]:
        out = [dict(self.header)]
        if self.seed_g is not None:
            out.append({"type": "seed", "seed_g": self.seed_g, "seed_cv": self.seed_cv})
        out.extend(step_entry(t, s) for t, s in self.steps)
        return out

    def point(self) -> JournalPoint:
        """Where the journal stands: this game, and how many steps it holds."""
        return JournalPoint(str(self.header.get("started", "")), len(self.steps))

    def follower(self, upto: int | None = None) -> StepFollower:
        follower = StepFollower.new(self.rules)
        for _t, step in self.steps[:upto]:
            follower.feed(step)
        return follower


@dataclass
class Setup:
    """Waiting for the board to hold `follower`'s position before the referee starts."""

    follower: StepFollower
    counts: dict[Place, int]
    since: float
    last_check: float = -1e9
    wrong: list[PlaceCheck] = field(default_factory=list)
    checked: bool = False


@dataclass
class LoopStats:
    lags: deque[float] = field(default_factory=lambda: deque(maxlen=100_000))
    ticks: int = 0
    missed_ticks: int = 0
    frames: int = 0
    publishes: int = 0


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


class BoardLoop:
    """The daemon's state and its loop (see the module docstring).

    `speed`: for the simulated board, simulated seconds per wall second; None never waits
    (tests, benchmarks); by default `hardware.sim.speed`. `leds`, `source` and `buttons` may be
    given (tests); otherwise they come from the configuration. `clock`: the feed's wall clock
    (tests that make the loop fall behind or a link go quiet). `holder` names the command
    in the data directory's lock (datalock.py), for the message another command gets.
    """

    def __init__(
        self,
        config: Config,
        *,
        speed: float | str | None = "config",
        leds: LedStrip | None = None,
        buttons: Buttons | None = None,
        notifier: Notifier | None = None,
        pin_factory: Any = None,
        out: Callable[[str], None] | None = None,
        clock: Callable[[], float] | None = None,
        source: SampleSource | None = None,
        holder: str = "sowboard run",
    ) -> None:
        self.config = config
        self.out = out or (lambda text: print(f"sowboard: {text}", flush=True))
        self.notices: list[str] = []
        self.notifier = notifier or Notifier()
        self.data_dir = config.data_dir
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # Before any file is read or written: DataDirLocked if another command holds it.
        self.datalock = DataDirLock(self.data_dir, holder).acquire()
        try:
            self._setup(config, speed, leds, buttons, pin_factory, clock, source)
        except BaseException:
            self.datalock.release()
            raise

    def _setup(
        self,
        config: Config,
        speed: float | str | None,
        leds: LedStrip | None,
        buttons: Buttons | None,
        pin_factory: Any,
        clock: Callable[[], float] | None,
        source: SampleSource | None,
    ) -> None:
        """Everything of `__init__` that runs under the data directory's lock."""
        self.journal_path = self.data_dir / JOURNAL_FILE
        self.calibration_path = self.data_dir / CALIBRATION_FILE
        self.sim_board_path = self.data_dir / SIM_BOARD_FILE
        self.records_path = self.data_dir / RECORDS_FILE
        self.writes = WriteHealth()
        self.writer = JournalWriter(self.journal_path, self.writes)
        self.link = LoopLink()
        self.stats = LoopStats()
        self.board: Board = find_board(config.board)
        self.mode = config.mode
        self.rng = random.Random(config.sim.random_seed)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

        game, resumed = self._load_game()
        self.game = game
        target = resumed if resumed is not None else StepFollower.new(game.rules)

        # The board: simulated or real.
        self.sim: SimFeed | None = None
        self.hands: VirtualHands | None = None
        self.feed: Feed
        if config.source == "sim" and source is None:
            # A resumed game finds the simulated seeds where they were left; for a new game
            # the virtual hands lay out the start position (as after `new_game`).
            start = self._sim_layout(game, target) if resumed is not None else target.position()
            world = self._new_world(game, start)
            run_speed = config.sim.speed if speed == "config" else speed
            assert run_speed is None or isinstance(run_speed, float | int)
            self.sim = SimFeed(
                world, None if run_speed is None else float(run_speed), **_clock_arg(clock)
            )
            self.hands = VirtualHands(self.sim, self.sim_board_path, config.board, self.writer.save)
            self.feed = self.sim
            self.link.wake = self.sim.wake.set
            self.out("no hardware configured: running the simulated board")
        else:
            if source is None:
                source = open_source(config, len(self.board.cells), self.board.led_count)
            self.feed = HardwareFeed(source, **_clock_arg(clock))
        self.rate_sps = source_rate(config)
        self.calibration = self._load_calibration()
        self.leds: LedStrip = leds or open_leds(
            config, self.board.led_count, getattr(self.feed, "source", None)
        )
        self.buttons = buttons if buttons is not None else open_buttons(config, pin_factory)
        self._board_text = read_board_text(self.board)
        self.recorder = Recorder(
            config.recorder,
            self.data_dir / RECORDINGS_DIR,
            self.feed.cell_count,
            self.rate_sps,
            live=self._live_results,
            software=software_version(),
            out=self.out,
        )

        # Loop state.
        self.window = LevelWindow(self.feed.cell_count, seconds=1.0)
        self.last_frame: Frame | None = None
        self.referee: Referee | None = None
        self.setup: Setup | None = None
        self.session_steps: list[RecognisedStep] = []
        self.session_base = 0
        self.flags: list[dict[str, Any]] = []  # this game's flags that are not the referee's
        # The daemon's id of each referee flag, by its serial (not its place in the list: a
        # referee that answers a simultaneous opening's order again may take flags back).
        self._referee_flag_ids: dict[int, int] = {}
        self._past_flags: list[dict[str, Any]] = []  # earlier referee sessions of this game
        self._setup_flags: dict[Place, dict[str, Any]] = {}
        self._next_flag_id = 1
        self.lights: dict[Place, Light] = {}
        self.pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * self.board.led_count
        self._publications = 0
        self.now = self.feed.now()
        self.health = Health(self._take_flag_id)
        self.link_watch = LinkWatch(self.now)
        self._retry_writes_at = self.now
        self.next_tick = self.now
        self.tick_s = 1.0 / config.leds.fps
        self.last_activity = self.now
        self.hint_until = -1.0
        self._button_at: dict[str, float] = {}  # when each button last counted (loop time)
        self._completed_seen = len(target.completed)
        self._turn_key: tuple[Any, ...] = ()
        self.turn_started = self.now
        self._over_since: float | None = None
        self._still_since: float | None = None  # demo mode: the game has stood still since
        self._last_core: dict[str, Any] | None = None
        self._last_colors: list[str] = []
        self._last_led_publish = -1e9
        self._last_sensor_publish = -1e9
        self._sensors: list[dict[str, Any]] = []
        self._sensors_read = False
        self._watchdog_next = 0.0
        self._systemd_status = ""
        self._enter_setup(target)

    @property
    def busy_until(self) -> float:
        """The loop time when the virtual hands are done (-1: no simulated board)."""
        return -1.0 if self.hands is None else self.hands.busy_until

    # -- loading --------------------------------------------------------------------------------

    def _notice(self, text: str) -> None:
        self.notices.append(text)
        del self.notices[:-20]
        self.out(text)

    def _new_game_state(self, variant: str, options: dict[str, Any]) -> GameState:
        rules = Rules.for_variant(variant, options)
        mapping = self.board.mapping(rules.n)
        header = game_header(rules.variant, options, self.config.board)
        return GameState(rules.variant, dict(options), rules, mapping, header)

    def _load_game(self) -> tuple[GameState, StepFollower | None]:
        """Resume the journal's game if there is one in progress, else a new game."""
        path = self.journal_path
        try:
            loaded = load_game(path)
        except JournalError as err:
            self._notice(f"journal unusable, starting a new game: {err}")
            self._keep_damaged(path)
            loaded = None
        if loaded is not None:
            journal, replayed = loaded
            for problem in replayed.problems:
                self._notice(f"journal {path}: {problem}")
            if journal.board != self.config.board:
                self._notice(
                    f"journal {path}: the game was played on board {journal.board!r}, "
                    f"this is {self.config.board!r}: starting a new game"
                )
            elif replayed.follower.over:
                self._notice("the last game was over: starting a new game")
            else:
                try:
                    game = self._resumed_state(journal, replayed.rules, replayed.steps)
                except (OptionError, BoardFileError) as err:
                    self._notice(f"journal {path}: cannot resume ({err}): starting a new game")
                else:
                    moves = len(replayed.follower.completed)
                    self._notice(
                        f"resumed the {game.variant} game from {path}: {moves} moves, "
                        f"{len(game.steps)} steps"
                    )
                    if replayed.taken_back:
                        first = replayed.taken_back[0]
                        self._notice(
                            f"the move in progress ({len(replayed.taken_back)} steps from "
                            f"{first.step}) was cut off by the restart and is taken back"
                        )
                    if replayed.problems:
                        self._keep_damaged(path)
                    if replayed.problems or replayed.taken_back:
                        self.writer.rewrite(game.entries())
                    return game, replayed.follower
        game = self._new_game_state(self.config.variant, dict(self.config.options))
        self.writer.rewrite(game.entries())
        return game, None

    def _resumed_state(self, journal: Journal, rules: Rules, steps: list[Any]) -> GameState:
        mapping = self.board.mapping(rules.n)
        return GameState(
            rules.variant,
            journal.options,
            rules,
            mapping,
            dict(journal.header),
            [(s.t, s.step) for s in steps],
            journal.seed_g,
            journal.seed_cv,
        )

    def _keep_damaged(self, path: Path) -> None:
        """Keep a copy of a damaged data file for whoever wants to look (it is rewritten)."""
        target = keep_damaged(path)
        if target is not None:
            self._notice(f"the damaged {path.name} is kept as {target}")
        elif path.exists():
            self._notice(f"the damaged {path.name} could not be kept aside (is the card full?)")

    def _sim_layout(self, game: GameState, target: StepFollower) -> Any:
        """Where the simulated seeds lie: the saved layout if it goes with the journal's point
        of the game, else the journal's position (hands.resume_layout)."""
        position, notice, damaged = resume_layout(
            self.sim_board_path, self.config.board, game.rules, game.point(), target.position()
        )
        if notice is not None:
            self._notice(notice)
        if damaged:
            self._keep_damaged(self.sim_board_path)
        return position

    def _scenario(self, game: GameState) -> Scenario:
        sim = self.config.sim
        return Scenario(
            variant=game.variant,
            options=dict(game.options),
            board=self.config.board,
            sensors=SensorParams(
                rate_sps=sim.rate_sps,
                noise_g=sim.noise_g,
                seed_mean_g=sim.seed_mean_g,
                seed_cv=sim.seed_cv,
                calibration_error=sim.calibration_error,
                random_seed=sim.random_seed,
            ),
            player=PlayerParams(seconds_per_seed=sim.seconds_per_seed),
            source="sowboard run",
        )

    def _new_world(self, game: GameState, start: Any) -> SimWorld:
        return SimWorld(self._scenario(game), start=start)

    def _load_calibration(self) -> Calibration:
        cells = self.feed.cell_count
        try:
            found = load_calibration(self.calibration_path, self.board.name, cells)
        except DataFileError as err:
            self._notice(f"calibration not used: {err}")
            self._keep_damaged(self.calibration_path)
            found = None
        if found is not None:
            return found
        if self.sim is not None:
            return Calibration(_pairs(self.sim.world.user_calibration()), origin="simulator")
        self._notice(
            f"no calibration in {self.calibration_path}: weights are rough until the board is "
            "calibrated (admin page, or `sowboard calibrate`)"
        )
        return Calibration(
            tuple((0.0, NOMINAL_COUNTS_PER_G * 1000.0 / c.capacity_g) for c in self.board.cells),
            origin="nominal",
        )

    # -- running --------------------------------------------------------------------------------

    def start(self) -> BoardLoop:
        """Run the loop in its own thread."""
        self.link.accepting = True
        self._thread = threading.Thread(target=self.run, name="sowboard-loop", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self.link.wake()
        if self._thread is not None:
            self._thread.join(timeout)
        else:
            self.shutdown()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self) -> None:
        """The loop (the body of the loop thread); returns after `stop()`."""
        self.link.accepting = True
        try:
            while not self._stop.is_set():
                self.iterate()
        except BaseException:
            self.out("the loop failed:\n" + traceback.format_exc())
            raise
        finally:
            self.shutdown()

    def run_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        """Iterate in the calling thread until `done()` or `timeout_s` of loop time (tests)."""
        self.link.accepting = True
        end = self.feed.now() + timeout_s
        while self.feed.now() < end:
            self.iterate()
            if done():
                return True
        return False

    def iterate(self) -> None:
        """One pass: frames, commands, and the tick when it is due."""
        frames = self.feed.wait(self.next_tick)
        if frames:
            self._on_frames(frames)
        self._commands()
        now = self.now = self.feed.now()
        if now >= self.next_tick:
            self.stats.lags.append(now - self.next_tick)
            self.stats.ticks += 1
            self._tick(now)
            self.next_tick += self.tick_s
            if self.next_tick <= now:
                missed = int((now - self.next_tick) / self.tick_s) + 1
                self.stats.missed_ticks += missed
                self.next_tick += missed * self.tick_s

    def _commands(self) -> None:
        """Carry out queued commands for COMMAND_BUDGET_S at the most (at least one): the rest
        wait for the next pass, so that the frames and the tick come between them however
        many requests queued commands at once."""
        budget_end = time.perf_counter() + COMMAND_BUDGET_S
        while (command := self.link.take_command()) is not None:
            name, args, future = command
            try:
                future.set_result(self.execute(name, args))
            except CommandError as err:
                future.set_exception(err)
            except Exception as err:
                self.out(f"command {name} failed:\n{traceback.format_exc()}")
                future.set_exception(CommandError("command", f"internal error: {err}"))
            if time.perf_counter() >= budget_end:
                self.link.wake()  # more may wait: do not sleep until the next frame
                return

    def shutdown(self) -> None:
        """Close everything the loop owns (the thread's last act, or `stop()` without one)."""
        if self._closed:
            return
        self._closed = True
        self.link.close()
        if self.sim is not None:
            self._save_sim_layout(force=False)
        self.writer.flush()
        self.writer.close()
        with contextlib.suppress(Exception):
            self.leds.close()
        if self.buttons is not None:
            with contextlib.suppress(Exception):
                self.buttons.close()
        with contextlib.suppress(Exception):
            self.feed.close()
        self.recorder.close()
        self.datalock.release()

    # -- frames ---------------------------------------------------------------------------------

    def _on_frames(self, frames: list[Frame]) -> None:
        self.recorder.add(frames)
        referee = self.referee
        for frame in frames:
            self.window.add(frame)
            if referee is not None:
                referee.process(frame)
        self.last_frame = frames[-1]
        self.link_watch.frames_arrived(self.feed.now())
        self.stats.frames += len(frames)
        if referee is not None:
            if referee.publications != self._publications:
                # The next place changed: light it now, not at the next tick (latency).
                self._publications = referee.publications
                self._render(self.feed.now())
        elif self.setup is not None:
            self._check_setup(frames[-1].t)

    # -- setup: weigh the board before the referee starts ----------------------------------------

    def _enter_setup(self, follower: StepFollower) -> None:
        # (first: a flag's recording still waiting is saved with the referee that raised it)
        self.recorder.new_session(
            SessionInfo(
                self.board.name,
                self._board_text,
                self.game.variant,
                dict(self.game.options),
                self.calibration.cells,
                self._game_steps(),
            )
        )
        if self.referee is not None:
            for flag in self._referee_flags():
                flag["active"] = False  # the board is checked again from scratch
                self._past_flags.append(flag)
        self.referee = None
        self._referee_flag_ids = {}
        self.setup = Setup(
            follower, place_counts(self.game.rules, follower.position()), self.feed.now()
        )
        self.window.clear()
        self._completed_seen = len(follower.completed)

    def _seed_guess(self, levels: list[float | None], counts: dict[Place, int]) -> float | None:
        game = self.game
        known = game.seed_g or self.calibration.seed_g
        if known:
            return known
        estimate = estimate_seed_g(levels, game.mapping, counts)
        if estimate is not None and estimate >= MIN_SEED_G:
            return estimate
        return SEED_GUESS_G if any(counts.values()) else None

    def _check_setup(self, t: float) -> None:
        setup = self.setup
        assert setup is not None
        if (
            t - setup.last_check < CHECK_EVERY_S
            or self.window.span() < STARTUP_S + 0.1
            or len(self.window.frames) < STARTUP_FRAMES
        ):
            return
        setup.last_check = t
        cal = list(self.calibration.cells)
        levels = self.window.medians(cal)
        seed_g = self._seed_guess(levels, setup.counts)
        if seed_g is None or seed_g <= 0:
            return
        if not self.window.at_rest(cal, seed_g):
            return
        cv = self.game.seed_cv or self.calibration.seed_cv or DEFAULT_CV
        wrong = check_board(levels, self.game.mapping, setup.counts, seed_g, cv)
        setup.wrong = wrong
        setup.checked = True
        self._update_setup_flags(t, wrong)
        if not wrong:
            self._start_referee(setup.follower)

    def _update_setup_flags(self, t: float, wrong: list[PlaceCheck]) -> None:
        now_wrong = {c.place: c for c in wrong}
        for place, flag in list(self._setup_flags.items()):
            if place not in now_wrong:
                flag["active"] = False
                del self._setup_flags[place]
        for place, check in now_wrong.items():
            known = self._setup_flags.get(place)
            if known is None:
                self._setup_flags[place] = self._new_flag(
                    t, "board_mismatch", place, check.detail()
                )
            else:
                known["detail"] = check.detail()

    def _take_flag_id(self) -> int:
        """The next flag id: one sequence for every flag on the page, whoever raises it."""
        self._next_flag_id += 1
        return self._next_flag_id - 1

    def _new_flag(self, t: float, kind: str, at: Place | None, detail: str) -> dict[str, Any]:
        flag = {
            "id": self._take_flag_id(),
            "t": round(t, 3),
            "kind": kind,
            "at": None if at is None else at.to_json(),
            "expected": [],
            "active": True,
            "detail": detail,
        }
        self.flags.append(flag)
        return flag

    def _start_referee(self, follower: StepFollower) -> None:
        frames = list(self.window.frames)
        source = _FrameList(frames, self.feed.cell_count)
        try:
            referee = start_referee(
                source,
                list(self.calibration.cells),
                self.game.rules,
                self.game.mapping,
                self.rate_sps,
                follower=follower.copy(),
            )
        except (RuntimeError, ValueError) as err:
            self._notice(f"the referee could not start yet: {err}")
            return
        for frame in source.frames:  # what start-up did not need
            referee.process(frame)
        self.recorder.anchor(len(frames), "start", self._game_steps())
        self.referee = referee
        self.setup = None
        self.session_steps = []
        self.session_base = len(self.game.steps)
        self._publications = referee.publications
        self._completed_seen = len(referee.game.completed)
        if self.game.seed_g is None:
            self.game.seed_g = round(referee.seed_g, 4)
            self.game.seed_cv = round(referee.start_cv, 4)
            self.writer.append(
                {"type": "seed", "seed_g": self.game.seed_g, "seed_cv": self.game.seed_cv}
            )
        self._render(self.feed.now())

    # -- the tick -------------------------------------------------------------------------------

    def _tick(self, now: float) -> None:
        self._buttons(now)
        if self.referee is not None:
            self._journal_steps()
            self._follow_game(now)
        if self.sim is not None:
            self._sim_tick(now)
        self._check_health(now)
        self._render(now)
        self._publish(now)
        self._recorder_tick(now)
        self._systemd()

    def _check_health(self, now: float) -> None:
        """The daemon's parts report what is wrong with them (health.py)."""
        fault = self.link_watch.fault(now, self.feed.status(), self.referee is not None)
        self.health.report(now, LINK_FAULT, {} if fault is None else {"link": fault})
        failures = self.writes.failures()
        self.health.report(now, WRITE_FAILED, failures)
        if failures and now >= self._retry_writes_at:
            self._retry_writes_at = now + WRITE_RETRY_S
            self.writer.retry()

    def _buttons(self, now: float) -> None:
        names: list[str] = []
        if self.sim is not None:
            names.extend(p.name for p in self.sim.poll_buttons())
        if self.buttons is not None:
            names.extend(self.buttons.drain())
        for name in names:
            self.last_activity = now
            if now - self._button_at.get(name, -1e9) < BUTTON_REPEAT_S:
                continue
            self._button_at[name] = now
            try:
                if name == "new_game":
                    self.execute("new_game", {})
                elif name == "undo":
                    self.execute("undo", {})
                elif name == "hint":
                    self.hint_until = now + HINT_S
                elif name == "mode":
                    following = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
                    self.execute("mode", {"mode": following})
            except CommandError as err:
                self._notice(f"button {name}: {err.message}")

    def _journal_steps(self) -> None:
        """Append the referee's new steps; a step it took back is retracted in the journal."""
        referee = self.referee
        assert referee is not None
        steps = referee.steps
        known = self.session_steps
        n = len(known)
        if n and (len(steps) < n or steps[n - 1] is not known[n - 1]):
            k = 0
            while k < min(len(steps), n) and steps[k] is known[k]:
                k += 1
            del known[k:]
            del self.game.steps[self.session_base + k :]
            self.writer.append({"type": "retract", "keep": len(self.game.steps)})
        for recognised in steps[len(known) :]:
            known.append(recognised)
            self.game.steps.append((recognised.t, recognised.step))
            self.writer.append(step_entry(recognised.t, recognised.step))

    def _follow_game(self, now: float) -> None:
        referee = self.referee
        assert referee is not None
        game = referee.game
        if referee.last_activity > self.last_activity:
            self.last_activity = referee.last_activity
        if len(game.completed) != self._completed_seen:
            self._completed_seen = len(game.completed)
            if self.hands is not None:
                self.hands.layout_pending = True
        position = game.position()
        key = (position.to_move, len(game.completed), position.over)
        if key != self._turn_key:
            self._turn_key = key
            self.turn_started = now
        if game.over and not self.game.recorded and not game.pending_sweeps:
            self.game.recorded = True
            self._over_since = now
            self._archive_record(finished=True)

    def _game_steps(self) -> tuple[Step, ...]:
        return tuple(step for _t, step in self.game.steps)

    def _recorder_tick(self, now: float) -> None:
        """Note the board at rest between moves for the recorder, and tell it of the
        referee's new flags (not the setup's `board_mismatch`: a board being laid out for a
        new game is not a mistake worth a recording)."""
        referee = self.referee
        if referee is not None and self.recorder.wants_rest_anchor(now) and self._at_rest():
            self.recorder.anchor(len(self.window.frames), "rest", self._game_steps())
        newest = max((f.serial for f in referee.flags), default=0) if referee else 0
        self.recorder.tick(now, newest)

    def _at_rest(self) -> bool:
        """Between moves, no flag up, and the last second of frames at rest: a referee started
        from these frames with the game's steps would see what the live one sees."""
        referee = self.referee
        assert referee is not None
        window = self.window
        return (
            referee.phase() == "start"
            and at_move_boundary(referee.game)
            and not any(f.active for f in referee.flags)
            and window.span() >= STARTUP_S + 0.1
            and len(window.frames) >= STARTUP_FRAMES
            and window.at_rest(list(self.calibration.cells), referee.seed_g)
        )

    def _live_results(self, since: float) -> dict[str, Any]:
        """What the live referee recognised and flagged from `since` on (a recording's)."""
        referee = self.referee
        if referee is None:
            return {"steps": [], "flags": []}
        return {
            "steps": [s.to_json() for s in referee.steps if s.t >= since],
            "flags": [f.to_json() for f in referee.flags if f.t >= since],
        }

    def _archive_record(self, finished: bool) -> None:
        record = self._record()
        if not record["moves"]:
            return
        record["finished"] = finished
        record["saved"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.writer.append_to(self.records_path, _json_line(record))

    # -- lights ---------------------------------------------------------------------------------

    def follower(self) -> StepFollower:
        """The game as it stands (the referee's, or the one the setup waits to start)."""
        if self.referee is not None:
            return self.referee.game
        assert self.setup is not None
        return self.setup.follower

    def idle(self, now: float) -> bool:
        minutes = self.config.leds.idle_minutes
        if self.mode == "demo" and self.sim is None:
            return True
        if minutes <= 0 or now - self.last_activity < minutes * 60:
            return False
        return self.referee is not None and self.referee.phase() in ("start", "over")

    def guidance_state(self, now: float) -> GuidanceState:
        places = self.game.mapping.places
        if self.referee is None:
            setup = self.setup
            assert setup is not None
            return GuidanceState(
                to_move=setup.follower.to_move,
                mismatch={c.place: c.how for c in setup.wrong},
                places=places,
            )
        state = self.referee.guidance_state(places)
        state.idle = self.idle(now)
        return state

    def _render(self, now: float) -> None:
        state = self.guidance_state(now)
        lights = self.health.lights(guidance(state), self.game.mapping.places)
        if not state.idle and self.referee is not None:
            if self.mode == "teach" and state.expected_kind == "sow" and not state.flag_kind:
                for place in self._lap_path():
                    lights.setdefault(place, Light(PATH_COLOR, "steady", "path"))
            if now < self.hint_until:
                for place in state.expected:
                    lights[place] = Light(WHITE, "fast_blink", "hint")
        leds = self.config.leds
        self.lights = lights
        self.pixels = render(
            lights,
            self.game.mapping.leds_of,
            self.board.led_count,
            now,
            brightness=leds.brightness,
            max_current_a=leds.max_current_a,
        )
        self.leds.show(self.pixels)

    def _lap_path(self) -> list[Place]:
        """Teach mode: the places the seeds still in the hand will go to, after the next one."""
        game = self.follower()
        rules = self.game.rules
        out: list[Place] = []
        for p in game.active_players():
            hand = game.hands[p]
            if hand.phase is not Phase.SOWING or not hand.sequence:
                continue
            seq = hand.sequence
            for k in range(1, hand.seeds):
                out.append(rules.place(seq[(hand.sown + k) % len(seq)]))
        return out

    # -- the status snapshot --------------------------------------------------------------------

    def _referee_flags(self) -> list[dict[str, Any]]:
        referee = self.referee
        if referee is None:
            return []
        ids = self._referee_flag_ids
        for flag in referee.flags:
            if flag.serial not in ids:
                ids[flag.serial] = self._take_flag_id()
        return [_flag_json(flag, ids[flag.serial]) for flag in referee.flags]

    def _record(self) -> dict[str, Any]:
        game = self.follower()
        record: dict[str, Any] = {"variant": self.game.variant, "options": dict(self.game.options)}
        if self.game.rules.options.simultaneous_opening:
            record["steps"] = [s.to_json() for _t, s in self.game.steps]
        record["moves"] = [m.pit for m in game.completed]
        return record

    def state_name(self) -> str:
        return "playing" if self.referee is not None else "setup"

    def _core(self) -> dict[str, Any]:
        """Everything in the snapshot that changes only when the game does."""
        referee = self.referee
        game = self.follower()
        rules = self.game.rules
        position = game.position()
        flags = sorted(
            self._past_flags + self.flags + self._referee_flags() + self.health.flags(),
            key=lambda f: f["id"],
        )[-MAX_FLAGS:]
        places = {
            _key(place): {"color": hex_color(light.color), "effect": light.effect}
            for place, light in self.lights.items()
        }
        for place in self.game.mapping.places:
            places.setdefault(_key(place), {"color": "#000000", "effect": "none"})
        return {
            "sim": self.sim is not None,
            "board": self._board_json(),
            "game": {
                "variant": self.game.variant,
                "options": self._options_json(rules),
                "position": position.to_json(),
                "hand": referee.belief()["hand"] if referee is not None else [0, 0],
                "expected": [p.to_json() for p in referee.expected_places()] if referee else [],
                "expected_kind": referee.expected_kind() if referee else "none",
                "phase": referee.phase() if referee else "waiting",
                "history": [
                    {"ply": k, "player": m.player, "pit": m.pit}
                    for k, m in enumerate(game.completed, start=1)
                ],
                "record": self._record(),
            },
            "flags": flags,
            "leds_places": places,
            "mode": self.mode,
            "daemon": {
                "state": self.state_name(),
                "source": self.feed.status().name,
                "data_dir": str(self.data_dir),
                "calibration": self.calibration.origin,
                "notices": list(self.notices),
                "faults": self.health.faults(),
                "steps": len(self.game.steps),
                "sim_busy": self.sim is not None and self.now < self.busy_until,
                "idle": self.idle(self.now),
                "recorder": self.recorder.status(),
            },
        }

    @staticmethod
    def _options_json(rules: Rules) -> dict[str, Any]:
        """Every rule option; `closed` (pits a handicap round closed, not an option anyone
        sets) only when there are any."""
        options = rules.options.to_json()
        if not options.get("closed"):
            options.pop("closed", None)
        return options

    def _board_json(self) -> dict[str, Any]:
        mapping = self.game.mapping
        return {
            "name": self.board.name,
            "pits": mapping.pits,
            "led_count": self.board.led_count,
            "places": [
                {"place": place.to_json(), "cell": cell, "leds": list(mapping.leds_of[place])}
                for place, cell in mapping.cell_of.items()
            ],
            "idle_cells": list(mapping.idle_cells),
        }

    def _sensor_json(self) -> list[dict[str, Any]]:
        referee = self.referee
        cal = referee.detector.calibration if referee else list(self.calibration.cells)
        levels = self.window.medians(cal)
        noise = self.window.noise(cal)
        rate = self.feed.rate_sps()
        status = self.feed.status()
        place_of = self.game.mapping.place_of
        frame = self.last_frame
        out = []
        for cell in range(self.feed.cell_count):
            fault: str | None = None
            if referee is not None and cell in referee.fault_flags:
                fault = referee.fault_flags[cell].detail or "fault"
            elif status.fault and f"cell {cell}" in status.fault:
                fault = status.fault
            place = place_of.get(cell)
            level = levels[cell]
            out.append(
                {
                    "cell": cell,
                    "place": None if place is None else place.to_json(),
                    "raw": None if frame is None else frame.raw[cell],
                    "grams": None if level is None else round(level, 2),
                    "noise_g": None if noise[cell] is None else round(noise[cell] or 0.0, 3),
                    "rate_sps": round(rate, 1),
                    "fault": fault,
                }
            )
        return out

    def _publish(self, now: float) -> None:
        core = self._core()
        colors = [hex_color(p) for p in self.pixels]
        changed = core != self._last_core
        if now - self._last_sensor_publish >= SENSOR_PUBLISH_S or not self._sensors_read:
            self._sensors = self._sensor_json()
            self._sensors_read = len(self.window.frames) >= 8  # else again at the next tick
            self._last_sensor_publish = now
            changed = True
        if not changed and (
            colors == self._last_colors or now - self._last_led_publish < LED_PUBLISH_S
        ):
            return
        self._last_core = core
        self._last_colors = colors
        self._last_led_publish = now
        game = dict(core["game"])
        game["turn_timer"] = {
            "limit_s": self.game.rules.options.move_time_limit_s,
            "elapsed_s": round(max(0.0, now - self.turn_started), 1),
        }
        lags = self.stats.lags
        daemon = dict(core["daemon"])
        daemon["loop"] = {
            "ticks": self.stats.ticks,
            "missed_ticks": self.stats.missed_ticks,
            "lag_ms_p99": round(_p99(lags) * 1000, 2) if lags else 0.0,
            "frames": self.stats.frames,
        }
        status = {
            "version": 0,
            "published_at": 0.0,
            "sim": core["sim"],
            "board": core["board"],
            "game": game,
            "flags": core["flags"],
            "leds": {
                "colors": colors,
                "places": core["leds_places"],
                "current_a": round(estimate_current_a(self.pixels), 3),
                "brightness": self.config.leds.brightness,
            },
            "mode": core["mode"],
            "sensors": self._sensors,
            "daemon": daemon,
        }
        self.link.publish(status)
        self.stats.publishes += 1

    def _systemd(self) -> None:
        wall = time.monotonic()
        watchdog = self.notifier.watchdog_s
        if watchdog and wall >= self._watchdog_next:
            self.notifier.watchdog()
            self._watchdog_next = wall + watchdog / 3
        if self.notifier.enabled:
            game = self.follower()
            position = game.position()
            text = (
                f"{self.game.variant}, {len(game.completed)} moves, "
                + (
                    "game over"
                    if position.over
                    else f"player {(position.to_move or 0) + 1} to move"
                )
                + ("" if self.referee is not None else ", checking the board")
            )
            if text != self._systemd_status:
                self._systemd_status = text
                self.notifier.status(text)

    # -- commands -------------------------------------------------------------------------------

    def execute(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Carry out a command now (the loop thread's side of `LoopLink.command`)."""
        handler = getattr(self, f"_cmd_{name}", None)
        if name not in COMMANDS or handler is None:
            raise CommandError("command", f"unknown command {name!r}, known: {', '.join(COMMANDS)}")
        self.last_activity = self.feed.now()
        result: dict[str, Any] = handler(args)
        return result

    def _cmd_new_game(self, args: dict[str, Any]) -> dict[str, Any]:
        variant = args.get("variant", self.game.variant)
        options = args.get("options")
        if options is None:
            options = self.game.options if variant == self.game.variant else {}
        if not isinstance(variant, str):
            raise CommandError("variant", f"{variant!r} is not a variant name")
        if not isinstance(options, dict):
            raise CommandError("options", "expected an object of option names and values")
        try:
            game = self._new_game_state(variant, dict(options))
        except OptionError as err:
            field_name = "variant" if str(err).startswith("unknown variant") else "options"
            raise CommandError(field_name, str(err)) from None
        except BoardFileError as err:
            raise CommandError("options", str(err)) from None
        if not self.game.recorded:
            self._archive_record(finished=False)
        self.game = game
        self.writer.rewrite(game.entries())
        follower = StepFollower.new(game.rules)
        if self.sim is not None:
            self._relay_sim(follower)
        self._enter_setup(follower)
        self._reset_game_flags()  # (after: entering setup keeps the old referee's flags)
        self._over_since = None
        self._still_since = None
        return {"variant": game.variant, "options": dict(game.options)}

    def _reset_game_flags(self) -> None:
        self.flags = []
        self._past_flags = []
        self._setup_flags = {}
        self._referee_flag_ids = {}

    def _relay_sim(self, follower: StepFollower) -> None:
        """The virtual hands lay the simulated board out as the game now stands."""
        assert self.sim is not None
        world = self._new_world(self.game, follower.position())
        self.sim.replace_world(world)
        assert self.hands is not None
        self.hands.relaid()
        if self.calibration.origin != "file":
            # The new world's own cells; a calibration from the file is kept as it is in
            # memory (reading the file back could find it before the writer saved it).
            self.calibration = self._load_calibration()
        self._save_sim_layout(force=True)

    def _cmd_undo(self, args: dict[str, Any]) -> dict[str, Any]:
        game = self.game
        if self.referee is not None:
            self._journal_steps()
        follower = StepFollower.new(game.rules)
        boundaries = [0]
        for k, (_t, step) in enumerate(game.steps):
            follower.feed(step)
            if at_move_boundary(follower):
                boundaries.append(k + 1)
        current = len(game.steps)
        if boundaries[-1] == current:
            if len(boundaries) < 2:
                raise CommandError("command", "there is no move to undo")
            keep = boundaries[-2]
        else:
            keep = boundaries[-1]
        game.steps = game.steps[:keep]
        game.recorded = False
        self.writer.rewrite(game.entries())
        target = game.follower()
        if self.sim is not None:
            self._relay_sim(target)
        self._enter_setup(target)
        self._over_since = None
        return {"moves": len(target.completed), "steps": keep}

    def _cmd_mode(self, args: dict[str, Any]) -> dict[str, Any]:
        mode = args.get("mode")
        if mode not in MODES:
            raise CommandError("mode", f"{mode!r} is not a mode, allowed: {', '.join(MODES)}")
        self.mode = mode
        return {"mode": mode}

    def _cmd_save_recording(self, args: dict[str, Any]) -> dict[str, Any]:
        seconds = args.get("seconds")
        limit = self.config.recorder.seconds
        if seconds is not None and (
            not isinstance(seconds, int | float)
            or isinstance(seconds, bool)
            or not 1 <= seconds <= limit
        ):
            raise CommandError(
                "seconds",
                f"{seconds!r} is not a number of seconds from 1 to {limit} ([recorder] seconds)",
            )
        reason = args.get("reason", "admin")
        if reason not in ("admin", "cli"):
            raise CommandError("reason", f"{reason!r} is not allowed, allowed: admin, cli")
        try:
            name = self.recorder.save(reason, None if seconds is None else float(seconds))
        except ValueError as err:
            raise CommandError("command", str(err)) from None
        return {"file": name}

    def _cmd_calibrate(self, args: dict[str, Any]) -> dict[str, Any]:
        stage = args.get("stage")
        cal = list(self.calibration.cells)
        seed_guess = self.game.seed_g or self.calibration.seed_g or SEED_GUESS_G
        if self.window.span() < STARTUP_S or not self.window.at_rest(cal, seed_guess):
            raise CommandError("command", "the board is not at rest: wait a moment and try again")
        raw = self.window.raw_medians()
        result: dict[str, Any] = {"stage": stage}
        if stage == "empty":
            self._refuse_loaded_board(cal, seed_guess)
            cells = tuple(
                (float(r) if r is not None else off, scale)
                for r, (off, scale) in zip(raw, cal, strict=True)
            )
            self.calibration = Calibration(
                cells, self.calibration.seed_g, self.calibration.seed_cv, origin="file"
            )
            result["cells"] = len(cells)
        elif stage == "reference":
            grams = args.get("grams")
            if not isinstance(grams, int | float) or isinstance(grams, bool) or grams <= 0:
                raise CommandError("grams", "the reference stage needs the weight in grams")
            loads = [
                (0.0 if r is None else (r - off) / scale, cell)
                for cell, (r, (off, scale)) in enumerate(zip(raw, cal, strict=True))
            ]
            loads.sort(reverse=True)
            (load, cell), (second, _) = loads[0], loads[1]
            if load < 0.3 * grams:
                raise CommandError(
                    "grams", f"no cup carries about {grams:g} g: put the weight in one cup"
                )
            if second > 0.2 * grams:
                raise CommandError("command", "more than one cup is loaded: empty the others")
            off, scale = cal[cell]
            cal[cell] = (off, scale * load / grams)
            self.calibration = Calibration(
                tuple(cal), self.calibration.seed_g, self.calibration.seed_cv, origin="file"
            )
            place = self.game.mapping.place_of.get(cell)
            result.update(
                cell=cell,
                place=None if place is None else place.to_json(),
                counts_per_g=round(cal[cell][1], 3),
            )
        elif stage == "layout":
            start = place_counts(self.game.rules, StepFollower.new(self.game.rules).position())
            levels = self.window.medians(cal)
            seed_g = estimate_seed_g(levels, self.game.mapping, start)
            if seed_g is None:
                raise CommandError("command", "the board holds no seeds to weigh")
            wrong = check_board(levels, self.game.mapping, start, seed_g)
            if wrong:
                where = ", ".join(str(c.place) for c in wrong)
                raise CommandError("command", f"the start layout is not on the board ({where})")
            self.calibration = Calibration(
                self.calibration.cells, round(seed_g, 4), None, origin="file"
            )
            self.game.seed_g = None  # measured again by the referee from this board
            result["seed_g"] = round(seed_g, 3)
        else:
            raise CommandError(
                "stage", f"{stage!r} is not a stage, allowed: empty, layout, reference"
            )
        calibration = self.calibration
        path = self.calibration_path
        board = self.board.name
        self.writer.save(path, lambda: save_calibration(path, board, calibration))
        if self.referee is not None:
            self._journal_steps()
        self._enter_setup(self.game.follower())
        return result

    def _refuse_loaded_board(self, cal: list[tuple[float, float]], seed_g: float) -> None:
        """The zero stage on a board that is visibly not empty is refused (boardcheck.
        loaded_cells says why and how much). Without a calibration (`nominal`: the zeros are
        not known at all) nothing can be judged, and the first zeros are taken as they are."""
        if self.calibration.origin == "nominal":
            return
        loaded = loaded_cells(self.window.medians(cal), seed_g)
        if loaded:
            place_of = self.game.mapping.place_of
            where = ", ".join(str(place_of.get(c, f"cell {c}")) for c in loaded)
            raise CommandError(
                "command",
                f"the board is not empty ({where} hold seeds by the current calibration): "
                "take every seed out first",
            )

    # -- the simulated board's hands ------------------------------------------------------------

    def _need_sim(self) -> SimFeed:
        if self.sim is None:
            raise CommandError("command", "the simulated board is not running")
        if self.now < self.busy_until:
            raise CommandError(
                "command",
                f"the virtual hand is still busy for {self.busy_until - self.now:.1f} s",
            )
        return self.sim

    def _sim_follower(self) -> StepFollower:
        """The referee's game, when the virtual hand may play on it: between moves, with the
        simulated board matching it."""
        sim = self._need_sim()
        referee = self.referee
        if referee is None:
            raise CommandError("command", "the board is being checked: wait until play starts")
        follower = referee.game
        if follower.over:
            raise CommandError("command", "the game is over")
        if referee.phase() != "start" or not at_move_boundary(follower):
            raise CommandError("command", "a move is in progress")
        truth = sim.world.truth()
        position = follower.position()
        if (
            truth["pits"] != [list(r) for r in position.pits]
            or truth["stores"] != list(position.stores)
            or any(truth["hand"])
        ):
            raise CommandError(
                "command", "the simulated board does not match the game: put it right first"
            )
        return follower

    def _sim_game(self, follower: StepFollower) -> Any:
        """The game the virtual hand plays one move of (not in the simultaneous opening)."""
        from controller.rules import Game

        if follower.to_move is None:
            raise CommandError(
                "command", "in the simultaneous opening the virtual hands play no mistakes"
            )
        game = Game(self.game.rules, start=follower.position())
        game.history = follower.history.copy()
        return game

    def _sim_opening(self, follower: StepFollower, args: dict[str, Any]) -> dict[str, Any]:
        """The virtual hands play the rest of the simultaneous opening, each hand about to
        start from its pit: `pits` [hand 0's, hand 1's] when both are (they start at once),
        `pit` when one hand is done already."""
        starting = starting_hands(follower)
        if len(starting) == 2:
            pits = args.get("pits")
            if pits is None:
                raise CommandError(
                    "pits",
                    "is missing: in the simultaneous opening both hands start at once, "
                    "send pits [hand 0's pit, hand 1's pit]",
                )
            if (
                not isinstance(pits, list | tuple)
                or len(pits) != 2
                or not all(isinstance(p, int) and not isinstance(p, bool) for p in pits)
            ):
                raise CommandError(
                    "pits", f"{pits!r} is not two pit numbers (hand 0's and hand 1's first pit)"
                )
            chosen, field_name = {0: pits[0], 1: pits[1]}, "pits"
        else:
            (hand,) = starting
            pit = args.get("pit")
            if pit is None:
                raise CommandError(
                    "pit", f"is missing: only hand {hand} is still to start its opening move"
                )
            if not isinstance(pit, int) or isinstance(pit, bool):
                raise CommandError("pit", f"{pit!r} is not a pit number")
            chosen, field_name = {hand: pit}, "pit"
        assert self.sim is not None
        try:
            opening = schedule_opening(self.sim.world, follower, chosen)
        except OpeningChoiceError as err:
            raise CommandError(field_name, str(err)) from None
        self._schedule(opening.actions)
        if len(chosen) == 2:
            return {"played": [chosen[0], chosen[1]], "player": None}
        return {"played": chosen[starting[0]], "player": starting[0]}

    def _schedule(self, actions: list[Any]) -> None:
        """Note how long the virtual hand is busy with `actions` (already in the world)."""
        assert self.hands is not None
        if self.hands.layout_pending:
            # The last move's layout, before these actions touch the seeds (they start at the
            # next sample): a restart during this move then finds the board as it was.
            self._save_sim_layout(force=False)
        self.hands.note(actions)
        self.hands.layout_pending = True

    def _cmd_sim_move(self, args: dict[str, Any]) -> dict[str, Any]:
        if "pit" in args and "pits" in args:
            raise CommandError("pits", "send either pit or pits, not both")
        follower = self._sim_follower()
        if follower.to_move is None:
            return self._sim_opening(follower, args)
        if "pits" in args:
            raise CommandError(
                "pits",
                "both hands' pits are for the simultaneous opening, which is over: send pit",
            )
        game = self._sim_game(follower)
        pit = args.get("pit")
        if not isinstance(pit, int) or isinstance(pit, bool):
            raise CommandError("pit", f"{pit!r} is not a pit number")
        reason = game.why_illegal(pit)
        if reason is not None:
            raise CommandError("pit", reason)
        assert self.sim is not None
        move = schedule_move(self.sim.world, game, pit=pit)
        self._schedule(move.actions)
        return {"played": pit, "player": game.to_move}

    def _cmd_sim_mistake(self, args: dict[str, Any]) -> dict[str, Any]:
        game = self._sim_game(self._sim_follower())
        kind = args.get("kind")
        pit = args.get("pit")
        assert self.sim is not None
        try:
            move = schedule_move(self.sim.world, game, pit=pit, mistake=str(kind))
        except MistakeNotPossible as err:
            raise CommandError("kind", str(err)) from None
        except ValueError as err:
            raise CommandError("kind", str(err)) from None
        self._schedule(move.actions)
        mistake = move.mistakes[0] if move.mistakes else None
        return {
            "kind": kind,
            "pit": move.pit,
            "at": None if mistake is None else mistake.at.to_json(),
        }

    def _cmd_sim_actions(self, args: dict[str, Any]) -> dict[str, Any]:
        sim = self._need_sim()
        try:
            actions = parse_actions(args.get("actions"), self.game.rules.n, "sim_actions")
        except ScenarioError as err:
            raise CommandError("actions", str(err)) from None
        to_move = self.follower().to_move
        sim.world.default_hand = to_move if to_move is not None else 0
        base = sim.world.schedule(actions)
        self._schedule([a.shifted(base) for a in actions])
        return {"scheduled": len(actions)}

    def _sim_tick(self, now: float) -> None:
        assert self.hands is not None
        if self.hands.layout_pending and now >= self.busy_until:
            self._save_sim_layout(force=False)
        if self.mode != "demo" or now < self.busy_until:
            return
        if self.referee is None:
            self._demo_setup(now)
            return
        game = self.referee.game
        if game.over:
            if self._over_since is not None and now - self._over_since >= DEMO_NEW_GAME_S:
                self.execute("new_game", {})
            return
        if any(f.active for f in self.referee.flags):
            # Nobody is at a demo board to put a mistake right (the referee's own, if the
            # virtual hands made none): after a while, start again rather than stand still.
            self._standing_still(now, "a flag waited with nobody to put it right")
            return
        try:
            follower = self._sim_follower()
            if follower.to_move is None:
                # Each hand about to start picks a random pit of its own that holds seeds.
                rules, board = follower.rules, follower.board
                starts = [rules.legal_moves(board, h) for h in starting_hands(follower)]
                if not all(starts):
                    return
                picks = [self.rng.choice(pits) for pits in starts]
                args: dict[str, Any] = {"pits": picks} if len(picks) == 2 else {"pit": picks[0]}
                self._sim_opening(follower, args)
                self._still_since = None
                return
            sim_game = self._sim_game(follower)
        except CommandError as err:
            # The hands are done, yet the referee waits for a step (or the board does not
            # match it): the referee's mistake with no flag to show for it, that nobody will
            # put right either.
            self._standing_still(
                now, f"the game waited for what the hands will not do ({err.message})"
            )
            return
        self._still_since = None
        pit = self.rng.choice(sim_game.legal_moves())
        assert self.sim is not None
        move = schedule_move(self.sim.world, sim_game, pit=pit)
        self._schedule(move.actions)

    def _demo_setup(self, now: float) -> None:
        """Demo mode, the board weighed before play: a board that does not match the game has
        nobody to put it right, so after a while the virtual hands lay it out as the game
        stands (the game is kept: it is the board, not the game, that is wrong)."""
        setup = self.setup
        if setup is None or not setup.wrong:
            self._still_since = None
            return
        self._standing_still(
            now, "the board did not match the game with nobody to put it right", self._relay_setup
        )

    def _relay_setup(self) -> None:
        assert self.setup is not None
        follower = self.setup.follower
        self._relay_sim(follower)
        self._enter_setup(follower)
        self._notice("demo: the simulated board was laid out again as the game stands")

    def _standing_still(
        self, now: float, why: str, remedy: Callable[[], None] | None = None
    ) -> None:
        """Demo mode cannot go on: after DEMO_STILL_NEW_GAME_S of that, `remedy` (by default
        a new game)."""
        if self._still_since is None:
            self._still_since = now
        elif now - self._still_since >= DEMO_STILL_NEW_GAME_S:
            self._still_since = None
            if remedy is None:
                self._notice(f"demo: {why}; a new game")
                self.execute("new_game", {})
            else:
                self._notice(f"demo: {why}")
                remedy()

    def _save_sim_layout(self, force: bool) -> None:
        """Persist where the simulated seeds lie (only when no hand holds any), with the
        journal's point of the game it goes with."""
        assert self.hands is not None
        self.hands.save_layout(self.game.rules, self.game.point(), force)


def _clock_arg(clock: Callable[[], float] | None) -> dict[str, Any]:
    return {} if clock is None else {"clock": clock}


def _pairs(cells: list[CellCalibration]) -> tuple[tuple[float, float], ...]:
    return tuple((c.offset, c.counts_per_g) for c in cells)


def _key(place: Place) -> str:
    return f"{place.player},{place.pit}"


def _flag_json(flag: Flag, flag_id: int) -> dict[str, Any]:
    return {
        "id": flag_id,
        "t": round(flag.t, 3),
        "kind": flag.kind,
        "at": None if flag.at is None else flag.at.to_json(),
        "expected": [p.to_json() for p in flag.expected],
        "active": flag.active,
        "detail": flag.detail,
    }


def _json_line(data: dict[str, Any]) -> str:
    import json

    return json.dumps(data, separators=(",", ":")) + "\n"


def _p99(values: deque[float] | list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def print_err(text: str) -> None:
    print(f"sowboard: {text}", file=sys.stderr, flush=True)
