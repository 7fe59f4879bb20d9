#!/usr/bin/env python3
"""check_ctf.py TRACEKIT SRCDIR [CORPUS_DIR]: the CTF export read by babeltrace2.

For each input: `tracekit convert IN DIR --to ctf`, then
 - the metadata starts with "/* CTF 1.8 */" and names the clock's frequency;
 - one stream per core (`stream_N`, packet context cpu_id = N, the
   metadata's env `cpu_N` naming the core) and `stream_nocore` (stream
   class 1, no cpu_id) for the events without a core;
 - every packet of each stream has the magic 0xC1FC1FC1, content_size ==
   packet_size == its length in bits, and timestamp_begin/end equal to the
   first/last event time babeltrace2 prints for that stream (checked as a
   whole: the packets tile the file, begin/end are non-decreasing);
 - `babeltrace2 --clock-cycles --no-delta DIR` prints one line per event;
   an event has a cpu_id exactly when it has a core, and that cpu_id is its
   core's (env cpu_N); each line agrees field by field with the BTF the
   same trace converts to (time: cycles * 10^k == btf_time * freq exactly;
   entity, instance, source, source instance, class name TYPE:event, note),
   in the BTF's order within each core's stream, and as a set among the
   events of one time (babeltrace2 merges the streams by time);
 - every corpus trace (btf, shark, tarmac): babeltrace2 reads it, prints
   as many events as the trace has, each event's cpu_id is its
   core (the `core` field the same event carries, named by env cpu_N);
 - for the small fixtures, babeltrace2's output equals tests/exports/ctf/NAME.expected;
then the refusals: an existing OUT (directory or file), standard output, a
strict conversion the format cannot hold, and a failed read leave nothing.
Exit 77 when babeltrace2 is not installed.
"""
import os, re, shutil, sqlite3, struct, subprocess, sys, tempfile

tk, src = sys.argv[1], sys.argv[2]
corpus = sys.argv[3] if len(sys.argv) > 3 else None
if not shutil.which("babeltrace2"):
    print("babeltrace2 not installed: skipped")
    sys.exit(77)

fails = 0
def fail(msg):
    global fails
    fails += 1
    print("FAIL:", msg)

tmp = tempfile.mkdtemp(prefix="tk-ctf-")
UNIT = {"ps": 10**12, "ns": 10**9, "us": 10**6, "ms": 10**3, "s": 1}
HEAD = re.compile(r'^\[(\d+)\] (.+?): (?:\{ cpu_id = (\d+) \}, )?\{ (.*) \}$')

def parse_fields(body):
    """'a = "x, y", b = -3' -> {'a': 'x, y', 'b': '-3'} (babeltrace2's text)."""
    out, i = {}, 0
    while i < len(body):
        j = body.index(" = ", i)
        key = body[i:j]
        i = j + 3
        if body[i] == '"':
            i += 1
            v = []
            while body[i] != '"':
                if body[i] == "\\":
                    i += 1
                v.append(body[i])
                i += 1
            i += 1
            out[key] = "".join(v)
        else:
            j = body.find(", ", i)
            j = len(body) if j < 0 else j
            out[key] = body[i:j]
            i = j
        if body.startswith(", ", i):
            i += 2
    return out

def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)

