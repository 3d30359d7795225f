"""mqtts:// with the TLS keys of `[mqtt]`, against Mosquitto with a certificate made here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from controller.daemon.mqttconfig import MqttSettings
from controller.hall.broker import Mosquitto, find_mosquitto
from controller.hall.listen import HallListener
from controller.hall.state import Hall
from tests.daemon.conftest import Board, make_config
from tests.hall.conftest import NO_MOSQUITTO, wait_for

pytestmark = [
    pytest.mark.skipif(find_mosquitto() is None, reason=NO_MOSQUITTO),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed"),
]


def make_ca(where: Path, name: str) -> tuple[Path, Path, Path]:
    """A CA and a certificate it signed for 127.0.0.1: (CA, certificate, key)."""
    where.mkdir()

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=where, check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "1",
        "-subj",
        f"/CN={name}",
    )
    run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    )
    (where / "ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "1",
        "-extfile",
        "ext",
    )
    return where / "ca.crt", where / "server.crt", where / "server.key"


def test_a_board_publishes_over_tls_and_a_wrong_ca_is_refused(tmp_path: Path) -> None:
    ca, cert, key = make_ca(tmp_path / "pki", "test-ca")
    other_ca, _, _ = make_ca(tmp_path / "other", "other-ca")
    with Mosquitto(tls=(ca, cert, key)) as broker:
        assert broker.url.startswith("mqtts://")
        hall = Hall()
        settings = MqttSettings(url=broker.url, board_id="hall", ca_file=str(ca))
        listener = HallListener(hall, settings, "tls-hall").start()
        good = Board(
            make_config(
                tmp_path / "good", mqtt={"url": broker.url, "board_id": "b1", "ca_file": str(ca)}
            )
        )
        bad = Board(
            make_config(
                tmp_path / "bad",
                mqtt={"url": broker.url, "board_id": "b2", "ca_file": str(other_ca)},
            )
        )
        try:
            good.ready()
            bad.ready()
            wait_for(lambda: (hall.board("b1") or {}).get("status"), 10, "the status over TLS")
            assert hall.board("b1")["online"]  # type: ignore[index]
            mqtt = bad.loop.mqtt
            assert mqtt is not None
            wait_for(lambda: mqtt.get_status()["error"], 10, "the wrong CA's error")
            assert "CERTIFICATE_VERIFY_FAILED" in str(mqtt.get_status()["error"])
            assert not mqtt.get_status()["connected"] and hall.board("b2") is None
        finally:
            good.stop()
            bad.stop()
            listener.stop()
