#!/usr/bin/env python3
"""check_dataset_resume.py TRACEKIT TRACE: an input whose add was killed
while it renamed its files into place (events/, instances/, metrics/ and
load/ there, traces/ last and not: what a SIGKILL between the renames
leaves, with the hidden temporary of traces/) is added again by
`tracekit dataset --append`: exit 0, a warning that names the leftover,
the files byte for byte those of a dataset made in one go; before, the
input was refused ("already in the dataset") on every run after.  An
input whose traces/ file is there is still skipped."""
import os, shutil, sys, tempfile

from dscheck import contents, fail, finish, runner

tk, trace = sys.argv[1], sys.argv[2]
run = runner(tk)


tmp = tempfile.mkdtemp()
ref, ds = os.path.join(tmp, "ref"), os.path.join(tmp, "ds")
p = run("dataset", "-q", ref, trace)
if p.returncode:
    sys.exit("dataset: exit %d: %s" % (p.returncode, p.stderr))
want = contents(ref, hidden=False)
shutil.copytree(ref, ds)
# the state of a kill between the renames: traces/' file not renamed yet
tr = [f for (t, f) in want if t == "traces"][0]
os.rename(os.path.join(ds, "traces", tr), os.path.join(ds, "traces", "." + tr + ".tmp-AbC123"))
p = run("dataset", "--append", ds, trace)
if p.returncode or p.stderr.count("warning: events/ has a file of this input but traces/ none") != 1:
    fail("an add killed while renaming: exit %d: %s" % (p.returncode, p.stderr))
if contents(ds, hidden=False) != want:
    fail("an add killed while renaming, added again: %s, want %s"
         % (sorted(contents(ds, hidden=False)), sorted(want)))
# complete now: skipped as any input already there
p = run("dataset", "--append", ds, trace)
if p.returncode or "skipped" not in p.stderr or contents(ds, hidden=False) != want:
    fail("added in full: exit %d: %s" % (p.returncode, p.stderr))
shutil.rmtree(tmp)
finish()
