"""`sowboard calibrate` and `sowboard diag`: the board's two command-line helpers.

`calibrate` walks a person through the three stages the admin page offers (empty cups, a
reference weight in every cup, the start layout) at the terminal, through the very same loop
and commands as the daemon, so both ways give the same file. The daemon must not be running
(it holds the hardware and the data directory's lock, datalock.py). On the simulated board the virtual hand does what the person is asked
to do, so the whole procedure can be tried (and tested) without wood.

`diag` says what a support call needs: the configuration, the data files and what is wrong in
them, whether the hardware libraries and devices are there, and (with `--sensors`) what every
cell reads for two seconds.

`record` asks the running daemon for a recording. The daemon has no control channel but its
web API, so it posts to the admin API on the daemon's own address with the PIN from the
configuration file: whoever can read that file may record, as the admin page allows, and no
unauthenticated way in is added (a local-only endpoint would trust every user of the Pi).
"""

from __future__ import annotations

import contextlib
import grp
import importlib
import json
import os
import statistics
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import datetime
from typing import Any

from controller.leds.backends import PI5_MODULE, choose_led_driver, read_pi_model
from controller.rules import Place
from controller.sensing.recording import SUFFIX

from .config import Config
from .datalock import DataDirLocked
from .files import (
    CALIBRATION_FILE,
    JOURNAL_FILE,
    RECORDINGS_DIR,
    SIM_BOARD_FILE,
    DataFileError,
    load_calibration,
    load_sim_board,
)
from .hardware import HardwareError, NoLeds, open_source
from .journal import JournalError, read_journal, replay
from .link import CommandError
from .loop import BoardLoop

Ask = Callable[[str], str]
Out = Callable[[str], None]


# -- calibrate ------------------------------------------------------------------------------------


BUSY_RETRIES = 5


def _wait_for(loop: BoardLoop, t: float) -> None:
    """Sleep until the loop's clock reaches `t` (the simulated clock may run faster)."""
    end = time.monotonic() + 60.0
    while loop.now < t and time.monotonic() < end and loop.running:
        time.sleep(0.02)


def _act(loop: BoardLoop, actions: list[dict[str, Any]], hold: float | None = None) -> None:
    """On the simulated board, the virtual hand does what the person was asked to do; then
    wait until the board rests (or, with `hold`, that long while a weight stays on)."""
    if loop.sim is None or not actions:
        return
    for attempt in range(BUSY_RETRIES):
        _wait_for(loop, loop.busy_until)
        try:
            loop.link.command("sim_actions", {"actions": actions})
            break
        except CommandError:
            # This thread reads the loop's clock between two of its turns; on a loaded
            # machine the hands may still be busy when the command's turn comes: wait again.
            if attempt == BUSY_RETRIES - 1:
                raise
    _wait_for(loop, loop.now + hold if hold is not None else loop.busy_until + 1.2)


def _empty_board(loop: BoardLoop) -> list[dict[str, Any]]:
    assert loop.sim is not None
    truth = loop.sim.world.truth()
    actions: list[dict[str, Any]] = []
    t = 0.0
    places = [Place(p, i) for p in (0, 1) for i in range(len(truth["pits"][p]))]
    places += [Place(0, "store"), Place(1, "store")]
    for place in places:
        count = (
            truth["stores"][place.player]
            if place.is_store
            else truth["pits"][place.player][int(place.pit)]
        )
        if count:
            actions.append({"t": t, "action": "grab", "at": place.to_json(), "hand": 0})
            actions.append({"t": t + 0.4, "action": "drop_off", "n": count, "hand": 0})
            t += 0.6
    return actions


def calibrate(
    config: Config,
    *,
    grams: float,
    ask: Ask = input,
    out: Out = print,
    speed: float | str | None = "config",
) -> int:
    """The interactive calibration; returns the exit status."""
    try:
        loop = BoardLoop(
            config,
            speed=speed,
            leds=NoLeds(0),
            buttons=None,
            out=out,
            holder="sowboard calibrate",
        )
    except DataDirLocked as err:
        out(f"cannot calibrate: {err}")
        return 2
    except HardwareError as err:
        out(f"{err} (is the sowboard service running? sudo systemctl stop sowboard)")
        return 2
    loop.start()
    try:
        return _calibrate(loop, grams, ask, out)
    finally:
        loop.stop()


def _command(loop: BoardLoop, args: dict[str, Any], out: Out) -> dict[str, Any] | None:
    for _attempt in range(20):
        try:
            return loop.link.command("calibrate", args)
        except CommandError as err:
            if "not at rest" not in err.message:
                out(f"  not done: {err.message}")
                return None
            time.sleep(0.25)
    out("  not done: the board never came to rest")
    return None


