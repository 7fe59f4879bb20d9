#!/usr/bin/env python3
"""check_dataset.py TRACEKIT SRCDIR NPMDIR TRACE... NEW BAD: `tracekit
dataset` of the TRACEs, read back by DuckDB (@duckdb/node-api), hyparquet
and parquet-wasm (installed from npm into NPMDIR by install_readers.sh):

- every table has one file per input, and the three readers read the same
  rows from every file;
- events/ holds the bytes `tracekit convert T out.parquet` writes;
- metrics/ holds the rows of `stats --format csv` (numbers as numbers);
- DuckDB's max(rt_ns) per entity over instances/ is stats' max RT;
- load/'s whole-trace rows are `tracekit load`'s per-core busy times;
- traces/ has the SHA-256 of each input, its number of events, of rows
  in instances/, and the numbers of entities and cores `info` gives;
- --append with a TRACE again and NEW adds NEW's files only and rewrites
  nothing, the repeated one skipped with a note;
- BAD (a trace with an error) among good ones: its one-line error, exit 2,
  no file of it (nor a temporary) in any table, the good one added;
- --id names the trace column and the files; without --append a dataset
  is not written into; with it, a folder that holds other things than a
  dataset is not either;
- a file name and header key not UTF-8 and an --id of 300 bytes: UTF-8
  (U+FFFD) in every reader, the id whole, its metrics/ in its cycles
  (clk, as stats gives them), no file name that
  Spark skips (a first '.' or '_'), --strict refusing the name; two inputs
  of one trace id, or an input of the id of a trace in the dataset: a
  warning; an input through a pipe: refused.
Exit 77 when the readers cannot
be installed.  node starts four times in all: DuckDB runs every query of
the dataset as first written in one process (query_duckdb.mjs --each)
and once more for --id, hyparquet and parquet-wasm read the files of
every table in one process each."""
import csv, hashlib, io, json, os, subprocess, sys, tempfile
from fractions import Fraction

from dscheck import TABLES, fail, finish, runner

tk, src, npm = sys.argv[1], sys.argv[2], sys.argv[3]
args = sys.argv[4:]
traces, new, bad = args[:-2], args[-2], args[-1]
here = os.path.join(src, "tests", "formats", "parquet")
rc = subprocess.run(["sh", os.path.join(here, "install_readers.sh"), npm]).returncode
if rc == 77:
    print("skipped: the npm readers are not available")
    sys.exit(77)
if rc:
    sys.exit(rc)
env = dict(os.environ, NODE_PATH=os.path.join(npm, "node_modules"))
for s in ("query_duckdb.mjs", "read_files.mjs"):
    with open(os.path.join(here, s)) as f, open(os.path.join(npm, s), "w") as g:
        g.write(f.read())  # beside node_modules, where import finds them


def node(script, *a):
    # V8 runs with --single-threaded: its concurrent optimising compiler
    # could wait for a garbage collection that the main thread, draining
    # the compiler's tasks at exit, never ran (gdb: CollectionBarrier::
    # AwaitCollectionBackground against NodePlatform::DrainTasks; node
    # asleep on futexes with no CPU), most often in parquet-wasm's reading
    # of metrics/ on a loaded machine.  A hang is still retried once, and
    # said with the reader and files.
    for attempt in (1, 2):
        try:
            p = subprocess.run(["node", "--single-threaded", os.path.join(npm, script)] + list(a), env=env,
                               capture_output=True, text=True, timeout=300)
            break
        except subprocess.TimeoutExpired:
            print("node %s %s hung (attempt %d)" % (script, " ".join(a)[:300], attempt))
            if attempt == 2:
                raise SystemExit("node %s hung twice" % script)
    if p.returncode:
        print(p.stderr)
        raise SystemExit("%s failed" % script)
    return [json.loads(l) for l in p.stdout.splitlines()]


def duck(sql):
    return node("query_duckdb.mjs", sql)


