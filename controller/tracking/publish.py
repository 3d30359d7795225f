"""What the referee says: the leader's steps, each lit when it first led, and its mistakes as
flags (the last stage: motions -> hypotheses -> steps and flags -> the lights and the pages).

The leader changes as the cups move; what it says must not flicker. A step keeps the time it
first led when the leader changes before it (the same step of the same motion: the lights'
latency is from then). A mistake becomes a flag only once its motion has held and no
hypothesis without a mistake comes within MARGIN of the leader; it is one red light for what
went wrong at that motion: renamed when the leader explains that motion by another mistake,
resolved when the leader puts it right, withdrawn when the leader never made it.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.board import BoardMapping
from controller.rules import Place, Step

from .explanation import Entry, Hypothesis, Taken, leading
from .verdicts import Flag, RecognisedStep

MARGIN = 2.0  # a mistake is flagged when no hypothesis without it is this close
# A flag names another mistake once the one it names falls this far behind (not on a tie).
# However long after: the record keeps what went wrong, and `named_t` when it was said.
RENAME_MARGIN = 0.5

Rank = Callable[[Hypothesis], float]


class Publication:
    """The referee's steps and flags (the lists the daemon reads), kept to the leader's."""

    def __init__(
        self,
        steps: list[RecognisedStep],
        flags: list[Flag],
        mapping: BoardMapping,
        expected: tuple[Place, ...],
    ) -> None:
        self.steps = steps
        self.flags = flags
        self.place_of = mapping.place_of
        self.nodes: list[Taken] = []  # the path's nodes of `steps` (held: their ids stay theirs)
        self.published: dict[int, int] = {}  # id of such a node -> its place in `steps`
        self.lit: dict[tuple[int, Step], float] = {}  # (motion, step) -> when it first led
        self.stand = 0  # steps[:stand] are as the daemon last read them (`changes`)
        self.raised: dict[int, Flag] = {}  # the motion a mistake was made at -> its flag
        # Where the leader's next steps are, and how often that changed (the daemon's contract)
        self.expected = expected
        self.publications = 0

    def steps_of(self, leader: Hypothesis, now: float) -> None:
        """The leader's steps become the steps. Only the steps after the last one published
        that the leader shares are looked at (its path is a persistent list: the walk back
        stops at a published node)."""
        fresh: list[Taken] = []
        node = leader.last
        while node is not None and id(node) not in self.published:
            fresh.append(node)
            node = node.parent
        keep = 0 if node is None else self.published[id(node)] + 1
        fresh.reverse()
        same = 0  # (the same steps by another path: they stand)
        while (
            same < len(fresh)
            and keep + same < len(self.steps)
            and self.steps[keep + same].step == fresh[same].step
        ):
            # (Its node stands for the step from now on: the next walk back stops there.)
            del self.published[id(self.nodes[keep + same])]
            self.nodes[keep + same] = fresh[same]
            self.published[id(fresh[same])] = keep + same
            same += 1
        keep += same
        fresh = fresh[same:]
        for dropped in self.nodes[keep:]:
            del self.published[id(dropped)]
        del self.nodes[keep:]
        self.stand = min(self.stand, keep)
        # A step is lit when it first leads: that is its time (the lights' latency), and it
        # keeps it when the leader changes before it (the same step of the same motion).
        self.steps[keep:] = [
            RecognisedStep(self.lit.setdefault((n.motion, n.step), now), n.step) for n in fresh
        ]
        for n in fresh:
            self.published[id(n)] = len(self.nodes)
            self.nodes.append(n)
        expected = tuple(leader.game.expected_places())
        if expected != self.expected:
            self.expected = expected
            self.publications += 1

    def flags_of(
        self, beam: list[Hypothesis], rank: Rank, made_t: Callable[[int], float], now: float
    ) -> None:
        """A flag for each of the leader's mistakes (made since the start, open or put right
        since), raised once its motion has settled and nothing without a mistake comes close.
        Judged on the frontier (`beam`): the motions that have held, in order, and no more (a
        cup still moving, or settled for a moment, can make any explanation lead). `made_t`:
        when the mistake read from a motion was made."""
        # (The beam is in the order it was kept by: `Tracker._rank`, waiting motions capped.)
        leader = leading(beam, rank)
        leader_rank = rank(leader)
        made = {e.motion: e for e in leader.made}
        open_now = {e.motion for e in leader.ledger if e.mistake}
        for motion, flag in self.raised.items():
            if flag.active and motion not in open_now:
                flag.resolved_t = now
                if motion not in made:
                    flag.detail = "withdrawn: the cups are explained without it"
                else:
                    # (Put right: named by how the leader put it right, on a tie too. Its
                    # light goes out now, and no longer flickers with the name.)
                    self._rename(flag, made[motion], beam, leader_rank, rank, now)
        for motion, entry in made.items():
            raised = self.raised.get(motion)
            if raised is not None:
                self._rename(raised, entry, beam, leader_rank + RENAME_MARGIN, rank, now)
                continue
            # (A seed lost and one in the wrong pit may explain the cups alike until the
            # hands put it right; the hand's tempo tells them apart, when it has one.)
            rival = next((h for h in beam if not h.made), None)
            if rival is not None and rank(rival) - leader_rank < MARGIN - 1e-9:
                continue
            place = self.place_of[entry.cell]
            # (A seed lost belonged where it is flagged: the game has sown on past it, and what
            # it expects next is no place for the spare.)
            expected = [place] if entry.kind == "seed_lost" else leader.game.expected_places()
            flag = Flag(
                made_t(motion), entry.kind, place, expected, player=entry.player, shown_t=now
            )
            if motion not in open_now:
                flag.resolved_t = now  # made and put right already
            self.raised[motion] = self.raise_(flag)

    def _rename(
        self,
        flag: Flag,
        entry: Entry,
        beam: list[Hypothesis],
        floor: float,
        rank: Rank,
        now: float,
    ) -> None:
        """The flag names the leader's mistake at its motion, even once put right: the record
        keeps what went wrong. It keeps the time it was raised (`shown_t`: a red light came on
        then) and notes when it was renamed (`named_t`: the light moved then). Not while a
        hypothesis that made the mistake it names ranks under `floor`: two explanations that
        tie (a seed lost, or the next in the wrong pit) would otherwise turn the flag back and
        forth."""
        place = self.place_of[entry.cell]
        if (flag.kind, flag.at) == (entry.kind, place):
            return
        named = (flag.kind, flag.at)
        if any(
            (e.kind, self.place_of[e.cell]) == named and e.motion == entry.motion
            for h in beam
            if rank(h) < floor
            for e in h.made
        ):
            return
        # (`expected` stays: the places due when it was raised, near when the mistake was made,
        # where the seed belonged for a wrong pit renamed a seed lost; the game has moved on.)
        flag.kind, flag.at, flag.player = entry.kind, place, entry.player
        flag.named_t = now

    def raise_(self, flag: Flag) -> Flag:
        """`flag` among the referee's flags, numbered in turn (the daemon's flag ids and the
        recordings key on its serial)."""
        flag.serial = len(self.flags) + 1
        self.flags.append(flag)
        return flag

    def changes(self, known: int) -> tuple[int, list[RecognisedStep]]:
        """Of the `known` steps the daemon holds, how many stand, and the steps after them."""
        keep = min(known, self.stand, len(self.steps))
        self.stand = len(self.steps)
        return keep, self.steps[keep:]
