#!/usr/bin/env python3
"""check_parquet.py TRACEKIT SRCDIR NPMDIR INPUT...: every INPUT (a trace,
gen=BTF_GEN,N for a BTF of N events from the bench generator,
rows=N to write row groups of N rows (the writer option row-group=N) from there on,
page=N to write data pages of N rows (the writer option page=N) from there on,
zstd=N to compress the pages at zstd's level N (the writer option zstd=N) from there on,
strict=TRACE for one that --strict must refuse (names not UTF-8), or a folder of format test cases: each <case>.<ext> beside a <case>.out,
with the options of <case>.args; of a fail/ folder, beside a <case>.err,
which must leave no file) is converted to Parquet, read back by
hyparquet and by DuckDB (installed from npm into NPMDIR by
install_readers.sh); every column chunk is compressed with zstd, its
strings dictionary-encoded, its times delta-encoded, its statistics (min,
max, null count) those of its rows (DuckDB); every row must be the event of `tracekit cat` of
the same trace at the same place (BTF as read); time_ns the exact time in ns (null where
it is not a whole number); the key-value metadata the format, the time
base and the header.  Exit 77 when the readers cannot be installed.
Every input is converted first; then one node process per reader reads
all the Parquet files in turn (node, and DuckDB, start once), so both
readers read every case, under `make test` as under `make test-full`
(no sampling)."""
import json, os, subprocess, sys, tempfile
from fractions import Fraction

tk, src, npm = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.join(src, "tests", "formats", "parquet")
rc = subprocess.run(["sh", os.path.join(here, "install_readers.sh"), npm]).returncode
if rc == 77:
    print("skipped: the npm readers are not available")
    sys.exit(77)
if rc:
    sys.exit(rc)
env = dict(os.environ, NODE_PATH=os.path.join(npm, "node_modules"))
readers = []
for name in ("hyparquet", "duckdb"):
    script = os.path.join(npm, "read_%s.mjs" % name)
    with open(os.path.join(here, "read_%s.mjs" % name)) as f, open(script, "w") as g:
        g.write(f.read())  # beside node_modules, where import finds them
    readers.append((name, script))

ROWS = 1048576  # rows per row group
PAGE = 131072  # rows per data page
UNIT = {"ps": Fraction(1, 1000), "ns": Fraction(1), "us": Fraction(1000),
        "ms": Fraction(10**6), "s": Fraction(10**9)}

inputs = []
OPTS = []
WOPTS = {}  # the writer options, by name
tmp = tempfile.mkdtemp()
for a in sys.argv[4:]:
    if a.startswith("rows=") or a.startswith("zstd=") or a.startswith("page="):
        if a.startswith("rows="):
            ROWS = int(a[5:])
            WOPTS["row-group"] = a[5:]
        elif a.startswith("page="):
            PAGE = int(a[5:])
            WOPTS["page"] = a[5:]
        else:
            WOPTS["zstd"] = a[5:]
        OPTS = [w for kv in WOPTS.items() for w in ("--option", "%s=%s" % kv)]
        continue
    if a.startswith("gen="):
        # gen=BTF_GEN,N: a BTF of N events from the bench generator
        gen, n = a[4:].rsplit(",", 1)
        big = os.path.join(tmp, "gen%s.btf" % n)
        subprocess.run([gen, "-n", n, big], check=True, capture_output=True)
        inputs.append((big, [], OPTS, (ROWS, PAGE), False))
    elif a.startswith("strict="):
        # strict=TRACE: a trace --strict refuses (not UTF-8): exit 2, no file
        out = os.path.join(tmp, "strict%d" % len(os.listdir(tmp)), "s.parquet")
        os.makedirs(os.path.dirname(out))
        p = subprocess.run([tk, "convert", "--strict", a[7:], out], capture_output=True)
        if p.returncode != 2 or b"not UTF-8" not in p.stderr or os.listdir(os.path.dirname(out)):
            print("FAIL %s --strict: exit %d, %s left: %s" % (a[7:], p.returncode,
                  os.listdir(os.path.dirname(out)), p.stderr.decode(errors="replace")))
            sys.exit(1)
    elif os.path.isdir(a):
        want = ".err" if os.path.basename(a.rstrip("/")) == "fail" else ".out"
        for f in sorted(os.listdir(a)):
            case, ext = os.path.splitext(f)
            if ext in (".out", ".args", ".err") or not os.path.exists(os.path.join(a, case + want)):
                continue
            args = []
            if os.path.exists(os.path.join(a, case + ".args")):
                args = open(os.path.join(a, case + ".args")).read().split()
            inputs.append((os.path.join(a, f), args, OPTS, (ROWS, PAGE), True))
    else:
        inputs.append((a, [], OPTS, (ROWS, PAGE), False))


