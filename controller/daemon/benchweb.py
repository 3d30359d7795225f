"""`sowboard bench web`: many live pages on loopback while the simulated board plays.

The daemon (loop + waitress) runs in this process on the simulated board in demo mode, so the
virtual hand plays move after move and the lights animate; `clients` event streams
(`/api/events`, the page's live feed) are read by a separate process (so that reading them does
not compete with the loop for this interpreter's lock) for `seconds` seconds. Figures:

- loop lag: how late each tick of the loop ran against its schedule (`leds.fps` per second);
  target p99 under 20 ms. With `--level N` the computer plays player 2 (its engine thinks 1 s
  a move in its own process) and the lag of the ticks while it thinks is reported apart;
  target p99 under 10 ms.
- client delay: from a snapshot's `published_at` to its arrival at a client; target p99 under
  250 ms.
- memory: the daemon process's resident memory (VmRSS) at rest, before the pages connect, and
  its peak while they are open (sampled every half second); target at most 60 MB.

The last line printed is one JSON object.
"""

from __future__ import annotations

import json
import re
import selectors
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

from controller.stats import summary

from .config import parse_config
from .run import Daemon

LAG_TARGET_MS = 20.0
THINKING_LAG_TARGET_MS = 10.0  # issue 14: the loop never waits for the engine
DELAY_TARGET_MS = 250.0
RSS_TARGET_MB = 60.0
PUBLISHED = re.compile(rb'"published_at":([0-9.eE+-]+)')


# -- the clients (a child process) ----------------------------------------------------------------


