"""The vocabulary of the physical board, as SIMULATION.md names it: data only.

The simulator acts these out and the web layer checks request bodies against them; both take
them from here so that the two can never disagree. Nothing here knows rules or sensors.
"""

from __future__ import annotations

# Physical actions: kind -> (required fields, optional fields) besides t, action and hand.
ACTION_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "grab": (("at",), ()),
    "take": (("at", "n"), ()),
    "drop": (("at",), ("n",)),
    "move": (("from", "to"), ()),
    "press": (("at", "g", "dur"), ()),
    "bump": (("g", "dur"), ()),
    "drop_off": ((), ("n",)),
    "add": (("at",), ("n",)),
    "button": (("name",), ()),
    # Human hands (SIMULATION.md, "Human hands"): none of these is a mistake but `bounce`
    # into a place that was not due.
    "rest": (("at", "g", "dur"), ("ramp_s",)),
    "lean": (("at", "g", "dur"), ()),  # `at` is a list of places here
    "brush": (("at", "g"), ("dur",)),
    "bounce": (("at", "to"), ()),
}
ACTION_KINDS = tuple(ACTION_FIELDS)

# The board's buttons.
BUTTONS = ("new_game", "undo", "hint", "mode")

# The hand mistakes the simulator can act out (the flag kinds they should raise).
MISTAKE_KINDS = (
    "wrong_start",
    "not_all_lifted",
    "wrong_pit",
    "extra_seed",
    "opponent_store",
    "seed_lost",
    "foreign_seed",
)

# The people who play the simulated board (`player.profile`; controller/sim/human.py).
PROFILE_NAMES = ("child", "adult", "expert", "visitor")

MAX_T = 86400.0  # seconds: a scripted action's time at the most
