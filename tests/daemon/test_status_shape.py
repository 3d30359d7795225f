"""The web tests' fake link and the real loop publish snapshots of one shape: the keys
`controller.daemon.status.Status` names, at every level, and the same keys where it leaves the
rules engine's JSON untyped (a game's options). The fake once had no `daemon` section, and
the page's tests could not see what the page does with it."""

from __future__ import annotations

from typing import Any

from controller.daemon.status import missing_keys
from tests.web.fake_link import FakeLink

from .conftest import Board


def keys(value: Any) -> Any:
    """The shape of a JSON value: its keys at every level (a list by its first item)."""
    if isinstance(value, dict):
        return {k: keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [keys(value[0])] if value else []
    return None


def differences(a: Any, b: Any, where: str = "status") -> list[str]:
    """Where the shapes differ (an empty list against a full one is no difference)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}.{k}: only in the first" for k in a if k not in b]
        out += [f"{where}.{k}: only in the second" for k in b if k not in a]
        for k in a.keys() & b.keys():
            out += differences(a[k], b[k], f"{where}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        return differences(a[0], b[0], f"{where}[0]") if a and b else []
    if isinstance(a, dict) or isinstance(b, dict):
        return [f"{where}: an object on one side only"]
    return []


def test_the_real_loop_publishes_the_typed_status_in_setup_and_in_play(board: Board) -> None:
    board.run(0.2)
    assert board.status()["daemon"]["state"] == "setup"
    assert missing_keys(board.status()) == []
    board.ready()
    board.play(3)
    assert missing_keys(board.status()) == []


def test_the_fake_link_publishes_the_typed_status() -> None:
    for link in (FakeLink(), FakeLink(sim=False, variant="oware"), FakeLink(opening=True)):
        assert missing_keys(link.get_status()) == []
    played = FakeLink()
    played.command("sim_move", {"pit": 2})
    played.command("sim_mistake", {"kind": "wrong_pit"})
    assert missing_keys(played.get_status()) == []


def test_the_fake_and_the_real_loop_have_the_same_shape(board: Board) -> None:
    board.ready()
    board.play(3)
    real = board.status()
    fake = FakeLink()
    fake.command("sim_move", {"pit": 3})
    shapes = keys(real), keys(fake.get_status())
    for shape in shapes:  # the options the game was started with: any of them, or none
        del shape["game"]["record"]["options"]
    assert differences(*shapes) == []
