"""The HTML pages: what they contain, that everything is served locally, and the language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.web.conftest import TEST_CONFIG
from tests.web.fake_link import FakeLink
from web_ui.app import create_app
from web_ui.validate import MISTAKE_KINDS

STATIC = Path(__file__).resolve().parents[2] / "web_ui" / "static"


def embedded(html: str, element_id: str) -> object:
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html)
    assert match, element_id
    return json.loads(match.group(1))


def test_board_page_carries_the_state_and_the_controls(client: FlaskClient, link: FakeLink) -> None:
    response = client.get("/")
    html = response.get_data(as_text=True)

    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert embedded(html, "sowboard-status") == link.get_status()
    assert 'id="board"' in html
    assert 'id="turn"' in html and 'id="expect"' in html
    assert 'id="flags"' in html and 'id="history"' in html
    assert 'href="/api/record" download' in html
    for kind in MISTAKE_KINDS:
        assert f'data-kind="{kind}"' in html
    assert "Download the game record (JSON)" in html
    assert "Make a mistake" in html


def test_pages_load_nothing_from_elsewhere(client: FlaskClient) -> None:
    for path in ("/", "/sensors", "/admin"):
        html = client.get(path).get_data(as_text=True)
        refs = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert refs, path
        for ref in refs:
            assert ref.startswith(("/", "?")), f"{path} refers to {ref}"
            if ref.startswith("/static/"):
                asset = client.get(ref)
                assert asset.status_code == 200, ref
                asset.close()
    for script in STATIC.glob("*.js"):
        urls = re.findall(r"https?://[^\s\"']+", script.read_text())
        assert urls in ([], ["http://www.w3.org/2000/svg"]), script.name


def test_pages_forbid_foreign_scripts_and_framing(client: FlaskClient) -> None:
    response = client.get("/")

    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_sensor_page(client: FlaskClient, link: FakeLink) -> None:
    html = client.get("/sensors").get_data(as_text=True)

    for header in (
        "Raw reading",
        "Weight (g)",
        "Noise (g rms)",
        "Samples per second",
        "Last fault",
    ):
        assert header in html
    status = embedded(html, "sowboard-status")
    assert isinstance(status, dict)
    assert len(status["sensors"]) == 16
    assert "/static/sensors.js" in html


def test_admin_page_asks_for_the_pin(client: FlaskClient) -> None:
    html = client.get("/admin").get_data(as_text=True)

    assert 'id="login-form"' in html
    assert 'type="password"' in html
    assert "These controls need the admin PIN." in html


def test_admin_page_without_a_pin(link: FakeLink) -> None:
    client = create_app(link, {**TEST_CONFIG, "ADMIN_PIN": None}).test_client()

    html = client.get("/admin").get_data(as_text=True)

    assert "No admin PIN is set on this board" in html
    assert 'id="login-form"' not in html


# ---------------------------------------------------------------- language


def test_english_by_default(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)

    assert '<html lang="en">' in html
    assert "Make a mistake" in html
    assert embedded(html, "sowboard-strings")["turn"] == "Player {n}'s turn"  # type: ignore[index]


def test_accept_language_japanese_gives_japanese(client: FlaskClient) -> None:
    html = client.get("/", headers={"Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"}).get_data(
        as_text=True
    )

    assert '<html lang="ja">' in html
    assert "わざと間違える" in html
    assert "ゲームの記録をダウンロード" in html
    assert embedded(html, "sowboard-strings")["turn"] == "プレイヤー{n}の番です"  # type: ignore[index]


def test_the_first_language_the_page_knows_wins(client: FlaskClient) -> None:
    html = client.get("/sensors", headers={"Accept-Language": "fr-FR, ja;q=0.7, en;q=0.3"})

    assert '<html lang="ja">' in html.get_data(as_text=True)


def test_the_switch_overrides_the_browser_and_sticks(client: FlaskClient) -> None:
    japanese_browser = {"Accept-Language": "ja"}

    switched = client.get("/?lang=en", headers=japanese_browser)
    later = client.get("/sensors", headers=japanese_browser)

    assert '<html lang="en">' in switched.get_data(as_text=True)
    assert "lang=en" in switched.headers["Set-Cookie"]
    assert '<html lang="en">' in later.get_data(as_text=True)
    back = client.get("/?lang=ja")
    assert '<html lang="ja">' in back.get_data(as_text=True)
    assert '<html lang="ja">' in client.get("/admin").get_data(as_text=True)


def test_the_switch_links_to_the_other_language(client: FlaskClient) -> None:
    html = client.get("/sensors").get_data(as_text=True)

    assert 'href="/sensors?lang=ja"' in html
    assert "日本語" in html


@pytest.mark.parametrize("value", ["de", "", "xx-YY", "ja<script>"])
def test_unknown_switch_values_are_ignored(client: FlaskClient, value: str) -> None:
    response = client.get(f"/?lang={value}")

    assert '<html lang="en">' in response.get_data(as_text=True)
    assert "Set-Cookie" not in response.headers


@pytest.mark.parametrize(
    ("bind", "pin", "warned"),
    [
        ("0.0.0.0", None, True),
        ("::", None, True),
        ("board.lan", None, True),
        ("0.0.0.0", "2468", False),
        ("127.0.0.1", None, False),
        ("localhost", None, False),
        ("::1", None, False),
    ],
)
def test_a_page_open_to_the_network_without_a_pin_says_so(
    link: FakeLink, bind: str, pin: str | None, warned: bool
) -> None:
    app = create_app(link, {**TEST_CONFIG, "BIND_HOST": bind, "ADMIN_PIN": pin})

    page = app.test_client().get("/").get_data(as_text=True)

    assert ('<p class="notice" role="alert">This page is open to the network' in page) is warned
