"""A hypothesis: one explanation of every motion so far (hypotheses.py searches them).

Its game is a follower copy (the rules engine's, never a rule written again); its **ledger**
holds the seeds that are not where the game has them, each entry with why; its steps are a
persistent list, newest first, shared with the hypotheses it branched from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from controller.rules import Step, StepFollower


@dataclass(frozen=True, slots=True)
class Entry:
    """Seeds of one cup that are not where the game has them: `seeds` more in the cup (fewer,
    if negative). `kind` says why: 'carried' (a capture in the hand, on its way to the store),
    'left' (a pit lifted in two handfuls), or a mistake's flag kind; `motion` made it (a
    capture's: the motion of the cup it was taken from)."""

    cell: int
    seeds: int
    kind: str
    player: int | None
    motion: int
    grams: float | None = None  # what they weigh, when a cup weighed them (a capture's seeds)

    @property
    def mistake(self) -> bool:
        return self.kind not in ("carried", "left")


# A motion explained, before it: (the motion, its cup's seeds, the touch's grams and spread)
Before = tuple[int, int, float, float]
# A settled motion's best fit: its cost, the touch (grams, spread), the captured seeds arrived
Fitted = tuple[float, tuple[float, float], tuple[Entry, ...]]


@dataclass(frozen=True, slots=True)
class Taken:
    """A step of a hypothesis, after `parent` (a shared, persistent list)."""

    step: Step
    motion: int  # the motion it was read from: its cup's (a hand's tempo, the lights' times)
    parent: Taken | None


@dataclass(frozen=True, slots=True)
class Hypothesis:
    game: StepFollower
    last: Taken | None
    ledger: tuple[Entry, ...] = ()
    # (cell, grams, spread) resting: its weight as fitted, and how far that may be off (the
    # spread of the seeds that came with it: their weight is in the fit)
    touches: tuple[tuple[int, float, float], ...] = ()
    cost: float = 0.0
    # Motions explained, not yet scored: (motion, seeds in its cup before it, touch before).
    # A cup's settled level shows every step made before it settled, whichever cup's motion
    # began first: it is scored once the motions that began before then are explained.
    unscored: tuple[Before, ...] = ()
    ahead: tuple[int, ...] = ()  # later motions whose steps were taken early (SLACK_S)
    made: tuple[Entry, ...] = ()  # the mistakes it holds were made, put right since or not

    def but(self, **changes: Any) -> Hypothesis:
        """This hypothesis with `changes` (as `dataclasses.replace`, without its look at the
        fields each time: the search makes some hundred thousand a game)."""
        assert HYPOTHESIS_FIELDS.issuperset(changes), changes  # (as `replace` would raise)
        get = changes.get
        return Hypothesis(
            get("game", self.game),
            get("last", self.last),
            get("ledger", self.ledger),
            get("touches", self.touches),
            get("cost", self.cost),
            get("unscored", self.unscored),
            get("ahead", self.ahead),
            get("made", self.made),
        )

    def touch_g(self, cell: int) -> float:
        return next((g for c, g, _ in self.touches if c == cell), 0.0)

    def touch(self, cell: int) -> tuple[float, float]:
        """The touch resting on the cup: its grams and spread (none: 0, 0)."""
        return next(((g, spread) for c, g, spread in self.touches if c == cell), (0.0, 0.0))

    def key(self) -> tuple[Any, ...]:
        """The state: two hypotheses with the same one are the same from now on."""
        game = self.game
        hands = tuple(
            (h.phase, h.seeds, h.sown, h.last, h.relay_at, tuple(h.pending), h.sequence)
            for h in game.hands
        )
        return (
            tuple(game.board),
            game.to_move,
            hands,
            tuple(game.pending_sweeps),
            self.ledger,
            tuple(sorted((c, round(g)) for c, g, _ in self.touches)),
            # (Two hands' steps at different cups, taken in either order, leave the same state:
            # one of them is kept, not both, so the beam holds explanations that differ.)
            tuple(sorted(u[0] for u in self.unscored)),
            tuple(sorted(self.ahead)),
        )


HYPOTHESIS_FIELDS = frozenset(f.name for f in fields(Hypothesis))


def newest_first(last: Taken | None) -> Iterator[Taken]:
    """A hypothesis's steps, from its last back."""
    while last is not None:
        yield last
        last = last.parent


def hands_last(last: Taken | None, player: int) -> Taken | None:
    """The hand's newest step from `last` back (the other hand's passed over: both sow at
    once in the simultaneous opening, and a capture's seeds go to the capturer's store)."""
    return next((n for n in newest_first(last) if n.step.player == player), None)


def both_sowing(game: StepFollower) -> bool:
    """Do both hands sow now (a simultaneous opening)?"""
    return len(game.active_players()) > 1


def leading(beam: list[Hypothesis], rank: Callable[[Hypothesis], float]) -> Hypothesis:
    """The likeliest by `rank`; of two that tie, the one that leaves no mistake open: a person
    puts a mistake right as its red light shows (a seed lost and a spare put in the gap,
    against the next seed in the wrong pit left there and the spare the hand's own, which the
    cups tell apart only as time passes: flag_seed_lost_spare)."""
    return min(beam, key=lambda h: (round(rank(h), 6), sum(e.mistake for e in h.ledger)))
