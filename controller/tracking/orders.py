"""Whose seed came first: following the other order of a simultaneous opening.

In a simultaneous congkak opening both hands may sow into one cup, or one may lift a pit the
other sows into, a few milliseconds apart. The weights cannot say whose seed fell first, yet the
rules' outcome depends on it (RULES.md, `simultaneous_opening`: "as the seeds actually fall"):
a last seed that lands in an empty own pit captures, one that lands after the other hand's seed
relays; a seed that fell in just before the other hand lifted the pit went with the rest. The
referee takes the likelier answer at once (`Referee._decide`) and goes on. A wrong one shows
itself later: a flag on a correct opening, or a hand that should still hold seeds (or relay)
resting.

`OrderSearch` keeps what it takes to answer again then: the frames since both hands began,
copies of the referee taken now and then (one a second), and where the choices were made. When
a frame adds such a doubt, the other answers of the recent choices are replayed over the same
frames, from a copy of the referee before that choice; one that explains them with fewer doubts
is taken instead, before the flag is ever shown. Until then it costs a copy of the referee a
second; it stops once the opening has been over for SEARCH_S.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.sensing.frames import Frame

if TYPE_CHECKING:
    from .referee import Referee

SEARCH_S = 8.0  # choices this recent are answered again when a doubt arises
COPY_EVERY_S = 1.0  # how often the referee is copied (a replay starts from the latest copy)
# What one search may cost, in frames replayed (45 us each on this machine), a copy of the
# referee (0.6 ms) counting as COPY_COST frames: at most 0.07 s at 80 SPS, 0.13 s at 10 SPS
# (`sowboard bench openings`; a frame costs more at 10 SPS).
MAX_REPLAYED = 1500
COPY_COST = 15


@dataclass
class Choice:
    """The choices made in one frame: how many answers each had, and which was taken."""

    frame: int  # the frame's number, counted from the first frame of the two hands
    answers: list[int]
    taken: list[int]


@dataclass
class OrderSearch:
    """What a referee needs to answer its choices again (see the module docstring); one per
    referee of a game with a simultaneous opening. Copies of the referee have none."""

    following: bool = False  # are two hands (or what they left in doubt) being followed?
    frames: list[Frame] = field(default_factory=list)  # frames[i] is frame number first + i
    first: int = 0
    ended_t: float | None = None  # when the opening was seen over (one hand or none left)
    choices: list[Choice] = field(default_factory=list)
    states: dict[int, Referee] = field(default_factory=dict)  # before frame i, this path
    choices_made: int = 0  # frames with a choice, in all
    searches: int = 0
    search_s: float = 0.0  # time spent searching, in all
    longest_search_s: float = 0.0  # the longest search (the loop waits that long for a frame)
    taken_back: int = 0  # choices answered again by a search
    budget: int = 0  # frames the search under way may still replay

    def process(self, referee: Referee, frame: Frame) -> None:
        """Let `referee` follow `frame`, keeping what a search needs while two hands play
        (and SEARCH_S after); search when the frame adds a doubt."""
        if not self.following:
            if len(referee.game.active_players()) < 2:
                referee.follow(frame)
                return
            self.following, self.first, self.frames = True, 0, []
            self.choices, self.states, self.ended_t = [], {}, None
        k = self.first + len(self.frames)
        latest = max(self.states, default=None)
        if latest is None or (latest < k and frame.t - self._frame(latest).t >= COPY_EVERY_S):
            self.states[k] = referee.snapshot()
        self.frames.append(frame)
        doubts = referee.doubts()
        referee.follow(frame)
        if referee.explained_t == frame.t:
            self._start_over(referee, k + 1)  # (the cups told what happened)
            return  # (no choice left to answer again, nor frames to replay)
        if referee.choices:
            self.choices.append(_choice(k, referee))
            self.choices_made += 1
        if referee.doubts() > doubts:
            started = time.perf_counter()
            self._search(referee, k)
            spent = time.perf_counter() - started
            self.search_s += spent
            self.longest_search_s = max(self.longest_search_s, spent)
        self._forget(referee, frame.t)

    def _frame(self, k: int) -> Frame:
        return self.frames[k - self.first]

    def _forget(self, referee: Referee, now: float) -> None:
        """Drop what no search can need any more: choices older than SEARCH_S, and the
        frames and copies before them; everything, once the opening has been over for
        SEARCH_S and its last choice is as old."""
        if len(referee.game.active_players()) >= 2:
            self.ended_t = None  # (a search may take back the end of the opening)
        elif self.ended_t is None:
            self.ended_t = now
        last = self._frame(self.choices[-1].frame).t if self.choices else self.ended_t
        if self.ended_t is not None and now - max(self.ended_t, last or 0.0) > SEARCH_S:
            self.following = False
            self.frames, self.choices, self.states = [], [], {}
            return
        if len(self.frames) % 256:
            return  # (now and then is enough)
        recent = [c for c in self.choices if now - self._frame(c.frame).t <= SEARCH_S]
        oldest = recent[0].frame if recent else self.first + len(self.frames) - 1
        # Replays start from a copy and give the answers of every choice after it: the copy
        # kept is the latest before the oldest recent choice, and so are the choices.
        keep = max((i for i in self.states if i <= oldest), default=self.first)
        self.choices = [c for c in self.choices if c.frame >= keep]
        self.states = {i: s for i, s in self.states.items() if i >= keep}
        del self.frames[: keep - self.first]
        self.first = keep

    def _start_over(self, referee: Referee, k: int) -> None:
        """The cups explained the steps so far (explain.py), answers to every choice made
        included: no answer is to be given again, and replays start from here."""
        self.choices, self.frames, self.first = [], [], k
        self.states = {k: referee.snapshot()}

    def _search(self, referee: Referee, k: int) -> None:
        """Replay the other answers of each recent choice (the latest first) up to frame `k`;
        take the first that leaves fewer doubts than the answers followed. After each, try
        two answers changed: that one, and one of the choices its replay made after it (a
        hand that was first at one cup is often first at the next as well, and a choice can
        arise only once an earlier one is answered the other way). Recent choices replay
        fewest frames: their pairs come before older choices, so the budget goes further."""
        self.searches += 1
        doubts = referee.doubts()
        self.budget = MAX_REPLAYED
        now = self._frame(k).t
        for choice in reversed(self.choices):
            if now - self._frame(choice.frame).t > SEARCH_S:
                break
            before = self._state_before(choice.frame)
            if before is None:
                break
            for i, answer in _other_answers(choice):
                forced = {choice.frame: [*choice.taken[:i], answer]}
                taken, made = self._try(referee, doubts, before, choice.frame, k, forced)
                if taken or self.budget < 0:
                    return
                if self._pairs(referee, doubts, before, choice.frame, k, forced, made):
                    return
            # Every answer from this choice on the other way: two hands sowing one row, one
            # just behind the other, answer a choice at each cup; if the one behind was the
            # one ahead, all of them change at once.
            if len(self.choices) > 1 and choice is not self.choices[-1]:
                invert = {choice.frame: [1 - min(1, taken) for taken in choice.taken]}
                taken, _ = self._try(referee, doubts, before, choice.frame, k, invert, True)
                if taken or self.budget < 0:
                    return

    def _pairs(
        self,
        referee: Referee,
        doubts: int,
        before: Referee,
        frame: int,
        k: int,
        forced: dict[int, list[int]],
        made: list[Choice],
    ) -> bool:
        """Two answers changed: `forced`, and one of the choices its replay made after it.
        Returns whether to stop (one was taken, or the budget is spent)."""
        for later in reversed(made):
            for j, answer in _other_answers(later):
                if later.frame == frame and j < len(forced[frame]):
                    continue  # the answer changed already, or one before it
                both = {**forced, later.frame: [*later.taken[:j], answer]}
                taken, _ = self._try(referee, doubts, before, frame, k, both)
                if taken or self.budget < 0:
                    return True
        return False

    def _try(
        self,
        referee: Referee,
        doubts: int,
        before: Referee,
        start: int,
        k: int,
        forced: dict[int, list[int]],
        invert: bool = False,
    ) -> tuple[bool, list[Choice]]:
        """Replay frames start..k from `before` with the `forced` answers (`invert`: the
        other answer to every choice not forced); take the result if it leaves
        fewer doubts. Returns whether it was taken, and the choices the replay made (none,
        and the budget spent, if over the budget)."""
        if self.budget < k + 1 - start + COPY_COST:
            self.budget = -1
            return False, []
        trial, made = self._replay(before, start, k + 1, forced, invert)
        if trial.doubts() >= doubts:
            return False, made
        self.taken_back += 1
        referee.adopt(trial)
        self.choices = [c for c in self.choices if c.frame < start] + made
        self.states = {i: s for i, s in self.states.items() if i <= start}
        return True, made

    def _state_before(self, k: int) -> Referee | None:
        """The referee as it was before frame `k` on the answers followed (replayed from the
        latest copy before it, and kept); None if that is over the search's budget."""
        state = self.states.get(k)
        if state is not None:
            return state
        start = max((i for i in self.states if i < k), default=None)
        if start is None or self.budget < k - start + COPY_COST:
            return None
        forced = {c.frame: c.taken for c in self.choices}
        state, _ = self._replay(self.states[start], start, k, forced)
        self.states[k] = state
        return state

    def _replay(
        self,
        origin: Referee,
        start: int,
        stop: int,
        forced: dict[int, list[int]],
        invert: bool = False,
    ) -> tuple[Referee, list[Choice]]:
        """A copy of `origin` run over frames start..stop-1, giving the `forced` answers (the
        likelier one to a choice not listed, or with `invert` the other); with the choices it
        made."""
        referee = origin.snapshot()
        referee.invert = invert  # (the forced answers come first)
        made: list[Choice] = []
        for k in range(start, stop):
            referee.forced = forced.get(k, [])
            referee.follow(self._frame(k))
            if referee.choices:
                made.append(_choice(k, referee))
        referee.forced, referee.invert = [], False
        self.budget -= stop - start + COPY_COST
        return referee, made


def _other_answers(choice: Choice) -> Iterator[tuple[int, int]]:
    """Each answer not taken to each of a frame's choices: (the choice's index, the answer)."""
    for i, answers in enumerate(choice.answers):
        for answer in range(answers):
            if answer != choice.taken[i]:
                yield i, answer


def _choice(k: int, referee: Referee) -> Choice:
    """The choices `referee` made in frame `k`."""
    return Choice(k, [n for n, _ in referee.choices], [taken for _, taken in referee.choices])
