#!/bin/bash
# How compare judges, over the 80 real runs of the verdict pool (a copy:
# 40 chat and 40 usemem runs recorded interleaved here), relabelled in SQL:
# the family (raw, Benjamini-Hochberg and Holm p, recomputed here from the
# JSON's raw p), the deciding test (an outlier: the larger of Welch's and
# Mann-Whitney's p), the bootstrap's seed, outliers kept and excluded, the
# change the runs could have found (recomputed with scipy's noncentral t),
# the drift caveat and line, the across-workload means (recomputed from
# the means and sds), the report's summary, and bad input. Reads and
# writes nothing but its own directory; no run is made.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
# Beside the tests that change the machine (FREE_TESTS): a state
# directory of its own, so no command here recovers their runs' leftovers.
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
PY=/usr/bin/python3
export PRESSMARK_DB="$TMP/pool.db"
cp "$ROOT/tests/fixtures/verdict-pool.db" "$PRESSMARK_DB"
chmod 600 "$PRESSMARK_DB"
# A and B take turns, as an interleaved suite's runs do (by run id, which
# is recording order), 20 runs each of each workload; B's headline made 30%
# worse in chat and 7% in usemem (where Benjamini-Hochberg finds it and
# Holm, for the gate, does not).
q "update run set label = (select case when rn % 2 = 0 then 'A' else 'B' end
       from (select id, row_number() over (partition by workload order by id) rn from run) x where x.id = run.id);
   update metric set value = value * 0.7 where name = 'chat.msgs_per_s'
       and run_id in (select id from run where label = 'B');
   update metric set value = value * 0.93 where name = 'usemem.mb_per_s'
       and run_id in (select id from run where label = 'B')"

"$PM" compare --baseline A B --format json > ab.json
is "$?" 0 "compare --baseline A B over the pool exits 0"
is "$(python3 "$ROOT/tests/json_check.py" compare < ab.json)" ok "  its JSON matches docs/json/compare.schema.json"
cat > "$TMP/family.py" <<'PY'
import json, math, sys
from scipy import stats
d = json.load(open(sys.argv[1]))
alpha = d["comparisons"][0]["alpha"]
cells = []
for c in d["comparisons"]:
    for l in c["labels"]:
        for name, m in l["metrics"].items():
            v = m.get("vs_baseline")
            if v and v["tested"]:
                cells.append((c["workload"], l["label"], name, v, m))
def holm(p):
    o = sorted(range(len(p)), key=lambda i: p[i]); out = [0] * len(p); run = 0
    for k, i in enumerate(o):
        run = max(run, min(1, (len(p) - k) * p[i])); out[i] = run
    return out
def bh(p):
    o = sorted(range(len(p)), key=lambda i: p[i]); out = [0] * len(p); run = 1
    for k in range(len(p) - 1, -1, -1):
        i = o[k]; run = min(run, min(1, len(p) / (k + 1) * p[i])); out[i] = run
    return out
p = [v["p"] for *_, v, m in cells]
# Metrics that held one value on both sides are not tested: no p, not in
# the family, judging nothing.
judged = list(range(len(cells)))
ph, pb = holm([p[i] for i in judged]), bh([p[i] for i in judged])
bad = []
untested = [(c["workload"], l["label"], name, m) for c in d["comparisons"] for l in c["labels"]
            for name, m in l["metrics"].items() if m.get("vs_baseline") and not m["vs_baseline"]["tested"]]
for w, l, name, m in untested:
    v = m["vs_baseline"]
    if (v["p"] is not None or v["judges"] or v["p_bh"] is not None or v["p_holm"] is not None
            or v["significant"] or v["gate_significant"] or m["min"] != m["max"]):
        bad.append("%s %s %s: untested, yet p %r, judges %r, p_bh %r, p_holm %r, min %r max %r"
                   % (w, l, name, v["p"], v["judges"], v["p_bh"], v["p_holm"], m["min"], m["max"]))
if len(untested) != 6:
    bad.append("%d untested cells, not the 6 swap cells of both workloads" % len(untested))
fam = d["comparisons"][0]["family"]
if fam != len(judged):
    bad.append("family %d, judged here %d" % (fam, len(judged)))
