"""The hall view (`sowboard hall --mqtt URL`): every board that published, on one page.

A Flask application over a `controller.hall.state.Hall` (fed by the MQTT listener), served
by waitress like the board's page, with the same look, languages and Host check. The page
gets the hall's snapshot in its HTML and then the boards that changed from an event stream
(`/api/hall/events`: one `board` event a changed board, a `hall` event for the broker's
state), so fifty boards do not cost fifty whole halls a second.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, abort, current_app, g, jsonify, render_template, request

from controller.hall.state import BOARD_ID, Hall
from web_ui import i18n, security
from web_ui.validate import ApiError

HALL_DEFAULTS: dict[str, Any] = {
    "ALLOWED_HOSTS": ("localhost",),
    "HALL_MAX_STREAMS": 50,
    "SSE_HEARTBEAT_S": 15.0,
    "SSE_POLL_S": 1.0,
    "HALL_URL": "",
}

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


class HallWeb:
    def __init__(self, hall: Hall, max_streams: int) -> None:
        self.hall = hall
        self.streams = threading.BoundedSemaphore(max_streams)
        self.stopping = threading.Event()


def hall_web() -> HallWeb:
    state = current_app.extensions["sowboard-hall"]
    assert isinstance(state, HallWeb)
    return state


def create_hall_app(hall: Hall, config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(HALL_DEFAULTS)
    app.config.from_mapping(config or {})
    app.extensions["sowboard-hall"] = HallWeb(hall, int(app.config["HALL_MAX_STREAMS"]))
    # (web_ui.serve ends the streams through the board app's state; the hall's has its own)
    app.extensions["sowboard"] = app.extensions["sowboard-hall"]
    hosts = frozenset(name.lower() for name in app.config["ALLOWED_HOSTS"])
    app.before_request(lambda: security.check_host(request, hosts))
    app.register_error_handler(ApiError, _api_error)
    app.before_request(_choose_language)
    app.after_request(_after_request)
    app.context_processor(_helpers)
    app.add_url_rule("/", "hall", _hall_page)
    app.add_url_rule("/board/<board_id>", "board", _board_page)
    app.add_url_rule("/api/hall", "api_hall", lambda: jsonify(hall_web().hall.snapshot()))
    app.add_url_rule("/api/hall/board/<board_id>", "api_board", _api_board)
    app.add_url_rule("/api/hall/events", "api_events", _events)
    return app


def _api_error(error: ApiError) -> tuple[Response, int]:
    message = error.message
    if error.field == "host":  # (the board's message names its configuration key)
        message = f"Host {request.host!r} is not a name of this hall (sowboard hall --host)"
    return jsonify({"error": message, "field": error.field}), error.status


def _choose_language() -> None:
    g.lang = i18n.pick_language(
        request.args.get("lang"), request.cookies.get(i18n.LANG_COOKIE), request.accept_languages
    )


def _after_request(response: Response) -> Response:
    switch = i18n.normalize(request.args.get("lang"))
    if switch:
        response.set_cookie(
            i18n.LANG_COOKIE, switch, max_age=365 * 24 * 3600, samesite="Lax", httponly=True
        )
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    return response


def _helpers() -> dict[str, Any]:
    lang = getattr(g, "lang", i18n.DEFAULT_LANGUAGE)
    return {
        "_": lambda key, **params: i18n.t(lang, key, **params),
        "lang": lang,
        "languages": i18n.LANGUAGES,
        "language_names": i18n.LANGUAGE_NAMES,
        "switch_url": lambda target: f"{request.path}?lang={target}",
        "broker_url": current_app.config["HALL_URL"],
    }


def _render(template: str, title_key: str, data: Any, **context: Any) -> str:
    lang = getattr(g, "lang", i18n.DEFAULT_LANGUAGE)
    return render_template(
        template, title_key=title_key, data=data, strings=dict(i18n.table(lang)), **context
    )


def _hall_page() -> str:
    return _render("hall.html", "hall_title", hall_web().hall.snapshot(), page="hall")


def _known_board(board_id: str) -> dict[str, Any]:
    view = hall_web().hall.board(board_id) if BOARD_ID.fullmatch(board_id) else None
    if view is None:
        abort(404)
    return view


def _board_page(board_id: str) -> str:
    view = _known_board(board_id)
    return _render("hall_board.html", "hall_board_title", view, page="board", board_id=board_id)


def _api_board(board_id: str) -> Response:
    return jsonify(_known_board(board_id))


def _events() -> Response:
    """The changed boards as they change (Server-Sent Events); 503 when too many are open."""
    web = hall_web()
    if not web.streams.acquire(blocking=False):
        response = jsonify({"error": "too many open hall pages", "field": "streams"})
        response.status_code = 503
        response.headers["Retry-After"] = "30"
        return response
    since = request.args.get("since", type=int) or 0
    board = request.args.get("board")
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    poll = float(current_app.config["SSE_POLL_S"])
    stream = _stream(web, since, heartbeat, poll, board)
    return Response(stream, mimetype="text/event-stream", headers={"X-Accel-Buffering": "no"})


def _stream(
    web: HallWeb, since: int, heartbeat: float, poll: float, board: str | None
) -> Iterator[str]:
    """`board`: that board's changes alone, whole (its detail page); else every board's,
    without their latest events (the hall's cards do not show them: 50 boards' events on
    every change would be most of the stream)."""
    hall = web.hall
    try:
        quiet = 0.0
        broker = (hall.broker_up, hall.broker_error)
        state = {"connected": broker[0], "error": broker[1], "version": since}
        yield f"event: hall\ndata: {json.dumps(state)}\n\n"  # (the page may not know it)
        while not web.stopping.is_set():
            version = hall.wait_for_change(since, poll)
            if version == since:
                quiet += poll
                if quiet >= heartbeat:
                    quiet = 0.0
                    yield ": heartbeat\n\n"
                continue
            quiet = 0.0
            now = (hall.broker_up, hall.broker_error)
            if now != broker:
                broker = now
                state = {"connected": now[0], "error": now[1], "version": version}
                yield f"event: hall\ndata: {json.dumps(state)}\n\n"
            for view in hall.changes(since):
                if board is None:
                    view = {k: v for k, v in view.items() if k != "events"}
                elif view["board"] != board:
                    continue
                yield f"event: board\ndata: {json.dumps(view, separators=(',', ':'))}\n\n"
            since = version
    finally:
        web.streams.release()