def read_streams(host: str, port: int, clients: int, seconds: float) -> dict[str, Any]:
    """Open `clients` event streams, read them for `seconds`, return the delays in ms.

    One thread and a selector for all sockets: a browser's event stream is one socket too.
    HTTP/1.0 keeps the body unchunked, so every `data:` line is found as sent.
    """
    selector = selectors.DefaultSelector()
    buffers: dict[socket.socket, bytes] = {}
    events = [0] * clients
    index: dict[socket.socket, int] = {}
    refused = 0
    for k in range(clients):
        sock = socket.create_connection((host, port), timeout=5.0)
        sock.sendall(
            f"GET /api/events HTTP/1.0\r\nHost: {host}:{port}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        buffers[sock] = b""
        index[sock] = k
    delays: list[float] = []
    end = time.monotonic() + seconds
    open_socks = len(buffers)
    while time.monotonic() < end and open_socks:
        for key, _mask in selector.select(timeout=0.2):
            sock = key.fileobj  # type: ignore[assignment]
            assert isinstance(sock, socket.socket)
            try:
                chunk = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            received = time.time()
            if not chunk:
                selector.unregister(sock)
                open_socks -= 1
                if events[index[sock]] == 0:
                    refused += 1
                continue
            data = buffers[sock] + chunk
            lines = data.split(b"\n")
            buffers[sock] = lines.pop()
            for line in lines:
                if line.startswith(b"data: "):
                    match = PUBLISHED.search(line)
                    if match:
                        events[index[sock]] += 1
                        if events[index[sock]] > 1:  # the first is the snapshot at connect
                            delays.append((received - float(match.group(1))) * 1000.0)
    for sock in buffers:
        sock.close()
    return {
        "clients": clients,
        "refused": refused,
        "events": sum(events),
        "min_events": min(events) if events else 0,
        "delay_ms": summary(delays),
    }


def _client_main(argv: list[str]) -> int:
    host, port, clients, seconds = argv[0], int(argv[1]), int(argv[2]), float(argv[3])
    print(json.dumps(read_streams(host, port, clients, seconds)), flush=True)
    return 0


# -- the bench ------------------------------------------------------------------------------------


def demo_daemon(data: str, clients: int, verbose: bool = False, level: int | None = None) -> Daemon:
    """The daemon (loop + web server on a free port) in demo mode on the simulated board, with
    room for `clients` live pages (and the computer playing player 2 at `level`); not
    started."""
    game: dict[str, Any] = {"mode": "demo"}
    if level is not None:
        game["opponent"] = {"player": 1, "level": level, "think_s": 1.0}
    config = parse_config(
        {
            "game": game,
            "web": {"port": 0, "max_streams": clients + 4},
            "data": {"dir": data},
        },
        None,
    )
    notes: list[str] = []
    return Daemon(config, out=notes.append if not verbose else None)


def start_pages(port: int, clients: int, seconds: float) -> subprocess.Popen[str]:
    """`clients` live pages reading the daemon's event stream for `seconds`, in a child
    process; its last stdout line is the JSON of `read_streams`."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.daemon.benchweb",
            "127.0.0.1",
            str(port),
            str(clients),
            str(seconds),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )


def main(
    seconds: float = 30.0, clients: int = 50, verbose: bool = False, level: int | None = None
) -> int:
    with tempfile.TemporaryDirectory(prefix="sowboard-bench-") as data:
        daemon = demo_daemon(data, clients, verbose, level)
        daemon.start()
        try:
            return _measure(daemon, seconds, clients)
        finally:
            daemon.stop()


def _measure(daemon: Daemon, seconds: float, clients: int) -> int:
    loop = daemon.loop
    deadline = time.monotonic() + 10.0
    while loop.referee is None and time.monotonic() < deadline:
        time.sleep(0.05)
    port = daemon.server.port
    print(
        f"bench web: {clients} event streams for {seconds:g} s, {loop.game.variant} on the "
        "simulated board in demo mode (the virtual hand plays on its own)",
        flush=True,
    )
    rss_rest = rss_mb()
    child = start_pages(port, clients, seconds)
    lags_before = len(loop.stats.lags)
    work_cpu: deque[float] = deque()  # the loop's own CPU a tick, from now on
    loop.stats.work = work_cpu
    thinking_before = len(loop.thinking_lags)
    ticks_before = loop.stats.ticks
    missed_before = loop.stats.missed_ticks
    publishes_before = loop.stats.publishes
    moves_before = len(loop.follower().completed)
    games_before = _games(loop)
    cpu_before = time.process_time()
    started = time.monotonic()
    rss_peak = rss_rest
    while child.poll() is None and time.monotonic() - started < seconds + 60:
        time.sleep(0.5)
        rss_peak = max(rss_peak, rss_mb())
    out, _ = child.communicate(timeout=10)
    cpu = time.process_time() - cpu_before
    lags = [lag * 1000.0 for lag in list(loop.stats.lags)[lags_before:]]
    result = json.loads(out.strip().splitlines()[-1])
    moves = len(loop.follower().completed) - moves_before + _games(loop) - games_before
    lag = summary(lags)
    work = summary([w * 1000.0 for w in list(work_cpu)])
    thinking_lags = [lag * 1000.0 for lag in list(loop.thinking_lags)[thinking_before:]]
    thinking = summary(thinking_lags)
    delay = result["delay_ms"]
    publishes = loop.stats.publishes - publishes_before
    print(
        f"moves completed: about {max(0, moves)}, snapshots published: {publishes} "
        f"({publishes / seconds:.1f}/s), events received: {result['events']} "
        f"(fewest by one client: {result['min_events']}, refused: {result['refused']})"
    )
    print(
        f"loop lag ms: p50 {lag['p50']} p99 {lag['p99']} max {lag['max']} "
        f"({loop.stats.ticks - ticks_before} ticks, "
        f"{loop.stats.missed_ticks - missed_before} missed)"
    )
    print(
        f"loop's own CPU from waking to a tick ms: p50 {work['p50']} p99 {work['p99']} "
        f"max {work['max']} (the rest of the lag is waiting for a CPU or the interpreter)"
    )
    if thinking_lags:
        print(
            f"loop lag ms while the engine thinks: p50 {thinking['p50']} p99 "
            f"{thinking['p99']} max {thinking['max']} ({len(thinking_lags)} ticks)"
        )
    print(f"client delay ms: p50 {delay['p50']} p99 {delay['p99']} max {delay['max']}")
    print(f"daemon process CPU: {cpu / seconds * 100:.0f} % of one core")
    print(
        f"daemon process RSS: {rss_rest:.1f} MB at rest, {rss_peak:.1f} MB at most with the pages"
    )
    ok = (
        lag["p99"] < LAG_TARGET_MS
        and (not thinking_lags or thinking["p99"] < THINKING_LAG_TARGET_MS)
        and delay["p99"] < DELAY_TARGET_MS
        and not result["refused"]
        and rss_peak <= RSS_TARGET_MB
    )
    print(
        json.dumps(
            {
                "clients": clients,
                "seconds": seconds,
                "loop_lag_ms_p50": lag["p50"],
                "loop_lag_ms_p99": lag["p99"],
                "loop_lag_ms_max": lag["max"],
                "loop_work_cpu_ms_p99": work["p99"],
                "loop_work_cpu_ms_max": work["max"],
                "thinking_ticks": len(thinking_lags),
                "loop_lag_ms_p99_thinking": thinking["p99"] if thinking_lags else None,
                "client_delay_ms_p50": delay["p50"],
                "client_delay_ms_p99": delay["p99"],
                "client_delay_ms_max": delay["max"],
                "events": result["events"],
                "snapshots": publishes,
                "refused": result["refused"],
                "cpu_percent": round(cpu / seconds * 100, 1),
                "rss_mb_rest": round(rss_rest, 1),
                "rss_mb_peak": round(rss_peak, 1),
                "targets_met": ok,
            }
        ),
        flush=True,
    )
    return 0 if ok else 1


def rss_mb() -> float:
    """This process's resident memory in MB (the daemon runs in it); 0 where /proc is not."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _games(loop: Any) -> int:
    """Moves of games already finished (demo mode starts new ones), from records written."""
    try:
        return sum(
            len(json.loads(line).get("moves", []))
            for line in loop.records_path.read_text().splitlines()
            if line.strip()
        )
    except OSError:
        return 0
    except ValueError:
        return 0


if __name__ == "__main__":
    sys.exit(_client_main(sys.argv[1:]))
