"""Tests of the simulated board (SIMULATION.md)."""
