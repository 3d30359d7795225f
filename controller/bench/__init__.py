"""Benchmarks behind `sowboard bench ...`: they print figures, they do not pass or fail."""
