#!/usr/bin/env python3
"""Checks `tracekit convert --to perfetto` by parsing its output.

usage: check_perfetto.py TRACEKIT TRACE...

For each trace: the JSON parses (numbers kept exact as Decimal); every
record has the fields its phase needs; times are microseconds of the
trace's own time (absolute), rounded to the ns; the "X" slices of each
track nest properly when read in (ts, longer first, file order), the
order Perfetto uses; every track is named by a metadata event; the CET/RT arguments of the
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
            # Perfetto: at equal ts the longer slice first, then file order
            tracks[(e["pid"], e["tid"])].append((e["ts"], -e["dur"], i, e["ts"] + e["dur"], e))
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
        sl.sort(key=lambda x: (x[0], x[1], x[2]))
        stack = []
        for ts, _, i, end, e in sl:
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
        # counters are at the trace's own times (absolute)
        t0 = D(row["start"]) / 1000  # ns -> us (demo and corpus: ns)
        span = (D(row["end"]) - D(row["start"])) / 1000
        pts.sort()
        total = D(0)
        for k, (ts, pct) in enumerate(pts):
            nxt = pts[k + 1][0] if k + 1 < len(pts) else t0 + span
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
    check_ps_windows(cli)
    for f in fails:
        print("FAIL:", f)
    print(f"{len(traces)} traces, {len(fails)} failures")
    return 1 if fails else 0


def check_rounding(cli, t):
    """A tick of 7/3 ns: times that are not whole ns are rounded to the
    nearest ns (each end, dur their difference) with one counting warning;
    --strict refuses, no file."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.json")
        p = subprocess.run([cli, "convert", t, out], capture_output=True, text=True)
        if p.returncode != 0:
            fail(t, f"lenient: exit {p.returncode}: {p.stderr}")
            return
        if "not whole ns rounded to the nearest ns" not in p.stderr:
            fail(t, f"lenient: no rounding warning: {p.stderr!r}")
        with open(out) as f:
            evs = json.load(f, parse_float=D)["traceEvents"]
        # Task1's first job runs from tick 1 to 2 (7/3 ns each): 2.333 to
        # 4.667 ns, written 2 to 5 ns; its second starts 6 ticks later,
        # 16.333 ns (16), and ends 3e9 ticks = 7 ms after its first start
        xs = [e for e in evs if e.get("ph") == "X" and e["pid"] == 1]
        if [(e["ts"], e["dur"]) for e in xs[:2]] != [
                (D("0.002"), D("0.003")), (D("0.016"), D("6999999.986"))]:
            fail(t, f"lenient: slices {xs[:2]}")
        out2 = os.path.join(tmp, "s.json")
        p = subprocess.run([cli, "convert", "--strict", t, out2],
                           capture_output=True, text=True)
        if p.returncode != 2 or "cannot hold a time" not in p.stderr:
            fail(t, f"strict: exit {p.returncode}: {p.stderr!r}")
        if os.path.exists(out2):
            fail(t, "strict: a file was left")


def check_ps_windows(cli):
    """Ticks of 1 ps, every event on a whole ns: the load windows (8 ps
    wide here) start between ns, yet nothing is rounded (--strict
    converts, no warning), and each counter sample is the ns its window
    starts in: 0 % at 0, 100 % from 1 ns (the start), 0 % from 7 ns."""
    t = "ps windows"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "ps.btf")
        with open(src, "w") as f:
            f.write("#version 2.3.0\n#timescale ps\n0,S,0,T,A,0,activate\n"
                    "1000,Core_0,0,T,A,0,start\n7000,Core_0,0,T,A,0,terminate\n"
                    "8000,S,0,T,A,1,activate\n")
        out = os.path.join(tmp, "ps.json")
        p = subprocess.run([cli, "convert", "--strict", src, out],
                           capture_output=True, text=True)
        if p.returncode != 0 or p.stderr:
            fail(t, f"exit {p.returncode}: {p.stderr!r}")
            return
        with open(out) as f:
            evs = json.load(f, parse_float=D)["traceEvents"]
        cs = [(e["ts"], e["args"]["percent"]) for e in evs if e.get("ph") == "C"]
        if cs != [(0, 0), (D("0.001"), 100), (D("0.007"), 0)]:
            fail(t, f"counter samples {cs}")


