"""Recordings of raw frames: the file format, and a `SampleSource` that plays one back.

No simulator is the wood: a recording of real seeds on real cells is what turns a builder's
"it flagged my hand" into a test. The daemon's flight recorder (controller/daemon/recorder.py)
writes them; `sowboard simulate --frames FILE` runs the referee over one as it ran live.

A recording is one gzip-compressed file of JSON lines:

1. the header, `{"type": "sowboard-recording", "format": 1, ...}`: the software version, the
   board file (its name and its text, so a builder's own board replays anywhere), the
   calibration pairs, the variant and options, the source's rate, and `start`: where the
   referee starts in this recording (the game's steps before the first frame, and whether the
   live referee itself started from these frames (`"start"`), or the board was at rest between
   moves there (`"rest"`); null when no referee ran);
2. one line per frame, `[t, seq, [raw, ...]]` (`null` for a cell that gave nothing), `t`
   written exactly as the live referee saw it;
3. `{"type": "live", "steps": [...], "flags": [...]}`: what the live referee recognised and
   flagged from the first frame on, for comparison.

Nothing else: no PIN, no paths of the machine, no journal.

>>> frames = [Frame(0.0125, (1200, None), seq=1), Frame(0.025, (1201, -3), seq=2)]
>>> data = encode_recording({"cells": 2, "rate_sps": 80}, frames, {"steps": [], "flags": []})
>>> recording = decode_recording(data, "r.jsonl.gz")
>>> recording.frames == frames, recording.header["format"]
(True, 1)
>>> decode_recording(data[:-9], "r.jsonl.gz")
Traceback (most recent call last):
...
controller.sensing.recording.RecordingError: r.jsonl.gz: the file is cut short or damaged (Compressed file ended before the end-of-stream marker was reached)
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import json
import math
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .frames import RAW_MAX, RAW_MIN, Frame, SourceStatus

FORMAT = 1
KIND = "sowboard-recording"
SUFFIX = ".jsonl.gz"
CHUNK = 100  # frames encoded at a time (about 2 ms on a Pi 4)


class Frames(Protocol):
    """Frames that know how many they are (a list, or a block copied out of the recorder)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Frame]: ...


class RecordingError(ValueError):
    """A recording that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Recording:
    """A recording read back: its header, its frames and what the live referee made of them."""

    name: str
    header: dict[str, Any]
    frames: list[Frame]
    live: dict[str, Any]


def _line(data: Any) -> str:
    return json.dumps(data, separators=(",", ":")) + "\n"


def encode_recording(
    header: dict[str, Any],
    frames: Frames,
    live: dict[str, Any],
    pause: Callable[[], None] = lambda: None,
) -> bytes:
    """The compressed file: `header` (the type, format and frame count are added), the frames,
    the live steps and flags. Level 6: most of the gain of 9 for half the time on a Pi.

    `pause` is called between chunks of frames: a writer thread passes `time.sleep(0)` so that
    the loop thread gets the interpreter in between (encoding holds it, and a loop waiting
    for it lights the next pit late)."""
    out = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # the gzip format
    head = {"type": KIND, "format": FORMAT, **header, "frames": len(frames)}
    parts = [out.compress(_line(head).encode())]
    chunk: list[str] = []
    for frame in frames:
        chunk.append(_line([frame.t, frame.seq, list(frame.raw)]))
        if len(chunk) == CHUNK:
            parts.append(out.compress("".join(chunk).encode()))
            chunk = []
            pause()
    chunk.append(_line({"type": "live", **live}))
    parts.append(out.compress("".join(chunk).encode()))
    parts.append(out.flush())
    return b"".join(parts)


def load_recording(path: str | Path) -> Recording:
    """Read a recording file; RecordingError names the file and what is wrong with it."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise RecordingError(f"{path}: cannot read: {err.strerror or err}") from None
    return decode_recording(data, str(path))


