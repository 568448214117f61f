#!/bin/bash
# grafana/pressmark-sqlite.json, the dashboard that reads results.db in place
# through Grafana's SQLite data source (frser-sqlite-datasource). Debian
# packages no Grafana, so tests/grafana_sqlite.py does to each panel's and
# variable's SQL what Grafana and the plugin do (variables, $__from/$__to,
# macros) and runs it read-only with SQLite against a real database: every
# query runs, returns the columns its panel draws, rows in time order per
# series, the values the sample view holds, and a label or series name with
# quotes in it stays data, in a variable or in the results.
. "$(dirname "$0")/lib.sh"
setup "a 2 s record at 100 ms" "$PM" record --quiet --label x --interval 100ms -- sleep 2
HOSTILE="it's \"chat\"; --"
setup "a small chat whose label has quotes" "$PM" run chat --quiet --label "$HOSTILE" --rooms 1 --users 5 \
    --messages 50 --heap 16M --interval 100ms
# A kernel without PSI, as a run sees it: /proc/pressure hidden under an
# empty tmpfs in a private mount namespace (nothing outside it changes), a
# record there into a database of its own.
NOPSI_DB= NOPSI_WHY=
if [ "$(id -u)" -ne 0 ]; then
    NOPSI_WHY="hiding /proc/pressure needs root (a mount namespace)"
elif ! unshare -m sh -c 'mount -t tmpfs -o size=4k,mode=555 none /proc/pressure && test ! -e /proc/pressure/memory' \
        > "$TMP/unshare.err" 2>&1; then
    NOPSI_WHY="a private mount namespace hiding /proc/pressure could not be made: $(head -1 "$TMP/unshare.err")"
else
    NOPSI_DB="$TMP/nopsi.db"
    setup "a 1 s record where /proc/pressure is hidden (a kernel without PSI)" unshare -m sh -c \
        'mount -t tmpfs -o size=4k,mode=555 none /proc/pressure && exec "$1" --db "$2" record --quiet --label nopsi --interval 100ms -- sleep 1' \
        sh "$PM" "$NOPSI_DB"
fi

# One line per check from the Python below: pass|fail, what, why.
PYTHONPATH="$ROOT/tests" python3 - "$ROOT/grafana/pressmark-sqlite.json" "$PRESSMARK_DB" "$HOSTILE" "$NOPSI_DB" "$NOPSI_WHY" \
    > "$TMP/checks" 2>"$TMP/checks.err" <<'PY'
import json, math, re, sqlite3, sys, time
import grafana_sqlite as g

dash_path, db, hostile, nopsi_db, nopsi_why = sys.argv[1:6]
dash = json.load(open(dash_path))
def check(ok, what, why=""):
    print("%s\t%s\t%s" % ("pass" if ok else "fail", what, str(why).replace("\n", " ")[:400]))
def skip(what, why):
    print("skip\t%s\t%s" % (what, why))

raw = sqlite3.connect(db)
runs = {r[2]: dict(zip(("id", "uuid", "label", "started_ns", "ended_ns", "page_size"), r)) for r in raw.execute(
    "SELECT r.id, r.uuid, r.label, r.started_ns, r.ended_ns, m.page_size FROM run r JOIN machine m ON m.id = r.machine_id")}
rec, chat = runs["x"], runs[hostile]
def sample(run, name):
    return raw.execute("SELECT t_ns, value FROM sample WHERE run_id = ? AND name = ? ORDER BY seq", (run["id"], name)).fetchall()
def tag(run):
    return run["label"] + " " + run["uuid"][:8]
metric = lambda run, name: raw.execute("SELECT value FROM metric WHERE run_id = ? AND name = ?", (run["id"], name)).fetchone()[0]
FROM_MS = min(r["started_ns"] for r in runs.values()) // 1000000 - 60000
TO_MS = int(time.time() * 1000) + 60000

