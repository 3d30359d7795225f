"""The status snapshot's shape, typed (link.py says what each field means).

Each part of the daemon reports its own section in these types, and the web tests' fake link
builds the same types: a key that one side adds and the other lacks is a type error (mypy
checks the fake as well) and a failing test (`missing_keys` over both snapshots). Before the
types, the fake had drifted: it had no `daemon` section at all.

Places are `[player, pit]` or `[player, "store"]`. Rule options, a position's fields and a
game record are the rules engine's own JSON, typed only as far as the page relies on them.
"""

from __future__ import annotations

import types
import typing
from typing import Any, TypedDict, Union

PlaceJson = list[int | str]


class FlagStatus(TypedDict):
    id: int
    t: float
    kind: str
    at: PlaceJson | None
    expected: list[PlaceJson]
    active: bool
    detail: str
    player: int | None  # whose mistake it is (0 or 1), None when it is nobody's


class PlaceLeds(TypedDict):
    place: PlaceJson
    cell: int
    leds: list[int]


class BoardStatus(TypedDict):
    name: str
    pits: int
    led_count: int
    places: list[PlaceLeds]
    idle_cells: list[int]


class PositionStatus(TypedDict):
    pits: list[list[int]]
    stores: list[int]
    to_move: int | None
    over: bool
    winner: int | str | None


class HistoryEntry(TypedDict):
    ply: int
    player: int
    pit: int


class RuleEvent(TypedDict):
    """A rule event of the game for teach mode's explanations (ruleevents.py)."""

    n: int  # the index of the step that shows it, in the game's steps
    kind: str  # relay | capture | extra_turn | pass | sweep
    player: int  # whom it happens to (for `pass`: who passes)
    at: PlaceJson | None  # where (the first place of a run of captures or sweeps)
    places: int  # how many places a capture or sweep empties (1 for the others)
    rule: str  # the capture rule for `capture` ("opposite", "counts"), else ""


class TurnTimer(TypedDict):
    """The thinking-time clock (clock.py): `elapsed_s` None while no clock runs (setup, a
    simultaneous opening, game over); frozen once the move started (`running` false)."""

    limit_s: float | None
    consequence: str  # warn | pass
    player: int | None
    elapsed_s: float | None
    running: bool
    overrun: bool


class ComputerStatus(TypedDict):
    """The computer opponent (opponent.py): `player` and `level` None when there is none;
    `move` the pit it chose for this turn (None while it thinks or on a person's turn);
    `hint` the engine's best pit while the hint shows, `error` why the engine gave none."""

    player: int | None
    level: int | None
    thinking: bool
    move: int | None
    hint: int | None
    hint_thinking: bool
    error: str | None


class MatchStatus(TypedDict):
    """A match of handicap rounds (match.py): this `round`, the rounds each player `won`
    before it (with it, once `over`)."""

    round: int
    won: list[int]
    over: bool


class GameCore(TypedDict):
    """The game's section as it changes only when the game does (a publication's cause)."""

    variant: str
    options: dict[str, Any]
    position: PositionStatus
    hand: list[int]
    expected: list[PlaceJson]
    expected_kind: str
    phase: str
    history: list[HistoryEntry]
    can_undo: bool  # an undo would take a move back (the admin page's Undo is off when not)
    record: dict[str, Any]
    computer: ComputerStatus
    match: MatchStatus | None
    events: list[RuleEvent]  # the newest rule events (teach mode explains them)


class GameStatus(GameCore):
    turn_timer: TurnTimer


class PlaceLight(TypedDict):
    color: str
    effect: str


class LedsStatus(TypedDict):
    colors: list[str]
    places: dict[str, PlaceLight]
    current_a: float
    brightness: float


class SensorStatus(TypedDict):
    cell: int
    place: PlaceJson | None
    raw: int | None
    grams: float | None
    noise_g: float | None
    rate_sps: float
    fault: str | None


class FaultStatus(TypedDict):
    kind: str
    part: str
    detail: str


class RecorderStatus(TypedDict):
    seconds: float
    saved: int
    last: str | None
    error: str | None
    pending: bool


