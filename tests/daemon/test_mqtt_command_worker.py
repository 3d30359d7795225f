"""The MQTT command worker answers every command, whatever it holds, and never dies: one that
killed its thread left every later command unanswered (queued, then "busy") with nothing on
the page."""

from __future__ import annotations

import json
import queue
from typing import Any, cast

import pytest

from controller.daemon.link import DaemonLink
from controller.daemon.mqttcommands import MqttCommands


class Link:
    def __init__(self, fail: Exception | None = None) -> None:
        self.fail = fail
        self.done: list[str] = []

    def command(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if self.fail is not None:
            raise self.fail
        self.done.append(name)
        return {"mode": args.get("mode")}


def commands(link: Link) -> tuple[MqttCommands, queue.Queue[dict[str, Any]]]:
    answers: queue.Queue[dict[str, Any]] = queue.Queue()
    worker = MqttCommands("pin", "2468", cast(DaemonLink, link), answers.put)
    worker.guard.fail_delay_s = 0.0
    return worker, answers


GOOD = {"id": "good", "command": "mode", "args": {"mode": "teach"}, "pin": "2468"}


@pytest.mark.parametrize(
    "payload",
    [
        # a lone surrogate in the PIN: its encoding failed inside the PIN check
        b'{"id": "a", "command": "mode", "args": {"mode": "teach"}, "pin": "\\ud800"}',
        b'{"id": "a\\udfff", "command": "mode", "args": {"mode": "teach"}, "pin": "2468"}',
    ],
)
def test_a_lone_surrogate_is_refused_and_the_next_command_is_carried_out(payload: bytes) -> None:
    link = Link()
    worker, answers = commands(link)
    try:
        worker.receive(payload, retained=False)
        worker.receive(json.dumps(GOOD).encode(), retained=False)
        first, second = answers.get(timeout=5), answers.get(timeout=5)
    finally:
        worker.close()

    assert first["ok"] is False and first["status"] == 400
    assert second == {"id": "good", "ok": True, "result": {"mode": "teach"}}
    assert link.done == ["mode"]


def test_an_unexpected_failure_is_answered_and_the_worker_goes_on() -> None:
    link = Link(fail=RuntimeError("the loop broke"))
    worker, answers = commands(link)
    try:
        worker.receive(json.dumps(GOOD).encode(), retained=False)
        first = answers.get(timeout=5)
        link.fail = None
        worker.receive(json.dumps(GOOD | {"id": "again"}).encode(), retained=False)
        second = answers.get(timeout=5)
    finally:
        worker.close()

    assert first["ok"] is False and first["status"] == 500
    assert "the loop broke" in first["error"]
    assert second["ok"] is True