for k, i in enumerate(judged):
    w, l, n, v, m = cells[i]
    for key, want in (("p_holm", ph[k]), ("p_bh", pb[k])):
        if abs(v[key] - want) > 1e-12:
            bad.append("%s %s %s: %s %r, here %r" % (w, l, n, key, v[key], want))
    if v["significant"] != (pb[k] < alpha) or v["gate_significant"] != (ph[k] < alpha):
        bad.append("%s %s %s: significance" % (w, l, n))
    both = max(v["welch"]["p"], v["mann_whitney"]["p"])
    if v["test"] == "welch+mann-whitney" and v["p"] != both or v["test"] == "welch" and v["p"] != v["welch"]["p"]:
        bad.append("%s %s %s: p %r is not its test's (%s)" % (w, l, n, v["p"], v["test"]))
print("\n".join(bad) if bad else "ok %d %s" % (fam, ",".join(sorted({c[3]["test"] for c in cells}))))
PY
is "$($PY "$TMP/family.py" ab.json)" "ok 7 welch,welch+mann-whitney" \
   "every tested cell's Holm and BH p as the definitions give them over the 7 with something to test; significance from them; p the deciding test's"
is "$($PY -c '
import json,sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    b = [l for l in c["labels"] if l["label"] == "B"][0]
    h = b["metrics"][c["headline"]]["vs_baseline"]
    print(c["workload"], h["test"], h["significant"], h["gate_significant"], [o["run_id"] for l in c["labels"] for o in l["outliers"]])
' ab.json)" "usemem welch+mann-whitney True False [71]
chat welch True True []" \
   "chat's 30% drop found by Welch for the table and the gate; usemem's, with an outlier in A, by both tests, significant for the table (BH) but not the gate (Holm)"

text=$("$PM" compare --baseline A B)
is "$(printf '%s\n' "$text" | grep -c '^chat: 2 labels, baseline A, alpha 0\.05 for a family of 7 comparisons;')" 1 \
   "the title says alpha is the family's, and its size"
like "$text" "usemem runs 8\.3 % slower with B than with A \(p = 0\.0105 \(the larger of Welch's and Mann-Whitney's: an outlier\), adjusted 0\.0369 over 7 comparisons, n = 20/20\)" \
   "usemem's sentence names the rule the outlier brought, raw and BH-adjusted p"
like "$text" "0\.948 times \(p = 0\.593, adjusted 0\.692 over 7 comparisons\)" \
   "  chat's p99 latency judged in its sentence, not significant"
"$PM" compare --baseline A B --fail-on-regression > gate.txt 2>&1
is "$?" 1 "--fail-on-regression: exit 1"
is "$(grep '^REGRESSION' gate.txt)" "REGRESSION chat: chat.msgs_per_s msg/s is 30.8 % worse with B than with A (78,448.2 -> 54,313.6 msg/s, p < 0.001, Holm-adjusted < 0.001 over 7 comparisons; caveat: a side's runs drift with their order (see drift below), which may explain it)" \
   "  the gate finds chat's drop (Holm) and not usemem's 8%, which Holm's 0.063 leaves unproven; B's drifting runs are its caveat"
is "$(tail -1 gate.txt)" "verdict: regression: a metric is worse than the baseline by more than 5 % (significant at alpha 0.05 for the family, Holm)" \
   "  the verdict says alpha is the family's, by Holm"
like "$text" "outlier of A \(modified z-score of usemem\.mb_per_s above 4\.00, the critical value for 20 runs\): run 71 \(4,499\.0, z = 4\.1\); kept \(--exclude-outliers leaves them out\)" \
   "the outlier is listed by run, value and z, and kept"
unlike "$text" "outliers? of B " \
   "  B's runs 26, 33 and 70 (z 3.6, 3.9 and 3.6) are not: 3.5 flagged them, 4.00 is the critical value for 20 runs"
like "$text" "drift: the runs of B trend with their order \(msg/s rising, Spearman rho = 0\.58, p = 0\.00787, n = 20\)" \
   "chat's drift over the recording is named (rho and p as scipy's spearmanr gives them: t47)"
like "$text" "chat runs 30\.8 % slower with B than with A \(p < 0\.001, adjusted < 0\.001 over 7 comparisons, n = 20/20\); chat\.latency_p99_us .*; caveat: a side's runs drift with their order" \
   "a significant change over drifting runs carries the caveat, though the labels took turns"

