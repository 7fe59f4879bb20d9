#!/usr/bin/env python3
"""Every number tracekit writes in CSV and JSON reads as a number.

For the S.Ha.R.K. dump of the corpus (ticks of 1/367483 ms, no finite
decimal in ns) and every BTF of the corpus:

- `stats` (csv, json), `load` (csv, whole trace and windows), `info --format
  json` and the SQLite export's metric texts: float() takes every numeric
  field, json.load gives numbers (not strings), and sqlite3's CSV import
  gives REAL or INTEGER cells (DuckDB and pandas are not installed here);
- `--exact` gives the exact values: stats' against the per-instance values
  of the SQLite export (ticks) summed here with fractions, load's lengths
  against end - start and its shares against busy/length;
- each decimal is its exact value rounded half up to D places, D computed
  here from the time base: the smallest D with 10^-D <= tick/1000, and at
  least the decimals of one tick (docs/analysis.md, "Numbers").

usage: number_format.py TRACEKIT SHARED        (77: the corpus is missing)
"""
import csv
import glob
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from fractions import Fraction

cli, shared = sys.argv[1], sys.argv[2]
UNIT_NS = {"ps": Fraction(1, 1000), "ns": Fraction(1), "us": Fraction(1000),
           "ms": Fraction(10**6), "s": Fraction(10**9)}
failures = 0


def fail(msg):
    global failures
    failures += 1
    if failures <= 40:
        print("FAIL:", msg)


def run(*args):
    p = subprocess.run([cli, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                  p.stderr.decode(errors="replace")[:200]))
    return p.stdout.decode()


def digits(tick):
    """D for a tick of `tick` units, as docs/analysis.md defines it."""
    d_tick, q = 0, tick.denominator
    two = five = 0
    while q % 2 == 0:
        q //= 2
        two += 1
    while q % 5 == 0:
        q //= 5
        five += 1
    if q == 1:
        d_tick = max(two, five)
    d_res = 0
    while Fraction(1, 10**d_res) > tick / 1000:
        d_res += 1
    return max(d_tick, d_res)


