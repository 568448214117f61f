#!/usr/bin/env python3
"""What Grafana and the frser-sqlite-datasource plugin do to a dashboard's
SQL before SQLite sees it, so that t46 can run grafana/pressmark-sqlite.json's
queries without a Grafana (none is packaged for Debian).

A query goes through two hands (plugin 3.x, src/DataSource.ts and
pkg/plugin/{variables,macros,query}.go):

1. The browser. The plugin's applyTemplateVariables sets queryText to
   templateSrv.replace(rawQueryText, scopedVars), with no format of its own.
   Grafana finds $var, ${var}, ${var:format}, ${var.path:format} and
   [[var:format]] (its variableRegex, below) in one pass, left to right, and
   never looks again at what it put in. $__from and $__to become the time
   range's ends in epoch milliseconds. A dashboard variable becomes its
   current value, formatted:
     sqlstring    each value in '...', a ' in it doubled, joined by ','
     singlequote  each value in '...', a ' in it made \\' (SQLite does not
                  read \\ as an escape: a value with a ' ends the literal)
     raw, csv     the values as they are, joined by ','
     glob (none)  one value as it is; several as {a,b}
   A name that is no variable (a macro: $__unixEpochGroupSeconds) stays as
   it was. The same happens to a query variable's SQL (metricFindQuery goes
   through query() and so through applyTemplateVariables).
2. The plugin's backend. replaceVariables puts the range's ends, as whole
   seconds times 1000, for any $__from and $__to left (alert queries, which
   no browser interpolated), then applyMacros rewrites
   $__unixEpochGroupSeconds(col, n[, NULL]) as cast((col / n) as int) * n
   and leaves any other $__name(...) as it is.

It then opens the database read-only (query_only, as the plugin does by
default, and no ATTACH) and runs the text. A column named in timeColumns is
time: a number is epoch seconds (a fraction kept), a string RFC 3339. With
queryType "time series" the long result (time, string columns as labels,
numeric columns as values) is made wide, which needs the rows in ascending
time.
"""
import json
import re
import sqlite3
import sys

# Grafana's templateSrv variableRegex (public/app/features/variables/utils.ts).
VARIABLE_RE = re.compile(r"\$(\w+)|\[\[([\s\S]+?)(?::(\w+))?\]\]|\$\{(\w+)(?:\.([^:^\}]+))?(?::([^\}]+))?\}")
# The plugin's macroRegex (pkg/plugin/macros.go).
MACRO_RE = re.compile(r"\$__([_a-zA-Z0-9]+)\(([^\)]*)\)")


def format_value(value, fmt):
    """Grafana's formatter for a variable's value (a str, or a list when the
    variable is multi-valued)."""
    values = value if isinstance(value, list) else [value]
    if fmt == "sqlstring":
        return ",".join("'" + v.replace("'", "''") + "'" for v in values)
    if fmt == "singlequote":
        return ",".join("'" + v.replace("'", "\\'") + "'" for v in values)
    if fmt in ("raw", "csv"):
        return ",".join(values)
    # glob, the default, and what Grafana falls back to for a format it
    # does not know
    return "{" + ",".join(values) + "}" if len(values) > 1 else values[0]


def frontend(sql, variables, from_ms, to_ms):
    """templateSrv.replace(sql, {}): variables maps a name to its value."""
    def one(m):
        name = m.group(1) or m.group(2) or m.group(4)
        fmt = m.group(3) or m.group(6)
        if name in ("__from", "__to"):
            ms = from_ms if name == "__from" else to_ms
            if fmt is None:
                return str(ms)
            if fmt == "date:seconds":
                return str(ms // 1000)
            raise ValueError("time format %r is not emulated here" % fmt)
        if name not in variables:
            return m.group(0)
        return format_value(variables[name], fmt)
    return VARIABLE_RE.sub(one, sql)


def backend(sql, from_ms, to_ms):
    """The plugin's replaceVariables, then applyMacros."""
    sql = sql.replace("$__from", str(from_ms // 1000 * 1000)).replace("$__to", str(to_ms // 1000 * 1000))

    def macro(m):
        if m.group(1) != "unixEpochGroupSeconds":
            return m.group(0)
        args = m.group(2).split(",")
        if len(args) not in (2, 3):
            raise ValueError("unixEpochGroupSeconds takes 2 or 3 arguments")
        n = int(args[1].strip())
        return "cast((%s / %d) as int) * %d" % (args[0], n, n)
    return MACRO_RE.sub(macro, sql)


def interpolate(sql, variables, from_ms, to_ms):
    return backend(frontend(sql, variables, from_ms, to_ms), from_ms, to_ms)


def run(db, sql):
    """(column names, rows) of sql, run as the plugin runs it."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        con.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        con.execute("PRAGMA query_only = 1")
        cur = con.execute(sql)
        return [d[0] for d in cur.description or []], cur.fetchall()
    finally:
        con.close()


def queries(dashboard):
    """Every SQL text of the dashboard: (where, sql, queryType, timeColumns)."""
    d = json.load(open(dashboard))
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v["query"]
            yield "variable " + v["name"], q if isinstance(q, str) else q["rawQueryText"], "variable", []
    for p in d["panels"]:
        for t in p.get("targets", []):
            yield "panel %d (%s)" % (p["id"], p["title"]), t["rawQueryText"], t.get("queryType", "table"), \
                t.get("timeColumns", [])


def main(argv):
    """grafana_sqlite.py DASHBOARD DB FROM_MS TO_MS [VAR=V1,V2 ...]: every
    query's interpolated text and result, for a person to read."""
    dashboard, db, from_ms, to_ms = argv[1], argv[2], int(argv[3]), int(argv[4])
    variables = {k: v.split(",") for k, v in (a.split("=", 1) for a in argv[5:])}
    for where, sql, qtype, _ in queries(dashboard):
        text = interpolate(sql, variables, from_ms, to_ms)
        print("## %s [%s]\n%s" % (where, qtype, text))
        cols, rows = run(db, text)
        print("\t".join(cols))
        for r in rows[:20]:
            print("\t".join(str(c) for c in r))
        print("(%d rows)\n" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