class LoopStatus(TypedDict):
    ticks: int
    missed_ticks: int
    lag_ms_p99: float
    frames: int


class MqttStatus(TypedDict):
    """Publishing to the hall's broker (`[mqtt]`, controller/daemon/mqtt.py)."""

    url: str
    board_id: str
    connected: bool
    dropped: int  # messages the bounded queue dropped while the broker was away or slow
    connects: int
    error: str | None


class BehindStatus(TypedDict):
    """What the loop lost by falling behind its source (behind.py): frames a real source's
    queue dropped, and simulated time the simulated board skipped; since the daemon started
    and in the last minute of the loop's time."""

    dropped_frames: int
    dropped_frames_last_minute: int
    skipped_s: float
    skipped_s_last_minute: float


class NoticeStatus(TypedDict):
    """One thing the daemon told (notices.py)."""

    text: str
    level: str  # "info" (routine) | "warning" (an operator must act or know)
    first_at: float  # when it was first told (time.time())
    at: float  # when it was last told
    repeats: int  # how often it was told while kept (the same text and severity)
    acknowledged: bool  # an operator read it since it was last told (warnings)


class DaemonCore(TypedDict):
    """The daemon's section but for the loop's figures, which may change every tick (a loop
    that falls behind drops frames at every tick: a snapshot each would only add to its load).
    They go out with the next snapshot, at least once a second."""

    state: str
    source: str
    data_dir: str
    calibration: str
    notices: list[NoticeStatus]  # the newest 20 of each severity told (notices.py), oldest first
    notices_total: int  # told since the start (the log has them all)
    notices_warnings_total: int  # the warnings among them
    notices_unacknowledged: int  # the warnings kept that no operator acknowledged yet
    faults: list[FaultStatus]
    steps: int
    sim_busy: bool
    idle: bool
    recorder: RecorderStatus
    mqtt: MqttStatus | None  # None: [mqtt] url is not set


class DaemonStatus(DaemonCore):
    loop: LoopStatus
    behind: BehindStatus


class Status(TypedDict):
    version: int
    published_at: float
    sim: bool
    board: BoardStatus
    game: GameStatus
    flags: list[FlagStatus]
    leds: LedsStatus
    mode: str
    sensors: list[SensorStatus]
    daemon: DaemonStatus


class Core(TypedDict):
    """What of a snapshot changes only when the game or the daemon's state does: a snapshot is
    published when this changes (or the LED colours, or the sensors' second is up)."""

    sim: bool
    board: BoardStatus
    game: GameCore
    flags: list[FlagStatus]
    leds_places: dict[str, PlaceLight]
    mode: str
    daemon: DaemonCore


def missing_keys(value: Any, shape: Any = Status, where: str = "status") -> list[str]:
    """Where `value` lacks a key its TypedDict `shape` names, or has one it does not name
    (nested dicts and the items of lists included); empty when the shapes agree.

    >>> missing_keys({"ticks": 9, "missed_ticks": 0, "lag_ms_p99": 1.0, "cell": 0}, LoopStatus)
    ['status: no frames', 'status: cell is not in LoopStatus']
    """
    if typing.is_typeddict(shape):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        hints = typing.get_type_hints(shape)
        out = [f"{where}: no {key}" for key in hints if key not in value]
        out += [f"{where}: {key} is not in {shape.__name__}" for key in value if key not in hints]
        for key, hint in hints.items():
            if key in value:
                out += missing_keys(value[key], hint, f"{where}.{key}")
        return out
    origin = typing.get_origin(shape)
    if origin in (Union, types.UnionType) and value is not None:
        inner = [a for a in typing.get_args(shape) if a is not type(None)]
        return missing_keys(value, inner[0], where) if len(inner) == 1 else []
    if origin is list and isinstance(value, list):
        (item,) = typing.get_args(shape)
        return [p for k, v in enumerate(value) for p in missing_keys(v, item, f"{where}[{k}]")]
    if origin is dict and isinstance(value, dict):
        item = typing.get_args(shape)[1]
        return [p for k, v in value.items() for p in missing_keys(v, item, f"{where}[{k}]")]
    return []
