#!/usr/bin/env python3
"""check_dataset_resume.py TRACEKIT TRACE: an input whose add was killed
while it renamed its files into place (events/, instances/, metrics/ and
load/ there, traces/ last and not: what a SIGKILL between the renames
leaves, with the hidden temporary of traces/) is added again by
`tracekit dataset --append`: exit 0, a warning that names the leftover,
the files byte for byte those of a dataset made in one go; before, the
input was refused ("already in the dataset") on every run after.  An
input whose traces/ file is there is still skipped."""
import os, shutil, subprocess, sys, tempfile

tk, trace = sys.argv[1], sys.argv[2]
TABLES = ("events", "instances", "metrics", "load", "traces")
failed = 0


def fail(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def run(*a):
    return subprocess.run([tk] + list(a), capture_output=True, text=True)


def contents(d):
    return {(t, f): open(os.path.join(d, t, f), "rb").read()
            for t in TABLES for f in os.listdir(os.path.join(d, t)) if not f.startswith(".")}


tmp = tempfile.mkdtemp()
ref, ds = os.path.join(tmp, "ref"), os.path.join(tmp, "ds")
p = run("dataset", "-q", ref, trace)
if p.returncode:
    sys.exit("dataset: exit %d: %s" % (p.returncode, p.stderr))
want = contents(ref)
shutil.copytree(ref, ds)
# the state of a kill between the renames: traces/' file not renamed yet
tr = [f for (t, f) in want if t == "traces"][0]
os.rename(os.path.join(ds, "traces", tr), os.path.join(ds, "traces", "." + tr + ".tmp-AbC123"))
p = run("dataset", "--append", ds, trace)
if p.returncode or p.stderr.count("warning: events/ has a file of this input but traces/ none") != 1:
    fail("an add killed while renaming: exit %d: %s" % (p.returncode, p.stderr))
if contents(ds) != want:
    fail("an add killed while renaming, added again: %s, want %s"
         % (sorted(contents(ds)), sorted(want)))
# complete now: skipped as any input already there
p = run("dataset", "--append", ds, trace)
if p.returncode or "skipped" not in p.stderr or contents(ds) != want:
    fail("added in full: exit %d: %s" % (p.returncode, p.stderr))
shutil.rmtree(tmp)
if failed:
    print("%d failures" % failed)
    sys.exit(1)
print("ok")
