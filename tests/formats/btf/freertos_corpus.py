#!/usr/bin/env python3
"""The FreeRTOS trace logger's dialect on the real trace of the corpus.

A process event's source is the task that ran before on its core, or
'[c/0000]' when none did (docs/btf.md).  The run intervals are rebuilt
here from the file's lines, independently of tracekit (a task runs from
its resume to its next preempt, on the core its source ran on), and every
command and export must agree with them and with each other:

- info: one core, Core_0; '[0/0000]' is no core; one dialect warning kind,
  counted once per such event;
- check: no violation;
- load: the busy time of Core_0 = the sum of its tasks' = the rebuilt run
  time, per task too;
- stats: PRE (preempt -> resume, a creation is none) per task as rebuilt
  (stats gives CET for complete instances only, and no instance of this
  trace completes);
- VCD: one core scope, Core_0; each task's wire is 1 exactly over its run
  intervals (every resume a rising edge);
- Perfetto: one core lane, Core_0; every resume lies in a slice of its task;
- SQLite: every event's core is Core_0; '[0/0000]' is not of type C;
- CTF (babeltrace2, when installed): every event on cpu_id 0, core Core_0;
- report: one lane, Core_0, whose load over time adds up to the rebuilt
  run time.

With --agree, for each of the logger's traces given (1-4 cores, the 2022
logger's too: tests/corpus/freertos/), the run intervals are rebuilt the
same way, on as many cores as the file has, with the timeline's rules (a
task runs on one core at a time; an allocation ends the run of the core's
owner; a creation, "preempt" noted "create ...", makes a task READY, and
is no preemption), and must agree with:

- info: the cores are the file's own (no phantom core);
- load: per core, busy + idle time = the rebuilt run time, per task and
  core too; the idle time is that of the IDLE* tasks; no core and no task
  above 100 %;
- stats: PRE per task (count, min, max) as rebuilt, and no CET (no
  instance terminates);
- Perfetto JSON: each core track's slices and each task's "Running"
  slices per core = the rebuilt run time;
- report: each lane's load over time = the rebuilt run time of its core,
  IDLE* tasks left out (idle time, not load).

Usage: freertos_corpus.py TRACEKIT TRACE.btf
       freertos_corpus.py TRACEKIT --agree TRACE.btf[.gz]...
"""
import csv
import gzip
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def run(args, rc=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != rc:
        fail("%s: exit %d (expected %d): %s" % (" ".join(args[1:3]), p.returncode, rc,
                                                p.stderr.strip()[:300]))
    return p


def rebuild(path):
    """Run intervals, PRE times and resumes from the raw lines (us)."""
    core_of = {}          # task -> core it runs on or last ran on
    cores = set()
    running = {}          # task -> (core, since)
    runs = {}             # task -> [(core, start, end)]
    ready_since = {}      # task -> preempt time
    pre = {}              # task -> [durations]
    resumes = []          # (time, task)
    last = 0
    dialect = 0
    with open(path) as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            fld = line.split(",", 7)
            t, src, typ, tgt, ev = int(fld[0]), fld[1], fld[3], fld[4], fld[6]
            last = t
            if typ == "C" and src == tgt:
                cores.add(src)
            if typ != "T":
                continue
            if src.startswith("Core_"):
                core = src
                cores.add(src)
            else:
                dialect += 1
                if re.fullmatch(r"\[\d+/0+\]", src):
                    core = core_of.get(tgt)
                    if core is None and len(cores) == 1:
                        core = next(iter(cores))
                else:
                    core = core_of[src]
            core_of[tgt] = core
            if ev == "resume":
                resumes.append((t, tgt))
                running[tgt] = (core, t)
                if tgt in ready_since:
                    pre.setdefault(tgt, []).append(t - ready_since.pop(tgt))
            elif ev == "preempt":
                if tgt in running:
                    c, s = running.pop(tgt)
                    runs.setdefault(tgt, []).append((c, s, t))
                # a creation ("create pri:N") makes the task READY, but it
                # is no preemption
                if len(fld) > 7 and re.match(r"create( |$)", fld[7]):
                    ready_since.pop(tgt, None)
                else:
                    ready_since[tgt] = t
            else:
                fail("unexpected process event %r" % ev)
    for task, (c, s) in running.items():
        runs.setdefault(task, []).append((c, s, last))
    return cores, runs, pre, resumes, dialect


NO_TASK = re.compile(r"\[\d+/0+\]|\(\d+\)")


def open_text(path):
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path), encoding="utf-8")
    return open(path, encoding="utf-8")


