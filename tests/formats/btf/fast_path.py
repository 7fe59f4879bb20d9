#!/usr/bin/env python3
"""The BTF reader's fast path (the usual data line) against its general
path: a generated trace whose lines are taken by either (names seen or
new, colliding in the reader's caches, of 1 to 17 bytes; instances of 0 to
10 digits, empty, negative; times of 1 to 19 digits; CRLF lines, notes,
long lines, unknown events, time going back), read as it is and with a
blank before every data line (lenient mode trims it: every line then goes
the general way), must give the same events, loads and statistics.
Usage: fast_path.py TRACEKIT"""
import os
import random
import subprocess
import sys
import tempfile


def trace(rng):
    out = ["#version 2.3.0", "#timescale ns"]
    cores = ["Core_%d" % i for i in range(4)]
    # names of every length 1..17, and many of them (cache collisions)
    tasks = ["T%d" % i for i in range(1500)]
    tasks += ["t" * n for n in range(1, 18)]
    tasks += ["Task_%011d" % i for i in range(40)]  # 16 bytes
    tasks += ["Task_%012d" % i for i in range(40)]  # 17 bytes
    stis = ["S%d" % i for i in range(30)] + ["StimulusNumber%03d" % i for i in range(5)]
    sigs = ["sig%d" % i for i in range(20)]
    inst = {}
    t = 0
    for i in range(60000):
        r = rng.random()
        if r < 0.02:
            t += rng.choice([0, 10 ** rng.randrange(1, 19)])
        elif r < 0.025 and t > 5:
            t -= 3  # time goes back: a warning
        else:
            t += rng.choice([0, 0, 1, 7, 1234, 99999])
        t = min(t, 10 ** 19 - 1)
        task = rng.choice(tasks)
        k = inst.get(task, rng.choice([0, 5, 12345, 99999999, 123456789, 9876543210]))
        inst[task] = k + 1
        kind = rng.random()
        def si():
            return rng.choice(["0", "1", "42", "99999999", "100000000", "", "-1"]) \
                if rng.random() < 0.05 else str(rng.randrange(0, 1000))
        if kind < 0.3:
            line = "%d,%s,%s,T,%s,%d,%s" % (t, rng.choice(cores), si(), task, k,
                                             rng.choice(["start", "preempt", "resume", "terminate"]))
        elif kind < 0.5:
            s = rng.choice(stis)
            line = "%d,%s,0,STI,%s,%d,trigger" % (t, s, s, k)
        elif kind < 0.65:
            line = "%d,%s,%s,T,%s,%d,activate" % (t, rng.choice(stis), si(), task, k)
        elif kind < 0.8:
            line = "%d,%s,%s,SIG,%s,0,%s,%s" % (t, task, si(), rng.choice(sigs),
                                                 rng.choice(["read", "write"]),
                                                 rng.choice(["1", "-2.5", "x y", "", "0x10,3"]))
        elif kind < 0.82:
            line = "%d,%s,%s,T,%s,%d,nosuchevent" % (t, rng.choice(cores), si(), task, k)
        elif kind < 0.84:
            line = "%d,%s,0,R,%s_runnable_with_a_long_name,%d,start" % (t, task, task, k)
        elif kind < 0.85:
            line = "#comment %d" % i
        else:
            line = "%d,%s,%s,R,R_%s,%s,%s" % (t, task, si(), task[:8], si() or "0",
                                               rng.choice(["start", "terminate"]))
        out.append(line + ("\r" if rng.random() < 0.03 else ""))
    return "\n".join(out) + "\n"


def run(cli, args):
    p = subprocess.run([cli] + args, capture_output=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace"))
        sys.exit("FAIL: %s exited %d" % (" ".join(args), p.returncode))
    return p.stdout


def main():
    cli = sys.argv[1]
    text = trace(random.Random(7))
    spaced = "\n".join(l if not l or l[0] == "#" else " " + l
                       for l in text.split("\n"))
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a.btf"), os.path.join(d, "b.btf")
        with open(a, "w", newline="") as f:
            f.write(text)
        with open(b, "w", newline="") as f:
            f.write(spaced)
        fail = 0
        for cmd in (["cat", "--no-header"], ["load", "-q"], ["stats", "-q"]):
            ga, gb = run(cli, cmd + [a]), run(cli, cmd + [b])
            if ga != gb or not ga:
                print("FAIL: %s differs (%d and %d bytes)" % (cmd[0], len(ga), len(gb)))
                fail = 1
        if not fail:
            print("ok: the same events, loads and statistics")
        sys.exit(fail)


main()
