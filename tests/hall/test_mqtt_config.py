"""The `[mqtt]` section: off by default, every key checked, errors that say what to write."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import ConfigError, parse_config


def mqtt(**keys: Any) -> Any:
    return parse_config({"mqtt": keys}, "board.toml").mqtt


def test_off_by_default_and_the_board_id_is_the_host_name() -> None:
    settings = parse_config({}, None).mqtt
    assert not settings.enabled
    assert settings.board_id == socket.gethostname().split(".")[0]
    assert settings.topic("status") == f"sowboard/{settings.board_id}/status"


def test_a_url_turns_it_on_with_its_settings(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    settings = mqtt(url="mqtts://hall.local", board_id="pair-3", ca_file=str(ca), queue=50)
    assert settings.enabled and settings.tls
    assert (settings.board_id, settings.ca_file, settings.queue) == ("pair-3", str(ca), 50)
    assert settings.topic("event", "move") == "sowboard/pair-3/event/move"


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"url": "tcp://h"}, 'mqtt.url = "tcp://h" is not allowed: the scheme must be mqtt://'),
        ({"url": "mqtt://"}, "no host"),
        ({"url": "mqtt://h:70000"}, "the port must be a number from 1 to 65535"),
        ({"url": "mqtt://me:pw@h"}, "put the user name and password in mqtt.user"),
        ({"url": "mqtt://h/x"}, "only a scheme, a host and a port"),
        ({"board_id": "room/1"}, 'mqtt.board_id = "room/1" is not allowed'),
        ({"board_id": "#"}, "no '/', '+' or '#'"),
        ({"topic_prefix": "a/+"}, "mqtt.topic_prefix"),
        ({"queue": 9}, "mqtt.queue = 9 is out of range, allowed: a whole number from 10"),
        ({"queue": 100_001}, "out of range"),
        ({"keepalive_s": 1}, "mqtt.keepalive_s = 1 is out of range"),
        ({"reconnect_s": 0}, "mqtt.reconnect_s = 0 is out of range"),
        ({"tls_insecure": "yes"}, "allowed: true or false"),
        ({"url": "mqtt://h", "password": "pw"}, "mqtt.password is set without mqtt.user"),
        ({"url": "mqtt://h", "ca_file": "/etc/hosts"}, "mqtt.url is not mqtts://"),
        ({"url": "mqtt://h", "tls_insecure": True}, "needs an mqtts:// url"),
        ({"url": "mqtts://h", "ca_file": "/no/such.pem"}, "no such file"),
        ({"url": "mqtts://h", "key_file": "/etc/hosts"}, "mqtt.key_file is set without"),
        ({"colour": 1}, "mqtt.colour is not a key of [mqtt]"),
    ],
)
def test_wrong_values_are_refused_with_what_is_allowed(keys: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        mqtt(**keys)
    assert str(err.value).startswith("board.toml: ")
    assert message in str(err.value)
