"""The `sowboard` command."""

from __future__ import annotations

import argparse
import json
import math
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller.physical import PROFILE_NAMES
from controller.rules import VARIANTS, OptionError, find_variant
from controller.rules.options import describe_option, parse_option_assignment
from controller.rules.record import RecordError, parse_record, replay


class CommandError(Exception):
    """A user error: printed as one line, exit status 2 (never a traceback)."""


def number_in(
    low: float, high: float, *, whole: bool = False, low_open: bool = False, unit: str = ""
) -> Callable[[str], float]:
    """An argparse type: a number from `low` to `high` (above `low` when `low_open`).

    A value out of range is refused by argparse with the range in the message, so that
    `--rounds 0` is not a traceback, `--games 0` not silently the default, and
    `--seconds -1` not a benchmark of minus one second.
    """
    kind = "a whole number" if whole else "a number"
    form = ".0f" if whole else "g"  # a whole range is written out: 2147483647, not 2.14748e+09
    start = f"more than {low:{form}}" if low_open else f"from {low:{form}}"
    allowed = f"{kind} {start} to {high:{form}}" + (f" ({unit})" if unit else "")

    def parse(text: str) -> float:
        try:
            value = int(text) if whole else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {kind}; allowed: {allowed}"
            ) from None
        too_low = value <= low if low_open else value < low
        if not math.isfinite(value) or too_low or value > high:
            raise argparse.ArgumentTypeError(f"{text} is out of range; allowed: {allowed}")
        return value

    return parse


def given(value: float | None, default: float) -> float:
    """The option's value, or the benchmark's own default when it was not given (not when it
    is 0: that is refused by its type)."""
    return default if value is None else value


def _parse_overrides(assignments: Sequence[str] | None) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for text in assignments or ():
        try:
            name, value = parse_option_assignment(text)
        except OptionError as err:
            raise CommandError(f"--option: {err}") from None
        overrides[name] = value
    return overrides


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.record)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CommandError(f"{path}: cannot read: {err}") from None
    overrides = _parse_overrides(args.option)
    try:
        record = parse_record(text, variant=args.variant)
        out = sys.stdout
        for line in replay(record, overrides):
            out.write(json.dumps(line, separators=(", ", ": ")) + "\n")
    except RecordError as err:
        sys.stdout.flush()
        raise CommandError(f"{path}: {err}") from None
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    names = [args.variant] if args.variant else list(VARIANTS)
    for name in names:
        try:
            variant = find_variant(name)
        except OptionError as err:
            raise CommandError(str(err)) from None
        options = variant.options().to_json()
        print(f"{variant.name}: {variant.description}")
        for option, value in options.items():
            allowed, meaning = describe_option(option)
            restricted = variant.restrict.get(option)
            if restricted is not None:
                allowed = "one of " + ", ".join(json.dumps(v) for v in restricted)
            print(f"  {option:26} {json.dumps(value):18} {meaning}; {allowed}")
        print()
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    if (args.scenario is None) == (args.frames is None):
        raise CommandError("give a scenario file or --frames RECORDING (one of them)")
    if args.frames is not None:
        return _simulate_frames(args.frames, args.compact)
    from controller.sim import ScenarioError, load_scenario
    from controller.simulate import report, run_simulation

    try:  # a move the file names may prove impossible only when the player plans it
        simulation, referee = run_simulation(load_scenario(args.scenario))
    except ScenarioError as err:
        raise CommandError(str(err)) from None
    print(json.dumps(report(simulation, referee), indent=None if args.compact else 1))
    return 0


def _simulate_frames(path: str, compact: bool) -> int:
    """The referee over a recording; status 1 when it differs from the live referee."""
    from controller.sensing.recording import RecordingError, load_recording
    from controller.simulate import recording_report, run_recording

    try:
        recording = load_recording(path)
        result = recording_report(recording, run_recording(recording))
    except RecordingError as err:
        raise CommandError(str(err)) from None
    print(json.dumps(result, indent=None if compact else 1))
    return 1 if result["live"]["same"] is False else 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    from controller.selfplay import SelfPlayError
    from controller.selfplay import main as selfplay

    options = _parse_overrides(args.option)
    try:
        report = selfplay(args.games, args.variant, options, args.sim, Path(args.out), args.seed)
    except SelfPlayError as err:
        raise CommandError(str(err)) from None
    print(json.dumps(report))
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    from controller.daemon.tools import RecordError, record

    config = _config(args)
    try:
        print(record(config, args.seconds))
    except RecordError as err:
        raise CommandError(str(err)) from None
    return 0