def round_half_up(x, places):
    """x (a Fraction) rounded half up (away from zero) to `places`."""
    s = 10**places
    a = abs(x) * s
    n = a.numerator * 2 // a.denominator
    r = Fraction((n + 1) // 2, s)
    return -r if x < 0 else r


def as_decimal(x, places):
    """What tracekit should write for the exact x with `places` places."""
    return round_half_up(x, places)


def check_dec(what, dec, exact, places):
    try:
        got = Fraction(dec)
        float(dec)
    except (ValueError, ZeroDivisionError):
        fail("%s: %r does not read as a number" % (what, dec))
        return
    if "/" in dec:
        fail("%s: %r is a fraction" % (what, dec))
    want = as_decimal(exact, places)
    if got != want:
        fail("%s: %s, want %s (exact %s, %d places)" % (what, dec, want, exact, places))


def check_sqlite_import(what, text, numeric):
    """sqlite3's CSV import: the numeric columns are REAL or INTEGER."""
    if not shutil.which("sqlite3"):
        return
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.csv")
        with open(path, "w") as f:
            f.write(text)
        header = next(csv.reader(io.StringIO(text)))
        cols = ", ".join('"%s" %s' % (h, "REAL" if h in numeric else "TEXT")
                         for h in header)
        conds = " OR ".join("(\"%s\" <> '' AND typeof(\"%s\") NOT IN ('real','integer'))"
                            % (h, h) for h in header if h in numeric)
        script = ("CREATE TABLE t (%s);\n.import --csv --skip 1 %s t\n"
                  "SELECT count(*) FROM t WHERE %s;\nSELECT count(*) FROM t;\n"
                  % (cols, path, conds))
        p = subprocess.run(["sqlite3", os.path.join(d, "db")], input=script.encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        out = p.stdout.decode().split()
        if p.returncode or len(out) != 2 or out[0] != "0":
            fail("%s: sqlite3 import: %s %s" % (what, out, p.stderr.decode()[:200]))
        elif int(out[1]) != text.count("\n") - 1:
            fail("%s: sqlite3 imported %s rows" % (what, out[1]))


def check_trace(path):
    name = os.path.relpath(path, shared)
    info = json.loads(run("info", "-q", "--format", "json", path))
    tbj = info["timebase"]
    tick_u = Fraction(tbj["num"], tbj["den"])          # in the trace's unit
    tick_ns = tick_u * UNIT_NS[tbj["unit"]]
    d_ns, d_u = digits(tick_ns), digits(tick_u)
    ticks = {}
    for k in ("start", "end", "duration"):
        v = info[k]
        if v is None:
            continue
        if not isinstance(v, (int, float)):
            fail("%s: info %s is %r, not a number" % (name, k, v))
            continue
        raw = json.dumps(v)
        exact = Fraction(info.get(k + "_exact", raw))
        check_dec("%s: info %s" % (name, k), raw, exact, d_u)
        ticks[k] = exact / tick_u
        if ticks[k].denominator != 1:
            fail("%s: info %s is not a whole number of ticks" % (name, k))

    # stats: CSV, JSON, --exact, and the exact values from the SQLite export
    text = run("stats", "-q", "--format", "csv", path)
    rows = list(csv.DictReader(io.StringIO(text)))
    ex_rows = list(csv.DictReader(io.StringIO(run("stats", "-q", "--exact", "--format", "csv", path))))
    if len(rows) != len(ex_rows):
        fail("%s: stats: %d rows, --exact %d" % (name, len(rows), len(ex_rows)))
    numeric = {"count", "min", "avg", "max", "max_instance", "max_at"}
    check_sqlite_import(name + " stats csv", text, numeric)
    for r, x in zip(rows, ex_rows):
        what = "%s: stats %s %s" % (name, r["entity"], r["metric"])
        for k in numeric:
            if r[k] == "" and k == "max_instance":
                continue
            try:
                float(r[k])
            except ValueError:
                fail("%s %s: %r is not a number" % (what, k, r[k]))
        places = 6 if r["metric"] == "JIT" else (3 if r["metric"] == "NPRE" else d_ns)
        for k in ("min", "avg", "max", "max_at"):
            if r["metric"] == "JIT" and k == "avg":
                continue  # the mean of the 1e-12-rounded values, shown to 6 places
            check_dec("%s %s" % (what, k), r[k], Fraction(x[k]),
                      d_ns if k == "max_at" else places)
    js = json.loads(run("stats", "-q", "--format", "json", path))
    for r in js["stats"]:
        for k in ("count", "min", "avg", "max", "max_at"):
            if not isinstance(r[k], (int, float)) or isinstance(r[k], bool):
                fail("%s: stats json %s %s %s is %r" % (name, r["entity"], r["metric"], k, r[k]))
    if len(js["stats"]) != len(rows):
        fail("%s: stats json has %d rows, csv %d" % (name, len(js["stats"]), len(rows)))

    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "t.sqlite")
        run("convert", "-q", path, db)
        con = sqlite3.connect(db)
        want = {}
        for ent, mname, cnt, mn, mx, sm in con.execute(
                "SELECT e.name, m.name, count(*), min(v.value), max(v.value), sum(v.value)"
                " FROM entityInstanceMetricValue v JOIN entity e ON e.id = v.entityId"
                " JOIN metric m ON m.id = v.metricId GROUP BY v.entityId, v.metricId"):
            f = Fraction(1) if mname == "NPRE" else tick_ns
            want[(ent, mname)] = (cnt, mn * f, Fraction(sm, cnt) * f, mx * f)
        texts = con.execute(
            "SELECT e.name, m.name, w.minText, w.avgText, w.maxText FROM entityMetricValue w"
            " JOIN entity e ON e.id = w.entityId JOIN metric m ON m.id = w.metricId").fetchall()
        con.close()
    for x in ex_rows:
        key = (x["entity"], x["metric"])
        if x["metric"] == "JIT":
            continue
        if key not in want:
            fail("%s: stats %s %s: not in the SQLite export" % (name, *key))
            continue
        cnt, mn, av, mx = want[key]
        got = (int(x["count"]), Fraction(x["min"]), Fraction(x["avg"]), Fraction(x["max"]))
        if got != (cnt, mn, av, mx):
            fail("%s: stats --exact %s %s: %s, the instances give %s" % (name, *key, got, (cnt, mn, av, mx)))
    # the SQLite export's texts are what `stats --format csv` writes (ns,
    # its default unit, whatever the trace's; issue 21)
    unit_rows = {(r["entity"], r["metric"]): r for r in rows}
    for ent, mname, a, b, c in texts:
        for v in (a, b, c):
            try:
                float(v)
            except (TypeError, ValueError):
                fail("%s: sqlite %s %s text %r is not a number" % (name, ent, mname, v))
        r = unit_rows.get((ent, mname))
        if r and (r["min"], r["avg"], r["max"]) != (a, b, c):
            fail("%s: sqlite %s %s: %s, stats --format csv %s" % (name, ent, mname, (a, b, c),
                 (r["min"], r["avg"], r["max"])))

    # load: whole trace and windows
    args = [[]]
    if ticks.get("duration", 0) >= 5:
        args.append(["--window", str(int(ticks["duration"]) // 5)])
    for extra in args:
        text = run("load", "-q", "--format", "csv", *extra, path)
        rows = list(csv.DictReader(io.StringIO(text)))
        ex_rows = list(csv.DictReader(io.StringIO(
            run("load", "-q", "--exact", "--format", "csv", *extra, path))))
        check_sqlite_import(name + " load csv", text, {"start", "end", "busy", "length", "percent"})
        if len(rows) != len(ex_rows):
            fail("%s: load %s: %d rows, --exact %d" % (name, extra, len(rows), len(ex_rows)))
        for r, x in zip(rows, ex_rows):
            what = "%s: load %s %s %s %s" % (name, extra, r["kind"], r["core"], r["entity"])
            for k in ("start", "end", "busy", "length"):
                check_dec("%s %s" % (what, k), r[k], Fraction(x[k]), d_ns)
                if (Fraction(x[k]) / tick_ns).denominator != 1:
                    fail("%s %s: --exact %s is not a whole number of ticks" % (what, k, x[k]))
            length = Fraction(x["end"]) - Fraction(x["start"])
            if not length:
                if r["percent"] != "":
                    fail("%s: percent %r of an empty span" % (what, r["percent"]))
                continue
            float(r["percent"])
            if Fraction(x["length"]) != length:
                fail("%s: length %s, end - start %s" % (what, x["length"], length))
            if Fraction(r["percent"]) != round_half_up(100 * Fraction(x["busy"]) / length, 2):
                fail("%s: percent %s for %s/%s" % (what, r["percent"], x["busy"], length))
            if r["kind"] == "core" and "start" in ticks:
                if Fraction(x["start"]) != ticks["start"] * tick_ns or \
                   Fraction(x["end"]) != ticks["end"] * tick_ns:
                    fail("%s: span %s..%s, info says %s..%s ticks" % (what, x["start"], x["end"],
                         ticks["start"], ticks["end"]))
    return True


def main():
    shark = os.path.join(shared, "corpus", "shark", "shark-demo-trace.bin")
    btfs = sorted(glob.glob(os.path.join(shared, "corpus", "btf", "**", "*.btf"), recursive=True))
    if not os.path.exists(shark) or not btfs:
        print("skipped: the corpus is missing")
        return 77
    n = 0
    for path in [shark] + btfs:
        check_trace(path)
        n += 1
    if failures:
        print("%d failures" % failures)
        return 1
    print("ok: the numbers of %d traces" % n)
    return 0


sys.exit(main())