def check_demo(t, evs):
    """Values of examples/demo.btf, worked out by hand."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e["name"] == "thread_name"}

    def inst0(name):
        """instance 0 of a process (pid 2) and the states on its track"""
        for e in evs:
            if e.get("ph") == "X" and e["pid"] == 2 and e["name"] == name \
                    and e["args"].get("instance") == 0:
                st = [x for x in evs if x.get("ph") == "X" and x["pid"] == 2
                      and x["tid"] == e["tid"] and x["cat"] == "state"]
                return e, st
        fail(t, f"no instance 0 of {name}")
        return None, []
    # activated at 0, started at 1.2 on Core_1, terminated at 52
    e, st = inst0("Task_Control")
    run = [x for x in st if x["name"] == "Running"]
    if e and (e["ts"] != 0 or e["dur"] != D(52) or e["args"]["RT_us"] != D(52)
              or names.get((2, e["tid"])) != "Task_Control" or not run
              or (run[0]["ts"], run[0]["dur"], run[0]["args"]["core"]) != (D("1.2"), D("50.8"), "Core_1")
              or e["args"].get("activated_by") != "Stim_1ms"):
        fail(t, f"Task_Control 0: {e} {run[:1]}")
    # its flow begins at the activation, on a mark of its stimulus (which
    # is on no core), not on the instance itself
    mark = [x for x in evs if x.get("ph") == "X" and run and x.get("bind_id") == run[0].get("bind_id")
            and x.get("flow_out")]
    if e and (not run or len(mark) != 1 or e.get("bind_id") is not None
              or (mark[0]["pid"], names.get((1, mark[0]["tid"])), mark[0]["ts"], mark[0]["dur"], mark[0]["name"],
                  mark[0]["args"].get("activated_by")) != (1, "(no core)", 0, 0, "activate", "Stim_1ms")):
        fail(t, f"Task_Control 0: the flow to {run[:1]} begins at {mark}, not at Stim_1ms's mark")
    e, st = inst0("Isr_CAN")
    run = [x for x in st if x["name"] == "Running"]
    if e and (e["dur"] != D("6.5") or e["args"]["RT_us"] != D("6.5") or not run
              or (run[0]["ts"], run[0]["dur"]) != (D("21.1"), D("6.4"))):
        fail(t, f"Isr_CAN 0: {e} {run[:1]}")
    # Isr_CAN preempts Task_Sensor on Core_2: Ready meanwhile, not Running
    e, st = inst0("Task_Sensor")
    if e and not any(x["name"] == "Ready" and x["ts"] <= D("21.1")
                     and x["ts"] + x["dur"] >= D("27.5") for x in st):
        fail(t, f"Task_Sensor 0 is not Ready while Isr_CAN runs: {st}")
    if any(x["name"] == "Running" and x["ts"] < D("27.5") and x["ts"] + x["dur"] > D("21.1")
           for x in st):
        fail(t, f"Task_Sensor 0 Running under Isr_CAN: {st}")
    e, st = inst0("Task_Logger")
    if e and e["args"]["CET_us"] != D("1210.8"):
        fail(t, f"Task_Logger 0: {e}")
    if "Core_1" not in names.values() or "Core_2" not in names.values():
        fail(t, f"core track names: {names}")
    sig = [e for e in evs if e.get("ph") == "i" and e["name"] == "Sig_Speed read"]
    if not sig or sig[0]["ts"] != D("9.8") or sig[0]["args"].get("value") != "42.5":
        fail(t, f"signal instant: {sig}")


if __name__ == "__main__":
    sys.exit(main())
