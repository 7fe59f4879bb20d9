#!/usr/bin/env python3
"""Check tracekit's SQLite export (issue 7) with the sqlite3 shell.

usage: check_sqlite.py TRACEKIT DEMO.btf [MORE.btf ...]

For each trace: the database's counts of events, entities, entity types and
events per (type, event) equal `tracekit info --format json`; its
entityMetricValue rows equal `tracekit stats --format csv`; and for every
row but JIT, the per-instance values of entityInstanceMetricValue aggregate
(count, min, max, and the exact average sum/count in the stats unit) to the
numbers `tracekit stats --exact --format csv` prints, the worst instance (with
its time) included.  The entityInstance rows are exactly the instances of
traceEvent (as target or source) with the min and max time of their events;
the usual queries (events by entity and time, by time, instances of an
entity, values of an entity's metric) use an index (EXPLAIN QUERY PLAN).
Also: --to sqlite, the .db extension, standard output refused, and a failed
conversion leaving no file.
"""
import csv
from fractions import Fraction
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def q(db, sql):
    r = run(["sqlite3", "-bail", "-csv", db, sql])
    if r.returncode != 0:
        raise RuntimeError("sqlite3 %s: %s" % (sql, r.stderr))
    return list(csv.reader(io.StringIO(r.stdout)))


VIEWS = ("entityInstanceMetricValue", "traceEventInfo")


def plan_of(db, sql):
    """the steps of sql's plan (the sqlite3 shell draws a tree: strip it)"""
    r = run(["sqlite3", "-bail", db, "EXPLAIN QUERY PLAN " + sql])
    if r.returncode != 0:
        raise RuntimeError("sqlite3 %s: %s" % (sql, r.stderr))
    return [line.lstrip("|`- ") for line in r.stdout.splitlines()[1:]]


