"""Debian's chromium for the browser tests (Playwright's own browser download is never used)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest


def find_chromium() -> str | None:
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = find_chromium()
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium found: install Debian's with `apt-get install -y chromium`",
)


def watched_page(
    browser: Any, locale: str = "en-US", timeout_ms: float = 8000
) -> tuple[Any, Any, list[str]]:
    """A page in a browser context of its own (`locale`, `timeout_ms` for every wait), and the
    script errors it raises as they come, for the test to assert there are none. Close the
    context when done."""
    context = browser.new_context(locale=locale)
    context.set_default_timeout(timeout_ms)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors
