"""The HTML pages: the board, the sensors, the admin controls, and the exhibit's kiosk.

With `KIOSK` ([web] kiosk = true) the kiosk is the only page: the others redirect to it, so a
visitor who edits the address finds no admin or simulator controls.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from controller.physical import MISTAKE_KINDS
from web_ui import i18n
from web_ui.app import web_state
from web_ui.validate import MODES

bp = Blueprint("pages", __name__)

VARIANTS = ("congkak", "kalah", "oware")


@bp.app_context_processor
def page_helpers() -> dict[str, Any]:
    lang = getattr(g, "lang", i18n.DEFAULT_LANGUAGE)

    def translate(key: str, **params: object) -> str:
        return i18n.t(lang, key, **params)

    def switch_url(target: str) -> str:
        return f"{request.path}?lang={target}"

    return {
        "_": translate,
        "lang": lang,
        "languages": i18n.LANGUAGES,
        "language_names": i18n.LANGUAGE_NAMES,
        "switch_url": switch_url,
        "open_without_pin": web_state().open_without_pin,
        "player_new_game": bool(current_app.config["PLAYER_NEW_GAME"]),
        "kiosk_only": bool(current_app.config["KIOSK"]),
    }


def render_page(template: str, page: str, title_key: str, **context: Any) -> str:
    lang = getattr(g, "lang", i18n.DEFAULT_LANGUAGE)
    return render_template(
        template,
        page=page,
        title_key=title_key,
        status=web_state().link.get_status(),
        strings=dict(i18n.table(lang)),
        **context,
    )


def kiosk_only() -> Response | None:
    """The redirect to the kiosk when it is the only page."""
    if not current_app.config["KIOSK"]:
        return None
    lang = i18n.normalize(request.args.get("lang"))
    return redirect(url_for("pages.kiosk", lang=lang) if lang else url_for("pages.kiosk"))


@bp.get("/")
def board() -> str | Response:
    return kiosk_only() or render_page("board.html", "board", "title_board", mistakes=MISTAKE_KINDS)


@bp.get("/kiosk")
def kiosk() -> str:
    """The exhibit's page: the board and one line of what to do, large, full screen."""
    return render_page("kiosk.html", "kiosk", "title_board")


@bp.get("/sensors")
def sensors() -> str | Response:
    return kiosk_only() or render_page("sensors.html", "sensors", "title_sensors")


@bp.get("/admin")
def admin() -> str | Response:
    return kiosk_only() or render_page(
        "admin.html",
        "admin",
        "title_admin",
        variants=VARIANTS,
        modes=MODES,
        pin_set=web_state().guard.enabled,
        rule_options=current_app.config["RULE_OPTIONS"],
    )
