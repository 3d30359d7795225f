"""The status page and JSON API of the board, built on `DaemonLink` alone.

`create_app(link, config)` is the application factory (Flask tutorial style). The web layer
reads the daemon's snapshots and sends it commands; it never imports rules, sensing or tracking
code. Serve it with `web_ui.serve` (waitress), never the Flask development server.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response, current_app, g, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException, InternalServerError

from controller.daemon.link import DaemonLink
from web_ui import i18n, security
from web_ui.events import SharedEvents
from web_ui.security import PinGuard
from web_ui.sessions import SessionStore
from web_ui.validate import ApiError

DEFAULTS: dict[str, Any] = {
    "ADMIN_PIN": None,  # str; without one the admin endpoints are off
    "ALLOWED_HOSTS": ("localhost",),  # names the Host header may carry (IP addresses always)
    "BIND_HOST": "127.0.0.1",  # where the page is served (a warning if open without a PIN)
    "ADMIN_IDLE_S": 30 * 60.0,  # an admin session unused this long ends
    "ADMIN_MAX_AGE_S": 12 * 3600.0,  # and any admin session this long after login
    "ADMIN_MAX_SESSIONS": 32,
    "TESTING": False,
    "SSE_HEARTBEAT_S": 15.0,  # a comment line on an idle event stream this often
    "SSE_POLL_S": 1.0,  # longest single wait on the link (how soon a stream notices a stop)
    "SSE_MAX_STREAMS": 12,  # each open event stream holds a server thread
    "PIN_MAX_FAILURES": 5,
    "PIN_LOCKOUT_S": 60.0,
    "PIN_FAIL_DELAY_S": 0.5,
    "MAX_CONTENT_LENGTH": 256 * 1024,
    "PLAYER_NEW_GAME": True,  # players may start a new game from the page ([web] new_game_button)
    "KIOSK": False,  # /kiosk is the only page ([web] kiosk)
    "RULE_OPTIONS": {},  # variant -> its option fields for the admin's new-game form (run.py)
}

STREAM_RETRY_AFTER_S = 30

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


@dataclass
class WebState:
    """What the request handlers share: the link, the PIN guard, the admin sessions, the
    event stream slots."""

    link: DaemonLink
    guard: PinGuard
    sessions: SessionStore
    hosts: frozenset[str]
    bind_host: str
    streams: threading.BoundedSemaphore
    events: SharedEvents
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def open_without_pin(self) -> bool:
        """Served beyond this machine, and no admin PIN is set."""
        return not self.guard.enabled and not security.is_loopback(self.bind_host)


def web_state() -> WebState:
    state = current_app.extensions["sowboard"]
    assert isinstance(state, WebState)
    return state


def stop_streams(app: Flask) -> None:
    """End every open event stream soon (within SSE_POLL_S), e.g. before the server stops."""
    # (the hall's app, web_ui/hall.py, keeps its own state with a `stopping` event too)
    stopping = getattr(app.extensions.get("sowboard"), "stopping", None)
    if isinstance(stopping, threading.Event):
        stopping.set()


def change_pin(app: Flask, pin: str | None) -> None:
    """A new admin PIN (None: admin off) while serving: every admin session ends."""
    state = app.extensions["sowboard"]
    assert isinstance(state, WebState)
    state.guard.replace(pin or None)


def create_app(link: DaemonLink, config: dict[str, Any] | None = None) -> Flask:
    """The web application for one daemon link.

    Config keys: ADMIN_PIN (str), TESTING, and the tuning keys of `DEFAULTS`. No secret key:
    nothing is signed; admin sessions live in this process (`web_ui.sessions`).
    """
    app = Flask(__name__)
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False  # keep the daemon's order (options as RULES.md lists them)
    app.jinja_env.policies["json.dumps_kwargs"] = {"sort_keys": False}
    app.config.from_mapping(DEFAULTS)
    if config:
        app.config.from_mapping(config)
    pin = app.config.get("ADMIN_PIN")
    if pin is not None and not isinstance(pin, str):
        raise TypeError("ADMIN_PIN must be a string")

    app.extensions["sowboard"] = WebState(
        link=link,
        guard=PinGuard(
            pin or None,
            max_failures=int(app.config["PIN_MAX_FAILURES"]),
            lockout_s=float(app.config["PIN_LOCKOUT_S"]),
            fail_delay_s=float(app.config["PIN_FAIL_DELAY_S"]),
        ),
        sessions=SessionStore(
            idle_s=float(app.config["ADMIN_IDLE_S"]),
            max_age_s=float(app.config["ADMIN_MAX_AGE_S"]),
            max_sessions=int(app.config["ADMIN_MAX_SESSIONS"]),
        ),
        streams=threading.BoundedSemaphore(int(app.config["SSE_MAX_STREAMS"])),
        hosts=frozenset(name.lower() for name in app.config["ALLOWED_HOSTS"]),
        bind_host=str(app.config["BIND_HOST"]),
        events=SharedEvents(),
    )

    from web_ui import api, pages

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)

    app.before_request(_check_host)
    app.before_request(_choose_language)
    app.after_request(_after_request)
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    return app


def _check_host() -> None:
    security.check_host(request, web_state().hosts)


def _choose_language() -> None:
    g.lang = i18n.pick_language(
        request.args.get("lang"),
        request.cookies.get(i18n.LANG_COOKIE),
        request.accept_languages,
    )


def _after_request(response: Response) -> Response:
    switch = i18n.normalize(request.args.get("lang"))
    if switch:
        response.set_cookie(
            i18n.LANG_COOKIE, switch, max_age=365 * 24 * 3600, samesite="Lax", httponly=True
        )
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CSP)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "same-origin")
    if request.path.startswith("/api/"):
        headers.setdefault("Cache-Control", "no-store")
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    return response


def _json_error(status: int, message: str, field_: str | None) -> Response:
    response = jsonify({"error": message, "field": field_})
    response.status_code = status
    return response


def _api_error(error: ApiError) -> Response:
    response = _json_error(error.status, error.message, error.field)
    if error.status == 429:
        client = request.remote_addr or "unknown"
        wait = web_state().guard.retry_after(client)
        response.headers["Retry-After"] = str(max(wait, 1))
    if error.status == 503 and error.field == "streams":
        # A browser's EventSource retries a failed stream on its own; this says when a slot
        # may be free (pages close) to any other client.
        response.headers["Retry-After"] = str(STREAM_RETRY_AFTER_S)
    return response


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _http_error(error: HTTPException) -> Response | HTTPException:
    if not _is_api():
        return error
    code = error.code or 500
    message = {
        404: f"no such endpoint: {request.method} {request.path}",
        405: f"{request.method} is not allowed on {request.path}",
        413: "the request body is too large",
    }.get(code, error.description or error.name)
    response = _json_error(code, message, None)
    if code == 405 and error.get_response().headers.get("Allow"):
        response.headers["Allow"] = error.get_response().headers["Allow"]
    return response


def _unexpected_error(error: Exception) -> Response | HTTPException:
    if isinstance(error, HTTPException):
        return _http_error(error)
    current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
    if _is_api():
        return _json_error(500, "internal error in the web layer", None)
    return InternalServerError(original_exception=error)
