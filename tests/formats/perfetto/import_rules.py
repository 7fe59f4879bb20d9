#!/usr/bin/env python3
"""Checks `tracekit convert --to perfetto` against the rules of Perfetto's
JSON importer (src/trace_processor/importers/json/ and util/json_parser.h
of Perfetto, read for the facts below) on real traces.

usage: import_rules.py TRACEKIT TRACE...

The importer's rules, simulated here:
 - a number with a '.' or exponent is a double made as
   double(integer digits) + double(fraction digits) / double(10^n); an
   integer number stays an int64;
 - ts and dur (us) become ns each on its own: an int64 or a whole double
   times 1000, else llround(double * 1000.0);
 - events are sorted by (ts, then "X" by longer dur first, then file
   order); an "X" slice of a thread track must nest in the slices open on
   that track (end <= the enclosing end), or it is an overlap (dropped by
   older versions, spilt onto an overflow track by newer ones).

Per trace: the JSON parses strictly (Python, no NaN, and node's
JSON.parse where node is installed); every X track nests after the
rounding; on each core, no two Running slices of the process tracks
overlap; every flow_out has one flow_in after it in the importer's order
(it binds each to the X slice that carries it), and the flows are the
activations followed by a start in the trace (its BTF copy), those of a
stimulus naming it in args.activated_by; CET_us and RT_us of the instance
slices give the count, min and max of `tracekit stats --format csv
--unit us`, and the max at the instance it names; metadata.first_event_us
is the first event's time, and the first ts plus metadata.ts_offset_us is
at least it (absolute time kept).  Tracks (issue 37.18): every
process_sort_index and thread_sort_index fits the 32 signed bits Perfetto
keeps; no tid is a pid (a thread whose tid is its pid is that process's
main thread, listed first); in the cores process, each core's track sorts
before its runnables' and both before the next core's, and "(no core)"
after all of them.  Flows (issue 37.19): a flow from a stimulus, task or
ISR begins on a zero-length mark "activate" at the activation (the time
the instance slice around its flow_in begins), on the track of that
source when it is a task or ISR (its thread is named after it).
Prints one line per trace and exits 1 on any failure.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from decimal import Decimal as D
from fractions import Fraction

fails = []


def fail(trace, msg):
    fails.append(f"{os.path.basename(trace)}: {msg}")


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True)
    if p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr[:300]!r}")
    return p.stdout.decode("utf-8", "replace")


def llround(x):
    """C's llround: half away from zero, on the exact value of a double"""
    f = Fraction(x)
    n = int(abs(f) + Fraction(1, 2))
    return n if f >= 0 else -n


def importer_double(text):
    """util/json_parser.h StringToDouble, for our numbers (no exponent)"""
    neg = text.startswith("-")
    t = text[1:] if neg else text
    ip, _, fp = t.partition(".")
    v = float(int(ip or "0"))
    if fp:
        v = v + float(int(fp)) / float(10 ** len(fp))
    return -v if neg else v


def to_ns(text):
    """CoerceToTs of the number as written"""
    if "." not in text and "e" not in text.lower():
        return int(text) * 1000
    v = importer_double(text)
    if v == int(v):
        return int(v) * 1000
    return llround(v * 1000.0)


def node_parses(path):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        return None
    p = subprocess.run([node, "-e",
                        "JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'))",
                        path], capture_output=True, text=True)
    return p.returncode == 0, p.stderr.strip()[-300:]


