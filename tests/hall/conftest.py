"""The hall's tests run against a real Mosquitto (Debian's package) on a free loopback port,
started here; where it is not installed they skip and say so (`make test` installs it as
root). No mock broker."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from controller.daemon.mqttconfig import MqttSettings
from controller.hall.broker import Mosquitto, find_mosquitto
from controller.hall.listen import HallListener
from controller.hall.state import Hall

NO_MOSQUITTO = "mosquitto is not installed: apt-get install mosquitto (`make test` does as root)"


@pytest.fixture
def broker() -> Iterator[Mosquitto]:
    if find_mosquitto() is None:
        pytest.skip(NO_MOSQUITTO)
    with Mosquitto() as running:
        yield running


def listen(url: str, name: str = "hall-test") -> tuple[Hall, HallListener]:
    hall = Hall(keep_delays=True)
    listener = HallListener(hall, MqttSettings(url=url, board_id=name), name).start()
    return hall, listener


@pytest.fixture
def hall_of(broker: Mosquitto) -> Iterator[Callable[..., Hall]]:
    """`hall_of(url)`: a Hall subscribed to the broker; stopped at the end."""
    listeners: list[HallListener] = []

    def make(url: str | None = None, name: str = "hall-test") -> Hall:
        hall, listener = listen(url or broker.url, name)
        listeners.append(listener)
        return hall

    yield make
    for listener in listeners:
        listener.stop()


def wait_for(done: Callable[[], object], seconds: float = 10.0, what: str = "") -> float:
    """Wall-clock wait (the broker is real); how long it took."""
    start = time.monotonic()
    while not done():
        if time.monotonic() - start > seconds:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.01)
    return time.monotonic() - start
