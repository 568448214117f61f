#!/usr/bin/python3
"""The outlier rule's critical values (stats/outlier.c), made here.

For each number of runs n, the 95th percentile of the largest modified
z-score, 0.6745 |x - median| / MAD, of n independent normal values: a
sample of n clean runs is then flagged as holding an outlier 5 % of the
time, whatever n (the fixed 3.5 of Iglewicz and Hoaglin flagged 13 to 21 %
of clean samples of 4 to 10 runs; issue 43). Seeded, so the same table
every time: /usr/bin/python3 bench/outlier_table.py > table.txt
(about five minutes; numpy from python3-scipy's dependencies).
"""
import numpy as np

SAMPLES = 1_000_000
CHUNK = 50_000
# every n to 30, then the points between which stats/outlier.c
# interpolates in log n (past the last, the asymptotic formula there)
NS = list(range(4, 31)) + [35, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000, 2000, 5000, 10000]
# fewer samples where a sample is large (the quantile's own error stays
# under 0.002 of the value): a million to 1,000 runs
SAMPLES_AT = {2000: 100_000, 5000: 60_000, 10000: 40_000}


def largest_z(rng, n, count):
    x = rng.standard_normal((count, n))
    med = np.median(x, axis=1, keepdims=True)
    dev = np.abs(x - med)
    mad = np.median(dev, axis=1, keepdims=True)
    return (0.6745 * dev / mad).max(axis=1)


def critical(n, level=0.95):
    rng = np.random.default_rng(20261206 + n)
    chunk = max(100, min(CHUNK, 20_000_000 // n))
    parts = []
    left = SAMPLES_AT.get(n, SAMPLES)
    while left > 0:
        c = min(chunk, left)
        parts.append(largest_z(rng, n, c))
        left -= c
    return float(np.quantile(np.concatenate(parts), level))


if __name__ == "__main__":
    for n in NS:
        print("    { %d, %.3f }," % (n, critical(n)), flush=True)
