"""The rules engine: pure Python, no I/O (RULES.md).

Variants are presets of options (`find_variant`); `Game` plays whole moves fast, and
`StepFollower` follows the hands one step at a time.
"""

from .core import Outcome, PositionHistory, Rules, Settlement, Termination
from .follower import CompletedMove, Mistake, Phase, StepFollower, Verdict
from .game import Game, IllegalMoveError
from .handicap import HandicapError, RoundSetup, handicap_round
from .options import OPTION_NAMES, VARIANTS, OptionError, Options, Variant, find_variant
from .position import Position, position_problems
from .steps import STORE, Place, Step, StepKind

__all__ = [
    "OPTION_NAMES",
    "STORE",
    "VARIANTS",
    "CompletedMove",
    "Game",
    "HandicapError",
    "IllegalMoveError",
    "Mistake",
    "OptionError",
    "Options",
    "Outcome",
    "Phase",
    "Place",
    "Position",
    "PositionHistory",
    "RoundSetup",
    "Rules",
    "Settlement",
    "Step",
    "StepFollower",
    "StepKind",
    "Termination",
    "Variant",
    "Verdict",
    "find_variant",
    "handicap_round",
    "position_problems",
]
