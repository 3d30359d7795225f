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
from controller.daemon.tools import readable_notice
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
    assert [n["at"] for n in notices.records()] == [1000.0 + k for k in range(5, KEPT + 5)]
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
    levels = [n["level"] for n in notices.records()]
    assert levels == ["warning"] + ["info"] * KEPT + ["warning"]
    times = [n["at"] for n in notices.records()]
    assert times[0] == 1000.0 and times[-1] == 1000.0 + 3 * KEPT + 1
    assert [w.text for w in notices.warnings] == [notices.items[0], notices.items[-1]]
    assert (notices.total, notices.warnings_total) == (3 * KEPT + 2, 2)
    for k in range(KEPT):
        notices.warning(f"journal game.jsonl: line {k}: truncated")
    levels = [n["level"] for n in notices.records()]
    assert levels.count("warning") == KEPT
    assert levels.count("info") == KEPT
    assert notices.warnings[0].text == "journal game.jsonl: line 0: truncated"
    assert notices.warnings[0].level is WARNING and notices.kept[-KEPT - 1].level is INFO


def test_a_notice_told_again_is_one_record_told_more_often() -> None:
    """An engine that fails at every move (issue 13) fills neither the page nor the hall: the
    same text and severity told again while kept is one record, moved to the newest, with
    when it was first and last told and how often. The log and the totals have every telling."""
    told: list[str] = []
    clock = iter(float(t) for t in range(1000, 2000))
    notices = Notices(told.append, wall=lambda: next(clock))
    notices.warning("the engine gave no move: it timed out")
    notices.warning("records.jsonl could not be written")
    notices.info("the engine gave no move: it timed out")  # (another severity: its own)
    for _ in range(50):
        notices.warning("the engine gave no move: it timed out")
    records = notices.records()
    assert [(n["text"], n["level"], n["repeats"]) for n in records] == [
        ("records.jsonl could not be written", "warning", 1),
        ("the engine gave no move: it timed out", "info", 1),
        ("the engine gave no move: it timed out", "warning", 51),
    ]
    assert (records[-1]["first_at"], records[-1]["at"]) == (1000.0, 1052.0)
    assert len(told) == notices.total == 53 and notices.warnings_total == 52


def test_acknowledged_warnings_are_read_until_told_again() -> None:
    """An operator acknowledges the warnings (the admin page): they stay listed, marked read,
    and no longer count as unread, until the same one is told again."""
    notices = Notices(lambda _text: None, wall=lambda: 1000.0)
    notices.warning("calibration not used: damaged")
    notices.warning("records.jsonl could not be written")
    notices.info("demo: a new game")
    assert notices.unacknowledged == 2
    assert notices.acknowledge() == 2
    assert notices.acknowledge() == 0  # (nothing new to read)
    assert notices.unacknowledged == 0
    assert [n["acknowledged"] for n in notices.records()] == [True, True, False]
    notices.warning("records.jsonl could not be written")  # failing again: to be read again
    assert notices.unacknowledged == 1
    assert notices.records()[-1]["acknowledged"] is False
    assert notices.records()[-1]["repeats"] == 2


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
        told = [n for n in state["notices"] if RECORDS_FILE in n["text"]]
        assert len(told) == 2, state["notices"]
        assert len(state["notices"]) == state["notices_total"]
        assert [n["level"] for n in state["notices"]] == ["warning"] * len(told)  # (only these)
        assert state["notices_warnings_total"] == state["notices_total"]
        assert state["notices_unacknowledged"] == 2
        assert all(started <= n["at"] <= time.time() for n in state["notices"])

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


def test_diag_gives_each_notice_with_its_times_for_a_person() -> None:
    """`sowboard diag` prints the daemon's notices with when they were first and last told,
    as local times, not seconds since 1970 (issue 13)."""
    notices = Notices(lambda _text: None, wall=lambda: 1_795_800_000.0)
    notices.warning("records.jsonl could not be written")
    (shown,) = [readable_notice(dict(n)) for n in notices.records()]
    local = datetime.fromtimestamp(1_795_800_000.0).isoformat(timespec="seconds")
    assert shown == {
        "text": "records.jsonl could not be written",
        "level": "warning",
        "first_at": local,
        "at": local,
        "repeats": 1,
        "acknowledged": False,
    }