def check(tk, src, db):
    r = run([tk, "convert", src, db])
    if r.returncode != 0:
        fail("%s: convert: %s" % (src, r.stderr))
        return
    info = json.loads(run([tk, "info", "--format", "json", src]).stdout)
    n = int(q(db, "SELECT count(*) FROM traceEvent")[0][0])
    if n != info["events"]:
        fail("%s: %d events, info says %d" % (src, n, info["events"]))
    if int(q(db, "SELECT value FROM metaInformation WHERE name='eventCount'")[0][0]) != n:
        fail(src + ": metaInformation eventCount")
    ne = int(q(db, "SELECT count(*) FROM entity")[0][0])
    if ne != info["entities"]:
        fail("%s: %d entities, info says %d" % (src, ne, info["entities"]))
    types = {t: int(c) for t, c in q(db, "SELECT t.name, count(*) FROM entity e JOIN entityType t"
                                        " ON t.id = e.entityTypeId GROUP BY t.name")}
    if types != info["entity_types"]:
        fail("%s: entity types %r, info says %r" % (src, types, info["entity_types"]))
    ev = {(t, e): int(c) for t, e, c in q(db, "SELECT entityType, eventType, count(*)"
                                            " FROM traceEventInfo GROUP BY 1, 2")}
    want = {(x["type"], x["event"]): x["count"] for x in info["event_counts"]}
    if ev != want:
        fail("%s: event counts %r, info says %r" % (src, ev, want))
    if int(q(db, "SELECT count(*) FROM traceEventInfo")[0][0]) != n:
        fail(src + ": traceEventInfo loses events")
    # the header: every entry of every block, in input order; a block
    # starts where a parameter repeats a key of the current one
    hdr = q(db, "SELECT block, kind, key, ifnull(value, '') FROM header ORDER BY id")
    want_h = [(h["kind"], h["key"], h["value"]) for h in info["header"]]
    if [tuple(h[1:]) for h in hdr] != want_h:
        fail("%s: header %r, info says %r" % (src, hdr[:5], want_h[:5]))
    block, seen, want_b = 0, set(), []
    for kind, key, _ in want_h:
        if kind == "param":
            if key in seen:
                block, seen = block + 1, set()
            seen.add(key)
        want_b.append(str(block))
    if [h[0] for h in hdr] != want_b:
        fail("%s: header blocks %r, want %r" % (src, [h[0] for h in hdr], want_b))
    # metaInformation keeps the first value of each header parameter
    first = {}
    for kind, key, value in want_h:
        if kind == "param":
            first.setdefault(key, value)
    for key, value in first.items():
        if key in ("format", "timeBase", "timeUnit", "eventCount", "generator", "generatorVersion"):
            continue
        got_v = q(db, "SELECT value FROM metaInformation WHERE name = '%s'" % key.replace("'", "''"))
        if got_v != [[value]] and not (value == "" and got_v in ([[""]], [])):
            fail("%s: metaInformation %s = %r, the header's first is %r" % (src, key, got_v, value))
    # metrics: entityMetricValue's texts as `tracekit stats --format csv`
    # writes them (its default unit, ns), row by row
    stats = list(csv.reader(io.StringIO(run([tk, "stats", "--format", "csv", src]).stdout)))
    head, rows = stats[0], stats[1:]
    got = q(db, "SELECT e.name, t.name, m.name, v.count, v.minText, v.avgText, v.maxText,"
                " v.unit, ifnull(v.maxInstance, ''), v.maxAtText"
                " FROM entityMetricValue v JOIN entity e ON e.id = v.entityId"
                " JOIN entityType t ON t.id = e.entityTypeId JOIN metric m ON m.id = v.metricId")
    if sorted(map(tuple, got)) != sorted(map(tuple, rows)):
        fail("%s: metrics differ from tracekit stats:\n db: %r\n stats: %r" % (src, sorted(got)[:5], sorted(rows)[:5]))
    # per instance: every metric but JIT, aggregated in SQL, against the
    # numbers of `tracekit stats --exact --format csv` (times in its unit)
    rows = list(csv.reader(io.StringIO(run([tk, "stats", "--exact", "--format", "csv", src]).stdout)))[1:]
    tb = q(db, "SELECT value FROM metaInformation WHERE name='timeBase'")[0][0]
    frac, tunit = tb.split(" ")
    num, _, den = frac.partition("/")
    per_s = {"ps": 10**12, "ns": 10**9, "us": 10**6, "ms": 10**3, "s": 1}
    agg = {}
    for name, metric, cnt, mn, mx, sm, worst_ok in q(db,
            "SELECT e.name, m.name, count(*), min(i.value), max(i.value), sum(i.value),"
            " (SELECT count(*) FROM entityInstanceMetricValue j JOIN entityMetricValue v"
            "  ON v.entityId = j.entityId AND v.metricId = j.metricId"
            "  WHERE j.entityId = i.entityId AND j.metricId = i.metricId"
            "  AND j.entityInstance IS v.maxInstance AND j.value = v.max"
            "  AND j.timestamp = v.maxTimestamp)"
            " FROM entityInstanceMetricValue i JOIN entity e ON e.id = i.entityId"
            " JOIN metric m ON m.id = i.metricId GROUP BY i.entityId, i.metricId"):
        agg[(name, metric)] = (int(cnt), int(mn), int(mx), int(sm), int(worst_ok))
    nrows = 0
    for r in rows:
        ent, _typ, metric, cnt, mn, avg, mx, unit = r[:8]
        if metric == "JIT":
            continue
        nrows += 1
        a = agg.get((ent, metric))
        if a is None:
            fail("%s: %s %s: no per-instance values" % (src, ent, metric))
            continue
        tick = Fraction(int(num), int(den or 1)) * per_s[unit] / per_s[tunit] if unit in per_s else 1
        def exact(text):
            n_, _, d_ = text.partition("/")
            return Fraction(n_) / Fraction(d_ or 1)
        got = (a[0], a[1] * tick, Fraction(a[3], a[0]) * tick, a[2] * tick)
        want = (int(cnt), exact(mn), exact(avg), exact(mx))
        if got != want:
            fail("%s: %s %s per instance count/min/avg/max %s, stats %s" % (src, ent, metric, got, want))
        if not a[4]:
            fail("%s: %s %s: the worst instance has no row with the max" % (src, ent, metric))
    if len(agg) != nrows:
        fail("%s: %d per-instance groups, %d stats rows (no JIT)" % (src, len(agg), nrows))
    inst = int(q(db, "SELECT count(*) FROM entityInstance")[0][0])
    if n and not inst:
        fail(src + ": no entityInstance rows")
    # entityInstance: every instance of traceEvent, nothing else
    want_inst = q(db, "SELECT entityId, entityInstance FROM traceEvent WHERE entityInstance IS NOT NULL"
                      " UNION SELECT sourceEntityId, sourceEntityInstance FROM traceEvent"
                      " WHERE sourceEntityId IS NOT NULL AND sourceEntityInstance IS NOT NULL ORDER BY 1, 2")
    got_inst = q(db, "SELECT entityId, sqcnr FROM entityInstance ORDER BY 1, 2")
    if got_inst != want_inst or len(got_inst) != inst:
        fail("%s: entityInstance has %d rows, traceEvent %d instances" % (src, len(got_inst), len(want_inst)))
    bad = q(db, "SELECT count(*) FROM entityInstance i LEFT JOIN (SELECT entityId, entityInstance AS k,"
                " min(timestamp) AS lo, max(timestamp) AS hi FROM traceEvent GROUP BY 1, 2) t"
                " ON t.entityId = i.entityId AND t.k = i.sqcnr"
                " WHERE i.firstTimestamp IS NOT t.lo OR i.lastTimestamp IS NOT t.hi")[0][0]
    if bad != "0":
        fail("%s: %s entityInstance rows with first/last times not those of their events" % (src, bad))
    # the usual queries are indexed
    for sql in ("SELECT * FROM traceEvent WHERE entityId = 1 AND timestamp BETWEEN 10 AND 20",
                "SELECT * FROM traceEvent WHERE timestamp BETWEEN 10 AND 20",
                "SELECT * FROM traceEvent WHERE entityId = 1 AND entityInstance = 2",
                "SELECT * FROM entityInstance WHERE entityId = 1",
                "SELECT * FROM entityInstanceMetricValue WHERE entityId = 1 AND metricId = 3",
                "SELECT * FROM entityMetricValue WHERE entityId = 1 AND metricId = 3",
                "SELECT * FROM entity WHERE name = 'x'"):
        plan = plan_of(db, sql)
        scans = [p for p in plan if p.startswith("SCAN ") and p.split()[1] not in VIEWS
                 and "INDEX" not in p and "PRIMARY KEY" not in p]
        if scans or not any("INDEX" in p or "PRIMARY KEY" in p for p in plan):
            fail("%s: not indexed: %s: %r" % (src, sql, plan))


