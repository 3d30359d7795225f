"""The app on waitress: real sockets, an unbuffered event stream, and a clean stop."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator

import pytest
from flask import Flask

from tests.web.conftest import TEST_CONFIG
from tests.web.fake_link import FakeLink
from tests.web.sse import EventReader
from web_ui.app import create_app
from web_ui.serve import WebServer


@pytest.fixture
def server(app: Flask) -> Iterator[WebServer]:
    with WebServer(app, "127.0.0.1", 0) as running:
        yield running


def connect(server: WebServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)


def test_serves_the_state_on_a_free_port(server: WebServer, link: FakeLink) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}"
    conn = connect(server)
    conn.request("GET", "/api/state")
    response = conn.getresponse()

    assert response.status == 200
    assert response.getheader("Server") == "sowboard"
    assert json.loads(response.read()) == link.get_status()
    conn.close()


def test_event_stream_is_not_buffered(server: WebServer, link: FakeLink) -> None:
    conn = connect(server)
    conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/event-stream; charset=utf-8"

    def chunks() -> Iterator[bytes]:
        while True:
            line = response.readline()
            if not line:
                return
            yield line

    reader = EventReader(chunks())
    assert reader.next_event(timeout=5).json()["version"] == 0
    started = time.monotonic()
    link.command("sim_move", {"pit": 2})
    pushed = reader.next_event(timeout=5).json()

    assert pushed["version"] == 1
    assert time.monotonic() - started < 1.0
    conn.close()


def test_stop_ends_open_streams_quickly(app: Flask) -> None:
    server = WebServer(app, "127.0.0.1", 0).start()
    conn = connect(server)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    assert response.readline().startswith(b"retry:")

    started = time.monotonic()
    server.stop()

    assert time.monotonic() - started < 3.0
    conn.close()


def test_a_closed_page_gives_its_stream_slot_back(link: FakeLink) -> None:
    # One stream slot; heartbeats every 0.3 s show the server the page has gone.
    app = create_app(link, {**TEST_CONFIG, "SSE_MAX_STREAMS": 1})
    with WebServer(app, "127.0.0.1", 0) as server:
        first = connect(server)
        first.request("GET", "/api/events")
        page = first.getresponse()  # (held: the response holds the socket open)
        assert page.status == 200
        second = connect(server)
        second.request("GET", "/api/events")
        assert second.getresponse().status == 503
        second.close()
        page.close()
        first.close()

        deadline = time.monotonic() + 5
        status = 503
        while status == 503 and time.monotonic() < deadline:
            time.sleep(0.2)
            again = connect(server)
            again.request("GET", "/api/events")
            status = again.getresponse().status
            again.close()

    assert status == 200


def test_a_closed_page_is_noticed_long_before_the_next_heartbeat(link: FakeLink) -> None:
    """With the heartbeat of a real board (15 s) a closed page kept its slot 35-40 s: the
    slot is now free within a poll of the link (SSE_POLL_S) and a turn of the server."""
    config = {**TEST_CONFIG, "SSE_MAX_STREAMS": 1, "SSE_HEARTBEAT_S": 60.0, "SSE_POLL_S": 0.2}
    app = create_app(link, config)
    with WebServer(app, "127.0.0.1", 0) as server:
        first = connect(server)
        first.request("GET", "/api/events")
        response = first.getresponse()
        assert response.status == 200
        assert response.readline().startswith(b"retry:")
        response.close()  # (the response holds the socket open too)
        first.close()
        closed = time.monotonic()

        status = 503
        while status == 503 and time.monotonic() - closed < 5:
            time.sleep(0.1)
            again = connect(server)
            again.request("GET", "/api/events")
            status = again.getresponse().status
            again.close()
        freed_after = time.monotonic() - closed

    assert status == 200
    assert freed_after < 3.0


def test_a_body_over_the_limit_is_refused_before_it_is_read(link: FakeLink) -> None:
    """waitress itself answers 413: it would otherwise buffer the whole body (up to 1 GB)."""
    app = create_app(link, {**TEST_CONFIG, "MAX_CONTENT_LENGTH": 1000})
    with WebServer(app, "127.0.0.1", 0) as server:
        server_obj = server.server
        assert server_obj.adj.max_request_body_size == 1000
        conn = connect(server)
        conn.request(
            "POST",
            "/api/sim/move",
            body=b"x" * 5000,
            headers={"Content-Type": "application/json"},
        )
        assert conn.getresponse().status == 413
        conn.close()
