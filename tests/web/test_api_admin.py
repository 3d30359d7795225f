"""Admin commands: the PIN (header or session), its lockout, CSRF safety, and bad bodies."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.daemon.notices import WARNING
from tests.web.conftest import PIN, TEST_CONFIG
from tests.web.fake_link import FakeLink
from web_ui.app import change_pin, create_app
from web_ui.security import PinGuard
from web_ui.sessions import SessionStore
from web_ui.validate import ApiError

ADMIN = {"X-Sowboard-Pin": PIN}


def post(client: FlaskClient, path: str, body: Any = None, **headers: str) -> Any:
    return client.post(path, json={} if body is None else body, headers=headers)


# ---------------------------------------------------------------- the PIN


def test_acknowledging_the_warnings_is_an_admin_command(
    client: FlaskClient, link: FakeLink
) -> None:
    """Only an operator marks the board's warnings read (they fold on the page and leave the
    hall's count): without the PIN 403, and nothing acknowledged."""
    link.notice("records.jsonl could not be written", level=WARNING)
    assert post(client, "/api/admin/acknowledge_notices").status_code == 403
    assert link.get_status()["daemon"]["notices_unacknowledged"] == 1
    response = post(client, "/api/admin/acknowledge_notices", {}, **ADMIN)
    assert response.status_code == 200
    assert response.get_json()["result"] == {"acknowledged": 1}
    assert link.get_status()["daemon"]["notices_unacknowledged"] == 0
    bad = post(client, "/api/admin/acknowledge_notices", {"all": True}, **ADMIN)
    assert bad.status_code == 400 and bad.get_json()["field"] == "all"


def test_save_recording_is_an_admin_command(client: FlaskClient, link: FakeLink) -> None:
    assert post(client, "/api/admin/save_recording").status_code == 403
    response = post(client, "/api/admin/save_recording", {"seconds": 30}, **ADMIN)
    assert response.status_code == 200
    assert response.get_json()["result"]["file"].endswith("-admin.jsonl.gz")
    response = post(client, "/api/admin/save_recording?by=cli", {}, **ADMIN)
    assert response.get_json()["result"]["file"].endswith("-cli.jsonl.gz")
    assert link.commands == [
        ("save_recording", {"reason": "admin", "seconds": 30.0}),
        ("save_recording", {"reason": "cli"}),
    ]
    bad = post(client, "/api/admin/save_recording", {"seconds": "all"}, **ADMIN)
    assert bad.status_code == 400 and bad.get_json()["field"] == "seconds"
    bad = post(client, "/api/admin/save_recording", {"reason": "flag"}, **ADMIN)
    assert bad.status_code == 400 and bad.get_json()["field"] == "reason"


def test_admin_command_without_pin_is_refused(client: FlaskClient, link: FakeLink) -> None:
    response = post(client, "/api/admin/mode", {"mode": "teach"})

    assert response.status_code == 403
    assert response.get_json()["field"] == "pin"
    assert link.commands == []


def test_wrong_pin_is_refused(client: FlaskClient, link: FakeLink) -> None:
    response = post(client, "/api/admin/mode", {"mode": "teach"}, **{"X-Sowboard-Pin": "1111"})

    assert response.status_code == 403
    assert response.get_json() == {"error": "wrong PIN", "field": "pin"}
    assert link.commands == []


def test_right_pin_runs_the_command(client: FlaskClient, link: FakeLink) -> None:
    response = post(client, "/api/admin/mode", {"mode": "teach"}, **ADMIN)

    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "result": {"mode": "teach"}}
    assert link.commands == [("mode", {"mode": "teach"})]
    assert client.get("/api/state").get_json()["mode"] == "teach"


def test_repeated_wrong_pins_lock_the_client_out(client: FlaskClient, link: FakeLink) -> None:
    wrong = {"X-Sowboard-Pin": "0000"}
    codes = [post(client, "/api/admin/undo", **wrong).status_code for _ in range(3)]

    assert codes == [403, 403, 429]  # PIN_MAX_FAILURES is 3 in the tests
    locked = post(client, "/api/admin/undo", **ADMIN)
    assert locked.status_code == 429  # even the right PIN, until the lockout ends
    assert locked.get_json()["field"] == "pin"
    assert 1 <= int(locked.headers["Retry-After"]) <= 30
    login = post(client, "/api/admin/login", {"pin": PIN})
    assert login.status_code == 429
    assert link.commands == []