def _config(args: argparse.Namespace) -> Any:
    """The daemon's configuration (`--config`, else the default file or built-in defaults)."""
    from controller.daemon.config import DEFAULT_PATH, ConfigError, load_config

    try:
        if args.config is None:
            return load_config(DEFAULT_PATH)
        return load_config(args.config, explicit=True)
    except ConfigError as err:
        raise CommandError(str(err)) from None


def cmd_run(args: argparse.Namespace) -> int:
    if args.example_config:
        from controller.daemon.config import EXAMPLE

        print(EXAMPLE, end="")
        return 0
    from controller.daemon.datalock import DataDirLocked
    from controller.daemon.hardware import HardwareError
    from controller.daemon.run import StartError, run

    config = _config(args)
    try:
        return run(config)
    except (HardwareError, StartError, DataDirLocked) as err:
        raise CommandError(str(err)) from None


def cmd_hall(args: argparse.Namespace) -> int:
    from controller.daemon.config import ConfigError, parse_config
    from controller.hall.serve import run_hall

    password = ""
    if args.password_file:
        try:
            password = Path(args.password_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            raise CommandError(f"--password-file: cannot read: {err}") from None
    keys = {
        "url": args.mqtt,
        "board_id": "hall",
        "topic_prefix": args.prefix,
        "user": args.user or "",
        "password": password,
        "ca_file": args.ca_file or "",
    }
    try:  # the same checks as the daemon's [mqtt] section
        settings = parse_config({"mqtt": keys}, "sowboard hall").mqtt
    except ConfigError as err:  # its text begins with where: "sowboard hall: "
        text = str(err).removeprefix("sowboard hall: ")
        raise CommandError(text.replace("mqtt.url", "--mqtt")) from None
    if not settings.enabled:
        raise CommandError("--mqtt: give the broker's URL, e.g. mqtt://broker.local:1883")
    try:
        client_id = args.client_id or f"sowboard-hall-{socket.gethostname()}"[:64]
        return run_hall(settings, args.host, args.port, client_id)
    except OSError as err:
        raise CommandError(f"--host {args.host} --port {args.port}: {err}") from None


def cmd_calibrate(args: argparse.Namespace) -> int:
    from controller.daemon.tools import calibrate

    config = _config(args)
    try:
        return calibrate(config, grams=args.grams)
    except (EOFError, KeyboardInterrupt):
        print()
        return 1


def cmd_diag(args: argparse.Namespace) -> int:
    from controller.daemon.tools import diagnose

    config = _config(args)
    if args.leds or args.buttons:
        from controller.daemon.hardware import HardwareError
        from controller.daemon.tools import button_test, led_test

        try:
            if args.leds:
                led_test(config)
            if args.buttons:
                button_test(config, args.buttons)
        except HardwareError as err:
            raise CommandError(str(err)) from None
        return 0
    report = diagnose(config, sensors_s=args.sensors)
    print(json.dumps(report, indent=1))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "rules":
        from controller.bench.rules import main as bench_rules

        return bench_rules(seconds=given(args.seconds, 2.0), repeats=args.repeats)
    if args.what == "web":
        from controller.daemon.benchweb import main as bench_web

        return bench_web(
            seconds=given(args.seconds, 30.0),
            clients=args.clients,
            verbose=args.verbose,
            level=None if args.level is None else int(args.level),
        )
    if args.what == "openspiel":
        from controller.bench.openspiel import main as bench_openspiel

        return bench_openspiel(games=int(given(args.games, 1000)))
    if args.what == "opponent":
        from controller.bench.opponent import MATCHES
        from controller.bench.opponent import main as bench_opponent

        matches = MATCHES if args.match is None else (args.match,)
        return bench_opponent(
            games=int(given(args.games, 100)), seconds=given(args.seconds, 0.4), matches=matches
        )
    if args.what == "tracking":
        from controller.bench.tracking import main as bench_tracking

        return bench_tracking(rounds=args.rounds, verbose=args.verbose)
    if args.what == "humans":
        from controller.bench.humans import main as bench_humans

        games = 96 if args.games is None else args.games
        return bench_humans(
            games=games, profile=args.profile, verbose=args.verbose, first=args.first
        )
    if args.what == "pi-reader":
        from controller.bench.pi_reader import main as bench_pi_reader

        return bench_pi_reader(
            seconds=60.0 if args.seconds is None else args.seconds,
            busy=args.busy,
            clients=args.clients,
            reader=args.reader,
        )
    if args.what == "undo":
        from controller.bench.undo import main as bench_undo

        return bench_undo(games=int(given(args.games, 100)))
    if args.what == "child":
        from controller.bench.child import PRESETS
        from controller.bench.child import main as bench_child

        presets = tuple(PRESETS) if args.preset is None else (args.preset,)
        return bench_child(games=int(given(args.games, 100)), presets=presets)
    if args.what == "openings" and args.daemon:
        from controller.bench.daemon_openings import main as bench_daemon_openings

        return bench_daemon_openings(games=int(given(args.games, 40)))
    if args.what == "openings":
        from controller.bench.openings import main as bench_openings

        return bench_openings(games=int(given(args.games, 100)), verbose=args.verbose)
    return _bench_daemon(args)


def _bench_daemon(args: argparse.Namespace) -> int:
    """The benches that attack `sowboard run` from outside (issue 13's targets)."""
    if args.what == "kills":
        from controller.bench.kills import main as bench_kills

        return bench_kills(kills=args.kills)
    if args.what == "soak":
        from controller.bench.soak import main as bench_soak

        return bench_soak(hours=args.hours, kiosk=args.kiosk)
    if args.what == "fuzz":
        from controller.bench.fuzz import main as bench_fuzz

        return bench_fuzz(requests=args.requests)
    if args.what == "damage":
        from controller.bench.damage import main as bench_damage

        return bench_damage()
    if args.what == "hall":
        from controller.bench.hall import main as bench_hall

        return bench_hall(
            boards=args.boards,
            seconds=given(args.seconds, 60.0),
            outage_s=args.outage,
            without_mqtt=args.control,
        )
    raise CommandError(f"bench: unknown benchmark {args.what!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sowboard", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay a game record, one JSON line per move")
    p.add_argument("record", help="the record file (JSON)")
    p.add_argument("--variant", help="play the record as this variant")
    p.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help="override an option (repeatable)"
    )
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("rules", help="list the variants and their options with defaults")
    p.add_argument("variant", nargs="?", help="only this variant")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser(
        "simulate",
        help="run the referee on the simulated board (or a recording), print a report",
        description="Run the referee on a simulated scenario, or with --frames over a "
        "recording of the daemon's frames; then it also says whether the steps and flags "
        "equal the live ones recorded (exit status 1 when they differ).",
    )
    p.add_argument("scenario", nargs="?", help="the scenario file (JSON, see SIMULATION.md)")
    p.add_argument(
        "--frames", metavar="RECORDING", help="a recording (.jsonl.gz) instead of a scenario"
    )
    p.add_argument("--compact", action="store_true", help="one line of JSON")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "selfplay",
        help="games without a person: random legal moves, records and a summary",
        description="Play GAMES games of random legal moves, by the rules engine alone or "
        "(--sim) by the virtual hands on the simulated board with the referee following; "
        "each record goes to OUT/game-NNNN.json, the summary to OUT/summary.json and is "
        "printed (one JSON line).",
    )
    p.add_argument(
        "--games", type=number_in(1, 100000, whole=True), default=10, help="games to play (10)"
    )
    p.add_argument("--variant", choices=VARIANTS, default="congkak", help="(congkak)")
    p.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)"
    )
    p.add_argument("--sim", action="store_true", help="on the simulated board, refereed")
    p.add_argument("--out", default="selfplay", help="where the records go (./selfplay)")
    p.add_argument(
        "--seed", type=number_in(0, 2**31 - 1, whole=True), default=1, help="first game's seed (1)"
    )
    p.set_defaults(func=cmd_selfplay)

    p = sub.add_parser(
        "run",
        help="the board daemon: sensors, referee, lights and the status page",
        description="Run the board daemon. Without hardware configured it runs the simulated "
        "board. The configuration is TOML (--example-config prints every key with its default).",
    )
    p.add_argument(
        "--config",
        help="the configuration file (default /etc/sowboard/config.toml; built-in defaults "
        "when that file does not exist)",
    )
    p.add_argument(
        "--example-config", action="store_true", help="print a configuration with every key"
    )
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "hall",
        help="the hall of boards: every board that publishes to an MQTT broker, on one page",
        description="Subscribe to the boards' topics on the broker (their [mqtt] section) and "
        "serve a page with a small live board for each, whose turn it is, their flags; "
        "boards that went offline greyed.",
    )
    p.add_argument("--mqtt", required=True, metavar="URL", help="mqtt://host:1883 or mqtts://...")
    p.add_argument("--prefix", default="sowboard", help="the boards' topic prefix (sowboard)")
    p.add_argument("--user", help="the broker's user name")
    p.add_argument("--password-file", help="a file holding the broker's password")
    p.add_argument("--ca-file", help="mqtts: the CA bundle (default: the system's)")
    p.add_argument(
        "--client-id",
        help="the hall's MQTT client id; the broker keeps its session (default "
        "sowboard-hall-HOSTNAME: two halls on one machine need two ids)",
    )
    p.add_argument("--host", default="127.0.0.1", help="where to serve the page (127.0.0.1)")
    p.add_argument(
        "--port", type=number_in(0, 65535, whole=True), default=8090, help="(8090; 0: any free)"
    )
    p.set_defaults(func=cmd_hall)

    p = _tool(
        sub,
        "calibrate",
        cmd_calibrate,
        help="calibrate the load cells at the terminal (the daemon must be stopped)",
    )
    p.add_argument(
        "--grams",
        type=number_in(0, 100000, low_open=True, unit="grams"),
        default=100.0,
        help="the reference weight in grams (default 100)",
    )

    p = _tool(
        sub,
        "diag",
        cmd_diag,
        help="what a support call needs: configuration, data files, hardware (JSON)",
    )
    seconds = number_in(0, 3600, unit="seconds")
    p.add_argument(
        "--sensors",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="also read the real load cells this long (the daemon must be stopped)",
    )
    p.add_argument(
        "--leds", action="store_true", help="LED test: each place white in turn, then R, G, B"
    )
    p.add_argument(
        "--buttons", type=seconds, default=0.0, metavar="SECONDS", help="button test this long"
    )

    p = _tool(
        sub,
        "record",
        cmd_record,
        help="ask the running daemon to save a recording of its last frames",
        description="Ask the running daemon (its local web API, with the admin PIN from the "
        "configuration) to save a recording of the last SECONDS of raw frames, steps and "
        "flags in <data dir>/recordings/; prints the file's path.",
    )
    p.add_argument(
        "--seconds",
        type=number_in(0, 3600, low_open=True, unit="seconds"),
        default=None,
        help="at least this many seconds (default: all the daemon holds, [recorder] seconds)",
    )

    _add_bench(sub.add_parser("bench", help="benchmarks that print figures"))
    return parser


