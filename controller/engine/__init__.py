"""The computer opponent: a move for any position at levels 1 to 5, and the hint.

`search` chooses moves with the rules engine's own moves (controller/rules); `batch` plays
many random games at once on numpy arrays. docs/engine.md describes the levels and benches.
"""

from .batch import BatchResult, BatchRules
from .search import LEVELS, Level, Thought, best_move, hint, think

__all__ = ["LEVELS", "BatchResult", "BatchRules", "Level", "Thought", "best_move", "hint", "think"]