def rebuild_timeline(path):
    """Run intervals per (task, core), PRE per task, the cores, the time
    span and the ticks per microsecond, from the raw lines."""
    cores, core_of, seen = set(), {}, set()
    owner, runs_on = {}, {}      # core -> (task, since); task -> core
    touched = set()              # cores with an allocation so far
    busy, pre, ready = {}, {}, {}
    first = last = None
    per_us = 1

    def end(task, t):
        c = runs_on.pop(task)
        s0 = owner.pop(c)[1]
        if t > s0:
            busy[(task, c)] = busy.get((task, c), 0) + t - s0

    with open_text(path) as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.lower().startswith("#timescale"):
                per_us = {"ns": 1000, "us": 1}[line.split()[1].lower()]
            if not line or line.startswith("#"):
                continue
            fld = line.split(",", 7)
            t, src, typ, tgt, ev = int(fld[0]), fld[1], fld[3], fld[4], fld[6]
            note = fld[7] if len(fld) > 7 else ""
            first = t if first is None else first
            last = t
            if src.startswith("Core_"):
                cores.add(src)
                core_of[tgt] = src
            if typ != "T":
                continue
            if src.startswith("Core_"):
                core = src
            else:
                core = None if NO_TASK.fullmatch(src) else core_of.get(src)
                if core is None:
                    core = core_of.get(tgt)
                if core is None and len(cores) == 1:
                    core = next(iter(cores))
                if core is not None:
                    core_of[tgt] = core
            if ev == "resume":
                if tgt in ready:
                    pre.setdefault(tgt, []).append(t - ready.pop(tgt))
                if core is None:
                    continue
                if tgt in runs_on and runs_on[tgt] != core:
                    end(tgt, t)
                if core in owner and owner[core][0] != tgt:
                    end(owner[core][0], t)
                if core not in owner:
                    owner[core] = (tgt, t)
                    runs_on[tgt] = core
                touched.add(core)
            elif ev == "preempt":
                creation = re.match(r"create( |$)", note) is not None
                if creation:
                    ready.pop(tgt, None)
                else:
                    ready[tgt] = t
                if tgt in runs_on:
                    end(tgt, t)
                elif (not creation and tgt not in seen and core is not None
                      and core not in touched and core not in owner):
                    busy[(tgt, core)] = busy.get((tgt, core), 0) + t - first
                    touched.add(core)
            else:
                fail("%s: unexpected process event %r" % (path, ev))
            seen.add(tgt)
    for task in list(runs_on):
        end(task, last)
    return cores, busy, pre, first, last, per_us


