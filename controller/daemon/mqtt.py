"""The board's side of the hall (issue 16): what it publishes to an MQTT broker, and how.

The loop never waits for the broker. It puts messages in an `Outbox` (a bounded queue under
a lock held for a deque operation, nothing more); a sender thread hands them to paho-mqtt,
whose own network thread does every socket operation, the reconnects (every
`mqtt.reconnect_s`) and the TLS. While the broker is away or slow the outbox fills; when it
is full its oldest event is dropped and counted (the page and the status show the count).
The retained status is one slot, not a queue entry: a newer one replaces it, and after every
(re)connect it is published again, so the broker's copy is current within a status of the
broker's return.

Topics (`<prefix>/<board id>/...`, prefix `sowboard`):

- `availability`: "online" / "offline", retained; "offline" is also the last will, so the
  broker tells the hall when a board vanishes without a word.
- `status`: retained JSON (`BoardBroadcast.status`): the position, who is to move, where the
  next step goes, the active flags, the mode, the board's health (the daemon section's
  state, faults, loop lag, what the loop lost by falling behind, and its warning notices:
  an exhibit's kiosk shows no notices, so its operator learns of them in the hall) and its
  MQTT figures. Published when any of it changes (a new warning too), and every HEARTBEAT_S
  for the figures that change always.
- `event/move`, `event/undo`, `event/flag`: one JSON object an event, with `seq` (1, 2, ... in
  this daemon's life, all topics together: a gap is an event lost) and `t` (wall clock when
  the loop saw it).
- `record`: a finished game's record (RULES.md section 5) with its winner.

Every message is QoS 1 (paho sends it again after a reconnect until the broker acknowledges).
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .link import DaemonLink
from .mqttcommands import MqttCommands
from .mqttconfig import MqttSettings, parse_broker_url
from .status import FlagStatus, HistoryEntry, MqttStatus, Status

HEARTBEAT_S = 5.0  # the status again (fresh loop lag and drops) at least this often
HALL_WARNINGS = 10  # the newest warning notices in the status (the hall keeps 64 KiB a status)
WARNING_CHARS = 500  # and of each one's text at most this much (a notice quotes errors)
PAHO_QUEUE = 100  # messages handed to paho and not yet acknowledged, at most
SEND_WAIT_S = 0.5  # the sender's longest wait (how soon it notices a stop)
CLOSE_WAIT_S = 1.0  # how long a stop waits for "offline" to reach the broker
CONNECT_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    retain: bool = False


class Outbox:
    """Messages from the loop to the sender thread: bounded, and never blocking the loop."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._events: deque[Message] = deque()
        self._status: Message | None = None
        self._status_due = False
        self._cond = threading.Condition()
        self.open = False  # connected: the sender may send
        self.closed = False
        self.dropped = 0

    def put(self, message: Message) -> None:
        """An event (the loop's thread); when full the oldest one is dropped and counted."""
        with self._cond:
            if len(self._events) >= self.limit:
                self._events.popleft()
                self.dropped += 1
            self._events.append(message)
            self._cond.notify()

    def put_status(self, message: Message) -> None:
        """The retained status: replaces one not yet sent."""
        with self._cond:
            self._status = message
            self._status_due = True
            self._cond.notify()

    def set_open(self, is_open: bool) -> None:
        """Connected (the status is due again: the broker may have lost it) or not."""
        with self._cond:
            self.open = is_open
            self._status_due = self._status_due or (is_open and self._status is not None)
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def take(self, timeout: float) -> Message | None:
        """The next message to send (the status first), waiting while there is none or the
        broker is away; None after `timeout` or once closed."""
        with self._cond:
            ready = self._cond.wait_for(
                lambda: self.closed or (self.open and (self._status_due or bool(self._events))),
                timeout,
            )
            if not ready or self.closed:
                return None
            if self._status_due and self._status is not None:
                self._status_due = False
                return self._status
            return self._events.popleft()

    def put_back(self, message: Message) -> None:
        """A message paho could not take yet: first in line again."""
        with self._cond:
            if not message.retain:
                self._events.appendleft(message)
            elif message is self._status:  # (a newer status is due already)
                self._status_due = True

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def count_drop(self) -> None:
        with self._cond:
            self.dropped += 1

    @property
    def queued(self) -> int:
        return len(self._events)


