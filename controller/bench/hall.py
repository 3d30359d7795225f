"""`sowboard bench hall [--boards 20] [--seconds 60]`: a hall of demo boards on one broker.

Issue 16's targets, measured on this machine:

- `--boards` daemons (`sowboard run`, each its own process, demo mode on the simulated
  board at 80 SPS) publish to one local Mosquitto (Debian's, started here with persistence
  on, as Debian's own configuration has it); the hall (`HallServer`: its listener keeps its
  session, and its page) is subscribed. Every event carries its board's seq, so the hall
  counts what never arrived (`events_lost`); each message carries the wall time its loop
  published it, so the hall measures the update delay (p50, p99; the messages held back
  during the outage are counted apart). Each board's loop lag p99 comes from its own status
  (the loop's last 30 s), sampled every half second from 30 s after the last board started
  (so that no start-up is in it): the worst sample of every board.
- a third of the way in, the broker is stopped for `--outage` seconds and started again:
  the hall must show every board offline meanwhile, every board must reconnect by itself,
  and each board's fresh status must reach the hall within 2 s of the broker's return.

`--control`: the same daemons without `[mqtt]` (no broker, no hall), their loop lag sampled
from their own pages for as long: what the machine gives them without MQTT.

The last line is one JSON object.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.bench.daemonproc import DaemonProcess, demo_config
from controller.daemon.mqttconfig import MqttSettings
from controller.hall.broker import Mosquitto
from controller.hall.serve import HallServer
from controller.stats import percentile

SAMPLE_S = 0.5
SETTLE_S = 6.0
WARM_UP_S = 30.0  # after the run: in-flight messages land and a status heartbeat tells each seq
START_TIMEOUT_S = 90.0


@dataclass
class Outage:
    down_at: float = 0.0
    up_at: float = 0.0
    hall_saw_all_offline: bool = False
    back_s: dict[str, float] = field(default_factory=dict)  # board -> first fresh status


@dataclass
class Samples:
    lag_max: dict[str, float] = field(default_factory=dict)  # board -> worst lag_ms_p99
    lag_outage: dict[str, float] = field(default_factory=dict)

    def take(self, snapshot: dict[str, Any], in_outage: bool) -> None:
        for view in snapshot["boards"]:
            health = (view["status"] or {}).get("health") or {}
            lag = float(health.get("lag_ms_p99", 0.0))
            board = view["board"]
            self.lag_max[board] = max(self.lag_max.get(board, 0.0), lag)
            if in_outage:
                self.lag_outage[board] = max(self.lag_outage.get(board, 0.0), lag)


def start_boards(count: int, url: str | None, root: Path) -> list[DaemonProcess]:
    """`count` demo daemons publishing to `url` (None: without [mqtt])."""
    daemons = []
    for k in range(count):
        data = root / f"board-{k:02d}"
        data.mkdir()
        config = data / "config.toml"
        mqtt = f'[mqtt]\nurl = "{url}"\nboard_id = "board-{k:02d}"\n' if url else ""
        config.write_text(demo_config(data / "data") + mqtt, encoding="utf-8")
        daemons.append(DaemonProcess(config, start_timeout=START_TIMEOUT_S))
    return daemons


def wait_all_online(server: HallServer, count: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        boards = server.hall.snapshot()["boards"]
        if len(boards) == count and all(b["online"] and b["status"] for b in boards):
            return True
        time.sleep(0.1)
    return False


def run_outage(broker: Mosquitto, server: HallServer, samples: Samples, outage_s: float) -> Outage:
    outage = Outage(down_at=time.time())
    broker.stop()
    end = time.monotonic() + outage_s
    while time.monotonic() < end:
        time.sleep(SAMPLE_S)
        snapshot = server.hall.snapshot()
        samples.take(snapshot, in_outage=True)
        if not any(b["online"] for b in snapshot["boards"]):
            outage.hall_saw_all_offline = True
    broker.start()
    outage.up_at = time.time()
    return outage


def note_returns(server: HallServer, outage: Outage) -> None:
    """Each board's first fresh status after the broker's return (seconds after it)."""
    for board, times in server.hall.status_at.items():
        after = [t for t in times if t >= outage.up_at]
        if after:
            outage.back_s[board] = round(after[0] - outage.up_at, 3)


def delays_ms(server: HallServer, outage: Outage | None) -> tuple[list[float], list[float]]:
    """Update delays of messages published outside the outage, and of those inside it (held
    back until the broker returned)."""
    normal: list[float] = []
    held: list[float] = []
    for sent, delay in server.hall.delays or ():
        inside = outage is not None and outage.down_at - 1.0 <= sent <= outage.up_at + 2.0
        (held if inside else normal).append(delay * 1000)
    return normal, held


def play(
    broker: Mosquitto, server: HallServer, seconds: float, outage_s: float, samples: Samples
) -> Outage | None:
    start = time.monotonic()
    outage: Outage | None = None
    outage_due = outage_s > 0 and seconds >= outage_s * 2
    while time.monotonic() - start < seconds:
        if outage_due and outage is None and time.monotonic() - start >= seconds / 3:
            outage = run_outage(broker, server, samples, outage_s)
            continue
        samples.take(server.hall.snapshot(), in_outage=False)
        time.sleep(SAMPLE_S)
    return outage


def summary(
    boards: int,
    seconds: float,
    server: HallServer,
    samples: Samples,
    outage: Outage | None,
    outage_s: float,
) -> dict[str, Any]:
    views = server.hall.snapshot()["boards"]
    normal, held = delays_ms(server, outage)
    lags = list(samples.lag_max.values()) or [0.0]
    result: dict[str, Any] = {
        "boards": boards,
        "boards_heard": len(views),
        "seconds": seconds,
        "events_received": sum(v["events_received"] for v in views),
        "events_lost": sum(v["events_lost"] for v in views),
        "dropped_by_boards": sum(
            ((v["status"] or {}).get("mqtt") or {}).get("dropped", 0) for v in views
        ),
        "moves": sum((v["status"] or {}).get("moves", 0) for v in views),
        "delay_ms_p50": round(percentile(normal, 50), 1) if normal else None,
        "delay_ms_p99": round(percentile(normal, 99), 1) if normal else None,
        "delay_ms_max": round(max(normal), 1) if normal else None,
        "messages_timed": len(normal),
        "lag_ms_p99_worst_board": round(max(lags), 2),
        "lag_ms_p99_median_board": round(statistics.median(lags), 2),
        "cpus": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
    }
    if outage is None:
        result["outage"] = f"none (the run is shorter than twice --outage {outage_s} s)"
        return result
    connects = [((v["status"] or {}).get("mqtt") or {}).get("connects", 0) for v in views]
    back = list(outage.back_s.values())
    result |= {
        "outage_s": outage_s,
        "hall_showed_all_offline": outage.hall_saw_all_offline,
        "boards_reconnected": sum(1 for c in connects if c >= 2),
        "boards_back_online": sum(1 for v in views if v["online"]),
        "status_back_s_max": max(back) if len(back) == boards else None,
        "status_back_s_p50": round(statistics.median(back), 3) if back else None,
        "held_messages": len(held),
        "held_delay_ms_max": round(max(held), 1) if held else None,
        "lag_ms_p99_worst_board_in_outage": round(max(samples.lag_outage.values(), default=0), 2),
    }
    return result


def control(boards: int, seconds: float, warm_up_s: float) -> dict[str, Any]:
    """The same daemons without [mqtt]: their worst loop lag p99, from their own pages."""
    worst: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="sowboard-bench-hall-") as tmp:
        daemons: list[DaemonProcess] = []
        try:
            daemons = start_boards(boards, None, Path(tmp))
            time.sleep(warm_up_s)
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for k, daemon in enumerate(daemons):
                    lag = float(daemon.state()["daemon"]["loop"]["lag_ms_p99"])
                    worst[k] = max(worst.get(k, 0.0), lag)
                time.sleep(SAMPLE_S)
        finally:
            for daemon in daemons:
                daemon.stop()
    lags = list(worst.values()) or [0.0]
    return {
        "boards": boards,
        "control": "without [mqtt]",
        "seconds": seconds,
        "lag_ms_p99_worst_board": round(max(lags), 2),
        "lag_ms_p99_median_board": round(statistics.median(lags), 2),
        "cpus": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
    }


def main(
    boards: int = 20,
    seconds: float = 60.0,
    outage_s: float = 10.0,
    warm_up_s: float = WARM_UP_S,
    without_mqtt: bool = False,
) -> int:
    if without_mqtt:
        print(f"bench hall --control: {boards} demo boards without [mqtt], {seconds:g} s")
        report(control(boards, seconds, warm_up_s))
        return 0
    print(f"bench hall: {boards} demo boards, {seconds:g} s, broker stopped for {outage_s:g} s")
    with tempfile.TemporaryDirectory(prefix="sowboard-bench-hall-") as tmp:
        broker = Mosquitto(persistence=True).start()
        settings = MqttSettings(url=broker.url, board_id="hall")
        server = HallServer(settings, port=0, keep_delays=True, client_id="bench-hall").start()
        daemons: list[DaemonProcess] = []
        try:
            daemons = start_boards(boards, broker.url, Path(tmp))
            if not wait_all_online(server, boards, START_TIMEOUT_S):
                print("bench hall: not every board reached the hall; going on with those that did")
            # The loops' lag p99 is over their last 30 s: past their own start-up first.
            print(f"bench hall: all boards started; {warm_up_s:g} s before measuring")
            time.sleep(warm_up_s)
            samples = Samples()
            outage = play(broker, server, seconds, outage_s, samples)
            time.sleep(SETTLE_S)
            if outage is not None:
                note_returns(server, outage)
            result = summary(boards, seconds, server, samples, outage, outage_s)
            stalls = [d for d in daemons if d.proc.poll() is not None]
            result["daemons_died"] = len(stalls)
        finally:
            for daemon in daemons:
                daemon.stop()
            server.stop()
            broker.close()
    report(result)
    return 0


def report(result: dict[str, Any]) -> None:
    for key, value in result.items():
        print(f"  {key}: {value}")
    print(json.dumps(result))
