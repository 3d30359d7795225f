"""Commands to the board over MQTT (issue 16, build 2): new game, mode, undo; off by default.

`[mqtt] commands = "pin"`: a command carries the admin PIN (`web.admin_pin`), checked by the
same guard as the web API's (5 wrong PINs lock MQTT out for a minute). `commands = "acl"`:
the broker decides who may publish to the board's command topic (docs/hall.md has the ACL);
no PIN. Either way the arguments go through the web API's own checks (web_ui/validate.py)
and then the loop's, through the same `LoopLink.command`.

A command is JSON on `<prefix>/<board id>/command`:

    {"id": "t-17", "command": "mode", "args": {"mode": "teach"}, "pin": "2468"}

and the answer comes on `.../command/reply`:

    {"id": "t-17", "ok": true, "result": {"mode": "teach"}}
    {"id": "t-18", "ok": false, "status": 403, "error": "wrong PIN", "field": "pin"}

Retained commands are ignored (a stale "new game" must not run at every reconnect), and so is
a command whose `id` was carried out a moment ago (QoS 1 may deliver twice). paho's thread
only queues a command (at most QUEUE_MAX waiting; more are answered "busy"); a worker thread
checks and carries them out, because a wrong PIN's delay and the loop's answer take time.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any

from .link import CommandError, DaemonLink

ALLOWED = ("new_game", "undo", "mode")
MAX_BYTES = 4096
QUEUE_MAX = 16
IDS_KEPT = 64
CLIENT = "mqtt"  # the PIN guard's name for every MQTT sender (the broker hides who it was)


class Rejected(Exception):
    def __init__(self, status: int, message: str, field: str | None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


class MqttCommands:
    def __init__(
        self, mode: str, pin: str | None, link: DaemonLink, reply: Callable[[dict[str, Any]], None]
    ) -> None:
        from web_ui.security import PinGuard

        self.mode = mode
        self.guard = PinGuard(pin)
        self.link = link
        self.reply = reply
        self._queue: queue.Queue[bytes | None] = queue.Queue(QUEUE_MAX)
        self._done: deque[str] = deque(maxlen=IDS_KEPT)
        self.carried_out = 0
        self.refused = 0
        self._thread = threading.Thread(target=self._work, name="sowboard-mqtt-cmd", daemon=True)
        self._thread.start()

    def replace_pin(self, pin: str | None) -> None:
        self.guard.replace(pin)

    def receive(self, payload: bytes, retained: bool) -> None:
        """paho's thread: queue it (never wait)."""
        if retained:
            return
        try:
            self._queue.put_nowait(payload)
        except queue.Full:
            self.refused += 1
            self.reply({"id": None, "ok": False, "status": 503, "error": "busy", "field": None})

    def close(self) -> None:
        with contextlib.suppress(queue.Full):  # (full: the thread is a daemon, left behind)
            self._queue.put_nowait(None)
        self._thread.join(2.0)

    def _work(self) -> None:
        while (payload := self._queue.get()) is not None:
            try:
                answer = self.handle(payload)
            except Exception as err:  # answered, and the worker goes on to the next command
                traceback.print_exc()
                self.refused += 1
                answer = {"id": None, "ok": False, "status": 500, "field": None,
                          "error": f"internal error: {err}"}  # fmt: skip
            self.reply(answer)

    def handle(self, payload: bytes) -> dict[str, Any]:
        """One command: its answer."""
        ident: str | None = None
        try:
            body = _body(payload)
            ident = _ident(body.get("id"))
            if ident is not None and ident in self._done:
                return {
                    "id": ident,
                    "ok": False,
                    "status": 409,
                    "error": "done already",
                    "field": "id",
                }
            name, args = self._check(body)
            result = self.link.command(name, args)
        except Rejected as err:
            self.refused += 1
            return {
                "id": ident,
                "ok": False,
                "status": err.status,
                "error": err.message,
                "field": err.field,
            }
        except CommandError as err:
            self.refused += 1
            return {
                "id": ident,
                "ok": False,
                "status": 409,
                "error": err.message,
                "field": err.field,
            }
        if ident is not None:
            self._done.append(ident)
        self.carried_out += 1
        return {"id": ident, "ok": True, "result": result}

    def _check(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        from web_ui import validate
        from web_ui.validate import ApiError

        extra = sorted(set(body) - {"id", "command", "args", "pin"})
        if extra:
            raise Rejected(
                400, f"{extra[0]}: unknown field (allowed: id, command, args, pin)", extra[0]
            )
        name = body.get("command")
        if name not in ALLOWED:
            raise Rejected(
                400, f"command: {name!r} is not allowed, allowed: {', '.join(ALLOWED)}", "command"
            )
        args = body.get("args", {})
        if not isinstance(args, dict):
            raise Rejected(400, "args: expected an object", "args")
        check = {"new_game": validate.new_game_args, "undo": validate.undo_args}.get(
            name, validate.mode_args
        )
        try:
            clean = check(args)
            if self.mode == "pin":
                self.guard.check(CLIENT, _pin(body.get("pin")))
        except ApiError as err:
            raise Rejected(err.status, err.message, err.field) from None
        return name, clean


def _body(payload: bytes) -> dict[str, Any]:
    from web_ui.validate import check_nesting, check_text

    if len(payload) > MAX_BYTES:
        raise Rejected(413, f"a command is at most {MAX_BYTES} bytes", "body")
    try:
        text = payload.decode("utf-8")
        check_nesting(text)
        body = json.loads(text)
        check_text(body)  # a lone surrogate ("\ud800") failed in the PIN check, as on the web
    except (UnicodeDecodeError, ValueError) as err:
        raise Rejected(400, f"expected a JSON object ({err})", "body") from None
    if not isinstance(body, dict):
        raise Rejected(400, "expected a JSON object", "body")
    return body


def _ident(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 64:
        raise Rejected(400, "id: expected a string of 1 to 64 characters", "id")
    return value


def _pin(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value or len(value) > 128:
        raise Rejected(403, "pin: the admin PIN is needed (a string)", "pin")
    return value
