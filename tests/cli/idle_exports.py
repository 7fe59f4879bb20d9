#!/usr/bin/env python3
"""The idle processes in every output that draws core load (issue 37,
point 3): `convert` (Perfetto JSON, VCD) and `report` take --idle as
`load` does, and show idle time apart from the load.

 - a FreeRTOS trace logger trace (default IDLE*): the Perfetto counters
   "idle CORE" add up to `load`'s idle column, "load CORE" to its busy
   one; the VCD has an idle_permille beside each load_permille; the
   report's page has the idle time per window and names the idle tasks;
 - examples/demo.btf with --idle naming a task: that task's time leaves
   the load and becomes idle time in each output.

usage: idle_exports.py TRACEKIT SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TK, SRC = sys.argv[1], sys.argv[2]
FREERTOS = os.path.join(SRC, "tests/corpus/freertos/example-2cores.btf.gz")
DEMO = os.path.join(SRC, "examples/demo.btf")
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([TK, *args], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
        sys.exit("FAIL: tracekit %s exited %d" % (" ".join(args), p.returncode))
    return p


def load_csv(path, *opts):
    """{(kind, core): ticks} and the span of `load --format csv`"""
    rows, span = {}, None
    for line in run("load", "-q", "--format", "csv", *opts, path).stdout.splitlines()[1:]:
        f = line.split(",")
        if f[0] in ("core", "idle") and f[4] == "":
            rows[(f[0], f[3])] = int(f[5])
            span = (int(f[1]), int(f[2]))
    return rows, span


def counters(path, *opts):
    """{counter name: integral of its percent over the trace, in ns}"""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.json")
        run("convert", "-q", *opts, path, out)
        with open(out) as fp:
            doc = json.load(fp)
    off = float(doc["metadata"]["ts_offset_us"]) * 1000
    series = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "C":
            series.setdefault(e["name"], []).append(
                (e["ts"] * 1000 + off, float(e["args"]["percent"])))
    return series


def integral(points, end):
    points = sorted(points)
    tot = 0.0
    for i, (t, p) in enumerate(points):
        t1 = points[i + 1][0] if i + 1 < len(points) else end
        tot += (t1 - t) * p / 100
    return tot


def vcd(path, *opts):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.vcd")
        run("convert", "-q", *opts, path, out)
        with open(out) as fp:
            return fp.read()


def report(path, *opts):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.html")
        p = run("report", *opts, path, "-o", out)
        with open(out) as fp:
            page = fp.read()
    m = re.search(r'"idleCount":(\d+),"idleNames":(\[[^\n]*?\]),\n"stats"', page)
    idle = re.search(r'\],\n"idle":\[(.*?)\]\],', page, re.S)
    load = re.search(r'\],\n"load":\[(.*?)\]\],', page, re.S)
    cells = lambda m: [sum(int(v) for v in row.strip("[]\n,").split(",") if v)
                       for row in m.group(1).split("],\n")] if m else []
    return p.stderr, (int(m.group(1)), json.loads(m.group(2))) if m else None, \
        cells(idle), cells(load)


# ---- FreeRTOS: the default IDLE*, said in a note -------------------------
rows, (first, last) = load_csv(FREERTOS)
span = last - first
cores = sorted(c for k, c in rows if k == "core")
series = counters(FREERTOS)
for c in cores:
    check(("idle " + c) in series, "perfetto: a counter 'idle %s'" % c)
    for kind, name in (("idle", "idle "), ("core", "load ")):
        got = integral(series.get(name + c, []), last)
        want = rows.get((kind, c), 0)
        # the percents have a few decimals: agree within 0.01 % of the span
        check(abs(got - want) <= span * 1e-4,
              "perfetto: '%s%s' adds up to %.0f ns, load says %d" % (name, c, got, want))
with tempfile.TemporaryDirectory() as d:
    err = run("convert", FREERTOS, os.path.join(d, "t.vcd")).stderr
    check("note: a FreeRTOS trace logger task named IDLE*" in err, "convert: the note")
    err = run("convert", "--idle", "IDLE*", FREERTOS, os.path.join(d, "t.vcd")).stderr
    check("note: a FreeRTOS" not in err, "convert --idle: no note")
v = vcd(FREERTOS)
check(v.count(" idle_permille $end") == len(cores), "vcd: idle_permille per core")
check(v.count(" load_permille $end") == len(cores), "vcd: load_permille per core")
err, names, idle, load = report(FREERTOS)
check("note: a FreeRTOS trace logger task named IDLE*" in err, "report: the note")
check(names and names[0] >= 2 and all("IDLE" in n for n in names[1]),
      "report: names the IDLE tasks (%r)" % (names,))
# the page counts ticks: this trace's are us
rows_us, _ = load_csv(FREERTOS, "--unit", "us")
check(sum(idle) == sum(rows_us[("idle", c)] for c in cores),
      "report: idle cells add up to load's idle (%d)" % sum(idle))
check(sum(load) == sum(rows_us[("core", c)] for c in cores),
      "report: load cells add up to load's busy (%d)" % sum(load))

# ---- demo.btf: --idle names a task ---------------------------------------
TASK = "Task_Logger"
rows0, _ = load_csv(DEMO)
rows1, (first, last) = load_csv(DEMO, "--idle", TASK)
idle_all = sum(v for (k, c), v in rows1.items() if k == "idle")
check(idle_all > 0, "load --idle %s: idle time" % TASK)
s0, s1 = counters(DEMO), counters(DEMO, "--idle", TASK)
check(not any(n.startswith("idle ") for n in s0), "perfetto: no idle counter without --idle")
got = sum(integral(p, last) for n, p in s1.items() if n.startswith("idle "))
check(abs(got - idle_all) <= (last - first) * 1e-4,
      "perfetto --idle: idle counters %.0f, load's idle %d" % (got, idle_all))
busy0 = sum(integral(p, last) for n, p in s0.items() if n.startswith("load "))
busy1 = sum(integral(p, last) for n, p in s1.items() if n.startswith("load "))
check(abs((busy0 - busy1) - idle_all) <= (last - first) * 1e-4,
      "perfetto --idle: the load counters lose the idle time")
check("idle_permille" not in vcd(DEMO), "vcd: no idle_permille without --idle")
check("idle_permille" in vcd(DEMO, "--idle", TASK), "vcd --idle: idle_permille")
err, names, idle, load = report(DEMO, "-q", "--idle", TASK)
check(names == (1, [TASK]), "report --idle: names %s (%r)" % (TASK, names))
check(sum(idle) == idle_all, "report --idle: idle cells %d, load's idle %d" % (sum(idle), idle_all))
_, _, _, load0 = report(DEMO, "-q")
check(sum(load0) - sum(load) == idle_all, "report --idle: the load cells lose the idle time")
p = subprocess.run([TK, "convert", "--idle", TASK, DEMO, os.devnull, "--to", "btf"],
                   capture_output=True, text=True)
check(p.returncode != 0 and "--idle" in p.stderr, "convert --idle to BTF: a usage error")

sys.exit(1 if fails else 0)