def _calibrate(loop: BoardLoop, grams: float, ask: Ask, out: Out) -> int:
    sim = loop.sim is not None
    out(
        f"Calibrating board {loop.board.name} ({loop.feed.cell_count} cells); "
        f"the file is {loop.calibration_path}"
    )
    if sim:
        out("(simulated board: the virtual hand does what is asked)")
    ask("1/3 Empty every cup (pits and stores), then press Enter: ")
    _act(loop, _empty_board(loop) if sim else [])
    result = _command(loop, {"stage": "empty"}, out)
    if result is None:
        return 1
    out(f"  zeros taken for {result['cells']} cells")
    places = loop.game.mapping.places
    done = 0
    for place in places:
        answer = (
            ask(
                f"2/3 Put the {grams:g} g weight in {place} alone, then press Enter "
                "(s: skip this place, q: skip the rest): "
            )
            .strip()
            .lower()
        )
        if answer == "q":
            break
        if answer == "s":
            continue
        press = {"t": 0.0, "action": "press", "at": place.to_json(), "g": grams, "dur": 4.0}
        _act(loop, [press] if sim else [], hold=1.5)
        result = _command(loop, {"stage": "reference", "grams": grams}, out)
        if result is not None:
            done += 1
            out(f"  {place}: cell {result['cell']}, {result['counts_per_g']} counts per gram")
    answer = (
        ask("3/3 Lay out the start position of the game, then press Enter (s: skip): ")
        .strip()
        .lower()
    )
    if answer != "s":
        if sim:
            counts = loop.game.follower(0).position()
            _act(
                loop,
                [
                    {"t": 0.1 * k, "action": "add", "at": [p, i], "n": n, "hand": 0}
                    for k, (p, i, n) in enumerate(
                        (p, i, n) for p in (0, 1) for i, n in enumerate(counts.pits[p]) if n
                    )
                ],
            )
        result = _command(loop, {"stage": "layout"}, out)
        if result is not None:
            out(f"  seeds weigh {result['seed_g']} g on average")
    loop.writer.flush()
    failed = loop.writes.failures().get(loop.calibration_path.name)
    if failed is not None:
        out(f"not saved: {failed}")
        return 1
    out(f"saved {loop.calibration_path} ({done} of {len(places)} cells with a reference)")
    return 0


# -- diag -----------------------------------------------------------------------------------------


def _check_import(module: str) -> str:
    try:
        importlib.import_module(module)
    except Exception as err:  # NotImplementedError on a PC for neopixel (HARDWARE.md)
        return f"missing ({type(err).__name__}: {str(err)[:80]})"
    return "ok"


def _device(path: str) -> str:
    if not os.path.exists(path):
        return "absent"
    return "ok" if os.access(path, os.R_OK | os.W_OK) else "no permission"


def diagnose(config: Config, *, sensors_s: float = 0.0) -> dict[str, Any]:
    """Everything `sowboard diag` prints, as JSON-able data."""
    data = config.data_dir
    report: dict[str, Any] = {
        "config": config.where,
        "board": config.board,
        "game": {"variant": config.variant, "options": dict(config.options), "mode": config.mode},
        "source": config.source,
        "leds": config.led_backend(),
        "web": f"http://{config.web.host}:{config.web.port}/",
        # (the hall's broker: never its password)
        "mqtt": {"url": config.mqtt.url or None, "board_id": config.mqtt.board_id},
        "data_dir": {
            "path": str(data),
            "writable": os.access(data, os.W_OK) if data.exists() else False,
        },
    }
    journal: dict[str, Any] = {"path": str(data / JOURNAL_FILE)}
    try:
        found = read_journal(data / JOURNAL_FILE)
        if found is None:
            journal["state"] = "none"
        else:
            replayed = replay(found)
            journal.update(
                state="ok" if not replayed.problems else "damaged",
                variant=found.variant,
                moves=len(replayed.follower.completed),
                steps=len(replayed.steps),
                problems=replayed.problems,
            )
    except (JournalError, ValueError) as err:
        journal.update(state="unusable", problems=[str(err)])
    report["journal"] = journal
    board = config.board_file()
    try:
        cal = load_calibration(data / CALIBRATION_FILE, board.name, len(board.cells))
        report["calibration"] = (
            "none"
            if cal is None
            else {
                "cells": len(cal.cells),
                "seed_g": cal.seed_g,
            }
        )
    except DataFileError as err:
        report["calibration"] = f"unusable: {err}"
    recordings = sorted((data / RECORDINGS_DIR).glob(f"rec-*{SUFFIX}"), key=os.path.getmtime)
    report["recordings"] = {
        "path": str(data / RECORDINGS_DIR),
        "count": len(recordings),
        "newest": recordings[-1].name if recordings else None,
    }
    if config.source == "sim":
        try:
            layout = load_sim_board(data / SIM_BOARD_FILE, config.board, config.rules())
            report["sim_board"] = "none" if layout is None else layout.position.to_json()
        except DataFileError as err:
            report["sim_board"] = f"unusable: {err}"
    user_groups = set()
    for gid in os.getgroups():
        with contextlib.suppress(KeyError):
            user_groups.add(grp.getgrgid(gid).gr_name)
    report["hardware"] = {
        "lgpio": _check_import("lgpio"),
        "neopixel": _check_import("neopixel"),
        "adafruit_raspberry_pi5_neopixel_write": _check_import(PI5_MODULE),
        "serial": _check_import("serial"),
        "gpiozero": _check_import("gpiozero"),
        "/dev/gpiochip0": _device("/dev/gpiochip0"),
        "/dev/spidev0.0": _device("/dev/spidev0.0"),
        "/dev/pio0": _device("/dev/pio0"),
        "groups": sorted(user_groups & {"gpio", "spi", "dialout"}),
    }
    report["led_driver"] = led_driver(config, read_pi_model())
    report["daemon"] = _daemon_state(config)
    if sensors_s > 0 and config.source != "sim":
        report["sensors"] = read_sensors(config, sensors_s)
    return report


