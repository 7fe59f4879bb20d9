#!/usr/bin/env python3
"""chain_rows.py - a cause-effect chain's rows in the SQLite export and the
report, the same as `tracekit stats --chain` gives them.

  chain_rows.py CLI ROOT

On the worked example of docs/analysis.md (tests/cli/stats_chain.btf):
`convert --option chain=E2E=Sensor:Filtered:Cmd` to SQLite: the chain is an
entity of type name CHAIN, the metric table has REACTION, AGE, LOST, and
entityMetricValue has the rows of `stats --format csv --chain` (LOST without
min, avg, max); `report --chain E2E=Sensor,Filtered,Cmd`: the page's stats
data has the three rows under the chain's name, and the histograms their
p50 and p99.
"""
import csv
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile


def main():
    cli, root = sys.argv[1], sys.argv[2]
    trace = os.path.join(root, "tests", "cli", "stats_chain.btf")
    errs = []
    out = subprocess.run([cli, "stats", "--format", "csv", "--type", "CHAIN",
                          "--chain", "E2E=Sensor,Filtered,Cmd", trace],
                         capture_output=True, text=True, check=True).stdout
    want = {r["metric"]: r for r in csv.DictReader(io.StringIO(out))}
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "c.db")
        subprocess.run([cli, "convert", "--option",
                        "chain=E2E=Sensor:Filtered:Cmd", trace, db], check=True)
        con = sqlite3.connect(db)
        metrics = dict(con.execute("SELECT name, dimension FROM metric"))
        for m, dim in (("REACTION", "time"), ("AGE", "time"), ("LOST", "count")):
            if metrics.get(m) != dim:
                errs.append("sqlite: metric %s is %r" % (m, metrics.get(m)))
        rows = con.execute(
            "SELECT m.name, v.count, v.minText, v.avgText, v.maxText, v.unit,"
            " v.maxInstance, v.maxAtText FROM entityMetricValue v"
            " JOIN entity e ON e.id = v.entityId JOIN metric m ON m.id = v.metricId"
            " WHERE e.name = 'E2E' AND e.typeName = 'CHAIN'").fetchall()
        got = {r[0]: r[1:] for r in rows}
        for m, r in want.items():
            exp = (int(r["count"]), r["min"] or None, r["avg"] or None,
                   r["max"] or None, r["unit"],
                   int(r["max_instance"]) if r["max_instance"] else None,
                   r["max_at"] or None)
            if got.get(m) != exp:
                errs.append("sqlite: %s got %s, want %s" % (m, got.get(m), exp))
        con.close()
        page = os.path.join(tmp, "r.html")
        subprocess.run([cli, "report", "-q", "--chain", "E2E=Sensor,Filtered,Cmd",
                        trace, "-o", page], check=True)
        text = open(page, encoding="utf-8").read()
        m = re.search(r'"stats":(\[.*?\]),\n"', text, re.S)
        stats = json.loads(m.group(1)) if m else []
        chain = [s for s in stats if s.get("c") == "E2E"]
        if [s["m"] for s in chain] != ["REACTION", "AGE", "LOST"]:
            errs.append("report: chain rows %s" % chain)
        for s in chain:
            r = want[s["m"]]
            got = (s["n"], s["maxTicks"] if r["max"] else None, s["inst"])
            exp = (int(r["count"]), int(r["max"]) if r["max"] else None,
                   int(r["max_instance"]) if r["max_instance"] else None)
            if got != exp:
                errs.append("report: %s got %s, want %s" % (s["m"], got, exp))
        # the histograms mark p50 and p99: those of stats --percentiles
        demo = os.path.join(root, "examples", "demo.btf")
        subprocess.run([cli, "report", "-q", demo, "-o", page], check=True)
        text = open(page, encoding="utf-8").read()
        m = re.search(r'"hists":(\[\]|\[.*?\}\])\}', text, re.S)
        hists = json.loads(m.group(1)) if m else []
        out = subprocess.run([cli, "stats", "--format", "csv", "--percentiles",
                              "50,99", demo], capture_output=True, text=True,
                             check=True).stdout
        pct = {(r["entity"], r["metric"]): (int(r["p50"]), int(r["p99"]))
               for r in csv.DictReader(io.StringIO(out)) if r["p50"]}
        if not hists:
            errs.append("report: no histogram")
        for h in hists:
            if (h.get("p50"), h.get("p99")) not in pct.values() or \
                    not h["lo"] <= h["p50"] <= h["p99"] <= h["hi"]:
                errs.append("report: histogram %s %s: p50 %s p99 %s" % (
                    h["e"], h["m"], h.get("p50"), h.get("p99")))
    for e in errs:
        print("FAIL", e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