def test_lockout_ends_and_a_right_pin_resets_the_count() -> None:
    now = [1000.0]
    guard = PinGuard("2468", max_failures=2, lockout_s=60, fail_delay_s=0, clock=lambda: now[0])

    def attempt(pin: str) -> int:
        try:
            guard.check("10.0.0.7", pin)
        except ApiError as error:
            return error.status
        return 200

    assert [attempt("1"), attempt("2")] == [403, 429]
    now[0] += 59
    assert attempt("2468") == 429
    now[0] += 2
    assert attempt("2468") == 200
    assert [attempt("1"), attempt("2468"), attempt("1")] == [403, 200, 403]
    assert attempt("2468") == 200
    guard.check("10.0.0.8", "2468")  # other clients are not affected


def test_wrong_pins_cost_time() -> None:
    import time

    guard = PinGuard("2468", fail_delay_s=0.2)
    start = time.monotonic()
    with pytest.raises(ApiError):
        guard.check("client", "0000")
    assert time.monotonic() - start >= 0.2


def test_without_a_configured_pin_admin_is_off(link: FakeLink) -> None:
    client = create_app(link, {**TEST_CONFIG, "ADMIN_PIN": None}).test_client()

    for headers in ({}, {"X-Sowboard-Pin": ""}, {"X-Sowboard-Pin": "2468"}):
        response = post(client, "/api/admin/undo", **headers)
        assert response.status_code == 403
        assert response.get_json() == {"error": "no admin PIN is set on this board", "field": "pin"}
    assert post(client, "/api/admin/login", {"pin": "2468"}).status_code == 403
    assert link.commands == []


# ---------------------------------------------------------------- session login


def login(client: FlaskClient) -> str:
    response = post(client, "/api/admin/login", {"pin": PIN})
    assert response.status_code == 200
    token = response.get_json()["csrf"]
    assert isinstance(token, str) and len(token) > 20
    return token


def test_login_then_command_with_csrf_token(client: FlaskClient, link: FakeLink) -> None:
    token = login(client)

    response = post(client, "/api/admin/mode", {"mode": "demo"}, **{"X-CSRF-Token": token})

    assert response.status_code == 200
    assert link.commands == [("mode", {"mode": "demo"})]


def test_session_reports_login_and_token(client: FlaskClient) -> None:
    assert client.get("/api/admin/session").get_json() == {
        "admin": False,
        "pin_set": True,
        "csrf": None,
    }
    token = login(client)
    assert client.get("/api/admin/session").get_json() == {
        "admin": True,
        "pin_set": True,
        "csrf": token,
    }


def test_session_command_without_csrf_token_is_refused(client: FlaskClient, link: FakeLink) -> None:
    login(client)

    missing = post(client, "/api/admin/mode", {"mode": "demo"})
    wrong = post(client, "/api/admin/mode", {"mode": "demo"}, **{"X-CSRF-Token": "guess"})

    assert (missing.status_code, missing.get_json()["field"]) == (403, "csrf")
    assert (wrong.status_code, wrong.get_json()["field"]) == (403, "csrf")
    assert link.commands == []


def test_login_with_wrong_pin_gives_no_session(client: FlaskClient) -> None:
    response = post(client, "/api/admin/login", {"pin": "9999"})

    assert response.status_code == 403
    assert response.get_json()["field"] == "pin"
    assert client.get("/api/admin/session").get_json()["admin"] is False


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "pin: is missing"),
        ({"pin": ""}, "pin: expected the PIN as a string"),
        ({"pin": ["2468"]}, "pin: expected the PIN as a string"),
        ({"pin": "2468", "user": "me"}, "user: unknown field (allowed: pin)"),
    ],
)
def test_login_body_is_checked(client: FlaskClient, body: dict, message: str) -> None:
    response = post(client, "/api/admin/login", body)

    assert response.status_code == 400
    assert response.get_json()["error"] == message


def test_a_numeric_pin_is_accepted(client: FlaskClient) -> None:
    assert post(client, "/api/admin/login", {"pin": int(PIN)}).status_code == 200


