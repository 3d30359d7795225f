# Pico GP pins of the Pi + Pico build. hardware/wiring.py prints the wiring tables from these.
DOUT_FIRST_GP = 0  # cell i's DOUT on GP(i): consecutive pins, one PIO `in pins` reads them all
DOUT_LINES = 20  # GP0..GP19: up to 20 cells (the 9-pit board)
SCK_GP = 20  # the shared clock of every HX711
RATE_GP = 21  # every HX711's RATE pin: high = 80 samples/s, low = 10
NEOPIXEL_GP = 22  # through a 74AHCT125 (3.3 V -> 5 V) to the first LED's DIN
