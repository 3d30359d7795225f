"""Playing the simulated board from the page: POST /api/sim/move, /mistake, /actions."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.physical import MISTAKE_KINDS
from tests.web.conftest import PIN, TEST_CONFIG
from tests.web.fake_link import FakeLink
from web_ui.app import create_app


def post(client: FlaskClient, path: str, body: Any, **headers: str) -> Any:
    return client.post(path, json=body, headers=headers)


def test_anybody_can_play_a_move(client: FlaskClient, link: FakeLink) -> None:
    response = post(client, "/api/sim/move", {"pit": 2})

    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "result": {"played": 2}}
    assert link.commands == [("sim_move", {"pit": 2})]
    position = client.get("/api/state").get_json()["game"]["position"]
    assert position["pits"][0] == [7, 7, 0, 8, 8, 8, 8]
    assert position["to_move"] == 1


@pytest.mark.parametrize("kind", MISTAKE_KINDS)
def test_every_mistake_raises_its_flag(client: FlaskClient, link: FakeLink, kind: str) -> None:
    response = post(client, "/api/sim/mistake", {"kind": kind})

    assert response.status_code == 200
    assert link.commands == [("sim_mistake", {"kind": kind})]
    flags = client.get("/api/state").get_json()["flags"]
    assert [(f["kind"], f["active"]) for f in flags] == [(kind, True)]


def test_actions_are_checked_and_passed_on(client: FlaskClient, link: FakeLink) -> None:
    actions = [
        {"t": 0.5, "action": "grab", "at": [0, 2]},
        {"t": 1, "action": "drop", "at": [0, 3]},
        {"t": 1.3, "action": "drop", "at": [0, "store"], "n": 2, "hand": 0},
        {"t": 2, "action": "take", "at": [1, 6], "n": 1},
        {"t": 2.5, "action": "move", "from": [1, 0], "to": [0, "store"]},
        {"t": 3, "action": "press", "at": [0, 1], "g": 150, "dur": 0.4},
        {"t": 3, "action": "bump", "g": -20, "dur": 0.1},
        {"t": 4, "action": "drop_off"},
        {"t": 4, "action": "add", "at": [1, 1], "n": 3},
        {"t": 5, "action": "button", "name": "hint"},
    ]

    response = post(client, "/api/sim/actions", {"actions": actions})

    assert response.status_code == 200
    name, args = link.commands[0]
    assert name == "sim_actions"
    assert args["actions"][0] == {"t": 0.5, "action": "grab", "at": [0, 2]}
    assert args["actions"][2] == {
        "t": 1.3,
        "action": "drop",
        "at": [0, "store"],
        "n": 2,
        "hand": 0,
    }
    assert len(args["actions"]) == len(actions)


def test_both_hands_start_the_simultaneous_opening() -> None:
    """RULES.md `simultaneous_opening`: both players make their first move at once, so the
    page sends both hands' pits in one request."""
    link = FakeLink(opening=True)
    client = create_app(link, dict(TEST_CONFIG)).test_client()
    assert client.get("/api/state").get_json()["game"]["position"]["to_move"] is None

    response = post(client, "/api/sim/move", {"pits": [2, 4]})

    assert response.status_code == 200
    assert link.commands == [("sim_move", {"pits": [2, 4]})]
    assert client.get("/api/state").get_json()["game"]["position"]["to_move"] == 0


GRAB = {"t": 0, "action": "grab", "at": [0, 2]}