def i64_encodings(pages):
    """The data pages' encodings of an INT64 column chunk (not delta-
    encoded) whose pages have these values (nulls left out): a page in the
    chunk's dictionary while the chunk's values so far span < 2^20 (at most
    4 a value, and 4,096) and half or more of them repeat; from the first
    page that breaks the rule, PLAIN (a page of no values: PLAIN)."""
    encs, mode, seen, n, lo, hi = set(), 0, set(), 0, None, None
    for pv in pages:
        if not pv or mode == 2:
            encs.add("PLAIN")
            n += len(pv)
            continue
        plo, phi = min(pv), max(pv)
        if mode == 1:
            plo, phi = min(plo, lo), max(phi, hi)
        span = phi - plo
        if span >= 1 << 20 or span > 4 * (n + len(pv)) + 4096 or 2 * len(seen | set(pv)) > n + len(pv):
            mode = 2
            encs.add("PLAIN")
        else:
            mode, lo, hi, seen = 1, plo, phi, seen | set(pv)
            encs.add("RLE_DICTIONARY")
        n += len(pv)
    return encs


def check(meta, rows, hdr, evs, rows_max):
    """What is wrong with the rows and metadata a reader read of a case
    (rows_max: the rows of a row group, and of a data page)."""
    rows_max, page_max = rows_max
    kv = meta["kv"]
    bad = []
    num_den, unit = kv.get("tracekit.timebase", "0/1 ns").split(" ")
    num, den = num_den.split("/")
    # ticks that are cycles ("1/1 clk") have no time in ns
    tick = Fraction(int(num), int(den)) * UNIT[unit] if unit in UNIT else None
    # cat writes times in its #timescale's unit (a tick of 1/4 us as
    # 250 ns): the ticks are compared in that unit, exactly
    cat_unit = Fraction(1)
    for h in hdr:
        if h.lower().startswith("#timescale ") and h.split()[1] in UNIT:
            cat_unit = UNIT[h.split()[1]]
    if not kv.get("tracekit.format"):
        bad.append("no tracekit.format")
    # ticks that are cycles (a Tarmac cycle unit): the time base says their
    # unit; any other value of the line is no unit, the time scale's stands
    for h in hdr:
        if not h.startswith("#tarmacTimeUnit ") or h.split(" ", 1)[1] in UNIT:
            continue
        cyc = h.split(" ", 1)[1]
        scale = [x.split()[1] for x in hdr if x.lower().startswith("#timescale ")]
        want = cyc if cyc in ("clk", "cyc", "tic", "cs") else (scale + ["ns"])[0]
        if kv.get("tracekit.timebase", "").split(" ", 1)[-1] != want or \
           (want != cyc and h not in kv.get("tracekit.header", "").split("\n")):
            bad.append("time base %r, header %r" % (kv.get("tracekit.timebase"), h))
    # cat of a BTF writes its header as read (of another format, as BTF)
    for h in kv.get("tracekit.header", "").split("\n") if kv.get("tracekit.format") == "btf" else []:
        if h and h not in hdr:
            bad.append("header line %r is not in cat's header" % h)
    for ch in meta.get("chunks", []):  # DuckDB tells the column chunks
        col, g = ch["column"], ch["group"]
        if ch["codec"] != "ZSTD":
            bad.append("column %s of row group %d: codec %s, not ZSTD" % (col, g, ch["codec"]))
        want = {"time": "DELTA_BINARY_PACKED", "time_ns": "DELTA_BINARY_PACKED"}.get(col, "RLE_DICTIONARY")
        grows = rows[g * rows_max:(g + 1) * rows_max]
        vals = [r[col] for r in grows if r[col] is not None]
        got = set(ch["encodings"].split(", "))
        if col in ("source_instance", "instance"):
            # instances: in the dictionary page by page (i64_encodings)
            pages = [[int(r[col]) for r in grows[k:k + page_max] if r[col] is not None]
                     for k in range(0, len(grows), page_max)]
            encs = i64_encodings(pages)
            if ("RLE_DICTIONARY" in got) != ("RLE_DICTIONARY" in encs) or not encs <= got:
                bad.append("column %s of row group %d: encodings %s, not those of %s" % (col, g, ch["encodings"], sorted(encs)))
        elif vals and want not in got:
            bad.append("column %s of row group %d: encodings %s, not %s" % (col, g, ch["encodings"], want))
        # statistics: the null count, and min and max of the values
        if col in ("time", "time_ns", "source_instance", "instance"):
            key = lambda v: int(v)
        else:
            key = lambda v: v.encode("utf-8", "surrogatepass")
        mm = (str(min(vals, key=key)), str(max(vals, key=key))) if vals else (None, None)
        if ch["min"] is None and vals and max(len(str(key(v))) for v in vals) > 1024:
            mm = (None, None)  # a string over 1,024 bytes: no min, no max
        if (ch["min"], ch["max"]) != mm or ch["nulls"] != len(rows[g * rows_max:(g + 1) * rows_max]) - len(vals):
            bad.append("column %s of row group %d: min, max, nulls %s %s %s, the rows' %s %s %d"
                       % (col, g, ch["min"], ch["max"], ch["nulls"], mm[0], mm[1],
                          len(rows[g * rows_max:(g + 1) * rows_max]) - len(vals)))
    # a tick of 1 ns: time and time_ns have the same values, and (both
    # declared nullable) the same pages, compressed once
    sizes = {}
    for ch in meta.get("chunks", []):
        if ch["column"] in ("time", "time_ns") and "size" in ch:
            sizes.setdefault(ch["group"], {})[ch["column"]] = (ch["size"], ch["usize"])
    if tick == 1:
        for g, s in sorted(sizes.items()):
            grows = rows[g * rows_max:(g + 1) * rows_max]
            if all(r["time_ns"] is not None for r in grows) and s.get("time") != s.get("time_ns"):
                bad.append("row group %d: time's chunk (bytes, uncompressed) %s, time_ns's %s: not the same pages"
                           % (g, s.get("time"), s.get("time_ns")))
    if meta["row_groups"] != (len(rows) + rows_max - 1) // rows_max:
        bad.append("%d row groups for %d rows" % (meta["row_groups"], len(rows)))
    if len(rows) != len(evs):
        bad.append("%d rows, cat has %d events" % (len(rows), len(evs)))
    for i, (row, ev) in enumerate(zip(rows, evs)):
        opt = lambda v: "" if v is None else str(v)
        t = Fraction(int(row["time"])) * tick / cat_unit if tick is not None else Fraction(int(row["time"]))
        # a time of no whole unit: cat's is that time rounded (< 1 off)
        ct = ev.split(",", 1)[0]
        if t.denominator != 1 and ct.isdigit() and abs(Fraction(int(ct)) - t) < 1:
            t = Fraction(int(ct))
        line = ",".join([str(t.numerator) if t.denominator == 1 else str(t), row["source"], opt(row["source_instance"]),
                         row["type"], row["target"], opt(row["instance"]), row["event"]])
        if row["note"] is not None:
            line += "," + row["note"]
        ns = Fraction(int(row["time"])) * tick if tick is not None else Fraction(1, 2)
        want_ns = str(ns.numerator) if ns.denominator == 1 else None
        if line != ev:
            bad.append("row %d: %r, cat: %r" % (i, line, ev))
        elif row["time_ns"] is not None and str(row["time_ns"]) != want_ns:
            bad.append("row %d: time_ns %s, expected %s" % (i, row["time_ns"], want_ns))
        elif row["time_ns"] is None and want_ns is not None:
            bad.append("row %d: time_ns null, expected %s" % (i, want_ns))
        if len(bad) > 5:
            break
    return bad


