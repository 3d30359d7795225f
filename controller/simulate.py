"""`sowboard simulate SCENARIO.json`: run the referee on the simulated board and report.

The referee sees only the simulated frames and the user's calibration; the simulator's truth
and landing times are read afterwards, to write the report of SIMULATION.md.

`sowboard simulate --frames RECORDING`: the referee over a recording of the daemon's frames
(controller/sensing/recording.py), started where the recording says the live one was, and
the steps and flags it finds compared with the live ones recorded.
"""

from __future__ import annotations

import itertools
import math
import statistics
import tomllib
from typing import Any

from controller.board import BoardFileError, parse_board
from controller.rules import Game, OptionError, Rules, Step, StepFollower
from controller.rules.record import start_json, start_position
from controller.sensing.recording import (
    Recording,
    RecordingError,
    RecordingSource,
    software_version,
)
from controller.sim import Scenario, Simulation, build_simulation
from controller.tracking.hypotheses import Tracker
from controller.tracking.session import (
    latencies_ms,
    latency_summary,
    run_frames,
    start_referee,
)


def run_simulation(scenario: Scenario) -> tuple[Simulation, Tracker]:
    """The scenario on the simulated board, with the referee following it."""
    simulation = build_simulation(scenario)
    source = simulation.source()
    world = simulation.world
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    start = simulation.scenario.start  # (a record's own start: a match round's layout)
    follower = None if start is None else StepFollower.from_game(Game(world.rules, start=start))
    referee = start_referee(
        source, calibration, world.rules, world.mapping, world.nominal_rate_sps, follower
    )
    run_frames(referee, _frames(source))
    return simulation, referee


def _frames(source: Any) -> Any:
    while True:
        frame = source.read(None)
        if frame is None:
            return
        yield frame


def report(simulation: Simulation, referee: Tracker) -> dict[str, Any]:
    world = simulation.world
    landings = [(landing.t, landing.place, landing.hand) for landing in world.landings]
    return {
        "truth": world.truth(),
        "belief": referee.belief(),
        "steps": [s.to_json() for s in referee.steps],
        "flags": [f.to_json() for f in referee.flags],
        "latency_ms": latency_summary(latencies_ms(referee, landings)),
        "record": game_record(simulation, referee),
    }


def game_record(simulation: Simulation, referee: Tracker) -> dict[str, Any]:
    """The game as the referee recognised it, a record of RULES.md section 5 (`sowboard
    replay` reads it): with the scenario's own `start` when it has one, and its steps when
    the opening was simultaneous, as the daemon's (docs/records.md)."""
    scenario = simulation.scenario
    record: dict[str, Any] = {"variant": scenario.variant, "options": dict(scenario.options)}
    if scenario.start is not None:
        record["start"] = start_json(scenario.start)
    if simulation.world.rules.options.simultaneous_opening:
        record["steps"] = [s.step.to_json() for s in referee.steps]
    record["moves"] = [m.pit for m in referee.game.completed]
    return record


# -- recordings -----------------------------------------------------------------------------------


def run_recording(recording: Recording) -> Tracker | None:
    """The referee over `recording` as it ran live (None: no referee ran in it).

    RecordingError when the header cannot be used (its board, rules, calibration or steps)."""
    header, name = recording.header, recording.name
    start = header.get("start")
    if not isinstance(start, dict) or start.get("referee") is None:
        return None
    try:
        rules = Rules.for_variant(str(header.get("variant")), dict(header.get("options") or {}))
        board = parse_board(tomllib.loads(str(header["board"]["file"])), f"{name}: board")
        mapping = board.mapping(rules.n)
        calibration = [(float(o), float(s)) for o, s in header["calibration"]]
        if not all(math.isfinite(o) and math.isfinite(s) and s for o, s in calibration):
            raise ValueError("every calibration offset and scale must be finite, scales not 0")
        layout = start.get("layout")  # (a match round's own start)
        follower = (
            StepFollower.new(rules)
            if layout is None
            else StepFollower.from_game(Game(rules, start=start_position(layout, rules)))
        )
        for k, step in enumerate(start["steps"]):
            verdict = follower.feed(Step.from_json(step))
            if not verdict.accepted:
                raise ValueError(f"start step {k + 1} is not a step of this game: {verdict.reason}")
    except (OptionError, BoardFileError, tomllib.TOMLDecodeError) as err:
        raise RecordingError(f"{name}: header: {err}") from None
    except (KeyError, TypeError, ValueError) as err:
        raise RecordingError(
            f"{name}: header: unusable start, board or calibration ({err})"
        ) from None
    if len(calibration) != header["cells"]:
        raise RecordingError(
            f"{name}: header: {len(calibration)} calibration pairs for {header['cells']} cells"
        )
    source = RecordingSource(recording)
    try:
        referee = start_referee(
            source, calibration, rules, mapping, float(header["rate_sps"]), follower=follower
        )
    except (RuntimeError, ValueError) as err:
        raise RecordingError(
            f"{name}: the referee cannot start from its first frames ({err})"
        ) from None
    run_frames(referee, _frames(source))
    return referee


