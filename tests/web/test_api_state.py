"""Reading the board: GET /api/state, /api/record, /api/events, and JSON errors under /api."""

from __future__ import annotations

import json
import time

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.web.conftest import TEST_CONFIG
from tests.web.fake_link import BLUE, FakeLink
from tests.web.sse import EventReader
from web_ui.app import create_app


def test_state_is_the_daemons_snapshot(client: FlaskClient, link: FakeLink) -> None:
    response = client.get("/api/state")

    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.get_json() == link.get_status()
    assert response.get_json()["game"]["position"]["pits"] == [[7] * 7, [7] * 7]


def test_state_follows_the_game(client: FlaskClient, link: FakeLink) -> None:
    link.command("sim_move", {"pit": 2})

    state = client.get("/api/state").get_json()

    assert state["version"] == 1
    assert state["game"]["position"]["pits"][0][2] == 0
    assert state["game"]["position"]["to_move"] == 1
    assert state["leds"]["places"]["1,0"] == {"color": BLUE, "effect": "pulse"}


def test_record_downloads_as_a_json_attachment(client: FlaskClient, link: FakeLink) -> None:
    link.command("sim_move", {"pit": 2})
    link.command("sim_move", {"pit": 0})

    response = client.get("/api/record")

    assert response.status_code == 200
    assert response.mimetype == "application/json"
    disposition = response.headers["Content-Disposition"]
    assert disposition.startswith('attachment; filename="sowboard-congkak-')
    assert disposition.endswith('.json"')
    record = json.loads(response.data)
    assert record == {"variant": "congkak", "options": {"pits": 7}, "moves": [2, 0]}
    assert record == link.get_status()["game"]["record"]


def test_unknown_api_route_is_a_json_404(client: FlaskClient) -> None:
    response = client.get("/api/nothing/here")

    assert response.status_code == 404
    assert response.get_json() == {
        "error": "no such endpoint: GET /api/nothing/here",
        "field": None,
    }


def test_wrong_method_is_a_json_405(client: FlaskClient) -> None:
    response = client.get("/api/admin/undo")

    assert response.status_code == 405
    assert response.get_json()["field"] is None
    assert "POST" in response.headers["Allow"]


def test_a_page_that_does_not_exist_is_not_json(client: FlaskClient) -> None:
    response = client.get("/no-such-page")

    assert response.status_code == 404
    assert response.mimetype == "text/html"