fails = 0
checked = 0
cases = []  # (input, Parquet file, rows a group, cat's header, cat's events)
for n, (path, args, opts, rows_max, from_folder) in enumerate(inputs):
    # `tracekit cat`'s events: its BTF as read (cat of a Tarmac log prints
    # its records, so the same writer is asked through convert)
    cat = subprocess.run([tk, "convert", "-q", "--to", "btf", "--option", "as-read=1"]
                         + args + [path, "-"], capture_output=True)
    # a folder of its own for each case: a refused one must leave nothing
    out = os.path.join(tmp, "out", str(n), "t.parquet")
    os.makedirs(os.path.dirname(out))
    conv = subprocess.run([tk, "convert", "-q"] + args + opts + [path, out], capture_output=True)
    if cat.returncode != 0:
        # a refused input (fail/ cases): exit 2 and no Parquet, not a part
        if conv.returncode != 2 or os.listdir(os.path.dirname(out)):
            print("FAIL %s: cat refuses it, convert exits %d leaving %s"
                  % (path, conv.returncode, os.listdir(os.path.dirname(out)))); fails += 1
        else:
            checked += 1
        continue
    if conv.returncode != 0:
        print("FAIL %s: convert: %s" % (path, conv.stderr.decode(errors="replace"))); fails += 1
        continue
    lines = cat.stdout.decode("utf-8", errors="replace").split("\n")
    hdr = [l for l in lines if l.startswith("#")]
    evs = [l for l in lines if l and not l.startswith("#")]
    cases.append((path, out, rows_max, hdr, evs))