def _failed_callbacks(out: Callable[[str], None]) -> Callable[..., None]:
    def on_log(client: Any, userdata: Any, level: int, text: str) -> None:
        if "exception" in text.lower():
            out(f"mqtt: {text}")

    return on_log


def paho_client(
    settings: MqttSettings,
    client_id: str,
    *,
    persistent: bool = False,
    out: Callable[[str], None] = print,
) -> Any:
    """A paho client with the settings' credentials, TLS and reconnect pace (not connected).
    `persistent`: the broker keeps the client's subscriptions and queues its messages while it
    is away (MQTT's clean_session=False; the client id must then be stable)."""
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    client = paho.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        protocol=paho.MQTTv311,
        clean_session=not persistent,
    )
    client.reconnect_delay_set(settings.reconnect_s, settings.reconnect_s)
    client.connect_timeout = CONNECT_TIMEOUT_S
    # A callback that fails is told, and the network thread goes on (and reconnects): by
    # default paho would let the exception end the thread, and the broker be lost for good.
    # (paho's other errors, e.g. one a second while the broker is away, are not told.)
    client.suppress_exceptions = True
    client.on_log = _failed_callbacks(out)
    if settings.user:
        client.username_pw_set(settings.user, settings.password or None)
    if settings.tls:
        client.tls_set(
            ca_certs=settings.ca_file or None,
            certfile=settings.cert_file or None,
            keyfile=settings.key_file or None,
        )
        client.tls_insecure_set(settings.tls_insecure)
    return client


def connect_failure() -> str:
    """What paho's failed connection attempt raised (its on_connect_fail is called inside
    the `except`), e.g. a refused connection or a certificate that does not verify."""
    err = sys.exc_info()[1]
    return "cannot reach the broker" + (f": {err}" if err else "") + " (trying again)"


def connect(client: Any, settings: MqttSettings) -> None:
    """Connect in paho's own thread (the name lookup too), which reconnects by itself."""
    _scheme, host, port = parse_broker_url(settings.url)
    client.connect_async(host, port, keepalive=settings.keepalive_s)
    client.loop_start()


