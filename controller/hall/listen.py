"""The hall's subscription: one paho client that feeds every board's messages to a `Hall`.

It subscribes again after each reconnect (a broker that restarted without persistence has
forgotten it) and tells the hall when its own connection comes and goes: with no broker, no
board can be said to be online. `persistent` (the default of `sowboard hall`): a session the
broker keeps, so that with the broker's persistence on (Debian's default) the events
published while the hall was away or reconnecting are queued for it, not lost.
"""

from __future__ import annotations

from typing import Any

from controller.daemon.mqtt import connect, connect_failure, paho_client
from controller.daemon.mqttconfig import MqttSettings

from .state import Hall


class HallListener:
    def __init__(
        self, hall: Hall, settings: MqttSettings, client_id: str, *, persistent: bool = False
    ) -> None:
        self.hall = hall
        self.settings = settings
        client = paho_client(settings, client_id, persistent=persistent)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_message = self._on_message
        self.client = client

    def start(self) -> HallListener:
        connect(self.client, self.settings)
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.hall.broker(False, f"refused: {reason}")
            return
        prefix = self.hall.prefix
        client.subscribe([(f"{prefix}/+/{kind}", 1) for kind in ("status", "availability")])
        client.subscribe([(f"{prefix}/+/event/+", 1), (f"{prefix}/+/record", 1)])
        self.hall.broker(True)

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self.hall.broker(False, f"connection lost: {reason}")

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self.hall.broker(False, connect_failure())

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self.hall.receive(message.topic, message.payload, retained=bool(message.retain))