def agree(cli, trace):
    name = os.path.basename(trace)
    nfails = len(FAILS)
    cores, busy, pre, first, last, per_us = rebuild_timeline(trace)
    span = last - first
    per_core = {}
    per_task = {}
    for (task, c), b in busy.items():
        per_core[c] = per_core.get(c, 0) + b
        per_task[task] = per_task.get(task, 0) + b
    idle = {task for task in per_task if re.match(r"(\[\d+/\d+\]|\(\d+\))IDLE", task)}
    # ticks -> ns (the CSV's unit)
    ns = 1000 // per_us

    # info: the file's cores, no other
    p = run([cli, "info", "-q", "--format", "json", trace])
    got = sorted(json.loads(p.stdout)["cores"])
    if got != sorted(cores):
        fail("%s: info cores %s, the file's %s" % (name, got, sorted(cores)))

    # load
    p = run([cli, "load", "-q", "--format", "csv", trace])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    lb = {r["core"]: int(r["busy"]) for r in rows if r["kind"] == "core"}
    li = {r["core"]: int(r["busy"]) for r in rows if r["kind"] == "idle"}
    le = {(r["entity"], r["core"]): int(r["busy"]) for r in rows if r["kind"] == "entity"}
    if set(lb) != cores:
        fail("%s: load cores %s, the file's %s" % (name, sorted(lb), sorted(cores)))
    for c in sorted(cores):
        want_idle = sum(b for (task, cc), b in busy.items() if cc == c and task in idle)
        if lb.get(c, 0) + li.get(c, 0) != ns * per_core.get(c, 0) or li.get(c, 0) != ns * want_idle:
            fail("%s: load %s busy %s + idle %s ns, rebuilt %d + %d ticks"
                 % (name, c, lb.get(c), li.get(c), per_core.get(c, 0) - want_idle, want_idle))
        if lb.get(c, 0) + li.get(c, 0) > ns * span:
            fail("%s: load %s above 100 %%" % (name, c))
    if le != {k: ns * b for k, b in busy.items() if b}:
        diff = sorted(set(le.items()) ^ {(k, ns * b) for k, b in busy.items() if b})
        fail("%s: load per task and core differs from the rebuilt: %s" % (name, diff[:6]))
    for task in {k[0] for k in le}:
        if sum(b for (tk, _), b in le.items() if tk == task) > ns * span:
            fail("%s: load: %s above 100 %%" % (name, task))

    # stats: PRE per task, no CET
    p = run([cli, "stats", "-q", "--format", "csv", trace])
    got = {}
    for r in csv.DictReader(io.StringIO(p.stdout)):
        if r["metric"] == "PRE":
            got[r["entity"]] = (int(r["count"]), int(r["min"]), int(r["max"]))
        elif r["metric"] == "CET":
            fail("%s: stats: CET for %s though no instance terminates" % (name, r["entity"]))
    want = {t: (len(v), ns * min(v), ns * max(v)) for t, v in pre.items()}
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))
        fail("%s: stats PRE (count, min, max) differs from the rebuilt: %s" % (name, diff[:6]))

    tmp = tempfile.mkdtemp()
    try:
        # Perfetto: the core tracks' slices, the tasks' Running slices
        js = os.path.join(tmp, "f.json")
        run([cli, "convert", "-q", trace, js])
        d = json.load(open(js))
        evs = d["traceEvents"] if isinstance(d, dict) else d
        names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in evs
                 if e.get("ph") == "M" and e.get("name") in ("process_name", "thread_name")}
        core_pid = [pid for (pid, tid), n in names.items() if tid is None and n.endswith(": cores")]
        track = {}
        running = {}
        for e in evs:
            if e.get("ph") != "X":
                continue
            dur = round(e["dur"] * per_us)
            if e["pid"] in core_pid:
                c = names[(e["pid"], e["tid"])]
                track[(e["name"], c)] = track.get((e["name"], c), 0) + dur
            elif e["name"] == "Running" and e.get("cat") == "state":
                k = (names[(e["pid"], e["tid"])], e["args"]["core"])
                running[k] = running.get(k, 0) + dur
        want = {k: b for k, b in busy.items() if b}
        for what, got in (("core tracks' slices", track), ("tasks' Running slices", running)):
            got = {k: v for k, v in got.items() if v}
            if got != want:
                diff = sorted(set(got.items()) ^ set(want.items()))
                fail("%s: Perfetto %s differ from the rebuilt run time: %s" % (name, what, diff[:6]))

        # report: each lane's load over time
        html = os.path.join(tmp, "f.html")
        run([cli, "report", "-q", trace, "-o", html])
        page = open(html).read()
        at = page.find("const D=")
        if at < 0:
            fail("%s: report: no data block" % name)
        else:
            data, _ = json.JSONDecoder().raw_decode(page, at + len("const D="))
            lanes = [ln["name"] for ln in data["lanes"]]
            got = {lanes[i]: sum(b) for i, b in enumerate(data["load"]) if i < len(lanes)}
            want = {c: sum(b for (task, cc), b in busy.items() if cc == c and task not in idle)
                    for c in lanes}
            if sorted(lanes) != sorted(cores) or got != want:
                fail("%s: report lanes %s, load %s; rebuilt %s"
                     % (name, lanes, got, want))
    finally:
        shutil.rmtree(tmp)
    if len(FAILS) > nfails:
        return
    print("ok: %s: %d cores, %d tasks, busy %s ticks: info, load, stats, Perfetto, report agree"
          % (name, len(cores), len(per_task), sorted(per_core.items())))


