# SPDX-License-Identifier: MIT
"""The runner's statistics, on the stdlib's statistics module.

Percentiles are nearest-rank, as the kernel's records (docs/RECORDS.md):
the ceil(p/100 * n)-th smallest sample, p in [0, 100], p = 0 the
minimum.  statistics.quantiles() interpolates, so that rule is written
out here, with exact arithmetic (90% of 10 samples is rank 9, not 10).
The median is the usual one: the middle sample, or the mean of the
middle two.
"""
import math
import statistics
from fractions import Fraction


def percentile(samples, p):
    """Nearest-rank percentile of a non-empty list (sorted or not)."""
    s = sorted(samples)
    if not s:
        raise ValueError('percentile of no samples')
    rank = math.ceil(Fraction(p) * len(s) / 100)
    return s[min(max(rank, 1), len(s)) - 1]


median = statistics.median
mean = statistics.mean


def stddev(samples):
    """Sample standard deviation (n - 1); 0 for fewer than 2 samples."""
    return statistics.stdev(samples) if len(samples) > 1 else 0


def rse(samples):
    """Relative standard error of the mean, in percent: 100 * (stddev /
    sqrt(n)) / |mean|, as perf bench's "(+-X%)" (tools/perf/util/stat.c:
    stddev_stats, rel_stddev_stats).  0 for n < 2 or a zero mean."""
    if len(samples) < 2:
        return 0
    m = statistics.mean(samples)
    if m == 0:
        return 0
    return 100 * stddev(samples) / math.sqrt(len(samples)) / abs(m)


def summary(samples):
    """n, min, p10, median, p90, max, mean of the samples that are not
    None; None if there are none."""
    v = [x for x in samples if x is not None]
    if not v:
        return None
    return {'n': len(v), 'min': min(v), 'p10': percentile(v, 10),
            'median': statistics.median(v), 'p90': percentile(v, 90),
            'max': max(v), 'mean': statistics.mean(v)}


def plain(x):
    """A number as JSON should show it: an integral float as an int (a
    record's "3.00" or a median of 10 and 30), anything else as is."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 53:
        return int(x)
    return x
