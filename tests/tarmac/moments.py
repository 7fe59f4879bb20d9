#!/usr/bin/env python3
"""`tracekit tarmac regs` / `mem` at several moments in one run (--line,
--time, --instr repeated and mixed): the answers, in the order given, are
each exactly what a run with that moment alone writes, after one line
'@ OPTION VALUE' naming it; with the index (a small --index-span, on a
copy of the log) and with --no-index, with --cpu, with --format json, a
moment asked twice and moments out of order, an index damaged (as from
the start).  A moment that has no answer
(past the log's end) among answered ones fails the whole run: the exit
status and the one-line error of its own run, nothing on standard output.
Several moments on standard input are refused.

Usage: moments.py CLI CORPUS_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

cli, corpus = sys.argv[1], sys.argv[2]
fails = []
checks = 0


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def run(*args, stdin=None):
    p = subprocess.run([cli, "tarmac"] + list(args), capture_output=True, text=True,
                       stdin=stdin)
    return p.returncode, p.stdout, p.stderr


alone_runs = {}


def alone(args):
    """the run of one moment (each asked once: the test's processes are
    few under the sanitizers)"""
    if tuple(args) not in alone_runs:
        alone_runs[tuple(args)] = run(*args)
    return alone_runs[tuple(args)]


def moments_args(moments):
    return [w for m in moments for w in m]


def check(what, head, moments, tail):
    """head + the moments + tail in one run == the separate runs"""
    global checks
    checks += 1
    got = run(*(head + moments_args(moments) + tail))
    want = ""
    for m in moments:
        rc, out, err = alone(head + m + tail)
        if rc != 0:
            fail("%s: %s alone: exit %d: %s" % (what, " ".join(m), rc, err.strip()))
            return
        want += "@ %s %s\n" % (m[0], m[1]) + out
    if got[0] != 0 or got[1] != want:
        fail("%s: %s: exit %d, %d lines (want %d): %s"
             % (what, " ".join(moments_args(moments)), got[0], len(got[1].splitlines()),
                len(want.splitlines()), got[2].strip()[:300]))


def check_error(what, head, moments, bad):
    """a moment without an answer among the others: the exit status and
    error of the run of the first moment (in the order given) that has
    none, nothing on standard output"""
    global checks
    checks += 1
    got = run(*(head + moments_args(moments) + bad))
    for m in moments + [bad]:
        one = alone(head + m)
        if one[0] != 0:
            break
    if one[0] == 0 or got[0] != one[0] or got[1] != "" or got[2] != one[2] or \
            len(got[2].splitlines()) != 1:
        fail("%s: with %s: exit %d (alone %d), %d bytes out, stderr %r (alone %r)"
             % (what, " ".join(bad), got[0], one[0], len(got[1]), got[2][:200],
                one[2][:200]))


with tempfile.TemporaryDirectory() as tmp:
    for name, cpu, addr in (("quicksort.tarmac", None, "fff0"),
                            ("calculator-aarch64-gem5.tarmac", "cpu0", None)):
        src = os.path.join(corpus, name)
        if not os.path.exists(src):
            print("skip: %s missing" % name)
            continue
        path = os.path.join(tmp, name)
        shutil.copyfile(src, path)
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
        n = len(lines)
        stamps = [ln.split()[0] for ln in lines if ln[:1].isdigit()]
        t = stamps[len(stamps) // 2]
        span = str(max(256, os.path.getsize(path) // 40))
        co = ["--cpu", cpu] if cpu else []
        # mixed, out of order, one asked twice
        ms = [["--line", str(n * 3 // 4)], ["--instr", "3"], ["--time", t],
              ["--line", "1"], ["--line", str(n * 3 // 4)]]
        if cpu:
            ms = ms[:3]
        for idx in (["--index-span", span], ["--no-index"]):
            check(name, ["regs", path] + co + idx, ms, [])
            if not os.path.exists(path + ".tkidx"):
                fail("%s: no index beside the log" % name)
            if addr:
                check(name + " mem", ["mem", path, addr, "32"] + idx, ms[:3], [])
        if addr:
            idx = ["--index-span", span]
            check(name + " json", ["regs", path, "--format", "json"] + idx, ms[:2], [])
            check_error(name, ["regs", path] + idx, ms[:2], ["--line", str(n + 5)])
            check_error(name, ["regs", path, "--no-index"], ms[:2], ["--instr", "999999999"])
            check_error(name + " mem", ["mem", path, addr, "32"] + idx, ms[:2],
                        ["--line", str(n + 5)])
        if cpu:
            check_error(name, ["regs", path, "--no-index", "--cpu", "cpu9"], ms[:1], ms[1])
        if addr:
            # a damaged index: the answers of the moments as from the start
            ipath = path + ".tkidx"
            data = bytearray(open(ipath, "rb").read())
            for off in (len(data) // 4, 3 * len(data) // 4):
                data[off] ^= 0x20
            open(ipath, "wb").write(bytes(data))
            checks += 1
            got = run("regs", path, "--index-span", span, *moments_args(ms))
            want = run("regs", path, "--no-index", *moments_args(ms))
            if got[:2] != want[:2] or want[0] != 0:
                fail("%s: damaged index: exit %d (want %d), answers %s"
                     % (name, got[0], want[0], "equal" if got[1] == want[1] else "different"))
    # the heading and a second moment on a log of two CPUs (tests/cli)
    cpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli",
                        "tarmac_state_cpus.tarmac")
    check("two CPUs", ["regs", cpus, "--cpu", "cpu1"],
          [["--instr", "1"], ["--line", "6"], ["--time", "2"]], [])
    check_error("two CPUs", ["regs", cpus], [["--line", "1"]], ["--line", "4"])
    # several moments on standard input: refused (it is read once)
    checks += 1
    with open(cpus) as f:
        got = run("regs", "-", "--cpu", "cpu0", "--line", "1", "--line", "2", stdin=f)
    if got[0] != 2 or got[1] != "" or "several moments" not in got[2]:
        fail("standard input: exit %d, %r, %r" % got)

print("%d checks, %d failures" % (checks, len(fails)))
sys.exit(1 if fails else 0)