# The dashboard's frame: its data source, its variables, its targets.
ds = {"type": "frser-sqlite-datasource", "uid": "${DS_SQLITE}"}
check(dash["__inputs"][0]["pluginId"] == "frser-sqlite-datasource" and dash["__inputs"][0]["name"] == "DS_SQLITE",
      "the dashboard asks for a frser-sqlite-datasource data source on import")
check([v["name"] for v in dash["templating"]["list"]] == ["run", "series"], "its variables: run, series")
targets = [(p, t) for p in dash["panels"] for t in p.get("targets", [])]
check(all(p["datasource"] == ds and t["datasource"] == ds for p, t in targets)
      and all(v["datasource"] == ds for v in dash["templating"]["list"]), "every panel, target and variable uses it")
check(all((t["queryType"], t["timeColumns"]) == ("time series", ["time"]) for p, t in targets if p["type"] == "timeseries")
      and all(t["queryType"] == "table" for p, t in targets if p["type"] == "table"),
      "time series panels ask the plugin for time series with time as their time column; tables for tables")
allq = list(g.queries(dash_path))
check(len(allq) == 2 + len(targets) and len(targets) >= 12, "%d queries: 2 variables, %d panels" % (len(allq), len(targets)))

# Variables reach SQL only as ${name:sqlstring}; reading the sample view
# filters by run (and, in panels, by name) and every query orders its rows.
bad = ["%s: %s" % (w, m.group(0)) for w, sql, _, _ in allq for m in g.VARIABLE_RE.finditer(sql)
       if not (m.group(0) in ("$__from", "$__to") or (m.group(4) in ("run", "series") and m.group(6) == "sqlstring"))]
check(not bad, "every variable in SQL is ${run:sqlstring} or ${series:sqlstring} ($__from, $__to aside)", bad)
bad = [w for w, sql, qt, _ in allq if "FROM sample" in sql and not (
    re.search(r"\brun_id IN \(", sql) and (qt == "variable" or re.search(r"\bname IN \(", sql)))]
check(not bad, "the sample view is read by run_id and name, the way its fast path is", bad)
check(not [w for w, sql, _, _ in allq if sql.rfind("ORDER BY") < sql.rfind(")")],
      "every query says its rows' order (an ORDER BY of its own, outside any window or subquery)")

# The substitution itself, on Grafana's own formatter examples.
check(g.format_value("test'value", "sqlstring") == "'test''value'"
      and g.format_value(["test", "test'value2"], "sqlstring") == "'test','test''value2'"
      and g.format_value(["test", "test'2"], "singlequote") == "'test','test\\'2'"
      and g.format_value(["a", "b"], None) == "{a,b}"
      and g.interpolate("$__from ${__to} $__unixEpochGroupSeconds(t, 10) $nosuch", {}, 1500, 2700)
      == "1500 2700 cast((t / 10) as int) * 10 $nosuch", "the emulation formats and replaces as Grafana and the plugin")

def run(where_part, variables, in_db=db):
    """The one query whose place starts with where_part, interpolated and run."""
    (w, sql, qt, tc), = [q for q in allq if q[0].startswith(where_part)]
    cols, rows = g.run(in_db, g.interpolate(sql, variables, FROM_MS, TO_MS))
    return cols, rows

def timeseries(what, cols, rows):
    """The shape the plugin makes a time series of: time, series, value;
    rows in ascending time, each series' strictly, one row per time and
    series, numbers for time and value."""
    errs = []
    if cols != ["time", "series", "value"]:
        errs.append("columns %s" % cols)
    if any(not isinstance(r[0], (int, float)) or not isinstance(r[2], (int, float)) or not isinstance(r[1], str)
           or not math.isfinite(r[2]) for r in rows):
        errs.append("a time or value that is no number, or a series that is no text")
    elif [r[0] for r in rows] != sorted(r[0] for r in rows):
        errs.append("rows not in ascending time")
    last = {}
    for r in rows:
        if r[1] in last and r[0] <= last[r[1]]:
            errs.append("series %s: time %r after %r" % (r[1], r[0], last[r[1]]))
            break
        last[r[1]] = r[0]
    check(not errs, what + ": time, series, value; in time order, each series' times increasing", errs)
    return {s: [(r[0], r[2]) for r in rows if r[1] == s] for s in last}