def led_driver(config: Config, model: str | None) -> dict[str, Any]:
    """Which LED driver `sowboard run` uses and why: the NeoPixel backend picks it by the Pi
    model (a Pi 5 needs RP1's PIO, rpi_ws281x cannot drive it); other backends name theirs."""
    backend = config.led_backend()
    if backend != "neopixel":
        why = {
            "sim": "the simulated strip (the status page shows it)",
            "pico": "the Pico drives the LEDs (frames over the serial link)",
            "none": "leds.backend = none: no lights",
        }[backend]
        return {"driver": backend, "model": model, "why": why}
    return choose_led_driver(model).to_json()


def _daemon_url(config: Config, path: str) -> str:
    """The running daemon's web API on this machine."""
    host = "127.0.0.1" if config.web.host in ("0.0.0.0", "::") else config.web.host
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{config.web.port}{path}"


def _daemon_state(config: Config) -> Any:
    url = _daemon_url(config, "/api/state")
    try:
        with urllib.request.urlopen(url, timeout=1.0) as response:
            status = json.loads(response.read())
    except Exception as err:
        return f"not answering at {url} ({type(err).__name__})"
    daemon = status.get("daemon", {})
    return {
        "url": url,
        "state": daemon.get("state"),
        "moves": len(status.get("game", {}).get("history", [])),
        "active_flags": [f["kind"] for f in status.get("flags", []) if f.get("active")],
        "notices": [readable_notice(n) for n in daemon.get("notices", []) if isinstance(n, dict)],
    }


def readable_notice(notice: dict[str, Any]) -> dict[str, Any]:
    """A notice of the daemon's status (notices.py) for a person: its times as local ISO."""
    shown = dict(notice)
    for key in ("first_at", "at"):
        at = notice.get(key)
        if isinstance(at, int | float):
            shown[key] = datetime.fromtimestamp(at).isoformat(timespec="seconds")
    return shown


def read_sensors(config: Config, seconds: float) -> Any:
    board = config.board_file()
    try:
        source = open_source(config, len(board.cells), board.led_count)
    except HardwareError as err:
        return f"cannot open: {err}"
    frames = []
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            frame = source.read(0.5)
            if frame is not None:
                frames.append(frame)
    finally:
        source.close()
    calibration = _calibration_or_none(config, len(board.cells))
    out = []
    for spec in board.cells:
        cell = spec.cell
        values = [v for f in frames if (v := f.raw[cell]) is not None]
        row: dict[str, Any] = {
            "cell": cell,
            "place": list(spec.place),
            "readings": len(values),
            "missing": len(frames) - len(values),
            "raw_median": statistics.median(values) if values else None,
            "raw_spread": (max(values) - min(values)) if values else None,
        }
        if calibration is not None and values:
            offset, scale = calibration.cells[cell]
            grams = [(v - offset) / scale for v in values]
            row["grams"] = round(statistics.median(grams), 2)
            row["noise_g"] = round(statistics.pstdev(grams), 3) if len(grams) > 1 else None
        out.append(row)
    rate = (len(frames) - 1) / (frames[-1].t - frames[0].t) if len(frames) > 1 else 0.0
    return {"frames": len(frames), "rate_sps": round(rate, 1), "cells": out}


