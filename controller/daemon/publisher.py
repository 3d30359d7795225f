"""When a status snapshot goes out, and putting it together from the parts' sections.

A snapshot is published at the tick after anything in the game or the daemon's state changed
(`status.Core`), when the sensors' second is up, and when the LED colours changed (animated
colours at most LED_PUBLISH_S apart): 50 live pages must not get 30 snapshots a second of a
board that stands still. The loop's figures (its lag, what it lost by falling behind its
source) go out with whichever snapshot is next: they may change at every tick.
"""

from __future__ import annotations

from collections.abc import Callable

from .behind import Behind
from .lights import BoardLights
from .link import LoopLink
from .reactor import Reactor
from .session import GameSession
from .status import Core, SensorStatus, Status

LED_PUBLISH_S = 0.1  # animated colours reach the page at most 10 times a second
SENSOR_PUBLISH_S = 1.0  # sensor readings (they change with every frame) once a second


class Publisher:
    def __init__(
        self,
        link: LoopLink,
        reactor: Reactor,
        session: GameSession,
        lights: BoardLights,
        behind: Behind,
    ) -> None:
        self.link = link
        self.reactor = reactor
        self.session = session
        self.lights = lights
        self.behind = behind
        self._last_core: Core | None = None
        self._last_colors: list[str] = []
        self._last_led_publish = -1e9
        self._last_sensor_publish = -1e9
        self._sensors: list[SensorStatus] = []
        self._sensors_read = False
        # Who else hears of each published snapshot (the hall's MQTT broadcast), in the loop.
        self.sinks: list[Callable[[Status], None]] = []

    def tick(self, now: float, core: Core) -> None:
        """Publish a snapshot if one is due (see the module docstring)."""
        colors = self.lights.colors()
        changed = core != self._last_core
        if now - self._last_sensor_publish >= SENSOR_PUBLISH_S or not self._sensors_read:
            self._sensors = self.session.sensors_status()
            # (a window of fewer frames: read again at the next tick)
            self._sensors_read = len(self.session.window.frames) >= 8
            self._last_sensor_publish = now
            changed = True
        if not changed and (
            colors == self._last_colors or now - self._last_led_publish < LED_PUBLISH_S
        ):
            return
        self._last_core = core
        self._last_colors = colors
        self._last_led_publish = now
        status = self._status(now, core, colors)
        self.link.publish(status)
        self.reactor.stats.publishes += 1
        for sink in self.sinks:
            sink(status)

    def _status(self, now: float, core: Core, colors: list[str]) -> Status:
        return {
            "version": 0,  # (the link numbers and stamps it)
            "published_at": 0.0,
            "sim": core["sim"],
            "board": core["board"],
            "game": {**core["game"], "turn_timer": self.session.turn_timer(now)},
            "flags": core["flags"],
            "leds": self.lights.get_status(colors, core["leds_places"]),
            "mode": core["mode"],
            "sensors": self._sensors,
            "daemon": {
                **core["daemon"],
                "loop": self.reactor.get_status(),
                "behind": self.behind.get_status(),
            },
        }