class MqttConnection:
    """paho's client, its network thread, and the sender thread that feeds it."""

    def __init__(self, settings: MqttSettings, out: Callable[[str], None]) -> None:
        import paho.mqtt.client as paho

        self.settings = settings
        self.out = out
        self.outbox = Outbox(settings.queue)
        self.connected = False
        # Commands can arrive only once the broker has acknowledged the subscription, which
        # comes after the connection: until then a command published is lost (QoS 1 or not).
        self.listening = False
        self.connects = 0
        self.sent = 0
        self.error: str | None = None
        self._paho = paho
        client = paho_client(settings, f"sowboard-{settings.board_id}", out=out)
        client.max_queued_messages_set(PAHO_QUEUE)
        client.will_set(settings.topic("availability"), "offline", qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        self.client = client
        self.commands: MqttCommands | None = None  # (set when [mqtt] commands is on)
        self._sender = threading.Thread(target=self._send, name="sowboard-mqtt", daemon=True)

    def start(self) -> MqttConnection:
        connect(self.client, self.settings)
        self._sender.start()
        return self

    # -- paho's network thread --------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.error = f"refused: {reason}"
            return
        self.connected = True
        self.connects += 1
        self.error = None
        client.publish(self.settings.topic("availability"), "online", qos=1, retain=True)
        if self.commands is not None:
            client.subscribe(self.settings.topic("command"), qos=1)
        self.outbox.set_open(True)

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        self.listening = not any(reason.is_failure for reason in reasons)

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if self.connected and not self.outbox.closed:
            self.error = f"connection lost: {reason}"
        self.connected = self.listening = False
        self.outbox.set_open(False)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if self.commands is not None and message.topic == self.settings.topic("command"):
            self.commands.receive(message.payload, bool(message.retain))

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self.error = connect_failure()

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        self.sent += 1
        self.outbox.wake()  # room in paho's queue again

    # -- the sender thread ------------------------------------------------------------------------

    def _send(self) -> None:
        paho = self._paho
        while not self.outbox.closed:
            message = self.outbox.take(SEND_WAIT_S)
            if message is None:
                continue
            try:
                info = self.client.publish(
                    message.topic, message.payload, qos=1, retain=message.retain
                )
            except Exception as err:  # (a message paho refuses is told and dropped, counted)
                self.outbox.count_drop()
                self.out(f"mqtt: not sent to {message.topic}: {err}")
                continue
            if info.rc == paho.MQTT_ERR_QUEUE_SIZE:  # paho holds PAHO_QUEUE already: wait
                self.outbox.put_back(message)
                time.sleep(0.01)

    # -- the loop's side --------------------------------------------------------------------------

    def get_status(self) -> MqttStatus:
        return {
            "url": self.settings.url,
            "board_id": self.settings.board_id,
            "connected": self.connected,
            "dropped": self.outbox.dropped,
            "connects": self.connects,
            "error": self.error,
        }

    def close(self) -> None:
        """Say "offline" (when connected, waiting at most CLOSE_WAIT_S) and disconnect."""
        self.outbox.close()
        if self.connected:
            info = self.client.publish(
                self.settings.topic("availability"), "offline", qos=1, retain=True
            )
            with contextlib.suppress(RuntimeError, ValueError):  # (lost meanwhile)
                info.wait_for_publish(CLOSE_WAIT_S)
        self.client.disconnect()
        self.client.loop_stop()
        if self._sender.is_alive():
            self._sender.join(SEND_WAIT_S * 2)


class BoardBroadcast:
    """The loop's side: each published snapshot becomes the messages the hall hears.

    Moves are told from the game's history (a longer one: moves; a shorter one: an undo or a
    new game), flags from their ids and whether they are active, a finished game from its
    position. The history and flags the daemon starts with are not events (they happened
    before); the status tells them.
    """

    def __init__(self, settings: MqttSettings, outbox: Outbox, figures: Callable[[], Any]) -> None:
        self.settings = settings
        self.outbox = outbox
        self.figures = figures  # the connection's MqttStatus (drops, connects) for the status
        self.seq = 0
        self._history: list[tuple[int, int]] | None = None
        self._flags: dict[int, bool] = {}
        self._over = False
        self._key: Any = None
        self._status_at = -1e9

    def snapshot(self, status: Status) -> None:
        """After each snapshot the loop published (the loop's thread)."""
        t = status["published_at"]
        first = self._history is None
        self._moves(t, status["game"]["history"], first)
        self._flag_events(t, status["flags"], first)
        over = bool(status["game"]["position"]["over"])
        if over and not self._over and not first:
            self._event(
                "record",
                t,
                {
                    "record": status["game"]["record"],
                    "winner": status["game"]["position"]["winner"],
                    "stores": status["game"]["position"]["stores"],
                },
            )
        self._over = over
        self._status(status)

    def _moves(self, t: float, history: list[HistoryEntry], first: bool) -> None:
        moves = [(h["player"], h["pit"]) for h in history]
        known = self._history or []
        self._history = moves
        if first:
            return
        common = 0
        while common < min(len(known), len(moves)) and known[common] == moves[common]:
            common += 1
        if common < len(known):
            self._event("event/undo", t, {"moves": common})
        for ply in range(common, len(moves)):
            player, pit = moves[ply]
            self._event("event/move", t, {"ply": ply + 1, "player": player, "pit": pit})

    def _flag_events(self, t: float, flags: list[FlagStatus], first: bool) -> None:
        seen: dict[int, bool] = {}
        for flag in flags:
            seen[flag["id"]] = flag["active"]
            if first or self._flags.get(flag["id"]) == flag["active"]:
                continue
            # (new, or put right; one raised and put right between two snapshots is new and
            # inactive: it still happened)
            self._event("event/flag", t, dict(flag))
        self._flags = seen

    def _event(self, topic: str, t: float, body: dict[str, Any]) -> None:
        self.seq += 1
        payload = {"board": self.settings.board_id, "seq": self.seq, "t": t, **body}
        self.outbox.put(Message(self.settings.topic(topic), _json(payload)))

    def _status(self, status: Status) -> None:
        game, behind = status["game"], status["daemon"]["behind"]
        key = (
            game["variant"],
            game["position"],
            game["expected"],
            game["phase"],
            [f for f in status["flags"] if f["active"]],
            status["mode"],
            status["daemon"]["state"],
            status["daemon"]["faults"],
            # Losing readings (or simulated time) in the last minute, or no longer: at once,
            # as the page's notice; the counts themselves go with the heartbeat.
            bool(behind["dropped_frames_last_minute"] or behind["skipped_s_last_minute"]),
            status["daemon"]["notices_warnings_total"],  # a new warning: at once
            status["daemon"]["notices_unacknowledged"],  # ... and the warnings read
        )
        now = time.monotonic()
        if key == self._key and now - self._status_at < HEARTBEAT_S:
            return
        self._key = key
        self._status_at = now
        self.outbox.put_status(
            Message(self.settings.topic("status"), _json(self.status(status)), retain=True)
        )

    def status(self, status: Status) -> dict[str, Any]:
        """The retained status: what the hall shows of this board."""
        game, daemon = status["game"], status["daemon"]
        return {
            "board": self.settings.board_id,
            "seq": self.seq,
            "t": status["published_at"],
            "board_name": status["board"]["name"],
            "pits": status["board"]["pits"],
            "variant": game["variant"],
            "position": game["position"],
            "hand": game["hand"],
            "expected": game["expected"],
            "expected_kind": game["expected_kind"],
            "phase": game["phase"],
            "moves": len(game["history"]),
            "last_move": game["history"][-1] if game["history"] else None,
            "flags": [f for f in status["flags"] if f["active"]],
            "mode": status["mode"],
            "sim": status["sim"],
            "health": {
                "state": daemon["state"],
                "faults": daemon["faults"],
                "lag_ms_p99": daemon["loop"]["lag_ms_p99"],
                "missed_ticks": daemon["loop"]["missed_ticks"],
                "behind": daemon["behind"],  # frames dropped, simulated time skipped
                "warnings": warnings(status),
            },
            "mqtt": self.figures(),
        }


def warnings(status: Status) -> dict[str, Any]:
    """The board's warning notices for the hall (notices.py): how many were told since the
    daemon started, how many of those kept nobody acknowledged, and the newest HALL_WARNINGS
    of them with their time, oldest first."""
    daemon = status["daemon"]
    told = [
        {
            "at": notice["at"],
            "text": _cut(notice["text"]),
            "repeats": notice["repeats"],
            "acknowledged": notice["acknowledged"],
        }
        for notice in daemon["notices"]
        if notice["level"] == "warning"
    ]
    return {
        "total": daemon["notices_warnings_total"],
        "unacknowledged": daemon["notices_unacknowledged"],
        "notices": told[-HALL_WARNINGS:],
    }


def _cut(text: str) -> str:
    return text if len(text) <= WARNING_CHARS else text[: WARNING_CHARS - 1] + "…"


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


class BoardMqtt:
    """The `[mqtt]` part of the daemon: the connection, the broadcast and the commands (when
    `commands` is on), as one component."""

    def __init__(
        self,
        settings: MqttSettings,
        out: Callable[[str], None],
        link: DaemonLink | None = None,
        pin: str | None = None,
    ) -> None:
        self.settings = settings
        self.connection = MqttConnection(settings, out)
        self.broadcast = BoardBroadcast(
            settings, self.connection.outbox, self.connection.get_status
        )
        self.commands: MqttCommands | None = None
        if settings.commands != "off" and link is not None:
            self.commands = MqttCommands(settings.commands, pin, link, self._reply)
            self.connection.commands = self.commands
        self.connection.start()
        out(f"publishing to the hall: {settings.url} as {settings.board_id!r}")

    def snapshot(self, status: Status) -> None:
        self.broadcast.snapshot(status)

    def get_status(self) -> MqttStatus:
        return self.connection.get_status()

    def _reply(self, answer: dict[str, Any]) -> None:
        self.connection.outbox.put(Message(self.settings.topic("command", "reply"), _json(answer)))

    def replace_pin(self, pin: str | None) -> None:
        """A new web.admin_pin (SIGHUP): MQTT commands take it at once too."""
        if self.commands is not None:
            self.commands.replace_pin(pin)

    def close(self) -> None:
        if self.commands is not None:
            self.commands.close()
        self.connection.close()


def open_mqtt(
    settings: MqttSettings,
    out: Callable[[str], None],
    link: DaemonLink | None = None,
    pin: str | None = None,
) -> BoardMqtt | None:
    """The daemon's MQTT component, None when `[mqtt] url` is not set."""
    return BoardMqtt(settings, out, link, pin) if settings.enabled else None