def check_packets(d, times, fname="stream_0", cpu=0):
    """The packets of one stream file; cpu None for stream_nocore."""
    data = open(os.path.join(d, fname), "rb").read()
    off, idx, npk = 0, 0, 0
    hdr = 40 if cpu is None else 44
    while off < len(data):
        if len(data) - off < hdr:
            return fail(f"{d}: truncated packet at {off}")
        magic, sid, tb, te, csz, psz = struct.unpack_from("<IIQQQQ", data, off)
        if magic != 0xC1FC1FC1 or sid != (1 if cpu is None else 0):
            return fail(f"{d}: bad packet header at {off}")
        if cpu is not None and struct.unpack_from("<I", data, off + 40)[0] != cpu:
            return fail(f"{d}/{fname}: cpu_id of the packet at {off} is not {cpu}")
        if csz != psz or psz % 8 or psz // 8 < hdr or off + psz // 8 > len(data):
            return fail(f"{d}: bad packet sizes at {off}: {csz} {psz}")
        if npk and tb < prev_end:
            return fail(f"{d}: packet at {off} begins before the previous one ends")
        if tb > te:
            return fail(f"{d}: packet at {off}: begin {tb} > end {te}")
        prev_end = te
        off += psz // 8
        npk += 1
    if times and (struct.unpack_from("<Q", data, 8)[0] != times[0] or prev_end != times[-1]):
        fail(f"{d}: first packet begin / last packet end differ from the first / last event")
    return npk

def convert(inp, out, extra=()):
    return run([tk, "convert", "-q", *extra, inp, out, "--to", "ctf"])

def cpu_map(meta):
    """env cpu_N = "NAME" -> {N: NAME} (TSDL string escapes undone)."""
    return {int(m.group(1)): re.sub(r'\\(.)', r'\1', m.group(2))
            for m in re.finditer(r'^\tcpu_(\d+) = "((?:[^"\\]|\\.)*)";$', meta, re.M)}

def check_cpus(name, out, meta, parsed):
    """cpu_id present exactly with a core, the core's; one file per stream;
    the packets of each stream.  Returns the number of packets."""
    cpus = cpu_map(meta)
    if len(set(cpus.values())) != len(cpus) or sorted(cpus) != list(range(len(cpus))):
        fail(f"{name}: env cpu_N {cpus}")
    per = {}
    for i, p in enumerate(parsed):
        cpu, core = p[8], p[6]
        if (cpu is None) != (core == "") or (cpu is not None and cpus.get(cpu) != core):
            return fail(f"{name}: event {i+1}: cpu_id {cpu}, core {core!r}, env {cpus}")
        per.setdefault(cpu, []).append(int(p[0]))
    files = sorted(f for f in os.listdir(out) if f != "metadata")
    want = sorted(["stream_%d" % c for c in per if c is not None] +
                  (["stream_nocore"] if None in per else []))
    if files != want or len(cpus) != sum(1 for c in per if c is not None):
        fail(f"{name}: stream files {files}, want {want}, env {cpus}")
        return 0
    return sum(check_packets(out, t, "stream_nocore" if c is None else "stream_%d" % c, c) or 0
               for c, t in per.items())

