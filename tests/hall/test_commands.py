"""Commands over MQTT (issue 16, build 2) through a real Mosquitto: only when enabled, with
the admin PIN (or the broker's ACL), the web API's checks, answers on the reply topic."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import ConfigError
from controller.daemon.mqtt import connect, paho_client
from controller.daemon.mqttconfig import MqttSettings
from controller.hall.broker import Mosquitto
from tests.daemon.conftest import Board, make_config
from tests.hall.conftest import wait_for

PIN = "2468"


class Commander:
    """A client that sends commands to board b1 and reads its answers."""

    def __init__(self, url: str) -> None:
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.client = paho_client(MqttSettings(url=url, board_id="x"), "commander")
        self.client.on_connect = lambda c, *_: c.subscribe("sowboard/b1/command/reply", qos=1)
        self.client.on_message = lambda c, u, m: self.answers.put(json.loads(m.payload))
        self.client.on_subscribe = lambda *_: self.subscribed.put(True)
        self.subscribed: queue.Queue[bool] = queue.Queue()
        connect(self.client, MqttSettings(url=url))
        self.subscribed.get(timeout=10)

    def send(self, body: Any, *, retain: bool = False) -> None:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        # Until the broker acknowledged it: a board subscribing after `send` returned must find
        # it stored (a retained publish still on its way reaches that board live, retain=0).
        self.client.publish("sowboard/b1/command", payload, qos=1, retain=retain).wait_for_publish(
            10
        )

    def answer(self, board: Board, seconds: float = 10.0) -> dict[str, Any]:
        """The next answer, while the board's loop runs (it carries the command out)."""
        got: list[dict[str, Any]] = []

        def arrived() -> bool:
            try:
                got.append(self.answers.get_nowait())
            except queue.Empty:
                return False
            return True

        # In real time: the answer comes through the broker, while the loop here never sleeps
        # and its simulated time races ahead of it on a busy machine.
        board.wait(arrived, wall_s=seconds)
        return got[0]

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _run_for(board: Board, wall_s: float) -> None:
    """Let the loop run for `wall_s` of real time: long enough for a command that would be
    carried out to arrive through the broker (what is checked is that it is not)."""
    end = time.monotonic() + wall_s
    while time.monotonic() < end:
        board.loop.iterate()


@pytest.fixture
def commander(broker: Mosquitto) -> Iterator[Commander]:
    sender = Commander(broker.url)
    yield sender
    sender.stop()


def board_with(tmp_path: Path, url: str, commands: str, **mqtt: Any) -> Board:
    board = Board(
        make_config(
            tmp_path,
            mqtt={"url": url, "board_id": "b1", "commands": commands, **mqtt},
            web={"admin_pin": PIN},
        )
    )
    board.ready()
    # Subscribed, not only connected: a command sent before the broker acknowledged the
    # subscription is lost, and its answer waited for in vain.
    wait_for(lambda: board.loop.mqtt and board.loop.mqtt.connection.listening)
    return board


