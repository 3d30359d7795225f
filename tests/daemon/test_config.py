"""The configuration file: whoever installs a board edits it by hand, so every mistake is
refused with the file, the key and what is allowed (never silently a default)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.daemon.config import (
    DEFAULT_PATH,
    EXAMPLE,
    ConfigError,
    default_data_dir,
    load_config,
    parse_config,
)

# (what the person wrote, what the error must name)
MISTAKES = [
    # an unknown section or key (a typo)
    ("[led]\nbrightness = 0.3\n", ["[led] is not a section", "allowed: board, buttons, data"]),
    ("[leds]\nbrightnes = 0.3\n", ["leds.brightnes is not a key of [leds]", "brightness"]),
    ("[hardware.simulator]\n", ["hardware.simulator is not a key of [hardware]", "sim, pi"]),
    ("leds = 3\n", ["leds = 3 must be a section [leds]"]),
    ("[hardware]\nsim = 3\n", ["hardware.sim must be a section [hardware.sim]"]),
    # out of range
    ("[leds]\nbrightness = 1.5\n", ["leds.brightness = 1.5 is out of range", "allowed: 0 to 1"]),
    ("[leds]\nmax_current_a = 0\n", ["leds.max_current_a = 0", "allowed: 0.1 to 20 (amps)"]),
    ("[web]\nport = 70000\n", ["web.port = 70000 is out of range", "0 to 65535"]),
    ("[leds]\nfps = 0\n", ["leds.fps = 0 is out of range", "5 to 60"]),
    ("[recorder]\nseconds = 3600\n", ["recorder.seconds = 3600 is out of range", "10 to 900"]),
    ("[recorder]\nkeep = 0\n", ["recorder.keep = 0 is out of range", "1 to 1000"]),
    ('[recorder]\non_flag = "yes"\n', ['recorder.on_flag = "yes"', "true or false"]),
    ("[hardware.sim]\nspeed = 100.0\n", ["hardware.sim.speed = 100.0", "0.1 to 50"]),
    ("[buttons]\nundo = 40\n", ["buttons.undo = 40 is out of range", "0 to 27 (BCM GPIO)"]),
    # TOML's nan and inf are floats: refused and shown as written (showing them failed)
    ("[hardware.sim]\nrate_sps = nan\n", ["hardware.sim.rate_sps = nan", "allowed: 10, 80"]),
    ("[mqtt]\nkeepalive_s = inf\n", ["mqtt.keepalive_s = inf is not a whole number"]),
    ("[leds]\nbrightness = -inf\n", ["leds.brightness = -inf", "allowed: 0 to 1"]),
    # the wrong type
    ('[web]\nport = "8080"\n', ['web.port = "8080" is not a number', "0 to 65535"]),
    ("[leds]\nfps = 29.5\n", ["leds.fps = 29.5 is not a whole number", "5 to 60"]),
    ("[leds]\nbrightness = true\n", ["leds.brightness = true is not a number"]),
    ('[buttons]\nenabled = "yes"\n', ['buttons.enabled = "yes"', "true or false"]),
    ("[web]\nhost = 127\n", ["web.host = 127 is not allowed", "a string"]),
    ("[game]\noptions = 7\n", ["game.options = 7", "a table of rule options"]),
    # one of a list
    ('[hardware]\nsource = "usb"\n', ['hardware.source = "usb"', '"sim", "pi", "serial"']),
    ('[game]\nvariant = "chess"\n', ['game.variant = "chess"', '"congkak"']),
    ("[hardware.sim]\nrate_sps = 40\n", ["hardware.sim.rate_sps = 40", "allowed: 10, 80"]),
    ("[leds]\ngpio = 4\n", ["leds.gpio = 4 is not allowed", "10, 12, 18, 21"]),
    ('[game]\nmode = "museum"\n', ['game.mode = "museum"', '"play", "teach", "demo"']),
    # meaning across keys: the rules, the board file, the pins
    ("[game]\noptions = { pits = 8 }\n", ["game.options:", "pits"]),
    ('[game]\noptions = { capture = "all" }\n', ["game.options:", "capture"]),
    ('[board]\nfile = "oware6"\n', ["board.file:", "cannot play 7 pits"]),
    ('[board]\nfile = "chessboard"\n', ["board.file:", "unknown board", "congkak7"]),
    (
        "[buttons]\nenabled = true\nnew_game = 5\nundo = 5\n",
        ["buttons.undo = 5 is already used by buttons.new_game"],
    ),
    ("[buttons]\nenabled = true\nhint = 10\n", ["buttons.hint = 10 is already used by leds.gpio"]),
    (
        '[hardware]\nsource = "pi"\n[buttons]\nenabled = true\nmode = 2\n',
        ["buttons.mode = 2 is already used by hardware.pi.dout[0]"],
    ),
    (
        '[hardware]\nsource = "pi"\n[hardware.pi]\ndout = [2, 3]\n',
        ["hardware.pi.dout lists 2 GPIOs", "one per cell", "(16)"],
    ),
    ("[hardware.pi]\ndout = [2, 2]\n", ["hardware.pi.dout lists a GPIO twice"]),
    ('[web]\nadmin_pin = "12"\n', ["web.admin_pin has 2 characters", "4 to 64"]),
    ('[web]\nallowed_hosts = "board"\n', ['web.allowed_hosts = "board" is not allowed']),
    (
        '[web]\nallowed_hosts = ["ok.example", "bad name"]\n',
        ['web.allowed_hosts[1] = "bad name" is not allowed', "host names or IP addresses"],
    ),
    ("[web]\nallowed_hosts = [3]\n", ["web.allowed_hosts[0] = 3 is not allowed"]),
    (f"[web]\nallowed_hosts = {['h'] * 33}\n", ["web.allowed_hosts", "at most 32"]),
]


@pytest.mark.parametrize(("text", "named"), MISTAKES)
def test_a_mistake_in_the_file_names_the_file_the_key_and_what_is_allowed(
    tmp_path: Path, text: str, named: list[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, explicit=True)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    for part in named:
        assert part in message
    assert "\n" not in message


def test_broken_toml_says_where(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[web]\nport = 80 80\n")
    with pytest.raises(ConfigError, match=r"config.toml: invalid TOML: .*line 2"):
        load_config(path, explicit=True)


def test_a_named_file_must_exist_but_the_default_one_may_be_missing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml", explicit=True)
    defaults = load_config(tmp_path / "missing.toml")
    assert defaults.path is None
    assert defaults.where == "<built-in defaults>"
    assert Path("/etc/sowboard/config.toml") == DEFAULT_PATH


def test_without_a_file_a_developer_gets_the_simulated_board_on_localhost() -> None:
    config = load_config(None)
    assert (config.source, config.led_backend()) == ("sim", "sim")
    assert (config.web.host, config.web.port, config.web.admin_pin) == ("127.0.0.1", 8080, None)
    assert (config.variant, config.board, config.mode) == ("congkak", "congkak7", "play")
    assert (config.leds.brightness, config.leds.max_current_a) == (0.4, 2.0)
    assert config.data_dir == default_data_dir()


def test_the_default_data_dir_follows_systemd_then_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/sowboard")
    assert default_data_dir() == Path("/var/lib/sowboard")
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    monkeypatch.setenv("XDG_STATE_HOME", "/home/ana/.state")
    assert default_data_dir() == Path("/home/ana/.state/sowboard")
    monkeypatch.delenv("XDG_STATE_HOME")
    assert default_data_dir() == Path.home() / ".local/state/sowboard"


def test_the_example_file_is_valid_and_shows_the_defaults() -> None:
    """`sowboard run --example-config` is what install.sh writes: it must be the defaults."""
    from_example = parse_config(tomllib.loads(EXAMPLE), "example.toml")
    defaults = parse_config({}, "example.toml")
    assert from_example == defaults


def test_one_line_chooses_the_hardware(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[hardware]\nsource = "pi"\n[web]\nadmin_pin = 2468\n')
    config = load_config(path, explicit=True)
    assert config.source == "pi"
    assert config.led_backend() == "neopixel"
    assert config.pi.dout[:3] == (2, 3, 12)  # the Pi-only build's wiring, one per cell
    assert len(config.pi.dout) == 16
    assert config.web.admin_pin == "2468"  # a PIN written as a number is still a PIN


def test_a_board_file_next_to_the_config_is_found(tmp_path: Path) -> None:
    from controller.board import BOARDS_DIR

    (tmp_path / "my_board.toml").write_text((BOARDS_DIR / "congkak7.toml").read_text())
    path = tmp_path / "config.toml"
    path.write_text('[board]\nfile = "my_board.toml"\n')
    assert load_config(path, explicit=True).board == str(tmp_path / "my_board.toml")


def test_the_page_answers_to_the_boards_own_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("socket.gethostname", lambda: "Sowboard-Pi")
    config = parse_config(
        {"web": {"host": "board.lan", "allowed_hosts": ["Games.Example.org.", "10.1.2.3"]}},
        tmp_path / "config.toml",
    )

    assert config.web.host_names() == (
        "localhost",
        "sowboard-pi",
        "sowboard-pi.local",
        "board.lan",
        "games.example.org",
        "10.1.2.3",
    )
