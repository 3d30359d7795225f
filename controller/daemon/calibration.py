"""The load cells' calibration: which one is in use, and the three stages that make a new one.

In use is the file's (`calibration.json`), else the simulated board's own cells, else nominal
figures (an uncalibrated 1 kg cell), which make weights rough until the board is calibrated.
The stages (`calibrate` on the admin page and `sowboard calibrate`), each on a board at rest:
`empty` takes every cell's zero, `reference` a known weight in one cup scales that cell, and
`layout` weighs the start layout for the seeds' mass. Each stage is saved at once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.board import Board
from controller.rules import StepFollower
from controller.sim.world import CellCalibration
from controller.tracking.session import STARTUP_S

from .boardcheck import LevelWindow, check_board, estimate_seed_g, loaded_cells, place_counts
from .files import Calibration, DataFileError, load_calibration, save_calibration
from .game import JournaledGame
from .link import CommandError
from .notices import Notices

NOMINAL_COUNTS_PER_G = 420.0  # an uncalibrated 1 kg cell at gain 128 (sim/world.py)
# A seed's mass when nothing on the board tells it: a board that weighs nothing where the game
# has seeds (zeros taken with the seeds on it) is then checked against it, and every place is
# flagged as holding too few, instead of waiting without a flag for a mass it cannot measure.
SEED_GUESS_G = 5.0
STAGES = ("empty", "layout", "reference")

Cells = list[tuple[float, float]]


def file_signature(path: Path) -> tuple[int, int, int] | None:
    """What tells one content of `path` from another without reading it (None: no file)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


