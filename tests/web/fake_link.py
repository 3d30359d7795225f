"""A stand-in for the daemon behind `DaemonLink`, for the web tests.

It publishes realistic snapshots in the daemon's own types (`controller.daemon.status.Status`,
which mypy holds it to; tests/daemon/test_status_shape.py compares it with the real loop's;
congkak on the 7-pit board by default: the board file's places, 18 LEDs, 16 load cells), records
every command, and on the simulated board plays `sim_move` (a single lap of sowing, enough to
change counts and lights) and acts out `sim_mistake` (a flag at a plausible place). Of the real
rules engine it knows only the options (their names and each variant's values, for the
snapshot).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any, cast

from controller.daemon.link import CommandError
from controller.daemon.notices import INFO, Level, Notices
from controller.daemon.status import (
    DaemonStatus,
    FlagStatus,
    GameStatus,
    HistoryEntry,
    PlaceLight,
    SensorStatus,
    Status,
)
from controller.physical import MISTAKE_KINDS
from controller.rules import find_variant
from controller.rules.options import option_applies

SEED_G = 5.4
BLUE = "#1f77ff"  # the pits the player to move may pick up
AMBER = "#ffb000"  # where the last seed fell
RED = "#ff2020"  # a problem
OFF = "#000000"

VARIANT_SEEDS = {"congkak": None, "kalah": 3, "oware": 4}
VARIANT_PITS = {"congkak": 7, "kalah": 6, "oware": 6}
MISTAKES = MISTAKE_KINDS

Place = tuple[int, int | str]


def key(place: Place) -> str:
    return f"{place[0]},{place[1]}"


class FakeLink:
    """Implements `DaemonLink`; `commands` lists every (name, args) it was sent."""

    def __init__(
        self,
        *,
        sim: bool = True,
        variant: str = "congkak",
        pits: int | None = None,
        opening: bool = False,
    ):
        self.sim = sim
        self.opening = opening  # a simultaneous opening: no player to move until it is played
        self.commands: list[tuple[str, dict[str, Any]]] = []
        self._cond = threading.Condition()
        self._version = 0
        self._t0 = time.monotonic()
        self._flag_id = 0
        self.mode = "play"
        self.opponent: dict[str, Any] | None = None  # the computer player ({player, level})
        self.notes = Notices(lambda _text: None)  # the daemon's own (it keeps the newest 20)
        self._new_game(variant, {"pits": pits} if pits else {})
        self._status = self._snapshot()

    # ------------------------------------------------------------ DaemonLink

    def get_status(self) -> dict[str, Any]:
        with self._cond:
            return cast(dict[str, Any], copy.deepcopy(self._status))

    def wait_for_change(self, since_version: int, timeout: float) -> dict[str, Any] | None:
        with self._cond:
            if not self._cond.wait_for(lambda: self._version > since_version, timeout):
                return None
            return cast(dict[str, Any], copy.deepcopy(self._status))

    def command(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        with self._cond:
            self.commands.append((name, copy.deepcopy(args)))
            handler = getattr(self, f"_cmd_{name}", None)
            if handler is None:
                raise CommandError("command", f"unknown command {name!r}")
            result: dict[str, Any] = handler(args)
            self._publish()
            return result

    # ------------------------------------------------------------ test helpers

    def update(self, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Edit the published snapshot by hand and publish it as a new version."""
        with self._cond:
            status = cast(dict[str, Any], copy.deepcopy(self._status))
            change(status)
            self._version += 1
            status["version"] = self._version
            self._status = cast(Status, status)
            self._cond.notify_all()
            return copy.deepcopy(status)

    def notice(self, text: str, at: float | None = None, level: Level = INFO) -> None:
        """Tell a notice as the daemon does (`at`: its time.time(), by default now)."""
        with self._cond:
            when = time.time() if at is None else at
            self.notes.wall = lambda: when
            self.notes.add(text, level)
            self._publish()

    @property
    def version(self) -> int:
        with self._cond:
            return self._version

    # ------------------------------------------------------------ the game

    def _new_game(self, variant: str, options: dict[str, Any]) -> None:
        if variant not in VARIANT_PITS:
            raise CommandError("variant", f"unknown variant {variant!r}")
        pits = options.get("pits", VARIANT_PITS[variant])
        if not isinstance(pits, int) or isinstance(pits, bool) or pits not in (5, 6, 7, 9):
            raise CommandError("options", f"pits={pits!r} is not playable on this board")
        seeds = VARIANT_SEEDS[variant] or pits
        self.variant = variant
        self.pits = pits
        self.options: dict[str, Any] = {
            "pits": pits,
            "seeds": seeds,
            "sow_own_store": variant != "oware",
            "laps": "relay" if variant == "congkak" else "single",
            "extra_turn": variant != "oware",
            "capture": "counts" if variant == "oware" else "opposite",
            "capture_requires_opposite": False,
            "no_move": "pass" if variant == "congkak" else "end",
            "end": {"congkak": "all_pits_empty", "kalah": "side_empty", "oware": "majority"}[
                variant
            ],
            "end_sweep": {"congkak": "none", "kalah": "emptier", "oware": "owner"}[variant],
            "move_time_limit_s": None,
            "move_time_consequence": "warn",
        }
        self.rows = [[seeds] * pits, [seeds] * pits]
        self.stores = [0, 0]
        self.to_move: int | None = None if self.opening else 0
        self.options["simultaneous_opening"] = self.opening
        # Every other option at the variant's own value: the page lists them all.
        for name, value in find_variant(variant).options_from({"pits": pits}).to_json().items():
            if name != "closed":
                self.options.setdefault(name, value)
        # As the daemon's snapshot: only the options that change anything in this game.
        self.options = {k: v for k, v in self.options.items() if option_applies(k, self.options)}
        self.moves: list[int] = []
        self.history: list[HistoryEntry] = []
        self.flags: list[FlagStatus] = []
        self.last: Place | None = None
        self.turn_started = time.monotonic()

    def _ring(self, player: int) -> list[Place]:
        ring: list[Place] = [(player, i) for i in range(self.pits)]
        if self.options["sow_own_store"]:
            ring.append((player, "store"))
        ring += [(1 - player, i) for i in range(self.pits)]
        return ring

    def _play(self, pit: int, player: int) -> None:
        hand, self.rows[player][pit] = self.rows[player][pit], 0
        ring = self._ring(player)
        at = ring.index((player, pit))
        place: Place = (player, pit)
        while hand:
            at = (at + 1) % len(ring)
            place = ring[at]
            if place[1] == "store":
                self.stores[place[0]] += 1
            else:
                self.rows[place[0]][int(place[1])] += 1
            hand -= 1
        self.last = place
        self.moves.append(pit)
        self.history.append({"ply": len(self.moves), "player": player, "pit": pit})
        to_move = player
        if place != (player, "store") or not self.options["extra_turn"]:
            to_move = 1 - player
        if not any(self.rows[to_move]) and any(self.rows[1 - to_move]):
            to_move = 1 - to_move
        self.to_move = to_move
        self.turn_started = time.monotonic()

    def _over(self) -> bool:
        return not any(self.rows[0]) and not any(self.rows[1])

    def _winner(self) -> int | str | None:
        if not self._over():
            return None
        a, b = self.stores
        return "draw" if a == b else (0 if a > b else 1)

    def _expected(self) -> list[list[Any]]:
        if self._over():
            return []
        players = (0, 1) if self.to_move is None else (self.to_move,)
        return [[p, i] for p in players for i, n in enumerate(self.rows[p]) if n > 0]

    # ------------------------------------------------------------ commands

    def _cmd_new_game(self, args: dict[str, Any]) -> dict[str, Any]:
        self._new_game(args.get("variant", self.variant), dict(args.get("options", {})))
        self.opponent = args.get("opponent", self.opponent)
        return {"variant": self.variant, "opponent": self.opponent}

    def _cmd_hint(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"asked": not self._over()}

    def _cmd_undo(self, args: dict[str, Any]) -> dict[str, Any]:
        if not self.moves:
            raise CommandError("command", "there is no move to undo")
        played = self.history[:-1]
        self._new_game(self.variant, {"pits": self.pits})
        for move in played:
            self._play(move["pit"], move["player"])
        return {"moves": len(self.moves)}

    def _cmd_calibrate(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("stage") == "reference" and "grams" not in args:
            raise CommandError("grams", "the reference stage needs the weight in grams")
        return {"stage": args.get("stage")}

    def _cmd_acknowledge_notices(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"acknowledged": self.notes.acknowledge()}

    def _cmd_save_recording(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"file": f"rec-20260101-000000-{args.get('reason', 'admin')}.jsonl.gz"}

    def _cmd_mode(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("mode") not in ("play", "teach", "demo"):
            raise CommandError("mode", f"unknown mode {args.get('mode')!r}")
        self.mode = args["mode"]
        return {"mode": self.mode}

    def _need_sim(self) -> None:
        if not self.sim:
            raise CommandError("command", "the simulated board is not running")
        if self._over():
            raise CommandError("command", "the game is over")

    def _cmd_sim_move(self, args: dict[str, Any]) -> dict[str, Any]:
        self._need_sim()
        if self.to_move is None:  # (the opening: one hand after the other, then player 1)
            if "pits" not in args:
                raise CommandError("command", "sim_move with pits [hand 0's pit, hand 1's pit]")
            for player, pit in enumerate(args["pits"]):
                self._play(pit, player)
            self.to_move = 0
            return {"played": list(args["pits"]), "player": None}
        pit = args.get("pit")
        if not isinstance(pit, int) or not 0 <= pit < self.pits:
            raise CommandError("pit", f"no pit {pit!r}")
        if self.rows[self.to_move][pit] == 0:
            raise CommandError("pit", f"pit {pit} of player {self.to_move} is empty")
        self._play(pit, self.to_move)
        return {"played": pit}

    def _cmd_sim_mistake(self, args: dict[str, Any]) -> dict[str, Any]:
        self._need_sim()
        kind = args.get("kind")
        if kind not in MISTAKES:
            raise CommandError("kind", f"no such mistake {kind!r}")
        if self.to_move is None:
            raise CommandError("command", "not in the simultaneous opening")
        me, other = self.to_move, 1 - self.to_move
        where: dict[str, tuple[list[int | str] | None, list[list[Any]]]] = {
            "wrong_start": ([other, 0], self._expected()),
            "not_all_lifted": ([me, 2], [[me, 2]]),
            "wrong_pit": ([me, 4], [[me, 3]]),
            "extra_seed": ([me, 3], [[me, 3]]),
            "opponent_store": ([other, "store"], [[me, 0]]),
            "seed_lost": (None, [[me, 1]]),
            "foreign_seed": ([other, 5], []),
        }
        at, expected = where[kind]
        self._flag_id += 1
        flag: FlagStatus = {
            "id": self._flag_id,
            "t": round(time.monotonic() - self._t0, 2),
            "kind": kind,
            "at": at,
            "expected": expected,
            "active": True,
            "detail": "",
            "player": None if kind == "foreign_seed" else me,
        }
        self.flags.append(flag)
        return {"flag": self._flag_id}

    def _cmd_sim_actions(self, args: dict[str, Any]) -> dict[str, Any]:
        self._need_sim()
        return {"scheduled": len(args.get("actions", []))}

    # ------------------------------------------------------------ the snapshot

    def _places(self) -> list[Place]:
        out: list[Place] = []
        for player in (0, 1):
            out += [(player, i) for i in range(self.pits)]
            out.append((player, "store"))
        return out

    def _led_map(self) -> list[tuple[Place, list[int]]]:
        leds: list[tuple[Place, list[int]]] = []
        n = 0
        for place in self._places():
            width = 2 if place[1] == "store" else 1
            leds.append((place, list(range(n, n + width))))
            n += width
        return leds

    def _seeds(self, place: Place) -> int:
        if place[1] == "store":
            return self.stores[place[0]]
        return self.rows[place[0]][int(place[1])]

    def _snapshot(self) -> Status:
        lights: dict[str, PlaceLight] = {
            key(p): {"color": OFF, "effect": "none"} for p in self._places()
        }
        for p in self._expected():
            lights[key((p[0], p[1]))] = {"color": BLUE, "effect": "pulse"}
        if self.last is not None:
            lights[key(self.last)] = {"color": AMBER, "effect": "solid"}
        for flag in self.flags:
            if flag["active"] and flag["at"] is not None:
                lights[key((int(flag["at"][0]), flag["at"][1]))] = {"color": RED, "effect": "blink"}
        led_map = self._led_map()
        colors = [OFF] * sum(len(leds) for _, leds in led_map)
        for place, leds in led_map:
            for led in leds:
                colors[led] = lights[key(place)]["color"]
        lit = sum(1 for c in colors if c != OFF)
        sensors: list[SensorStatus] = []
        for cell, (place, _) in enumerate(led_map):
            grams = round(self._seeds(place) * SEED_G, 1)
            sensors.append(
                {
                    "cell": cell,
                    "place": [place[0], place[1]],
                    "raw": 81234 + 977 * cell + int(grams * 421.7),
                    "grams": grams,
                    "noise_g": 0.021,
                    "rate_sps": 80.1,
                    "fault": None,
                }
            )
        return {
            "version": self._version,
            "published_at": time.time(),
            "sim": self.sim,
            "board": {
                "name": f"congkak{self.pits}" if self.pits != 6 else "oware6",
                "pits": self.pits,
                "led_count": len(colors),
                "places": [
                    {"place": [p[0], p[1]], "cell": cell, "leds": leds}
                    for cell, (p, leds) in enumerate(led_map)
                ],
                "idle_cells": [],
            },
            "game": self._game_status(),
            "flags": copy.deepcopy(self.flags),
            "leds": {
                "colors": colors,
                "places": lights,
                "current_a": round(0.05 + 0.012 * lit, 3),
                "brightness": 0.4,
            },
            "mode": self.mode,
            "sensors": sensors,
            "daemon": self._daemon_status(),
        }

    def _game_status(self) -> GameStatus:
        over = self._over()
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "position": {
                "pits": [list(self.rows[0]), list(self.rows[1])],
                "stores": list(self.stores),
                "to_move": self.to_move,
                "over": over,
                "winner": self._winner(),
            },
            "hand": [0, 0],
            "expected": self._expected(),
            "expected_kind": "none" if over else "pickup",
            "phase": "over" if over else "start",
            "history": copy.deepcopy(self.history),
            "can_undo": bool(self.moves),  # (as `_cmd_undo` refuses)
            "record": {
                "variant": self.variant,
                "options": {"pits": self.pits},
                "moves": list(self.moves),
            },
            "computer": {
                "player": None if self.opponent is None else self.opponent["player"],
                "level": None if self.opponent is None else self.opponent["level"],
                "thinking": False,
                "move": None,
                "hint": None,
                "hint_thinking": False,
                "error": None,
            },
            "match": None,
            "events": [],  # (tests add rule events with `update`)
            "turn_timer": {
                "limit_s": self.options["move_time_limit_s"],
                "consequence": "warn",
                "player": self.to_move,
                "elapsed_s": None if over else round(time.monotonic() - self.turn_started, 1),
                "running": not over,
                "overrun": False,
            },
        }

    def _daemon_status(self) -> DaemonStatus:
        """A daemon that plays and has nothing to report (tests tell notices with `notice`,
        and set faults and frames dropped with `update`)."""
        return {
            "state": "playing",
            "source": "simulated board" if self.sim else "Pico on /dev/ttyACM0",
            "data_dir": "/var/lib/sowboard",
            "calibration": "simulator" if self.sim else "file",
            "notices": self.notes.records(),
            "notices_unacknowledged": self.notes.unacknowledged,
            "notices_total": self.notes.total,
            "notices_warnings_total": self.notes.warnings_total,
            "faults": [],
            "steps": 0,
            "sim_busy": False,
            "idle": False,
            "recorder": {"seconds": 180, "saved": 0, "last": None, "error": None, "pending": False},
            "mqtt": None,
            "loop": {
                "ticks": self._version,
                "missed_ticks": 0,
                "lag_ms_p99": 0.0,
                "frames": 0,
            },
            "behind": {
                "dropped_frames": 0,
                "dropped_frames_last_minute": 0,
                "skipped_s": 0.0,
                "skipped_s_last_minute": 0.0,
            },
        }

    def _publish(self) -> None:
        self._version += 1
        self._status = self._snapshot()
        self._cond.notify_all()