def decode_recording(data: bytes, name: str) -> Recording:
    try:
        text = gzip.decompress(data).decode("utf-8")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as err:
        raise RecordingError(f"{name}: the file is cut short or damaged ({err})") from None
    lines = text.splitlines()
    header = _header(_json(lines, 0, name), name)
    cells = header["cells"]
    count = header["frames"]
    if len(lines) != count + 2:
        raise RecordingError(
            f"{name}: the header announces {count} frames, the file holds {max(0, len(lines) - 2)}"
            " and the live steps (cut short?)"
        )
    frames = [
        _frame(_json(lines, k, name), cells, f"{name}: line {k + 1}") for k in range(1, count + 1)
    ]
    live = _json(lines, count + 1, name)
    if not isinstance(live, dict) or live.get("type") != "live":
        raise RecordingError(f"{name}: line {count + 2}: expected the live steps and flags")
    for key in ("steps", "flags"):
        if not isinstance(live.get(key), list):
            raise RecordingError(f"{name}: line {count + 2}: '{key}' must be a list")
    return Recording(name, header, frames, live)


def _json(lines: list[str], k: int, name: str) -> Any:
    if k >= len(lines):
        raise RecordingError(f"{name}: line {k + 1} is missing (the recording is cut short)")
    try:
        return json.loads(lines[k])
    except json.JSONDecodeError as err:
        raise RecordingError(f"{name}: line {k + 1}: invalid JSON ({err.msg})") from None


def _header(head: Any, name: str) -> dict[str, Any]:
    if not isinstance(head, dict) or head.get("type") != KIND:
        raise RecordingError(f"{name}: not a sowboard recording (no header on line 1)")
    if head.get("format") != FORMAT:
        raise RecordingError(
            f"{name}: recording format {head.get('format')!r}, this sowboard reads format "
            f"{FORMAT} (replay it with the software version that made it: "
            f"{head.get('software', 'unknown')})"
        )
    for key, kind in (("cells", int), ("frames", int), ("rate_sps", int | float)):
        value = head.get(key)
        if (
            not isinstance(value, kind)
            or isinstance(value, bool)
            or not math.isfinite(value)  # json reads NaN and Infinity
            or value < 0
        ):
            raise RecordingError(f"{name}: header: '{key}' must be a number, not {value!r}")
    return head


def _frame(row: Any, cells: int, where: str) -> Frame:
    ok = (
        isinstance(row, list)
        and len(row) == 3
        and isinstance(row[0], int | float)
        and isinstance(row[1], int)
        and isinstance(row[2], list)
        and len(row[2]) == cells
    )
    if not ok:
        raise RecordingError(f"{where}: expected a frame [t, seq, [{cells} readings]]")
    for value in row[2]:
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or not RAW_MIN <= value <= RAW_MAX
        ):
            raise RecordingError(f"{where}: {value!r} is not a 24-bit reading or null")
    return Frame(float(row[0]), tuple(row[2]), row[1])


class RecordingSource:
    """A recording's frames as a `SampleSource`, as fast as they are read (like the simulated
    board's source): the referee cannot tell it from the live board."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.cell_count: int = recording.header["cells"]
        self._next = 0
        self._closed = False

    def read(self, timeout: float | None = None) -> Frame | None:
        frames = self.recording.frames
        if self._closed or self._next >= len(frames):
            return None
        self._next += 1
        return frames[self._next - 1]

    def status(self) -> SourceStatus:
        return SourceStatus(
            f"recording {Path(self.recording.name).name}",
            True,
            float(self.recording.header["rate_sps"]),
        )

    def close(self) -> None:
        self._closed = True


def software_version() -> str:
    """The installed package's version and the referee's fingerprint, for a recording's
    header: a replay is the live run again only with the same referee (see
    `referee_fingerprint`)."""
    try:
        version = importlib.metadata.version("sowboard")
    except importlib.metadata.PackageNotFoundError:
        version = "(version unknown)"
    return f"sowboard {version} (referee {referee_fingerprint()})"


def referee_fingerprint() -> str:
    """A digest of the code that turns frames into steps and flags (the tracking package, the
    rules engine it follows and the detector): the package version does not change with every
    commit, and a replay by a changed referee may raise a flag a few frames later than it was
    raised live."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    sources = [*sorted((root / "tracking").glob("*.py")), *sorted((root / "rules").glob("*.py"))]
    for path in [*sources, root / "sensing" / "detect.py"]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
