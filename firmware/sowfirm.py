# The Pico's firmware: read every HX711 in parallel (hx711_pio), send the readings to the Pi over
# the USB CDC data channel (sowproto, firmware/PROTOCOL.md), show the LED frames the Pi sends.
#
# `Firmware` holds the logic and takes its hardware as arguments, so the tests run it on CPython
# with fake pins, a fake usb_cdc channel and simulated HX711 chips. `main()` builds the real
# hardware from CircuitPython's modules; code.py calls it.

import time

import sowproto

FIRMWARE_VERSION = "sowboard-pico 1.0.0"
DEFAULT_CELLS = 16
DEFAULT_RATE = 80
MAX_CURRENT_MA = 2000  # hard cap of the LED chain's estimated current (the Pi caps it too)
MA_PER_CHANNEL = 20.0  # WS2812B: about 20 mA per colour at full duty (60 mA white)
MA_IDLE = 1.0


def limit_current(colors, max_ma=MAX_CURRENT_MA):
    """Scale colours down so the estimated WS2812B current stays within max_ma."""
    total = 0.0
    for r, g, b in colors:
        total += MA_IDLE + MA_PER_CHANNEL * (r + g + b) / 255.0
    if total <= max_ma:
        return colors
    idle = MA_IDLE * len(colors)
    scale = max(0.0, (max_ma - idle) / (total - idle))
    return [(int(r * scale), int(g * scale), int(b * scale)) for r, g, b in colors]


class Firmware:
    """The main loop's work, one step at a time.

    link: the USB CDC data channel (read, write, in_waiting).
    reader: a hx711_pio.ParallelHX711.
    make_pixels(n): a NeoPixel-like object of n LEDs (item assignment, show, deinit), or None.
    rate_pin: a digitalio output on every HX711's RATE pin (high = 80 SPS), or None.
    clock_us(): microseconds, for nothing but the sample timestamps' source (reader.clock_us).
    """

    def __init__(self, link, reader, make_pixels=None, rate_pin=None, max_ma=MAX_CURRENT_MA):
        self.link = link
        self.reader = reader
        self.make_pixels = make_pixels
        self.rate_pin = rate_pin
        self.max_ma = max_ma
        self.decoder = sowproto.Decoder()
        self.seq = 0
        self.rate = DEFAULT_RATE
        self.led_count = 0
        self.pixels = None
        self.colors = []
        self.write_errors = 0
        self.set_rate(DEFAULT_RATE)

    # -- outgoing -----------------------------------------------------------------------------

    def send(self, msg_type, payload):
        if not getattr(self.link, "connected", True):
            return False  # nobody has the port open: drop rather than block
        try:
            self.link.write(sowproto.encode_packet(msg_type, payload))
            return True
        except OSError:
            self.write_errors += 1
            return False

    def send_error(self, code, text):
        self.send(sowproto.MSG_ERROR, sowproto.pack_error(code, text))

    # -- settings -----------------------------------------------------------------------------

    def set_rate(self, rate):
        self.rate = rate
        if self.rate_pin is not None:
            self.rate_pin.value = rate == 80

    def set_led_count(self, count):
        if count == self.led_count:
            return
        if self.pixels is not None:
            self.pixels.deinit()
            self.pixels = None
        self.led_count = count
        self.colors = [(0, 0, 0)] * count
        if count and self.make_pixels is not None:
            self.pixels = self.make_pixels(count)
            self.show()

    def show(self):
        if self.pixels is None:
            return
        colors = limit_current(self.colors, self.max_ma)
        for i in range(len(colors)):
            self.pixels[i] = colors[i]
        self.pixels.show()

    # -- incoming -----------------------------------------------------------------------------

    def handle(self, packet):
        kind = packet.msg_type
        if kind == sowproto.MSG_PING:
            # PING and PONG keep their layout in every version, so a mismatch can be named.
            try:
                token = sowproto.unpack_ping(packet.payload[:4])
            except ValueError:
                self.send_error(sowproto.ERR_BAD_PACKET, "bad ping")
                return
            pong = sowproto.pack_pong(
                token,
                self.reader.cells,
                self.rate,
                self.reader.gain,
                self.led_count,
                self.decoder.errors,
                FIRMWARE_VERSION,
            )
            self.send(sowproto.MSG_PONG, pong)
            return
        if packet.version != sowproto.PROTOCOL_VERSION:
            self.send_error(
                sowproto.ERR_VERSION,
                "protocol v%d here, v%d received" % (sowproto.PROTOCOL_VERSION, packet.version),
            )
            return
        if kind == sowproto.MSG_CONFIG:
            try:
                cells, rate, gain, leds = sowproto.unpack_config(packet.payload)
                self.reader.configure(cells, gain)
            except ValueError as err:
                self.send_error(sowproto.ERR_BAD_CONFIG, str(err))
                return
            self.set_rate(rate)
            self.set_led_count(leds)
        elif kind == sowproto.MSG_LEDS:
            try:
                start, colors = sowproto.unpack_leds(packet.payload)
            except ValueError as err:
                self.send_error(sowproto.ERR_BAD_LEDS, str(err))
                return
            if start + len(colors) > self.led_count:
                self.send_error(sowproto.ERR_BAD_LEDS, "LED frame past the end of the chain")
                colors = colors[: max(0, self.led_count - start)]
            for i in range(len(colors)):
                self.colors[start + i] = colors[i]
            self.show()
        else:
            self.send_error(sowproto.ERR_UNKNOWN_TYPE, "unknown message 0x%02x" % kind)

    # -- the loop -----------------------------------------------------------------------------

    def step(self):
        """One pass of the main loop; True when it had something to do."""
        busy = False
        waiting = self.link.in_waiting
        if waiting:
            busy = True
            for packet in self.decoder.feed(self.link.read(waiting)):
                self.handle(packet)
        sample = self.reader.poll()
        if sample is not None:
            busy = True
            t_us, values = sample
            self.seq += 1
            self.send(sowproto.MSG_SAMPLES, sowproto.pack_samples(self.seq, t_us, values))
        return busy


