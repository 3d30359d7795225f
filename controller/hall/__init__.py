"""The hall of boards (issue 16): many boards' MQTT messages gathered into one view."""