def test_a_crash_in_the_link_is_a_json_500(app: Flask, link: FakeLink, monkeypatch) -> None:
    def broken() -> dict:
        raise RuntimeError("the daemon fell over")

    monkeypatch.setattr(link, "get_status", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False

    response = app.test_client().get("/api/state")

    assert response.status_code == 500
    assert response.get_json() == {"error": "internal error in the web layer", "field": None}


def open_events(client: FlaskClient) -> tuple[TestResponse, EventReader]:
    response = client.get("/api/events", buffered=False)
    return response, EventReader(response.response, close=response.close)


def test_events_start_with_the_full_state(client: FlaskClient, link: FakeLink) -> None:
    response, reader = open_events(client)
    with reader:
        first = reader.next_event()

    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"].startswith("no-cache")
    assert first.event == "status"
    assert first.id == "0"
    assert first.retry == 2000
    assert first.json() == link.get_status()


def test_events_push_each_newer_snapshot(client: FlaskClient, link: FakeLink) -> None:
    _, reader = open_events(client)
    with reader:
        assert reader.next_event().json()["version"] == 0
        link.command("sim_move", {"pit": 2})
        pushed = reader.next_event().json()
        link.command("sim_mistake", {"kind": "wrong_pit"})
        flagged = reader.next_event().json()

    assert pushed["version"] == 1
    assert pushed["game"]["position"]["pits"][0][2] == 0
    assert flagged["version"] == 2
    assert [f["kind"] for f in flagged["flags"]] == ["wrong_pit"]


def test_idle_events_send_heartbeat_comments(client: FlaskClient) -> None:
    # SSE_HEARTBEAT_S is 0.3 s in the tests (15 s in production).
    _, reader = open_events(client)
    with reader:
        reader.next_event()
        heartbeat = reader.next(timeout=2.0)

    assert heartbeat.comment == "keep-alive"


def test_too_many_event_streams_are_refused(link: FakeLink) -> None:
    client = create_app(link, {**TEST_CONFIG, "SSE_MAX_STREAMS": 2}).test_client()
    streams = [client.get("/api/events", buffered=False) for _ in range(3)]

    assert [s.status_code for s in streams] == [200, 200, 503]
    assert streams[2].get_json()["error"].startswith("too many live pages")
    assert streams[2].headers["Retry-After"] == "30"  # when a slot may be free

    for s in streams:
        s.close()
    again = client.get("/api/events", buffered=False)
    assert again.status_code == 200  # a closed stream gives its slot back
    again.close()


@pytest.mark.parametrize("depth", [17, 1000, 100_000])
def test_deeply_nested_json_is_a_400_naming_the_depth(client: FlaskClient, depth: int) -> None:
    """Deep nesting once made the parser raise RecursionError: an HTTP 500."""
    data = '{"actions": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"

    response = client.post(
        "/api/sim/actions", data=data, headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.get_json() == {
        "error": "body: not valid JSON (nested deeper than 16 levels at character 27)",
        "field": "body",
    }


def test_brackets_inside_strings_do_not_count(client: FlaskClient) -> None:
    data = json.dumps({"actions": [{"t": 0, "action": "[" * 100 + "{" * 100}]})

    response = client.post(
        "/api/sim/actions", data=data, headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.get_json()["field"] == "actions[0].action"


@pytest.mark.parametrize("path", ["/api/state", "/", "/api/events"])
def test_a_foreign_host_name_is_refused(client: FlaskClient, path: str) -> None:
    """DNS rebinding: an attacker's name that now resolves to the board arrives in Host."""
    response = client.get(path, headers={"Host": "rebind.attacker.example:8080"})

    assert response.status_code == 400
    assert response.get_json()["field"] == "host"
    assert "rebind.attacker.example" in response.get_json()["error"]
    assert "web.allowed_hosts" in response.get_json()["error"]


def test_a_foreign_host_cannot_post(client: FlaskClient, link: FakeLink) -> None:
    response = client.post(
        "/api/sim/move", json={"pit": 2}, headers={"Host": "rebind.attacker.example"}
    )

    assert response.status_code == 400
    assert link.commands == []


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST.:8080", "127.0.0.1:8080", "[::1]:8080", "192.168.1.20"]
)
def test_the_boards_names_and_ip_addresses_are_served(client: FlaskClient, host: str) -> None:
    assert client.get("/api/state", headers={"Host": host}).status_code == 200


def test_more_names_can_be_allowed(link: FakeLink) -> None:
    app = create_app(link, {**TEST_CONFIG, "ALLOWED_HOSTS": ("localhost", "Board.Local")})

    response = app.test_client().get("/api/state", headers={"Host": "board.local:8080"})

    assert response.status_code == 200


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/api/admin/login", '{"pin": "\\ud800"}'),
        ("/api/sim/mistake", '{"kind": "wrong_pit\\udfff"}'),
        ("/api/sim/mistake", '{"\\udc00": 1}'),
    ],
)
def test_a_lone_surrogate_is_a_400(client: FlaskClient, path: str, data: str) -> None:
    """JSON's \\ud800 escape decodes to a string Python cannot encode: the PIN check raised
    UnicodeEncodeError, an HTTP 500."""
    response = client.post(path, data=data, headers={"Content-Type": "application/json"})

    assert response.status_code == 400
    assert response.get_json()["field"] == "body"
    assert "lone surrogate" in response.get_json()["error"]


def test_an_unclosed_string_costs_one_pass_over_the_body(client: FlaskClient) -> None:
    """The nesting check once scanned from every quote of `"\\"\\"\\...` to the end of the
    body: 60 kB took about 14 s of a web thread (and of the loop's GIL), 256 kB minutes."""
    data = '{"a": ' + '"\\' * 30_000

    started = time.perf_counter()
    response = client.post(
        "/api/sim/actions", data=data, headers={"Content-Type": "application/json"}
    )

    assert time.perf_counter() - started < 1.0
    assert response.status_code == 400
    assert response.get_json()["field"] == "body"


def test_many_shallow_brackets_are_checked_without_a_walk_bracket_by_bracket() -> None:
    """500 sim actions took 14 ms of a web thread (and of the loop's interpreter lock) in the
    nesting check's walk; the walk now runs only when the brackets may nest too deep."""
    from unittest import mock

    from web_ui import validate

    body = json.dumps({"actions": [{"t": 0, "action": "grab", "at": [0, 1]}] * 499})
    with mock.patch.object(validate, "_BRACKETS") as walk:
        validate.check_nesting(body)
    walk.finditer.assert_not_called()
    with pytest.raises(ValueError, match="nested deeper than 16 levels at character 27"):
        validate.check_nesting('{"actions": ' + "[" * 17 + "]" * 17 + "}")
