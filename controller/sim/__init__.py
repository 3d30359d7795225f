"""The simulated board (SIMULATION.md): seeds, hands and HX711 load cells, and a virtual player.

The controller reads only `SimSource` frames; `SimWorld`'s truth, landings and action log are
for reports and tests.
"""

from controller.physical import ACTION_KINDS, BUTTONS, MISTAKE_KINDS

from .player import (
    InjectedMistake,
    MistakeNotPossible,
    OpeningChoiceError,
    ScheduledMove,
    ScheduledOpening,
    Simulation,
    VirtualPlayer,
    build_simulation,
    build_world,
    schedule_move,
    schedule_opening,
    starting_hands,
)
from .scenario import (
    Action,
    PlayerParams,
    Scenario,
    ScenarioError,
    SensorParams,
    default_board,
    load_scenario,
    parse_actions,
    parse_scenario,
)
from .world import (
    ButtonPress,
    CellCalibration,
    Landing,
    LoggedAction,
    SimSource,
    SimWorld,
    action_end,
)

__all__ = [
    "ACTION_KINDS",
    "BUTTONS",
    "MISTAKE_KINDS",
    "Action",
    "ButtonPress",
    "CellCalibration",
    "InjectedMistake",
    "Landing",
    "LoggedAction",
    "MistakeNotPossible",
    "OpeningChoiceError",
    "PlayerParams",
    "Scenario",
    "ScenarioError",
    "ScheduledMove",
    "ScheduledOpening",
    "SensorParams",
    "SimSource",
    "SimWorld",
    "Simulation",
    "VirtualPlayer",
    "action_end",
    "build_simulation",
    "build_world",
    "default_board",
    "load_scenario",
    "parse_actions",
    "parse_scenario",
    "schedule_move",
    "schedule_opening",
    "starting_hands",
]