def duck_each(queries):
    # {key: its rows} of {key: SQL}, the queries run in one node process
    keys = list(queries)
    res = node("query_duckdb.mjs", "--each", *[queries[k] for k in keys])
    if len(res) != len(keys):
        raise SystemExit("query_duckdb.mjs: %d results of %d queries" % (len(res), len(keys)))
    return dict(zip(keys, res))


run = runner(tk)


def stem(path):
    b = os.path.basename(path)
    return b.split(".")[0] if not b.startswith(".") else b


def files(d):
    return {t: sorted(os.listdir(os.path.join(d, t))) for t in TABLES}


tmp = tempfile.mkdtemp()
ds = os.path.join(tmp, "ds")
p = run("dataset", ds, *traces)
if p.returncode:
    fail("dataset: exit %d: %s" % (p.returncode, p.stderr))
fs = files(ds)
for t in TABLES:
    if [f.rsplit("-", 1)[0] for f in fs[t]] != sorted(stem(x) for x in traces):
        fail("%s/ has %s" % (t, fs[t]))

# a file name and a header key not UTF-8 (Latin-1 bytes), ticks that are
# cycles (clk) and an --id of 300 bytes (UTF-8): the trace column,
# traces/' header and time base read as UTF-8 by the three readers below
# (U+FFFD for a bad byte), the id whole, metrics/' unit clk;
# --strict refuses the name (its error names the input, the byte escaped)
# and leaves no file
odd = os.fsdecode(os.path.join(os.fsencode(tmp), b"caf\xe9.btf"))
LONG_ID = "\u00e9" * 150
with open(odd, "wb") as g:
    g.write(b"#version 2.3.0\n#timescale ns\n#cr\xe9ationDate 2026-12-01\n"
            b"#tarmacTimeUnit clk\n"
            b"0,Core_1,0,T,Task_odd,0,start\n5,Core_1,0,T,Task_odd,0,terminate\n")
p = run("dataset", "-q", "--append", "--strict", ds, odd)
# the message names it as text output writes names (docs/analysis.md,
# "Text in tables and messages"): the stray byte as \xe9
if p.returncode != 2 or not p.stderr.startswith(os.path.join(tmp, "caf\\xe9.btf:")) or \
        files(ds) != fs:
    fail("--strict of a name not UTF-8: exit %d: %s" % (p.returncode, p.stderr))
p = run("dataset", "-q", "--append", ds, odd)
long_in = os.path.join(tmp, "long.btf")
with open(odd, "rb") as f, open(long_in, "wb") as g:
    g.write(f.read() + b"\n")
q = run("dataset", "-q", "--append", "--id", LONG_ID, ds, long_in)
fs = files(ds)
if p.returncode or q.returncode or len(fs["traces"]) != len(traces) + 2:
    fail("names not UTF-8: exit %d, %d: %s %s" % (p.returncode, q.returncode, p.stderr, q.stderr))
# (the --id's files are named t___...: Spark and Hadoop skip a name
# starting with '_' or '.')
hidden = [f for t in TABLES for f in fs[t] if f[0] in "._"]
if hidden or [f for f in fs["traces"] if f.startswith("t" + "_" * 200 + "-")] == []:
    fail("files Spark skips: %s" % hidden)

# two inputs of one trace id (a/t.btf, b/t.btf): both added, a warning
ab = [os.path.join(tmp, d, "t.btf") for d in ("a", "b")]
for k, f in enumerate(ab):
    os.makedirs(os.path.dirname(f))
    with open(odd, "rb") as g, open(f, "wb") as h:
        h.write(g.read() + b"\n" * (k + 3))
p = run("dataset", os.path.join(tmp, "ds_ab"), *ab)
if p.returncode or p.stderr.count("warning: %s: its trace id 't' is that of %s" % (ab[1], ab[0])) != 1 or \
   len(os.listdir(os.path.join(tmp, "ds_ab", "traces"))) != 2:
    fail("one trace id twice: exit %d: %s" % (p.returncode, p.stderr))