def _tool(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    func: Callable[[argparse.Namespace], int],
    **kw: Any,
) -> argparse.ArgumentParser:
    """A command that reads the daemon's configuration file (`--config`, as `run` does)."""
    p = sub.add_parser(name, **kw)
    p.add_argument("--config", help="the configuration file (as for run)")
    p.set_defaults(func=func)
    return p


BENCHMARKS = (
    "rules",
    "tracking",
    "openings",
    "openspiel",
    "web",
    "humans",
    "pi-reader",
    "opponent",
    "kills",
    "soak",
    "fuzz",
    "damage",
    "hall",
    "child",
    "undo",
)

# `sowboard bench`'s numeric options: (option, its type, default, help). A default of None is
# the benchmark's own (`given`), named in the help; every value is checked by its type.
BENCH_NUMBERS: tuple[tuple[str, Callable[[str], float], float | None, str], ...] = (
    (
        "--seconds",
        number_in(0, 3600, low_open=True, unit="seconds"),
        None,
        "rules: seconds per measurement (2); web: seconds of streaming (30); "
        "pi-reader: seconds per reader (60); opponent: think time a move (0.4)",
    ),
    ("--busy", number_in(0, 16, whole=True), 2, "pi-reader: busy Python threads in the daemon (2)"),
    (
        "--level",
        number_in(1, 5, whole=True),
        None,
        "web: the computer plays player 2 at this level (1 s a move) while the demo plays "
        "player 1, and the loop's lag while the engine thinks is reported (default: no computer)",
    ),
    # the daemon under test serves clients + 4 streams, and web.max_streams is at most 200
    ("--clients", number_in(1, 196, whole=True), 50, "web, pi-reader: live event streams (50)"),
    ("--repeats", number_in(1, 100, whole=True), 5, "measurements per figure (median)"),
    ("--rounds", number_in(1, 1000, whole=True), 1, "tracking: games per configuration pair"),
    (
        "--first",
        number_in(1, 100000, whole=True),
        1,
        "humans: the number of the first game (1): each game is the same whatever the run "
        "starts with, so a long run may be split among processes, or games held out",
    ),
    (
        "--games",
        number_in(1, 100000, whole=True),
        None,
        "openspiel: random games per rule set (1000); openings: per configuration (100; "
        "with --daemon 40); humans: games in all (96, one of each configuration); "
        "opponent: games per match (100); child: games per preset (100); undo: moves undone (100)",
    ),
    (
        "--kills",
        number_in(1, 10000, whole=True),
        100,
        "kills: SIGKILLs of the daemon in demo mode (100)",
    ),
    (
        "--hours",
        number_in(0, 48, low_open=True, unit="simulated hours"),
        8.0,
        "soak: simulated hours of demo at speed 50 (8)",
    ),
    (
        "--requests",
        number_in(1, 100000, whole=True),
        2000,
        "fuzz: requests in all, spread over every endpoint (2000)",
    ),
    (
        "--boards",
        number_in(1, 50, whole=True),
        20,
        "hall: demo boards publishing to one broker (20)",
    ),
    (
        "--outage",
        number_in(0, 600, unit="seconds"),
        10.0,
        "hall: seconds the broker is stopped a third of the way in (10; 0: never)",
    ),
)