def check(inp, name, extra=(), expected=None, crosscheck=True):
    out = os.path.join(tmp, name)
    r = convert(inp, out, extra)
    if r.returncode != 0:
        return fail(f"{name}: convert failed: {r.stderr.strip()}")
    meta = open(os.path.join(out, "metadata")).read()
    if not meta.startswith("/* CTF 1.8 */\n"):
        fail(f"{name}: metadata does not start with the CTF 1.8 mark")
    m = re.search(r"\bfreq = (\d+);", meta)
    freq = int(m.group(1))
    b = run(["babeltrace2", "--clock-cycles", "--no-delta", out])
    if b.returncode != 0 or b.stderr.strip():
        return fail(f"{name}: babeltrace2 failed: {b.stderr.strip()[:500]}")
    lines = b.stdout.splitlines()
    if expected:
        want = open(expected).read().splitlines()
        if lines != want:
            fail(f"{name}: babeltrace2 output differs from {expected}")
            for a, w in zip(lines, want):
                if a != w:
                    print("  got: ", a, "\n  want:", w)
                    break
            print(f"  lines: got {len(lines)} want {len(want)}")
    parsed = []
    for ln in lines:
        mm = HEAD.match(ln)
        if not mm:
            return fail(f"{name}: unexpected babeltrace2 line: {ln}")
        f = parse_fields(mm.group(4))
        if not set(f) <= {"entity", "instance", "source", "source_instance", "core", "note"}:
            return fail(f"{name}: unexpected fields: {ln}")
        parsed.append((mm.group(1), mm.group(2), f.get("entity", ""),
                       f.get("instance", ""), f.get("source", ""),
                       f.get("source_instance", ""), f.get("core", ""),
                       f.get("note", ""),
                       None if mm.group(3) is None else int(mm.group(3))))
    npk = check_cpus(name, out, meta, parsed)
    info = run([tk, "info", "--format", "json", *extra, inp])
    m = re.search(r'"events":\s*(\d+)', info.stdout)
    if not m or int(m.group(1)) != len(parsed):
        fail(f"{name}: {len(parsed)} events printed, tracekit info says {m and m.group(1)}")
    if crosscheck:
        bt = run([tk, "convert", "-q", "--option", "as-read=1", *extra, inp, "-", "--to", "btf"]).stdout.splitlines()
        scale = None
        rows = []
        for l in bt:
            if l.lower().startswith("#timescale") and scale is None:
                scale = UNIT[l.split()[1]]
            elif l and not l.startswith("#"):
                rows.append(l.split(",", 7))
        if len(rows) != len(parsed):
            return fail(f"{name}: {len(rows)} BTF rows, {len(parsed)} CTF events")
        # babeltrace2 merges the streams by time: compare the events of
        # one time as a set, and each core's events in order
        exp_rows, got_rows = [], []
        for row, p in zip(rows, parsed):
            t, s, si, ty, tg, ti, ev = row[:7]
            nt = row[7] if len(row) > 7 else ""
            exp_rows.append((int(t) * freq, f"{ty}:{ev}", tg, ti, s, si, nt))
        for p in parsed:
            cyc, cls, ent, inst, srcn, sinst, core, note = p[:8]
            got_rows.append((int(cyc) * scale, cls, ent, inst, srcn, sinst, note))
        if sorted(exp_rows) != sorted(got_rows):
            bad = sorted(set(exp_rows) ^ set(got_rows))[:3]
            fail(f"{name}: the events differ from the BTF's (time * freq, class, ...): {bad}")
        # (babeltrace2 merges the streams by nanoseconds: finer times of
        # different streams may come in any order)
        ns = [int(p[0]) * 10**9 // freq for p in parsed]
        if ns != sorted(ns):
            fail(f"{name}: babeltrace2's times go back")
        # each stream's events (those of one core) keep the BTF's order:
        # they are a subsequence of it
        for c in sorted({p[6] for p in parsed}):
            it = iter(exp_rows)
            seq = [g for g, p in zip(got_rows, parsed) if p[6] == c]
            if not all(any(g == e for e in it) for g in seq):
                fail(f"{name}: the events of core {c!r} are not in the BTF's order")
                break
    print(f"ok {name}: {len(parsed)} events, {npk} packets, {freq} Hz")

d = os.path.join(src, "tests")
cases = [
    ("tests/formats/btf/ok/notes_and_names.btf", "notes_and_names", (), True),
    ("tests/formats/btf/ok/every_type_strict.btf", "every_type_strict", ("--strict",), True),
    ("tests/formats/atf/ok/spec_example1.atf", "atf_spec_example1", (), True),
    ("tests/formats/atf/ok/multicore_decimals_strict.atf", "atf_multicore_decimals", ("--strict",), True),
    ("tests/exports/ctf/third_ns.atf", "third_ns", ("--strict",), False),
    ("tests/exports/ctf/escapes.btf", "escapes", (), True),
]
for rel, name, extra, cross in cases:
    check(os.path.join(src, rel), name, extra,
          os.path.join(src, "tests/exports/ctf", name + ".expected"), cross)

# an event without a core of its own (a runnable's, a signal's) is on the
# core of its running source, as the JSON export places it; one whose
# source runs nowhere (a stimulus) has none
def running_source():
    inp = os.path.join(src, "tests/exports/ctf/running_source.btf")
    out = os.path.join(tmp, "running_source")
    r = convert(inp, out)
    b = run(["babeltrace2", "--clock-cycles", "--no-delta", out])
    if r.returncode != 0 or b.returncode != 0:
        return fail(f"running_source: {r.stderr.strip()} {b.stderr.strip()}")
    cpus = cpu_map(open(os.path.join(out, "metadata")).read())
    got = []
    for ln in b.stdout.splitlines():
        mm = HEAD.match(ln)
        f = parse_fields(mm.group(4)) if mm else {}
        cpu = None if not mm or mm.group(3) is None else cpus.get(int(mm.group(3)))
        if mm and f.get("core") != cpu:
            fail(f"running_source: core field {f.get('core')!r}, cpu_id's {cpu!r}: {ln}")
        got.append((int(mm.group(1)) if mm else -1, f.get("entity"), cpu))
    want = [(0, "Stim", None), (0, "A", None), (0, "B", None),
            (10, "A", "Core_1"), (10, "B", "Core_2"),
            (20, "R1", "Core_1"), (25, "X", "Core_1"), (30, "R1", "Core_1"),
            (40, "R2", "Core_2"), (45, "Y", "Core_2"), (50, "R2", "Core_2"),
            (60, "A", "Core_1"), (70, "B", "Core_2"), (80, "Z", None)]
    if sorted(got, key=str) != sorted(want, key=str):
        fail(f"running_source: (time, entity, core) {got}")
    else:
        print("ok running_source: each event on its running source's core")
running_source()

# many packets: the Trace Compass corpus trace (60 000+ events)
if corpus and os.path.exists(os.path.join(corpus, "tracecompass_20140219-123819.btf")):
    check(os.path.join(corpus, "tracecompass_20140219-123819.btf"), "tracecompass")

# every corpus trace (btf, shark, tarmac): babeltrace2 reads the export,
# prints as many events as the trace has, each event's cpu_id is its
# core (check_cpus); the table gives what babeltrace2 said
def corpus_traces(top):
    for sub in ("btf", "shark", "tarmac"):
        for root, _, files in sorted(os.walk(os.path.join(top, sub))):
            for f in sorted(files):
                if f.endswith((".btf", ".bin", ".tarmac", ".txt")) and f != "README.md":
                    yield os.path.join(root, f)

def check_corpus(inp, k):
    out = os.path.join(tmp, "corpus_%d" % k)
    r = convert(inp, out)
    if r.returncode != 0:
        fail(f"{inp}: convert failed: {r.stderr.strip()}")
        return None
    meta = open(os.path.join(out, "metadata")).read()
    b = run(["babeltrace2", "--clock-cycles", "--no-delta", out])
    if b.returncode != 0 or b.stderr.strip():
        fail(f"{inp}: babeltrace2 failed: {b.stderr.strip()[:300]}")
        return None
    parsed = []
    for ln in b.stdout.splitlines():
        mm = HEAD.match(ln)
        if not mm:
            fail(f"{inp}: unexpected babeltrace2 line: {ln}")
            return None
        f = parse_fields(mm.group(4))
        parsed.append((mm.group(1), mm.group(2), "", "", "", "", f.get("core", ""), "",
                       None if mm.group(3) is None else int(mm.group(3))))
    npk = check_cpus(os.path.basename(inp), out, meta, parsed)
    # the creator without the white space around it
    for m in re.finditer(r'^\tcreator = "(.*)";$', meta, re.M):
        if m.group(1) != m.group(1).strip() or not m.group(1):
            fail(f"{inp}: creator {m.group(1)!r} not trimmed")
    # of two header blocks, the first's creator, as SQLite's
    # metaInformation and the BTF writer's merge keep it (the Trace
    # Compass trace's second block says "#creator  TA Simulator ... \r")
    if inp.endswith("tracecompass_20140219-123819.btf"):
        if '\tcreator = "BTF-Writer (14.01.0.73)";\n' not in meta:
            fail(f"{inp}: creator: {re.findall(r'creator = .*', meta)}")
        db = os.path.join(tmp, "creator.sqlite")
        run([tk, "convert", "-q", inp, db])
        con = sqlite3.connect(db)
        got = con.execute("SELECT value FROM metaInformation"
                          " WHERE name = 'creator'").fetchall()
        con.close()
        os.remove(db)
        if got != [("BTF-Writer (14.01.0.73)",)]:
            fail(f"{inp}: SQLite's creator {got}")
        btf = run([tk, "convert", "-q", inp, "-", "--to", "btf"]).stdout
        if "\n#creator BTF-Writer (14.01.0.73)\n" not in btf or \
                btf.count("#creator") != 1:
            fail(f"{inp}: BTF's creator lines {re.findall(r'#creator.*', btf)}")
    # the events of the trace: its BTF rows (tracekit info counts
    # records, not events, for a Tarmac log)
    bt = run([tk, "convert", "-q", "--option", "as-read=1", inp, "-", "--to", "btf"]).stdout.splitlines()
    nev = sum(1 for l in bt if l and not l.startswith("#"))
    if nev != len(parsed):
        fail(f"{inp}: {len(parsed)} events printed, the trace has {nev}")
    ncpu = len(cpu_map(meta))
    nocore = sum(1 for p in parsed if p[8] is None)
    shutil.rmtree(out)
    return (os.path.basename(inp), len(parsed), ncpu, nocore, npk)

if corpus:
    rows = []
    top = os.path.dirname(os.path.abspath(corpus))
    for k, inp in enumerate(corpus_traces(top)):
        row = check_corpus(inp, k)
        if row:
            rows.append(row)
    print("| corpus trace | events read by babeltrace2 (= the trace's) | cpu_id streams | events with no core | packets |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %s | %d | %d | %d | %d |" % row)

def nothing_left(name, base):
    left = [f for f in os.listdir(tmp) if f.startswith("." + base + ".tmp-")]
    if left:
        fail(f"{name}: left {left}")

# a time that goes back (kept by lenient reading): raised with a counted
# warning, refused with --strict (the reader refuses it first) and no output
back = os.path.join(tmp, "back.btf")
open(back, "w").write("#version 2.3.0\n#timescale ns\n100,C,0,T,A,0,start\n50,C,0,T,A,0,terminate\n")
r = run([tk, "convert", back, os.path.join(tmp, "back_out"), "--to", "ctf"])
b = run(["babeltrace2", "--clock-cycles", "--no-delta", os.path.join(tmp, "back_out")])
if r.returncode != 0 or "1 time raised to the previous event's" not in r.stderr or \
        [l[:22] for l in b.stdout.splitlines()] != ["[00000000000000000100]"] * 2:
    fail(f"time going back: {r.returncode} {r.stderr.strip()} {b.stdout!r}")
r = convert(back, os.path.join(tmp, "back_strict"), ("--strict",))
if r.returncode == 0 or os.path.exists(os.path.join(tmp, "back_strict")):
    fail(f"time going back, strict: rc {r.returncode}")
nothing_left("back strict", "back_strict")

# times at 2^63 - 1 ns and beyond: babeltrace2 counts ns from the origin
# in an int64 and refuses the whole stream there, so they are refused with
# one error and nothing left; just below, babeltrace2 reads the trace
for k, (scale, t, ok) in enumerate((("ns", 2**63 - 1, False), ("us", 9223372036854775, False),
                                     ("ns", 2**63 - 2, True), ("us", 9223372036854774, True))):
    big = os.path.join(tmp, f"big{k}.btf")
    open(big, "w").write(f"#version 2.3.0\n#timescale {scale}\n0,C,0,T,A,0,start\n{t},C,0,T,A,0,terminate\n")
    r = convert(big, os.path.join(tmp, f"big{k}_out"))
    if ok:
        b = run(["babeltrace2", os.path.join(tmp, f"big{k}_out")])
        if r.returncode != 0 or b.returncode != 0 or len(b.stdout.splitlines()) != 2:
            fail(f"time {t} {scale}: convert {r.returncode} {r.stderr.strip()}, babeltrace2 {b.returncode} {b.stderr.strip()[-300:]}")
    elif r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or \
            "2^63 - 1 ns" not in r.stderr or os.path.exists(os.path.join(tmp, f"big{k}_out")):
        fail(f"time {t} {scale}: want one error and no output, got {r.returncode} {r.stderr.strip()}")
    nothing_left(f"time {t} {scale}", f"big{k}_out")

# a trace with no events: metadata without classes, no stream file
empty = os.path.join(tmp, "empty.btf")
open(empty, "w").write("#version 2.3.0\n#timescale ns\n")
r = convert(empty, os.path.join(tmp, "empty_out"))
b = run(["babeltrace2", os.path.join(tmp, "empty_out")])
if r.returncode != 0 or b.returncode != 0 or b.stdout or \
        os.listdir(os.path.join(tmp, "empty_out")) != ["metadata"]:
    fail(f"empty trace: convert {r.returncode} {r.stderr.strip()}, babeltrace2 {b.returncode} {b.stdout[:200]!r}")

# refusals, and nothing left behind

inp = os.path.join(src, "tests/formats/btf/ok/notes_and_names.btf")
exist = os.path.join(tmp, "notes_and_names")   # written above
r = convert(inp, exist)
if r.returncode == 0 or "already exists" not in r.stderr:
    fail(f"existing directory: rc {r.returncode} {r.stderr.strip()}")
afile = os.path.join(tmp, "afile")
open(afile, "w").write("keep\n")
r = convert(inp, afile)
if r.returncode == 0 or "already exists" not in r.stderr or open(afile).read() != "keep\n":
    fail(f"existing file: rc {r.returncode} {r.stderr.strip()}")
r = convert(inp, "-")
if r.returncode == 0 or "directory" not in r.stderr:
    fail(f"standard output: rc {r.returncode} {r.stderr.strip()}")
bad = os.path.join(tmp, "bad.btf")
open(bad, "w").write("#version 2.3.0\n#timescale ns\n0,C,0,T,A,0,start\n5,C,0,T,A,0\n")
r = convert(bad, os.path.join(tmp, "badout"), ("--strict",))
if r.returncode == 0 or os.path.exists(os.path.join(tmp, "badout")):
    fail(f"failed read: rc {r.returncode}, output left: {os.path.exists(os.path.join(tmp, 'badout'))}")
nothing_left("failed read", "badout")
# a time base no 64-bit clock holds exactly: refused in strict mode,
# rounded to picoseconds with a counted warning otherwise
huge = os.path.join(src, "tests/exports/ctf/huge_den.atf")
r = convert(huge, os.path.join(tmp, "huge_strict"), ("--strict",))
if r.returncode == 0 or "faster clock" not in r.stderr or os.path.exists(os.path.join(tmp, "huge_strict")):
    fail(f"huge denominator, strict: rc {r.returncode} {r.stderr.strip()}")
nothing_left("huge strict", "huge_strict")
r = run([tk, "convert", huge, os.path.join(tmp, "huge"), "--to", "ctf"])
if r.returncode != 0 or "times rounded down to picoseconds" not in r.stderr:
    fail(f"huge denominator, lenient: rc {r.returncode} {r.stderr.strip()}")
else:
    check(huge, "huge_den_again", (), os.path.join(src, "tests/exports/ctf/huge_den.expected"), False)

shutil.rmtree(tmp)
print("FAILED" if fails else "all passed")
sys.exit(1 if fails else 0)
