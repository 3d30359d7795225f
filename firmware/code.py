# sowboard Pico firmware, entry point (CircuitPython 9 or later on a Raspberry Pi Pico).
# Copy to CIRCUITPY: boot.py, code.py, sowfirm.py, sowproto.py, hx711_pio.py, pinmap.py, and to
# CIRCUITPY/lib: neopixel.mpy, adafruit_pioasm.mpy (from the Adafruit CircuitPython bundle).
import sowfirm

sowfirm.main()
