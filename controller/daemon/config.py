"""The daemon's configuration file (TOML), checked the way Klipper checks printer.cfg.

Every key has a type, a default and its allowed values; a file with an unknown section or key,
a wrong type or a value out of bounds is refused with one line naming the file, the key and
what is allowed, because the file is edited by hand on a board in a museum and a typo must not
silently fall back to a default. A missing default file (`/etc/sowboard/config.toml`) means
"all defaults": a developer's PC runs the simulated board with no file at all.

>>> config = load_config(None)
>>> config.source, config.web.port, config.leds.brightness
('sim', 8080, 0.4)
>>> parse_config({"leds": {"brightness": 1.5}}, "board.toml")
Traceback (most recent call last):
...
controller.daemon.config.ConfigError: board.toml: leds.brightness = 1.5 is out of range, allowed: 0 to 1
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import socket
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.board import Board, BoardFileError, BoardMapping, find_board
from controller.buttons import BUTTON_NAMES, DEFAULT_PINS
from controller.rules import VARIANTS, OptionError, Rules
from controller.sensing.pi_gpio import PI_DOUT_GPIOS, PI_LED_GPIO, PI_SCK_GPIO
from controller.sim.scenario import PlayerParams, SensorParams

from .match import match_options
from .mqttconfig import (
    BOARD_ID,
    BOARD_ID_ALLOWED,
    TOPIC_PREFIX,
    MqttSettings,
    check_mqtt,
    default_board_id,
    parse_broker_url,
)
from .opponent import Opponent, alternating_options, parse_opponent

DEFAULT_PATH = Path("/etc/sowboard/config.toml")
SYSTEM_DATA_DIR = Path("/var/lib/sowboard")
MODES = ("play", "teach", "demo")
SOURCES = ("sim", "pi", "serial")
LED_BACKENDS = ("auto", "sim", "neopixel", "pico", "none")
NEOPIXEL_GPIOS = (10, 12, 18, 21)  # SPI, PWM0, PWM0, PCM (HARDWARE.md)
PIXEL_ORDERS = ("RGB", "GRB", "RGBW", "GRBW")
MAX_GPIO = 27
MAX_HOST_NAMES = 32
LOOPBACK_NAMES = ("localhost",)
_HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"{_HOST_LABEL}(?:\.{_HOST_LABEL})*\.?", re.IGNORECASE)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file, the key and why."""


def default_data_dir() -> Path:
    """/var/lib/sowboard for the service (root or the `sowboard` user's StateDirectory),
    else the XDG state directory, so a developer can `make run` without sudo."""
    state = os.environ.get("STATE_DIRECTORY")  # systemd's StateDirectory=
    if state:
        return Path(state.split(":")[0])
    if os.geteuid() == 0:
        return SYSTEM_DATA_DIR
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "sowboard"


# -- settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimSettings:
    """The simulated board (SIMULATION.md sensors and player) and its pace; the defaults are
    the simulator's own."""

    rate_sps: int = SensorParams.rate_sps
    noise_g: float = SensorParams.noise_g
    seed_mean_g: float = SensorParams.seed_mean_g
    seed_cv: float = SensorParams.seed_cv
    calibration_error: float = SensorParams.calibration_error
    random_seed: int = SensorParams.random_seed
    seconds_per_seed: float = PlayerParams.seconds_per_seed
    speed: float = 1.0  # simulated seconds per wall second (a demo can fast-forward)


@dataclass(frozen=True)
class PiSettings:
    """HX711s on the Pi's own GPIO (controller/sensing/pi_gpio.py)."""

    sck: int = PI_SCK_GPIO
    dout: tuple[int, ...] = ()  # empty: the Pi-only build's wiring for the board's cells
    gain: int = 128
    rate_sps: int = 80  # what the RATE pin is wired for
    gpiochip: int = 0


@dataclass(frozen=True)
class SerialSettings:
    """HX711s read by a Pico over USB serial (controller/sensing/serial_source.py)."""

    port: str = ""  # empty: find the Pico's data channel
    rate_sps: int = 80
    gain: int = 128


