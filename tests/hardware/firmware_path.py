"""The firmware's modules, importable from the tests as they are on the Pico (top-level names).

The firmware directory is put on sys.path; `sowproto` is the very module the Pi's serial source
loads (controller.sensing.serial_source.load_sowproto), so both sides share one object.
"""

from __future__ import annotations

import sys
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
if str(FIRMWARE_DIR) not in sys.path:
    sys.path.insert(0, str(FIRMWARE_DIR))

import hx711_pio  # noqa: E402
import pinmap  # noqa: E402
import sowfirm  # noqa: E402
import sowproto  # noqa: E402

__all__ = ["FIRMWARE_DIR", "hx711_pio", "pinmap", "sowfirm", "sowproto"]
