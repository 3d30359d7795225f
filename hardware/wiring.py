"""Print the wiring tables of every shipped board, for both builds, as Markdown.

    python hardware/wiring.py > hardware/WIRING.md

Everything comes from the code that uses the pins, so the tables cannot drift from it: the board
files (hardware/boards/*.toml: which cell and LEDs belong to each place), the Pi-only reader's
pins (controller/sensing/pi_gpio.py), the buttons (controller/buttons.py), the LED defaults
(controller/leds/patterns.py) and the Pico's pins (firmware/pinmap.py). A test checks that the
committed WIRING.md is what this script prints.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.board import BOARDS_DIR, Board, load_board  # noqa: E402
from controller.buttons import DEFAULT_PINS as BUTTON_GPIOS  # noqa: E402
from controller.leds import patterns  # noqa: E402
from controller.sensing.pi_gpio import PI_DOUT_GPIOS, PI_LED_GPIO, PI_SCK_GPIO  # noqa: E402

LED_MA_WHITE = 3 * patterns.MA_PER_CHANNEL  # WS2812B at full white

# BCM GPIO -> physical pin of the Pi's 40-pin header (the same on every 40-pin Pi, 4 and 5 too)
PI_HEADER = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31,
    13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26,
    1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip

# Pico GP -> physical pin
PICO_PINS = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip


def load_pinmap() -> ModuleType:
    path = ROOT / "firmware" / "pinmap.py"
    spec = importlib.util.spec_from_file_location("pinmap", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def brightness_and_budget() -> tuple[float, float]:
    """The LED defaults of controller/leds/patterns.py (brightness cap, current budget in A)."""
    for func in vars(patterns).values():
        if inspect.isfunction(func):
            params = inspect.signature(func).parameters
            if "brightness" in params and "max_current_a" in params:
                return float(params["brightness"].default), float(params["max_current_a"].default)
    return 1.0, float("inf")


def gpio(n: int) -> str:
    return f"GPIO {n} (pin {PI_HEADER[n]})"


def gp(n: int) -> str:
    return f"GP{n} (pin {PICO_PINS[n]})"


def place_name(board: Board, cell: int) -> str:
    place = board.cells[cell].place
    if place.is_store:
        return f"player {place.player} store"
    return f"player {place.player} pit {place.pit}"


def capacity(grams: float) -> str:
    return f"{grams / 1000:g} kg" if grams >= 1000 else f"{grams:g} g"


def cell_table(board: Board, dout: Callable[[int], str]) -> list[str]:
    """The table of a board's cells, with where each HX711's DOUT goes (`dout(cell)`)."""
    rows = [
        "| cell | place | load cell | HX711 DOUT to | LEDs |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in board.cells:
        leds = ", ".join(map(str, spec.leds))
        rows.append(
            f"| {spec.cell} | {place_name(board, spec.cell)} | {capacity(spec.capacity_g)}"
            f" | {dout(spec.cell)} | {leds} |"
        )
    return rows


def board_section(board: Board, pinmap: ModuleType) -> list[str]:
    n = len(board.cells)
    out = [f"## {board.name}: {board.description}", ""]
    layouts = ", ".join(
        f"{pits} pits (closed: {', '.join(map(str, closed))})"
        for pits, closed in sorted(board.layouts.items())
    )
    out.append(
        f"{n} load cells, {board.led_count} LEDs." + (f" Also plays {layouts}." if layouts else "")
    )
    out.append("")

    out += ["### Pi only", ""]
    if n > len(PI_DOUT_GPIOS):
        out += [
            f"Not possible: the Pi has DOUT pins for {len(PI_DOUT_GPIOS)} cells next to the LEDs and"
            f" buttons, this board has {n}. Use the Pi + Pico build.",
            "",
        ]
    else:
        out += cell_table(board, lambda cell: gpio(PI_DOUT_GPIOS[cell]))
        uart = sorted({14, 15} & set(PI_DOUT_GPIOS[:n]))
        out += [
            "",
            f"Every HX711's SCK: {gpio(PI_SCK_GPIO)}. HX711 VCC (and VDD where the module has it):"
            " 3.3 V (pin 1 or 17), GND: any ground pin.",
            f"LED data: {gpio(PI_LED_GPIO)} through the 74AHCT125 to the first LED's DIN.",
        ]
        if uart:
            out.append(
                "This board uses the UART pins (GPIO 14/15) for cells: `enable_uart=0` in"
                " config.txt and no `console=serial0,...` in cmdline.txt."
            )
        out.append("")

    out += ["### Pi + Pico", ""]
    if n > pinmap.DOUT_LINES:
        out += [f"Not possible: the Pico has {pinmap.DOUT_LINES} DOUT lines, this board {n}.", ""]
    else:
        out += cell_table(board, lambda cell: f"Pico {gp(pinmap.DOUT_FIRST_GP + cell)}")
        out += [
            "",
            f"Every HX711's SCK: Pico {gp(pinmap.SCK_GP)}; every HX711's RATE: Pico"
            f" {gp(pinmap.RATE_GP)}. HX711 VCC (and VDD): Pico 3V3(OUT) (pin 36), GND: any"
            " Pico ground pin (3, 8, 13, 18, 23, 28, 33, 38).",
            f"LED data: Pico {gp(pinmap.NEOPIXEL_GP)} through the 74AHCT125 to the first LED's"
            " DIN. The Pico is powered over its USB cable from the Pi.",
            "",
        ]

    brightness, budget = brightness_and_budget()
    white = board.led_count * LED_MA_WHITE / 1000
    capped = min(white * brightness, budget)
    out += [
        "### LED power (5 V)",
        "",
        f"{board.led_count} WS2812B x {LED_MA_WHITE:g} mA at full white = {white:.2f} A."
        f" With the daemon's brightness cap {brightness:g}: {white * brightness:.2f} A"
        f" (budget {budget:g} A, so at most {capped:.2f} A).",
        "",
    ]
    return out


def render() -> str:
    pinmap = load_pinmap()
    boards = [load_board(path) for path in sorted(BOARDS_DIR.glob("*.toml"))]
    out = [
        "# Wiring",
        "",
        "Generated by `python hardware/wiring.py > hardware/WIRING.md` from the board files and the",
        "pin maps in the code; do not edit by hand (a test compares the two). See README.md for",
        "the parts, power and mechanical notes.",
        "",
        "## Shared by every board",
        "",
        "| signal | Pi only | Pi + Pico |",
        "| --- | --- | --- |",
        f"| HX711 SCK (all chips) | {gpio(PI_SCK_GPIO)} | Pico {gp(pinmap.SCK_GP)} |",
        f"| HX711 RATE (all chips) | 3.3 V (80 SPS) or GND (10 SPS) | Pico {gp(pinmap.RATE_GP)} |",
        f"| LED data (via 74AHCT125) | {gpio(PI_LED_GPIO)} (SPI0 MOSI) | Pico {gp(pinmap.NEOPIXEL_GP)} |",
    ]
    for name, pin in BUTTON_GPIOS.items():
        out.append(f"| button `{name}` (to GND) | {gpio(pin)} | {gpio(pin)} |")
    out += [
        "| Pico | - | Pi USB port (data and power) |",
        "",
        "Cell i's DOUT goes to its own pin; every other HX711 line is shared. In the Pi + Pico",
        "build the DOUT pins are GP0 upwards with no gap: the PIO program samples them together.",
        "",
    ]
    for board in boards:
        out += board_section(board, pinmap)
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