def main():
    if len(sys.argv) > 2 and sys.argv[2] == "--agree":
        for trace in sys.argv[3:]:
            agree(sys.argv[1], trace)
        return 1 if FAILS else 0
    cli, trace = sys.argv[1], sys.argv[2]
    if not os.path.exists(trace):
        print("corpus trace not found: skipped")
        return 77
    cores, runs, pre, resumes, dialect = rebuild(trace)
    busy = {task: sum(e - s for _, s, e in iv) for task, iv in runs.items()}
    nruns = sum(len(iv) for iv in runs.values())
    if cores != {"Core_0"}:
        fail("rebuilt cores %s" % sorted(cores))
    if len(resumes) != 63 or nruns != 63:
        fail("rebuilt %d resumes, %d run intervals (63 each expected)" % (len(resumes), nruns))

    # info
    p = run([cli, "info", "--format", "json", trace])
    info = json.loads(p.stdout)
    if info["cores"] != ["Core_0"]:
        fail("info cores %s, expected ['Core_0']" % info["cores"])
    dl = [ln for ln in p.stderr.splitlines() if "FreeRTOS trace logger's dialect" in ln]
    if len(dl) != 1 or "no task '[0/0000]'" not in dl[0]:
        fail("dialect warning lines: %s" % dl)
    # 63 dialect events + the 'set_frequency' spelling
    if info["warnings"] != dialect + 1 or dialect != 63:
        fail("info: %d warnings, %d dialect events rebuilt (63 + 1 expected)"
             % (info["warnings"], dialect))

    # check
    p = run([cli, "check", "-q", trace])
    if "no violations" not in p.stdout:
        fail("check: %s" % p.stdout.strip())

    # load: core = sum of its tasks = rebuilt, in ns
    p = run([cli, "load", "-q", "--format", "csv", trace])
    rows = [r.split(",") for r in p.stdout.splitlines()[1:]]
    core_rows = [r for r in rows if r[0] == "core"]
    ent = {r[4]: int(r[5]) for r in rows if r[0] == "entity"}
    if [(r[3]) for r in core_rows] != ["Core_0"]:
        fail("load cores %s" % [r[3] for r in core_rows])
    else:
        cb = int(core_rows[0][5])
        if cb != sum(ent.values()):
            fail("load: Core_0 busy %d != sum of its tasks %d" % (cb, sum(ent.values())))
        if cb != 1000 * sum(busy.values()):
            fail("load: Core_0 busy %d ns, rebuilt %d us" % (cb, sum(busy.values())))
    for task, b in busy.items():
        if ent.get(task) != 1000 * b:
            fail("load: %s busy %s ns, rebuilt %d us" % (task, ent.get(task), b))
    if set(ent) != set(busy):
        fail("load entities %s, rebuilt %s" % (sorted(ent), sorted(busy)))

    # stats: PRE per task
    p = run([cli, "stats", "-q", "--format", "csv", trace])
    got = {}
    for r in p.stdout.splitlines()[1:]:
        f = r.split(",")
        if f[2] == "PRE":
            got[f[0]] = (int(f[3]), int(f[4]), int(f[6]))
        elif f[2] == "CET":
            fail("stats: CET for %s though no instance completes" % f[0])
    want = {t: (len(v), 1000 * min(v), 1000 * max(v)) for t, v in pre.items()}
    if got != want:
        fail("stats PRE (count, min, max) %s, rebuilt %s" % (got, want))

    tmp = tempfile.mkdtemp()
    try:
        exports(cli, trace, tmp, runs, resumes)
    finally:
        shutil.rmtree(tmp)
    if FAILS:
        return 1
    print("ok: Core_0 busy %d us = the sum of %d tasks' run time, %d run intervals, "
          "63 resumes; info, check, load, stats, VCD, Perfetto, SQLite, CTF, report agree"
          % (sum(busy.values()), len(busy), nruns))
    return 0