# a process allocated on a core another process held: load/ has load's
# figures, and the dataset warns as `tracekit load` does
p = run("dataset", os.path.join(tmp, "ds_busy"),
        os.path.join(src, "tests", "analysis", "broken", "core_busy.btf"))
if p.returncode or "allocated a core another process held" not in p.stderr:
    fail("core-busy: exit %d: %s" % (p.returncode, p.stderr))

# an input through a pipe (read twice: once hashed it would have no
# events, yet keep its content's hash): refused, no file, exit 2
p = subprocess.run([tk, "dataset", "-q", "--append", "--from", "btf", ds, "/dev/stdin"],
                   input=open(odd, "rb").read() + b"\n\n", capture_output=True)
if p.returncode != 2 or b"not a regular file" not in p.stderr or files(ds) != fs:
    fail("a pipe: exit %d: %s" % (p.returncode, p.stderr))

# the DuckDB queries of docs/fleet.md run as written (on runs/: here ds/);
# the first, the worst RT per task across runs, gives stats' worst
with open(os.path.join(src, "docs", "fleet.md")) as f:
    doc = f.read()
duckq = [b.split("```")[0] for b in doc.split("```sql\n")[1:] if b.startswith("-- DuckDB")]
if len(duckq) < 3:
    fail("docs/fleet.md: %d DuckDB queries" % len(duckq))

# every DuckDB query of the dataset as first written, in one node process
Q = {}
for t in TABLES:
    Q["table", t] = "SELECT * FROM read_parquet('%s/%s/*.parquet', filename=true)" % (ds, t)
events_of = {}  # trace -> its file in events/
for tr in traces:
    name = stem(tr)
    Q["metrics", tr] = ("SELECT * FROM read_parquet('%s/metrics/*.parquet') WHERE trace = '%s'"
                        % (ds, name))
    Q["rt", tr] = ("SELECT entity, type, max(rt_ns) AS m FROM read_parquet('%s/instances/*.parquet') "
                   "WHERE trace = '%s' GROUP BY entity, type HAVING m IS NOT NULL" % (ds, name))
    Q["load", tr] = ("SELECT core, busy_ns FROM read_parquet('%s/load/*.parquet') "
                     "WHERE trace = '%s' AND kind = 'trace'" % (ds, name))
    ev = [x for x in fs["events"] if x.rsplit("-", 1)[0] == name]
    if not ev:
        fail("%s: no file in events/" % tr)
        continue
    events_of[tr] = ev[0]
    Q["traces", tr] = ("SELECT t.sha256, t.events, t.entities, t.cores, t.instances, "
                       "(SELECT count(*) FROM read_parquet('%s/events/%s')) AS n, "
                       "(SELECT count(*) FROM read_parquet('%s/instances/*.parquet') i "
                       "WHERE i.trace = t.trace) AS ni "
                       "FROM read_parquet('%s/traces/*.parquet') t WHERE trace = '%s'" % (ds, ev[0], ds, ds, name))
for i, q in enumerate(duckq):
    Q["fleet", i] = q.replace("'runs/", "'%s/" % ds)
R = duck_each(Q)

# the three readers: the same rows from every file (hyparquet and
# parquet-wasm read the files of every table in one node process each)
table_of = lambda path: os.path.basename(os.path.dirname(path))
paths = [os.path.join(ds, t, f) for t in TABLES for f in fs[t]]
got_by = {}  # reader -> table -> file -> its rows
for reader in ("hyparquet", "parquet-wasm"):
    got_by[reader] = {t: {} for t in TABLES}
    for r in node("read_files.mjs", reader, *paths):
        got_by[reader][table_of(r["file"])].setdefault(os.path.basename(r["file"]), []).append(
            json.dumps(r["row"], sort_keys=True))