# The change the runs could have found, from the JSON's CVs and runs, at
# alpha over the family, through scipy's noncentral t.
is "$($PY -W ignore - ab.json <<'PY'
import json, math, sys
from scipy import optimize, stats
d = json.load(open(sys.argv[1]))
bad = []
for c in d["comparisons"]:
    a = c["labels"][0]["metrics"][c["headline"]]
    b = c["labels"][1]["metrics"][c["headline"]]
    v = b["vs_baseline"]
    cv = math.sqrt((a["cv_pct"] ** 2 + b["cv_pct"] ** 2) / 2); n = min(a["n"], b["n"]); al = c["alpha"] / c["family"]
    def power(dd):
        df = 2 * n - 2; crit = stats.t.isf(al / 2, df); nc = dd / (cv * math.sqrt(2 / n))
        return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)
    want = optimize.brentq(lambda dd: power(dd) - 0.8, 1e-6, 1000)
    if abs(v["detectable_change_pct"] - want) > 5e-5 * want:
        bad.append("%s: %r, scipy %r" % (c["workload"], v["detectable_change_pct"], want))
print("\n".join(bad) or "ok %d" % len(d["comparisons"]))
PY
)" "ok 2" "the change each headline's runs would find at 80% power: as scipy's noncentral t gives it (pooled CV, the smaller side, alpha / family)"

# Across workloads: B against A, the geometric mean of the two headline
# ratios (rates: B/A), its interval from the means, sds and runs.
is "$($PY -W ignore - ab.json <<'PY'
import json, math, sys
from scipy import stats
d = json.load(open(sys.argv[1]))
logs, var = [], 0
for c in d["comparisons"]:
    a = c["labels"][0]["metrics"][c["headline"]]; b = c["labels"][1]["metrics"][c["headline"]]
    logs.append(math.log(b["mean"] / a["mean"]))
    var += (a["sd"] / a["mean"]) ** 2 / a["n"] + (b["sd"] / b["mean"]) ** 2 / b["n"]
m, se, z = sum(logs) / 2, math.sqrt(var) / 2, stats.norm.ppf(0.975)
want = [math.exp(m), math.exp(m - z * se), math.exp(m + z * se)]
(x,) = d["across"]
got = [x["geomean_ratio"], x["low"], x["high"]]
ok = x["label"] == "B" and x["workloads"] == 2 and all(abs(g - w) <= 1e-9 * w for g, w in zip(got, want))
print("ok" if ok else "%r against %r" % (x, want))
PY
)" ok "across workloads: B's geometric mean of the headline ratios and its 95% interval, as recomputed from the means"
like "$text" "  B: 79\.7 % \[76\.1, 83\.5\] over 2 workloads" "  and the text's line for it"

