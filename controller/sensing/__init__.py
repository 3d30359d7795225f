"""Sensing: raw load-cell frames to settled weight changes. Knows cells and grams, never rules."""
