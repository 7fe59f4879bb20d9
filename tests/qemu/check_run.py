#!/usr/bin/env python3
"""What the QEMU firmware (examples/qemu-cortex-m/main.c) did, read back by
tracekit from its two recordings (the FTrace dump and the HTF mode):

- the firmware reports 100/50/20 jobs, no deadline miss, no lost event;
- `check` finds no violation in either file;
- in `stats`, each task's PER is its period exactly (min = avg = max) over
  jobs - 1 instances, and it terminates its number of jobs;
- IRQ8 appears with the count the firmware counted (143: every 700 us from
  350 us after the first tick to the 100th), in both files;
- the two recordings agree: the same events in the same order (entity and
  event), the releases at the same times, the other events within 100 us
  (the HTF build's events cost more instructions), and the same PER rows;
- the stream build (its stream drained by the idle thread, never in the
  ipoints) schedules as the FTrace build: the same jobs, no miss, none
  lost, each PER its period exactly, IRQ8 143 times, and each task's
  and IRQ8's response times and IRQ8's periods within 100 us of the
  FTrace dump's (the stream's events cost more instructions, and a sync
  record is written by an event now and then); the stream recorded by
  `tracekit record` has the FTrace build's events (trace.bin) one for
  one: the same sequence, every field but the time equal, the periodic
  releases at the same times, the other events within 100 us (demo.sh
  has compared it with the stream build's own snapshot: equal, times
  too);
- docs/recorder.md gives what this run gives, when arm-none-eabi-gcc is
  the version it names: the objects' sizes (arm-none-eabi-size), the
  instructions of one event (the firmware's own count; the stream build's
  three: the stream off, at most 81 / 91 instructions, DWT / SysTick, the
  stream alone, at most 1.3 x the FTrace build's event on each clock, the
  chunk and the stream), the dump's record
  count and the largest difference between the two recordings;
- the FTrace build on the port's user clock (fw-user.elf: the dual timer
  1, 16 bits counting down at 25 MHz, wrapping every 2.6 ms) schedules as
  the FTrace build: the same jobs, no miss, none lost, no violation, each
  PER its period exactly, IRQ8 143 times, and trace-user.bin has
  trace.bin's events one for one, every time within 100 us.

Usage: check_run.py TRACEKIT DIR
"""
import csv
import io
import os
import re
import subprocess
import sys

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "recorder.md")

