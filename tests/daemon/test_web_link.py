"""The status page's API on the REAL daemon link (the web tests use a fake one): the loop runs
in its own thread as in `sowboard run`, on the simulated board at 20x real time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.daemon.config import load_config
from controller.daemon.loop import BoardLoop
from controller.daemon.run import Daemon, make_app
from tests.daemon.conftest import make_config
from tests.web.sse import EventReader

PIN = "2468"


@pytest.fixture
def running(tmp_path: Path) -> Iterator[BoardLoop]:
    config = make_config(tmp_path, web={"admin_pin": PIN})
    messages: list[str] = []
    loop = BoardLoop(config, speed=20.0, out=messages.append).start()
    yield loop
    loop.stop()
    assert not loop.running


@pytest.fixture
def app(running: BoardLoop) -> Flask:
    return make_app(running, running.config, TESTING=True, SSE_HEARTBEAT_S=0.3, SSE_POLL_S=0.05)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def wait_for(loop: BoardLoop, check: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The first snapshot for which `check(status)` holds (waiting on the link, as SSE does)."""
    end = time.monotonic() + timeout
    status = loop.link.get_status()
    while not check(status):
        left = end - time.monotonic()
        assert left > 0, f"timed out; last status: {status.get('game')}"
        status = loop.link.wait_for_change(status["version"], left) or status
    return status


def playing(status: dict[str, Any]) -> bool:
    return (
        status.get("daemon", {}).get("state") == "playing"
        and not status["daemon"]["sim_busy"]
        and status["game"]["phase"] == "start"
    )


def test_the_page_reads_the_board_and_a_visitor_plays_a_move(
    client: FlaskClient, running: BoardLoop
) -> None:
    wait_for(running, playing)
    state = client.get("/api/state").get_json()
    assert state["sim"] is True
    assert state["board"]["name"] == "congkak7"
    assert state["game"]["position"]["pits"] == [[7] * 7, [7] * 7]
    assert len(state["sensors"]) == 16
    assert state["sensors"][0]["grams"] == pytest.approx(38, abs=5)  # 7 seeds of 5.4 g
    assert state["published_at"] == pytest.approx(time.time(), abs=5)

    response = client.post("/api/sim/move", json={"pit": 3})
    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "result": {"played": 3, "player": 0}}
    busy = client.post("/api/sim/move", json={"pit": 4})
    assert busy.status_code == 409
    assert busy.get_json()["field"] == "command"

    status = wait_for(running, lambda s: playing(s) and len(s["game"]["history"]) == 1)
    state = client.get("/api/state").get_json()
    assert state["game"]["history"] == [{"ply": 1, "player": 0, "pit": 3}]
    assert state["game"]["position"] == status["game"]["position"]
    record = client.get("/api/record")
    assert record.get_json() == {"variant": "congkak", "options": {}, "moves": [3]}


def test_a_move_the_rules_forbid_is_refused_with_its_field(
    client: FlaskClient, running: BoardLoop
) -> None:
    wait_for(running, playing)
    client.post("/api/sim/move", json={"pit": 3})
    wait_for(running, lambda s: playing(s) and len(s["game"]["history"]) == 1)
    mover = running.link.get_status()["game"]["position"]["to_move"]
    empty = running.link.get_status()["game"]["position"]["pits"][mover].index(0)
    response = client.post("/api/sim/move", json={"pit": empty})
    assert response.status_code == 400
    assert response.get_json()["field"] == "pit"
    assert "empty" in response.get_json()["error"]


def test_live_events_carry_the_move_and_the_mistake(
    client: FlaskClient, running: BoardLoop
) -> None:
    wait_for(running, playing)
    response = client.get("/api/events", buffered=False)
    with EventReader(response.response, close=response.close) as events:
        first = events.next_event().json()
        assert first["game"]["history"] == []
        assert client.post("/api/sim/mistake", json={"kind": "wrong_pit"}).status_code == 200
        kinds: set[str] = set()
        for _ in range(400):
            status = events.next_event(timeout=5).json()
            kinds |= {f["kind"] for f in status["flags"]}
            if status["game"]["history"] and not status["daemon"]["sim_busy"]:
                break
        assert "wrong_pit" in kinds
        assert len(status["game"]["history"]) == 1
        assert status["version"] > first["version"]


def test_the_admin_starts_a_new_game_and_changes_the_mode(
    client: FlaskClient, running: BoardLoop
) -> None:
    wait_for(running, playing)
    headers = {"X-Sowboard-Pin": PIN}
    response = client.post("/api/admin/mode", json={"mode": "teach"}, headers=headers)
    assert response.get_json() == {"ok": True, "result": {"mode": "teach"}}
    response = client.post("/api/admin/new_game", json={"variant": "oware"}, headers=headers)
    assert response.status_code == 200
    status = wait_for(running, lambda s: playing(s) and s["game"]["variant"] == "oware")
    assert status["mode"] == "teach"
    assert status["game"]["position"]["pits"] == [[4] * 6, [4] * 6]
    wrong = client.post("/api/admin/new_game", json={"options": {"pits": 8}}, headers=headers)
    assert wrong.status_code == 400
    assert wrong.get_json()["field"] == "options"
    assert client.post("/api/admin/undo", json={}, headers=headers).status_code == 409


