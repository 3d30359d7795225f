"""Every flag of the game on the page, whoever raised it, under one sequence of ids.

Flags come from three places: the setup that weighs the board (`board_mismatch`, one a place
that does not fit, gone when it fits), the referee (its own flags, numbered by their serial:
a referee that answers a simultaneous opening's order again may take flags back, so a flag's
place in its list is no id), and the daemon's parts (health.py, which takes its ids here). A
referee that makes way for a new setup leaves its flags on the page, no longer active.
"""

from __future__ import annotations

from controller.rules import Place
from controller.tracking.hypotheses import Tracker
from controller.tracking.verdicts import Flag

from .boardcheck import PlaceCheck
from .status import FlagStatus

MAX_FLAGS = 50  # flags in a snapshot (the newest)


class GameFlags:
    def __init__(self) -> None:
        self._next_id = 1
        self._raised: list[FlagStatus] = []  # this game's flags that are not the referee's
        self._past: list[FlagStatus] = []  # earlier referee sessions of this game
        self._mismatch: dict[Place, FlagStatus] = {}  # the setup's, by place
        self._referee_ids: dict[int, int] = {}  # the daemon's id of each referee flag serial

    def take_id(self) -> int:
        """The next flag id: one sequence for every flag on the page, whoever raises it."""
        self._next_id += 1
        return self._next_id - 1

    def board_checked(self, t: float, wrong: list[PlaceCheck]) -> None:
        """The setup weighed the board: a flag for each place that does not fit."""
        now_wrong = {c.place: c for c in wrong}
        for place, flag in list(self._mismatch.items()):
            if place not in now_wrong:
                flag["active"] = False
                del self._mismatch[place]
        for place, check in now_wrong.items():
            known = self._mismatch.get(place)
            if known is None:
                self._mismatch[place] = self._raise(t, "board_mismatch", place, check.detail())
            else:
                known["detail"] = check.detail()

    def _raise(self, t: float, kind: str, at: Place | None, detail: str) -> FlagStatus:
        flag: FlagStatus = {
            "id": self.take_id(),
            "t": round(t, 3),
            "kind": kind,
            "at": None if at is None else at.to_json(),
            "expected": [],
            "active": True,
            "detail": detail,
            "player": None,
        }
        self._raised.append(flag)
        return flag

    def referee_flags(self, referee: Tracker | None) -> list[FlagStatus]:
        if referee is None:
            return []
        ids = self._referee_ids
        for flag in referee.flags:
            if flag.serial not in ids:
                ids[flag.serial] = self.take_id()
        return [flag_status(flag, ids[flag.serial]) for flag in referee.flags]

    def referee_ended(self, referee: Tracker | None) -> None:
        """The board is checked again from scratch: the referee's flags stay, inactive."""
        if referee is not None:
            for flag in self.referee_flags(referee):
                flag["active"] = False
                self._past.append(flag)
        self._referee_ids = {}

    def new_game(self) -> None:
        self._raised = []
        self._past = []
        self._mismatch = {}
        self._referee_ids = {}

    def on_page(self, referee: Tracker | None, others: list[FlagStatus]) -> list[FlagStatus]:
        """The newest MAX_FLAGS flags, oldest first, with `others` (the parts' faults)."""
        every = self._past + self._raised + self.referee_flags(referee) + others
        return sorted(every, key=lambda f: f["id"])[-MAX_FLAGS:]


def flag_status(flag: Flag, flag_id: int) -> FlagStatus:
    return {
        "id": flag_id,
        "t": round(flag.t, 3),
        "kind": flag.kind,
        "at": None if flag.at is None else flag.at.to_json(),
        "expected": [p.to_json() for p in flag.expected],
        "active": flag.active,
        "detail": flag.detail,
        "player": flag.player,
    }