# --alpha is the family's level and decides: usemem's BH-adjusted 0.0369.
sig() { "$PM" compare --baseline A B --format json "$@" | $PY -c '
import json,sys
c = [c for c in json.load(sys.stdin)["comparisons"] if c["workload"] == "usemem"][0]
v = c["labels"][1]["metrics"]["usemem.mb_per_s"]["vs_baseline"]
print(c["alpha"], v["significant"], v["gate_significant"])'; }
is "$(sig --alpha 0.03)" "0.03 False False" "--alpha 0.03: usemem's drop (BH 0.0369) is not significant"
is "$(sig --alpha 0.04)" "0.04 True False" "--alpha 0.04: it is, for the tables; not for the gate (Holm 0.0632)"
is "$(sig --alpha 0.07)" "0.07 True True" "--alpha 0.07: for the gate too"

# --long: every test for every judged metric, and the same verdicts.
long=$("$PM" compare --baseline A B --long)
block=$(printf '%s\n' "$long" | sed -n '/^usemem\.mb_per_s /,/^stat\.cpu\.util_pct /p')
like "$block" "  Welch p +- +p=0\.0105$" "--long: Welch's p"
like "$block" "  Mann-Whitney +- +U=98 p=0\.00513$" "  Mann-Whitney's U and p (B below A in 98 of 400 pairs)"
like "$block" "  ratio 95% CI +- +\[85\.8%, 97\.9%\]$" "  the 95% interval of the ratio B/A (0.917), Welch's test inverted"
unlike "$block" "BCa bootstrap" "  no bootstrap row unless --bootstrap asks for one"
like "$(printf '%s\n' "$long" | sed -n '/^swap\.in_kb /,/^swap\.out_kb /p')" "  change +base +constant$" \
     "  a metric with one value on both sides: its change says constant, nothing tested"
like "$block" "  p adj BH/Holm +- +0\.0369 / 0\.0632$" "  both adjusted p"
like "$block" "  finds \(80%\) +- +12\.0%$" "  the change the runs would find"
like "$block" "  hmean +3,669\.5 +3,343\.7$" "  each side's harmonic mean (the runs' rate together)"
is "$(printf '%s\n' "$long" | grep '%: ')" "$(printf '%s\n' "$text" | grep '%: ')" \
   "--long's sentences are the default view's: its further metrics are a family of their own and judge nothing"
like "$long" "alpha 0\.05 for a family of 7 comparisons \(the metrics below swap\.io_kb are a family of their own, [0-9]+, and judge nothing\)" \
   "  and its title says so"
"$PM" compare --baseline A B --long --fail-on-regression > /dev/null 2>&1
is "$?" 1 "  --long's gate: exit 1, as without it"

# The ratio's interval: B's mean over A's, inside it; the bootstrap only
# when asked, its seed making it reproducible, another seed other resamples.
is "$($PY -c '
import json,sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    a = c["labels"][0]["metrics"][c["headline"]]; b = c["labels"][1]["metrics"][c["headline"]]
    r = b["vs_baseline"]["ratio_ci"]
    print(c["workload"], r["method"], abs(r["ratio"] - b["mean"] / a["mean"]) < 1e-12, r["low"] < r["ratio"] < r["high"],
          "%.4f %.4f" % (r["low"], r["high"]), b["vs_baseline"]["bootstrap"], c["bootstrap_resamples"])' ab.json)" \
"usemem welch-inverted True True 0.8582 0.9790 None 0
chat welch-inverted True True 0.6447 0.7439 None 0" "the ratio's interval: B's mean over A's, inside it (pinned: t47 holds the function to scipy); no bootstrap drawn unasked"
boot() { "$PM" compare --baseline A B --format json --bootstrap 2000 "$@" | $PY -c '
import json,sys
d = json.load(sys.stdin)
print(" ".join("%r %r" % (l["metrics"][c["headline"]]["vs_baseline"]["bootstrap"]["low"], l["metrics"][c["headline"]]["vs_baseline"]["bootstrap"]["high"]) for c in d["comparisons"] for l in c["labels"][1:]))'; }
is "$(boot)" "0.864268921275159 0.976324579549388 0.648115577024296 0.738430485528278" \
   "--bootstrap 2000: the BCa interval (pinned: the default seed's)"
is "$(boot --seed 20261202)" "$(boot)" "  the bootstrap's default seed is 20261202, and the same runs and seed give the same intervals"
isnt "$(boot --seed 7)" "$(boot)" "  another seed draws other resamples"
is "$("$PM" compare --baseline A B --format json --bootstrap 500 | $PY -c 'import json,sys; print(json.load(sys.stdin)["comparisons"][0]["bootstrap_resamples"])')" 500 \
   "  --bootstrap picks the resample count"
isnt "$("$PM" compare --baseline A B --format json --bootstrap 500 | $PY -c '
import json,sys
d = json.load(sys.stdin)
print(" ".join("%r %r" % (l["metrics"][c["headline"]]["vs_baseline"]["bootstrap"]["low"], l["metrics"][c["headline"]]["vs_baseline"]["bootstrap"]["high"]) for c in d["comparisons"] for l in c["labels"][1:]))')" "$(boot)" \
   "  and 500 resamples draw another interval than 2000"
like "$("$PM" compare --baseline A B --long --bootstrap 2000 | sed -n '/^usemem\.mb_per_s /,/^stat\.cpu\.util_pct /p')" \
     "  BCa bootstrap +- +\[86\.4%, 97\.6%\]" "  and --long shows it in a row of its own"

# The CSV's ratio columns are the JSON's.
"$PM" compare --baseline A B --format csv > ab.csv
is "$(head -1 ab.csv | awk -F, '{ print $(NF-3), $(NF-2), $(NF-1), $NF }')" "ratio ratio_low ratio_high ratio_shape" \
   "CSV: the ratio's set in the last four columns"
is "$(awk -F, '$2 == "B" && $4 == "usemem.mb_per_s" { printf "%.4f %.4f %s", $(NF-2), $(NF-1), $NF }' ab.csv)" \
   "0.8582 0.9790 interval" "  usemem's B row: as the JSON's"
# A baseline mostly 0 (a swap total: 4000 KB in one of A's 20 runs, 9,000 to
# 10,000 in each of B's): A's mean cannot be told from 0, so the set is every
# ratio but an interval, and it leaves out 1 as Welch's p (< 0.001) does.
cp "$PRESSMARK_DB" zero.db
sqlite3 -batch zero.db "update metric set value = case when run_id = (select min(id) from run where label = 'A'
        and workload = 'usemem') then 4000 else 0 end
    where name = 'swap.in_kb' and run_id in (select id from run where label = 'A' and workload = 'usemem');
  update metric set value = 9000 + (run_id % 5) * 250 where name = 'swap.in_kb'
    and run_id in (select id from run where label = 'B' and workload = 'usemem')"
zl=$("$PM" --db zero.db compare --baseline A B --workload usemem --long | sed -n '/^swap\.in_kb /,/^swap\.out_kb /p')
like "$zl" "  ratio 95% CI +- +all but \(-4484\.0%, 1557\.7%\)$" "  --long: all but an interval (-4,484 % to 1,558 %)"
like "$zl" "  Welch p +- +p<0\.001$" "  where Welch's p is below 0.001"
is "$("$PM" --db zero.db compare --baseline A B --workload usemem --format json | $PY -c '
import json,sys
c = json.load(sys.stdin)["comparisons"][0]
r = c["labels"][1]["metrics"]["swap.in_kb"]["vs_baseline"]["ratio_ci"]
print(r["shape"], r["excludes_1"], r["low"] < 1 < r["high"], r["ratio"] > r["high"])')" "outside True True True" \
   "  JSON: shape outside, 1 left out, the ratio (47.5) beyond it"

# JUnit: a cell with one value on both sides (no swap: 0 and 0) says it
# was not tested, never a p of its empty fields.
"$PM" compare --baseline A B --fail-on-regression --junit ab.xml > /dev/null 2>&1
is "$($PY -c 'import sys, xml.etree.ElementTree as E
c = [t for t in E.parse(sys.argv[1]).getroot().iter("testcase") if t.get("name") == "swap.in_kb"]
print(len(c), all("one value on both sides: nothing tested" in t.find("system-out").text and "Welch t=" not in t.find("system-out").text and "change - (" in t.find("system-out").text for t in c))' ab.xml)" \
   "2 True" "JUnit: the constant swap cells of both workloads say nothing was tested"
like "$($PY -c 'import sys, xml.etree.ElementTree as E
print([t.find("system-out").text for t in E.parse(sys.argv[1]).getroot().iter("testcase")
       if t.get("name") == "usemem.mb_per_s"][0])' ab.xml)" \
     "95% CI of the ratio \(Welch's test inverted\) \[85\.8%, 97\.9%\]; decided by welch\+mann-whitney" \
     "  and usemem's case gives the ratio's interval as --long does"

