# Runs once at power-up, before USB starts: add the second USB serial channel (usb_cdc.data) for
# the data protocol, next to the console (firmware/PROTOCOL.md).
import usb_cdc

usb_cdc.enable(console=True, data=True)
