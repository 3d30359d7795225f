"""`sowboard bench hall`, small: real daemons, a real broker stopped and started again."""

from __future__ import annotations

import json

import pytest

from controller.bench.hall import main
from controller.hall.broker import find_mosquitto
from tests.hall.conftest import NO_MOSQUITTO


@pytest.mark.skipif(find_mosquitto() is None, reason=NO_MOSQUITTO)
def test_two_boards_through_an_outage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(boards=2, seconds=9, outage_s=3, warm_up_s=0) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["boards_heard"] == 2 and result["daemons_died"] == 0
    assert result["messages_timed"] > 0 and result["delay_ms_p99"] is not None
    assert result["events_lost"] == 0  # (the hall keeps its session; the broker persists)
    assert result["hall_showed_all_offline"] is True
    assert result["boards_reconnected"] == 2 and result["boards_back_online"] == 2
    assert result["status_back_s_max"] is not None and result["status_back_s_max"] < 2.0


def test_the_control_runs_the_same_daemons_without_mqtt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(boards=2, seconds=2, warm_up_s=0, without_mqtt=True) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["control"] == "without [mqtt]" and result["boards"] == 2
    assert result["lag_ms_p99_worst_board"] >= result["lag_ms_p99_median_board"] >= 0
