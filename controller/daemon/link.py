"""What the web layer may see of the daemon and ask of it.

The daemon's loop owns every piece of state. It publishes an immutable JSON-able status
snapshot with a version number after each change; the web layer reads snapshots and sends
commands, which the loop carries out in its own time (Klipper's model: components expose
`get_status()`, clients get what changed).

Status snapshot (status.py types it; all keys always present; places are `[player, pit]` / `[player, "store"]`):

    {
      "version": 17,                     # increases with every published change
      "published_at": 1718000000.123,    # time.time() when this version was published
      "sim": true,                       # the simulated board is running (the page can play)
      "board": {"name": "congkak7", "pits": 7, "led_count": 18,
                "places": [{"place": [0, 0], "cell": 0, "leds": [0]}, ...],
                "idle_cells": []},
      "game": {"variant": "congkak", "options": {...},  # the options that apply (the record
                                         # has all)
               "position": {"pits": [[..], [..]], "stores": [a, b], "to_move": 0,
                            "over": false, "winner": null},
               "hand": [0, 0],           # seeds believed in each hand
               "expected": [[0, 3]],     # where the next step may happen
               "expected_kind": "pickup",# pickup | sow | capture | sweep | none
                                         # | undo (a guided undo's next places to change)
               "phase": "start",         # start | sowing | relay | capturing | sweeping | over
                                         # | blocked (a flag waits to be put right)
                                         # | waiting (the board is weighed before play starts)
                                         # | undoing (a guided undo walks the move back)
               "history": [{"ply": 1, "player": 0, "pit": 3}],
               "can_undo": true,         # an undo would take a move back (false before the
                                         # game's first step: `undo` refuses then)
               "record": {"variant": ..., "options": ..., "moves": [...]},  # RULES.md 5
               "turn_timer": {"limit_s": 30.0, "consequence": "warn", "player": 0,
                              "elapsed_s": 3.2, "running": true, "overrun": false},
                                         # clock.py; elapsed_s null while no clock runs
               "computer": {"player": 1, "level": 3, "thinking": false, "move": 4,
                            "hint": null, "hint_thinking": false, "error": null}},
                                         # opponent.py; player null: two people play
      "flags": [{"id": 4, "t": 12.3, "kind": "wrong_pit", "at": [1, 2],
                 "expected": [[1, 3]], "active": true, "detail": ""}],
      "leds": {"colors": ["#000000", ...],            # one per LED index, as shown
               "places": {"0,0": {"color": "#1f77ff", "effect": "pulse"}, ...},
               "current_a": 0.42, "brightness": 0.4},
      "mode": "play",                    # play | teach | demo
      "sensors": [{"cell": 0, "place": [0, 0], "raw": 123456, "grams": 37.8,
                   "noise_g": 0.02, "rate_sps": 80.1, "fault": null}],
      "daemon": {"state": "playing",     # setup (weighing the board) | playing
                 "source": "simulated board", "data_dir": "...",
                 "calibration": "file",  # file | simulator | nominal (not calibrated)
                 "notices": [{"text": "...",  # journal problems, resumes, missing
                                         # calibration, damaged files kept aside, frames
                                         # dropped (the newest 20 of each level, oldest
                                         # first; the board page lists them)
                              "level": "warning",  # info (routine) | warning (an operator
                                         # must act or know; notices.py)
                              "first_at": 1718000000.1, "at": 1718000060.2,  # first and
                                         # last told (time.time())
                              "repeats": 2,  # told this often while kept
                              "acknowledged": false}],  # read by an operator since
                 "notices_total": 2,     # told since the start (the log has them all)
                 "notices_warnings_total": 2,  # the warnings among them (the hall has them)
                 "notices_unacknowledged": 1,  # warnings kept that nobody acknowledged
                 "faults": [{"kind": "link_fault", "part": "link",
                             "detail": "Pico: serial link lost"}],  # what is wrong now
                                         # with the daemon's own parts (health.py): link_fault
                                         # (no readings) or write_failed (part: the file's
                                         # name); each also has an active flag of that kind
                 "steps": 42, "sim_busy": false, "idle": false,
                 "recorder": {"seconds": 180, "saved": 2, "last": "rec-20260101-120000-flag.jsonl.gz",
                              "error": null, "pending": false},  # recordings written
                 "mqtt": null,           # the hall's broker (status.MqttStatus), null: not set
                 "loop": {"ticks": 900, "missed_ticks": 0, "lag_ms_p99": 1.2, "frames": 2400},
                 "behind": {"dropped_frames": 12, "dropped_frames_last_minute": 0,
                            "skipped_s": 0.0, "skipped_s_last_minute": 0.0}}
                                         # what the loop lost by falling behind its source
                                         # (behind.py): frames a real source's queue dropped,
                                         # simulated time the simulated board skipped; since
                                         # the start and in the last minute (loop time)
    }

Snapshots are shared between readers and must not be modified. Sensor readings are refreshed
once a second and animated LED colours at most ten times a second; everything else is
published at the next tick (1/30 s) after it changes, but for `daemon.loop` and
`daemon.behind`, which go out with the next snapshot (at least once a second).

Commands (`command(name, args)`): `new_game` {variant?, options?, opponent?: null |
{player, level, think_s?}}, `undo` {}, `hint` {} (the engine's best move shows in
game.computer.hint once it answered: {asked}), `calibrate`
{stage: "empty" | "layout" | "reference", grams?}, `mode` {mode}, `save_recording`
{seconds?, reason?: "admin" | "cli"} (the flight recorder writes the last `seconds`, at most
`[recorder] seconds`, to `<data_dir>/recordings/` in the background: {file}),
`acknowledge_notices` {} (an operator has read the warnings: {acknowledged: how many were
new}), and on the simulated board
`sim_move` {pit} (the virtual hand plays that move for the player to move; in a simultaneous
opening {pits: [hand 0's, hand 1's]}, both hands at once), `sim_mistake`
{kind} (one of the flag kinds the simulator can act out), `sim_actions` {actions: [...]}
(SIMULATION.md physical actions, times relative to now). A rejected command raises
`CommandError(field, message)`.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol, cast

from .status import Status

COMMANDS = (
    "new_game",
    "undo",
    "hint",
    "calibrate",
    "mode",
    "save_recording",
    "acknowledge_notices",
    "sim_move",
    "sim_mistake",
    "sim_actions",
)


class CommandError(ValueError):
    """A command the daemon refuses; `field` names the offending argument (or "command")."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class DaemonLink(Protocol):
    def get_status(self) -> dict[str, Any]:
        """The latest published snapshot."""
        ...

    def wait_for_change(self, since_version: int, timeout: float) -> dict[str, Any] | None:
        """Block until a snapshot newer than `since_version` exists (None on timeout)."""
        ...

    def command(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Carry out a command (raises CommandError); returns a small JSON-able result."""
        ...


def unknown_command(name: str) -> CommandError:
    return CommandError("command", f"unknown command {name!r}, known: {', '.join(COMMANDS)}")


Queued = tuple[str, dict[str, Any], Future[dict[str, Any]]]


class LoopLink:
    """The `DaemonLink` of the real daemon: snapshots out, commands in.

    Snapshots are published by the loop thread and never changed afterwards, so readers get
    the same dict without copying (50 live pages must not cost 50 deep copies each update).
    Treat them as read-only.
    """

    def __init__(self, command_timeout: float = 10.0) -> None:
        self._cond = threading.Condition()
        # Until the loop's first tick publishes, only the version is there to read.
        self._status = cast(Status, {"version": 0})
        self._version = 0
        self._queue: deque[Queued] = deque()
        self._lock = threading.Lock()
        self.command_timeout = command_timeout
        self.accepting = False
        self.wake: Callable[[], None] = lambda: None

    # -- DaemonLink -----------------------------------------------------------------------------

    def get_status(self) -> dict[str, Any]:
        with self._cond:
            return cast(dict[str, Any], self._status)

    def wait_for_change(self, since_version: int, timeout: float) -> dict[str, Any] | None:
        with self._cond:
            if not self._cond.wait_for(lambda: self._version > since_version, timeout):
                return None
            return cast(dict[str, Any], self._status)

    def command(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name not in COMMANDS:
            raise unknown_command(name)
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

    def publish(self, status: Status) -> int:
        with self._cond:
            self._version += 1
            status["version"] = self._version
            status["published_at"] = time.time()
            self._status = status
            self._cond.notify_all()
            return self._version

    def take_command(self) -> Queued | None:
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
