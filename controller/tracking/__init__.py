"""Tracking: the referee that follows the hands through the rules engine."""
