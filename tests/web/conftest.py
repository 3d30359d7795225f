"""Fixtures for the web tests (Flask tutorial style): a FakeLink, the app, a test client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.daemon.run import rule_option_fields
from tests.web.fake_link import FakeLink
from web_ui.app import create_app, stop_streams

PIN = "2468"
TEST_CONFIG: dict[str, Any] = {
    "TESTING": True,
    "ADMIN_PIN": PIN,
    "PIN_FAIL_DELAY_S": 0.0,
    "PIN_MAX_FAILURES": 3,
    "PIN_LOCKOUT_S": 30.0,
    "SSE_HEARTBEAT_S": 0.3,
    "SSE_POLL_S": 0.05,
    "RULE_OPTIONS": rule_option_fields(),
}


@pytest.fixture
def link() -> FakeLink:
    return FakeLink()


@pytest.fixture
def app(link: FakeLink) -> Iterator[Flask]:
    app = create_app(link, dict(TEST_CONFIG))
    yield app
    stop_streams(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