for t in TABLES:
    ref = {}
    for r in R["table", t]:
        f = r.pop("filename")
        ref.setdefault(os.path.basename(f), []).append(json.dumps(r, sort_keys=True))
    if sorted(ref) != fs[t]:
        fail("duckdb read %s of %s/" % (sorted(ref), t))
    for reader in ("hyparquet", "parquet-wasm"):
        got = got_by[reader][t]
        for f in fs[t]:
            if sorted(got.get(f, [])) != sorted(ref.get(f, [])):
                a, b = sorted(got.get(f, [])), sorted(ref.get(f, []))
                diff = [(x, y) for x, y in zip(a, b) if x != y][:2]
                fail("%s: %s/%s: %d rows, duckdb %d: %s" % (reader, t, f, len(a), len(b), diff))
    print("read %s/: %d files, %d rows, by duckdb, hyparquet, parquet-wasm"
          % (t, len(fs[t]), sum(len(v) for v in ref.values())))

# (DuckDB read them all: the names not UTF-8 are U+FFFD, the id whole)
unit = "clk"
hdr = ("#version 2.3.0\n#timescale ns\n#cr\ufffdationDate 2026-12-01\n"
       "#tarmacTimeUnit " + unit + "\n", "1/1 " + unit)
want = {"caf\ufffd": hdr, LONG_ID: hdr}
got = {r["trace"]: (r["header"], r["timebase"]) for r in R["table", "traces"] if r["trace"] in want}
if got != want:
    fail("names not UTF-8: traces/ has %r" % got)
# metrics/ of a trace in cycles: its unit, as stats says (it said ns)
units = {r["unit"] for r in R["table", "metrics"] if r["trace"] in want and r["metric"] != "NPRE"}
if units != {"clk"}:
    fail("a trace in cycles: metrics/ units %r, stats clk" % units)

worst = {}  # the worst RT of each task over the traces, by stats
for tr in traces:
    name = stem(tr)
    f = events_of.get(tr)
    # events/: convert's bytes
    one = os.path.join(tmp, name + ".parquet")
    run("convert", "-q", tr, one)
    if f is None or open(one, "rb").read() != open(os.path.join(ds, "events", f), "rb").read():
        fail("%s: events/%s is not convert's Parquet" % (tr, f))
    # metrics/: stats --format csv
    st = list(csv.DictReader(io.StringIO(run("stats", "-q", "--format", "csv", tr).stdout)))
    mt = R["metrics", tr]
    key = lambda r: (r["entity"], r["type"], r["metric"])
    st_by = {key(r): r for r in st}
    mt_by = {key(r): r for r in mt}
    if sorted(st_by) != sorted(mt_by) or len(mt) != len(st):
        fail("%s: metrics/ rows %s, stats %s" % (tr, sorted(mt_by)[:3], sorted(st_by)[:3]))
    for k, s in st_by.items():
        m = mt_by.get(k)
        if not m:
            continue
        for col in ("min", "avg", "max", "max_at"):
            want = float(s[col]) if s[col] else None
            if m[col] != want:
                fail("%s: metrics/ %s %s = %r, stats %r" % (tr, k, col, m[col], s[col]))
        if m["count"] != s["count"] or m["unit"] != s["unit"] or \
           (m["max_instance"] or "") != s["max_instance"]:
            fail("%s: metrics/ %s: %r, stats %r" % (tr, k, m, s))
    # instances/: max(rt_ns) per entity is stats' max RT
    rt = {(r["entity"], r["type"]): r["m"] for r in R["rt", tr]}
    want = {(r["entity"], r["type"]): r["max"] for r in st if r["metric"] == "RT"}
    for (e, ty), v in want.items():
        if ty == "T":
            worst[e] = max(worst.get(e, float(v)), float(v))
    if {k: float(v) for k, v in want.items()} != rt:
        fail("%s: max(rt_ns) %s, stats %s" % (tr, rt, want))
    else:
        print("%s: max(rt_ns) of %d entities = stats" % (name, len(rt)))
    # load/: the whole trace's busy time per core
    ld = list(csv.DictReader(io.StringIO(run("load", "-q", "--format", "csv", tr).stdout)))
    want = {r["core"]: float(r["busy"]) for r in ld if r["kind"] == "core"}
    got = {r["core"]: r["busy_ns"] for r in R["load", tr]}
    if got != want:
        fail("%s: load/ %s, load %s" % (tr, got, want))
    # traces/: the content hash, the events
    r = R.get(("traces", tr), [])
    sha = hashlib.sha256(open(tr, "rb").read()).hexdigest()
    if len(r) != 1 or r[0]["sha256"] != sha or r[0]["events"] != r[0]["n"] or \
       r[0]["instances"] != r[0]["ni"]:
        fail("%s: traces/ %s, sha256 %s" % (tr, r, sha))
    # traces/: the counts of entities and cores `info` gives
    info = json.loads(run("info", "-q", "--format", "json", tr).stdout)
    if r and (r[0]["entities"], r[0]["cores"]) != (str(info["entities"]), str(len(info["cores"]))):
        fail("%s: traces/ entities %s cores %s, info %s %s" % (tr, r[0]["entities"], r[0]["cores"],
                                                            info["entities"], info["cores"]))