@dataclass(frozen=True)
class LedSettings:
    backend: str = "auto"  # sim source: sim; pi: neopixel; serial: pico
    gpio: int = PI_LED_GPIO
    order: str = "GRB"
    brightness: float = 0.4
    max_current_a: float = 2.0
    fps: int = 30
    idle_minutes: float = 5.0  # 0: never show the attract animation
    slow_pace_s: float = 0.0  # teach mode: the next place lit only this long after a seed


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 8080
    admin_pin: str | None = None
    max_streams: int = 12
    allowed_hosts: tuple[str, ...] = ()  # names besides the built-in ones (`host_names`)
    new_game_button: bool = True  # players may start a new game from the page
    kiosk: bool = False  # the exhibit's page (/kiosk) is the only page

    def host_names(self) -> tuple[str, ...]:
        """The names a request may ask for in its Host header (IP addresses always may):
        loopback, this machine's hostname and its mDNS name, `host`, `allowed_hosts`.
        Any other name is refused, so that a web site whose name an attacker points at the
        board (DNS rebinding) cannot reach the API from a visitor's browser."""
        machine = socket.gethostname().lower()
        names = (*LOOPBACK_NAMES, machine, f"{machine.split('.')[0]}.local", self.host)
        return tuple(dict.fromkeys(n.lower().rstrip(".") for n in (*names, *self.allowed_hosts)))


@dataclass(frozen=True)
class RecorderSettings:
    """The flight recorder (controller/daemon/recorder.py): how much it holds, how many
    recordings it keeps, and whether a flag saves one."""

    seconds: int = 180
    keep: int = 20
    on_flag: bool = True


@dataclass(frozen=True)
class ButtonSettings:
    enabled: bool = False
    locked: tuple[str, ...] = ()  # buttons that do nothing (an exhibit locks `mode`)
    pins: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_PINS))


@dataclass(frozen=True)
class Config:
    """A checked configuration. `path` is the file it came from (None: built-in defaults)."""

    path: Path | None
    board: str
    variant: str
    options: Mapping[str, Any]
    mode: str
    source: str
    sim: SimSettings
    pi: PiSettings
    serial: SerialSettings
    leds: LedSettings
    web: WebSettings
    buttons: ButtonSettings
    data_dir: Path
    recorder: RecorderSettings = field(default_factory=RecorderSettings)
    mqtt: MqttSettings = field(default_factory=MqttSettings)
    opponent: Opponent | None = None  # the computer player of a new game (opponent.py)
    match: bool = False  # a new game is the first round of a match (match.py)
    abandon_minutes: float = 0.0  # a half-played game left this long is ended; 0: never

    @property
    def where(self) -> str:
        return str(self.path) if self.path is not None else "<built-in defaults>"

    def rules(self) -> Rules:
        return Rules.for_variant(self.variant, dict(self.options))

    def board_file(self) -> Board:
        return find_board(self.board)

    def mapping(self, rules: Rules | None = None) -> BoardMapping:
        return self.board_file().mapping((rules or self.rules()).n)

    def led_backend(self) -> str:
        """The LED backend after `auto` is resolved for the hardware source."""
        if self.leds.backend != "auto":
            return self.leds.backend
        return {"sim": "sim", "pi": "neopixel", "serial": "pico"}[self.source]


# -- the schema -------------------------------------------------------------------------------

Check = Callable[[str, Any], Any]  # (key, raw value) -> clean value, raises _Bad


