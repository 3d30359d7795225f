"""Faults of the daemon's own parts, which no referee sees: the link to the load cells and the
files in the data directory.

The referee flags what the hands do and a cell that misbehaves in its frames; it says nothing
when no frame comes at all (a lost serial link, a Pico that never answered, HX711s powered
down), and nothing is told when the SD card refuses a write. Both used to reach stderr or a
sensor's `fault` field only, while the page and the lights looked like a healthy board.

Each part reports its own state here (`LinkWatch` for the link, `WriteHealth` from the writer
thread for the files); `Health` turns what is wrong now into flags of their own (they outlive
a new game, because a new game does not mend a cable or free the card), a `faults` list for
the status snapshot, and lights: a link fault blinks the whole board vermillion (nothing the
board shows can be trusted), a failed write blinks the two stores purple on top of the game's
lights (play goes on; the moves are kept in memory and written when the card takes them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.leds.patterns import PURPLE, VERMILLION, Light
from controller.rules import Place
from controller.sensing.frames import SourceStatus

from .status import FaultStatus, FlagStatus

LINK_FAULT = "link_fault"
WRITE_FAILED = "write_failed"
# No frame for this long is a link fault even when the source says nothing: a Pi's HX711s
# powered down only show as cells without data after the source's own 2 s, and a page must
# show it within 3 s of the cut (the loop checks every tick).
LINK_SILENT_S = 2.0
PAST_FAULTS = 10  # mended faults kept on the page ("fixed")


class LinkWatch:
    """The link to the load cells: the source's own fault, or frames that stopped coming."""

    def __init__(self, now: float) -> None:
        self.last_frame_at = now

    def frames_arrived(self, now: float) -> None:
        self.last_frame_at = now

    def fault(self, now: float, status: SourceStatus, cells_flagged: bool) -> str | None:
        """What is wrong with the link now (None: nothing).

        `cells_flagged`: the referee flags faults that name cells itself (per cell, lit on that
        place); without a referee (the setup weighing the board) they are the link's to show.
        """
        name = status.name
        if not status.connected:
            return f"{name}: {status.fault or 'not connected'}"
        if status.fault and not (cells_flagged and "cell" in status.fault):
            return f"{name}: {status.fault}"
        if now - self.last_frame_at >= LINK_SILENT_S:
            return f"{name}: no readings for {LINK_SILENT_S:g} s or more"
        return None


class WriteHealth:
    """Which data files the last write of failed, and why; written by the writer thread, read
    by the loop (hence the lock). A file's entry goes when a write of it succeeds again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failed: dict[str, str] = {}

    def failed(self, path: Path, message: str) -> None:
        with self._lock:
            self._failed[path.name] = message

    def succeeded(self, path: Path) -> None:
        with self._lock:
            self._failed.pop(path.name, None)

    def failures(self) -> dict[str, str]:
        """File name -> what went wrong, for every file whose last write failed."""
        with self._lock:
            return dict(self._failed)


@dataclass
class _Fault:
    kind: str
    part: str
    flag: FlagStatus


class Health:
    """What is wrong with the daemon's parts now, as flags, snapshot entries and lights.

    `new_flag_id` hands out the loop's flag ids (one sequence for every flag on the page).
    """

    def __init__(self, new_flag_id: Callable[[], int]) -> None:
        self._new_flag_id = new_flag_id
        self._active: dict[tuple[str, str], _Fault] = {}
        self._past: list[FlagStatus] = []

    def report(self, t: float, kind: str, faults: dict[str, str]) -> bool:
        """The faults of one kind now, by part; True when anything changed."""
        changed = False
        for key in [k for k in self._active if k[0] == kind and k[1] not in faults]:
            flag = self._active.pop(key).flag
            flag["active"] = False
            self._past = [*self._past, flag][-PAST_FAULTS:]
            changed = True
        for part, detail in faults.items():
            known = self._active.get((kind, part))
            if known is None:
                self._active[(kind, part)] = _Fault(kind, part, self._flag(t, kind, detail))
                changed = True
            elif known.flag["detail"] != detail:
                known.flag = known.flag.copy()  # (the old one may be in a published snapshot)
                known.flag["detail"] = detail
                changed = True
        return changed

    def _flag(self, t: float, kind: str, detail: str) -> FlagStatus:
        return {
            "id": self._new_flag_id(),
            "t": round(t, 3),
            "kind": kind,
            "at": None,
            "expected": [],
            "active": True,
            "detail": detail,
            "player": None,
        }

    def flags(self) -> list[FlagStatus]:
        """Every fault flag on the page: the ones mended lately and the ones active now."""
        return [*self._past, *(f.flag.copy() for f in self._active.values())]

    def faults(self) -> list[FaultStatus]:
        """The active faults for the snapshot's `daemon.faults`."""
        return [
            {"kind": f.kind, "part": f.part, "detail": f.flag["detail"]}
            for f in self._active.values()
        ]

    def kinds(self) -> set[str]:
        return {f.kind for f in self._active.values()}

    def lights(self, lights: dict[Place, Light], places: list[Place]) -> dict[Place, Light]:
        """The game's lights with the faults shown on top (see the module docstring)."""
        kinds = self.kinds()
        if LINK_FAULT in kinds:
            return {p: Light(VERMILLION, "blink", LINK_FAULT) for p in places}
        if WRITE_FAILED in kinds:
            lights = dict(lights)
            for player in (0, 1):
                lights[Place(player, "store")] = Light(PURPLE, "fast_blink", WRITE_FAILED)
        return lights
