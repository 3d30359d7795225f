"""What the referee still gets wrong (issue 12): bench humans games cut after the case.

Each test says what a referee should do there and is a strict xfail: the day the referee does
it, the test fails here and moves to the tests that keep it right. docs/referee.md ("Where the
misses are") says why each is hard: in both, explanations that the cups tell apart only later
tie when the flag is raised, and the leader names the wrong one for a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.sim import load_scenario
from controller.simulate import report, run_simulation

OPEN = Path(__file__).resolve().parents[1] / "scenarios" / "open"


def _flags(name: str, since: float, until: float) -> list[tuple[str, Any]]:
    """The flags raised from `since` to `until` (s), once the run has ended exact."""
    simulation, referee = run_simulation(load_scenario(OPEN / f"{name}.json"))
    result = report(simulation, referee)
    for key in ("pits", "stores", "hand"):
        assert result["belief"][key] == result["truth"][key]
    return [(f["kind"], f["at"]) for f in result["flags"] if since <= f["t"] <= until]


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="a pit lifted wrong and the seed in the wrong pit tie within 0.01 as the palm rests",
)
def test_a_palm_on_the_due_cup_as_the_seed_goes_astray_flags_the_wrong_pit_only() -> None:
    # Oware at 80 SPS (bench game 310, an adult): [0, 1] lifted at 551.75 s, its first seed,
    # due in [0, 2], falls into [0, 3] at 552.31 s, and a palm of 52 g settles on [0, 2] at
    # once. Today a wrong pickup is flagged at [0, 1] first, and withdrawn 0.75 s later.
    flags = _flags("humans_oware_80sps_palm_on_the_due_cup_as_a_seed_goes_astray", 551.0, 555.0)
    assert flags == [("wrong_pit", [0, 3])]


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="two seeds in [0, 6] and a finger on the store tie with seeds in the store",
)
def test_a_finger_on_the_store_as_two_seeds_fall_short_of_it_flags_the_extra_seed_only() -> None:
    # Congkak 7 at 10 SPS, natural seeds (bench game 244, an expert): [0, 5] lifted at
    # 169.75 s, a finger of 12 g rests on the store from 169.79 s for 1.4 s, and two seeds
    # fall together into [0, 6] at 170.14 s (one taken back at 171.14 s and sown into the
    # store). Today seeds are flagged in the store first (`foreign_seed`), and withdrawn.
    flags = _flags("humans_congkak7_10sps_finger_on_the_store_as_two_seeds_fall", 169.0, 172.0)
    assert flags == [("extra_seed", [0, 6])]