# docs/fleet.md's queries (run above with the others)
for i in range(len(duckq)):
    rows = R["fleet", i]
    if not rows:
        fail("docs/fleet.md query %d: no rows" % (i + 1))
    if i == 0:
        got = {r["entity"]: r["worst_rt_ns"] for r in rows}
        if got != worst:
            fail("docs/fleet.md worst RT: %s, stats %s" % (got, worst))
    print("docs/fleet.md query %d: %d rows" % (i + 1, len(rows)))

# --append: the new input added, the repeated one skipped, nothing rewritten
before = {os.path.join(t, f): (os.stat(os.path.join(ds, t, f)).st_mtime_ns,
                               open(os.path.join(ds, t, f), "rb").read())
          for t in TABLES for f in fs[t]}
p = run("dataset", "--append", ds, traces[0], new)
after = files(ds)
added = sorted(os.path.join(t, f) for t in TABLES for f in after[t]
               if os.path.join(t, f) not in before)
if p.returncode or "skipped" not in p.stderr or traces[0] not in p.stderr:
    fail("--append: exit %d: %s" % (p.returncode, p.stderr))
if [a.split("/")[1].rsplit("-", 1)[0] for a in added] != [stem(new)] * 5:
    fail("--append added %s" % added)
for k, (mt, b) in before.items():
    if os.stat(os.path.join(ds, k)).st_mtime_ns != mt or open(os.path.join(ds, k), "rb").read() != b:
        fail("--append rewrote %s" % k)
print("--append: added %d files, skipped %s" % (len(added), stem(traces[0])))
# another night's trace of the same file name (other content): added, with
# a warning that its trace id is in the dataset already (their rows would
# share it; the warning compared the inputs of one run only)
night = os.path.join(tmp, "night2")
os.mkdir(night)
again = os.path.join(night, os.path.basename(traces[0]))
with open(traces[0], "rb") as f, open(again, "wb") as g:
    g.write(f.read() + b"\n\n\n")
p = run("dataset", "--append", ds, again)
if p.returncode or "its trace id '%s' is in %s already" % (stem(traces[0]), ds) not in p.stderr:
    fail("the same trace id in the dataset: exit %d: %s" % (p.returncode, p.stderr))

# a bad input: its error, exit 2, no file of it; the good one added
good = os.path.join(tmp, "good.btf")
with open(traces[0], "rb") as f, open(good, "wb") as g:
    g.write(f.read() + b"\n")  # other bytes: another content hash
p = run("dataset", "--append", "-q", ds, bad, good)
errs = [l for l in p.stderr.splitlines() if "error" in l]
left = [os.path.join(t, f) for t in TABLES for f in os.listdir(os.path.join(ds, t))
        if f.startswith(stem(bad)) or not f.endswith(".parquet")]