def main():
    if not shutil.which("sqlite3"):
        print("sqlite3 not installed: skipped")
        return 77
    tk, demo = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as d:
        check(tk, demo, os.path.join(d, "demo.sqlite"))
        check(tk, demo, os.path.join(d, "demo.db"))
        for k, src in enumerate(sys.argv[3:]):
            if os.path.exists(src):
                check(tk, src, os.path.join(d, "c%d.sqlite" % k))
            else:
                print("skip (absent):", src)
        # more instances open at once than the writer keeps in memory
        # (16384, all entities together): the first ones are written, then
        # read back and rewritten when their start and terminate come
        many = os.path.join(d, "many_open.btf")
        with open(many, "w") as f:
            f.write("#version 2.3.0\n#creator check_sqlite.py\n#timescale ns\n")
            t, n = 0, 20000
            for k in range(1, n + 1):
                f.write("%d,Stim,0,STI,Stim,%d,trigger\n%d,Stim,%d,T,Task_A,%d,activate\n" % (t, k, t, k, k))
                t += 10
            for k in range(1, n + 1):
                f.write("%d,Core_1,0,T,Task_A,%d,start\n%d,Core_1,0,T,Task_A,%d,terminate\n" % (t, k, t + 5, k))
                t += 10
        check(tk, many, os.path.join(d, "many.sqlite"))
        db = os.path.join(d, "many.sqlite")
        rt = q(db, "SELECT count(*), min(i.RT), max(i.RT) FROM entityInstance i JOIN entity e"
                   " ON e.id = i.entityId WHERE e.name = 'Task_A' AND i.startTimestamp IS NOT NULL")
        if rt != [[str(n), str(n * 10 + 5), str(n * 10 + 5)]]:
            fail("many_open: Task_A instances read back: %r" % rt)
        if q(db, "SELECT count(*) FROM sqlite_master WHERE name = 'entityInstance_key'") != [["1"]]:
            fail("many_open: no entityInstance_key index")
        # notes wait with their rows in a buffer of 64 KiB: one longer
        # goes in alone, in its place
        notes = os.path.join(d, "notes.btf")
        vals = ["a", "x" * 70000, "b" * 40000, "c" * 40000, "d"]
        with open(notes, "w") as f:
            f.write("#version 2.3.0\n#creator check_sqlite.py\n#timescale ns\n")
            for k, v in enumerate(vals):
                f.write("%d,Core_1,0,SIG,Sig,0,write,%s\n" % (k * 10, v))
        check(tk, notes, os.path.join(d, "notes.sqlite"))
        got = q(os.path.join(d, "notes.sqlite"), "SELECT id, length(value), substr(value, 1, 1) FROM traceEvent ORDER BY id")
        if got != [[str(k + 1), str(len(v)), v[0]] for k, v in enumerate(vals)]:
            fail("notes: %r" % got)
        # entity-index=0: the same rows, no traceEvent_entity (a scan);
        # a bad option is refused and leaves no file
        lean = os.path.join(d, "lean.sqlite")
        r = run([tk, "convert", demo, lean, "--option", "entity-index=0"])
        full = os.path.join(d, "demo.sqlite")
        if r.returncode != 0 or q(lean, "SELECT * FROM traceEvent") != q(full, "SELECT * FROM traceEvent") \
                or q(lean, "SELECT * FROM entityInstance ORDER BY 1, 2") != q(full, "SELECT * FROM entityInstance ORDER BY 1, 2"):
            fail("entity-index=0: not the same rows: " + r.stderr)
        idx = [x[0] for x in q(lean, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")]
        if "traceEvent_entity" in idx or "entityInstance_key" not in idx:
            fail("entity-index=0: indexes %r" % idx)
        r = run([tk, "convert", demo, os.path.join(d, "opt.sqlite"), "--option", "entity-index=2"])
        if r.returncode != 2 or "unknown SQLite writer option 'entity-index=2'" not in r.stderr \
                or os.path.exists(os.path.join(d, "opt.sqlite")):
            fail("bad option: exit %d, %r" % (r.returncode, r.stderr))
        out = os.path.join(d, "x.out")
        r = run([tk, "convert", demo, out, "--to", "sqlite"])
        if r.returncode != 0 or q(out, "SELECT count(*) FROM entity") != [["17"]]:
            fail("--to sqlite: " + r.stderr)
        r = run([tk, "convert", demo, "-", "--to", "sqlite"])
        if r.returncode == 0 or "standard output" not in r.stderr:
            fail("stdout not refused: %r" % r.stderr)
        bad = os.path.join(d, "bad.btf")
        with open(demo) as f, open(bad, "w") as g:
            lines = f.read().split("\n")
            g.write("\n".join(lines[:30] + ["oops,this,is,not,btf"] + lines[30:]))
        sub = os.path.join(d, "fail")
        os.mkdir(sub)
        r = run([tk, "convert", "--strict", bad, os.path.join(sub, "bad.sqlite")])
        if r.returncode == 0 or os.listdir(sub):
            fail("failed conversion: exit %d, left %r" % (r.returncode, os.listdir(sub)))
    if failures:
        print("%d failure(s)" % failures)
        return 1
    print("ok")
    return 0


sys.exit(main())
