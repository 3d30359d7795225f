"""The cups' motions, from the detector's events: the first stage of the referee (samples ->
motions -> the search of hypotheses.py).

A **motion** is a cup moving, from the detector's onset to its settling. At 80 SPS fingers
brushing a cup (30 to 80 ms, SIMULATION.md) may read as settled for a moment and go on: a cup
that moves again within `HOLD_S` of settling had only paused, and its motion goes on (the level
it paused at is kept: a seed let go after a palm lifted strikes above the palm's absence). At
10 SPS a reading is the mean of the last 100 ms and averages a brush away: a motion is final
once settled. A knock of the table moves every cell at once (SIMULATION.md's `bump`), so most
cells beginning to move within `KNOCK_S` of each other are a knock, and a cup moving then has
its peak from it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from controller.sensing.detect import Onset, Settled

HOLD_S = 0.1  # a motion is final once settled this long (80 SPS)
# Most cells beginning to move within KNOCK_S of each other are a knock (docs/referee.md)
KNOCK_S = 0.05
KNOCK_SHARE = 0.5


@dataclass
class Motion:
    """A cup moving: from its onset to its settling again (the detector's events)."""

    cell: int
    onset_t: float
    before_g: float  # the level it left
    after_g: float | None = None  # the level it settled at (None: still moving)
    peak_g: float = 0.0  # the furthest it went above `before_g`
    # The furthest it rose above where it was before the rise (where it paused, if it did: a
    # palm lifted, then a seed let go, strikes above the palm's absence, not above `before_g`)
    strike_g: float = 0.0
    settled_t: float = math.inf
    paused_g: float = 0.0  # where it paused for a moment, above `before_g` (a brush)
    dip_g: float = 0.0  # how far it fell below where it began and where it settled

    def settle(self, event: Settled) -> None:
        """It settled (its crest from where it paused, if it did: a seed let go before a lift
        shows there, which the lift's larger excursion hides in its peak)."""
        self.after_g = event.level_g
        peak = self.paused_g + event.crest_g
        self.peak_g = max(self.peak_g, peak, event.level_g - self.before_g)
        self.strike_g = max(self.strike_g, self.peak_g, event.crest_g)
        lowest = min(self.paused_g + event.trough_g, peak, 0.0)
        self.dip_g = max(self.dip_g, min(0.0, event.level_g - self.before_g) - lowest)
        self.settled_t = event.t

    def resume(self) -> None:
        """It had only paused (fingers brushing the cup): it moves on from there."""
        assert self.after_g is not None
        self.paused_g = self.after_g - self.before_g
        self.after_g = None
        self.settled_t = math.inf


class MotionLog:
    """The motions in onset order, `items`, each cell's under way (`open`) and latest.

    `on_event` answers which motion's explanation an event changes: the search explains the
    motions from that one on again (`None`: nothing changed; an index past those explained,
    such as a new motion's own: none to explain again, but a search is due). A cup beginning
    to move changes the first motion it may be explained with: one begun within `slack_s` of
    it, or still under way and begun within `near_s`. At 80 SPS a motion that settled is
    weighed once it held (`level`).
    """

    def __init__(self, hold_s: float, places: int, slack_s: float, near_s: float) -> None:
        self.items: list[Motion] = []
        self.open: dict[int, int] = {}  # cell -> its motion under way
        self.latest: dict[int, int] = {}  # cell -> its latest motion
        self.knocks: list[float] = []  # when the table was knocked
        self.hold_s = hold_s
        self.places = places  # cells mapped to places: a knock moves most of them
        self.slack_s = slack_s
        self.near_s = near_s
        self.last_t = 0.0  # when a cup last began or stopped moving

    def on_event(
        self,
        event: Onset | Settled,
        rest_g: float | None,
        final: int,
        ends: Callable[[Motion], bool],
    ) -> int | None:
        """Take one detector event. `final`: the motions before it are explained for good;
        `ends(motion)`: does a settled motion end there, even if its cup moves again at once
        (a pit lifted while both hands sow, then the other hand's seed)?"""
        self.last_t = event.t
        if isinstance(event, Onset):
            return self._onset(event, rest_g, final, ends)
        index = self.open.pop(event.cell, None)
        if index is None:
            # The level re-taken after an early settle (10 SPS): the last motion settled there.
            latest = self.latest.get(event.cell)
            if latest is None or self.items[latest].after_g is None:
                return None
            self.items[latest].after_g = event.level_g
            return latest if latest >= final else None
        self.items[index].settle(event)
        # (At 80 SPS it is weighed once it held, and explained again then.)
        return len(self.items) if self.hold_s else index

    def _onset(
        self, event: Onset, rest_g: float | None, final: int, ends: Callable[[Motion], bool]
    ) -> int | None:
        cell = event.cell
        if cell in self.open:
            return None
        last = self.latest.get(cell)
        if last is not None and last >= final:
            motion = self.items[last]
            if event.t - motion.settled_t < self.hold_s and not ends(motion):
                motion.resume()
                self.open[cell] = last
                return last
        changes = self._first_near(event.t, final)
        self.open[cell] = self.latest[cell] = len(self.items)
        self.items.append(Motion(cell, event.t, rest_g if rest_g is not None else 0.0))
        self._knocked_now(event.t)
        return changes

    def _first_near(self, t: float, final: int) -> int:
        """The first motion a cup beginning to move at `t` may be explained with."""
        for index in range(final, len(self.items)):
            motion = self.items[index]
            reach = min(motion.settled_t, motion.onset_t + self.near_s)
            if t <= max(motion.onset_t + self.slack_s, reach):
                return index
        return len(self.items)

    def void(self, cell: int, t: float, final: int) -> int | None:
        """The cell's motions not yet final were nothing (it cannot be weighed): it stands
        where it began. The first of them, if any."""
        self.open.pop(cell, None)
        indices = [k for k in range(final, len(self.items)) if self.items[k].cell == cell]
        for index in indices:
            motion = self.items[index]
            motion.after_g, motion.settled_t = motion.before_g, min(motion.settled_t, t)
            motion.peak_g = motion.dip_g = motion.paused_g = motion.strike_g = 0.0
        return indices[0] if indices else None

    def level(self, motion: Motion, now: float) -> float | None:
        """The level the motion settled at, to be weighed; None while it moves, or has settled
        for less than `hold_s`: at 80 SPS a hand pressing on a pit to grab it settles for a
        moment 20 g up, and weighed there it put out the pickup's light for a frame and told
        the journal to take the step back."""
        if motion.after_g is None or now - motion.settled_t < self.hold_s:
            return None
        return motion.after_g

    def _knocked_now(self, t: float) -> None:
        """Did most cells begin to move at once (within KNOCK_S): the table knocked?"""
        if self.knocks and t - self.knocks[-1] <= KNOCK_S:
            return
        cells = set()
        for motion in reversed(self.items):
            if t - motion.onset_t > KNOCK_S:
                break
            cells.add(motion.cell)
        if len(cells) >= KNOCK_SHARE * self.places:
            self.knocks.append(t)

    def knocked(self, motion: Motion) -> bool:
        """Was the table knocked while the cup moved? Its peak is then the knock's too."""
        k = bisect.bisect_left(self.knocks, motion.onset_t - KNOCK_S)
        return k < len(self.knocks) and self.knocks[k] <= motion.settled_t

    def begun_by_knock(self, motion: Motion) -> bool:
        """Did the cup begin to move with a knock of the table (its onset within KNOCK_S of
        it, before or after: a knock is noted when most cells have begun, and the rest follow)?
        Then all it did until it settled may be the knock's; a cup moving before the knock
        came moved for something else first."""
        k = bisect.bisect_left(self.knocks, motion.onset_t - KNOCK_S)
        return k < len(self.knocks) and self.knocks[k] <= motion.onset_t + KNOCK_S

    def begun_with(self, index: int, within_s: float) -> Iterator[Motion]:
        """The motions that began within `within_s` of this one (they are in onset order)."""
        onset = self.items[index].onset_t
        for k in range(index - 1, -1, -1):
            if onset - self.items[k].onset_t > within_s:
                break
            yield self.items[k]
        for k in range(index + 1, len(self.items)):
            if self.items[k].onset_t - onset > within_s:
                break
            yield self.items[k]
