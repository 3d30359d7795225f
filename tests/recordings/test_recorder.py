"""The flight recorder on its own: when it saves, from where, and what a failure leaves."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import recorder
from controller.daemon.config import RecorderSettings
from controller.daemon.recorder import AFTER_FLAG_S, BURST_MAX_S, Recorder, SessionInfo
from controller.sensing.frames import Frame
from controller.sensing.recording import load_recording

RATE = 10.0


class Clock:
    """Frames at RATE for a recorder, and the reasons it saved for."""

    def __init__(self, tmp_path: Path, **settings: Any) -> None:
        self.live_calls: list[float] = []
        self.recorder = Recorder(
            RecorderSettings(**settings),
            tmp_path / "recordings",
            cells=2,
            rate_sps=RATE,
            live=self.live,
            software="sowboard test",
            out=lambda text: None,
        )
        self.recorder.new_session(
            SessionInfo("congkak7", "", "congkak", {}, ((0.0, 1.0), (0.0, 1.0)), ())
        )
        self.k = 0
        self.now = 0.0

    def live(self, since: float) -> dict[str, Any]:
        self.live_calls.append(since)
        return {"steps": [], "flags": []}

    def run(self, seconds: float, flags: int = 0) -> None:
        for _ in range(round(seconds * RATE)):
            self.k += 1
            self.now = self.k / RATE
            self.recorder.add([Frame(self.now, (self.k, None), self.k)])
            self.recorder.tick(self.now, flags)

    def files(self) -> list[Path]:
        self.recorder.flush()
        return sorted(self.recorder.directory.glob("rec-*"))


def test_a_burst_of_flags_saves_one_recording_after_its_aftermath(tmp_path: Path) -> None:
    clock = Clock(tmp_path)
    clock.run(2.0)
    clock.recorder.anchor(10, "rest", ())  # the board rested at 1.1 s
    clock.run(1.0, flags=1)  # the first flag at 2.1 s
    clock.run(1.0, flags=3)  # two more at 3.1 s join the burst
    assert clock.recorder.status()["pending"] and not clock.files()
    clock.run(AFTER_FLAG_S, flags=3)
    (path,) = clock.files()
    assert "-flag" in path.name
    recording = load_recording(path)
    assert recording.header["start"] == {"referee": "rest", "steps": []}
    assert recording.frames[0].t == pytest.approx(1.1)
    assert recording.frames[-1].t == pytest.approx(3.1 + AFTER_FLAG_S)  # after the last flag
    clock.run(2.0, flags=4)  # a later flag: a burst of its own, but not before half a ring
    clock.run(AFTER_FLAG_S + 0.2, flags=4)  # (90 s) after the last flag's recording
    assert len(clock.files()) == 1 and clock.recorder.status()["pending"]
    clock.run(8.1 + 90 - clock.now - 0.05, flags=4)
    assert len(clock.files()) == 1
    clock.run(0.1, flags=4)
    assert len(clock.files()) == 2
    assert clock.recorder.status()["saved"] == 2


def test_only_the_referee_s_new_flags_count_and_each_session_counts_afresh(
    tmp_path: Path,
) -> None:
    clock = Clock(tmp_path)
    clock.run(1.0, flags=2)
    clock.run(AFTER_FLAG_S + 0.1, flags=2)
    assert len(clock.files()) == 1
    clock.recorder.new_session(clock.recorder.session)  # type: ignore[arg-type]
    clock.run(100.0, flags=0)
    clock.run(1.0, flags=1)  # a new referee's first flag
    clock.run(AFTER_FLAG_S + 0.1, flags=1)
    assert len(clock.files()) == 2


def test_flags_that_go_on_are_saved_after_a_bounded_wait(tmp_path: Path) -> None:
    clock = Clock(tmp_path)
    for n in range(1, 40):  # a new flag every second
        clock.run(1.0, flags=n)
        if clock.files():
            break
    assert clock.now <= 1.0 + BURST_MAX_S + 0.2


def test_a_flag_with_no_anchor_before_it_keeps_the_frames_without_a_referee(
    tmp_path: Path,
) -> None:
    clock = Clock(tmp_path)
    clock.run(3.0, flags=1)
    clock.recorder.anchor(5, "rest", ())  # after the flag: no use for it
    clock.run(AFTER_FLAG_S, flags=1)
    (path,) = clock.files()
    recording = load_recording(path)
    assert recording.header["start"]["referee"] is None
    assert recording.frames[0].t == pytest.approx(0.1)


def test_no_recording_on_a_flag_when_switched_off(tmp_path: Path) -> None:
    clock = Clock(tmp_path, on_flag=False)
    clock.run(10.0, flags=1)
    assert clock.files() == []


def test_the_ring_keeps_the_last_seconds_and_a_new_session_starts_over(tmp_path: Path) -> None:
    clock = Clock(tmp_path, seconds=10)
    clock.run(30.0)
    clock.recorder.save("admin")
    (path,) = clock.files()
    frames = load_recording(path).frames
    assert len(frames) == clock.recorder.ring.capacity == 125  # 10 s at 10 SPS, and headroom
    assert frames[-1].t == pytest.approx(30.0) and frames[0].raw == (176, None)
    clock.recorder.new_session(clock.recorder.session)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no frames"):
        clock.recorder.save("admin")
    clock.run(1.0)
    name = clock.recorder.save("admin")
    clock.recorder.flush()
    assert len(load_recording(tmp_path / "recordings" / name).frames) == 10


def test_a_recording_that_cannot_be_written_is_reported_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(tmp_path)

    def full_card(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(recorder, "write_bytes_atomic", full_card)
    clock.run(1.0)
    name = clock.recorder.save("admin")
    clock.recorder.flush()
    status = clock.recorder.status()
    assert status["saved"] == 0 and status["last"] is None
    assert status["error"].startswith(name)
    clock.run(1.0)  # the recorder goes on taking frames


def test_a_file_where_the_recordings_folder_belongs_is_moved_aside(tmp_path: Path) -> None:
    """Left in place, such a file (a card's repair, a slip of the hand) refused every
    recording for ever, as a directory in a data file's place refused that file's writes."""
    clock = Clock(tmp_path)
    (tmp_path / "recordings").write_text("a file where the folder should be")
    clock.run(1.0)
    name = clock.recorder.save("admin")
    clock.recorder.flush()
    assert clock.recorder.status()["error"] is None
    assert (tmp_path / "recordings" / name).is_file()
    (kept,) = tmp_path.glob("recordings.damaged-*")
    assert kept.read_text() == "a file where the folder should be"


def test_a_new_game_right_after_a_flag_saves_its_recording_at_once(tmp_path: Path) -> None:
    clock = Clock(tmp_path)
    clock.run(1.0)
    clock.recorder.anchor(5, "start", ())
    clock.run(1.0, flags=1)
    session = clock.recorder.session
    assert session is not None
    clock.recorder.new_session(SessionInfo("congkak7", "", "kalah", {}, session.calibration, ()))
    (path,) = clock.files()
    recording = load_recording(path)
    assert recording.header["variant"] == "congkak"  # the game the flag was raised in
    assert recording.header["start"]["referee"] == "start"
    assert not clock.recorder.status()["pending"]
    clock.run(AFTER_FLAG_S + 1, flags=1)
    assert len(clock.files()) == 1


def test_file_names_of_one_second_are_numbered(tmp_path: Path) -> None:
    clock = Clock(tmp_path)
    clock.run(1.0)
    names = [clock.recorder.save("admin") for _ in range(3)]
    stamp = names[0].removeprefix("rec-").removesuffix("-admin.jsonl.gz")
    if all(stamp in name for name in names):  # (the clock's second may turn meanwhile)
        assert names[1:] == [f"rec-{stamp}-admin-2.jsonl.gz", f"rec-{stamp}-admin-3.jsonl.gz"]
    assert len(clock.files()) == 3