# A label that is not UTF-8 (a database is data): the JUnit file still
# parses, the stray byte as U+FFFD (an XML parser stops at the first
# invalid byte: CI would have read no verdict at all).
cp "$PRESSMARK_DB" bad8.db
sqlite3 bad8.db "update run set label = CAST(X'42FF3C783E' AS TEXT) where label = 'B'"
"$PM" --db bad8.db compare --baseline A "$(printf 'B\377<x>')" --junit bad8.xml > /dev/null 2>&1
is "$($PY -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(len(list(r.iter("testcase"))) > 0, any("B\ufffd<x>" in (t.get("classname") or "") + (t.get("name") or "") + (s.get("name") or "")
      for s in r.iter("testsuite") for t in s.iter("testcase")))' bad8.xml 2>&1)" "True True" \
   "JUnit: a label with a byte that is not UTF-8 still parses, the byte as U+FFFD"

# --exclude-outliers: run 71 leaves A's usemem cells, and the output says so.
"$PM" compare --baseline A B --exclude-outliers --format json > ex.json
is "$($PY -c '
import json,sys
c = [c for c in json.load(open(sys.argv[1]))["comparisons"] if c["workload"] == "usemem"][0]
a = c["labels"][0]
print(a["outliers_excluded"], [o["run_id"] for o in a["outliers"]], a["metrics"]["usemem.mb_per_s"]["n"], a["ok"],
      71 in a["metrics"]["usemem.mb_per_s"]["values"] or 4499.0 in [round(v, 1) for v in a["metrics"]["usemem.mb_per_s"]["values"]])' ex.json)" \
   "True [71] 19 20 False" "--exclude-outliers: run 71 is out of A's 20 ok runs (n 19, its value gone), listed and marked excluded"
like "$("$PM" compare --baseline A B --exclude-outliers)" "run 71 \(4,499\.0, z = 4\.1\); excluded \(--exclude-outliers\)" "  and the text says it was excluded"