BAD_SIM_BODIES = [
    ("move", {}, "pit"),
    ("move", {"pit": "3"}, "pit"),
    ("move", {"pit": 3.0}, "pit"),
    ("move", {"pit": True}, "pit"),
    ("move", {"pit": None}, "pit"),
    ("move", {"pit": -1}, "pit"),
    ("move", {"pit": 7}, "pit"),
    ("move", {"pit": 2, "player": 1}, "player"),
    ("move", {"pits": 3}, "pits"),
    ("move", {"pits": [3]}, "pits"),
    ("move", {"pits": [3, 1, 2]}, "pits"),
    ("move", {"pits": [3, "1"]}, "pits[1]"),
    ("move", {"pits": [7, 1]}, "pits[0]"),
    ("move", {"pits": [3, 1], "pit": 3}, "pits"),
    ("mistake", {}, "kind"),
    ("mistake", {"kind": "cheat"}, "kind"),
    ("mistake", {"kind": ["wrong_pit"]}, "kind"),
    ("mistake", {"kind": "board_mismatch"}, "kind"),
    ("actions", {}, "actions"),
    ("actions", {"actions": []}, "actions"),
    ("actions", {"actions": {"t": 0}}, "actions"),
    ("actions", {"actions": [GRAB] * 501}, "actions"),
    ("actions", {"actions": ["grab"]}, "actions[0]"),
    ("actions", {"actions": [GRAB, {"t": 1, "at": [0, 3]}]}, "actions[1].action"),
    ("actions", {"actions": [{"t": 1, "action": "throw"}]}, "actions[0].action"),
    ("actions", {"actions": [{"action": "grab", "at": [0, 1]}]}, "actions[0].t"),
    ("actions", {"actions": [{"t": "1", "action": "grab", "at": [0, 1]}]}, "actions[0].t"),
    ("actions", {"actions": [{"t": -1, "action": "grab", "at": [0, 1]}]}, "actions[0].t"),
    ("actions", {"actions": [{"t": True, "action": "grab", "at": [0, 1]}]}, "actions[0].t"),
    # one request must not keep the virtual hands busy (and the board from everybody) for long
    ("actions", {"actions": [{"t": 301, "action": "grab", "at": [0, 1]}]}, "actions[0].t"),
    ("actions", {"actions": [{"t": 0, "action": "bump", "g": 5, "dur": 61}]}, "actions[0].dur"),
    ("actions", {"actions": [{"t": 0, "action": "grab"}]}, "actions[0].at"),
    ("actions", {"actions": [{"t": 0, "action": "grab", "at": [0]}]}, "actions[0].at"),
    ("actions", {"actions": [{"t": 0, "action": "grab", "at": [2, 0]}]}, "actions[0].at"),
    ("actions", {"actions": [{"t": 0, "action": "grab", "at": [0, 7]}]}, "actions[0].at"),
    ("actions", {"actions": [{"t": 0, "action": "grab", "at": [0, "pot"]}]}, "actions[0].at"),
    ("actions", {"actions": [{"t": 0, "action": "grab", "at": "0,1"}]}, "actions[0].at"),
    ("actions", {"actions": [{"t": 0, "action": "take", "at": [0, 1]}]}, "actions[0].n"),
    ("actions", {"actions": [{"t": 0, "action": "drop", "at": [0, 1], "n": 0}]}, "actions[0].n"),
    ("actions", {"actions": [{"t": 0, "action": "add", "at": [0, 1], "n": "2"}]}, "actions[0].n"),
    (
        "actions",
        {"actions": [{"t": 0, "action": "move", "from": [0, 1], "to": [0, 1]}]},
        "actions[0].to",
    ),
    ("actions", {"actions": [{"t": 0, "action": "move", "from": [0, 1]}]}, "actions[0].to"),
    (
        "actions",
        {"actions": [{"t": 0, "action": "press", "at": [0, 1], "g": 0, "dur": 1}]},
        "actions[0].g",
    ),
    ("actions", {"actions": [{"t": 0, "action": "bump", "g": 10}]}, "actions[0].dur"),
    ("actions", {"actions": [{"t": 0, "action": "button", "name": "reset"}]}, "actions[0].name"),
    ("actions", {"actions": [{**GRAB, "hand": 2}]}, "actions[0].hand"),
    ("actions", {"actions": [{**GRAB, "speed": 2}]}, "actions[0].speed"),
    ("actions", {"actions": [GRAB], "loop": True}, "loop"),
]


@pytest.mark.parametrize(("endpoint", "body", "field"), BAD_SIM_BODIES)
def test_bad_sim_bodies_name_the_field(
    client: FlaskClient, link: FakeLink, endpoint: str, body: dict, field: str
) -> None:
    response = post(client, f"/api/sim/{endpoint}", body)

    assert response.status_code == 400
    answer = response.get_json()
    assert answer["field"] == field
    assert answer["error"].startswith(field)
    assert link.commands == []


def test_an_empty_pit_is_refused_by_the_daemon(client: FlaskClient, link: FakeLink) -> None:
    link.rows[0][5] = 0  # the shape is fine, but player 1 has no seeds in their pit 6

    response = post(client, "/api/sim/move", {"pit": 5})

    assert response.status_code == 400
    assert response.get_json()["field"] == "pit"
    assert "empty" in response.get_json()["error"]


