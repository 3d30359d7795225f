"""The board page lists what the daemon told (`daemon.notices`, issue 13), in Debian's
chromium on the fake link: newest first, each with its time, a few open and the rest folded,
the count of those only the log still has, the text as text, and the board where it was."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, Page, expect

from controller.daemon.notices import KEPT, WARNING
from tests.browser import needs_chromium
from tests.web.fake_link import FakeLink
from web_ui.serve import WebServer

pytestmark = needs_chromium

DAMAGED = "records.jsonl is damaged (line 2: cut short); its 3 intact game records are kept"
KEPT_AS = "the damaged records.jsonl is kept as /var/lib/sowboard/records.jsonl.damaged-20261127"
TOLD_AT = float(int(time.time()) // 60 * 60 - 3 * 86400)  # three days ago, on the minute


@pytest.fixture
def served(app: Flask) -> Iterator[WebServer]:
    with WebServer(app, "127.0.0.1", 0) as server:
        yield server


def open_page(browser: Browser, url: str, size: tuple[int, int] = (1280, 900)) -> Page:
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale="en-US", timezone_id="UTC"
    )
    context.set_default_timeout(5000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def test_the_board_page_lists_the_notices_newest_first_with_their_time(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    page = open_page(browser, served.url + "/")
    panel = page.locator("#notices-panel")
    expect(panel).to_be_hidden()  # nothing told
    board = page.locator("#board svg").bounding_box()

    link.notice(DAMAGED, at=TOLD_AT)
    link.notice(KEPT_AS, at=TOLD_AT + 1)
    expect(panel).to_be_visible()
    expect(page.locator("#notices-heading")).to_have_text("Notices from the board (2)")
    items = page.locator("#notices .notice-item")
    expect(items.locator(".notice-text")).to_have_text([KEPT_AS, DAMAGED])
    stamp = items.first.locator("time")
    told = datetime.fromtimestamp(TOLD_AT + 1, UTC)  # (the page's time zone is UTC)
    expect(stamp).to_have_attribute("datetime", told.strftime("%Y-%m-%dT%H:%M:01.000Z"))
    # Told on another day: the date and the time.
    expect(stamp).to_contain_text(f"{told:%b} {told.day}, {told:%I:%M}")
    expect(page.locator("#notices-more")).to_be_hidden()

    link.notice("demo: the hands stopped; a new game")  # today: the time alone
    expect(items.first.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d"))
    expect(items.first.locator("time")).not_to_contain_text(f"{told:%b}")

    # More than a few: the newest open, the rest folded with their count.
    for k in range(3):
        link.notice(f"journal game.jsonl: line {k + 4}: truncated")
    expect(page.locator("#notices-heading")).to_have_text("Notices from the board (6)")
    expect(items).to_have_count(3)
    expect(items.first).to_contain_text("line 6: truncated")
    more = page.locator("#notices-more-summary")
    expect(more).to_have_text("Earlier notices (3)")
    earlier = page.locator("#notices-earlier .notice-item")
    expect(earlier.first).to_be_hidden()  # folded at first
    more.click()
    expect(earlier.locator(".notice-text")).to_have_text(
        ["demo: the hands stopped; a new game", KEPT_AS, DAMAGED]
    )
    expect(page.locator("#notices-logged")).to_be_hidden()

    # The daemon keeps the newest KEPT: the page says how many only the log has.
    for k in range(KEPT):
        link.notice(f"notice {k}")
    expect(page.locator("#notices-heading")).to_have_text(f"Notices from the board ({KEPT + 6})")
    expect(earlier).to_have_count(KEPT - 3)
    expect(page.locator("#notices-logged")).to_have_text("6 older notices are only in the log.")
    # However many, the board stays where it was.
    assert page.locator("#board svg").bounding_box() == board
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_a_warning_stays_open_however_many_routine_notices_come_after(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    """A demo tells a routine notice every few minutes: a damaged records.jsonl told before
    them stays open, marked and styled as a warning, while the routine ones fold."""
    page = open_page(browser, served.url + "/")
    link.notice(DAMAGED, at=TOLD_AT, level=WARNING)
    link.notice(KEPT_AS, at=TOLD_AT + 1, level=WARNING)
    for k in range(10):
        link.notice(f"demo: the hands stopped {k}; a new game")
    expect(page.locator("#notices-heading")).to_have_text("Notices from the board (12)")
    items = page.locator("#notices .notice-item")
    expect(items.locator(".notice-text")).to_have_text(
        [
            "demo: the hands stopped 9; a new game",
            "demo: the hands stopped 8; a new game",
            "demo: the hands stopped 7; a new game",
            KEPT_AS,
            DAMAGED,
        ]
    )
    expect(page.locator("#notices-more-summary")).to_have_text("Earlier notices (7)")
    warning = items.filter(has_text=DAMAGED)
    expect(warning).to_have_attribute("data-level", "warning")
    expect(warning.locator(".notice-level")).to_have_text("⚠ Warning")
    expect(items.first).to_have_attribute("data-level", "info")
    assert items.first.locator(".notice-level").count() == 0

    def look(item: Any) -> tuple[str, str]:
        return item.evaluate(
            "e => [getComputedStyle(e).borderLeftColor, getComputedStyle(e).backgroundColor]"
        )

    assert look(warning) != look(items.first)  # told apart at a glance, not by words alone
    # The newest five warnings stay open; an older one folds like the rest.
    for k in range(5):
        link.notice(f"journal game.jsonl: line {k + 4}: truncated", level=WARNING)
    expect(items).to_have_count(5)
    expect(items.locator(".notice-text")).to_have_text(
        [f"journal game.jsonl: line {k + 4}: truncated" for k in reversed(range(5))]
    )
    expect(page.locator("#notices-earlier .notice-warning")).to_have_count(2)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_a_warning_told_again_is_one_item_and_an_acknowledged_one_folds(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    """An engine failing at every move is one item told so many times, not a page of them;
    warnings an operator acknowledged (the admin page) are marked read and fold like routine
    notices, until told again."""
    page = open_page(browser, served.url + "/")
    for k in range(3):
        link.notice("the engine gave no move: it timed out", at=TOLD_AT + k, level=WARNING)
    for k in range(4):
        link.notice(f"demo: the hands stopped {k}; a new game")
    link.notice(DAMAGED, at=TOLD_AT + 10, level=WARNING)
    expect(page.locator("#notices-heading")).to_have_text("Notices from the board (8)")
    items = page.locator("#notices .notice-item")
    engine = items.filter(has_text="the engine gave no move")
    expect(engine).to_have_count(1)
    expect(engine.locator(".notice-repeats")).to_have_text("told 3 times")
    expect(page.locator("#notices-logged")).to_be_hidden()  # (all 8 tellings are listed)
    assert link.command("acknowledge_notices", {}) == {"acknowledged": 2}
    read = page.locator("#notices-panel .notice-read")
    expect(read).to_have_count(2)
    expect(read.first.locator(".notice-level")).to_have_text("⚠ Warning (read)")
    expect(items).to_have_count(3)  # the newest three: read warnings no longer stay open
    folded = page.locator("#notices-earlier .notice-read")
    expect(folded).to_contain_text("the engine gave no move")
    link.notice("the engine gave no move: it timed out", level=WARNING)  # failing again
    expect(items.first).to_contain_text("the engine gave no move")
    expect(items.first).not_to_have_class(re.compile(r"\bnotice-read\b"))
    expect(items.first.locator(".notice-repeats")).to_have_text("told 4 times")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_a_notice_is_shown_as_text(browser: Browser, served: WebServer, link: FakeLink) -> None:
    """A notice names files (a path may hold anything): never markup."""
    hostile = '<img src=x onerror="window.hacked=1"><b>game.jsonl</b>'
    link.notice(hostile)
    page = open_page(browser, served.url + "/")
    expect(page.locator("#notices .notice-text")).to_have_text(hostile)
    assert page.locator("#notices-panel img, #notices-panel b").count() == 0
    page.wait_for_timeout(200)
    assert page.evaluate("window.hacked") is None
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_the_notices_in_japanese(browser: Browser, served: WebServer, link: FakeLink) -> None:
    for k in range(KEPT + 2):
        link.notice(f"notice {k}", at=time.time())
    page = open_page(browser, served.url + "/?lang=ja", (390, 844))
    expect(page.locator("#notices-heading")).to_have_text(f"盤からのお知らせ({KEPT + 2})")
    expect(page.locator("#notices-more-summary")).to_have_text(f"それより前のお知らせ({KEPT - 3})")
    expect(page.locator("#notices-logged")).to_have_text(
        "それより古いお知らせ2件はログにだけあります。"
    )
    expect(page.locator("#notices .notice-text").first).to_have_text(f"notice {KEPT + 1}")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_the_kiosk_tells_visitors_nothing_of_files(
    browser: Browser, served: WebServer, link: FakeLink
) -> None:
    link.notice(KEPT_AS)
    page = open_page(browser, served.url + "/kiosk")
    expect(page.locator("#board svg")).to_be_visible()
    assert page.locator("#notices-panel").count() == 0
    expect(page.locator("body")).not_to_contain_text("records.jsonl")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