# The report: the summary's across-workload means and the outlier note.
"$PM" report --out "$TMP/rep" > /dev/null 2>&1
ok "report over the pool writes its page" test -s "$TMP/rep/report.html"
like "$(cat "$TMP/rep/report.html")" "<h3>Across workloads</h3>" "  its summary has the across-workload means"
like "$(cat "$TMP/rep/report.html")" "<li>A: 125\.5 % \[119\.7, 131\.5\] over 2 workloads</li>" \
   "  each configuration's, with its interval (the report's baseline is each workload's first label, B)"

# Hostile data: a label with markup and a terminal escape carries the
# outlier, drift and across lines (quoted for each markup); a metric of
# 1e200 (a database received from elsewhere) gives numbers, not GSL's
# abort(); a stored suite of more cells than a file makes is refused.
HOST="$TMP/hostile.db"
cp "$PRESSMARK_DB" "$HOST"
evil=$'A<img src=x onerror=alert(1)>\e]2;pwned\a'
sqlite3 -batch "$HOST" "update run set label = '$evil' where label = 'A'"
out=$("$PM" compare --db "$HOST" --baseline "$evil" B 2>&1)
is "$?" 0 "a hostile label: compare exits 0"
is "$(printf '%s' "$out" | grep -c $'\e')" 0 "  no escape byte reaches the terminal"
like "$out" "outlier of A<img src=x onerror=alert\(1\)>.x1b\]2;pwned.x07 \(modified z-score" "  the outlier line names it, escapes shown as \\xNN"
"$PM" compare --db "$HOST" --baseline "$evil" B --format html > hostile.html
is "$(grep -c '<img' hostile.html)" 0 "  html: no tag from the label"
like "$(cat hostile.html)" "outlier of A&lt;img src=x onerror=alert\(1\)&gt;" "  html: the outlier line quoted"
"$PM" report --db "$HOST" --out "$TMP/hrep" > /dev/null 2>&1
unlike "$(cat "$TMP/hrep/report.html")" '<img' "  the report: no tag from the label in outliers, drift or across lines"
sqlite3 -batch "$HOST" "update metric set value = 1e200 where name = 'usemem.mb_per_s' and run_id = (select min(id) from run where workload = 'usemem')"
"$PM" compare --db "$HOST" --workload usemem --baseline "$evil" B --fail-on-regression > big.txt 2>&1
rc=$?
ok "a run of 1e200 MB/s: compare judges (exit 0 or 1), no abort (exit $rc)" test "$rc" -le 1
like "$(cat big.txt)" "^verdict: " "  and ends with its verdict"
like "$(cat big.txt)" "B cannot be tested against A<img.*: their values are too large to have a spread \(n = 20/20\)" \
   "  the sentence says the values cannot be tested, not that there are too few runs"
like "$(cat big.txt)" "outlier of B \(modified z-score of usemem\.mb_per_s above 4\.00, the critical value for 20 runs\): run [0-9]+ \([0-9,]+, z > 9999\)" \
   "  and its outlier's z reads z > 9999, not two hundred digits"
sqlite3 -batch "$HOST" "insert into suite (id, uuid, name, path, digest, text, created_ns, seed, state)
    values (7, 'u7', 'huge', 'huge.ini', '', '', 0, 1, 'complete')"
sqlite3 -batch "$HOST" "with recursive i(n) as (select 0 union all select n + 1 from i where n < 1024)
    insert into suite_cell (suite_id, idx, label, workload, headline, axes) select 7, n, 'c' || n, 'w' || n, 'h', '{}' from i"
before=$(md5sum < "$HOST")
"$PM" compare --db "$HOST" --suite 7 > /dev/null 2> huge.err
is "$?:$(wc -l < huge.err)" "2:1" "a stored suite of 1,025 cells: exit 2, one line"
like "$(cat huge.err)" "suite 7 has 1025 cells in .*, more than a suite file makes \(at most 1024\)" "  saying why"
is "$(md5sum < "$HOST")" "$before" "  nothing written"

bad "compare --alpha above 0.5" "--alpha: '0\.6' is not a significance level \(accepted: a number above 0 and at most 0\.5" \
    compare --baseline A B --alpha 0.6
bad "compare --alpha 0" "--alpha: '0' is not a significance level" compare --baseline A B --alpha 0
bad "compare --bootstrap 0" "--bootstrap: '0' is not a bootstrap resample count \(accepted: a whole number from 1 to 1000000\)" \
    compare --baseline A B --bootstrap 0
bad "compare --seed x" "--seed: 'x' is not a bootstrap seed" compare --baseline A B --seed x
done_testing
