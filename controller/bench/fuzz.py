"""`sowboard bench fuzz [--requests N]`: every endpoint of the page attacked with fuzzed
requests while the simulated board is played.

The daemon (loop + waitress) runs in this process on the simulated board, with an admin PIN;
a child process at the lowest CPU priority (so that building requests competes with the loop
neither for this interpreter's lock nor for the machine's CPUs: on the board the attackers
are other machines; at normal priority the clients took a CPU and the loop's lag p99 tripled)
sends N requests spread over every route of the web application (listed
from its URL map, so a new endpoint is fuzzed without being named here) and a few that do not
exist: every method, good and bad Content-Type, Origin and Host, deeply nested, huge, truncated,
non-UTF-8 and wrongly typed bodies, absurd numbers, malformed HTTP. A few clients, each from
a loopback address of its own: one carries the right PIN (so the admin handlers' own checks
are reached too), the others none, a wrong one, or a forged session cookie and CSRF token.

Figures: the status counts; `http_500` (any 5xx but the 503 of a full stream pool);
`admin_without_pin`, admin actions answered 2xx to a client without the PIN; the loop's lag over the whole run (p99) and in its worst
second; the daemon process's resident memory before and after. Targets: 0, 0, p99 under
10 ms. The last line printed is one JSON object.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from typing import Any

from controller.daemon.benchweb import rss_mb
from controller.stats import summary

LAG_TARGET_MS = 10.0
PIN = "2468"
CLIENTS = 6  # client 0 has the PIN; the others never
ADMIN_ACTIONS = ("new_game", "undo", "calibrate", "mode", "save_recording")
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD")
UNKNOWN_PATHS = ("/api", "/api/", "/api/nope", "/api/admin/", "/..%2f..%2fetc/passwd", "/x" * 300)


# -- what is sent -----------------------------------------------------------------------------


def routes() -> list[tuple[str, tuple[str, ...]]]:
    """Every route of the web application and its methods (static files but one)."""
    from typing import cast

    from web_ui.app import create_app

    app = create_app(cast(Any, None))
    out = []
    for rule in app.url_map.iter_rules():
        path = rule.rule.replace("<path:filename>", "app.js")
        methods = tuple(sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}))
        out.append((path, methods))
    return out


def good_body(path: str, rng: random.Random) -> Any:
    """A body of the right shape for `path`, with values that may or may not be allowed."""
    pit = rng.choice([0, 3, 6, 7, -1])
    place = [rng.randint(0, 1), rng.choice([0, 2, 6, "store", 9])]
    action = {
        "t": rng.choice([0, 0.5, 400]),
        "action": rng.choice(["grab", "drop", "move", "press", "bump", "button", "lean", "rest"]),
        "at": place,
        "from": place,
        "to": [1, 0],
        "n": rng.choice([1, 5, 300]),
        "g": rng.choice([5, -5, 1e9]),
        "dur": rng.choice([0.1, 100]),
        "name": rng.choice(["new_game", "undo", "hint", "mode", "x"]),
    }
    bodies: dict[str, Any] = {
        "login": {"pin": rng.choice(["0000", "1", "9" * 70, 5, None])},
        "new_game": {"variant": rng.choice(["kalah", "oware", "congkak", "x"]), "options": {}},
        "undo": {},
        "calibrate": {"stage": rng.choice(["empty", "layout", "reference", 3]), "grams": 100},
        "mode": {"mode": rng.choice(["play", "teach", "demo", "x"])},
        "save_recording": {"seconds": rng.choice([1, 10, 1e9, "x"])},
        "move": {"pit": pit} if rng.random() < 0.8 else {"pits": [pit, 1]},
        "mistake": {"kind": rng.choice(["wrong_pit", "extra_seed", "seed_lost", "x"])},
        "actions": {"actions": [dict(action) for _ in range(rng.choice([1, 2, 50, 499]))]},
    }
    return bodies.get(path.rsplit("/", 1)[-1], {})


def nested(depth: int, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def weird_value(rng: random.Random) -> Any:
    return rng.choice(
        [None, True, -0.0, 1e308, -(2**63), 2**64, "", "\x00", "\u202e", "💥" * 300, [], {}, [[[]]]]
    )


def body_bytes(path: str, rng: random.Random) -> tuple[str, bytes]:
    """(kind, body) for one request."""
    kind = rng.choice(
        ["good", "good", "good", "typed", "nested", "huge", "big_ok", "truncated", "garbage",
         "utf8", "numbers", "empty", "surrogate", "dup_keys"]
    )  # fmt: skip
    good = good_body(path, rng)
    if kind == "good":
        return kind, json.dumps(good).encode()
    if kind == "typed":
        wrong = rng.choice(
            [[good], "text", 7, None, {k: weird_value(rng) for k in good or {"x": 1}}]
        )
        return kind, json.dumps(wrong).encode()
    if kind == "nested":
        return kind, nested(rng.choice([17, 100, 5000, 200000]), rng).encode()
    if kind == "huge":
        return kind, b'{"pad":"' + b"x" * rng.choice([300_000, 2_000_000]) + b'"}'
    if kind == "big_ok":  # under the size limit, but large
        return kind, json.dumps({**good, "pad": ["y" * 100] * 2000}).encode()
    if kind == "truncated":
        text = json.dumps(good).encode() or b"{}"
        return kind, text[: rng.randint(0, max(0, len(text) - 1))]
    if kind == "garbage":
        return kind, bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 50, 4000])))
    if kind == "utf8":
        return kind, b'{"pin":"\xff\xfe\xc3(","mode":"\xed\xa0\x80"}'
    if kind == "numbers":
        number = rng.choice(["1e999", "-1e999", "NaN", "Infinity", "1" * 5000, "0x10", "1.0e-400"])
        key = rng.choice(["pit", "seconds", "grams", "t", "pin"])
        return kind, f'{{"{key}":{number},"stage":"reference","mode":"play"}}'.encode()
    if kind == "surrogate":
        return kind, b'{"pin":"\\ud800","mode":"\\udfff","kind":"\\ud83d"}'
    if kind == "dup_keys":
        return kind, b'{"mode":"play","mode":"demo","pit":1,"pit":"x"}'
    return kind, b""


def headers_for(client: int, rng: random.Random, host: str) -> list[tuple[str, str]]:
    """Headers: mostly what the page itself sends, often something else."""
    headers = [("Host", rng.choice([host] * 8 + ["evil.example", "", "localhost", "[::1]:1"]))]
    ctype = rng.choice(["application/json"] * 6 + ["text/plain", "application/json; charset=latin-1",
                       "multipart/form-data; boundary=x", ""])  # fmt: skip
    if ctype:
        headers.append(("Content-Type", ctype))
    origin = rng.choice([None, None, f"http://{host}", "http://evil.example", "null"])
    if origin is not None:
        headers.append(("Origin", origin))
    if client == 0:
        headers.append(("X-Sowboard-Pin", PIN))
    elif rng.random() < 0.5:
        headers.append(("X-Sowboard-Pin", rng.choice(["0000", "", "2469", "x" * 5000, PIN[:-1]])))
    if client != 0 and rng.random() < 0.3:
        headers.append(("Cookie", f"sowboard_admin={rng.getrandbits(128):x}; lang=xx"))
        headers.append(("X-CSRF-Token", f"{rng.getrandbits(64):x}"))
    if rng.random() < 0.1:
        headers.append(("Accept-Language", "de;q=2, *;q=NaN, " + "x-" * 500))
    return headers


def request_bytes(client: int, path: str, methods: tuple[str, ...], rng: random.Random,
                  host: str) -> tuple[str, str, str, bytes]:  # fmt: skip
    """(method, path, body kind, the whole request)."""
    method = rng.choice(methods) if rng.random() < 0.8 else rng.choice(METHODS)
    if rng.random() < 0.15:
        path += rng.choice(["?lang=ms", "?by=cli", "?lang=" + "x" * 3000, "?%ff=%00", "?a=1&a=2"])
    kind, body = body_bytes(path, rng) if method != "GET" or rng.random() < 0.1 else ("none", b"")
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers_for(client, rng, host))]
    if rng.random() < 0.03:  # malformed HTTP: a broken request line or framing
        kind = "bad_http"
        lines[0] = rng.choice(
            [f"{method} {path}", f"{method}  HTTP/1.1", "\x00\x01", "GET / HTTP/9.9"]
        )
        if rng.random() < 0.5:
            lines.append("Transfer-Encoding: chunked")
            body = b"zz\r\n" + body[:10] + b"\r\n0\r\n\r\n"
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    return method, path, kind, ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "replace") + body


# -- sending and judging ------------------------------------------------------------------------


def exchange(source: str, host: str, port: int, data: bytes, stream: bool) -> tuple[int, bytes]:
    """Send one request from the loopback address `source`; (status, first bytes of the
    answer). An event stream is read only until its first event; 0: no HTTP answer."""
    with socket.create_connection((host, port), timeout=20.0, source_address=(source, 0)) as sock:
        # (the server may answer 413 and close before it has read a huge body)
        with contextlib.suppress(OSError):
            sock.sendall(data)
        answer = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            answer += chunk
            if stream and b"\n\n" in answer.split(b"\r\n\r\n", 1)[-1]:
                break
    try:
        return int(answer.split(b" ", 2)[1]), answer[:2000]
    except (IndexError, ValueError):
        return 0, answer[:200]


def is_admin_action(status: int, sent: bytes) -> bool:
    """A request that did an admin's work: an admin command answered 2xx, or a scripted
    board-button press of one, or a login. Judged by the request line as sent (a malformed
    one may name another path than the one drawn)."""
    request_line = sent.split(b"\r\n", 1)[0].decode("utf-8", "replace").split(" ")
    method, path = request_line[0], request_line[1] if len(request_line) > 1 else ""
    if not 200 <= status < 300 or method != "POST":
        return False
    name = path.split("?", 1)[0].rsplit("/", 1)[-1]
    if "/api/admin/" in path and name in (*ADMIN_ACTIONS, "login"):
        return True
    if path.startswith("/api/sim/actions"):
        return any(f'"{b}"'.encode() in sent for b in ("new_game", "undo", "mode"))
    return False


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[int] = Counter()
        self.server_errors: list[str] = []
        self.admin_without_pin: list[str] = []
        self.by_kind: Counter[str] = Counter()

    def add(self, client: int, method: str, path: str, kind: str, status: int,
            sent: bytes, answer: bytes) -> None:  # fmt: skip
        with self.lock:
            self.statuses[status] += 1
            self.by_kind[kind] += 1
            if status >= 500 and status != 503:
                self.server_errors.append(
                    f"{status} {method} {path[:80]} ({kind}): {answer[-300:]!r}"
                )
            if client != 0 and is_admin_action(status, sent):
                self.admin_without_pin.append(f"{status} {method} {path[:80]} ({kind})")


def run_clients(host: str, port: int, requests: int, seed: int) -> dict[str, Any]:
    """The child process's work: `requests` requests from CLIENTS clients at once."""
    table = routes()
    paths = [(p, m) for p, m in table] + [(p, ("GET", "POST")) for p in UNKNOWN_PATHS]
    tally = Tally()
    counter = iter(range(requests))
    counter_lock = threading.Lock()

    def client(k: int) -> None:
        rng = random.Random(seed * 100 + k)
        source = f"127.0.0.{2 + k}"
        while True:
            with counter_lock:
                if next(counter, None) is None:
                    return
            path, methods = rng.choice(paths)
            method, full, kind, data = request_bytes(k, path, methods, rng, f"{host}:{port}")
            try:
                status, answer = exchange(source, host, port, data, path == "/api/events")
            except OSError as err:
                status, answer = -1, str(err).encode()
            tally.add(k, method, full, kind, status, data, answer)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "statuses": {str(k): v for k, v in sorted(tally.statuses.items())},
        "by_kind": dict(tally.by_kind),
        "server_errors": tally.server_errors,
        "admin_without_pin": tally.admin_without_pin,
        "endpoints": [p for p, _m in table],
    }


