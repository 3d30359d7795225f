"""`sowboard simulate SCENARIO.json`: run the referee on the simulated board and report.

The referee sees only the simulated frames and the user's calibration; the simulator's truth
and landing times are read afterwards, to write the report of SIMULATION.md.
"""

from __future__ import annotations

from typing import Any

from controller.sim import Scenario, Simulation, build_simulation
from controller.tracking.referee import Referee
from controller.tracking.session import latencies_ms, latency_summary, run_frames, start_referee


def run_simulation(scenario: Scenario) -> tuple[Simulation, Referee]:
    simulation = build_simulation(scenario)
    source = simulation.source()
    world = simulation.world
    calibration = [(c.offset, c.counts_per_g) for c in world.user_calibration()]
    referee = start_referee(source, calibration, world.rules, world.mapping, world.nominal_rate_sps)
    run_frames(referee, _frames(source))
    return simulation, referee


def _frames(source: Any) -> Any:
    while True:
        frame = source.read(None)
        if frame is None:
            return
        yield frame


def report(simulation: Simulation, referee: Referee) -> dict[str, Any]:
    world = simulation.world
    landings = [(landing.t, landing.place, landing.hand) for landing in world.landings]
    return {
        "truth": world.truth(),
        "belief": referee.belief(),
        "steps": [s.to_json() for s in referee.steps],
        "flags": [f.to_json() for f in referee.flags],
        "latency_ms": latency_summary(latencies_ms(referee, landings)),
    }