def test_with_the_pin_a_command_is_carried_out_and_answered(
    tmp_path: Path, broker: Mosquitto, commander: Commander
) -> None:
    board = board_with(tmp_path, broker.url, "pin")
    try:
        commander.send({"id": "a1", "command": "mode", "args": {"mode": "teach"}, "pin": PIN})
        assert commander.answer(board) == {"id": "a1", "ok": True, "result": {"mode": "teach"}}
        board.run(0.2)
        assert board.status()["mode"] == "teach"
        board.play(0)
        commander.send({"id": "a2", "command": "undo", "pin": PIN})
        answer = commander.answer(board)
        assert answer["ok"] is True and answer["result"]["moves"] == 0
        commander.send(
            {"id": "a3", "command": "new_game", "args": {"variant": "kalah"}, "pin": PIN}
        )
        assert commander.answer(board)["result"]["variant"] == "kalah"
        # The same id again (QoS 1 may deliver twice): not carried out twice.
        commander.send(
            {"id": "a3", "command": "new_game", "args": {"variant": "kalah"}, "pin": PIN}
        )
        assert commander.answer(board)["status"] == 409
    finally:
        board.stop()


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"command": "mode", "args": {"mode": "teach"}, "pin": "1111"}, 403, "pin"),
        ({"command": "mode", "args": {"mode": "teach"}}, 403, "pin"),
        ({"command": "mode", "args": {"mode": "dance"}, "pin": PIN}, 400, "mode"),
        ({"command": "mode", "args": {"mode": "teach", "x": 1}, "pin": PIN}, 400, "x"),
        ({"command": "calibrate", "args": {"stage": "empty"}, "pin": PIN}, 400, "command"),
        ({"command": "sim_move", "args": {"pit": 1}, "pin": PIN}, 400, "command"),
        ({"command": "mode", "args": [], "pin": PIN}, 400, "args"),
        ({"command": "mode", "pin": PIN, "sudo": True}, 400, "sudo"),
        (b"\xff not json", 400, "body"),
        (b"[" * 5000, 413, "body"),
        ({"command": "new_game", "args": {"variant": "chess"}, "pin": PIN}, 409, "variant"),
    ],
)
def test_what_is_refused_is_answered_and_not_done(
    tmp_path: Path,
    broker: Mosquitto,
    commander: Commander,
    body: Any,
    status: int,
    field: str,
) -> None:
    board = board_with(tmp_path, broker.url, "pin")
    try:
        before = board.status()
        commander.send(body)
        answer = commander.answer(board)
        assert (answer["ok"], answer["status"], answer["field"]) == (False, status, field)
        board.run(0.2)
        after = board.status()
        assert (after["mode"], after["game"]["variant"]) == (
            before["mode"],
            before["game"]["variant"],
        )
    finally:
        board.stop()


def test_wrong_pins_lock_mqtt_out_and_a_retained_command_is_never_run(
    tmp_path: Path, broker: Mosquitto, commander: Commander
) -> None:
    board = board_with(tmp_path, broker.url, "pin")
    try:
        board.loop.mqtt.commands.guard.fail_delay_s = 0.0  # type: ignore[union-attr]
        statuses = []
        for _ in range(6):
            commander.send({"command": "mode", "args": {"mode": "demo"}, "pin": "0000"})
            statuses.append(commander.answer(board)["status"])
        assert statuses == [403, 403, 403, 403, 429, 429]
        commander.send({"command": "mode", "args": {"mode": "demo"}, "pin": PIN})
        assert commander.answer(board)["status"] == 429  # (locked out: even the right one)
    finally:
        board.stop()
    # A command left retained on the broker reaches a board that subscribes later as the
    # broker's stored copy: it is not run (else it would run at every reconnect).
    commander.send({"command": "mode", "args": {"mode": "demo"}, "pin": PIN}, retain=True)
    board = board_with(tmp_path / "second", broker.url, "pin")
    try:
        _run_for(board, 1.0)
        assert commander.answers.empty() and board.status()["mode"] == "play"
    finally:
        board.stop()


def test_off_by_default_nothing_listens(
    tmp_path: Path, broker: Mosquitto, commander: Commander
) -> None:
    board = Board(make_config(tmp_path, mqtt={"url": broker.url, "board_id": "b1"}))
    try:
        board.ready()
        wait_for(lambda: board.loop.mqtt and board.loop.mqtt.get_status()["connected"])
        assert board.loop.mqtt is not None and board.loop.mqtt.commands is None
        commander.send({"command": "mode", "args": {"mode": "demo"}, "pin": PIN})
        _run_for(board, 1.0)
        assert commander.answers.empty() and board.status()["mode"] == "play"
    finally:
        board.stop()


def test_acl_mode_takes_no_pin(tmp_path: Path, broker: Mosquitto, commander: Commander) -> None:
    board = board_with(tmp_path, broker.url, "acl", user="b1")
    try:
        commander.send({"command": "mode", "args": {"mode": "teach"}})
        assert commander.answer(board)["ok"] is True
    finally:
        board.stop()


def test_the_configuration_says_what_commands_need(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r'mqtt.commands = "pin" needs web.admin_pin'):
        make_config(tmp_path, mqtt={"url": "mqtt://h", "commands": "pin"})
    with pytest.raises(ConfigError, match=r'mqtt.commands = "acl" needs mqtt.user'):
        make_config(tmp_path, mqtt={"url": "mqtt://h", "commands": "acl"})
    with pytest.raises(ConfigError, match=r"allowed: \"off\", \"pin\", \"acl\""):
        make_config(tmp_path, mqtt={"url": "mqtt://h", "commands": "yes"})