def test_logout_ends_the_session(client: FlaskClient, link: FakeLink) -> None:
    token = login(client)

    assert post(client, "/api/admin/logout", **{"X-CSRF-Token": token}).status_code == 200
    response = post(client, "/api/admin/undo", **{"X-CSRF-Token": token})

    assert response.status_code == 403
    assert response.get_json()["field"] == "pin"


def test_logout_needs_the_csrf_token(client: FlaskClient) -> None:
    login(client)

    assert post(client, "/api/admin/logout").status_code == 403
    assert client.get("/api/admin/session").get_json()["admin"] is True


def login_cookie(client: FlaskClient) -> tuple[str, str]:
    """Log in; the session cookie as a `Cookie` header value, and the CSRF token."""
    response = post(client, "/api/admin/login", {"pin": PIN})
    assert response.status_code == 200
    return response.headers["Set-Cookie"].split(";", 1)[0], response.get_json()["csrf"]


def replay(app: Flask, cookie: str, token: str) -> Any:
    """An admin command from a browser that kept the cookie and the token."""
    headers = {"Cookie": cookie, "X-CSRF-Token": token}
    return app.test_client(use_cookies=False).post("/api/admin/undo", json={}, headers=headers)


def test_a_cookie_kept_from_before_logout_is_refused(app: Flask, link: FakeLink) -> None:
    client = app.test_client()
    cookie, token = login_cookie(client)
    assert post(client, "/api/admin/logout", **{"X-CSRF-Token": token}).status_code == 200

    response = replay(app, cookie, token)

    assert (response.status_code, response.get_json()["field"]) == (403, "pin")
    assert link.commands == []


def test_a_new_login_ends_the_browsers_old_session(app: Flask) -> None:
    client = app.test_client()
    old_cookie, old_token = login_cookie(client)
    login_cookie(client)

    assert replay(app, old_cookie, old_token).status_code == 403


def test_a_session_does_not_outlive_the_pin_it_was_opened_with(app: Flask, link: FakeLink) -> None:
    """A leaked PIN is changed in the configuration and the daemon restarts: whoever logged in
    with the old PIN is logged out (the cookie once carried only admin=True, signed with a key
    kept across restarts)."""
    cookie, token = login_cookie(app.test_client())
    restarted = create_app(link, {**TEST_CONFIG, "ADMIN_PIN": "13579"})

    response = replay(restarted, cookie, token)

    assert (response.status_code, response.get_json()["field"]) == (403, "pin")
    assert link.commands == []


def test_a_new_pin_ends_the_sessions_the_old_one_opened(app: Flask, link: FakeLink) -> None:
    """A leaked PIN is replaced while the daemon runs (SIGHUP): whoever logged in with it is
    logged out, and the old PIN opens nothing."""
    client = app.test_client()
    cookie, token = login_cookie(client)

    change_pin(app, "13579")

    assert replay(app, cookie, token).status_code == 403
    assert post(client, "/api/admin/undo", **ADMIN).get_json()["error"] == "wrong PIN"
    assert post(client, "/api/admin/login", {"pin": "13579"}).status_code == 200
    assert client.get("/api/admin/session").get_json()["admin"] is True
    assert link.commands == []


def test_a_session_ends_when_idle_or_old(app: Flask) -> None:
    now = [0.0]
    state = app.extensions["sowboard"]
    state.sessions = SessionStore(idle_s=60, max_age_s=120, clock=lambda: now[0])
    client = app.test_client()
    cookie, token = login_cookie(client)

    now[0] += 61
    assert replay(app, cookie, token).status_code == 403  # unused too long
    cookie, token = login_cookie(client)
    codes = []
    for _ in range(4):
        now[0] += 50
        codes.append(replay(app, cookie, token).status_code)
    assert codes == [409, 409, 403, 403]  # (nothing to undo) in use, yet too old after 120 s


def test_the_session_cookie_is_http_only_strict_and_expires(client: FlaskClient) -> None:
    response = post(client, "/api/admin/login", {"pin": PIN})
    cookie = response.headers["Set-Cookie"]

    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert f"Max-Age={12 * 3600}" in cookie


def test_the_session_store_forgets_the_oldest_when_full() -> None:
    now = [0.0]
    store = SessionStore(idle_s=60, max_age_s=600, max_sessions=2, clock=lambda: now[0])
    first, _ = store.open(0)
    second, _ = store.open(0)
    third, _ = store.open(0)

    assert store.get(first, 0) is None
    assert store.get(second, 0) is not None and store.get(third, 0) is not None
    now[0] = 61
    assert store.get(second, 0) is None
    assert len(store) == 1  # the expired one was dropped, the third was not looked up yet