class _Bad(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # as TOML writes them: nan, inf, -inf (int() of them failed)
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        return repr(value)
    return str(value)


def _num(lo: float, hi: float, *, integer: bool = False, unit: str = "") -> Check:
    allowed = f"{lo:g} to {hi:g}" + (f" ({unit})" if unit else "")
    if integer:
        allowed = f"a whole number from {lo:g} to {hi:g}" + (f" ({unit})" if unit else "")

    def check(key: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _Bad(f"{key} = {_show(value)} is not a number, allowed: {allowed}")
        if integer and not isinstance(value, int):
            raise _Bad(f"{key} = {_show(value)} is not a whole number, allowed: {allowed}")
        if not math.isfinite(value) or not lo <= value <= hi:
            raise _Bad(f"{key} = {_show(value)} is out of range, allowed: {allowed}")
        return int(value) if integer else float(value)

    return check


def _choice(*allowed: Any) -> Check:
    shown = ", ".join(_show(a) for a in allowed)

    def check(key: str, value: Any) -> Any:
        if isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: {shown}")
        if value not in allowed:
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: {shown}")
        return value

    return check


def _bool() -> Check:
    def check(key: str, value: Any) -> Any:
        if not isinstance(value, bool):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: true or false")
        return value

    return check


def _text(*, empty: bool = True, max_len: int = 4096) -> Check:
    def check(key: str, value: Any) -> Any:
        if not isinstance(value, str):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: a string")
        if not empty and not value.strip():
            raise _Bad(f"{key} is empty, allowed: a non-empty string")
        if len(value) > max_len:
            raise _Bad(f"{key} is {len(value)} characters long, allowed: at most {max_len}")
        return value

    return check


def _pin_code() -> Check:
    def check(key: str, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise _Bad(
                f"{key} = {_show(value)} is not allowed, allowed: a string of 4 to 64 characters"
            )
        if value and not 4 <= len(value) <= 64:
            raise _Bad(f"{key} has {len(value)} characters, allowed: empty (admin off) or 4 to 64")
        return value or None

    return check


def _gpio_list() -> Check:
    allowed = f"a list of different GPIO numbers 0 to {MAX_GPIO}"

    def check(key: str, value: Any) -> Any:
        if not isinstance(value, list):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: {allowed}")
        for k, pin in enumerate(value):
            if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= MAX_GPIO:
                raise _Bad(f"{key}[{k}] = {_show(pin)} is not allowed, allowed: {allowed}")
        if len(set(value)) != len(value):
            raise _Bad(f"{key} lists a GPIO twice, allowed: {allowed}")
        return tuple(value)

    return check


def _host_list() -> Check:
    allowed = f"a list of at most {MAX_HOST_NAMES} host names or IP addresses"

    def check(key: str, value: Any) -> Any:
        if not isinstance(value, list) or len(value) > MAX_HOST_NAMES:
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: {allowed}")
        for k, name in enumerate(value):
            if not isinstance(name, str) or not _is_host(name):
                raise _Bad(f"{key}[{k}] = {_show(name)} is not allowed, allowed: {allowed}")
        return tuple(value)

    return check


def _matching(pattern: re.Pattern[str], allowed: str) -> Check:
    def check(key: str, value: Any) -> Any:
        if not isinstance(value, str) or (value and not pattern.fullmatch(value)):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: {allowed}")
        return value

    return check


def _broker_url() -> Check:
    def check(key: str, value: Any) -> Any:
        if not isinstance(value, str):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: a string")
        if value:
            try:
                parse_broker_url(value)
            except ValueError as err:
                raise _Bad(f"{key} = {_show(value)} is not allowed: {err}") from None
        return value

    return check


def _is_host(name: str) -> bool:
    if len(name) <= 253 and _HOST_NAME.fullmatch(name):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _names(known: tuple[str, ...]) -> Check:
    allowed = f"a list of names from {', '.join(known)}"

    def check(key: str, value: Any) -> Any:
        if not isinstance(value, list):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: {allowed}")
        for k, name in enumerate(value):
            if name not in known:
                raise _Bad(f"{key}[{k}] = {_show(name)} is not allowed, allowed: {allowed}")
        return tuple(dict.fromkeys(value))

    return check


def _table() -> Check:
    def check(key: str, value: Any) -> Any:
        if not isinstance(value, dict):
            raise _Bad(f"{key} = {_show(value)} is not allowed, allowed: a table of rule options")
        return dict(value)

    return check


def _opponent() -> Check:
    def check(key: str, value: Any) -> Any:
        try:
            return parse_opponent(value, key)
        except ValueError as err:
            raise _Bad(str(err)) from None

    return check


_GPIO = _num(0, MAX_GPIO, integer=True, unit="BCM GPIO")
_RATE = _choice(10, 80)
_GAIN = _choice(128, 64, 32)

# section -> key -> (check, default); defaults come from the dataclasses above.
SCHEMA: dict[str, dict[str, tuple[Check, Any]]] = {
    "board": {"file": (_text(empty=False), "congkak7")},
    "game": {
        "variant": (_choice(*VARIANTS), "congkak"),
        "options": (_table(), {}),
        "mode": (_choice(*MODES), "play"),
        "opponent": (_opponent(), None),  # none: two people play
        "match": (_bool(), False),
        # a game left half-played this long is ended (the board is set out again); 0: never
        "abandon_minutes": (_num(0, 1440, unit="minutes, 0 = never"), 0.0),
    },
    "hardware": {"source": (_choice(*SOURCES), "sim")},
    "hardware.sim": {
        "rate_sps": (_RATE, SimSettings.rate_sps),
        "noise_g": (_num(0, 1, unit="grams rms"), SimSettings.noise_g),
        "seed_mean_g": (_num(0.5, 100, unit="grams"), SimSettings.seed_mean_g),
        "seed_cv": (_num(0, 0.4), SimSettings.seed_cv),
        "calibration_error": (_num(0, 0.2), SimSettings.calibration_error),
        "random_seed": (_num(0, 2**31 - 1, integer=True), SimSettings.random_seed),
        "seconds_per_seed": (_num(0.05, 10, unit="seconds"), SimSettings.seconds_per_seed),
        "speed": (_num(0.1, 50, unit="simulated seconds per second"), SimSettings.speed),
    },
    "hardware.pi": {
        "sck": (_GPIO, PiSettings.sck),
        "dout": (_gpio_list(), ()),
        "gain": (_GAIN, PiSettings.gain),
        "rate_sps": (_RATE, PiSettings.rate_sps),
        "gpiochip": (_num(0, 15, integer=True), PiSettings.gpiochip),
    },
    "hardware.serial": {
        "port": (_text(), SerialSettings.port),
        "rate_sps": (_RATE, SerialSettings.rate_sps),
        "gain": (_GAIN, SerialSettings.gain),
    },
    "leds": {
        "backend": (_choice(*LED_BACKENDS), LedSettings.backend),
        "gpio": (_choice(*NEOPIXEL_GPIOS), LedSettings.gpio),
        "order": (_choice(*PIXEL_ORDERS), LedSettings.order),
        "brightness": (_num(0, 1), LedSettings.brightness),
        "max_current_a": (_num(0.1, 20, unit="amps"), LedSettings.max_current_a),
        "fps": (_num(5, 60, integer=True, unit="frames per second"), LedSettings.fps),
        "idle_minutes": (_num(0, 1440, unit="minutes, 0 = never"), LedSettings.idle_minutes),
        "slow_pace_s": (_num(0, 5, unit="seconds, 0 = at once"), LedSettings.slow_pace_s),
    },
    "web": {
        "host": (_text(empty=False, max_len=255), WebSettings.host),
        "port": (_num(0, 65535, integer=True), WebSettings.port),
        "admin_pin": (_pin_code(), None),
        "max_streams": (_num(1, 200, integer=True, unit="open live pages"), 12),
        "allowed_hosts": (_host_list(), ()),
        "new_game_button": (_bool(), WebSettings.new_game_button),
        "kiosk": (_bool(), WebSettings.kiosk),
    },
    "buttons": {
        "enabled": (_bool(), False),
        "locked": (_names(BUTTON_NAMES), ()),
        **{name: (_GPIO, DEFAULT_PINS[name]) for name in BUTTON_NAMES},
    },
    "data": {"dir": (_text(), "")},  # empty: default_data_dir()
    "recorder": {
        # 3 minutes at 80 SPS x 16 cells take about 1.2 MB; 15 minutes about 6 MB.
        "seconds": (_num(10, 900, integer=True, unit="seconds"), RecorderSettings.seconds),
        "keep": (_num(1, 1000, integer=True, unit="recordings"), RecorderSettings.keep),
        "on_flag": (_bool(), RecorderSettings.on_flag),
    },
    "mqtt": {
        "url": (_broker_url(), MqttSettings.url),
        "board_id": (_matching(BOARD_ID, BOARD_ID_ALLOWED), ""),  # empty: the host name
        "topic_prefix": (
            _matching(TOPIC_PREFIX, "1 to 4 levels of letters, digits, '_', '-' joined by '/'"),
            MqttSettings.topic_prefix,
        ),
        "user": (_text(max_len=256), ""),
        "password": (_text(max_len=256), ""),
        "ca_file": (_text(), ""),
        "cert_file": (_text(), ""),
        "key_file": (_text(), ""),
        "tls_insecure": (_bool(), False),
        "queue": (_num(10, 100_000, integer=True, unit="messages"), MqttSettings.queue),
        "keepalive_s": (_num(5, 3600, integer=True, unit="seconds"), MqttSettings.keepalive_s),
        "reconnect_s": (_num(1, 60, integer=True, unit="seconds"), MqttSettings.reconnect_s),
        "commands": (_choice("off", "pin", "acl"), MqttSettings.commands),
    },
}

_SUBSECTIONS = {"hardware": ("sim", "pi", "serial")}


def load_config(path: str | Path | None, *, explicit: bool = False) -> Config:
    """Read and check `path`; None (or a missing default file) gives the built-in defaults.

    `explicit`: the user named the file (`--config`), so a missing file is an error.
    """
    if path is None:
        return parse_config({}, None)
    path = Path(path)
    if not path.exists() and not explicit:
        return parse_config({}, None)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read: {err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: invalid TOML: {err}") from None
    return parse_config(data, path)


def _flatten(data: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """TOML tables to `section -> key -> value` ("hardware.sim" for [hardware.sim])."""
    sections: dict[str, dict[str, Any]] = {}
    top_allowed = sorted({name.split(".")[0] for name in SCHEMA})
    for name, table in data.items():
        if name not in SCHEMA:
            raise ConfigError(
                f"{where}: [{name}] is not a section, allowed: {', '.join(top_allowed)}"
            )
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: {name} = {_show(table)} must be a section [{name}]")
        own: dict[str, Any] = {}
        for key, value in table.items():
            sub = f"{name}.{key}"
            if key in _SUBSECTIONS.get(name, ()):
                if not isinstance(value, dict):
                    raise ConfigError(f"{where}: {sub} must be a section [{sub}]")
                sections[sub] = value
            else:
                own[key] = value
        sections[name] = own
    return sections


def parse_config(data: dict[str, Any], path: str | Path | None) -> Config:
    """Check decoded TOML against the schema and build the Config."""
    where = str(path) if path is not None else "<built-in defaults>"
    sections = _flatten(data, where)
    clean: dict[str, dict[str, Any]] = {}
    for name, keys in SCHEMA.items():
        given = sections.get(name, {})
        unknown = sorted(set(given) - set(keys))
        if unknown:
            allowed = sorted(keys) + [s for s in _SUBSECTIONS.get(name, ())]
            raise ConfigError(
                f"{where}: {name}.{unknown[0]} is not a key of [{name}], "
                f"allowed: {', '.join(allowed)}"
            )
        out: dict[str, Any] = {}
        for key, (check, default) in keys.items():
            if key in given:
                try:
                    out[key] = check(f"{name}.{key}", given[key])
                except _Bad as bad:
                    raise ConfigError(f"{where}: {bad.message}") from None
            else:
                out[key] = default
        clean[name] = out

    # Meaning checks across keys: the rules engine checks the game, the board file its cells.
    game = clean["game"]
    rules = _game_rules(where, game)
    board_name = clean["board"]["file"]
    if path is not None and not Path(board_name).is_absolute() and board_name.endswith(".toml"):
        board_name = str(Path(path).parent / board_name)
    try:
        board = find_board(board_name)
        board.mapping(rules.n)
    except BoardFileError as err:
        raise ConfigError(f"{where}: board.file: {err}") from None

    pi = clean["hardware.pi"]
    dout = pi["dout"] or PI_DOUT_GPIOS[: len(board.cells)]
    source = clean["hardware"]["source"]
    if source == "pi":
        if len(dout) != len(board.cells):
            raise ConfigError(
                f"{where}: hardware.pi.dout lists {len(dout)} GPIOs, "
                f"allowed: one per cell of board {board.name!r} ({len(board.cells)})"
            )
        if pi["sck"] in dout:
            raise ConfigError(
                f"{where}: hardware.pi.sck = {pi['sck']} is also a DOUT pin, "
                "allowed: a GPIO not in hardware.pi.dout"
            )
    buttons = clean["buttons"]
    pins = {name: buttons[name] for name in BUTTON_NAMES}  # (`locked` is no pin)
    if buttons["enabled"]:
        _check_pins(where, pins, source, pi["sck"], dout, clean["leds"]["gpio"])

    mqtt = clean["mqtt"]
    problem = check_mqtt(mqtt)
    if problem is None and mqtt["commands"] == "pin" and not clean["web"]["admin_pin"]:
        problem = 'mqtt.commands = "pin" needs web.admin_pin (the PIN each command carries)'
    if problem is not None:
        raise ConfigError(f"{where}: {problem}")
    data_dir = clean["data"]["dir"]
    leds = clean["leds"]
    web = clean["web"]
    return Config(
        path=Path(path) if path is not None else None,
        board=board_name,
        variant=rules.variant,
        options=dict(game["options"]),
        mode=game["mode"],
        abandon_minutes=game["abandon_minutes"],
        source=source,
        sim=SimSettings(**clean["hardware.sim"]),
        pi=PiSettings(
            sck=pi["sck"],
            dout=tuple(dout),
            gain=pi["gain"],
            rate_sps=pi["rate_sps"],
            gpiochip=pi["gpiochip"],
        ),
        serial=SerialSettings(**clean["hardware.serial"]),
        leds=LedSettings(**leds),
        web=WebSettings(
            host=web["host"],
            port=web["port"],
            admin_pin=web["admin_pin"],
            max_streams=web["max_streams"],
            allowed_hosts=web["allowed_hosts"],
            new_game_button=web["new_game_button"],
            kiosk=web["kiosk"],
        ),
        buttons=ButtonSettings(enabled=buttons["enabled"], locked=buttons["locked"], pins=pins),
        data_dir=Path(data_dir).expanduser() if data_dir else default_data_dir(),
        recorder=RecorderSettings(**clean["recorder"]),
        mqtt=MqttSettings(**{**mqtt, "board_id": mqtt["board_id"] or default_board_id()}),
        opponent=game["opponent"],
        match=game["match"],
    )


def _game_rules(where: str, game: dict[str, Any]) -> Rules:
    """The game's rules, checked with the computer player and the match it is for."""
    try:
        rules = Rules.for_variant(game["variant"], game["options"])
        if game["opponent"] is not None:
            alternating_options(game["options"], rules)
        if game["match"]:
            Rules.for_variant(game["variant"], match_options(game["options"]))
    except OptionError as err:
        raise ConfigError(f"{where}: game.options: {err}") from None
    return rules


def _check_pins(
    where: str,
    pins: dict[str, int],
    source: str,
    sck: int,
    dout: tuple[int, ...],
    led_gpio: int,
) -> None:
    """A button must not share its GPIO with another button, the LEDs or (on the Pi-only
    build) a load cell line: a shared line would read presses as seeds or worse."""
    used: dict[int, str] = {}
    if source == "pi":
        used[sck] = "hardware.pi.sck"
        for k, pin in enumerate(dout):
            used[pin] = f"hardware.pi.dout[{k}]"
    used.setdefault(led_gpio, "leds.gpio")
    for name, pin in pins.items():
        if pin in used:
            raise ConfigError(
                f"{where}: buttons.{name} = {pin} is already used by {used[pin]}, "
                "allowed: a GPIO no other key uses"
            )
        used[pin] = f"buttons.{name}"


EXAMPLE = """\
# sowboard configuration (TOML). Every key is optional; the values shown are the defaults.

[board]
file = "congkak7"           # a shipped board (congkak5, congkak7, congkak9, oware6) or a path

[game]
variant = "congkak"         # congkak, kalah or oware
options = {}                # rule options by name, e.g. { pits = 6 } (see `sowboard rules`)
mode = "play"               # play, teach or demo
# opponent = { player = 1, level = 3 }   # the computer plays player 1 (0 or 1), level 1 (a
                            # young child can win) to 5 (strongest); think_s = 1.0 wall
                            # seconds a move (0.05 to 30). Absent: two people play.
match = false               # true: games are rounds of a handicap match (ハンディ戦): each
                            # round starts from the seeds each player won in the last one;
                            # the match ends when a player cannot fill a pit
abandon_minutes = 0         # a game left half-played this long is ended and the lights guide
                            # setting the board out again (an exhibit: e.g. 10); 0: never

[hardware]
source = "sim"              # sim (no hardware), pi (HX711s on the Pi's GPIO), serial (Pico)

[hardware.sim]
rate_sps = 80               # 10 or 80
seconds_per_seed = 0.25     # the virtual hand's tempo, 0.05 to 10
speed = 1.0                 # simulated seconds per second, 0.1 to 50

[hardware.pi]
sck = 4                     # BCM GPIO of the shared clock
dout = []                   # one DOUT GPIO per cell; empty: the Pi-only build's wiring
gain = 128                  # 128, 64 or 32
rate_sps = 80               # what the HX711s' RATE pin is wired for: 10 or 80

[hardware.serial]
port = ""                   # empty: find the Pico; else e.g. /dev/serial/by-id/...
rate_sps = 80

[leds]
backend = "auto"            # auto, sim, neopixel, pico or none
gpio = 10                   # 10 (SPI, no root), 12, 18 or 21
brightness = 0.4            # 0 to 1
max_current_a = 2.0         # the LED supply's budget, 0.1 to 20 A
fps = 30                    # 5 to 60
idle_minutes = 5            # attract animation after this long without play; 0: never
slow_pace_s = 0             # teach mode: light the next place only this long after a seed
                            # settled (a child's slow pace, e.g. 1.0); 0: at once

[web]
host = "127.0.0.1"          # 0.0.0.0 to serve the page to the network
port = 8080
admin_pin = ""              # 4 to 64 characters; empty: the admin page is off
max_streams = 12            # live pages at once, 1 to 200
allowed_hosts = []          # more names the page is reached by, e.g. ["sowboard.example.org"];
                            # always allowed: IP addresses, localhost, this machine's hostname
                            # and hostname.local, and web.host. Other names are refused (400).
new_game_button = true      # players may start a new game from the page (false: an exhibit)
kiosk = false               # true: /kiosk (full screen, large type, no admin or simulator
                            # controls) is the only page

[buttons]
enabled = false
locked = []                 # buttons that do nothing, e.g. ["mode"] so visitors cannot change it
new_game = 5
undo = 6
hint = 13
mode = 19

[data]
dir = ""                    # empty: /var/lib/sowboard (service) or ~/.local/state/sowboard

[recorder]
seconds = 180               # raw frames kept for a recording, 10 to 900
keep = 20                   # recordings kept in <data dir>/recordings (the oldest go first)
on_flag = true              # a raised flag saves a recording (a few seconds after it)

[mqtt]
url = ""                    # empty: off; "mqtt://host:1883" or "mqtts://host:8883" (TLS)
board_id = ""               # this board in the hall's topics; empty: the host name
topic_prefix = "sowboard"   # topics are <prefix>/<board_id>/status, /availability, /event/...
user = ""                   # the broker's user and password (none: anonymous)
password = ""
ca_file = ""                # mqtts: the CA bundle (empty: the system's), a client cert and key
cert_file = ""
key_file = ""
tls_insecure = false        # mqtts: do not check the broker's name against its certificate
queue = 1000                # messages held while the broker is slow or away (then dropped,
                            # counted), 10 to 100000
keepalive_s = 30            # 5 to 3600
reconnect_s = 1             # a lost broker is tried again this often, 1 to 60
commands = "off"            # new game, mode, undo over MQTT: off, pin (each command carries
                            # web.admin_pin) or acl (the broker's ACL decides; docs/hall.md)
"""
