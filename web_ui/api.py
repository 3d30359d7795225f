"""The JSON API under /api: state, live events, the game record, admin and sim commands."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from controller.daemon.link import CommandError
from web_ui import security, validate
from web_ui.app import web_state
from web_ui.events import event_stream
from web_ui.sessions import COOKIE
from web_ui.validate import ApiError

bp = Blueprint("api", __name__, url_prefix="/api")


# ---------------------------------------------------------------- reading


@bp.get("/state")
def state() -> Response:
    return jsonify(web_state().link.get_status())


@bp.get("/record")
def record() -> Response:
    status = web_state().link.get_status()
    game = status.get("game", {})
    body = json.dumps(game.get("record", {}), indent=2, ensure_ascii=False) + "\n"
    variant = re.sub(r"[^a-z0-9_-]", "", str(game.get("variant", "game")).lower()) or "game"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="sowboard-{variant}-{stamp}.json"'
    )
    return response


@bp.get("/events")
def events() -> Response:
    shared = web_state()
    if not shared.streams.acquire(blocking=False):
        raise ApiError(503, "too many live pages open; poll /api/state instead", "streams")
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            shared.streams.release()

    try:
        first = shared.link.get_status()
    except Exception:
        release()
        raise
    config = current_app.config
    # waitress tells whether the page went away (serve.py); the test client does not.
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected", bool)

    def stopping() -> bool:
        return shared.stopping.is_set() or gone()

    stream = event_stream(
        shared.link,
        first,
        heartbeat_s=float(config["SSE_HEARTBEAT_S"]),
        poll_s=float(config["SSE_POLL_S"]),
        stopping=stopping,
        encode=shared.events.event,
    )
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(release)
    return response


# ---------------------------------------------------------------- commands


def read_body() -> dict[str, Any]:
    """The POST body as a JSON object (an empty body is `{}`), after the CSRF checks."""
    security.check_post(request)
    return parse_body()


def parse_body() -> dict[str, Any]:
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
        validate.check_nesting(text)
        body = json.loads(text)
        validate.check_text(body)
    except ValueError as error:  # (UnicodeError is one)
        raise ApiError(400, f"body: not valid JSON ({error})", "body") from error
    if not isinstance(body, dict):
        raise ApiError(400, "body: expected a JSON object", "body")
    return body


def run_command(name: str, args: dict[str, Any]) -> Response:
    try:
        result = web_state().link.command(name, args)
    except CommandError as error:
        status = 409 if error.field == "command" else 400
        raise ApiError(status, error.message, error.field) from error
    return jsonify({"ok": True, "result": result})


def game_pits(status: dict[str, Any]) -> int:
    try:
        return len(status["game"]["position"]["pits"][0])
    except (KeyError, IndexError, TypeError):
        return int(status.get("board", {}).get("pits", 0))


def sim_status() -> dict[str, Any]:
    status = web_state().link.get_status()
    if not status.get("sim"):
        raise ApiError(409, "the simulated board is not running", "command")
    return status


def require_admin() -> None:
    shared = web_state()
    security.require_admin(request, shared.guard, shared.sessions)


def admin_body() -> dict[str, Any]:
    """CSRF checks, then the PIN, then the body (strangers learn nothing about bodies)."""
    security.check_post(request)
    require_admin()
    return parse_body()


@bp.post("/admin/login")
def admin_login() -> Response:
    """A new session; the one this browser had (if any) ends."""
    pin = validate.login_pin(read_body())
    shared = web_state()
    generation = shared.guard.check(request.remote_addr or "unknown", pin)
    shared.sessions.close(request.cookies.get(COOKIE))
    sid, session = shared.sessions.open(generation)
    response = jsonify({"ok": True, "csrf": session.csrf})
    response.set_cookie(
        COOKIE,
        sid,
        max_age=int(shared.sessions.max_age_s),
        path="/",
        httponly=True,
        samesite="Strict",
    )
    return response


@bp.post("/admin/logout")
def admin_logout() -> Response:
    """End this browser's session (it needs its CSRF token: another site cannot log us out)."""
    read_body()
    shared = web_state()
    if security.current_session(request, shared.guard, shared.sessions) is not None:
        require_admin()
    shared.sessions.close(request.cookies.get(COOKIE))
    response = jsonify({"ok": True})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="Strict")
    return response


@bp.get("/admin/session")
def admin_session() -> Response:
    shared = web_state()
    session = security.current_session(request, shared.guard, shared.sessions)
    return jsonify(
        {
            "admin": session is not None,
            "pin_set": shared.guard.enabled,
            "csrf": session.csrf if session is not None else None,
        }
    )


@bp.post("/admin/new_game")
def admin_new_game() -> Response:
    return run_command("new_game", validate.new_game_args(admin_body()))


@bp.post("/admin/undo")
def admin_undo() -> Response:
    return run_command("undo", validate.undo_args(admin_body()))


@bp.post("/admin/calibrate")
def admin_calibrate() -> Response:
    return run_command("calibrate", validate.calibrate_args(admin_body()))


@bp.post("/admin/mode")
def admin_mode() -> Response:
    return run_command("mode", validate.mode_args(admin_body()))


@bp.post("/admin/save_recording")
def admin_save_recording() -> Response:
    """A recording of the last frames (the admin page's button; `sowboard record`, which says
    so with `?by=cli` and sends the PIN header)."""
    reason = "cli" if request.args.get("by") == "cli" else "admin"
    return run_command("save_recording", validate.save_recording_args(admin_body(), reason))


@bp.post("/admin/acknowledge_notices")
def admin_acknowledge_notices() -> Response:
    """The operator has read the board's warnings: the page folds them, the hall stops
    counting them (notices.py)."""
    return run_command("acknowledge_notices", validate.acknowledge_notices_args(admin_body()))


@bp.post("/hint")
def hint() -> Response:
    """The page's hint button: for everybody, as the board's own hint button is. The engine's
    best move shows in the status (game.computer.hint) once it answered."""
    return run_command("hint", validate.hint_args(read_body()))


@bp.post("/new_game")
def player_new_game() -> Response:
    """The players' "New game" button: this game's rules again, from the start layout (the
    board is weighed first). Off on an exhibit that says so ([web] new_game_button = false)."""
    body = read_body()
    if not current_app.config["PLAYER_NEW_GAME"]:
        raise ApiError(
            403,
            "new games from the page are off on this board ([web] new_game_button = false)",
            "command",
        )
    return run_command("new_game", validate.player_new_game_args(body))


@bp.post("/sim/move")
def sim_move() -> Response:
    body = read_body()
    status = sim_status()
    return run_command("sim_move", validate.sim_move_args(body, game_pits(status)))


@bp.post("/sim/mistake")
def sim_mistake() -> Response:
    body = read_body()
    sim_status()
    return run_command("sim_mistake", validate.sim_mistake_args(body))


# The board buttons that do what an admin command does: pressed by a script, they need the
# admin PIN as that command does (only the simulated board's own play is open to everybody).
ADMIN_BUTTONS = ("new_game", "undo", "mode")


@bp.post("/sim/actions")
def sim_actions() -> Response:
    body = read_body()
    status = sim_status()
    args = validate.sim_actions_args(body, game_pits(status))
    if any(a.get("name") in ADMIN_BUTTONS for a in args["actions"] if a["action"] == "button"):
        require_admin()
    return run_command("sim_actions", args)
