"""The HTML pages: the board, the sensors, the admin controls."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, render_template, request

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


@bp.get("/")
def board() -> str:
    return render_page("board.html", "board", "title_board", mistakes=MISTAKE_KINDS)


@bp.get("/sensors")
def sensors() -> str:
    return render_page("sensors.html", "sensors", "title_sensors")


@bp.get("/admin")
def admin() -> str:
    return render_page(
        "admin.html",
        "admin",
        "title_admin",
        variants=VARIANTS,
        modes=MODES,
        pin_set=web_state().guard.enabled,
    )