def frame_period(recording: Recording) -> float:
    """The frames' usual interval (the tolerance of a time compared with the live one)."""
    ts = [f.t for f in recording.frames]
    gaps = [b - a for a, b in itertools.pairwise(ts) if b > a]
    return statistics.median(gaps) if gaps else 1.0 / float(recording.header["rate_sps"] or 1)


def differences(
    what: str,
    live: list[dict[str, Any]],
    replayed: list[dict[str, Any]],
    keys: tuple[str, ...],
    period: float,
) -> list[str]:
    """Where `replayed` differs from `live`: in `keys`, or in time by more than a frame.

    >>> live = [{"t": 1.0, "kind": "wrong_pit", "at": [0, 2]}]
    >>> differences("flag", live, [{"t": 1.0125, "kind": "wrong_pit", "at": [0, 2]}], ("kind", "at"), 0.0125)
    []
    >>> differences("flag", live, [], ("kind", "at"), 0.0125)
    ['1 flags live, 0 replayed']
    """
    out = []
    if len(live) != len(replayed):
        out.append(f"{len(live)} {what}s live, {len(replayed)} replayed")
    for k, (a, b) in enumerate(zip(live, replayed, strict=False)):
        shown = {key: a.get(key) for key in keys}
        if any(a.get(key) != b.get(key) for key in keys):
            out.append(
                f"{what} {k + 1}: live {shown}, replayed { {key: b.get(key) for key in keys} }"
            )
        elif abs(float(a["t"]) - float(b["t"])) > period + 1e-3:
            out.append(f"{what} {k + 1} {shown}: live at {a['t']} s, replayed at {b['t']} s")
    return out


def recording_report(recording: Recording, referee: Tracker | None) -> dict[str, Any]:
    """The simulate report for a recording (no truth: the wood's is unknown) and how the
    replay compares with the live referee."""
    steps = [s.to_json() for s in referee.steps] if referee is not None else []
    flags = [f.to_json() for f in referee.flags] if referee is not None else []
    live: dict[str, Any]
    if referee is None:
        live = {
            "same": None,
            "differences": [],
            "why": "no referee start in this recording (it began during a move, or while the "
            "board was weighed): its frames are for a person to look at",
        }
    else:
        period = frame_period(recording)
        step_keys = tuple(sorted({k for s in steps + recording.live["steps"] for k in s} - {"t"}))
        found = differences("step", recording.live["steps"], steps, step_keys, period)
        found += differences("flag", recording.live["flags"], flags, ("kind", "at"), period)
        live = {"same": not found, "differences": found}
        recorded_by, replayed_by = recording.header.get("software"), software_version()
        if found and recorded_by != replayed_by:
            live["why"] = (
                f"recorded by {recorded_by}, replayed by {replayed_by}: the referee has changed "
                "since, and the differences may be its changes"
            )
    header = recording.header
    return {
        "recording": {
            "software": header.get("software"),
            "saved": header.get("saved"),
            "reason": header.get("reason"),
            "board": header.get("board", {}).get("name"),
            "variant": header.get("variant"),
            "frames": len(recording.frames),
            "seconds": round(recording.frames[-1].t - recording.frames[0].t, 3)
            if recording.frames
            else 0.0,
            "referee_start": header.get("start", {}).get("referee"),
        },
        "belief": referee.belief() if referee is not None else None,
        "steps": steps,
        "flags": flags,
        "live": live,
    }
