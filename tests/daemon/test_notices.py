"""What the daemon tells (`daemon.notices`) reaches the board page, each with the time it was
told (issue 13): a records.jsonl kept aside as damaged was said in /api/state and the log
alone, and no page showed it, so the person at the board never learnt of it."""

from __future__ import annotations

import re
import time
from datetime import datetime
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.daemon.files import RECORDS_FILE
from controller.daemon.notices import INFO, KEPT, WARNING, Notices
from controller.daemon.run import Daemon
from tests.browser import needs_chromium

from .conftest import make_config

GOOD = '{"variant":"kalah","options":{},"moves":[1,2],"finished":true}\n'


def test_notices_keep_the_newest_with_their_times_and_count_them_all() -> None:
    told: list[str] = []
    clock = iter(float(t) for t in range(1000, 2000))
    notices = Notices(told.append, wall=lambda: next(clock))
    for k in range(KEPT + 5):
        notices.info(f"notice {k}")
    assert told == [f"notice {k}" for k in range(KEPT + 5)]  # the log has them all
    assert notices.items == [f"notice {k}" for k in range(5, KEPT + 5)]
    assert notices.times == [1000.0 + k for k in range(5, KEPT + 5)]
    assert notices.total == KEPT + 5


def test_a_warning_outlives_any_number_of_routine_notices() -> None:
    """The newest KEPT of each severity are kept: a demo that tells a routine notice every
    few minutes never pushes a damaged file out of the status. The log marks warnings."""
    told: list[str] = []
    clock = iter(float(t) for t in range(1000, 2000))
    notices = Notices(told.append, wall=lambda: next(clock))
    notices.warning("records.jsonl is damaged")
    for k in range(3 * KEPT):
        notices.info(f"demo: the hands stopped {k}; a new game")
    notices.add("the damaged records.jsonl is kept as x", WARNING)
    assert told[0] == "warning: records.jsonl is damaged"
    assert told[-1] == "warning: the damaged records.jsonl is kept as x"
    assert len(notices.items) == KEPT + 2
    assert notices.items[0] == "records.jsonl is damaged"
    assert notices.items[1] == f"demo: the hands stopped {2 * KEPT}; a new game"
    assert notices.levels == ["warning"] + ["info"] * KEPT + ["warning"]
    assert notices.times[0] == 1000.0 and notices.times[-1] == 1000.0 + 3 * KEPT + 1
    assert [w.text for w in notices.warnings] == [notices.items[0], notices.items[-1]]
    assert (notices.total, notices.warnings_total) == (3 * KEPT + 2, 2)
    for k in range(KEPT):
        notices.warning(f"journal game.jsonl: line {k}: truncated")
    assert notices.levels.count("warning") == KEPT
    assert notices.levels.count("info") == KEPT
    assert notices.warnings[0].text == "journal game.jsonl: line 0: truncated"
    assert notices.warnings[0].level is WARNING and notices.kept[-KEPT - 1].level is INFO


@needs_chromium
def test_a_daemon_started_on_a_damaged_records_file_says_so_on_the_board_page(
    tmp_path: Path, browser: Browser
) -> None:
    """The real daemon (loop and web server) on a data directory whose records.jsonl was cut
    short: the board page lists the notices, newest first, naming the file and where the
    damaged copy is kept, each with its time."""
    data = tmp_path / "data"
    data.mkdir()
    (data / RECORDS_FILE).write_text(GOOD + GOOD[:30])
    started = time.time()
    daemon = Daemon(make_config(data, web={"port": 0}), out=lambda _t: None, speed=10.0).start()
    try:
        state = daemon.loop.link.get_status()["daemon"]
        told = [n for n in state["notices"] if RECORDS_FILE in n]
        assert len(told) == 2, state["notices"]
        assert len(state["notices_at"]) == len(state["notices"]) == state["notices_total"]
        assert state["notices_level"] == ["warning"] * len(state["notices"])  # (only these)
        assert state["notices_warnings_total"] == state["notices_total"]
        assert all(started <= at <= time.time() for at in state["notices_at"])

        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        context.set_default_timeout(15000)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(daemon.url + "/")
        expect(page.locator("#conn")).to_have_attribute("data-conn", "live")
        panel = page.locator("#notices-panel")
        expect(panel).to_be_visible()
        shown = page.locator("#notices .notice-item")
        expect(shown.filter(has_text="records.jsonl is damaged (line 2: cut short")).to_have_count(
            1
        )
        kept = shown.filter(has_text="the damaged records.jsonl is kept as")
        expect(kept).to_contain_text(str(data / "records.jsonl.damaged-"))
        expect(kept.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d"))  # today: the time
        when = kept.locator("time").get_attribute("datetime")
        assert when is not None
        assert started - 1 <= datetime.fromisoformat(when).timestamp() <= time.time()
        assert errors == []
        context.close()
    finally:
        daemon.stop()
