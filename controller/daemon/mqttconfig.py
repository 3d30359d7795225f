"""The `[mqtt]` section's settings: where the board publishes for the hall (issue 16).

Off by default (`url = ""`). The URL names the broker only (`mqtt://host:1883`,
`mqtts://host:8883` for TLS); user, password and the TLS files are keys of their own, so
that the URL can be shown on a page and in a log without a secret in it.

>>> parse_broker_url("mqtt://broker.local")
('mqtt', 'broker.local', 1883)
>>> parse_broker_url("mqtts://[::1]:9883")
('mqtts', '::1', 9883)
>>> parse_broker_url("http://x")
Traceback (most recent call last):
...
ValueError: the scheme must be mqtt:// or mqtts://, e.g. "mqtt://broker.local:1883"
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

SCHEMES = {"mqtt": 1883, "mqtts": 8883}
BOARD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
BOARD_ID_ALLOWED = "1 to 64 letters, digits, '.', '_' or '-' (no '/', '+' or '#': MQTT topics)"
TOPIC_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,32}(/[A-Za-z0-9_-]{1,32}){0,3}")


@dataclass(frozen=True)
class MqttSettings:
    url: str = ""  # empty: no publishing
    board_id: str = ""  # empty in the file: this machine's host name (`default_board_id`)
    topic_prefix: str = "sowboard"
    user: str = ""
    password: str = ""
    ca_file: str = ""  # mqtts: the CA bundle (empty: the system's)
    cert_file: str = ""  # mqtts: a client certificate (with key_file)
    key_file: str = ""
    tls_insecure: bool = False  # mqtts: do not check the broker's host name (a lab broker)
    queue: int = 1000  # messages held for the broker while it is slow or away
    keepalive_s: int = 30
    reconnect_s: int = 1  # how often a lost broker is tried again
    commands: str = "off"  # off, pin (with web.admin_pin) or acl (the broker's ACL decides)

    @property
    def enabled(self) -> bool:
        return bool(self.url)

    @property
    def tls(self) -> bool:
        return self.url.startswith("mqtts:")

    def topic(self, *parts: str) -> str:
        """`<prefix>/<board id>/<parts...>`"""
        return "/".join((self.topic_prefix, self.board_id, *parts))


def parse_broker_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a broker URL; ValueError says what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError('the scheme must be mqtt:// or mqtts://, e.g. "mqtt://broker.local:1883"')
    if parts.username is not None or parts.password is not None:
        raise ValueError("put the user name and password in mqtt.user and mqtt.password")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError('only a scheme, a host and a port, e.g. "mqtt://broker.local:1883"')
    try:
        port = parts.port
    except ValueError:
        raise ValueError("the port must be a number from 1 to 65535") from None
    if not parts.hostname:
        raise ValueError('no host, e.g. "mqtt://broker.local:1883"')
    if port == 0:
        raise ValueError("the port must be a number from 1 to 65535")
    return parts.scheme, parts.hostname, port or SCHEMES[parts.scheme]


def default_board_id() -> str:
    """This machine's host name (its first label), cut to what a topic level may hold."""
    name = socket.gethostname().split(".")[0]
    clean = re.sub(r"[^A-Za-z0-9_.-]", "-", name).strip("-.")[:64]
    return clean if BOARD_ID.fullmatch(clean) else "sowboard"


def check_mqtt(values: dict[str, object]) -> str | None:
    """What is wrong with a checked [mqtt] section as a whole (None: nothing)."""
    url = str(values["url"])
    tls_keys = [k for k in ("ca_file", "cert_file", "key_file") if values[k]]
    if not url:
        return None
    if tls_keys and not url.startswith("mqtts:"):
        return f"mqtt.{tls_keys[0]} is set but mqtt.url is not mqtts://, allowed: an mqtts:// url"
    if values["tls_insecure"] and not url.startswith("mqtts:"):
        return "mqtt.tls_insecure = true needs an mqtts:// url"
    if values["password"] and not values["user"]:
        return "mqtt.password is set without mqtt.user, allowed: both or neither"
    if values["commands"] == "acl" and not values["user"]:
        return 'mqtt.commands = "acl" needs mqtt.user: the broker\'s ACL names its users'
    if values["key_file"] and not values["cert_file"]:
        return "mqtt.key_file is set without mqtt.cert_file, allowed: both or neither"
    for key in tls_keys:
        if not Path(str(values[key])).expanduser().is_file():
            return f'mqtt.{key} = "{values[key]}": no such file, allowed: a readable file'
    return None
