"""Both languages are complete, and every string the pages use exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.daemon.health import LINK_FAULT, WRITE_FAILED
from controller.physical import MISTAKE_KINDS
from web_ui import i18n

WEB_UI = Path(__file__).resolve().parents[2] / "web_ui"
FLAG_KINDS = (*MISTAKE_KINDS, "board_mismatch", "sensor_fault")  # SIMULATION.md "Report"
HEALTH_KINDS = (LINK_FAULT, WRITE_FAILED)  # the daemon's own parts (the hall words them too)
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
SAME_IN_BOTH = {"app_name", "pin_label", "list_sep_places"}


def test_both_languages_have_the_same_strings() -> None:
    assert set(i18n.EN) == set(i18n.JA)


@pytest.mark.parametrize("key", sorted(i18n.EN))
def test_placeholders_match(key: str) -> None:
    assert i18n.placeholders(i18n.EN[key]) == i18n.placeholders(i18n.JA[key]), key


@pytest.mark.parametrize("key", sorted(i18n.JA))
def test_japanese_strings_are_japanese(key: str) -> None:
    if key in SAME_IN_BOTH or key.startswith("list_"):
        return
    assert JAPANESE.search(i18n.JA[key]), f"{key}: {i18n.JA[key]!r}"


def used_keys() -> set[str]:
    keys: set[str] = set()
    for template in (WEB_UI / "templates").glob("*.html"):
        keys |= set(re.findall(r"_\('(\w+)'(?!\s*\+)", template.read_text()))
    for script in (WEB_UI / "static").glob("*.js"):
        text = script.read_text()
        keys |= set(re.findall(r'\bt\("(\w+)"(?!\s*\+)', text))
        keys |= set(re.findall(r'"((?:color|effect)_\w+)"', text))
    return keys


def test_every_string_the_pages_use_exists() -> None:
    keys = used_keys()
    assert len(keys) > 50
    missing = sorted(k for k in keys if k not in i18n.EN)
    assert missing == []


def test_every_flag_kind_and_mistake_has_words() -> None:
    for kind in (*FLAG_KINDS, *HEALTH_KINDS):
        assert f"flag_{kind}" in i18n.EN
    for kind in MISTAKE_KINDS:
        assert f"mistake_{kind}" in i18n.EN
    for name in ("variant_congkak", "variant_kalah", "variant_oware"):
        assert name in i18n.EN
    for mode in ("play", "teach", "demo"):
        assert f"mode_{mode}" in i18n.EN


def test_fill_a_template() -> None:
    assert i18n.t("en", "flag_wrong_pit", at="pit 5", expected="pit 4") == (
        "A seed went into pit 5; it belongs in pit 4. Take it back."
    )
    assert i18n.t("ja", "turn", n=2) == "プレイヤー2の番です"
    assert i18n.t("en", "turn") == "Player {n}'s turn"  # a missing value stays visible
    assert i18n.t("xx", "turn", n=1) == "Player 1's turn"


@pytest.mark.parametrize(
    ("switch", "cookie", "accepted", "lang"),
    [
        (None, None, [], "en"),
        (None, None, [("ja-JP", 1.0)], "ja"),
        (None, None, [("fr", 1.0), ("ja", 0.8), ("en", 0.5)], "ja"),
        (None, None, [("en", 0.4), ("ja", 0.9)], "ja"),
        (None, None, [("ja", 0.0), ("en", 0.2)], "en"),
        (None, "ja", [("en", 1.0)], "ja"),
        ("en", "ja", [("ja", 1.0)], "en"),
        ("JA", None, [], "ja"),
        ("de", "ja", [], "ja"),
        ("de", None, [("de", 1)], "en"),
    ],
)
def test_pick_language(
    switch: str | None, cookie: str | None, accepted: list[tuple[str, float]], lang: str
) -> None:
    assert i18n.pick_language(switch, cookie, accepted) == lang