def at(run_, ticks):
    """A tick's time as the dashboard gives it: its run's start plus t_ns."""
    return [(run_["started_ns"] + t) / 1e9 for t in ticks]

def close(a, b):
    return len(a) == len(b) and all(abs(x - y) <= 1e-6 * max(1, abs(x), abs(y)) for x, y in zip(a, b))

def rates(run_, name, scale):
    s = sample(run_, name)
    return [(run_["started_ns"] + t1) / 1e9 for (t0, _), (t1, _) in zip(s, s[1:])], \
           [(v1 - v0) * scale / ((t1 - t0) / 1e9) for (t0, v0), (t1, v1) in zip(s, s[1:])]

one = {"run": [rec["uuid"]], "series": ["vmstat.pswpin", "meminfo.MemFree"]}
both = {"run": [rec["uuid"], chat["uuid"]], "series": ["vmstat.pswpin"]}

# Variables.
cols, rows = run("variable run", {})
check(cols == ["__text", "__value"] and [r[1] for r in rows] == [chat["uuid"], rec["uuid"]],
      "variable run: __text and __value (the uuid), newest run first", rows)
check(rows[0][0].startswith(hostile + " | chat | ") and rows[1][0].startswith("x | record | "),
      "  its text starts with the label as stored, quotes and all", rows[0][0])
cols, rows = run("variable series", one)
names = [r[0] for r in rows]
check(cols == ["name"] and names == sorted(set(names))
      and {"vmstat.pswpin", "vmstat.pswpout", "meminfo.MemFree"} <= set(names),
      "variable series: the chosen run's series names, sorted, once each (%d)" % len(names))

# Swap rate: KB/s from consecutive ticks, at the run's page size.
series = timeseries("swap rate", *run("panel 2 ", one))
check(set(series) == {"swap-in " + tag(rec), "swap-out " + tag(rec)}, "swap rate: swap-in and swap-out of the run", list(series))
for name, s in (("vmstat.pswpin", "swap-in "), ("vmstat.pswpout", "swap-out ")):
    t, v = rates(rec, name, rec["page_size"] / 1024)
    got = series.get(s + tag(rec), [])
    check(close([x[0] for x in got], t) and close([x[1] for x in got], v) and len(t) >= 15,
          "swap rate: %s is (change x page size / 1024) / seconds between ticks, at start + t_ns (%d ticks)" % (s.strip(), len(t)),
          (got[:3], t[:3], v[:3]))
# The same arithmetic on a counter that moves here (no swap on most test machines).
(_, swap, _, _), = [q for q in allq if q[0].startswith("panel 2 ")]
cols, rows = g.run(db, g.interpolate(swap.replace("'vmstat.pswpin'", "'vmstat.pgfault'"), one, FROM_MS, TO_MS))
t, v = rates(rec, "vmstat.pgfault", rec["page_size"] / 1024)
got = [(r[0], r[2]) for r in rows if r[1].startswith("swap-in ")]
check(close([x[0] for x in got], t) and close([x[1] for x in got], v) and sum(v) > 0,
      "  the same SQL over vmstat.pgfault, a counter that moves: the same rates (sum %.0f)" % sum(v), (got[:3], v[:3]))
series = timeseries("swap rate, two runs", *run("panel 2 ", both))
check({"swap-in " + tag(chat), "swap-out " + tag(rec)} <= set(series), "  two runs: a line for each, the quoted label as data",
      list(series))

