"""Medians with their range, and growth exponents fitted on a log-log scale."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Dict, Sequence


@dataclass(frozen=True)
class Summary:
    """The runs of one measurement: median, min and max."""

    median: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> "Summary":
        if not samples:
            raise ValueError("no samples to summarise")
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def to_dict(self) -> Dict[str, float]:
        return {"median": self.median, "min": self.low, "max": self.high, "runs": self.runs}


def growth_exponent(sizes: Sequence[float], times: Sequence[float]) -> float:
    """The slope of log(time) against log(size) by least squares: 1 is linear, 2 quadratic;
    n log n over 1k-50k comes out near 1.1."""
    if len(sizes) != len(times) or len(sizes) < 2:
        raise ValueError("need at least two (size, time) points")
    xs = [math.log(size) for size in sizes]
    ys = [math.log(time) for time in times]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread


def n_log_n_exponent(sizes: Sequence[float], times: Sequence[float]) -> float:
    """The growth exponent of time / log2(size): about 1 when time grows as n log n."""
    return growth_exponent(sizes, [time / math.log2(size) for size, time in zip(sizes, times)])