class Calibrator:
    """The calibration in use (`current`) and the stages that replace it. `simulated`: the
    simulated board's own cells, when it runs. `save(path, job)` queues the file's write."""

    def __init__(
        self,
        path: Path,
        board: Board,
        cell_count: int,
        save: Callable[[Path, Callable[[], None]], None],
        notices: Notices,
        simulated: Callable[[], list[CellCalibration]] | None = None,
    ) -> None:
        self.path = path
        self.board = board
        self.cell_count = cell_count
        self.save = save
        self.notices = notices
        self.simulated = simulated
        self._damaged: tuple[int, int, int] | None = None  # the damaged file already told
        self.current = self.load()

    def load(self) -> Calibration:
        """The file's calibration, else the simulated cells', else nominal figures."""
        try:
            found = load_calibration(self.path, self.board.name, self.cell_count)
        except DataFileError as err:
            # Told and kept aside once: every new simulated world reads the file again, and
            # a copy a new game filled the card in demo mode.
            if self._damaged is None or self._damaged != file_signature(self.path):
                self.notices.warning(f"calibration not used: {err}")
                self.notices.keep_damaged(self.path)
                self._damaged = file_signature(self.path)
            found = None
        if found is not None:
            return found
        if self.simulated is not None:
            cells = tuple((c.offset, c.counts_per_g) for c in self.simulated())
            return Calibration(cells, origin="simulator")
        self.notices.warning(
            f"no calibration in {self.path}: weights are rough until the board is "
            "calibrated (admin page, or `sowboard calibrate`)"
        )
        return Calibration(
            tuple((0.0, NOMINAL_COUNTS_PER_G * 1000.0 / c.capacity_g) for c in self.board.cells),
            origin="nominal",
        )

    def world_replaced(self) -> None:
        """A new simulated world has cells of its own; a calibration from the file is kept as
        it is in memory (reading the file back could find it before the writer saved it)."""
        if self.current.origin != "file":
            self.current = self.load()

    def seed_guess(self, game: JournaledGame) -> float:
        return game.seed_g or self.current.seed_g or SEED_GUESS_G

    # -- the stages -----------------------------------------------------------------------------

    def stage(
        self, args: dict[str, Any], window: LevelWindow, game: JournaledGame
    ) -> dict[str, Any]:
        """Carry out one stage on the board the window holds, and save the result."""
        stage = args.get("stage")
        cal = list(self.current.cells)
        seed_guess = self.seed_guess(game)
        if window.span() < STARTUP_S or not window.at_rest(cal, seed_guess):
            raise CommandError("command", "the board is not at rest: wait a moment and try again")
        result: dict[str, Any] = {"stage": stage}
        if stage == "empty":
            result.update(self._empty(window, cal, seed_guess, game))
        elif stage == "reference":
            result.update(self._reference(window, cal, args.get("grams"), game))
        elif stage == "layout":
            result.update(self._layout(window, cal, game))
        else:
            allowed = ", ".join(STAGES)
            raise CommandError("stage", f"{stage!r} is not a stage, allowed: {allowed}")
        calibration = self.current
        path = self.path
        board = self.board.name
        self.save(path, lambda: save_calibration(path, board, calibration))
        return result

    def _empty(
        self, window: LevelWindow, cal: Cells, seed_guess: float, game: JournaledGame
    ) -> dict[str, Any]:
        self._refuse_loaded_board(window, cal, seed_guess, game)
        cells = tuple(
            (float(r) if r is not None else off, scale)
            for r, (off, scale) in zip(window.raw_medians(), cal, strict=True)
        )
        self.current = Calibration(cells, self.current.seed_g, self.current.seed_cv, origin="file")
        return {"cells": len(cells)}

    def _reference(
        self, window: LevelWindow, cal: Cells, grams: Any, game: JournaledGame
    ) -> dict[str, Any]:
        if not isinstance(grams, int | float) or isinstance(grams, bool) or grams <= 0:
            raise CommandError("grams", "the reference stage needs the weight in grams")
        loads = [
            (0.0 if r is None else (r - off) / scale, cell)
            for cell, (r, (off, scale)) in enumerate(zip(window.raw_medians(), cal, strict=True))
        ]
        loads.sort(reverse=True)
        (load, cell), (second, _) = loads[0], loads[1]
        if load < 0.3 * grams:
            raise CommandError(
                "grams", f"no cup carries about {grams:g} g: put the weight in one cup"
            )
        if second > 0.2 * grams:
            raise CommandError("command", "more than one cup is loaded: empty the others")
        off, scale = cal[cell]
        cal[cell] = (off, scale * load / grams)
        self.current = Calibration(
            tuple(cal), self.current.seed_g, self.current.seed_cv, origin="file"
        )
        place = game.mapping.place_of.get(cell)
        return {
            "cell": cell,
            "place": None if place is None else place.to_json(),
            "counts_per_g": round(cal[cell][1], 3),
        }

    def _layout(self, window: LevelWindow, cal: Cells, game: JournaledGame) -> dict[str, Any]:
        start = place_counts(game.rules, StepFollower.new(game.rules).position())
        levels = window.medians(cal)
        seed_g = estimate_seed_g(levels, game.mapping, start)
        if seed_g is None:
            raise CommandError("command", "the board holds no seeds to weigh")
        wrong = check_board(levels, game.mapping, start, seed_g)
        if wrong:
            where = ", ".join(str(c.place) for c in wrong)
            raise CommandError("command", f"the start layout is not on the board ({where})")
        self.current = Calibration(self.current.cells, round(seed_g, 4), None, origin="file")
        game.seed_g = None  # measured again by the referee from this board
        return {"seed_g": round(seed_g, 3)}

    def _refuse_loaded_board(
        self, window: LevelWindow, cal: Cells, seed_g: float, game: JournaledGame
    ) -> None:
        """The zero stage on a board that is visibly not empty is refused (boardcheck.
        loaded_cells says why and how much). Without a calibration (`nominal`: the zeros are
        not known at all) nothing can be judged, and the first zeros are taken as they are."""
        if self.current.origin == "nominal":
            return
        loaded = loaded_cells(window.medians(cal), seed_g)
        if loaded:
            place_of = game.mapping.place_of
            where = ", ".join(str(place_of.get(c, f"cell {c}")) for c in loaded)
            raise CommandError(
                "command",
                f"the board is not empty ({where} hold seeds by the current calibration): "
                "take every seed out first",
            )