# Memory levels, as bytes.
series = timeseries("memory", *run("panel 3 ", one))
want = {n for n in ("MemFree", "MemAvailable", "Cached", "SwapFree", "HighFree", "LowFree") if sample(rec, "meminfo." + n)}
check(set(series) == {n + " " + tag(rec) for n in want}, "memory: the meminfo levels the run has", sorted(series))
s = sample(rec, "meminfo.MemFree")
got = series.get("MemFree " + tag(rec), [(0, 0)])
check(close([x[0] for x in got], at(rec, [t for t, _ in s])) and close([x[1] for x in got], [v * 1024 for _, v in s])
      and got[0][0] == rec["started_ns"] / 1e9, "memory: MemFree x 1024 at every tick, the first at the run's start", got[:2])

# PSI: the share of time stalled, from the totals' changes.
series = timeseries("PSI", *run("panel 4 ", one))
want = {k for k in ("memory some", "memory full", "io some", "io full") if sample(rec, "psi." + k.replace(" ", ".") + ".total")}
check(set(series) == {k + " " + tag(rec) for k in want}, "PSI: memory and io, some and full, as the kernel has them", sorted(series))
try:
    kernel_psi = bool(open("/proc/pressure/memory").read())
except OSError:
    kernel_psi = False
check(bool(want) == kernel_psi, "PSI: the run has pressure series exactly when this kernel has /proc/pressure",
      (sorted(want), kernel_psi))
if want:
    t, v = rates(rec, "psi.memory.some.total", 1e-4)
    got = series.get("memory some " + tag(rec), [])
    check(close([x[0] for x in got], t) and close([x[1] for x in got], v) and all(x >= 0 for x in v) and len(t) >= 15,
          "PSI: memory some is the change in stalled us over the us between ticks, in %% (%d ticks)" % len(t), got[:3])
else:
    skip("PSI: memory some is the change in stalled us over the us between ticks", "this kernel has no /proc/pressure")
# A run on a kernel without PSI: the panel has no line, and no error.
if nopsi_db:
    nrun = sqlite3.connect(nopsi_db).execute("SELECT uuid FROM run WHERE label = 'nopsi'").fetchone()
    nvars = {"run": [nrun[0] if nrun else "none"], "series": ["meminfo.MemFree"]}
    series = timeseries("PSI, no PSI", *run("panel 4 ", nvars, nopsi_db))
    check(nrun and series == {}, "PSI of a run where /proc/pressure was hidden: no line (and no error)", list(series))
    series = timeseries("memory, no PSI", *run("panel 3 ", nvars, nopsi_db))
    check(len(series.get("MemFree nopsi " + (nrun[0][:8] if nrun else ""), [])) >= 5,
          "  while its memory panel has its MemFree line", list(series))
else:
    skip("PSI of a run where /proc/pressure was hidden: no line (and no error)", nopsi_why)
    skip("  while its memory panel has its MemFree line", nopsi_why)

# The chosen series, as stored.
series = timeseries("chosen series", *run("panel 5 ", one))
check(set(series) == {"vmstat.pswpin " + tag(rec), "meminfo.MemFree " + tag(rec)}, "chosen series: exactly the two chosen",
      sorted(series))
s = sample(rec, "vmstat.pswpin")
check(series.get("vmstat.pswpin " + tag(rec)) == list(zip(at(rec, [t for t, _ in s]), [v for _, v in s])),
      "chosen series: every stored value at start + t_ns")

# Tables over runs and their metrics.
cols, rows = run("panel 1 ", both)
check([r[1] for r in rows] == ["x", hostile] and rows[0][0] == rec["started_ns"] / 1e9 and cols[0] == "started",
      "chosen runs: a row per run in start order, labels as stored", rows)
cols, rows = run("panel 6 ", one)
check(len(rows) == 1 and rows[0][1] == hostile and rows[0][cols.index("msg/s")] == metric(chat, "chat.msgs_per_s")
      and rows[0][cols.index("Total swapio")] == metric(chat, "swap.io_kb") and rows[0][0] == chat["started_ns"] / 1e9,
      "chat table: the chat run, its msg/s and swap-io as stored", rows)