def _pin(board, gp):
    return getattr(board, "GP%d" % gp)


def main(should_stop=None):
    """Build the real hardware and run forever (or until should_stop() is true: tests)."""
    import adafruit_pioasm
    import board
    import digitalio
    import microcontroller
    import neopixel
    import rp2pio
    import supervisor
    import usb_cdc

    import hx711_pio
    import pinmap

    try:
        supervisor.runtime.autoreload = False  # a museum: never restart on a file write
    except AttributeError:
        pass
    link = usb_cdc.data
    if link is None:
        raise RuntimeError("usb_cdc data channel is off: copy boot.py to CIRCUITPY and reset")
    link.timeout = 0
    link.write_timeout = 0.5

    program = adafruit_pioasm.Program(hx711_pio.program_source(pinmap.DOUT_LINES))
    sm = rp2pio.StateMachine(
        program.assembled,
        frequency=hx711_pio.PIO_FREQUENCY,
        first_in_pin=_pin(board, pinmap.DOUT_FIRST_GP),
        in_pin_count=pinmap.DOUT_LINES,
        pull_in_pin_up=(1 << pinmap.DOUT_LINES) - 1,  # an unplugged DOUT reads high: not ready
        first_sideset_pin=_pin(board, pinmap.SCK_GP),
        initial_sideset_pin_state=0,
        initial_sideset_pin_direction=1,
        in_shift_right=False,
        wait_for_txstall=False,
        **program.pio_kwargs,
    )

    def clock_us():
        return time.monotonic_ns() // 1000

    reader = hx711_pio.ParallelHX711(sm, DEFAULT_CELLS, clock_us)
    rate_pin = digitalio.DigitalInOut(_pin(board, pinmap.RATE_GP))
    rate_pin.switch_to_output(value=True)

    def make_pixels(n):
        return neopixel.NeoPixel(
            _pin(board, pinmap.NEOPIXEL_GP),
            n,
            brightness=1.0,
            auto_write=False,
            pixel_order=neopixel.GRB,
        )

    firmware = Firmware(link, reader, make_pixels, rate_pin)
    dog = None
    try:
        import watchdog

        dog = microcontroller.watchdog
        dog.timeout = 4.0
        dog.mode = watchdog.WatchDogMode.RESET  # a hang or a crash restarts the Pico
    except (ImportError, AttributeError, NotImplementedError):
        dog = None
    try:
        while should_stop is None or not should_stop():
            if not firmware.step():
                time.sleep(0.001)
            if dog is not None:
                dog.feed()
    finally:
        if dog is not None and should_stop is not None:
            dog.deinit()
        sm.deinit()
        rate_pin.deinit()
        if firmware.pixels is not None:
            firmware.pixels.deinit()
