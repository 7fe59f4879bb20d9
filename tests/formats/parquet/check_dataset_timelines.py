#!/usr/bin/env python3
"""check_dataset_timelines.py TRACEKIT ATF: `tracekit dataset` of an ATF
file of two TraceData whose time starts again, windows of the default
load window (10 ms) ending in the first: the input is added (it was
refused: 'load windows over several time lines'), load/ with no windows
and a warning that says why, every file byte for byte that of --window 0;
a --window given still refuses it, no file left."""
import os, sys, tempfile

from dscheck import TABLES, contents, fail, finish, runner

tk, atf = sys.argv[1], sys.argv[2]
run = runner(tk)


tmp = tempfile.mkdtemp()
ref, ds, given = (os.path.join(tmp, d) for d in ("ref", "ds", "given"))
p = run("dataset", "-q", "--window", "0", ref, atf)
if p.returncode:
    sys.exit("dataset --window 0: exit %d: %s" % (p.returncode, p.stderr))
want = contents(ref)
p = run("dataset", ds, atf)
warn = "%s:31: warning: load/ has no windows: TraceData 2 starts its time again" % atf
if p.returncode or p.stderr.count(warn) != 1:
    fail("the default window: exit %d: %s" % (p.returncode, p.stderr))
if os.path.isdir(ds) and contents(ds) != want:
    fail("the default window: files %s other than --window 0's %s"
         % (sorted(contents(ds)), sorted(want)))
p = run("dataset", "-q", "--window", "10ms", given, atf)
if p.returncode != 2 or "error: load windows over several time lines" not in p.stderr or \
        any(os.listdir(os.path.join(given, t)) for t in TABLES):
    fail("--window given: exit %d: %s" % (p.returncode, p.stderr))
finish()