def _calibration_or_none(config: Config, cell_count: int) -> Any:
    """The calibration file's cells when there is a usable one (grams), else None (raw only)."""
    try:
        return load_calibration(config.data_dir / CALIBRATION_FILE, config.board, cell_count)
    except DataFileError:
        return None


def led_test(config: Config, *, step_s: float = 0.3, out: Out = print) -> list[str]:
    """Light every place in turn (white), then the whole strip red, green, blue, then off.

    A person watching the board sees at once a dead LED, a swapped colour order (red showing
    green means GRB/RGB is wrong in the configuration) or LEDs wired to the wrong place.
    Each step is one JSON line, as the rest of `sowboard diag` is JSON.
    """
    from controller.leds.patterns import WHITE, Light, render

    from .hardware import open_leds

    board = config.board_file()
    mapping = board.mapping(board.pits)
    source = None
    if config.led_backend() == "pico":
        source = open_source(config, len(board.cells), board.led_count)
    leds = open_leds(config, board.led_count, source)
    shown: list[str] = []

    def say(line: dict[str, Any]) -> None:
        shown.append(json.dumps(line))
        out(shown[-1])

    brightness = config.leds.brightness
    budget = config.leds.max_current_a
    try:
        for place in mapping.places:
            light = {place: Light(WHITE, "steady", "test")}
            leds.show(
                render(
                    light,
                    mapping.leds_of,
                    board.led_count,
                    0.0,
                    brightness=brightness,
                    max_current_a=budget,
                )
            )
            say({"lit": "place", "place": place.to_json(), "color": "white"})
            time.sleep(step_s)
        for name, rgb in (("red", (255, 0, 0)), ("green", (0, 255, 0)), ("blue", (0, 0, 255))):
            level = tuple(round(c * brightness) for c in rgb)
            leds.show([level] * board.led_count)  # type: ignore[list-item]
            say({"lit": "all", "color": name})
            time.sleep(step_s * 2)
        leds.show([(0, 0, 0)] * board.led_count)
        say({"lit": "all", "color": "off"})
    finally:
        leds.close()
        if source is not None:
            source.close()
    return shown


def button_test(
    config: Config, seconds: float, *, out: Out = print, pin_factory: Any = None
) -> list[str]:
    """Report every board button pressed within `seconds` (buttons must be enabled), one
    JSON line each."""
    from .hardware import open_buttons

    buttons = open_buttons(config, pin_factory=pin_factory)
    if buttons is None:
        out(json.dumps({"note": "buttons are not enabled ([buttons] enabled = true)"}))
        return []
    pressed: list[str] = []
    out(json.dumps({"note": f"press the board's buttons within {seconds:g} s"}))
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for name in buttons.drain():
                pressed.append(name)
                out(json.dumps({"pressed": name}))
            time.sleep(0.02)
        for name in buttons.drain():
            pressed.append(name)
            out(json.dumps({"pressed": name}))
    finally:
        buttons.close()
    return pressed


# -- record ---------------------------------------------------------------------------------------


class RecordError(Exception):
    """`sowboard record` could not get a recording; the message says why."""


def _api(url: str, pin: str | None = None, body: dict[str, Any] | None = None) -> Any:
    """GET (or with `body`, POST with the admin PIN) a daemon API URL; RecordError on failure."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", "application/json")
        request.add_header("X-Sowboard-Pin", pin or "")
    try:
        with urllib.request.urlopen(request, timeout=15.0) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as err:
        why = f"HTTP {err.code}"
        with contextlib.suppress(Exception):
            why = str(json.loads(err.read())["error"])
        raise RecordError(f"the daemon refused: {why}") from None
    except (OSError, ValueError) as err:
        raise RecordError(f"no daemon answers at {url} ({err})") from None


def record(config: Config, seconds: float | None, wait_s: float = 30.0) -> str:
    """Ask the running daemon for a recording and wait until it is written; its path."""
    pin = config.web.admin_pin
    if pin is None:
        raise RecordError(
            f"web.admin_pin is empty in {config.where}: recordings are asked for through the "
            "admin API (or the admin page's button), which needs a PIN"
        )
    body = {} if seconds is None else {"seconds": seconds}
    answer = _api(_daemon_url(config, "/api/admin/save_recording?by=cli"), pin, body)
    name = answer["result"]["file"]
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        daemon = _api(_daemon_url(config, "/api/state")).get("daemon", {})
        recorder = daemon.get("recorder", {})
        if recorder.get("last") == name:
            return os.path.join(daemon.get("data_dir", str(config.data_dir)), "recordings", name)
        error = recorder.get("error") or ""
        if error.startswith(name):
            raise RecordError(f"the daemon could not write the recording: {error}")
        time.sleep(0.2)
    raise RecordError(f"the daemon did not write {name} within {wait_s:g} s")