TASKS = {"task1": (1000000, 100), "task2": (2000000, 50), "task3": (5000000, 20)}
IRQ = "IRQ8"
IRQ_COUNT = 143
# the stream build's run (the Makefile's STREAM_MS): 3 s, its jobs and
# its interrupts (every 700 us from 350 us after the first tick)
STREAM_MS = 3000
STREAM_JOBS = {t: STREAM_MS * 1000000 // p for t, (p, _) in TASKS.items()}
STREAM_IRQ_COUNT = (STREAM_MS * 20 - 7) // 14 + 1
TOLERANCE_NS = 100000

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def tk(*args):
    r = subprocess.run([sys.argv[1]] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        fail("tracekit %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def firmware(log, want=None):
    want = want or {t: j for t, (_, j) in TASKS.items()}
    text = open(log).read()
    m = re.search(r"jobs=(\d+),(\d+),(\d+) misses=(\d+) irq=(\d+) lost=(\d+)", text)
    if not m:
        fail("%s: no summary line" % log)
        return None
    jobs = [int(m.group(i)) for i in (1, 2, 3)]
    if jobs != [want[t] for t in ("task1", "task2", "task3")]:
        fail("%s: jobs %s" % (log, jobs))
    if int(m.group(4)) or int(m.group(6)):
        fail("%s: misses %s, lost %s" % (log, m.group(4), m.group(6)))
    return int(m.group(5))


def stats(args, name, jobs_of=None):
    jobs_of = jobs_of or {t: j for t, (_, j) in TASKS.items()}
    rows = {}
    for r in csv.DictReader(io.StringIO(tk("stats", "--format", "csv", *args))):
        rows[(r["entity"], r["metric"])] = r
    for task, (period, _) in TASKS.items():
        jobs = jobs_of[task]
        per = rows.get((task, "PER"))
        if not per:
            fail("%s: no PER for %s" % (name, task))
            continue
        got = (int(per["count"]), per["min"], per["avg"], per["max"])
        want = (jobs - 1, str(period), str(period), str(period))
        if got != want:
            fail("%s: %s PER (count, min, avg, max) %s, want %s" % (name, task, got, want))
        cet = rows.get((task, "CET"))
        if not cet or int(cet["count"]) != jobs:
            fail("%s: %s has not %d complete jobs" % (name, task, jobs))
    irq = rows.get((IRQ, "CET"))
    if not irq:
        fail("%s: no %s" % (name, IRQ))
    return rows, (int(irq["count"]) if irq else None)


def events(args):
    out = []
    for line in tk("cat", "-q", "--no-header", *args).splitlines():
        f = line.split(",")
        # what both recordings have: the tasks' and the interrupt's
        # events, less the interrupt's activate (FTrace only: HTF's ISRs
        # have none) and the FTrace trace's own records
        if f[3] not in ("T", "I") or (f[3] == "I" and f[6] == "activate"):
            continue
        out.append((int(f[0]), f[4], f[6]))
    return out


def doc_figures(d, worst):
    """The figures of docs/recorder.md that this run measures."""
    doc = open(DOC).read()
    m = re.search(r"`arm-none-eabi-gcc -mcpu=cortex-m3 -O2 -ffreestanding`\s*\((\S+),", doc)
    if not m:
        fail("docs/recorder.md: no compiler version in the Cortex-M3 cost paragraph")
        return
    try:
        ver = subprocess.run(["arm-none-eabi-gcc", "-dumpversion"], capture_output=True,
                             text=True).stdout.strip()
    except OSError:
        ver = ""
    if ver != m.group(1):
        print("qemu demo: arm-none-eabi-gcc %s, the doc's figures are of %s: not compared"
              % (ver, m.group(1)))
        return
    size = subprocess.run(["arm-none-eabi-size", "FTrace.o", "FTrace_htf.o", "FTrace_cm.o"],
                          cwd=d + "/rec", capture_output=True, text=True).stdout
    for line in size.splitlines()[1:]:
        f = line.split()
        obj = f[5]
        row = re.search(r"\| `(?:ports/cortex-m/)?%s`[^|]*\| (\d+) \| (\d+) \| (\d+) \|"
                        % re.escape(obj), doc)
        if not row or list(row.groups()) != f[:3]:
            fail("docs/recorder.md: %s is %s (text data bss), the doc says %s"
                 % (obj, f[:3], list(row.groups()) if row else None))
    for mode, call in (("ftrace", "TRACER_LOGEVENT"), ("htf", "TRACER_HTF_LOGEVENT`, widths 4/1/1")):
        log = open("%s/fw-%s.log" % (d, mode)).read()
        c = re.search(r"cost of one \w+ event: ([\d.]+) instructions \(SysTick clock\), ([\d.]+) \(DWT", log)
        if not c:
            fail("fw-%s.log: no cost line" % mode)
            continue
        for clock, got in (("DWT CYCCNT", c.group(2)), ("SysTick", c.group(1))):
            row = re.search(r"\| `%s(?:`)? \| %s[^|]*\| \**(\d+)\**" % (re.escape(call), clock), doc)
            if not row or float(row.group(1)) != float(got):
                fail("docs/recorder.md: %s with %s costs %s instructions, the doc says %s"
                     % (call, clock, got, row.group(1) if row else None))
    # the stream build's three costs: the stream off (the snapshot alone,
    # no dearer than 81 / 91, its cost before the stream's hot path went
    # in place), the stream alone (at most 1.3 x the FTrace build's event,
    # each clock: the stream's cost target), the chunk and the stream
    snap = re.search(r"cost of one ftrace event: ([\d.]+) instructions \(SysTick clock\), ([\d.]+) \(DWT",
                     open("%s/fw-ftrace.log" % d).read())
    log = open("%s/fw-stream.log" % d).read()
    only = re.search(r"cost of one stream-only event: ([\d.]+) instructions \(SysTick clock\), ([\d.]+) \(DWT",
                     log)
    if snap and only:
        for i, clock in ((1, "SysTick"), (2, "DWT")):
            if float(only.group(i)) > 1.3 * float(snap.group(i)):
                fail("the stream-only event with %s costs %s instructions, more than 1.3 x the"
                     " FTrace build's %s" % (clock, only.group(i), snap.group(i)))
    for label, call, ceil in (("stream", "TKREC_STREAM` build, stream off", (81, 91)),
                              ("stream-only", "TKREC_STREAM` build: stream only", None),
                              ("chunk\\+stream", "TKREC_STREAM` build: chunk + stream", None)):
        c = re.search(r"cost of one %s event: ([\d.]+) instructions \(SysTick clock\), ([\d.]+) \(DWT"
                      % label, log)
        if not c:
            fail("fw-stream.log: no cost line for the %s event" % label)
            continue
        for i, (clock, got) in enumerate((("DWT CYCCNT", c.group(2)), ("SysTick", c.group(1)))):
            if ceil and float(got) > ceil[i]:
                fail("the %s event with %s costs %s instructions, more than %d"
                     % (label, clock, got, ceil[i]))
            row = re.search(r"\| `TRACER_LOGEVENT`, `%s \| %s[^|]*\| \**([\d.]+)\**"
                            % (re.escape(call), clock), doc)
            if not row or float(row.group(1)) != float(got):
                fail("docs/recorder.md: the %s event with %s costs %s instructions, the doc says %s"
                     % (label, clock, got, row.group(1) if row else None))
    recs = re.search(r"#records (\d+)", tk("info", "--from", "shark", d + "/trace.bin"))
    said = re.search(r"the run's (\d+) records", doc)
    if not recs or not said or recs.group(1) != said.group(1):
        fail("docs/recorder.md: the dump has %s records, the doc says %s"
             % (recs and recs.group(1), said and said.group(1)))
    said = re.search(r"\(measured: ([\d.]+) us;", doc)
    if worst is not None and (not said or float(said.group(1)) * 1000 != worst):
        fail("docs/recorder.md: the recordings differ by up to %d ns, the doc says %s us"
             % (worst, said and said.group(1)))


def all_events(args):
    """every event of `tracekit cat`: (time, the line less its time)"""
    out = []
    for line in tk("cat", "-q", "--no-header", *args).splitlines():
        t, rest = line.split(",", 1)
        out.append((int(t), rest))
    return out


def compare_stream(d, rows_b):
    """The stream build's schedule against the FTrace build's."""
    path = d + "/stream.tks"
    if not os.path.exists(path):
        fail("no %s" % path)
        return
    # the stream recorded from the stream build (3 s) against the FTrace
    # build's snapshot run (100 ms): the stream's first events are the
    # snapshot's (all but its trace stop) in the same order (every field
    # but the time), then come the releases of the 101st tick; times from
    # each run's first release (the stream build clears its larger
    # snapshot buffer before the first tick, which comes a tick later):
    # the periodic tasks' releases at the same times, every event from the
    # first release on within TOLERANCE_NS (the stream's events cost more
    # instructions)
    es, eb = all_events([path]), all_events(["--from", "shark", d + "/trace.bin"])
    if eb and eb[-1][1].endswith(",SYS,FTrace,0,stop"):
        eb = eb[:-1]
    first = ",T,task1,1,activate"
    t0b = next((e[0] for e in eb if e[1].endswith(first)), None)
    t0s = next((e[0] for e in es if e[1].endswith(first)), None)
    nxt = es[len(eb)][1] if len(es) > len(eb) else ""
    if [e[1] for e in es[:len(eb)]] != [e[1] for e in eb]:
        for i, (a, b) in enumerate(zip(eb, es)):
            if a[1] != b[1]:
                fail("stream.tks: event %d is %s, %s in trace.bin" % (i, b, a))
                break
        else:
            fail("stream.tks has %d events, trace.bin %d" % (len(es), len(eb)))
    elif not nxt.endswith(",T,task1,%d,activate" % (TASKS["task1"][1] + 1)) or t0b is None or t0s is None:
        fail("stream.tks: after trace.bin's %d events comes %r, not the next tick's release" % (len(eb), nxt))
    else:
        worst = 0
        for a, b in zip(eb, es):
            ta, tb = a[0] - t0b, b[0] - t0s
            f = a[1].split(",")
            if f[2] == "T" and f[3] in TASKS and f[5] == "activate" and ta != tb:
                fail("stream.tks: release of %s at %d, %d in trace.bin (from the first release)"
                     % (f[3], tb, ta))
            if ta >= 0:
                worst = max(worst, abs(ta - tb))
        if worst > TOLERANCE_NS:
            fail("stream.tks and trace.bin differ by up to %d ns" % worst)
        print("qemu demo: the stream's first %d events are trace.bin's (times from the first release"
              " within %d ns, the first a tick later)" % (len(eb), worst))
        if t0s - t0b != 1000000:
            fail("stream.tks: the first release at %d ns, trace.bin's at %d" % (t0s, t0b))
    fw = firmware(d + "/fw-stream.log", STREAM_JOBS)
    rows_s, irq_s = stats([path], "stream.tks", STREAM_JOBS)
    if irq_s != STREAM_IRQ_COUNT or fw != STREAM_IRQ_COUNT:
        fail("stream.tks: %s count %s, the firmware counted %s, want %d"
             % (IRQ, irq_s, fw, STREAM_IRQ_COUNT))
    for ent, metric in [(t, "RT") for t in TASKS] + [(IRQ, "RT"), (IRQ, "PER")]:
        a, b = rows_b.get((ent, metric)), rows_s.get((ent, metric))
        if not a or not b:
            fail("stream.tks: no %s %s to compare" % (ent, metric))
            continue
        for k in ("min", "max"):
            if abs(float(a[k]) - float(b[k])) > TOLERANCE_NS:
                fail("stream.tks: %s %s %s is %s ns, %s ns in trace.bin"
                     % (ent, metric, k, b[k], a[k]))


def compare_user_clock(d, bin_args):
    """The FTrace build on the user clock against the FTrace build."""
    user_args = ["--from", "shark", d + "/trace-user.bin"]
    fw = firmware(d + "/fw-user.log")
    if "clock=user" not in open(d + "/fw-user.log").read():
        fail("fw-user.log: the firmware did not run on the user clock")
    out = tk("check", *user_args)
    if "no violations" not in out:
        fail("check trace-user.bin: %s" % out.strip())
    _, irq = stats(user_args, "trace-user.bin")
    if irq != IRQ_COUNT or fw != IRQ_COUNT:
        fail("trace-user.bin: %s count %s, the firmware counted %s, want %d" % (IRQ, irq, fw, IRQ_COUNT))
    eb, eu = events(bin_args), events(user_args)
    if [e[1:] for e in eb] != [e[1:] for e in eu]:
        fail("trace-user.bin: not trace.bin's events (%d, %d)" % (len(eu), len(eb)))
        return
    worst = max((abs(a[0] - b[0]) for a, b in zip(eb, eu)), default=0)
    if worst > TOLERANCE_NS:
        fail("trace-user.bin and trace.bin differ by up to %d ns" % worst)
    print("qemu demo: the user clock's recording has trace.bin's %d events, within %d ns" % (len(eu), worst))


def main():
    d = sys.argv[2]
    worst = None
    bin_args = ["--from", "shark", d + "/trace.bin"]
    htf_args = [d + "/trace.htf"]
    n_fw = {m: firmware("%s/fw-%s.log" % (d, m)) for m in ("ftrace", "htf")}
    for args in (bin_args, htf_args):
        out = tk("check", *args)
        if "no violations" not in out:
            fail("check %s: %s" % (args[-1], out.strip()))
    rows_b, irq_b = stats(bin_args, "trace.bin")
    compare_user_clock(d, bin_args)
    rows_h, irq_h = stats(htf_args, "trace.htf")
    compare_stream(d, rows_b)
    for name, got, fw in (("trace.bin", irq_b, n_fw["ftrace"]), ("trace.htf", irq_h, n_fw["htf"])):
        if got != IRQ_COUNT or fw != IRQ_COUNT:
            fail("%s: %s count %s, the firmware counted %s, want %d" % (name, IRQ, got, fw, IRQ_COUNT))
    # (instances count from 1 in an FTrace dump, from 0 in HTF)
    def per(rows, task):
        r = rows.get((task, "PER")) or {}
        return [r.get(k) for k in ("count", "min", "avg", "max", "unit")]

    for task in TASKS:
        if per(rows_b, task) != per(rows_h, task):
            fail("%s: PER %s in trace.bin, %s in trace.htf" % (task, per(rows_b, task), per(rows_h, task)))
    eb, eh = events(bin_args), events(htf_args)
    if [e[1:] for e in eb] != [e[1:] for e in eh]:
        for i, (a, b) in enumerate(zip(eb, eh)):
            if a[1:] != b[1:]:
                fail("event %d differs: %s in trace.bin, %s in trace.htf" % (i, a, b))
                break
        else:
            fail("trace.bin has %d events, trace.htf %d" % (len(eb), len(eh)))
    else:
        worst = 0
        for a, b in zip(eb, eh):
            if a[2] == "activate" and a[1] in TASKS and a[0] != b[0]:
                fail("release of %s at %d in trace.bin, %d in trace.htf" % (a[1], a[0], b[0]))
            worst = max(worst, abs(a[0] - b[0]))
        if worst > TOLERANCE_NS:
            fail("the recordings differ by up to %d ns" % worst)
        doc_figures(d, worst)
        print("qemu demo: %d events agree (times within %d ns), PER 1/2/5 ms, %s x %d"
              % (len(eb), worst, IRQ, IRQ_COUNT))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
