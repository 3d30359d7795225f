"""Figures the benchmarks and reports print: percentiles of measured values.

>>> summary([3.0, 1.0, 2.0, 10.0], digits=1)
{'n': 4, 'p50': 3.0, 'p99': 10.0, 'max': 10.0}
"""

from __future__ import annotations


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def summary(values: list[float], digits: int = 2) -> dict[str, float]:
    """n, p50, p99 and max, rounded for printing."""
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), digits),
        "p99": round(percentile(values, 99), digits),
        "max": round(max(values), digits) if values else 0.0,
    }
