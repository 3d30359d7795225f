"""The daemon's loop: the parts of `sowboard run` wired together, and one thread that owns them.

The reactor (reactor.py) waits on the feed and dispatches: the frames go to the game session
(session.py: setup, then playing), the commands the web layer and the board buttons queued are
carried out here, and on every tick (`leds.fps` a second) the new steps are journaled, the
lights rendered (lights.py), the parts' health checked (health.py), what the loop lost by
falling behind its source counted (behind.py) and a status snapshot published when something
changed (publisher.py), each part reporting its own section (status.py). Data flows one way:
samples -> steps -> the game -> the LEDs and the page. Nothing else touches the referee, the
rules engine or the simulated world, so none of them needs a lock; the web layer sees immutable
snapshots and talks through `LoopLink.command`.

On the simulated board (simboard.py) the virtual hands play `sim_move` / `sim_mistake` /
`sim_actions` and save where they left the seeds, and in `demo` mode (demo.py) they play on
their own.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from controller.board import Board, BoardFileError, find_board
from controller.buttons import Buttons
from controller.leds.backends import LedStrip
from controller.rules import OptionError, StepFollower
from controller.sensing.frames import Frame, SampleSource
from controller.sensing.recording import software_version
from controller.tracking.hypotheses import Tracker
from controller.tracking.verdicts import RecognisedStep

from .behind import Behind
from .boardcheck import LevelWindow
from .calibration import Calibrator
from .config import MODES, Config
from .datalock import DataDirLock
from .demo import DEMO_STILL_NEW_GAME_S, Demo
from .feed import Feed, HardwareFeed, SimFeed
from .files import (
    CALIBRATION_FILE,
    JOURNAL_FILE,
    RECORDINGS_DIR,
    RECORDS_FILE,
    SIM_BOARD_FILE,
    Calibration,
)
from .flags import GameFlags
from .game import GameOpener, JournaledGame, new_game
from .hardware import open_buttons, open_leds, open_source, source_rate
from .health import LINK_FAULT, WRITE_FAILED, Health, LinkWatch, WriteHealth
from .journal import JournalWriter, at_move_boundary
from .lights import BoardLights, guidance_state
from .link import COMMANDS, CommandError, LoopLink, unknown_command
from .match import ROUND_PAUSE_S, first_round, next_round
from .mqtt import open_mqtt
from .notices import Notices
from .notify import Notifier
from .opponent import ComputerPlayer, Thinker, parse_opponent, turn_key
from .publisher import Publisher
from .reactor import COMMAND_BUDGET_S, Handlers, LoopStats, Reactor
from .recorder import Recorder, read_board_text
from .records import check_records
from .session import GameSession, SessionParts
from .show import Show
from .simboard import SimBoard
from .status import Core, DaemonCore
from .undo import UndoPath, reverse_actions

# (the tests' names for the reactor's and the demo's figures)
__all__ = ["COMMAND_BUDGET_S", "DEMO_STILL_NEW_GAME_S", "BoardLoop"]

# The computer's pit is lit this long (loop time) before the simulated board's virtual hand
# plays it, so that the page and the lights show the choice before the seeds move.
COMPUTER_SHOWN_S = 1.0
# A button counts once in this window: a finger presses a button a few times a second at the
# most, and a bouncing contact or a script of presses must not cost the loop one command each
# (500 scripted `new_game` presses in one tick held the loop for 14 s, past the watchdog).
BUTTON_REPEAT_S = 0.25
# The virtual hands' pace walking an undo back: the board comes to rest between two steps, so
# the setup weighs it and the lights show each step in turn, as a person following them sees.
UNDO_TEMPO_S = 1.5
WRITE_RETRY_S = 2.0  # a failed write is tried again this often (space may have been freed)


class BoardLoop:
    """The daemon's parts and its loop (see the module docstring).

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
        self.notes = Notices(self.out)
        self.notifier = notifier or Notifier()
        self.data_dir = config.data_dir
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # Before any file is read or written: DataDirLocked if another command holds it.
        self.datalock = DataDirLock(self.data_dir, holder).acquire()
        self._closed = False
        try:
            self._setup(speed, leds, buttons, pin_factory, clock, source)
        except BaseException:
            self.datalock.release()
            raise

    def _setup(
        self,
        speed: float | str | None,
        leds: LedStrip | None,
        buttons: Buttons | None,
        pin_factory: Any,
        clock: Callable[[], float] | None,
        source: SampleSource | None,
    ) -> None:
        """Everything of `__init__` that runs under the data directory's lock."""
        config = self.config
        self.journal_path = self.data_dir / JOURNAL_FILE
        self.calibration_path = self.data_dir / CALIBRATION_FILE
        self.sim_board_path = self.data_dir / SIM_BOARD_FILE
        self.records_path = self.data_dir / RECORDS_FILE
        self.writes = WriteHealth()
        self.writer = JournalWriter(self.journal_path, self.writes)
        self.link = LoopLink()
        self.computer = ComputerPlayer(Thinker(), self.notes)
        self.thinking_lags: deque[float] = deque(maxlen=100_000)  # tick lags while it thinks
        self.board: Board = find_board(config.board)
        self.mode = config.mode
        check_records(self.records_path, self.notes)
        opener = GameOpener(
            self.journal_path, self.board, config.board, self.writer, self.notes, self.records_path
        )
        game, resumed = opener.open(
            config.variant, config.options, config.opponent, match=config.match
        )
        self.computer.new_game(game.opponent)
        target = resumed if resumed is not None else StepFollower.new(game.rules)
        self.feed = self._open_feed(game, target, resumed is not None, speed, clock, source)
        self.rate_sps = source_rate(config)
        self.calibrator = Calibrator(
            self.calibration_path,
            self.board,
            self.feed.cell_count,
            self.writer.save,
            self.notes,
            simulated=None if self.sim is None else self._simulated_cells,
        )
        self.leds: LedStrip = leds or open_leds(
            config, self.board.led_count, getattr(self.feed, "source", None)
        )
        self.buttons = buttons if buttons is not None else open_buttons(config, pin_factory)
        self.recorder = Recorder(
            config.recorder,
            self.data_dir / RECORDINGS_DIR,
            self.feed.cell_count,
            self.rate_sps,
            live=lambda since: self.session.live_results(since),
            software=software_version(),
            out=self.out,
            writes=self.writes,
        )
        self._parts(game)
        self.session.enter_setup(target)

    def _open_feed(
        self,
        game: JournaledGame,
        target: StepFollower,
        resumed: bool,
        speed: float | str | None,
        clock: Callable[[], float] | None,
        source: SampleSource | None,
    ) -> Feed:
        """The board: simulated (with its virtual hands and demo) or real."""
        config = self.config
        self.simboard: SimBoard | None = None
        self.demo: Demo | None = None
        if config.source != "sim" or source is not None:
            if source is None:
                source = open_source(config, len(self.board.cells), self.board.led_count)
            return HardwareFeed(source) if clock is None else HardwareFeed(source, clock)
        run_speed = config.sim.speed if speed == "config" else speed
        assert run_speed is None or isinstance(run_speed, float | int)
        self.simboard = SimBoard(config, self.sim_board_path, self.writer.save, self.notes)
        feed = self.simboard.open(
            game, target, resumed, None if run_speed is None else float(run_speed), clock
        )
        self.demo = Demo(
            self.simboard,
            random.Random(config.sim.random_seed),
            self.notes,
            new_game=lambda: self._command("new_game", {}),
            relay_setup=self._relay_setup,
            computer_moves=self.computer.computer_to_move,
        )
        self.link.wake = feed.wake.set
        self.out("no hardware configured: running the simulated board")
        return feed

    def _simulated_cells(self) -> Any:
        assert self.sim is not None
        return self.sim.world.user_calibration()

    def _parts(self, game: JournaledGame) -> None:
        """The game session, the lights, the health of the parts and the reactor."""
        self.flags = GameFlags()
        self.session = GameSession(
            game,
            SessionParts(
                self.board,
                self.feed,
                self.calibrator,
                self.recorder,
                self.writer,
                self.flags,
                self.notes,
                self.records_path,
                read_board_text(self.board),
                self.rate_sps,
            ),
        )
        self.lights = BoardLights(self.leds, self.board, self.config.leds)
        handlers = Handlers(self._on_frames, self._on_command, self._tick, self.shutdown)
        self.reactor = Reactor(self.feed, self.link, 1.0 / self.config.leds.fps, handlers, self.out)
        now = self.reactor.now
        self.health = Health(self.flags.take_id)
        self.link_watch = LinkWatch(now)
        self.behind = Behind(self.notes.warning)
        self._retry_writes_at = now
        self.last_activity = now
        self.show: Show | None = None  # demo mode on a real board (show.py)
        self._button_at: dict[str, float] = {}  # when each button last counted (loop time)
        self.publisher = Publisher(self.link, self.reactor, self.session, self.lights, self.behind)
        # (the hall's broker, issue 16)
        self.mqtt = open_mqtt(self.config.mqtt, self.out, self.link, self.config.web.admin_pin)
        if self.mqtt is not None:
            self.publisher.sinks.append(self.mqtt.snapshot)
        self._watchdog_next = 0.0
        self._systemd_status = ""

    # -- what tests, tools and benchmarks look at -------------------------------------------------

    @property
    def sim(self) -> SimFeed | None:
        """The simulated board's feed (its world), None on real hardware."""
        return None if self.simboard is None else self.simboard.feed

    @property
    def busy_until(self) -> float:
        """The loop time when the virtual hands are done (-1: no simulated board)."""
        return -1.0 if self.simboard is None else self.simboard.busy_until

    @property
    def now(self) -> float:
        return self.reactor.now

    @property
    def stats(self) -> LoopStats:
        return self.reactor.stats

    @property
    def game(self) -> JournaledGame:
        return self.session.game

    @property
    def referee(self) -> Tracker | None:
        return self.session.referee

    @property
    def window(self) -> LevelWindow:
        return self.session.window

    @property
    def session_steps(self) -> list[RecognisedStep]:
        return self.session.steps

    @property
    def calibration(self) -> Calibration:
        return self.calibrator.current

    @calibration.setter
    def calibration(self, calibration: Calibration) -> None:
        self.calibrator.current = calibration

    @property
    def notices(self) -> list[str]:
        """The texts of the notices kept, oldest first."""
        return self.notes.items

    def follower(self) -> StepFollower:
        return self.session.follower()

    # -- running ----------------------------------------------------------------------------------

    def start(self) -> BoardLoop:
        """Run the loop in its own thread."""
        self.reactor.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.reactor.stop(timeout)

    @property
    def running(self) -> bool:
        return self.reactor.running

    def run(self) -> None:
        self.reactor.run()

    def run_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        return self.reactor.run_until(done, timeout_s)

    def iterate(self) -> None:
        self.reactor.iterate()

    def shutdown(self) -> None:
        """Close everything the loop owns (the thread's last act, or `stop()` without one)."""
        if self._closed:
            return
        self._closed = True
        self.link.close()
        self.computer.thinker.close()
        if self.simboard is not None and self._between_moves():
            self.simboard.save_layout(self.game, force=False)
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
        if self.mqtt is not None:
            self.mqtt.close()
        self.datalock.release()

    # -- frames and the tick ----------------------------------------------------------------------

    def _on_frames(self, frames: list[Frame]) -> None:
        self.recorder.add(frames)
        render_now = self.session.add_frames(frames)
        self.link_watch.frames_arrived(self.feed.now())
        if render_now:  # the next place changed, or play started: light it now (latency)
            self._render(self.feed.now())

    def _tick(self, now: float) -> None:
        self._buttons(now)
        session = self.session
        if session.referee is not None:
            session.journal_steps()
            self._follow_game(now, session.referee)
        self._computer_tick(now, session.referee)
        self._clock_tick(now, session.referee)
        self._match_tick(now)
        if self.simboard is not None:
            self.simboard.tick(now, session.game)
            self._sim_computer(now)
            if self.mode == "demo" and self.demo is not None:
                self.demo.tick(now, session)
        self._show_tick(now)
        self._check_health(now)
        self._abandoned(now)
        self._render(now)
        self.publisher.tick(now, self._core())
        session.recorder_tick(now)
        self._systemd()

    def _follow_game(self, now: float, referee: Tracker) -> None:
        if referee.last_activity > self.last_activity:
            self.last_activity = referee.last_activity
        if self.session.follow(now) and self.simboard is not None:
            self.simboard.moved()

    def _computer_tick(self, now: float, referee: Tracker | None) -> None:
        """The computer's answers in, and its move asked for when it is its turn: between
        moves, with no flag up (a board being put right is not a position to think about)."""
        follower = None if referee is None else referee.game
        ready = (
            referee is not None
            and follower is not None
            and referee.phase() == "start"
            and at_move_boundary(follower)
            and not any(f.active for f in referee.flags)
        )
        self.computer.tick(now, self._started(), follower, ready)
        if self.computer.thinker.thinking and self.reactor.stats.lags:
            self.thinking_lags.append(self.reactor.stats.lags[-1])  # (bench web --level)

    def _clock_tick(self, now: float, referee: Tracker | None) -> None:
        """The thinking-time clock's consequence (clock.py). The computer's turn has no
        clock: the limit is for people thinking; the engine has its own think_s."""
        clock = self.session.clock
        if referee is None or clock.player is None:
            return
        if self.computer.computer_to_move(referee.game):
            clock.stop()
        elif clock.consequence == "warn":
            self.session.note_overrun(now)
        elif clock.time_up(now) and referee.phase() == "start":
            player, limit = clock.player, clock.limit_s
            follower = self.session.time_out(now)
            if follower is not None:
                self.notes.info(
                    f"player {player + 1} did not start a move within {limit:g} s: the turn passes"
                )
                self.session.enter_setup(follower)  # (the referee starts on the new turn)

    def _match_tick(self, now: float) -> None:
        """A finished round of a match: after ROUND_PAUSE_S the next round is laid out (the
        setup lights what is missing or extra), or the match ends."""
        session = self.session
        match = self.game.match
        if match is None or match.over or session.over_since is None:
            return
        if now - session.over_since < ROUND_PAUSE_S:
            return
        following, options = next_round(match, self.game.variant, self.follower().position())
        if following.result is not None:
            self.game.match = following
            won = following.result
            self.notes.info(f"the match is over after {match.round} rounds, won {won[0]}-{won[1]}")
            return
        game = new_game(
            self.board, self.config.board, self.game.variant, options, self.game.opponent, following
        )
        self._start(game)

    def _between_moves(self) -> bool:
        """Whether the simulated seeds lie where the journal resumes: the virtual hands done,
        every step the referee recognised journaled, no move in progress. In the middle of a
        move the restart takes the move back, so the layout that goes with the journal is the
        one saved when the last move was completed: a clean stop (SIGTERM) then leaves the
        file as SIGKILL does, instead of the seeds as they lay mid-move, which the resumed
        game would not match."""
        assert self.simboard is not None
        if self.simboard.hands.busy(self.feed.now()):
            return False
        referee = self.session.referee
        if referee is not None and (
            len(referee.steps) != len(self.session.steps) or not at_move_boundary(referee.game)
        ):
            return False
        return at_move_boundary(self.game.follower())

    def _started(self) -> str:
        return str(self.game.header.get("started", ""))

    def _sim_computer(self, now: float) -> None:
        """On the simulated board the virtual hand plays the computer's move (a person does
        on the wood), once it has been shown for COMPUTER_SHOWN_S."""
        pit = self.computer.to_play(now, COMPUTER_SHOWN_S)
        simboard = self.simboard
        move = self.computer.move
        if pit is None or simboard is None or move is None:
            return
        try:
            follower = simboard.playable(self.session, now)
            rules_game = simboard.move_game(follower, self.game)
        except CommandError:
            return  # the hands are busy or the board is being put right: the next tick
        if turn_key(self._started(), follower) != move.key:
            return
        simboard.play(rules_game, pit, self.game)
        move.played = True

    def _check_health(self, now: float) -> None:
        """The daemon's parts report what is wrong with them (health.py), and what the loop
        lost by falling behind its source (behind.py)."""
        source = self.feed.status()
        self.behind.tick(now, source, self.feed.skipped_s)
        fault = self.link_watch.fault(now, source, self.referee is not None)
        self.health.report(now, LINK_FAULT, {} if fault is None else {"link": fault})
        failures = self.writes.failures()
        self.health.report(now, WRITE_FAILED, failures)
        if failures and now >= self._retry_writes_at:
            self._retry_writes_at = now + WRITE_RETRY_S
            self.writer.retry()
            self.recorder.retry()

    def _abandoned(self, now: float) -> None:
        """A game left half-played for `[game] abandon_minutes` is ended: a new game of the
        same rules, whose setup weighs the board and lights each place that is not as the start
        layout wants it (too few / too many) until the next visitor finds it set out."""
        minutes = self.config.abandon_minutes
        referee = self.referee
        if minutes <= 0 or referee is None or self.mode == "demo":
            return
        if now - self.last_activity < minutes * 60:
            return
        follower = referee.game
        if follower.over or (not follower.completed and referee.phase() == "start"):
            return  # over, or not begun: nothing is half-played
        moves = len(follower.completed)
        self.execute("new_game", {})
        self.notes.info(
            f"a game left half-played ({moves} moves) for {minutes:g} minutes was ended "
            "([game] abandon_minutes): set the board out as the lights show"
        )

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
                self._button(name, now)
            except CommandError as err:
                self.notes.info(f"button {name}: {err.message}")

    def _button(self, name: str, now: float) -> None:
        if name in self.config.buttons.locked:
            return  # ([buttons] locked: an exhibit's visitors cannot change the mode)
        if name in ("new_game", "undo"):
            self.execute(name, {})
        elif name == "hint":
            self.computer.ask_hint(now, self._started(), self.follower())
        elif name == "mode":
            following = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
            self.execute("mode", {"mode": following})

    # -- lights -----------------------------------------------------------------------------------

    def _show_tick(self, now: float) -> None:
        """Demo mode on a real board: a game replayed on the lights and the page (show.py)."""
        if self.mode != "demo" or self.sim is not None:
            self.show = None
            return
        if self.show is None or self.show.game is not self.session.game:
            self.show = Show(self.session.game, self.records_path, random.Random())
        self.show.tick(now)

    def idle(self, now: float) -> bool:
        minutes = self.config.leds.idle_minutes
        if self.show is not None:
            return False  # (the replayed game is what the lights and the page show)
        if minutes <= 0 or now - self.last_activity < minutes * 60:
            return False
        return self.referee is not None and self.referee.phase() in ("start", "over")

    def _render(self, now: float) -> None:
        if self.show is not None:
            places = self.session.game.mapping.places
            self.lights.show(
                now, self.session, self.health, self.show.state(places), teach=False, hint=[]
            )
            return
        state = guidance_state(self.session, self.idle(now))
        referee = self.session.referee
        if referee is not None and not state.idle:
            self.computer.guide(state, referee.game)
        self.lights.show(
            now,
            self.session,
            self.health,
            state,
            teach=self.mode == "teach",
            hint=self.computer.hint_places(now, state),
            countdown=self.session.clock.countdown(now),
        )

    # -- the status snapshot ----------------------------------------------------------------------

    def _core(self) -> Core:
        """Everything in the snapshot that changes only when the game does."""
        session = self.session
        game = session.get_status(self.computer.get_status(self.now))
        return {
            "sim": self.sim is not None,
            "board": session.board_status(),
            "game": game if self.show is None else self.show.game_status(game),
            "flags": self.flags.on_page(session.referee, self.health.flags()),
            "leds_places": self.lights.places_status(session.game.mapping.places),
            "mode": self.mode,
            "daemon": self._daemon_status(),
        }

    def _daemon_status(self) -> DaemonCore:
        now = self.now
        return {
            "state": self.session.state_name(),
            "source": self.feed.status().name,
            "data_dir": str(self.data_dir),
            "calibration": self.calibration.origin,
            "notices": self.notes.records(),
            "notices_total": self.notes.total,
            "notices_warnings_total": self.notes.warnings_total,
            "notices_unacknowledged": self.notes.unacknowledged,
            "faults": self.health.faults(),
            "steps": len(self.game.steps),
            "sim_busy": self.sim is not None and now < self.busy_until,
            "idle": self.idle(now),
            "recorder": self.recorder.status(),
            "mqtt": None if self.mqtt is None else self.mqtt.get_status(),
        }

    def _systemd(self) -> None:
        wall = time.monotonic()
        watchdog = self.notifier.watchdog_s
        if watchdog and wall >= self._watchdog_next:
            self.notifier.watchdog()
            self._watchdog_next = wall + watchdog / 3
        if self.notifier.enabled:
            text = self._systemd_text()
            if text != self._systemd_status:
                self._systemd_status = text
                self.notifier.status(text)

    def _systemd_text(self) -> str:
        follower = self.follower()
        position = follower.position()
        state = "game over" if position.over else f"player {(position.to_move or 0) + 1} to move"
        setup = "" if self.referee is not None else ", checking the board"
        return f"{self.game.variant}, {len(follower.completed)} moves, {state}{setup}"

    # -- commands ---------------------------------------------------------------------------------

    def execute(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Carry out a command now (the loop thread's side of `LoopLink.command`)."""
        handler = getattr(self, f"_cmd_{name}", None)
        if name not in COMMANDS or handler is None:
            raise unknown_command(name)
        self.last_activity = self.feed.now()
        result: dict[str, Any] = handler(args)
        return result

    def _on_command(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """A command the web layer queued (looked up at each call: tests replace `execute`)."""
        return self.execute(name, args)

    def _command(self, name: str, args: dict[str, Any]) -> None:
        self.execute(name, args)

    def _cmd_new_game(self, args: dict[str, Any]) -> dict[str, Any]:
        game = self._new_game_args(args)
        self._start(game)
        opponent = None if game.opponent is None else game.opponent.to_json()
        result: dict[str, Any] = {
            "variant": game.variant,
            "options": dict(game.options),
            "opponent": opponent,
        }
        if game.match is not None:
            result["match"] = True
        return result

    def _start(self, game: JournaledGame) -> None:
        """`game` instead of this one: laid out (on the simulated board by its hands) and the
        board weighed before play."""
        follower = self.session.replace_game(game)
        self._relay_sim(follower)
        self.session.enter_setup(follower)
        self.flags.new_game()  # (after: entering setup keeps the old referee's flags)
        self.computer.new_game(game.opponent)
        if self.demo is not None:
            self.demo.reset()

    def _new_game_args(self, args: dict[str, Any]) -> JournaledGame:
        """The game `new_game`'s arguments ask for (by default this game's again)."""
        current = self.game
        variant = args.get("variant", current.variant)
        options = args.get("options")
        if options is None:
            # (a match's own options: not the last round's closed pits)
            kept = current.options if current.match is None else current.match.options
            options = dict(kept) if variant == current.variant else {}
        if not isinstance(variant, str):
            raise CommandError("variant", f"{variant!r} is not a variant name")
        if not isinstance(options, dict):
            raise CommandError("options", "expected an object of option names and values")
        try:
            opponent = parse_opponent(args.get("opponent", self._opponent_json()), "opponent")
        except ValueError as err:
            raise CommandError("opponent", str(err)) from None
        match = args.get("match", self.game.match is not None)
        if not isinstance(match, bool):
            raise CommandError("match", f"{match!r} is not true or false")
        try:
            first = first_round(options) if match else None
            if first is not None:
                options = dict(first.options)
            return new_game(self.board, self.config.board, variant, dict(options), opponent, first)
        except OptionError as err:
            field_name = "variant" if str(err).startswith("unknown variant") else "options"
            raise CommandError(field_name, str(err)) from None
        except BoardFileError as err:
            raise CommandError("options", str(err)) from None

    def _opponent_json(self) -> dict[str, Any] | None:
        """This game's computer player (a new game without `opponent` keeps it)."""
        opponent = self.game.opponent
        return None if opponent is None else opponent.to_json()

    def _relay_sim(self, follower: StepFollower) -> None:
        """The virtual hands lay the simulated board out as the game now stands."""
        if self.simboard is None:
            return
        self.simboard.relay(self.game, follower)
        self.calibrator.world_replaced()
        self.simboard.save_layout(self.game, force=True)

    def _relay_setup(self) -> None:
        """Demo mode: the board the setup waits for, laid out as the game stands."""
        setup = self.session.setup
        assert setup is not None
        self._relay_sim(setup.follower)
        self.session.enter_setup(setup.follower)
        self.notes.info("demo: the simulated board was laid out again as the game stands")

    def _cmd_undo(self, args: dict[str, Any]) -> dict[str, Any]:
        """Take the last move back (the one in progress, if any), guided: the lights walk the
        hands back through its steps (undo.py); on the simulated board the virtual hands do
        it, or lay the board out at once when they cannot (busy, or the board is not as the
        move left it)."""
        guided = self._undo_hands_free()
        target = self.session.undo()
        path: UndoPath | None = self.session.undo_path()
        if self.simboard is not None and not (guided and path and self._sim_undo(path)):
            self._relay_sim(target)
            path = None
        self.session.enter_setup(target, path=path)
        return {"moves": len(target.completed), "steps": len(self.game.steps)}

    def _cmd_hint(self, args: dict[str, Any]) -> dict[str, Any]:
        """The page's hint button (the board's own is `_button`): the engine's best move lights
        up once it answered (the status's game.computer.hint); this does not wait for it."""
        asked = self.computer.ask_hint(self.now, self._started(), self.follower())
        return {"asked": asked}

    def _undo_hands_free(self) -> bool:
        """May the virtual hands walk an undo back (not busy, nothing in a hand)?"""
        return self.simboard is not None and self.now >= self.busy_until

    def _sim_undo(self, path: UndoPath) -> bool:
        """The virtual hands take the move back step by step; False when the simulated board
        is not as the move left it (a mistake not put right)."""
        simboard = self.simboard
        assert simboard is not None
        if not simboard.holds(path.layouts[0]):
            return False
        before, move = self.session.undone
        actions = reverse_actions(self.game.rules, before, move, UNDO_TEMPO_S)
        simboard.act(actions, self.game)
        return True

    def _cmd_mode(self, args: dict[str, Any]) -> dict[str, Any]:
        mode = args.get("mode")
        if mode not in MODES:
            raise CommandError("mode", f"{mode!r} is not a mode, allowed: {', '.join(MODES)}")
        self.mode = mode
        return {"mode": mode}

    def _cmd_acknowledge_notices(self, args: dict[str, Any]) -> dict[str, Any]:
        del args  # (none)
        return {"acknowledged": self.notes.acknowledge()}

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
        result = self.calibrator.stage(args, self.window, self.game)
        self.session.check_again()
        return result

    def _simboard(self) -> SimBoard:
        if self.simboard is None:
            raise CommandError("command", "the simulated board is not running")
        return self.simboard

    def _cmd_sim_move(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._simboard().sim_move(args, self.session, self.now)

    def _cmd_sim_mistake(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._simboard().sim_mistake(args, self.session, self.now)

    def _cmd_sim_actions(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._simboard().sim_actions(args, self.session, self.now)
