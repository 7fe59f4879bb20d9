#!/usr/bin/env python3
"""A Tarmac log timed in cycles keeps its unit in every output (issue 37, 6).

usage: cycles.py TRACEKIT

A generated log in `clk` (a cycle has no SI length: the reader's time base
says 1 ns per cycle, its header `tarmacTimeUnit clk`) is converted:
  - BTF has no cycle time scale: lenient mode writes `#timescale ns` with
    `#tarmacTimeUnit clk` and a warning saying the times are cycles,
    `--strict` refuses (exit 2, no file);
  - HTF and ATF have SI time units only: ns, one per cycle, with a
    warning; `--strict` refuses;
  - CTF (from the log and from that BTF): env `time_unit = "clk"`, the
    clock's description says cycles;
  - VCD: a comment says the timescale stands for one cycle;
  - Perfetto JSON: otherData.timeUnit and the cores' process name (a
    long unit's first 8 bytes at most, no UTF-8 character cut);
  - the report: its data says "cycles":"clk";
  - SQLite: metaInformation tarmacTimeUnit clk;
  - info, stats and load (of the log and of its BTF) give the times in
    clk, and refuse --unit and a --window in a unit (a cycle has no
    length), as cat and convert refuse a --start or --end in a unit;
    diff compares them with cycles only.
The same log in ns gets none of it.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

tk = sys.argv[1]
failures = []


def run(*args):
    return subprocess.run([tk, *args], capture_output=True, text=True)


def log(unit):
    lines = ["0 %s E 00000000:000000000000 00000001 CoreEvent_Reset" % unit]
    lines += ["%d %s IT (%d) %08x d2a00200 O EL3h_s : MOV      x0,#0x100000"
              % (250 * i, unit, i, 8 * i) for i in range(6)]
    lines.append("1500 %s CADI E simulation_stopped" % unit)
    return "\n".join(lines) + "\n"


def check(d, unit):
    cyc = unit == "clk"
    src = os.path.join(d, unit + ".tarmac")
    with open(src, "w") as f:
        f.write(log(unit))
    out = lambda ext: os.path.join(d, unit + "." + ext)

    r = run("convert", src, out("btf"))
    btf = open(out("btf")).read() if r.returncode == 0 else ""
    warned = "BTF has no time scale in cycles: the times are 'clk' cycles" in r.stderr
    if r.returncode != 0 or ("#tarmacTimeUnit clk\n" in btf) != cyc or warned != cyc:
        failures.append("%s -> btf: exit %d, %r, header %r" % (unit, r.returncode, r.stderr, btf[:120]))
    r = run("convert", "--strict", src, out("strict.btf"))
    if cyc and (r.returncode != 2 or os.path.exists(out("strict.btf")) or "cycles" not in r.stderr):
        failures.append("clk -> btf --strict: exit %d, %r" % (r.returncode, r.stderr))
    if not cyc and r.returncode != 0:
        failures.append("ns -> btf --strict: exit %d, %r" % (r.returncode, r.stderr))
    # HTF and ATF have SI time units only: ns with a warning, --strict refuses
    for fmt, ext in (("HTF", "htf"), ("ATF", "atf")):
        r = run("convert", src, out(ext))
        warned = ("%s has no time unit in cycles: the times are 'clk' cycles" % fmt) in r.stderr
        if r.returncode != 0 or not os.path.exists(out(ext)) or warned != cyc:
            failures.append("%s -> %s: exit %d, %r" % (unit, ext, r.returncode, r.stderr))
        r = run("convert", "--strict", src, out("strict." + ext))
        if cyc and (r.returncode != 2 or os.path.exists(out("strict." + ext)) or "cycles" not in r.stderr):
            failures.append("clk -> %s --strict: exit %d, %r" % (ext, r.returncode, r.stderr))
        # (strict HTF and ATF refuse a Tarmac log's synthesised activations,
        # whatever its unit: only the reason matters here)
        if not cyc and "cycles" in r.stderr:
            failures.append("ns -> %s --strict: exit %d, %r" % (ext, r.returncode, r.stderr))

    for inp, name in ((src, "ctf"), (out("btf"), "btf.ctf")):
        r = run("convert", "-q", inp, out(name), "--to", "ctf")
        meta = open(os.path.join(out(name), "metadata")).read() if r.returncode == 0 else ""
        has = '\ttime_unit = "clk";' in meta and \
            re.search(r"description = \"one cycle per tick: the times are 'clk' cycles", meta)
        if r.returncode != 0 or bool(has) != cyc:
            failures.append("%s -> %s: exit %d, %r" % (unit, name, r.returncode,
                                                      re.findall(r".*(?:time_unit|description).*", meta)))

    r = run("convert", "-q", src, out("vcd"))
    vcd = open(out("vcd")).read() if r.returncode == 0 else ""
    has = "$comment the times are clk cycles: the $timescale 1 ns stands for one cycle $end" in vcd
    if r.returncode != 0 or has != cyc:
        failures.append("%s -> vcd: exit %d, %r" % (unit, r.returncode, r.stderr))

    r = run("convert", "-q", src, out("json"))
    try:
        doc = json.load(open(out("json")))
    except (OSError, ValueError) as e:
        failures.append("%s -> json: %s %r" % (unit, e, r.stderr))
    else:
        names = [e["args"]["name"] for e in doc["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name" and e.get("pid") == 1]
        has = doc["otherData"].get("timeUnit") == "clk cycles: one cycle is shown as 1 ns" and \
            names == ["tarmac trace (clk cycles as ns): cores"]
        if has != cyc or (not cyc and "timeUnit" in doc["otherData"]):
            failures.append("%s -> json: %r %r" % (unit, doc["otherData"], names))

    r = run("report", "-q", src, "-o", out("html"))
    html = open(out("html"), encoding="utf-8").read() if r.returncode == 0 else ""
    if r.returncode != 0 or ('"cycles":"clk"' in html) != cyc or \
            (not cyc and '"cycles":null' not in html):
        failures.append("%s -> report: exit %d, %r" % (unit, r.returncode, re.findall(r'"cycles":[^,]*', html)))

    # info, stats and load give the times in cycles, and take no --unit
    # (a cycle has no length): the log and its BTF, which says clk too
    want = "clk" if cyc else "ns"
    for inp in (src, out("btf")):
        r = run("load", "-q", inp)
        first = r.stdout.split("\n")[0]
        if r.returncode != 0 or not first.endswith(" %s (0 %s)" % (want, want)):
            failures.append("%s: load %s: exit %d, %r" % (unit, inp, r.returncode, first))
        for args in (("load", "--window", "1us"), ("load", "--unit", "ns"),
                     ("load", "--unit", "us")):
            r = run(*args, "-q", inp)
            if (r.returncode == 2) != cyc or (cyc and ("clk cycles" not in r.stderr or r.stdout)):
                failures.append("%s: %s %s: exit %d, %r" % (unit, " ".join(args), inp, r.returncode, r.stderr))
    for args in (("cat", "--start", "1us"), ("convert", "--end", "1ms")):
        dst = [out("w.btf")] if args[0] == "convert" else []
        r = run(*args, "-q", out("btf"), *dst)
        if (r.returncode == 2) != cyc or (cyc and ("clk cycles" not in r.stderr or r.stdout or
                                                    os.path.exists(out("w.btf")))):
            failures.append("%s: %s of its BTF: exit %d, %r" % (unit, " ".join(args), r.returncode, r.stderr))
    r = run("info", "--format", "json", out("btf"))
    got = json.loads(r.stdout).get("time_unit") if r.returncode == 0 else None
    if got != want:
        failures.append("%s: info --format json of its BTF: time_unit %r" % (unit, got))
    r = run("info", out("btf"))
    if r.returncode != 0 or "time unit:   %s\nstart:       0 %s\n" % (want, want) not in r.stdout:
        failures.append("%s: info of its BTF: %r" % (unit, r.stdout[:200]))
    r = run("stats", "-q", "--format", "json", out("btf"))
    got = json.loads(r.stdout).get("unit") if r.returncode == 0 else None
    if got != want:
        failures.append("%s: stats --format json of its BTF: unit %r" % (unit, got))
    r = run("stats", "-q", "--unit", "ns", out("btf"))
    if (r.returncode == 2) != cyc:
        failures.append("%s: stats --unit ns of its BTF: exit %d, %r" % (unit, r.returncode, r.stderr))

    r = run("convert", "-q", src, out("sqlite"))
    con = sqlite3.connect(out("sqlite"))
    got = con.execute("SELECT value FROM metaInformation WHERE name = 'tarmacTimeUnit'").fetchall()
    units = con.execute("SELECT DISTINCT unit FROM entityMetricValue WHERE unit <> '1'").fetchall()
    con.close()
    if got != [(unit,)]:
        failures.append("%s -> sqlite: tarmacTimeUnit %r" % (unit, got))
    # the metric rows in the unit of stats' rows: the cycles
    if units != [(want,)]:
        failures.append("%s -> sqlite: entityMetricValue unit %r" % (unit, units))


with tempfile.TemporaryDirectory() as d:
    check(d, "clk")
    check(d, "ns")
    # diff compares cycles with cycles only, in cycles, and takes no --unit
    clk, ns = os.path.join(d, "clk.btf"), os.path.join(d, "ns.btf")
    r = run("diff", "-q", clk, clk)
    if r.returncode != 0 or "times in clk;" not in r.stdout:
        failures.append("diff clk clk: exit %d, %r" % (r.returncode, r.stdout[:200]))
    for args in (("--unit", "ns", clk, clk), (ns, clk), (clk, ns)):
        r = run("diff", "-q", *args)
        if r.returncode != 2 or "clk cycles" not in r.stderr or r.stdout:
            failures.append("diff %s: exit %d, %r" % (" ".join(args), r.returncode, r.stderr))
    # verify holds cycles against bounds in cycles of the trace's unit
    # only: a bound in a unit of time, in other cycles, or a load window,
    # is an error naming the trace (it was held as ns); a trace in ns
    # refuses a bound in cycles
    def req(name, text):
        p = os.path.join(d, name + ".yaml")
        with open(p, "w") as f:
            f.write(text)
        return p
    rt = "- name: r\n  type: I\n  metric: RT\n  max: %s\n"
    r = run("verify", "-q", clk, "-r", req("clk", rt % "10clk"))
    if r.returncode != 0 or "bound max 10clk" not in r.stdout or " at 0clk" not in r.stdout:
        failures.append("verify clk 10clk: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))
    r = run("verify", "-q", clk, "-r", req("fail", rt.replace("max", "min") % "0.5clk"))
    if r.returncode != 1 or "FAIL r" not in r.stdout or "margin -0.5clk" not in r.stdout:
        failures.append("verify clk min 0.5clk: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))
    for trace, text, what in ((clk, rt % "1ms", "the bound 1ms is not in clk"),
                              (clk, rt % "10cyc", "the bound 10cyc is not in clk"),
                              (clk, "- name: l\n  load: Core_0\n  window: 1us\n  max: 90%\n",
                               "a window of 1us: the trace's times are clk cycles"),
                              (ns, rt % "10clk", "the bound 10clk is in cycles")):
        r = run("verify", "-q", trace, "-r", req("bad", text))
        if r.returncode != 2 or not r.stderr.startswith(trace + ": error: ") or what not in r.stderr:
            failures.append("verify %s %r: exit %d, %r" % (os.path.basename(trace), text,
                                                          r.returncode, r.stderr))
    # a #tarmacTimeUnit written by hand that is no Tarmac cycle unit (clk,
    # cyc, tic, cs) says nothing of the ticks: the times are the time
    # scale's, no label carries it (it was written raw into the tables,
    # the JSON of stats and info, and cut inside a character here)
    src = os.path.join(d, "unit.btf")
    with open(src, "w", encoding="utf-8") as f:
        f.write("#version 2.3.0\n#timescale ns\n#tarmacTimeUnit cyc\u00e9\u00e9\u00e9x\"\n"
                "0,STI,0,T,A,0,activate\n10,Core_0,0,T,A,0,start\n")
    r = run("convert", src, os.path.join(d, "unit.json"))
    names = []
    if r.returncode == 0:
        doc = json.load(open(os.path.join(d, "unit.json"), encoding="utf-8"))
        names = [e["args"]["name"] for e in doc["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name" and e.get("pid") == 1]
    if r.returncode != 0 or "UTF-8" in r.stderr or names != ["btf trace: cores"]:
        failures.append("unit cyc\u00e9\u00e9\u00e9x -> json: exit %d, %r, %r"
                        % (r.returncode, names, r.stderr))
    for args in (("info", "--format", "json", src), ("stats", "--format", "json", src)):
        r = run(*args)
        try:
            unit = json.loads(r.stdout).get("time_unit" if args[0] == "info" else "unit")
        except ValueError:
            unit = "not JSON"
        if r.returncode != 0 or unit != "ns":
            failures.append("%s of a unit written by hand: exit %d, unit %r"
                            % (" ".join(args[:3]), r.returncode, unit))
for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
