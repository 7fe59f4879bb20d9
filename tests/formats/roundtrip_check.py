#!/usr/bin/env python3
"""What passes `check` still passes it after a conversion (issue 37, 7).

usage: roundtrip_check.py TRACEKIT CORPUS_BTF_DIR TESTS_FORMATS_DIR

Every BTF of the corpus and of tests/formats/btf/ok/ that `tracekit check`
accepts (with its .args) is converted to HTF and to ATF, and each of those
back to BTF: `check` must accept all four.  What a writer drops (ATF has
no WAITING, POLLING or PARKING state) it drops consistently: a wait that
ATF writes as a preempt leaves no resume in state RUNNING behind it.
Every task and ISR terminates as many times (ATF: a task that runs on
another core while another task holds its Resource, in
btf/ok/migration_held.btf, is written as an element of the same name in
that core's Resource; its run and terminate were dropped).

That is the whole test under `make test-full` (TK_TEST_FULL=1); `make test`
converts each corpus trace to one of HTF and ATF, in turn (the first to
both), and every input of tests/formats/btf/ok/ to both.
"""
import os
import subprocess
import sys
import tempfile

cli, corpus, tests = sys.argv[1:4]
FULL = os.environ.get("TK_TEST_FULL") == "1"
FORMATS = ("htf", "atf")
failures = []


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def terminates(path):
    """the entity of every T and I terminate (cores are renamed and
    instances renumbered by the formats)"""
    rc, msg = run([cli, "cat", "-q", path])
    out = []
    for line in msg.splitlines():
        f = line.split(",")
        if len(f) >= 7 and f[3] in ("T", "I") and f[6] == "terminate":
            out.append((f[3], f[4]))
    return sorted(out)


def inputs():
    for top in (corpus, os.path.join(tests, "btf", "ok")):
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".btf"):
                    yield os.path.join(d, f)


n = 0
with tempfile.TemporaryDirectory() as tmp:
    for src in inputs():
        args = []
        if os.path.exists(src[:-4] + ".args"):
            args = open(src[:-4] + ".args").read().split()
        if run([cli, "check", "-q", *args, src])[0] != 0:
            continue
        n += 1
        base = os.path.basename(src)[:-4]
        want = terminates(src)
        sampled = not FULL and n > 1 and not src.startswith(tests)
        for fmt in (FORMATS[n % 2:][:1] if sampled else FORMATS):
            out = os.path.join(tmp, base + "." + fmt)
            back = os.path.join(tmp, base + "." + fmt + ".btf")
            rc, msg = run([cli, "convert", "-q", src, out])
            if rc != 0:
                failures.append("%s -> %s: convert: %s" % (src, fmt, msg.strip()))
                continue
            rc, msg = run([cli, "check", "-q", out])
            if rc != 0:
                failures.append("%s -> %s: check: %s" % (src, fmt, msg.strip()))
            rc, msg = run([cli, "convert", "-q", out, back])
            if rc != 0:
                failures.append("%s -> %s -> btf: convert: %s" % (src, fmt, msg.strip()))
                continue
            rc, msg = run([cli, "check", "-q", back])
            if rc != 0:
                failures.append("%s -> %s -> btf: check: %s" % (src, fmt, msg.strip()))
            got = terminates(out)
            if want != got:
                failures.append("%s -> %s: terminates differ: %s" % (
                    src, fmt, sorted(set(want) ^ set(got))[:5]))
for f in failures:
    print("FAIL:", f)
print("%d inputs that pass check, %d failures%s" % (n, len(failures), "" if FULL else
      " (each corpus trace converted to one of HTF and ATF; TK_TEST_FULL=1 for both)"))
sys.exit(1 if failures or n < 10 else 0)
