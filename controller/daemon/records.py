"""`records.jsonl`, the finished games, checked once at start.

The daemon only appends to it, so a damaged line used to stay for good, and a line cut short
by a full card or a pulled plug glued the next game's record onto its remains: one more game
lost with every damaged tail. A damaged file is kept aside (`records.jsonl.damaged-STAMP`),
said so on the page, and written again with its intact records before anything is appended.
"""

from __future__ import annotations

from pathlib import Path

from .files import damaged_record_lines, good_record_lines, write_atomic
from .notices import Notices


def check_records(path: Path, notices: Notices) -> None:
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return
    except IsADirectoryError:  # (a card's repair): every append would fail for ever
        notices.warning(f"{path.name} is a directory, not the records; moved aside")
        notices.keep_damaged(path)
        return
    except OSError as err:
        notices.warning(f"{path.name} cannot be read ({err.strerror or err}); records are appended")
        return
    problems = damaged_record_lines(text)
    if not problems:
        return
    good = good_record_lines(text)
    games = good.count("\n")
    shown = "; ".join(problems[:3]) + (f"; {len(problems) - 3} more" if len(problems) > 3 else "")
    notices.warning(f"{path.name} is damaged ({shown}); its {games} intact game records are kept")
    notices.keep_damaged(path)
    try:
        write_atomic(path, good)
    except OSError as err:
        notices.warning(f"{path.name} could not be written again ({err.strerror or err})")