def exports(cli, trace, tmp, runs, resumes):
    # VCD: scopes and each task's wire
    vcd = os.path.join(tmp, "f.vcd")
    run([cli, "convert", "-q", trace, vcd])
    text = open(vcd).read()
    head, _, body = text.partition("$enddefinitions")
    scopes = re.findall(r"\$scope module (\S+) \$end", head)
    core_scopes = scopes[1:scopes.index("tasks")] if "tasks" in scopes else scopes
    if core_scopes != ["Core_0"]:
        fail("VCD core scopes %s" % core_scopes)
    ids = {}
    for code, name in re.findall(r"\$var wire 1 (\S+) (\S+) \$end", head):
        ids[code] = name.replace("\\", "")
    high = {}
    since = {}
    t = 0
    for ln in body.splitlines():
        if ln.startswith("#"):
            t = int(ln[1:])
        elif len(ln) >= 2 and ln[0] in "01" and ln[1:] in ids:
            name = ids[ln[1:]]
            if ln[0] == "1":
                since[name] = t
            elif name in since:
                high.setdefault(name, []).append((since.pop(name), t))
    for name, s in since.items():
        high.setdefault(name, []).append((s, t))
    want = {task: [(s, e) for _, s, e in iv] for task, iv in runs.items()}
    if high != want:
        fail("VCD task wires differ from the rebuilt run intervals")

    # Perfetto: lanes, and every resume inside a slice of its task
    js = os.path.join(tmp, "f.json")
    run([cli, "convert", "-q", trace, js])
    d = json.load(open(js))
    evs = d["traceEvents"] if isinstance(d, dict) else d
    cores_pid = [e["pid"] for e in evs if e.get("ph") == "M" and e.get("name") == "process_name"
                 and e["args"]["name"].endswith(": cores")]
    lanes = [e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e.get("name") == "thread_name" and e["pid"] in cores_pid]
    if lanes != ["Core_0"]:
        fail("Perfetto core lanes %s" % lanes)
    # the core's track holds the run intervals and the task's own track its
    # instances, in the trace's absolute time (a resume at the trace's last
    # time runs for no time: only its instance holds it)
    slices = [e for e in evs if e.get("ph") == "X"]
    covered = 0
    for t, task in resumes:
        if any(s["name"] == task and s["ts"] <= t <= s["ts"] + s["dur"] for s in slices):
            covered += 1
    if covered != len(resumes):
        fail("Perfetto: %d of %d resumes lie in a slice of their task" % (covered, len(resumes)))

    # SQLite
    db = os.path.join(tmp, "f.sqlite")
    run([cli, "convert", "-q", trace, db])
    con = sqlite3.connect(db)
    cores = con.execute("SELECT coreName, count(*) FROM traceEventInfo GROUP BY 1").fetchall()
    if cores != [("Core_0", 196)]:
        fail("SQLite cores of the events %s" % cores)
    ty = con.execute("SELECT t.name FROM entity e LEFT JOIN entityType t ON t.id = e.entityTypeId"
                     " WHERE e.name = '[0/0000]'").fetchall()
    if len(ty) != 1 or ty[0][0] == "C":
        fail("SQLite: '[0/0000]' has type %s" % ty)
    con.close()

    # CTF through babeltrace2
    ctf = os.path.join(tmp, "f.ctf")
    run([cli, "convert", "-q", trace, ctf])
    if shutil.which("babeltrace2"):
        p = run(["babeltrace2", ctf])
        lines = p.stdout.splitlines()
        bad = [ln for ln in lines
               if "cpu_id = 0 }" not in ln or 'core = "Core_0"' not in ln]
        if len(lines) != 196 or bad:
            fail("babeltrace2: %d events, %d not on cpu 0 / Core_0: %s"
                 % (len(lines), len(bad), bad[:2]))
    else:
        print("note: babeltrace2 not installed: CTF not read back")

    # report
    html = os.path.join(tmp, "f.html")
    run([cli, "report", "-q", trace, "-o", html])
    page = open(html).read()
    at = page.find("const D=")
    if at < 0:
        fail("report: no data block")
        return
    data, _ = json.JSONDecoder().raw_decode(page, at + len("const D="))
    lanes = [ln["name"] for ln in data["lanes"]]
    # the core load over time: busy ticks per bin, summed over the trace
    total = sum(sum(b) for b in data["load"])
    want = sum(e - s for iv in runs.values() for _, s, e in iv)
    if lanes != ["Core_0"] or total != want:
        fail("report: lanes %s, core load %d us in all, rebuilt %d us" % (lanes, total, want))


if __name__ == "__main__":
    sys.exit(main())
