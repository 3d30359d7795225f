"""Every numeric argument of `sowboard` is checked by argparse, through the real parser: a value
out of range is one line naming the argument and the allowed range (exit status 2), never a
traceback, never silently the default, never a benchmark of minus one second."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controller import cli

# (the command line, the argument and the range the error must name)
REFUSED = [
    (["bench", "tracking", "--rounds", "0"], "--rounds", "a whole number from 1 to 1000"),
    (["bench", "tracking", "--rounds", "1.5"], "--rounds", "is not a whole number"),
    (["bench", "openings", "--games", "-2"], "--games", "a whole number from 1 to 100000"),
    (["bench", "openings", "--games", "0"], "--games", "from 1"),
    (["bench", "openings", "--daemon", "--games", "0"], "--games", "from 1"),
    (["bench", "openspiel", "--games", "0"], "--games", "from 1"),
    (["bench", "web", "--seconds", "-1"], "--seconds", "more than 0 to 3600 (seconds)"),
    (["bench", "web", "--seconds", "0"], "--seconds", "more than 0"),
    (["bench", "web", "--seconds", "nan"], "--seconds", "out of range"),
    (["bench", "rules", "--seconds", "0"], "--seconds", "more than 0"),
    (["bench", "web", "--clients", "0"], "--clients", "a whole number from 1 to 196"),
    (["bench", "web", "--clients", "500"], "--clients", "from 1 to 196"),
    (["bench", "rules", "--repeats", "0"], "--repeats", "a whole number from 1 to 100"),
    (["diag", "--sensors", "-3"], "--sensors", "a number from 0 to 3600 (seconds)"),
    (["diag", "--sensors", "inf"], "--sensors", "out of range"),
    (["diag", "--buttons", "-1"], "--buttons", "from 0 to 3600"),
    (["diag", "--buttons", "soon"], "--buttons", "'soon' is not a number"),
    (["calibrate", "--grams", "0"], "--grams", "more than 0 to 100000 (grams)"),
    (["calibrate", "--grams", "-100"], "--grams", "more than 0"),
    (["bench", "humans", "--games", "0"], "--games", "from 1"),
    (["bench", "humans", "--first", "0"], "--first", "a whole number from 1 to 100000"),
    (["record", "--seconds", "-1"], "--seconds", "more than 0 to 3600 (seconds)"),
    (["bench", "kills", "--kills", "0"], "--kills", "a whole number from 1 to 10000"),
    (["bench", "soak", "--hours", "0"], "--hours", "more than 0 to 48 (simulated hours)"),
    (["bench", "fuzz", "--requests", "-5"], "--requests", "a whole number from 1 to 100000"),
]


@pytest.mark.parametrize(("argv", "argument", "allowed"), REFUSED)
def test_a_number_out_of_range_is_refused_with_the_range(
    capsys: pytest.CaptureFixture[str], argv: list[str], argument: str, allowed: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)

    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argument}: " in err
    assert allowed in err
    assert "Traceback" not in err


def record_call(monkeypatch: pytest.MonkeyPatch, module: str) -> list[dict[str, Any]]:
    """Replace `module.main` by a recorder of its keyword arguments."""
    calls: list[dict[str, Any]] = []

    def main(**kwargs: Any) -> int:
        calls.append(kwargs)
        return 0

    monkeypatch.setattr(f"{module}.main", main)
    return calls


BENCHMARKS: list[tuple[list[str], str, dict[str, Any]]] = [
    (["bench", "rules"], "controller.bench.rules", {"seconds": 2.0, "repeats": 5}),
    (["bench", "rules", "--seconds", "0.5"], "controller.bench.rules", {"seconds": 0.5}),
    (["bench", "web"], "controller.daemon.benchweb", {"seconds": 30.0, "clients": 50}),
    (["bench", "web", "--seconds", "3"], "controller.daemon.benchweb", {"seconds": 3.0}),
    (["bench", "openspiel"], "controller.bench.openspiel", {"games": 1000}),
    (["bench", "openspiel", "--games", "7"], "controller.bench.openspiel", {"games": 7}),
    (["bench", "tracking"], "controller.bench.tracking", {"rounds": 1}),
    (["bench", "tracking", "--rounds", "3"], "controller.bench.tracking", {"rounds": 3}),
    (["bench", "openings"], "controller.bench.openings", {"games": 100}),
    (["bench", "openings", "--games", "1"], "controller.bench.openings", {"games": 1}),
    (["bench", "openings", "--daemon"], "controller.bench.daemon_openings", {"games": 40}),
    (["bench", "humans"], "controller.bench.humans", {"games": 96, "profile": None, "first": 1}),
    (
        ["bench", "humans", "--first", "97", "--games", "504"],
        "controller.bench.humans",
        {"games": 504, "first": 97},
    ),
    (
        ["bench", "humans", "--games", "5", "--profile", "child"],
        "controller.bench.humans",
        {"games": 5, "profile": "child"},
    ),
    (["bench", "kills"], "controller.bench.kills", {"kills": 100}),
    (["bench", "kills", "--kills", "3"], "controller.bench.kills", {"kills": 3}),
    (["bench", "soak"], "controller.bench.soak", {"hours": 8.0, "kiosk": False}),
    (["bench", "soak", "--hours", "0.5"], "controller.bench.soak", {"hours": 0.5}),
    (["bench", "soak", "--kiosk"], "controller.bench.soak", {"hours": 8.0, "kiosk": True}),
    (["bench", "child"], "controller.bench.child", {"games": 100}),
    (["bench", "undo", "--games", "9"], "controller.bench.undo", {"games": 9}),
    (
        ["bench", "child", "--games", "3", "--preset", "oware"],
        "controller.bench.child",
        {"games": 3, "presets": ("oware",)},
    ),
    (["bench", "fuzz"], "controller.bench.fuzz", {"requests": 2000}),
    (["bench", "fuzz", "--requests", "300"], "controller.bench.fuzz", {"requests": 300}),
    (["bench", "damage"], "controller.bench.damage", {}),
]


@pytest.mark.parametrize(("argv", "module", "expected"), BENCHMARKS)
def test_a_benchmark_gets_its_default_or_the_value_given(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], module: str, expected: dict[str, Any]
) -> None:
    calls = record_call(monkeypatch, module)

    assert cli.main(argv) == 0

    (call,) = calls
    assert {key: call[key] for key in expected} == expected
    assert all(type(call[key]) is type(value) for key, value in expected.items())


@pytest.mark.parametrize(
    ("argv", "function", "expected"),
    [
        (["diag", "--sensors", "2.5"], "diagnose", {"sensors_s": 2.5}),
        (["diag"], "diagnose", {"sensors_s": 0.0}),
        (["calibrate", "--grams", "200"], "calibrate", {"grams": 200.0}),
    ],
)
def test_tools_get_the_checked_values(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], function: str, expected: dict[str, Any]
) -> None:
    calls: list[dict[str, Any]] = []
    answers: dict[str, Callable[..., Any]] = {
        "diagnose": lambda config, **kw: calls.append(kw) or {},
        "calibrate": lambda config, **kw: calls.append(kw) or 0,
    }
    monkeypatch.setattr(f"controller.daemon.tools.{function}", answers[function])

    assert cli.main(argv) == 0
    assert calls == [expected]


def bad_out(tmp_path: Any) -> list[str]:
    (tmp_path / "a-file").write_text("not a directory")
    return ["selfplay", "--games", "1", "--out", str(tmp_path / "a-file")]


def bad_out_below_a_file(tmp_path: Any) -> list[str]:
    (tmp_path / "a-file").write_text("not a directory")
    return ["selfplay", "--games", "1", "--out", str(tmp_path / "a-file" / "sub")]


def hall_host_unknown(tmp_path: Any) -> list[str]:
    return ["hall", "--mqtt", "mqtt://127.0.0.1:1", "--host", "nosuch.invalid", "--port", "0"]


def run_host_unknown(tmp_path: Any) -> list[str]:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[web]\nhost = "nosuch.invalid"\nport = 0\n[data]\ndir = "{tmp_path / "data"}"\n'
    )
    return ["run", "--config", str(config)]


def scenario_with_an_empty_pit(tmp_path: Any) -> list[str]:
    """A scenario whose second move is from a pit the first emptied: the file parses, and the
    virtual player finds the move impossible only when it plans it."""
    import json
    from pathlib import Path

    scenario = json.loads((Path(__file__).parent / "scenarios/congkak_extra_turn.json").read_text())
    scenario["moves"][1] = 0
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    return ["simulate", str(tmp_path / "s.json")]


def scenario_with_a_list_for_an_action(tmp_path: Any) -> list[str]:
    import json
    from pathlib import Path

    scenario = json.loads((Path(__file__).parent / "scenarios/flag_extra_seed.json").read_text())
    scenario["actions"][0]["action"] = [[]]
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    return ["simulate", str(tmp_path / "s.json")]


def recording_with(tmp_path: Any, key: str, value: Any) -> list[str]:
    """The test recording with its header's `key` (a path of keys and indexes) set to
    `value`: json writes NaN and Infinity, as a damaged or forged file may hold them."""
    import gzip
    import json
    from pathlib import Path

    source = Path(__file__).parent / "recordings/congkak7_foreign_seed_sim.jsonl.gz"
    with gzip.open(source, "rt") as recording:
        lines = [json.loads(line) for line in recording]
    *path, last = key.split(".")
    node = lines[0]
    for part in path:
        node = node[int(part) if part.isdigit() else part]
    node[int(last) if last.isdigit() else last] = value
    with gzip.open(tmp_path / "r.jsonl.gz", "wt") as out:
        out.writelines(json.dumps(line) + "\n" for line in lines)
    return ["simulate", "--frames", str(tmp_path / "r.jsonl.gz")]


def recording_nan_offset(tmp_path: Any) -> list[str]:
    return recording_with(tmp_path, "calibration.0.0", float("nan"))


def recording_infinite_rate(tmp_path: Any) -> list[str]:
    return recording_with(tmp_path, "rate_sps", float("inf"))


# (a command line made in tmp_path, what the one line must say)
FAILS_CLEANLY = [
    (recording_nan_offset, "calibration"),
    (recording_infinite_rate, "'rate_sps' must be a number"),
    (scenario_with_a_list_for_an_action, "actions[0].action: [[]] is not an action"),
    (scenario_with_an_empty_pit, "moves[1]: pit 0: pit 0 of player 0 is empty"),
    (bad_out, "a-file"),
    (bad_out_below_a_file, "a-file/sub"),
    (hall_host_unknown, "--host nosuch.invalid"),
    (run_host_unknown, "web.host = 'nosuch.invalid'"),
]


@pytest.mark.parametrize(("make_argv", "names"), FAILS_CLEANLY)
def test_a_value_that_cannot_be_used_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Any, make_argv: Any, names: str
) -> None:
    argv = make_argv(tmp_path)

    assert cli.main(argv) == 2

    err = capsys.readouterr().err
    assert err.startswith(f"sowboard {argv[0]}: ")
    assert names in err
    assert f"sowboard {argv[0]}: sowboard" not in err  # the command is named once


def test_a_large_whole_range_is_written_out(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["selfplay", "--seed", "-1"])

    assert "from 0 to 2147483647" in capsys.readouterr().err


def test_hall_with_a_bad_url_names_the_command_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["hall", "--mqtt", "ftp://x"]) == 2

    err = capsys.readouterr().err
    assert err.startswith("sowboard hall: --mqtt")
    assert err.count("sowboard hall") == 1
