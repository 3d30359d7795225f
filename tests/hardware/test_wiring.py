"""hardware/WIRING.md is what hardware/wiring.py prints, and no pin is used twice."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from controller.buttons import DEFAULT_PINS as BUTTON_GPIOS
from controller.sensing.pi_gpio import PI_DOUT_GPIOS, PI_LED_GPIO, PI_SCK_GPIO
from tests.hardware.firmware_path import pinmap

ROOT = Path(__file__).resolve().parents[2]
SPI0 = {7, 8, 9, 11}  # claimed by the SPI driver with dtparam=spi=on (10, MOSI, is the LEDs)
HAT_EEPROM = {0, 1}


def wiring() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wiring", ROOT / "hardware" / "wiring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_wiring_md_matches_the_script() -> None:
    committed = (ROOT / "hardware" / "WIRING.md").read_text(encoding="utf-8")
    assert committed == wiring().render(), "run: python hardware/wiring.py > hardware/WIRING.md"


def test_script_runs_as_documented() -> None:
    result = subprocess.run(
        [sys.executable, "hardware/wiring.py"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.startswith("# Wiring\n")
    assert "## congkak7" in result.stdout and "## oware6" in result.stdout


def test_pi_only_pins_are_each_used_once() -> None:
    used = [PI_SCK_GPIO, *PI_DOUT_GPIOS, PI_LED_GPIO, *BUTTON_GPIOS.values()]
    assert len(used) == len(set(used)), sorted(used)
    assert not set(used) & (SPI0 | HAT_EEPROM)
    assert set(used) <= set(wiring().PI_HEADER)


def test_pico_pins_are_consecutive_dout_then_the_shared_lines() -> None:
    douts = set(range(pinmap.DOUT_FIRST_GP, pinmap.DOUT_FIRST_GP + pinmap.DOUT_LINES))
    shared = {pinmap.SCK_GP, pinmap.RATE_GP, pinmap.NEOPIXEL_GP}
    assert len(shared) == 3 and not douts & shared
    assert douts | shared <= set(wiring().PICO_PINS), "every pin is on the Pico's header"