def test_a_finished_game_is_a_conflict(client: FlaskClient, link: FakeLink) -> None:
    link.rows = [[0] * 7, [0] * 7]
    link.stores = [50, 48]
    link.command("mode", {"mode": "play"})  # publishes the finished position

    response = post(client, "/api/sim/move", {"pit": 0})

    assert response.status_code == 409
    assert response.get_json() == {"error": "the game is over", "field": "command"}


@pytest.mark.parametrize(
    ("endpoint", "body"),
    [
        ("move", {"pit": 2}),
        ("mistake", {"kind": "wrong_pit"}),
        ("actions", {"actions": [GRAB]}),
    ],
)
def test_sim_commands_need_the_simulated_board(endpoint: str, body: dict) -> None:
    link = FakeLink(sim=False)
    client = create_app(link, TEST_CONFIG).test_client()

    response = post(client, f"/api/sim/{endpoint}", body)

    assert response.status_code == 409
    assert response.get_json() == {
        "error": "the simulated board is not running",
        "field": "command",
    }
    assert link.commands == []


def test_sim_commands_refuse_other_sites(client: FlaskClient, link: FakeLink) -> None:
    response = post(client, "/api/sim/move", {"pit": 2}, Origin="http://evil.example")

    assert response.status_code == 403
    assert link.commands == []


def test_sim_commands_are_json_only(client: FlaskClient, link: FakeLink) -> None:
    response = client.post("/api/sim/move", data={"pit": "2"})

    assert response.status_code == 415
    assert link.commands == []


def test_human_touches_pass_the_page_and_the_daemon_reads_them_alike() -> None:
    """What the web layer lets through for `rest`, `lean`, `brush` and `bounce` is what the
    daemon's own parser (SIMULATION.md's actions) reads, field for field."""
    from controller.sim import parse_actions
    from web_ui import validate

    raw = [
        {"t": 0.1, "action": "rest", "at": [0, 1], "g": 30, "dur": 2, "ramp_s": 0.2},
        {"t": 0.2, "action": "lean", "at": [[1, 0], [1, "store"]], "g": 400, "dur": 3},
        {"t": 0.3, "action": "brush", "at": [0, 2], "g": 20},
        {"t": 0.4, "action": "bounce", "at": [0, 2], "to": [0, 3]},
    ]
    checked = validate.sim_actions_args({"actions": raw}, 7)["actions"]
    actions = parse_actions(checked, 7, "sim_actions")
    assert [a.kind for a in actions] == ["rest", "lean", "brush", "bounce"]
    assert len(actions[1].places) == 2 and actions[0].ramp == 0.2
    with pytest.raises(validate.ApiError, match=r"actions\[0\].at: expected a list of places"):
        validate.sim_actions_args({"actions": [{**raw[1], "at": "edge"}]}, 7)


@pytest.mark.parametrize("name", ["new_game", "undo", "mode"])
def test_a_scripted_admin_button_needs_the_pin(
    client: FlaskClient, link: FakeLink, name: str
) -> None:
    """A `button` action for new_game, undo or mode does what /api/admin/<name> does: it
    needs the PIN as that endpoint does."""
    actions = {"actions": [GRAB, {"t": 1, "action": "button", "name": name}]}

    refused = post(client, "/api/sim/actions", actions)
    allowed = post(client, "/api/sim/actions", actions, **{"X-Sowboard-Pin": PIN})

    assert (refused.status_code, refused.get_json()["field"]) == (403, "pin")
    assert allowed.status_code == 200
    assert [name for name, _args in link.commands] == ["sim_actions"]


def test_a_scripted_admin_button_is_refused_without_a_configured_pin(link: FakeLink) -> None:
    client = create_app(link, {**TEST_CONFIG, "ADMIN_PIN": None}).test_client()
    press = {"t": 0, "action": "button", "name": "new_game"}

    response = post(client, "/api/sim/actions", {"actions": [press]})

    assert response.status_code == 403
    assert link.commands == []


def test_the_pages_hint_button_asks_the_daemon(client: FlaskClient, link: FakeLink) -> None:
    response = post(client, "/api/hint", {})
    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "result": {"asked": True}}
    assert link.commands == [("hint", {})]
    assert post(client, "/api/hint", {"pit": 3}).get_json()["field"] == "pit"


def test_the_hint_button_is_for_everybody(client: FlaskClient, link: FakeLink) -> None:
    press = {"t": 0, "action": "button", "name": "hint"}

    assert post(client, "/api/sim/actions", {"actions": [press]}).status_code == 200
    assert link.commands == [("sim_actions", {"actions": [press]})]