# (option, its choices, default, help)
BENCH_CHOICES: tuple[tuple[str, Sequence[str], str | None, str], ...] = (
    (
        "--reader",
        ("all", "thread", "process-normal", "process"),
        "all",
        "pi-reader: which reader to measure (all)",
    ),
    (
        "--preset",
        ("congkak", "congkak-opening", "kalah", "oware"),
        None,
        "child: only this preset (default: all four)",
    ),
    (
        "--match",
        ("kalah_6_4_vs_openspiel_mcts", "oware_vs_openspiel_mcts", "congkak_7_vs_level_1"),
        None,
        "opponent: only this match (default: all three)",
    ),
    (
        "--profile",
        PROFILE_NAMES,
        None,
        "humans: only this behaviour profile (default: every profile)",
    ),
)

BENCH_FLAGS: tuple[tuple[str, str], ...] = (
    ("--daemon", "openings: on the daemon's own loop and virtual hands instead of scenarios"),
    ("--kiosk", "soak: set the daemon up as a museum exhibit and load its kiosk page each sample"),
    ("--control", "hall: the same daemons without [mqtt], for their loop lag alone"),
    ("--verbose", "tracking: a line per game; web: daemon messages"),
)


def _add_bench(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=BENCHMARKS, help="what to measure")
    for option, kind, default, text in BENCH_NUMBERS:
        p.add_argument(option, type=kind, default=default, help=text)
    for option, choices, chosen, text in BENCH_CHOICES:
        p.add_argument(option, choices=choices, default=chosen, help=text)
    for option, text in BENCH_FLAGS:
        p.add_argument(option, action="store_true", help=text)
    p.set_defaults(func=cmd_bench)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except CommandError as err:
        print(f"sowboard {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