r = dict(zip(cols, rows[0])) if rows else {}
check(r.get("from_ms", 1e30) * 1e6 < chat["started_ns"] < chat["ended_ns"] < r.get("to_ms", 0) * 1e6,
      "  its link's range (from_ms, to_ms) holds the run", r)
cols, rows = run("panel 7 ", one)
check(cols[:3] == ["label", "n", "mean msg/s"] and rows == [(hostile, 1, metric(chat, "chat.msgs_per_s"),
      metric(chat, "chat.msgs_per_s"), metric(chat, "chat.msgs_per_s"))], "chat per label: n and mean per label", rows)
series = timeseries("chat msg/s per label", *run("panel 8 ", one))
check(series == {hostile: [(chat["started_ns"] / 1e9, metric(chat, "chat.msgs_per_s"))]},
      "chat msg/s per label: the run's msg/s at its start, its label as the line's name", series)
series = timeseries("record elapsed per label", *run("panel 12 ", one))
check(series == {"x": [(rec["started_ns"] / 1e9, metric(rec, "time.elapsed_s"))]}, "record elapsed per label", series)
series = timeseries("swap-io per label", *run("panel 13 ", one))
check(set(series) == {"record x", "chat " + hostile}, "swap-io: a line per workload and label", list(series))
for p in ("panel 9 ", "panel 10 ", "panel 11 "):
    cols, rows = run(p, one)
    check(cols == ["time", "series", "value"] and rows == [], p + "(a workload with no runs here): its columns, no rows")

# Hostile variable values are data: nothing matches, nothing breaks.
evil = "x') OR 1=1 OR s.name IN ('y"
series = timeseries("chosen series, hostile", *run("panel 5 ", {"run": [rec["uuid"]], "series": [evil, "it's", "vmstat.pswpin"]}))
check(list(series) == ["vmstat.pswpin " + tag(rec)], "a series name with quotes matches nothing and injects nothing", list(series))
for w, sql, qt, tc in allq:
    # (the queries without ${run} list runs by time, not by the variable)
    try:
        cols, rows = g.run(db, g.interpolate(sql, {"run": ["' OR 1=1 --", evil], "series": [evil]}, FROM_MS, TO_MS))
        ok = "${run:" not in sql or not rows
    except sqlite3.Error as e:
        ok, rows = False, e
    check(ok, "%s: hostile run and series values: %s" % (w, "no error, no run" if "${run:" in sql else "no error"), rows)
# ... and the check has teeth: the forms the plugin's own examples use do not hold.
(_, chosen, _, _), = [q for q in allq if q[0].startswith("panel 5 ")]
cols, rows = g.run(db, g.interpolate(chosen.replace("${series:sqlstring}", "'${series}'"), {"run": [rec["uuid"]],
                   "series": [evil]}, FROM_MS, TO_MS))
check(len({r[1] for r in rows}) > 50, "  '$series' (no format) would let that name select every series (%d)" % len({r[1] for r in rows}))
try:
    g.run(db, g.interpolate(chosen.replace(":sqlstring", ":singlequote"), {"run": [rec["uuid"]], "series": ["it's"]},
                            FROM_MS, TO_MS))
    check(False, "  ${series:singlequote} would break on a name with a quote")
except sqlite3.Error as e:
    check(True, "  ${series:singlequote} would break on a name with a quote (%s)" % e)
PY
is "$?" 0 "the checks ran"
sed 's/^/# /' "$TMP/checks.err"
while IFS=$'\t' read -r verdict what why; do
    if [ "$verdict" = skip ]; then skip "$what: $why"; continue; fi
    is "$verdict" pass "$what"
    [ "$verdict" = pass ] || echo "#   $why"
done < "$TMP/checks"
ge "$(wc -l < "$TMP/checks")" 40 "every check reported"
done_testing
