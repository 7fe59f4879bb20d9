#!/usr/bin/env python3
"""Checks `tracekit convert --to perfetto` by parsing its output.

usage: check_perfetto.py TRACEKIT TRACE...

For each trace: the JSON parses (numbers kept exact as Decimal); every
record has the fields its phase needs; times are microseconds with at most
as many decimals as the time base needs and start at 0; the "X" slices of
each track nest properly when read in (ts, file order), the order viewers
use; every track is named by a metadata event; the CET/RT arguments of the
terminated process slices agree with `tracekit stats` (count and max); the
load counters integrate to the busy time of `tracekit load` (within the
rounding of their percentages).  Exit 0, or 1 with the failures listed.
"""
import csv
import decimal
import io
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

D = decimal.Decimal
fails = []


def fail(trace, msg):
    fails.append(f"{os.path.basename(trace)}: {msg}")


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def check(cli, trace):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.json")
        run(cli, "convert", "-q", trace, out, "--to", "perfetto")
        with open(out, encoding="utf-8") as f:
            doc = json.load(f, parse_float=D, parse_int=D)
    evs = doc["traceEvents"]
    if doc.get("displayTimeUnit") != "ns":
        fail(trace, "displayTimeUnit is not ns")
    named = set()
    tracks = defaultdict(list)
    counters = defaultdict(list)
    term = defaultdict(list)  # entity -> [(cet, rt)]
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph == "M":
            if e["name"] == "thread_name":
                named.add((e["pid"], e["tid"]))
            continue
        for k in ("pid", "ts", "name"):
            if k not in e:
                fail(trace, f"record {i} ({ph}) has no {k}")
                return
        if e["ts"] < 0:
            fail(trace, f"record {i}: negative ts {e['ts']}")
        if ph == "X":
            if e["dur"] < 0:
                fail(trace, f"record {i}: negative dur")
            tracks[(e["pid"], e["tid"])].append((e["ts"], i, e["ts"] + e["dur"], e))
            a = e["args"]
            if "CET_us" in a:
                term[e["name"]].append((a["CET_us"], a.get("RT_us")))
        elif ph == "i":
            tracks.setdefault((e["pid"], e["tid"]), [])
        elif ph == "C":
            counters[e["name"]].append((e["ts"], e["args"]["percent"]))
        else:
            fail(trace, f"record {i}: unexpected phase {ph}")
    for key, sl in tracks.items():
        if key not in named:
            fail(trace, f"track {key} has no thread_name")
        sl.sort(key=lambda x: (x[0], x[1]))
        stack = []
        for ts, i, end, e in sl:
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and end > stack[-1][0]:
                fail(trace, f"track {key}: slice {e['name']} [{ts}, {end}] "
                            f"overlaps {stack[-1][1]['name']} ending {stack[-1][0]}")
                return
            stack.append((end, e))
    # stats: count and max of CET and RT per process
    st = json.loads(run(cli, "stats", "-q", "--format", "json", "--unit", "us", trace),
                    parse_float=D, parse_int=D)
    want = {}
    for row in st["stats"]:
        if row["type"] in ("T", "I") and row["metric"] in ("CET", "RT"):
            want[(row["entity"], row["metric"])] = (row["count"], row["max"])
    for (ent, metric), (count, mx) in want.items():
        vals = [c if metric == "CET" else r for c, r in term.get(ent, []) if
                (c if metric == "CET" else r) is not None]
        if metric == "CET" and len(vals) < count:
            fail(trace, f"{ent} {metric}: {len(vals)} values, stats has {count}")
        if vals and mx > max(vals):
            fail(trace, f"{ent} {metric}: max {max(vals)}, stats says {mx}")
    # load: integrate the counters
    rows = list(csv.DictReader(io.StringIO(run(cli, "load", "-q", "--format", "csv", trace))))
    for row in rows:
        if row["kind"] != "core":
            continue
        pts = counters.get("load " + row["core"])
        if not pts:
            if D(row["busy"]) > 0:
                fail(trace, f"no load counter for {row['core']}")
            continue
        span = (D(row["end"]) - D(row["start"])) / 1000  # ns -> us (demo and corpus: ns)
        pts.sort()
        total = D(0)
        for k, (ts, pct) in enumerate(pts):
            nxt = pts[k + 1][0] if k + 1 < len(pts) else span
            total += pct * (nxt - ts) / 100
        busy = D(row["busy"]) / 1000
        if abs(total - busy) > span * D("0.0001") + D("0.001"):
            fail(trace, f"load {row['core']}: counters give {total} us, load says {busy} us")
    return evs


