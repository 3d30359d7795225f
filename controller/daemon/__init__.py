"""The daemon: one loop owns the state (frames -> referee -> LEDs -> status)."""