def strict_load(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")  # strict: raises on bytes that are not UTF-8

    def no_const(c):
        raise ValueError(f"non-JSON constant {c}")
    return json.loads(text, parse_float=str, parse_int=str,
                      parse_constant=no_const)


def expected_flows(cli, trace):
    """instances activated and then started, from the trace's BTF copy:
    (total, {stimulus: count}, the first event's time in ns or None)"""
    with tempfile.TemporaryDirectory() as tmp:
        btf = os.path.join(tmp, "t.btf")
        run(cli, "convert", "-q", trace, btf, "--to", "btf")
        with open(btf, encoding="utf-8", errors="replace") as f:
            out = f.read()
    stim = set()
    alive = {}
    total = 0
    by = defaultdict(int)
    rows = []
    scale = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1, "ps": Fraction(1, 1000)}
    unit = Fraction(1)
    first = None
    for line in out.splitlines():
        if line.lower().startswith("#timescale"):
            unit = Fraction(scale[line.split()[1]])
        if not line or line.startswith("#"):
            continue
        if first is None:
            first = int(line.split(",")[0]) * unit
        f = next(csv.reader([line]))
        if len(f) < 7:
            continue
        if f[3] == "STI":
            stim.add(f[4])
        rows.append(f)
    for f in rows:
        _, src, _, typ, tgt, inst, ev = f[:7]
        if typ not in ("T", "I", "ISR", "THR"):
            continue
        key = (tgt, inst)
        if ev == "activate":
            alive[key] = src
        elif ev in ("start", "resume", "run") and key in alive:
            s = alive.pop(key)
            total += 1
            if s in stim:
                by[s] += 1
        elif ev == "terminate":
            alive.pop(key, None)
    return total, by, first


def stats_rows(cli, trace):
    args = ("stats", "-q", "--format", "csv", "--unit", "us")
    per_us = 1
    if trace.endswith(".tarmac"):
        # stats of a Tarmac log are its functions': the exception
        # timeline's are those of its BTF copy
        with tempfile.TemporaryDirectory() as tmp:
            btf = os.path.join(tmp, "t.btf")
            run(cli, "convert", "-q", trace, btf, "--to", "btf")
            with open(btf, encoding="utf-8", errors="replace") as f:
                cycles = any(l.startswith("#tarmacTimeUnit ") and
                             l.split()[1] not in ("fs", "ps", "ns", "us", "ms", "s")
                             for l in f)
            if cycles:
                # stats gives cycles (they have no length); Perfetto
                # shows a cycle as 1 ns
                args, per_us = args[:-2], 1000
            out = run(cli, *args, btf)
    else:
        out = run(cli, *args, trace)
    want = {}
    for r in csv.DictReader(io.StringIO(out)):
        if r["type"] in ("T", "I") and r["metric"] in ("CET", "RT"):
            want[(r["entity"], r["metric"])] = (
                int(r["count"]), D(r["min"]) / per_us, D(r["max"]) / per_us,
                r["max_instance"])
    return want