def test_sowboard_record_asks_the_running_daemon_over_http(tmp_path: Path) -> None:
    """`sowboard record` posts to the admin API with the configuration's PIN and waits until
    the recording is written."""
    import socket
    import threading

    from werkzeug.serving import make_server

    from controller.daemon.tools import RecordError, record
    from controller.sensing.recording import load_recording

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = make_config(tmp_path, web={"admin_pin": PIN, "port": port})
    loop = BoardLoop(config, speed=20.0, out=lambda text: None).start()
    server = make_server("127.0.0.1", port, make_app(loop, config), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        wait_for(loop, playing)
        path = record(config, seconds=2.0)
        recording = load_recording(path)
        assert recording.header["reason"] == "cli" and Path(path).parent == tmp_path / "recordings"
        wrong = make_config(tmp_path, web={"admin_pin": "1357", "port": port})
        with pytest.raises(RecordError, match="the daemon refused: wrong PIN"):
            record(wrong, seconds=2.0)
        with pytest.raises(RecordError, match=r"web\.admin_pin is empty"):
            record(make_config(tmp_path, web={"port": port}), seconds=2.0)
    finally:
        server.shutdown()
        loop.stop()
    with pytest.raises(RecordError, match=r"no daemon answers at http://127\.0\.0\.1"):
        record(config, seconds=2.0)


@pytest.mark.parametrize(
    ("host", "pin", "warned"), [("0.0.0.0", None, True), ("0.0.0.0", PIN, False)]
)
def test_serving_the_network_without_a_pin_is_warned_of(
    tmp_path: Path, host: str, pin: str | None, warned: bool
) -> None:
    config = make_config(tmp_path, web={"host": host, "admin_pin": pin or ""})
    messages: list[str] = []
    loop = BoardLoop(config, speed=None, out=messages.append)
    try:
        make_app(loop, config)
    finally:
        loop.stop()

    warnings = [m for m in messages if m.startswith("warning:")]
    assert bool(warnings) is warned
    if warned:
        assert "web.host = '0.0.0.0'" in warnings[0] and "set web.admin_pin" in warnings[0]


def test_a_reload_takes_a_new_pin_and_ends_the_old_sessions(tmp_path: Path) -> None:
    """`systemctl reload` (SIGHUP) after a leaked PIN was changed in the file: the game goes
    on, the old PIN and every session it opened are refused."""
    path = tmp_path / "config.toml"
    path.write_text(f'[web]\nport = 0\nadmin_pin = "{PIN}"\n[data]\ndir = "{tmp_path}"\n')
    messages: list[str] = []
    daemon = Daemon(load_config(path, explicit=True), out=messages.append).start()
    try:
        client = daemon.app.test_client()
        login = client.post("/api/admin/login", json={"pin": PIN})
        token = {"X-CSRF-Token": login.get_json()["csrf"]}
        assert (
            client.post("/api/admin/mode", json={"mode": "play"}, headers=token).status_code == 200
        )

        path.write_text(path.read_text().replace(PIN, "97531"))
        daemon.reload_pin()

        refused = client.post("/api/admin/mode", json={"mode": "play"}, headers=token)
        assert (refused.status_code, refused.get_json()["field"]) == (403, "pin")
        old_pin = {"X-Sowboard-Pin": PIN}
        assert (
            client.post("/api/admin/mode", json={"mode": "play"}, headers=old_pin).status_code
            == 403
        )
        new_pin = {"X-Sowboard-Pin": "97531"}
        assert (
            client.post("/api/admin/mode", json={"mode": "play"}, headers=new_pin).status_code
            == 200
        )
        assert "reload: a new web.admin_pin; every admin session has ended" in messages
        assert daemon.loop.running
    finally:
        daemon.stop()


def test_a_reload_says_what_it_does_not_take(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[web]\nport = 0\nadmin_pin = "{PIN}"\n[data]\ndir = "{tmp_path}"\n')
    messages: list[str] = []
    daemon = Daemon(load_config(path, explicit=True), out=messages.append)
    try:
        path.write_text(path.read_text() + "[leds]\nbrightness = 0.2\n")
        daemon.reload_pin()
        path.write_text("[leds]\nbrightness = 7\n")
        daemon.reload_pin()
    finally:
        daemon.start().stop()

    reloads = [m for m in messages if m.startswith("reload:")]
    assert reloads[0] == (
        "reload: only web.admin_pin is taken now; the other changes need a restart"
    )
    assert reloads[1] == "reload: web.admin_pin is unchanged"
    assert "leds.brightness = 7 is out of range" in reloads[2]
    assert reloads[2].endswith("the admin PIN stays as it was")
    assert daemon.config.web.admin_pin == PIN


def test_the_page_is_served_only_once_the_loop_has_published(tmp_path: Path) -> None:
    """A busy machine's first request got `{"version": 0}`, without game or daemon sections."""
    daemon = Daemon(make_config(tmp_path / "data", web={"port": 0}), out=lambda text: None)
    served_at: list[int] = []
    start_server = daemon.server.start

    def start() -> Any:
        served_at.append(daemon.loop.link.version)
        return start_server()

    daemon.server.start = start  # type: ignore[method-assign]
    daemon.start()
    try:
        assert served_at and served_at[0] > 0
        assert "daemon" in daemon.loop.link.get_status()
    finally:
        daemon.stop()
