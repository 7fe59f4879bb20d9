#!/usr/bin/env python3
"""check_dataset_jobs.py TRACEKIT TRACE...: `tracekit dataset -j N` (inputs
converted N at a time, tk_jobs_run()) makes what -j 1 makes: with -j 2 and
-j 4 the same files with the same bytes in every table (no file of a
dataset varies between runs), the same stderr (each input's messages in
the inputs' order) and the same exit status; a bad input (the TRACEs hold
one, put here among the good ones) has its one error line, no file and no
temporary in any table; -j 0 and -j x are usage errors that write
nothing."""
import os, subprocess, sys, tempfile

from dscheck import TABLES, fail, finish

tk, traces = sys.argv[1], sys.argv[2:]


def build(ds, jobs, inputs, *opts):
    p = subprocess.run([tk, "dataset"] + list(opts) + ["-j", str(jobs), ds] + inputs,
                       capture_output=True, text=True)
    got = {}
    for t in TABLES:
        d = os.path.join(ds, t)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            with open(os.path.join(d, f), "rb") as fp:
                got[os.path.join(t, f)] = fp.read()
    return p.returncode, p.stderr, got


tmp = tempfile.mkdtemp()
bad = [t for t in traces if "/fail/" in t]
good = [t for t in traces if "/fail/" not in t]
if len(bad) != 1 or len(good) < 4:
    raise SystemExit("usage: check_dataset_jobs.py TRACEKIT TRACE... (one of them under fail/)")
# the bad input second: its error comes between the first input's messages
# and the others', whichever thread ends first
inputs = good[:1] + bad + good[1:]
for opts in ((), ("-q",)):
    rc1, err1, ds1 = build(os.path.join(tmp, "j1" + "".join(opts)), 1, inputs, *opts)
    errs = [l for l in err1.splitlines() if ": error: " in l]
    if rc1 != 2 or len(errs) != 1 or not errs[0].startswith(bad[0] + ":"):
        fail("-j 1 %s: exit %d, errors %s" % (" ".join(opts), rc1, errs))
    if len(ds1) != 5 * len(good) or any(os.path.basename(k).startswith(
            os.path.basename(bad[0]).split(".")[0]) or not k.endswith(".parquet") for k in ds1):
        fail("-j 1: files %s" % sorted(ds1))
    for jobs in (2, 4):
        rc, err, ds = build(os.path.join(tmp, "j%d%s" % (jobs, "".join(opts))), jobs, inputs, *opts)
        if rc != rc1:
            fail("-j %d %s: exit %d, -j 1 %d" % (jobs, " ".join(opts), rc, rc1))
        if err != err1:
            fail("-j %d %s: stderr\n%s\n-j 1:\n%s" % (jobs, " ".join(opts), err, err1))
        if sorted(ds) != sorted(ds1):
            fail("-j %d: files %s, -j 1 %s" % (jobs, sorted(set(ds) ^ set(ds1)), ""))
        diff = [k for k in ds1 if k in ds and ds[k] != ds1[k]]
        if diff:
            fail("-j %d: bytes differ from -j 1 in %s" % (jobs, diff))
        print("-j %d %s: %d files as -j 1, exit %d, %d stderr lines"
              % (jobs, " ".join(opts), len(ds), rc, len(err.splitlines())))
# the content hashes, taken N at a time too: a missing input's error and
# the note on an input given twice come in the inputs' order, as with -j 1
missing = os.path.join(tmp, "no-such-trace.btf")
inputs = good[:2] + [missing, good[0]] + good[2:]
rc1, err1, ds1 = build(os.path.join(tmp, "h1"), 1, inputs)
lines = err1.splitlines()
at_missing = [i for i, l in enumerate(lines) if l.startswith(missing + ":") and ": error: " in l]
at_twice = [i for i, l in enumerate(lines) if "skipped" in l and "this run" in l]
if rc1 != 2 or len(at_missing) != 1 or len(at_twice) != 1 or at_missing[0] > at_twice[0] \
        or len(ds1) != 5 * len(good):
    fail("hashes, -j 1: exit %d, files %d, stderr\n%s" % (rc1, len(ds1), err1))
for jobs in (2, 4):
    rc, err, ds = build(os.path.join(tmp, "h%d" % jobs), jobs, inputs)
    if rc != rc1 or err != err1 or ds != ds1:
        fail("hashes, -j %d: exit %d, %d files, stderr\n%s\n-j 1:\n%s"
             % (jobs, rc, len(ds), err, err1))
    print("-j %d: a missing input and one given twice as -j 1" % jobs)
# a usage error writes nothing
for j in ("0", "x", "257", "-1"):
    ds = os.path.join(tmp, "bad_j" + j)
    p = subprocess.run([tk, "dataset", "-j", j, ds] + good[:1], capture_output=True, text=True)
    if p.returncode != 2 or "-j" not in p.stderr or os.path.exists(ds):
        fail("-j %s: exit %d: %s" % (j, p.returncode, p.stderr))
finish()
