"""Light guidance: what each place shows (patterns) and how it reaches the LEDs (backends)."""