def check(cli, trace):
    name = os.path.basename(trace)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.json")
        run(cli, "convert", "-q", trace, out, "--to", "perfetto")
        doc = strict_load(out)
        np = node_parses(out)
        if np is not None and not np[0]:
            fail(trace, f"node JSON.parse: {np[1]}")
    evs = doc["traceEvents"]
    meta = doc.get("metadata", {})
    # the tracks' order and ids
    pids = {e["pid"] for e in evs if "pid" in e}
    tname, tsort = {}, {}
    for e in evs:
        if e.get("ph") != "M":
            continue
        if e["name"].endswith("sort_index"):
            v = int(e["args"]["sort_index"])
            if not -2**31 <= v < 2**31:
                fail(trace, f"{e['name']} {v} of pid {e['pid']} does not fit 32 bits")
            if e["name"] == "thread_sort_index":
                tsort[(e["pid"], e["tid"])] = v
        elif e["name"] == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
    clash_tids = sorted({e["tid"] for e in evs if "tid" in e and e["tid"] in pids})
    if clash_tids:
        fail(trace, f"tids {clash_tids} are pids (a main thread, listed first)")
    cores = [k for k, n in tname.items() if k[0] == "1" and n != "(no core)"]
    core_names = {tname[k] for k in cores if not tname[k].endswith(" runnables")}
    for k in cores:
        n = tname[k]
        if n.endswith(" runnables") and n[:-10] in core_names:
            base = [c for c in cores if tname[c] == n[:-10]][0]
            if tsort.get(k, -1) != tsort.get(base, -2) + 1:
                fail(trace, f"track {n!r} sorts at {tsort.get(k)}, not right after its core ({tsort.get(base)})")
    nocore = [k for k, n in tname.items() if k[0] == "1" and n == "(no core)"]
    if nocore and cores and tsort.get(nocore[0], -1) <= max(tsort.get(k, 0) for k in cores):
        fail(trace, f"(no core) sorts at {tsort.get(nocore[0])}, not after every core track")
    # the instance slices per track, and where each flow ends
    inst_on = defaultdict(list)
    flow_into = {}
    for e in evs:
        if e.get("ph") == "X" and e["pid"] == "2" and e.get("cat") not in ("state", "activate"):
            inst_on[(e["pid"], e["tid"])].append((to_ns(e["ts"]), to_ns(e["ts"]) + to_ns(e["dur"])))
        if e.get("flow_in"):
            flow_into[e["bind_id"]] = ((e["pid"], e["tid"]), to_ns(e["ts"]))
    tracks = defaultdict(list)
    running = defaultdict(list)
    flow_out, flow_in = defaultdict(int), defaultdict(int)
    act_by = defaultdict(int)
    flow_at, flow_end = {}, {}  # bind_id -> importer's sort key
    nocore = 0  # Running slices the timeline has on no core
    bad_marks = marks_on_process = 0
    got = defaultdict(list)  # (entity, metric) -> values
    first_ts = None
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph == "M":
            continue
        ts = to_ns(e["ts"])
        first_ts = ts if first_ts is None else min(first_ts, ts)
        if ph != "X":
            continue
        dur = to_ns(e["dur"])
        tracks[(e["pid"], e["tid"])].append((ts, -dur, i, ts + dur, e))
        if e["pid"] == "2" and e["name"] == "Running":
            if "core" in e["args"]:
                running[e["args"]["core"]].append((ts, ts + dur, e["tid"]))
            else:
                nocore += 1
        if e.get("flow_out"):
            flow_out[e["bind_id"]] += 1
            flow_at[e["bind_id"]] = (ts, -dur, i)
            if "activated_by" in e["args"]:
                act_by[e["args"]["activated_by"]] += 1
                src = e["args"]["activated_by"]
                into = flow_into.get(e["bind_id"])
                if e.get("cat") != "activate" or dur != 0 or e["name"] != "activate":
                    bad_marks += 1
                    if bad_marks <= 3:
                        fail(trace, f"flow {e['bind_id']} from {src} does not begin on its mark: {e}")
                elif not into or not any(a == ts and a <= into[1] <= b
                                         for a, b in inst_on.get(into[0], ())):
                    bad_marks += 1
                    if bad_marks <= 3:
                        fail(trace, f"the mark of flow {e['bind_id']} from {src} at {ts} ns is "
                                    f"not at the activation of the instance it flows into")
                elif e["pid"] == "2":
                    marks_on_process += 1
                    if tname.get((e["pid"], e["tid"]), "").split(" (")[0] != src:
                        fail(trace, f"the mark of {src} is on the track "
                                    f"{tname.get((e['pid'], e['tid']))!r}, not on {src!r}")
        if e.get("flow_in"):
            flow_in[e["bind_id"]] += 1
            flow_end[e["bind_id"]] = (ts, -dur, i)
        a = e.get("args", {})
        for m in ("CET", "RT"):
            if m + "_us" in a:
                got[(e["name"], m)].append((D(a[m + "_us"]), a.get("instance")))
    # 1. nesting after the importer's rounding and sort
    overlaps = 0
    nx = 0
    for key, sl in tracks.items():
        sl.sort(key=lambda x: (x[0], x[1], x[2]))
        stack = []
        for ts, _, _, end, e in sl:
            nx += 1
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and end > stack[-1][0]:
                overlaps += 1
                if overlaps <= 3:
                    fail(trace, f"track {key}: {e['name']} [{ts}, {end}] ns overlaps "
                                f"{stack[-1][2]['name']} ending {stack[-1][0]}")
                continue
            stack.append((end, ts, e))
    # 5. one Running per core
    clash = 0
    for core, rs in running.items():
        rs.sort()
        for (a0, a1, ta), (b0, b1, tb) in zip(rs, rs[1:]):
            if b0 < a1:
                clash += 1
                if clash <= 3:
                    fail(trace, f"{core}: tid {ta} Running to {a1} while tid {tb} "
                                f"Running from {b0}")
    # flows
    bad_flows = [k for k in set(flow_out) | set(flow_in)
                 if flow_out[k] != 1 or flow_in[k] != 1]
    if bad_flows:
        fail(trace, f"{len(bad_flows)} flows without one start and one end")
    # the importer ends a flow only after it began (in its sort order)
    late = [k for k in flow_at if k in flow_end and flow_end[k] <= flow_at[k]]
    if late:
        fail(trace, f"{len(late)} flows end before they begin in the importer's order")
    total, by, first_ns = expected_flows(cli, trace)
    if len(flow_out) != total:
        fail(trace, f"{len(flow_out)} flows, {total} activations followed by a start")
    for s, n in by.items():
        if act_by.get(s, 0) != n:
            fail(trace, f"stimulus {s}: {act_by.get(s, 0)} flows, {n} activations started")
    # 2. CET / RT are the stats figures
    want = stats_rows(cli, trace)
    for (ent, m), (c, mn, mx, mi) in want.items():
        v = got.get((ent, m), [])
        vals = [x for x, _ in v]
        at_mi = [x for x, k in v if k == mi]
        if (len(v), min(vals, default=None), max(vals, default=None)) != (c, mn, mx) or \
                not at_mi or any(x != mx for x in at_mi):
            fail(trace, f"{ent} {m}: export count {len(v)} min {min(vals, default=None)} "
                        f"max {max(vals, default=None)} (instance {mi}: {at_mi}); "
                        f"stats {c} {mn} {mx}")
    for k in got:
        if k not in want:
            fail(trace, f"{k[0]} {k[1]}: in the export, not in stats")
    # 3. absolute time
    if first_ts is not None:
        if "first_event_us" not in meta or "ts_offset_us" not in meta:
            fail(trace, f"no metadata.first_event_us / ts_offset_us: {meta}")
        else:
            off = to_ns(meta["ts_offset_us"])
            fe = Fraction(meta["first_event_us"]) * 1000
            if abs(fe - first_ns) > 0:
                fail(trace, f"metadata.first_event_us {fe} ns, the first event is at {first_ns} ns")
            if first_ts + off < first_ns - 1:
                fail(trace, f"first ts {first_ts} + offset {off} ns is before the first "
                            f"event {first_ns} ns")
            if off == 0 and first_ns >= 2**49:
                fail(trace, "no offset past 2^49 ns")
    ncpu = len(running)
    print(f"{name}: {nx} X slices on {len(tracks)} tracks, {overlaps} overlaps after "
          f"rounding; {sum(len(r) for r in running.values())} Running slices on "
          f"{ncpu} cores ({nocore} on none), {clash} clashes; {len(flow_out)} flows ({total} expected, "
          f"{sum(act_by.values())} from a stimulus or process, {marks_on_process} on a process track); "
          f"{sum(len(v) for v in got.values())} CET/RT args vs stats; "
          f"first ts {first_ts / 1000 if first_ts is not None else '-'} us")


def main():
    cli, traces = sys.argv[1], sys.argv[2:]
    for t in traces:
        try:
            check(cli, t)
        except Exception as ex:  # noqa: BLE001 - report and go on
            fail(t, f"{type(ex).__name__}: {ex}")
    for f in fails:
        print("FAIL:", f)
    print(f"{len(traces)} traces, {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
