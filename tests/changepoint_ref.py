#!/usr/bin/python3
"""An independent brute force of stats/changepoint.c's statistic and
split choice, for tests/unit_changepoint.c's data: straight from Matteson
& James (2014), every pair's distance summed anew for every split (no
running sums, no scaling), in exact rational arithmetic where the series
is given in integers. Run it to print the C tables the unit test holds:

    /usr/bin/python3 tests/changepoint_ref.py > /tmp/ref.h

and compare them with the tables in tests/unit_changepoint.c (the test
says which series each is; t47 requires them to be this output). With a
tool, the same series go through pressmark's own functions
(tests/stats_tool: cp_qhat and cp_detect) and are held to the brute
force; it prints "ok N" (N checks) or a line per disagreement:

    /usr/bin/python3 tests/changepoint_ref.py check build/tests/stats_tool

numpy only draws the series."""
from fractions import Fraction
from itertools import combinations
import math
import subprocess
import sys

import numpy as np


def qhat(x, t):
    """Q of x[:t] against x[t:], alpha = 1."""
    a, b = x[:t], x[t:]
    n, m = len(a), len(b)
    cross = sum(abs(u - v) for u in a for v in b)
    within_a = sum(abs(u - v) for u, v in combinations(a, 2))
    within_b = sum(abs(u - v) for u, v in combinations(b, 2))
    e = Fraction(2) * cross / (n * m) - Fraction(within_a) / (n * (n - 1) // 2) \
        - Fraction(within_b) / (m * (m - 1) // 2)
    return Fraction(n * m, n + m) * e


def best_split(x, lo, hi, min_size):
    """The strongest split of x[lo:hi] (the first of equal maxima): (q, t)."""
    best = None
    for t in range(lo + min_size, hi - min_size + 1):
        q = qhat(x[lo:hi], t - lo)
        if best is None or q > best[0]:
            best = (q, t)
    return best


def divide(x, min_size, k):
    """The first k splits of the hierarchical search, strongest first (no test)."""
    bounds, order = [0, len(x)], []
    for _ in range(k):
        cands = [best_split(x, a, b, min_size) for a, b in zip(bounds, bounds[1:]) if b - a >= 2 * min_size]
        q, t = max(cands, key=lambda c: c[0])
        order.append(t)
        bounds = sorted(bounds + [t])
    return order, bounds


def exact(v):
    """Floats as exact fractions, so the brute force does not round until the end."""
    return [Fraction(float(u)) for u in v]


def c_doubles(vals):
    return ", ".join("%.17g" % float(v) for v in vals)


def series():
    rng = np.random.default_rng(20261202)
    yield "noise12", exact(np.round(rng.normal(100, 5, 12), 3)), 2
    yield "ties20", [Fraction(int(u)) for u in rng.integers(0, 4, 20)], 3
    step = np.concatenate([rng.normal(100, 4, 18), rng.normal(92, 4, 12)])
    yield "step30", exact(np.round(step, 4)), 3
    yield "wide25", exact(rng.normal(0, 1e6, 25)), 4


def steps40():
    """Two steps, then a third level: the hierarchical search's order and segments."""
    rng = np.random.default_rng(31)
    x = exact(np.round(np.concatenate([rng.normal(100, 1, 14), rng.normal(120, 1, 10), rng.normal(90, 1, 16)]), 3))
    order, bounds = divide(x, 3, 2)
    means = [sum(x[a:b]) / (b - a) for a, b in zip(bounds, bounds[1:])]
    return x, order, means


def tool_lines(tool, sub, line):
    out = subprocess.run([tool, sub, "-"], input=line + "\n", capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("the tool failed: " + out.stderr.strip())
    return out.stdout.split()


def check(tool):
    """Each series' Q at every split within 1e-12 of the largest |Q|, NAN
    where a side has one point; the best split among the changes when
    every candidate is kept (max_p 1); steps40's two changes at the brute
    force's places, in the order found, with its three segments' means."""
    bad, n = [], 0
    for name, x, min_size in series():
        want = [qhat(x, t) if 2 <= t <= len(x) - 2 else None for t in range(len(x))]
        got = [float(w) for w in tool_lines(tool, "cp-qhat", " ".join("%.17g" % float(u) for u in x))]
        big = max(abs(float(q)) for q in want if q is not None)
        worst = max((abs(g - float(q)) for g, q in zip(got, want) if q is not None), default=math.inf)
        n += 2
        if [math.isnan(g) for g in got] != [q is None for q in want]:
            bad.append("%s: NAN at %s, the brute force at %s" % (name, [t for t, g in enumerate(got) if math.isnan(g)],
                                                               [t for t, q in enumerate(want) if q is None]))
        if not worst <= 1e-12 * big:
            bad.append("%s: Q differs by %g of the largest |Q| (%g)" % (name, worst / big, big))
        bq, bt = best_split(x, 0, len(x), min_size)
        w = tool_lines(tool, "cp", "%d 1 1 1 %s" % (min_size, " ".join("%.17g" % float(u) for u in x)))
        ats = [int(w[1 + 5 * i]) for i in range(int(w[0]))]
        qs = [float(w[3 + 5 * i]) for i in range(int(w[0]))]
        n += 1
        if not any(a == bt and abs(q - float(bq)) <= 1e-12 * big for a, q in zip(ats, qs)):
            bad.append("%s: the best split with min_size %d at %d (Q %g) is not among %s" % (name, min_size, bt,
                                                                                        float(bq), ats))
    x, order, means = steps40()
    w = tool_lines(tool, "cp", "3 0.05 199 1 " + " ".join("%.17g" % float(u) for u in x))
    got = [(int(w[1 + 5 * i]), float(w[4 + 5 * i]), float(w[5 + 5 * i])) for i in range(int(w[0]))]
    want = [(order[1], float(means[0]), float(means[1])), (order[0], float(means[1]), float(means[2]))]
    n += 1
    if len(got) != 2 or any(g[0] != v[0] or abs(g[1] - v[1]) > 1e-9 or abs(g[2] - v[2]) > 1e-9
                            for g, v in zip(got, want)):
        bad.append("steps40: changes (at, mean before, mean after) %s, the brute force %s" % (got, want))
    print("\n".join(bad) if bad else "ok %d" % n)


def main():
    if sys.argv[1:2] == ["check"]:
        return check(sys.argv[2])
    for name, x, min_size in series():
        n = len(x)
        q = [qhat(x, t) if 2 <= t <= n - 2 else None for t in range(n)]
        bq, bt = best_split(x, 0, n, min_size)
        print("/* %s: %d points; Q at every split t (NAN where a side has one point);"
              " the best split with min_size %d */" % (name, n, min_size))
        print("static const double %s_x[] = { %s };" % (name, c_doubles(x)))
        print("static const double %s_q[] = { %s };" % (name, ", ".join(
            "NAN" if v is None else "%.17g" % float(v) for v in q)))
        print("#define %s_MIN %d\n#define %s_BEST %d\n" % (name.upper(), min_size, name.upper(), bt))
    x, order, means = steps40()
    print("/* steps40: two steps; the brute force's splits in the order found, and the three segments' means */")
    print("static const double steps40_x[] = { %s };" % c_doubles(x))
    print("static const size_t steps40_order[] = { %s };" % ", ".join(str(t) for t in order))
    print("static const double steps40_means[] = { %s };" % c_doubles(means))


if __name__ == "__main__":
    main()
