"""Debian's chromium for the browser tests (Playwright's own browser download is never used)."""

from __future__ import annotations

import shutil
from pathlib import Path

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