# ---------------------------------------------------------------- CSRF


def test_cross_origin_post_is_refused(client: FlaskClient, link: FakeLink) -> None:
    token = login(client)

    response = post(
        client,
        "/api/admin/mode",
        {"mode": "demo"},
        **{"X-CSRF-Token": token, "Origin": "http://evil.example"},
    )

    assert response.status_code == 403
    assert response.get_json()["field"] == "origin"
    assert link.commands == []


def test_cross_site_referer_is_refused(client: FlaskClient, link: FakeLink) -> None:
    response = post(
        client, "/api/admin/undo", **{**ADMIN, "Referer": "http://evil.example/page.html"}
    )

    assert response.status_code == 403
    assert response.get_json()["field"] == "origin"
    assert link.commands == []


def test_opaque_origin_is_refused(client: FlaskClient) -> None:
    response = post(client, "/api/admin/undo", **{**ADMIN, "Origin": "null"})

    assert response.status_code == 403


def test_same_origin_post_is_accepted(client: FlaskClient, link: FakeLink) -> None:
    response = post(
        client,
        "/api/admin/mode",
        {"mode": "demo"},
        **{**ADMIN, "Origin": "http://localhost", "Referer": "http://localhost/admin"},
    )

    assert response.status_code == 200
    assert link.commands == [("mode", {"mode": "demo"})]


@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", None],
)
def test_only_json_posts_are_accepted(
    client: FlaskClient, link: FakeLink, content_type: str | None
) -> None:
    headers = dict(ADMIN)
    if content_type:
        headers["Content-Type"] = content_type
    response = client.post("/api/admin/mode", data='{"mode": "demo"}', headers=headers)

    assert response.status_code == 415
    assert response.get_json()["field"] == "body"
    assert link.commands == []


def test_login_from_another_site_is_refused(client: FlaskClient) -> None:
    response = post(client, "/api/admin/login", {"pin": PIN}, Origin="https://evil.example")

    assert response.status_code == 403
    assert client.get("/api/admin/session").get_json()["admin"] is False


# ---------------------------------------------------------------- each command


def test_new_game_with_variant_and_options(client: FlaskClient, link: FakeLink) -> None:
    link.command("sim_move", {"pit": 2})

    response = post(
        client, "/api/admin/new_game", {"variant": "congkak", "options": {"pits": 5}}, **ADMIN
    )

    assert response.status_code == 200
    assert link.commands[-1] == ("new_game", {"variant": "congkak", "options": {"pits": 5}})
    state = client.get("/api/state").get_json()
    assert state["game"]["position"]["pits"] == [[5] * 5, [5] * 5]


def test_new_game_without_arguments(client: FlaskClient, link: FakeLink) -> None:
    assert post(client, "/api/admin/new_game", {}, **ADMIN).status_code == 200
    assert link.commands == [("new_game", {})]


def test_new_game_against_the_computer_and_back(client: FlaskClient, link: FakeLink) -> None:
    computer = {"player": 1, "level": 2}
    assert post(client, "/api/admin/new_game", {"opponent": computer}, **ADMIN).status_code == 200
    assert link.commands[-1] == ("new_game", {"opponent": computer})
    assert client.get("/api/state").get_json()["game"]["computer"]["level"] == 2
    assert post(client, "/api/admin/new_game", {"opponent": None}, **ADMIN).status_code == 200
    assert client.get("/api/state").get_json()["game"]["computer"]["player"] is None


def test_undo_takes_back_the_last_move(client: FlaskClient, link: FakeLink) -> None:
    link.command("sim_move", {"pit": 2})
    link.command("sim_move", {"pit": 0})

    response = post(client, "/api/admin/undo", **ADMIN)

    assert response.status_code == 200
    assert client.get("/api/state").get_json()["game"]["record"]["moves"] == [2]


def test_undo_with_an_empty_body(client: FlaskClient, link: FakeLink) -> None:
    link.command("sim_move", {"pit": 2})
    response = client.post(
        "/api/admin/undo", data="", headers={**ADMIN, "Content-Type": "application/json"}
    )

    assert response.status_code == 200