if p.returncode != 2 or len(errs) != 1 or not errs[0].startswith(bad + ":") or left:
    fail("bad input: exit %d, %s left: %s" % (p.returncode, left, p.stderr))
if sum(f.startswith("good-") for t in TABLES for f in os.listdir(os.path.join(ds, t))) != 5:
    fail("bad input: the good one was not added")
print("bad input: %s" % errs[0] if errs else "")

# --id: the trace column and the files' names
# an input in the dataset: --id does not make it new
p = run("dataset", "--append", "--id", "night42", ds, traces[-1])
if p.returncode or "skipped" not in p.stderr:
    fail("--id of a known input: exit %d: %s" % (p.returncode, p.stderr))
other = os.path.join(tmp, "other.btf")
with open(traces[0], "rb") as f, open(other, "wb") as g:
    g.write(f.read() + b"\n\n")
p = run("dataset", "-q", "--append", "--id", "night42", ds, other)
ids = duck("SELECT DISTINCT trace FROM read_parquet('%s/*/night42-*.parquet', union_by_name=true) "
           "WHERE trace IS NOT NULL" % ds)  # events/ has no trace column
n = sum(f.startswith("night42-") for t in TABLES for f in os.listdir(os.path.join(ds, t)))
if p.returncode or ids != [{"trace": "night42"}] or n != 5:
    fail("--id: exit %d, %s, %d files: %s" % (p.returncode, ids, n, p.stderr))
p = run("dataset", "--id", "x", ds, other, new)
if p.returncode != 2 or "--id" not in p.stderr:
    fail("--id with two inputs: exit %d: %s" % (p.returncode, p.stderr))
# --append into a folder that holds other things, not a dataset: refused,
# the folder left as it was (no table folders made in it)
notds = os.path.join(tmp, "notds")
os.mkdir(notds)
open(os.path.join(notds, "notes.txt"), "w").close()
p = run("dataset", "-q", "--append", notds, new)
if p.returncode != 2 or "not a dataset" not in p.stderr or os.listdir(notds) != ["notes.txt"]:
    fail("--append into a folder that is no dataset: exit %d, %s: %s"
         % (p.returncode, os.listdir(notds), p.stderr))
# without --append: a dataset is not written into
n0 = files(ds)
p = run("dataset", ds, new)
if p.returncode != 2 or "--append" not in p.stderr or files(ds) != n0:
    fail("no --append: exit %d: %s" % (p.returncode, p.stderr))

# an ATF file of two TraceData (no load windows over them): instances/ has
# a row per instance of each time line, numbered from 0 in each as
# `cat --trace N` gives them, none made of the events of two
tl = os.path.join(tmp, "ds_tl")
p = run("dataset", "-q", "--window", "0", tl,
        os.path.join(src, "tests", "cli", "atf_timelines.atf"))
if p.returncode:
    fail("two time lines: exit %d: %s" % (p.returncode, p.stderr))
else:
    rows = duck("SELECT entity, instance, activate_ns, start_ns, end_ns FROM "
                "read_parquet('%s/instances/*.parquet')" % tl)
    got = sorted((r["entity"], int(r["instance"]),
                  *[-1 if r[c] is None else float(r[c])
                    for c in ("activate_ns", "start_ns", "end_ns")]) for r in rows)
    want = [("TaskA", 0, -1, 2000, 8000), ("TaskA", 0, 5000, 10000, 20000),
            ("TaskA", 1, 20000, 30000, 70000), ("TaskA", 1, 50000, -1, -1),
            ("TaskB", 0, -1, -1, 12000), ("TaskB", 0, 25000, 30000, -1),
            ("TaskB", 1, 100000, -1, -1)]
    if got != want:
        fail("two time lines: instances/ %s, want %s" % (got, want))
    else:
        print("two time lines: %d instances/ rows" % len(got))

finish()
