"""The simulated board, made only when the configuration has no hardware: its world (through
the feed), the virtual hands that play moves and mistakes on it (`sim_move`, `sim_mistake`,
`sim_actions`), and saving where they left the seeds (`sim_board.json`, hands.py says when),
so that the simulated wood survives a restart as real wood does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.rules import Game, Place, Position, StepFollower
from controller.sim import (
    OpeningChoiceError,
    PlayerParams,
    Scenario,
    ScenarioError,
    SensorParams,
    SimWorld,
    parse_actions,
    schedule_move,
    schedule_opening,
    starting_hands,
)

from .config import Config
from .feed import SimFeed
from .game import JournaledGame
from .hands import VirtualHands, resume_layout
from .journal import at_move_boundary
from .link import CommandError
from .notices import Notices
from .session import GameSession


class SimBoard:
    """The simulated board and its virtual hands (see the module docstring)."""

    def __init__(
        self,
        config: Config,
        layout_path: Path,
        write: Callable[[Path, Callable[[], None]], None],
        notices: Notices,
    ) -> None:
        self.config = config
        self.layout_path = layout_path
        self.write = write
        self.notices = notices
        self.feed: SimFeed
        self.hands: VirtualHands

    def open(
        self,
        game: JournaledGame,
        target: StepFollower,
        resumed: bool,
        speed: float | None,
        clock: Callable[[], float] | None,
    ) -> SimFeed:
        """The feed of a world that holds the seeds where they were left (a resumed game), or
        the start position laid out (as after `new_game`)."""
        start = self._resumed_layout(game, target) if resumed else target.position()
        world = self._new_world(game, start)
        extra: dict[str, Any] = {} if clock is None else {"clock": clock}
        self.feed = SimFeed(world, speed, **extra)
        self.hands = VirtualHands(self.feed, self.layout_path, self.config.board, self.write)
        return self.feed

    def _resumed_layout(self, game: JournaledGame, target: StepFollower) -> Position:
        """The saved layout if it goes with the journal's point of the game, else the
        journal's position (hands.resume_layout)."""
        position, notice, damaged = resume_layout(
            self.layout_path, self.config.board, game.rules, game.point(), target.position()
        )
        if notice is not None:
            # A damaged file is a warning (kept aside below); a layout saved before the move
            # the journal resumes at is routine after a kill: the hands lay the board out.
            (self.notices.warning if damaged else self.notices.info)(notice)
        if damaged:
            self.notices.keep_damaged(self.layout_path)
        return position

    def _scenario(self, game: JournaledGame) -> Scenario:
        sim = self.config.sim
        return Scenario(
            variant=game.variant,
            options=dict(game.options),
            board=self.config.board,
            sensors=SensorParams(
                rate_sps=sim.rate_sps,
                noise_g=sim.noise_g,
                seed_mean_g=sim.seed_mean_g,
                seed_cv=sim.seed_cv,
                calibration_error=sim.calibration_error,
                random_seed=sim.random_seed,
            ),
            player=PlayerParams(seconds_per_seed=sim.seconds_per_seed),
            source="sowboard run",
        )

    def _new_world(self, game: JournaledGame, start: Position) -> SimWorld:
        return SimWorld(self._scenario(game), start=start)

    # -- the hands' time and the layout -----------------------------------------------------------

    @property
    def busy_until(self) -> float:
        """The loop time when the virtual hands are done."""
        return self.hands.busy_until

    def relay(self, game: JournaledGame, follower: StepFollower) -> None:
        """A new world with the seeds laid out as `follower` stands (save the layout next)."""
        self.feed.replace_world(self._new_world(game, follower.position()))
        self.hands.relaid()

    def save_layout(self, game: JournaledGame, force: bool) -> None:
        """Persist where the simulated seeds lie (only when no hand holds any, unless
        `force`), with the journal's point of the game it goes with."""
        self.hands.save_layout(game.rules, game.point(), force)

    def tick(self, now: float, game: JournaledGame) -> None:
        """The layout of the last move, once the hands are done with it."""
        if self.hands.layout_pending and now >= self.busy_until:
            self.save_layout(game, force=False)

    def moved(self) -> None:
        """A move was completed: its layout is to be saved."""
        self.hands.layout_pending = True

    # -- the virtual hands' commands --------------------------------------------------------------

    def idle_hands(self, now: float) -> None:
        """Refuse a command while the hands are still acting."""
        if now < self.busy_until:
            raise CommandError(
                "command",
                f"the virtual hand is still busy for {self.busy_until - now:.1f} s",
            )

    def playable(self, session: GameSession, now: float) -> StepFollower:
        """The referee's game, when the virtual hand may play on it: between moves, with the
        simulated board matching it."""
        self.idle_hands(now)
        referee = session.referee
        if referee is None:
            raise CommandError("command", "the board is being checked: wait until play starts")
        follower = referee.game
        if follower.over:
            raise CommandError("command", "the game is over")
        if referee.phase() != "start" or not at_move_boundary(follower):
            raise CommandError("command", "a move is in progress")
        if not self._matches(follower.position()):
            raise CommandError(
                "command", "the simulated board does not match the game: put it right first"
            )
        return follower

    def _matches(self, position: Position) -> bool:
        truth = self.feed.world.truth()
        return (
            truth["pits"] == [list(r) for r in position.pits]
            and truth["stores"] == list(position.stores)
            and not any(truth["hand"])
        )

    def move_game(self, follower: StepFollower, game_played: JournaledGame) -> Game:
        """The rules' game the virtual hand plays one move of (not in the simultaneous
        opening)."""
        if follower.to_move is None:
            raise CommandError(
                "command", "in the simultaneous opening the virtual hands play no mistakes"
            )
        game = Game(game_played.rules, start=follower.position())
        game.history = follower.history.copy()
        return game

    def opening(
        self, follower: StepFollower, args: dict[str, Any], game: JournaledGame
    ) -> dict[str, Any]:
        """The virtual hands play the rest of the simultaneous opening, each hand about to
        start from its pit: `pits` [hand 0's, hand 1's] when both are (they start at once),
        `pit` when one hand is done already."""
        starting = starting_hands(follower)
        chosen, field_name = opening_choice(starting, args)
        try:
            opening = schedule_opening(self.feed.world, follower, chosen)
        except OpeningChoiceError as err:
            raise CommandError(field_name, str(err)) from None
        self.schedule(opening.actions, game)
        if len(chosen) == 2:
            return {"played": [chosen[0], chosen[1]], "player": None}
        return {"played": chosen[starting[0]], "player": starting[0]}

    def play(self, rules_game: Game, pit: int, game: JournaledGame) -> None:
        """The virtual hand plays `pit` (a legal move)."""
        move = schedule_move(self.feed.world, rules_game, pit=pit)
        self.schedule(move.actions, game)

    def schedule(self, actions: list[Any], game: JournaledGame) -> None:
        """Note how long the virtual hand is busy with `actions` (already in the world)."""
        if self.hands.layout_pending:
            # The last move's layout, before these actions touch the seeds (they start at the
            # next sample): a restart during this move then finds the board as it was.
            self.save_layout(game, force=False)
        self.hands.note(actions)
        self.hands.layout_pending = True

    def sim_move(self, args: dict[str, Any], session: GameSession, now: float) -> dict[str, Any]:
        if "pit" in args and "pits" in args:
            raise CommandError("pits", "send either pit or pits, not both")
        follower = self.playable(session, now)
        if follower.to_move is None:
            return self.opening(follower, args, session.game)
        if "pits" in args:
            raise CommandError(
                "pits",
                "both hands' pits are for the simultaneous opening, which is over: send pit",
            )
        rules_game = self.move_game(follower, session.game)
        pit = args.get("pit")
        if not isinstance(pit, int) or isinstance(pit, bool):
            raise CommandError("pit", f"{pit!r} is not a pit number")
        reason = rules_game.why_illegal(pit)
        if reason is not None:
            raise CommandError("pit", reason)
        self.play(rules_game, pit, session.game)
        return {"played": pit, "player": rules_game.to_move}

    def sim_mistake(self, args: dict[str, Any], session: GameSession, now: float) -> dict[str, Any]:
        rules_game = self.move_game(self.playable(session, now), session.game)
        kind = args.get("kind")
        try:
            move = schedule_move(
                self.feed.world, rules_game, pit=args.get("pit"), mistake=str(kind)
            )
        except ValueError as err:  # (sim.MistakeNotPossible is one)
            raise CommandError("kind", str(err)) from None
        self.schedule(move.actions, session.game)
        mistake = move.mistakes[0] if move.mistakes else None
        return {
            "kind": kind,
            "pit": move.pit,
            "at": None if mistake is None else mistake.at.to_json(),
        }

    def holds(self, layout: dict[Place, int]) -> bool:
        """Does the simulated board hold `layout` (seeds in a hand aside)?"""
        places = self.feed.world.places
        return all(len(places[place]) == count for place, count in layout.items())

    def act(self, actions: list[dict[str, Any]], game: JournaledGame) -> None:
        """The virtual hands carry out `actions` (SIMULATION.md JSON, times from now): a
        guided undo's steps back."""
        world = self.feed.world
        parsed = parse_actions(actions, game.rules.n, "undo")
        base = world.schedule(parsed)
        self.schedule([a.shifted(base) for a in parsed], game)

    def sim_actions(self, args: dict[str, Any], session: GameSession, now: float) -> dict[str, Any]:
        self.idle_hands(now)
        try:
            actions = parse_actions(args.get("actions"), session.game.rules.n, "sim_actions")
        except ScenarioError as err:
            raise CommandError("actions", str(err)) from None
        world = self.feed.world
        to_move = session.follower().to_move
        world.default_hand = to_move if to_move is not None else 0
        base = world.schedule(actions)
        self.schedule([a.shifted(base) for a in actions], session.game)
        return {"scheduled": len(actions)}


def opening_choice(starting: list[int], args: dict[str, Any]) -> tuple[dict[int, Any], str]:
    """Each starting hand's pit from `args`, and the argument's name (for its errors)."""
    if len(starting) == 2:
        pits = args.get("pits")
        if pits is None:
            raise CommandError(
                "pits",
                "is missing: in the simultaneous opening both hands start at once, "
                "send pits [hand 0's pit, hand 1's pit]",
            )
        if (
            not isinstance(pits, list | tuple)
            or len(pits) != 2
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in pits)
        ):
            raise CommandError(
                "pits", f"{pits!r} is not two pit numbers (hand 0's and hand 1's first pit)"
            )
        return {0: pits[0], 1: pits[1]}, "pits"
    (hand,) = starting
    pit = args.get("pit")
    if pit is None:
        raise CommandError(
            "pit", f"is missing: only hand {hand} is still to start its opening move"
        )
    if not isinstance(pit, int) or isinstance(pit, bool):
        raise CommandError("pit", f"{pit!r} is not a pit number")
    return {hand: pit}, "pit"
