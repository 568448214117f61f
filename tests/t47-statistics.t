#!/bin/bash
# pressmark's statistics against an independent implementation: the same
# numbers through tests/stats_tool (pressmark's own functions, this build's)
# and through Debian's scipy must agree to 4 significant digits. A family
# of checks per statistic; each names the points that disagree. Reads and
# writes nothing but its own directory.
. "$(dirname "$0")/lib.sh"
# The tool of the build under test: under make check, the sanitised one.
# (Only the binary at the top, a copy of build/'s, takes it from there.)
TOOL=$(dirname "$PM")/tests/stats_tool
[ "$PM" != "$ROOT/pressmark" ] || TOOL=$ROOT/build/tests/stats_tool
# Debian's python3 with python3-scipy (run.sh installs both); a python3
# earlier on PATH (pyenv, a virtualenv) may have no scipy.
PY=/usr/bin/python3
ok "the statistics tool of the build under test is there ($TOOL)" test -x "$TOOL"
ok "Debian's scipy is there ($PY, python3-scipy)" "$PY" -c 'import scipy.stats'

# agree FAMILY: the family's points through the tool and through scipy;
# prints "ok N" (N points) or each disagreement. 4 significant digits: a
# relative difference below 5e-5 (integers: equal).
cat > "$TMP/agree.py" <<'PY'
import math, subprocess, sys
import numpy as np
from scipy import optimize, stats

tool, family = sys.argv[1:]

def power(cv, change, n, alpha):
    """Two-sided two-sample t-test, n a side, equal CV: noncentral t."""
    df = 2 * n - 2
    c = stats.t.isf(alpha / 2, df)
    nc = abs(change) / (cv * math.sqrt(2.0 / n))
    if nc == 0:
        return alpha
    return stats.nct.sf(c, df, nc) + stats.nct.cdf(-c, df, nc)

def detectable(cv, n, alpha, pw):
    return optimize.brentq(lambda d: power(cv, d, n, alpha) - pw, 1e-9 * cv, 1000 * cv, xtol=1e-13, rtol=1e-13)

def runs_needed(cv, change, alpha, pw, most):
    if power(cv, change, most, alpha) < pw:
        return 0
    lo, hi = 1, most      # lo does not reach it (no test with 1 run), hi does
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power(cv, change, mid, alpha) >= pw: hi = mid
        else: lo = mid
    return hi

CVS, NS, ALPHAS = (1, 5, 10, 30), (2, 3, 5, 10, 30, 200), (0.01, 0.05, 0.1)
families = {
    # power CV% CHANGE% N ALPHA
    "power": ("power", [(cv, ch * cv, n, a) for cv in CVS for ch in (0.3, 1, 2.5) for n in NS for a in ALPHAS],
              lambda p: power(*p)),
    # detectable CV% N ALPHA POWER
    "detectable": ("detectable", [(cv, n, a, pw) for cv in CVS for n in NS for a in ALPHAS for pw in (0.5, 0.8, 0.95)],
                   lambda p: detectable(*p)),
    # runs-needed CV% CHANGE% ALPHA POWER MAX (one past MAX: 0)
    "runs-needed": ("runs-needed", [(cv, ch, a, pw, 2000) for cv in (2, 10, 30) for ch in (1, 5, 20, 60)
                                    for a in (0.01, 0.05) for pw in (0.8, 0.9)], lambda p: runs_needed(*p)),
}
sub, points, ref = families[family]
lines = "".join(" ".join(repr(x) for x in p) + "\n" for p in points)
out = subprocess.run([tool, sub, "-"], input=lines, capture_output=True, text=True)
got = out.stdout.split()
if out.returncode != 0 or len(got) != len(points):
    print("the tool failed (%d answers to %d points): %s" % (len(got), len(points), out.stderr.strip()))
    sys.exit(0)
bad = []
for p, g in zip(points, got):
    want, mine = ref(p), float(g)
    same = mine == want if isinstance(want, int) else abs(mine - want) <= 5e-5 * abs(want)
    if not same:
        bad.append("%s %s: pressmark %s, scipy %r" % (sub, " ".join(map(str, p)), g, want))
print("\n".join(bad) if bad else "ok %d" % len(points))
PY
agree() { "$PY" -W ignore "$TMP/agree.py" "$TOOL" "$1" 2>&1; }

is "$(agree power)" "ok 216" "power of the two-sample t-test (noncentral t) at 216 points of CV, change, n and alpha: as scipy's"
is "$(agree detectable)" "ok 216" "the smallest change detected at power 0.5, 0.8 and 0.95: as scipy's to 4 digits"
is "$(agree runs-needed)" "ok 48" "the runs a side needed for a change, or 0 beyond the most: as scipy's"
done_testing