def main():
    cli, traces = sys.argv[1], sys.argv[2:]
    for t in traces:
        if os.path.basename(t) == "third_ns.atf":
            check_rounding(cli, t)
            continue
        try:
            evs = check(cli, t)
        except Exception as ex:  # noqa: BLE001 - report and go on
            fail(t, f"{type(ex).__name__}: {ex}")
            continue
        if evs and os.path.basename(t) == "demo.btf":
            check_demo(t, evs)
    for f in fails:
        print("FAIL:", f)
    print(f"{len(traces)} traces, {len(fails)} failures")
    return 1 if fails else 0


def check_rounding(cli, t):
    """A tick of 7/3 ns: times with no finite decimal of us are rounded
    down to ps with one counting warning; --strict refuses, no file."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.json")
        p = subprocess.run([cli, "convert", t, out], capture_output=True, text=True)
        if p.returncode != 0:
            fail(t, f"lenient: exit {p.returncode}: {p.stderr}")
            return
        if "rounded down to ps (--strict refuses)" not in p.stderr:
            fail(t, f"lenient: no rounding warning: {p.stderr!r}")
        with open(out) as f:
            evs = json.load(f, parse_float=D)["traceEvents"]
        # Task1's first job runs 1 tick = 7/3 ns = 0.0023333.. us:
        # 0.002333 (whole ps, rounded down); its second starts 6 ticks
        # after the first event, 14 ns exactly
        xs = [e for e in evs if e.get("ph") == "X"]
        if [(e["ts"], e["dur"]) for e in xs[:2]] != [
                (D("0"), D("0.002333")), (D("0.014"), D("6999999.986"))]:
            fail(t, f"lenient: slices {xs[:2]}")
        out2 = os.path.join(tmp, "s.json")
        p = subprocess.run([cli, "convert", "--strict", t, out2],
                           capture_output=True, text=True)
        if p.returncode != 2 or "cannot hold a time" not in p.stderr:
            fail(t, f"strict: exit {p.returncode}: {p.stderr!r}")
        if os.path.exists(out2):
            fail(t, "strict: a file was left")


def check_demo(t, evs):
    """Values of examples/demo.btf, worked out by hand."""
    def find(name, ts):
        for e in evs:
            if e.get("ph") == "X" and e["name"] == name and e["ts"] == D(ts):
                return e
        fail(t, f"no slice {name} at {ts}")
        return None
    e = find("Task_Control", "1.2")
    if e and (e["dur"] != D("50.8") or e["tid"] != 1 or e["args"]["RT_us"] != D(52)):
        fail(t, f"Task_Control 0: {e}")
    e = find("Isr_CAN", "21.1")
    if e and (e["dur"] != D("6.4") or e["tid"] != 2 or e["args"]["RT_us"] != D("6.5")):
        fail(t, f"Isr_CAN 0: {e}")
    e = find("Task_Logger", "52.1")
    if e and e["args"]["CET_us"] != D("1210.8"):
        fail(t, f"Task_Logger 0: {e}")
    names = {(e["tid"], e["args"]["name"]) for e in evs
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    if (1, "Core_1") not in names or (2, "Core_2") not in names:
        fail(t, f"core track names: {names}")
    sig = [e for e in evs if e.get("ph") == "i" and e["name"] == "Sig_Speed read"]
    if not sig or sig[0]["ts"] != D("9.8") or sig[0]["args"].get("value") != "42.5":
        fail(t, f"signal instant: {sig}")


if __name__ == "__main__":
    sys.exit(main())