for name, script in readers:
    # one node for every file: it prints each file's metadata line (with
    # its number of rows, or the error reading it) and then its rows
    # --single-threaded: see check_dataset.py (a V8 deadlock at exit)
    r = subprocess.run(["node", "--single-threaded", script] + [c[1] for c in cases],
                       capture_output=True, env=env, timeout=600)
    got = r.stdout.decode().split("\n")
    at = 0
    stopped = False
    for path, out, rows_max, hdr, evs in cases:
        meta = json.loads(got[at]) if at < len(got) and got[at] else None
        if meta is None or meta.get("file") != out:
            # the reader stopped (or lost its place): this case and the rest
            print("FAIL %s: %s: exit %d, no rows: %s" % (path, name, r.returncode,
                  r.stderr.decode(errors="replace")[-2000:])); fails += 1
            at, stopped = len(got), True
            continue
        if "error" in meta:
            print("FAIL %s: %s: %s" % (path, name, meta["error"][-2000:])); fails += 1
            at += 1
            continue
        rows = [json.loads(l) for l in got[at + 1:at + 1 + meta["rows"]]]
        at += 1 + meta["rows"]
        bad = check(meta, rows, hdr, evs, rows_max)
        if bad:
            fails += 1
            print("FAIL %s (%s):\n  %s" % (path, name, "\n  ".join(bad[:6])))
        else:
            checked += 1
    if r.returncode != 0 and not stopped:
        print("FAIL %s: exit %d: %s" % (name, r.returncode, r.stderr.decode(errors="replace")[-2000:])); fails += 1
print("%d passed, %d failed" % (checked, fails))
sys.exit(1 if fails or not checked else 0)
