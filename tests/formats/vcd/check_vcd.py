#!/usr/bin/env python3
"""Check tracekit's VCD export (issue 7).

usage: check_vcd.py TRACEKIT DEMO.btf NOCORE.btf NAMES.btf SHARK.bin GEM5.tarmac [MORE.btf ...]

A small VCD parser checks the header (timescale, scopes, variable
declarations), that times only grow, that every change names a declared
variable with a value of its kind; the demo's values against its known
schedule (running strings, task and runnable wires, signal events and
values); that the per-core running strings and task wires agree; that each
core's load_permille equals, at every load window's start, the per mille
(rounded down) of the window in which its running string is not idle; and that
a trace with no event on a core (NOCORE.btf, an empty one, GEM5.tarmac)
is written as a valid VCD.  Where
gtkwave's vcd2fst is installed, it must accept the file too.

Names (issue 21): NAMES.btf's entities ("Task A", "Task_A", "$end",
"module", "Sig[3]", "a.b", a non-ASCII name, "Core 1" and "Core_1") are
written as legal VCD references (simple or escaped identifiers, unique in
their scope) with a `$comment name SCOPE.REF = "ORIGINAL"` line for each
changed one.  A S.Ha.R.K. dump (ticks of 1/367483 ms, no exact VCD
timescale) is written in ps rounded down with one counted warning, and
refused with --strict (no file left).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def parse(text):
    toks = text.split()
    i = 0
    vars_ = {}        # id -> (kind, width, scope path, name)
    scope = []
    timescale = None
    window = None
    while True:
        t = toks[i]
        i += 1
        if t == "$enddefinitions":
            assert toks[i] == "$end"
            i += 1
            break
        if t == "$scope":
            scope.append(toks[i + 1])
            assert toks[i + 2] == "$end", toks[i:i + 3]
            i += 3
        elif t == "$upscope":
            scope.pop()
            i += 1
        elif t == "$var":
            kind, width, ident, name, end = toks[i:i + 5]
            assert end == "$end", toks[i:i + 5]
            assert ident not in vars_, "duplicate id " + ident
            vars_[ident] = (kind, int(width), tuple(scope), name)
            i += 5
        elif t == "$comment" and toks[i:i + 2] == ["load", "window"] \
                and toks[i + 3] == "timescale":
            window = (int(toks[i + 2]), int(toks[i + 8]))
            i = toks.index("$end", i) + 1
        elif t == "$timescale":
            j = toks.index("$end", i)
            timescale = " ".join(toks[i:j])
            i = j + 1
        elif t.startswith("$"):
            i = toks.index("$end", i) + 1
        else:
            raise AssertionError("unexpected token in header: " + t)
    assert not scope, "unbalanced scopes"
    # the body, one change per line (ids may be '#', so not by tokens)
    body = text[text.index("$enddefinitions"):].split("\n", 1)[1]
    out = []          # (time, id, value)
    now = None
    for line in body.split("\n"):
        line = line.strip()
        if not line or line in ("$dumpvars", "$end"):
            continue
        if line[0] == "#":
            nt = int(line[1:])
            assert now is None or nt > now, "time %d after %s" % (nt, now)
            now = nt
            continue
        assert now is not None, "change before the first time"
        if line[0] in "sb":
            val, ident = line[1:].split(" ")
            out.append((now, ident, val))
        else:
            out.append((now, line[1:], line[0]))
    for tm, ident, val in out:
        assert ident in vars_, "undeclared id " + ident
        kind = vars_[ident][0]
        if kind == "wire":
            assert val in "01", val
        elif kind == "integer":
            assert set(val) <= set("01"), val
        elif kind == "event":
            assert val == "1", val
    return timescale, vars_, out, (window, now)


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def signal(vars_, changes, scope, name):
    ids = [i for i, v in vars_.items() if v[2] == scope and v[3] == name]
    assert len(ids) == 1, (scope, name, ids)
    return [(t, v) for t, i, v in changes if i == ids[0]]


def check_file(tk, src, out, demo):
    r = run([tk, "convert", src, out])
    if r.returncode != 0:
        fail("%s: convert failed: %s" % (src, r.stderr))
        return
    with open(out) as f:
        text = f.read()
    try:
        ts, vars_, ch, (window, last_time) = parse(text)
    except AssertionError as e:
        fail("%s: %s" % (src, e))
        return
    if ts is None:
        fail(src + ": no $timescale")
    # a time line is followed by a value change (a load window whose loads
    # do not change writes none), but for the last two: the last event's
    # time and, when all events share one time, one unit later
    body = text.split("$enddefinitions $end\n", 1)[1].splitlines()[:-2]
    empty = sum(1 for a, b in zip(body, body[1:]) if a.startswith("#") and b.startswith("#"))
    if empty:
        fail("%s: %d time lines with no value change after them" % (src, empty))
    # per core the running string and the load integer agree; every task
    # wire is 1 exactly when some core runs the task
    cores = sorted({v[2] for v in vars_.values() if v[2][:1] == ("cores",)})
    if not cores:
        fail(src + ": no core scopes")
    state = {i: None for i in vars_}
    byname = {v[3]: i for i, v in vars_.items() if v[2] == ("tasks",)}
    times = sorted({c[0] for c in ch})
    k = 0
    for tm in times:
        while k < len(ch) and ch[k][0] == tm:
            state[ch[k][1]] = ch[k][2]
            k += 1
        running = {}
        for c in cores:
            s = [i for i, v in vars_.items() if v[2] == c and v[3] == "running"][0]
            if state[s] != "idle":
                running[state[s]] = 1
        for name, i in byname.items():
            if (state[i] == "1") != (name in running):
                fail("%s: wire %s at %d is %s, running: %s" % (src, name, tm, state[i], sorted(running)))
    # load_permille: at each window start, the busy share of that window
    if window is None:
        fail(src + ": no load window comment")
    else:
        W, S = window
        last = last_time
        for c in cores:
            runs = signal(vars_, ch, c, "running")
            load = signal(vars_, ch, c, "load_permille")
            busy = []   # (start, end) not idle
            for k2, (t0, v) in enumerate(runs):
                t1 = runs[k2 + 1][0] if k2 + 1 < len(runs) else last
                if v != "idle" and t1 > t0:
                    busy.append((t0, t1))
            b = 0
            nwin = 0
            while S + b * W < last or b == 0:
                ws, we = S + b * W, min(S + (b + 1) * W, last)
                want = sum(max(0, min(e, we) - max(s0, ws)) for s0, e in busy) * 1000 // (we - ws) if we > ws else 0
                got = [int(v, 2) for t0, v in load if t0 <= ws]
                if not got or got[-1] != want:
                    fail("%s: %s load_permille at %d: %s, want %d" % (src, c, ws, got[-1:] , want))
                    break
                b += 1
                nwin += 1
            if nwin > 1024:
                fail("%s: %d load windows" % (src, nwin))
    if demo:
        if ts != "1 ns":
            fail("demo timescale " + repr(ts))
        if sorted(byname) != ["Isr_CAN", "Task_Control", "Task_Logger", "Task_Sensor"]:
            fail("demo tasks " + repr(sorted(byname)))
        c2 = [x for x in signal(vars_, ch, ("cores", "Core_2"), "running")]
        want = [(0, "idle"), (1500, "Task_Sensor"), (21000, "idle"), (21100, "Isr_CAN"),
                (27500, "idle"), (27600, "Task_Sensor"), (38000, "idle"),
                (2000100, "Task_Sensor"), (2036000, "idle")]
        if c2 != want:
            fail("demo Core_2 running: %r" % c2)
        c1 = signal(vars_, ch, ("cores", "Core_1"), "running")
        want = [(0, "idle"), (1200, "Task_Control"), (52000, "idle"), (52100, "Task_Logger"),
                (1000000, "idle"), (1000100, "Task_Control"), (1049000, "idle"),
                (1049100, "Task_Logger"), (1312000, "idle")]
        if c1 != want:
            fail("demo Core_1 running: %r" % c1)
        tl = signal(vars_, ch, ("tasks",), "Task_Logger")
        if tl != [(0, "0"), (52100, "1"), (1000000, "0"), (1049100, "1"), (1312000, "0")]:
            fail("demo Task_Logger wire: %r" % tl)
        rs = signal(vars_, ch, ("runnables",), "Run_Sample")
        if rs != [(0, "0"), (1500, "1"), (21000, "0"), (27600, "1"), (38000, "0"),
                  (2000100, "1"), (2036000, "0")][:len(rs)] or len(rs) < 5:
            fail("demo Run_Sample wire: %r" % rs)
        sp = signal(vars_, ch, ("signals",), "Sig_Speed")
        if [t for t, v in sp][:2] != [9800, 38000]:
            fail("demo Sig_Speed events: %r" % sp)
        cf = signal(vars_, ch, ("signal_values",), "Sig_CanFrame")
        if cf[:2] != [(0, "-"), (26300, "0x1A2B")]:
            fail("demo Sig_CanFrame values: %r" % cf)
        c1load = signal(vars_, ch, ("cores", "Core_1"), "load_permille")
        if window != (2048, 0) or [int(v, 2) for t, v in c1load][:1] != [414]:
            fail("demo load window %r / Core_1 load %r" % (window, c1load[:4]))
        if "#2036000" not in text.split():
            fail("demo: the last time is missing")
    v2f = shutil.which("vcd2fst")
    if v2f:
        r = run([v2f, out, out + ".fst"])
        if r.returncode != 0:
            fail("%s: vcd2fst: %s" % (src, r.stderr))


SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def legal(ref):
    """IEEE 1364: a simple identifier, or '\\' and printable non-space ASCII."""
    if SIMPLE.match(ref):
        return True
    return ref[:1] == "\\" and len(ref) > 1 and all(33 <= ord(c) <= 126 for c in ref)


def check_names(tk, src, d):
    out = os.path.join(d, "names.vcd")
    r = run([tk, "convert", src, out])
    if r.returncode != 0:
        fail("names: convert: " + r.stderr)
        return
    text = open(out, encoding="latin-1").read()
    try:
        _, vars_, _, _ = parse(text)
    except AssertionError as e:
        fail("names: %s" % e)
        return
    full = {}
    for ident, (kind, width, scope, name) in vars_.items():
        for ref in scope[1:] + (name,):
            if not legal(ref) or ref in ("module", "$end"):
                fail("names: illegal reference %r" % ref)
        key = scope + (name,)
        if key in full:
            fail("names: %r declared twice" % (key,))
        full[key] = ident
    want = {("tasks", "Task_A"), ("tasks", "\\Task_A~2"), ("tasks", "\\$end"),
            ("tasks", "\\module"), ("tasks", "X"), ("tasks", "\\a.b"),
            ("tasks", '\\T__che_"q\\x"'), ("tasks", "\\Task_A~2~3"),
            ("runnables", "\\Sig[3]"),
            ("cores", "Core_1", "running"), ("cores", "\\Core_1~2", "running")}
    if not want <= set(full):
        fail("names: declared %r, want %r" % (sorted(full), sorted(want)))
    comments = sorted(re.findall(r"\$comment name (\S+) = (\S+) \$end", text))
    # "Core 1" -> Core_1 collides with the core really named Core_1, which
    # keeps its name; "Task A" -> Task_A collides with Task_A, then its
    # Task_A~2 with the task really named Task_A~2
    wantc = sorted([("cores.\\Core_1~2", '"Core\\x201"'),
                    ("tasks.\\Task_A~2~3", '"Task\\x20A"'),
                    ("tasks.\\T__che_\"q\\x\"", '"T\\xC3\\xA2che\\x20\\x22q\\x5Cx\\x22"')])
    if sorted(comments) != sorted(wantc):
        fail("names: comments %r, want %r" % (comments, sorted(wantc)))
    # the running strings keep the names (white space as '_')
    runs = [l.split()[0][1:] for l in text.split("$enddefinitions")[1].splitlines()
            if l.startswith("s")]
    for name in ("Task_A", "$end", "module", "a.b", "Task_A~2"):
        if name not in runs:
            fail("names: running string %r missing: %r" % (name, sorted(set(runs))))


def check_shark(tk, src, d):
    out = os.path.join(d, "shark.vcd")
    r = run([tk, "convert", src, out])
    warn = [l for l in r.stderr.splitlines() if "VCD cannot hold everything" in l]
    if r.returncode != 0 or len(warn) != 1 or \
            "no VCD timescale is exact for ticks of 1/367483 ms; 36173 of 36173 times rounded down to whole ps (--strict refuses)" not in warn[0]:
        fail("shark: exit %d, %r" % (r.returncode, r.stderr))
        return
    text = open(out).read()
    try:
        ts, vars_, ch, _ = parse(text)
    except AssertionError as e:
        fail("shark: %s" % e)
        return
    first = int(text.split("$enddefinitions $end\n#")[1].split()[0])
    # the first event at tick 24305936302 of 1/367483 ms: in ps, rounded down
    if ts != "1 ps" or first != 24305936302 * 10**9 // 367483:
        fail("shark: timescale %r, first time %d" % (ts, first))
    if "load window 8388608 ticks of 1/367483 ms" not in text:
        fail("shark: the load window comment")
    tasks = sorted(v[3] for v in vars_.values() if v[2] == ("tasks",))
    if tasks != sorted(["task%d" % i for i in range(6)] + ["IRQ0", "IRQ1", "ctx248"]):
        fail("shark: tasks %r" % tasks)
    s_out = os.path.join(d, "shark_strict.vcd")
    r = run([tk, "convert", "--strict", src, s_out])
    if r.returncode != 2 or "VCD cannot hold a tick of 1/367483 ms exactly" not in r.stderr \
            or len(r.stderr.strip().splitlines()) != 1 \
            or any(f.startswith("shark_strict") for f in os.listdir(d)):
        fail("shark --strict: exit %d, %r, files %r" % (r.returncode, r.stderr, os.listdir(d)))


def check_back(tk, d):
    # a time that goes back (kept by lenient reading): raised to the time
    # before it with a counted warning, as BTF and CTF do
    src = os.path.join(d, "back.btf")
    open(src, "w").write("#version 2.3.0\n#timescale ns\n100,Core_0,0,T,A,0,start\n"
                         "50,Core_0,0,T,A,0,terminate\n")
    out = os.path.join(d, "back.vcd")
    r = run([tk, "convert", src, out])
    warn = [l for l in r.stderr.splitlines() if "VCD cannot hold everything" in l]
    if r.returncode != 0 or warn != [out + ": warning: VCD cannot hold everything: 1 time "
                                     "raised to the previous event's (first 'terminate' of T) "
                                     "(--strict refuses)"]:
        fail("back: exit %d, %r" % (r.returncode, r.stderr))
        return
    times = [l for l in open(out).read().split("$enddefinitions")[1].splitlines()
             if l.startswith("#")]
    if times != ["#100", "#101"]:
        fail("back: times %r" % times)


def check_nothing_on_a_core(tk, nocore, gem5, d):
    """A trace with no event on a core is written as the other writers
    write it: a trace whose events have no core (its task's wire stays 0,
    the signal's events are there), an empty trace (one placeholder
    variable: viewers refuse a VCD without any), and a gem5 Tarmac log
    without exceptions (cpu0 on every line: its core, idle throughout)."""
    empty = os.path.join(d, "empty.btf")
    with open(empty, "w") as f:
        f.write("#version 2.3.0\n#timescale ns\n")
    cases = [(nocore, {("cores",): None, ("tasks",): ["Task_A"],
                       ("signals",): ["Sig_X"]}),
             (empty, {("trace",): ["no_entity"]})]
    if os.path.exists(gem5):
        cases.append((gem5, {("cores", "cpu0"): ["load_permille", "running"]}))
    for src, want in cases:
        out = os.path.join(d, "nothing.vcd")
        r = run([tk, "convert", "-q", src, out])
        if r.returncode != 0 or r.stderr:
            fail("%s: exit %d, %r" % (src, r.returncode, r.stderr))
            continue
        with open(out) as f:
            text = f.read()
        os.remove(out)
        try:
            ts, vars_, ch, _ = parse(text)
        except AssertionError as e:
            fail("%s: %s" % (src, e))
            continue
        for scope, names in want.items():
            got = sorted(v[3] for v in vars_.values() if v[2] == scope)
            if names is not None and got != names:
                fail("%s: scope %s holds %r, not %r" % (src, scope, got, names))
        if not vars_:
            fail(src + ": no variable")
        if src == nocore and [(t, v) for t, i, v in ch if vars_[i][2:] == (("signals",), "Sig_X")] != [(200, "1")]:
            fail("%s: Sig_X's changes %r" % (src, ch))
        if src == gem5:
            run_id = [i for i, v in vars_.items() if v[3] == "running"][0]
            if [v for t, i, v in ch if i == run_id] != ["idle"]:
                fail("%s: cpu0 running %r" % (src, ch))


def main():
    tk, demo, nocore, names, shark, gem5 = sys.argv[1:7]
    with tempfile.TemporaryDirectory() as d:
        check_names(tk, names, d)
        check_back(tk, d)
        if os.path.exists(shark):
            check_shark(tk, shark, d)
        else:
            print("skip (absent):", shark)
        check_file(tk, demo, os.path.join(d, "demo.vcd"), True)
        # --to vcd with another extension
        r = run([tk, "convert", demo, os.path.join(d, "x.out"), "--to", "vcd"])
        if r.returncode != 0 or not open(os.path.join(d, "x.out")).read().startswith("$version"):
            fail("--to vcd: " + r.stderr)
        for n, src in enumerate(sys.argv[7:]):
            if os.path.exists(src):
                check_file(tk, src, os.path.join(d, "c%d.vcd" % n), False)
            else:
                print("skip (absent):", src)
        check_nothing_on_a_core(tk, nocore, gem5, d)
    if failures:
        print("%d failure(s)" % failures)
        return 1
    print("ok")
    return 0


sys.exit(main())