def test_undo_with_nothing_to_undo_is_a_conflict(client: FlaskClient) -> None:
    response = post(client, "/api/admin/undo", **ADMIN)

    assert response.status_code == 409
    assert response.get_json() == {"error": "there is no move to undo", "field": "command"}


@pytest.mark.parametrize(
    ("body", "sent"),
    [
        ({"stage": "empty"}, {"stage": "empty"}),
        ({"stage": "layout"}, {"stage": "layout"}),
        ({"stage": "reference", "grams": 200}, {"stage": "reference", "grams": 200.0}),
        ({"stage": "reference", "grams": 99.5}, {"stage": "reference", "grams": 99.5}),
    ],
)
def test_calibrate_stages(client: FlaskClient, link: FakeLink, body: dict, sent: dict) -> None:
    response = post(client, "/api/admin/calibrate", body, **ADMIN)

    assert response.status_code == 200
    assert link.commands == [("calibrate", sent)]


@pytest.mark.parametrize("mode", ["play", "teach", "demo"])
def test_every_mode(client: FlaskClient, link: FakeLink, mode: str) -> None:
    assert post(client, "/api/admin/mode", {"mode": mode}, **ADMIN).status_code == 200
    assert client.get("/api/state").get_json()["mode"] == mode


BAD_ADMIN_BODIES = [
    ("new_game", {"variant": 3}, "variant"),
    ("new_game", {"variant": ""}, "variant"),
    ("new_game", {"variant": "chess"}, "variant"),  # refused by the daemon
    ("new_game", {"options": [1, 2]}, "options"),
    ("new_game", {"options": "pits=5"}, "options"),
    ("new_game", {"options": {"pits": 4}}, "options"),  # refused by the daemon
    ("new_game", {"varient": "kalah"}, "varient"),
    ("new_game", {"opponent": 1}, "opponent"),
    ("new_game", {"opponent": [1, 3]}, "opponent"),
    ("undo", {"steps": 2}, "steps"),
    ("calibrate", {}, "stage"),
    ("calibrate", {"stage": "full"}, "stage"),
    ("calibrate", {"stage": 1}, "stage"),
    ("calibrate", {"stage": "reference"}, "grams"),  # refused by the daemon
    ("calibrate", {"stage": "reference", "grams": "200"}, "grams"),
    ("calibrate", {"stage": "reference", "grams": -5}, "grams"),
    ("calibrate", {"stage": "reference", "grams": 0}, "grams"),
    ("calibrate", {"stage": "reference", "grams": True}, "grams"),
    ("calibrate", {"stage": "empty", "cell": 3}, "cell"),
    ("mode", {}, "mode"),
    ("mode", {"mode": "party"}, "mode"),
    ("mode", {"mode": None}, "mode"),
    ("mode", {"mode": "play", "pin": "2468"}, "pin"),
]


@pytest.mark.parametrize(("command", "body", "field"), BAD_ADMIN_BODIES)
def test_bad_admin_bodies_name_the_field(
    client: FlaskClient, command: str, body: dict, field: str
) -> None:
    response = post(client, f"/api/admin/{command}", body, **ADMIN)

    assert response.status_code == 400
    answer = response.get_json()
    assert answer["field"] == field
    assert answer["error"]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ("{not json", "body: not valid JSON"),
        ("[1, 2]", "body: expected a JSON object"),
        ('"mode"', "body: expected a JSON object"),
        ("null", "body: expected a JSON object"),
        (b"\xff\xfe", "body: not valid JSON"),
    ],
)
def test_non_json_bodies_are_refused(client: FlaskClient, data: Any, error: str) -> None:
    response = client.post(
        "/api/admin/mode", data=data, headers={**ADMIN, "Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.get_json()["field"] == "body"
    assert response.get_json()["error"].startswith(error)


def test_huge_bodies_are_refused(client: FlaskClient) -> None:
    response = post(client, "/api/admin/new_game", {"options": {"x": "y" * 300_000}}, **ADMIN)

    assert response.status_code == 413
    assert response.get_json()["error"] == "the request body is too large"


def test_strangers_get_the_pin_error_before_any_body_check(client: FlaskClient) -> None:
    response = client.post(
        "/api/admin/mode", data="{not json", headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 403
    assert response.get_json()["field"] == "pin"