def _client_main(argv: list[str]) -> int:
    host, port, requests, seed = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    print(json.dumps(run_clients(host, port, requests, seed)), flush=True)
    return 0


# -- the bench ------------------------------------------------------------------------------------


def main(requests: int = 2000, seed: int = 13, verbose: bool = False) -> int:
    from controller.daemon.config import parse_config
    from controller.daemon.run import Daemon

    with tempfile.TemporaryDirectory(prefix="sowboard-fuzz-") as data:
        config = parse_config(
            {"web": {"port": 0, "admin_pin": PIN}, "data": {"dir": data},
             "recorder": {"on_flag": False}},
            None,
        )  # fmt: skip
        notes: list[str] = []
        daemon = Daemon(config, out=None if verbose else notes.append)
        daemon.start()
        try:
            return _measure(daemon, requests, seed, notes)
        finally:
            daemon.stop()


def _measure(daemon: Any, requests: int, seed: int, notes: list[str]) -> int:
    loop = daemon.loop
    deadline = time.monotonic() + 10.0
    while loop.referee is None and time.monotonic() < deadline:
        time.sleep(0.05)
    lags_before = len(loop.stats.lags)
    work: deque[float] = deque()  # the loop's own CPU a tick, from now on
    loop.stats.work = work
    rss_before = rss_mb()
    started = time.monotonic()
    child = subprocess.run(
        ["nice", "-n", "19", sys.executable, "-m", "controller.bench.fuzz", "127.0.0.1",
         str(daemon.server.port),
         str(requests), str(seed)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.monotonic() - started
    if child.returncode != 0:
        print(child.stderr[-3000:])
        return 1
    result = json.loads(child.stdout.strip().splitlines()[-1])
    lags = [lag * 1000.0 for lag in list(loop.stats.lags)[lags_before:]]
    result["rss_mb"] = [round(rss_before, 1), round(rss_mb(), 1)]
    result["work"] = summary([w * 1000.0 for w in list(work)])
    return _report(result, lags, wall, notes)


def worst_second(lags_ms: list[float], per_second: int) -> float:
    """The highest p99 of any run of `per_second` consecutive ticks."""
    worst = 0.0
    for start in range(0, max(1, len(lags_ms) - per_second + 1), max(1, per_second // 2)):
        window = lags_ms[start : start + per_second]
        if window:
            worst = max(worst, summary(window)["p99"])
    return round(worst, 2)


def _report(result: dict[str, Any], lags: list[float], wall: float, notes: list[str]) -> int:
    lag = summary(lags)
    errors = result["server_errors"]
    holes = result["admin_without_pin"]
    statuses = result["statuses"]
    for line in errors[:20]:
        print(f"5xx: {line}")
    for line in holes[:20]:
        print(f"admin action without the PIN: {line}")
    for note in notes:
        if "Traceback" in note or "failed" in note:
            print(f"daemon: {note[-1500:]}")
    print(f"endpoints: {' '.join(result['endpoints'])}")
    print(f"bodies: {json.dumps(result['by_kind'])}")
    figures = {
        "requests": sum(statuses.values()),
        "seconds": round(wall, 1),
        "statuses": statuses,
        "http_500": len(errors),
        "no_answer": statuses.get("0", 0) + statuses.get("-1", 0),
        "loop_lag_ms_p99": lag["p99"],
        "loop_lag_ms_p99_worst_second": worst_second(lags, 30),
        "loop_lag_ms_max": lag["max"],
        # the loop thread's own CPU from waking to the tick: the rest of a lag is waiting
        # for a CPU or the interpreter (on a shared PC, mostly other processes)
        "loop_work_cpu_ms_p99": result["work"]["p99"],
        "loop_work_cpu_ms_max": result["work"]["max"],
        "admin_without_pin": len(holes),
        "rss_mb_before": result["rss_mb"][0],
        "rss_mb_after": result["rss_mb"][1],
    }
    figures["targets_met"] = bool(
        not errors and not holes and lag["p99"] < LAG_TARGET_MS and not figures["no_answer"]
    )
    print(json.dumps(figures), flush=True)
    return 0 if figures["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(_client_main(sys.argv[1:]))
