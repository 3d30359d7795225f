"""What the web layer may see of the daemon and ask of it.

The daemon's loop owns every piece of state. It publishes an immutable JSON-able status
snapshot with a version number after each change; the web layer reads snapshots and sends
commands, which the loop carries out in its own time (Klipper's model: components expose
`get_status()`, clients get what changed).

Status snapshot (all keys always present; places are `[player, pit]` / `[player, "store"]`):

    {
      "version": 17,                     # increases with every published change
      "published_at": 1718000000.123,    # time.time() when this version was published
      "sim": true,                       # the simulated board is running (the page can play)
      "board": {"name": "congkak7", "pits": 7, "led_count": 18,
                "places": [{"place": [0, 0], "cell": 0, "leds": [0]}, ...],
                "idle_cells": []},
      "game": {"variant": "congkak", "options": {...all options...},
               "position": {"pits": [[..], [..]], "stores": [a, b], "to_move": 0,
                            "over": false, "winner": null},
               "hand": [0, 0],           # seeds believed in each hand
               "expected": [[0, 3]],     # where the next step may happen
               "expected_kind": "pickup",# pickup | sow | capture | sweep | none
               "phase": "start",         # start | sowing | relay | capturing | sweeping | over
                                         # | blocked (a flag waits to be put right)
                                         # | waiting (the board is weighed before play starts)
               "history": [{"ply": 1, "player": 0, "pit": 3}],
               "record": {"variant": ..., "options": ..., "moves": [...]},  # RULES.md 5
               "turn_timer": {"limit_s": null, "elapsed_s": 3.2}},
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
                 "notices": ["..."],     # journal problems, resumes, missing calibration
                 "faults": [{"kind": "link_fault", "part": "link",
                             "detail": "Pico: serial link lost"}],  # what is wrong now
                                         # with the daemon's own parts (health.py): link_fault
                                         # (no readings) or write_failed (part: the file's
                                         # name); each also has an active flag of that kind
                 "steps": 42, "sim_busy": false, "idle": false,
                 "recorder": {"seconds": 180, "saved": 2, "last": "rec-20260101-120000-flag.jsonl.gz",
                              "error": null, "pending": false},  # recordings written
                 "loop": {"ticks": 900, "missed_ticks": 0, "lag_ms_p99": 1.2, "frames": 2400}}
    }

Snapshots are shared between readers and must not be modified. Sensor readings are refreshed
once a second and animated LED colours at most ten times a second; everything else is
published at the next tick (1/30 s) after it changes.

Commands (`command(name, args)`): `new_game` {variant?, options?}, `undo` {}, `calibrate`
{stage: "empty" | "layout" | "reference", grams?}, `mode` {mode}, `save_recording`
{seconds?, reason?: "admin" | "cli"} (the flight recorder writes the last `seconds`, at most
`[recorder] seconds`, to `<data_dir>/recordings/` in the background: {file}), and on the simulated board
`sim_move` {pit} (the virtual hand plays that move for the player to move; in a simultaneous
opening {pits: [hand 0's, hand 1's]}, both hands at once), `sim_mistake`
{kind} (one of the flag kinds the simulator can act out), `sim_actions` {actions: [...]}
(SIMULATION.md physical actions, times relative to now). A rejected command raises
`CommandError(field, message)`.
"""

from __future__ import annotations

from typing import Any, Protocol


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
