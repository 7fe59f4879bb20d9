#!/usr/bin/env python3
"""Every input x every trace writer (a format both read and written, as
`tracekit formats --format csv` lists them: BTF, HTF, ATF): the output of
`tracekit convert` must read back under `tracekit info --strict`, a
conversion whose event count changes must say so in a writer warning,
a conversion with writer warnings must be refused by `convert --strict`
(exit 2, no file), and the writer warnings and refusals (OUT for the
output's name) must equal the expectations, which list every refusal and
every change: tests/formats/<fmt>/conformance.txt of the writer's format,
or of the format whose test input (tests/formats/<fmt>/ok/) is converted
where that format comes after the writer in the registry.  So a format
added (last in the registry) keeps every line that concerns it in its own
folder.  --update rewrites them from what the writers said.

usage: matrix.py TRACEKIT CORPUS_DIR TESTS_FORMATS_DIR [--update]
Inputs: every file of the corpus that tracekit reads, and every
tests/formats/*/ok/ input; files over MAX_BYTES are skipped (listed).
That is the whole matrix, run by `make test-full` (TK_TEST_FULL=1).  `make
test` samples it: each input through one writer, the writers in turn (so
that each writer converts inputs of every format), against the lines of
the expectations that concern the conversions made; --update needs the
whole matrix.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

MAX_BYTES = 4 << 20   # keeps the matrix well under a minute on 2 cores
# from the registry (main()): the formats both read and written, and the
# extensions of the formats read
WRITERS = ()
READ_EXT = set()


def registry(cli):
    """The formats of `tracekit formats --format csv`, as dicts."""
    import csv
    import io
    out = subprocess.run([cli, "formats", "--format", "csv"], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return list(csv.DictReader(io.StringIO(out)))


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def inputs(corpus, tests):
    found, skipped = [], []
    for root, label in ((corpus, "corpus"), (tests, "tests")):
        for d, dirs, files in os.walk(root):
            dirs.sort()
            if label == "tests" and os.path.basename(d) not in ("ok", "inputs"):
                continue
            for f in sorted(files):
                ext = f.rsplit(".", 1)[-1]
                if ext not in READ_EXT:
                    continue
                path = os.path.join(d, f)
                rel = label + "/" + os.path.relpath(path, root)
                if os.path.getsize(path) > MAX_BYTES:
                    skipped.append(rel)
                else:
                    found.append((rel, path))
    return found, skipped


def events(cli, path):
    rc, out, err = run([cli, "info", "--format", "json", "--strict", path])
    if rc != 0:
        return None, err.strip().splitlines()[:1]
    return json.loads(out)["events"], []


def changes(warns):
    """The constructs a writer's warnings count: the leading number of each
    '; '-separated part after 'cannot hold everything:'."""
    n = 0
    for w in warns:
        for part in w.split("everything:", 1)[-1].split(";"):
            word = part.split()[0] if part.split() else ""
            n += int(word) if word.isdigit() else 0
    return n


def owner(rel, writer, order):
    """The format whose folder keeps the expectation of converting rel by
    writer: the writer's, or that of the format rel is a test input of
    (tests/<fmt>/...) when it comes after the writer in the registry."""
    parts = rel.split("/")
    if parts[0] == "tests" and order.get(parts[1], -1) > order[writer]:
        return parts[1]
    return writer


def cell(cli, rel, path, writer, tmp):
    """One conversion: (summary line, [writer warnings], [failures])."""
    base = os.path.join(tmp, rel.replace("/", "_") + "." + writer)
    out = base + ".out." + writer
    fails = []
    rc, _, err = run([cli, "convert", path, out])
    # the writer's warnings are those about OUT (no line: the whole file)
    warns = [l[len(out) + 11:] for l in err.splitlines()
             if l.startswith(out + ": warning: ")]
    if rc != 0:
        msg = err.strip().splitlines()[-1] if err.strip() else "exit %d" % rc
        if os.path.exists(out):
            fails.append("refused, but %s exists" % out)
        return "refused", [msg.replace(out, "OUT").replace(path, "IN")], fails
    # the input's events: canonical BTF lines of `cat` (a Tarmac log's cat
    # prints its records, not its events: no count for it)
    nin = None
    if not path.endswith(".tarmac"):
        rc_in, cat, _ = run([cli, "cat", "-q", "--no-header", path])
        nin = cat.count("\n") if rc_in == 0 else None
    nout, e = events(cli, out)
    if nout is None:
        fails.append("info --strict refuses the output: %s"
                     % (e[0].replace(out, "OUT") if e else "?"))
    elif nin is not None and nin != nout and not warns:
        fails.append("%s events in, %s out, and no warning says why" % (nin, nout))
    if warns:
        sout = base + ".strict." + writer
        rc2, _, err2 = run([cli, "convert", "--strict", path, sout])
        if rc2 != 2 or os.path.exists(sout):
            fails.append("convert --strict gave exit %d (expected 2, no file)" % rc2)
    os.unlink(out)
    status = "ok" if not warns else "%d changes" % changes(warns)
    return status, warns, fails


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cli, corpus, tests = sys.argv[1:4]
    update = "--update" in sys.argv[4:]
    global WRITERS, READ_EXT
    formats = registry(cli)
    order = {f["format"]: i for i, f in enumerate(formats)}
    WRITERS = tuple(f["format"] for f in formats if f["read"] == f["write"] == "yes")
    READ_EXT = {e for f in formats if f["read"] == "yes" for e in f["extensions"].split()}
    full = os.environ.get("TK_TEST_FULL") == "1"
    if update and not full:
        sys.exit("matrix.py: --update needs the whole matrix (TK_TEST_FULL=1)")
    found, skipped = inputs(corpus, tests)
    jobs = [(rel, path, w) for i, (rel, path) in enumerate(found)
            for w in (WRITERS if full else WRITERS[i % len(WRITERS):][:1])]
    made = {(rel, w) for rel, _, w in jobs}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(2) as ex:
        res = list(ex.map(lambda j: cell(cli, j[0], j[1], j[2], tmp), jobs))
    report, failures = {}, []
    table = {}
    for (rel, _, w), (status, warns, fails) in zip(jobs, res):
        table.setdefault(rel, {})[w] = status
        for m in warns:
            report.setdefault(owner(rel, w, order), []).append(
                "%s -> %s: %s: %s" % (rel, w, "refused" if status == "refused" else "warning", m))
        failures += ["%s -> %s: %s" % (rel, w, f) for f in fails]
    width = max(len(r) for r in table)
    print("%-*s  " % (width, "input") + " ".join("%-13s" % w for w in WRITERS))
    for rel in table:
        print("%-*s  " % (width, rel) + " ".join("%-13s" % table[rel].get(w, "-")
                                                 for w in WRITERS))
    for s in skipped:
        print("skipped (over %d bytes): %s" % (MAX_BYTES, s))
    for fmt in order:
        exp_path = os.path.join(tests, fmt, "conformance.txt")
        got = "".join(l + "\n" for l in report.get(fmt, []))
        if update:
            if got:
                with open(exp_path, "w") as f:
                    f.write(got)
            elif os.path.exists(exp_path):
                os.unlink(exp_path)
        exp = ""
        if os.path.exists(exp_path):
            with open(exp_path) as f:
                exp = f.read()
        if not full:
            # the expectations of the conversions made
            exp = "".join(l for l in exp.splitlines(True)
                          if tuple(l.split(": ", 1)[0].split(" -> ", 1)) in made)
        if got != exp:
            import difflib
            name = "%s/conformance.txt" % fmt
            failures.append("the writers' warnings and refusals differ from %s:\n" % name +
                            "".join(difflib.unified_diff(exp.splitlines(True), got.splitlines(True),
                                                         name, "got")))
    for f in failures:
        print("FAIL: " + f)
    n = {"ok": 0, "refused": 0}
    for rel in table:
        for w in table[rel]:
            s = table[rel][w]
            n["ok" if s == "ok" else "refused" if s == "refused" else "changed"] = \
                n.get("ok" if s == "ok" else "refused" if s == "refused" else "changed", 0) + 1
    print("%d conversions: %d ok, %d with counted changes, %d refused; %d failures%s"
          % (len(jobs), n["ok"], n.get("changed", 0), n["refused"], len(failures),
             "" if full else " (sampled: one writer per input; TK_TEST_FULL=1 for all)"))
    sys.exit(1 if failures else 0)


main()
