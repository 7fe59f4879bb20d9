#!/usr/bin/env python3
"""The index of `tracekit tarmac regs`, `mem` and `history` (issue 43):
its answers equal those of the log read from its start (--no-index), and
a damaged, truncated or foreign index, or a log changed after it was
indexed, is built again or refused, never answered from.

Each corpus log is copied to a temporary folder (the index is kept
beside it) and indexed with a small --index-span, so that it has tens of
checkpoints.  At many moments (--line, --instr, --time, --cpu where the
log names CPUs) regs and mem answer as with --no-index, answer by answer
(the moments of a query asked in one run each way; a run that fails,
some moment having no answer, fails alike and is asked again in halves);
history --reg and --addr list the same changes.  Then the index of
quicksort.tarmac is damaged in many ways (bytes flipped in its header,
tables and states; truncated; extended; another log's index), and the
log is changed after indexing (appended to; one byte edited at a
checkpoint with its size and mtime kept): each query answers as
--no-index does, or fails with an error and no answer, and the index is
then the one built afresh.  A generated log whose spans touch more memory
than a summary lists 8 bytes at a time (its summaries then coarser)
answers mem and history --addr as --no-index does too.

That is the whole test under `make test-full` (TK_TEST_FULL=1).  `make
test` (CI's sanitized build) samples the moments: every kind of query
on every log still, at about a fifth of the moments (one --cpu instead
of two), and the damage and change cases whole; CI's Release build runs
it whole.

Usage: index.py CLI CORPUS_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

cli, corpus = sys.argv[1], sys.argv[2]
FULL = os.environ.get("TK_TEST_FULL") == "1"
LOGS = ["quicksort.tarmac", "calltest32.tarmac", "calltest64.tarmac",
        "calculator-aarch64-gem5.tarmac", "calculator-aarch64-fastmodel.tarmac",
        "calculator-aarch32-fastmodel.tarmac",
        "calculator-aarch32-es-ld-st-style.tarmac",
        "calculator-aarch64-es-ld-st-style.tarmac", "crash32m.tarmac"]
fails = []
checks = 0
answered = 0     # the comparisons where the log read from its start answered


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def run(*args):
    p = subprocess.run([cli, "tarmac"] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def same(what, args, span):
    """the indexed answer of `args` equals the one read from the start"""
    global checks, answered
    checks += 1
    a = run(*args, "--index-span", str(span))
    b = run(*args, "--no-index")
    answered += b[0] == 0 and b[1] != ""
    if a[0] != b[0] or a[1] != b[1]:
        fail("%s: %s: indexed exit %d, %d lines; from the start exit %d, %d lines%s"
             % (what, " ".join(args), a[0], len(a[1].splitlines()), b[0],
                len(b[1].splitlines()), (": " + a[2].strip()[:300]) if a[2] else ""))
    return b


def sections(out, moments):
    """the answers of a run of several moments, split at the headings
    (None when the headings are not those of the moments, in order)"""
    parts = []
    for ln in out.splitlines(keepends=True):
        if ln.startswith("@ "):
            parts.append([ln, ""])
        elif parts:
            parts[-1][1] += ln
        else:
            return None
    if [h for h, _ in parts] != ["@ %s %s\n" % (m[0], m[1]) for m in moments]:
        return None
    return [a for _, a in parts]


def same_moments(what, head, moments, span):
    """same() of head + each moment, the moments asked in one run (the
    indexed one against the one read from the start, answer by answer);
    a run that fails (a moment without an answer: the whole run fails)
    fails alike indexed, and its halves are asked again, down to the
    moments alone"""
    global checks, answered
    if len(moments) == 1:
        same(what, head + moments[0], span)
        return
    flat = [w for m in moments for w in m]
    a = run(*head, *flat, "--index-span", str(span))
    b = run(*head, *flat, "--no-index")
    if b[0] != 0:
        # (not counted: each moment is, below)
        if a[0] != b[0] or a[1] != "" or b[1] != "":
            fail("%s: %s: indexed exit %d, %d bytes; from the start exit %d, %d bytes%s"
                 % (what, " ".join(head + flat), a[0], len(a[1]), b[0], len(b[1]),
                    (": " + a[2].strip()[:300]) if a[2] else ""))
        half = len(moments) // 2
        same_moments(what, head, moments[:half], span)
        same_moments(what, head, moments[half:], span)
        return
    want = sections(b[1], moments)
    got = sections(a[1], moments) if a[0] == 0 else None
    if want is None:
        fail("%s: %s: from the start, the headings are not those of the moments"
             % (what, " ".join(head + flat)))
        want = [None] * len(moments)
    if got is None:
        got = [None] * len(moments)
    for m, x, y in zip(moments, got, want):
        checks += 1
        answered += y is not None and y != ""
        if x != y or y is None:
            fail("%s: %s: indexed exit %d, %s lines; from the start %s lines%s"
                 % (what, " ".join(head + m), a[0],
                    "no" if x is None else len(x.splitlines()),
                    "no" if y is None else len(y.splitlines()),
                    (": " + a[2].strip()[:300]) if a[2] else ""))


def spread(values, n, sampled=None):
    """n values spread over values (sampled of them under `make test`)"""
    if not FULL and sampled is not None:
        n = sampled
    values = list(values)
    if len(values) <= n:
        return values
    return [values[i * (len(values) - 1) // (n - 1)] for i in range(n)]


STAMP = re.compile(r"^\s*(\d+)\s*(?:fs|ps|ns|us|ms|s|clk|cyc|tic|cs)\b")
MEM = re.compile(r"\b(?:M[RW]\d+\S*|LD|ST)\s+([0-9a-fA-F]{8,16})\b")
CPU = re.compile(r"^\s*\d+\s*\w+\s+(cpu\d+)\s")


def check_log(tmp, name):
    src = os.path.join(corpus, name)
    if not os.path.exists(src):
        print("skip: %s missing" % name)
        return
    path = os.path.join(tmp, name)
    shutil.copyfile(src, path)
    size = os.path.getsize(path)
    span = max(256, size // 40)
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    nlines = len(lines)
    times = sorted({int(m.group(1)) for m in map(STAMP.match, lines) if m})
    addrs = {}       # in the order first met
    for ln in lines:
        m = MEM.search(ln)
        if m:
            addrs.setdefault(int(m.group(1), 16), None)
    addrs = list(addrs)
    cpus = sorted({m.group(1) for m in map(CPU.match, lines) if m})
    # the first query builds the index beside the log
    end = same(name, ["regs", path], span)
    if not os.path.exists(path + ".tkidx"):
        fail("%s: no index beside the log after a query" % name)
    rc, _, err = run("regs", path, "--instr", "999999999999", "--no-index")
    m = re.search(r"the log has (\d+) executed", err)
    nexec = int(m.group(1)) if m else 0
    cpu_opts = [[]] + [["--cpu", c] for c in cpus[:2 if FULL else 1]] if cpus else [[]]
    # the moments of a query asked in one run (same_moments); those past
    # the log's executed instructions alone (a run with one of them
    # fails whole)
    for co in cpu_opts:
        instrs = spread(range(0, nexec + 2), 20, 5)
        same_moments(name, ["regs", path] + co,
                     [["--line", str(n)] for n in spread(range(1, nlines + 1), 30, 6)] +
                     [["--instr", str(k)] for k in instrs if k <= nexec] +
                     [["--time", str(t)] for t in spread(times, 12, 3)], span)
        for k in instrs:
            if k > nexec:
                same(name, ["regs", path, "--instr", str(k)] + co, span)
    for a in spread(addrs, 6, 2):
        same_moments(name, ["mem", path, "%x" % max(a - 8, 0), "48"],
                     [["--line", str(n)] for n in spread(range(1, nlines + 1), 8, 3)], span)
        same_moments(name, ["mem", path, "%x" % a, "16"],
                     [["--instr", str(k)] for k in spread(range(0, nexec + 1), 4, 2)], span)
        same(name, ["history", path, "--addr", "%x" % a, "--len", "8"], span)
    # the registers at the end (without --cpu: the first query's answer)
    rc, out, _ = run("regs", path, "--no-index", "--cpu", cpus[0]) if cpus else end
    regs = [ln.split()[0] for ln in out.splitlines() if ln.strip()]
    for r in spread(regs, 8, 2) + ["lr", "sp"]:
        same(name, ["history", path, "--reg", r] + (["--cpu", cpus[0]] if cpus else []), span)


def ix_hash(b, h):
    """tarmac_index.c's ix_hash()"""
    M = 0xff51afd7ed558ccd
    mask = (1 << 64) - 1

    def word(i):
        return int.from_bytes(b[i:i + 8], "little")

    def rotl(x, r):
        return ((x << r) | (x >> (64 - r))) & mask

    n = len(b)
    h ^= (0x9e3779b97f4a7c15 * (n + 1)) & mask
    lanes = [h, h ^ 0x243f6a8885a308d3, h ^ 0x13198a2e03707344, h ^ 0xa4093822299f31d0]
    i = 0
    while n - i >= 32:
        for j in range(4):
            x = ((lanes[j] ^ word(i + 8 * j)) * M) & mask
            lanes[j] = x ^ (x >> 32)
        i += 32
    h = lanes[0] ^ rotl(lanes[1], 16) ^ rotl(lanes[2], 32) ^ rotl(lanes[3], 48)
    while n - i >= 8:
        h = ((h ^ word(i)) * M) & mask
        h ^= h >> 32
        i += 8
    w = int.from_bytes(b[i:], "little")
    h = ((h ^ w ^ ((n - i) << 56)) * M) & mask
    return h ^ (h >> 29)


HEAD, ENTRY = 136, 104


def table(ix):
    """the index's checkpoints (tarmac_index.c's layout): per checkpoint
    (log offset, last line before, state offset and length in the file,
    summary offset and length)"""
    n = int.from_bytes(ix[64:72], "little")
    nnames = int.from_bytes(ix[72:80], "little")
    ncpus = int.from_bytes(ix[80:88], "little")
    p = HEAD
    for _ in range(ncpus + nnames):
        p += 4 + int.from_bytes(ix[p:p + 4], "little")

    def u64(i, f):
        o = p + ENTRY * i + 8 * f
        return int.from_bytes(ix[o:o + 8], "little")
    return [(u64(i, 0), u64(i, 2), HEAD + u64(i, 7), u64(i, 8), HEAD + u64(i, 9), u64(i, 10))
            for i in range(n)]


def checkpoints(ix):
    """the log offsets of the index's checkpoints"""
    return [c[0] for c in table(ix)]


def damage(tmp):
    global checks, answered
    name = "quicksort.tarmac"
    src = os.path.join(corpus, name)
    if not os.path.exists(src):
        return
    path = os.path.join(tmp, "d-" + name)
    other = os.path.join(tmp, "d-calltest64.tarmac")
    shutil.copyfile(src, path)
    shutil.copyfile(os.path.join(corpus, "calltest64.tarmac"), other)
    ipath = path + ".tkidx"
    span = 2048
    nlines = sum(1 for _ in open(path, "rb"))
    queries = [["regs", path, "--line", str(nlines * 3 // 4)],
               ["mem", path, "fff0", "32", "--line", str(nlines // 2)],
               ["history", path, "--reg", "r0"],
               ["history", path, "--addr", "fff0", "--len", "16"]]
    want = [run(*q, "--no-index") for q in queries]
    run(*queries[0], "--index-span", str(span))
    run("regs", other, "--index-span", "256")
    pristine = open(ipath, "rb").read()
    foreign = open(other + ".tkidx", "rb").read()
    # the header hash covers the header, the head hash the names and the
    # table (checked at the open), each state and summary its own hash
    # (checked at its first use); and a consistent header whose log is
    # another is refused by its identity
    head = int.from_bytes(pristine[120:128], "little")
    if ix_hash(pristine[:128], 3) != int.from_bytes(pristine[128:136], "little") or \
            ix_hash(pristine[HEAD:HEAD + head], 4) != int.from_bytes(pristine[104:112], "little"):
        fail("damage: the header or head hash is not tarmac_index.c's")
    n = len(pristine)
    tb = table(pristine)
    ck = [c[0] for c in tb]
    if len(ck) < 10:
        fail("damage: %d checkpoints with --index-span %d" % (len(ck), span))
    for c in tb:
        if ix_hash(pristine[c[2]:c[2] + c[3]], 6) != int.from_bytes(
                pristine[HEAD + head - ENTRY * (len(tb) - tb.index(c)) + 88:][:8], "little"):
            fail("damage: a state's hash is not tarmac_index.c's")
            break
    # a case: (what, bytes, the queries that must build the index again:
    # those that use the damaged part; the others may answer from the
    # parts they use, which are sound)
    every = set(range(len(queries)))
    cases = []
    for off in [0, 7, 8, 12, 16, 24, 40, 56, 64, 72, 80, 88, 96, 104, 112, 120,
                128, 135, 136, 140, HEAD + head // 2, HEAD + head - 1,
                n // 4, n // 2, 3 * n // 4, n - 9, n - 1]:
        b = bytearray(pristine)
        b[off] ^= 0x20
        cases.append(("byte %d flipped" % off, bytes(b), every if off < HEAD + head else set()))
    # the state of the checkpoint regs starts from (its last line before
    # the moment), a summary in the middle (history --addr reads every
    # summary)
    at = int(queries[0][3])
    k = max(i for i, c in enumerate(tb) if c[1] <= at)
    for what, o, ln, must in (("state", tb[k][2], tb[k][3], {0}),
                              ("summary", tb[len(tb) // 2][4], tb[len(tb) // 2][5], {3})):
        for off in (o, o + ln // 2, o + ln - 1):
            b = bytearray(pristine)
            b[off] ^= 0x20
            cases.append(("byte %d (of a %s) flipped" % (off, what), bytes(b), must))
    cases += [("truncated to %d" % k, pristine[:k], every)
              for k in (0, 100, 128, n // 2, n - 1)]
    cases += [("extended", pristine + b"\0" * 8, every), ("foreign", foreign, every),
              ("not an index", b"hello\n" * 40, every)]
    for what, data, must in cases:
        for i, (q, w) in enumerate(zip(queries, want)):
            checks += 1
            with open(ipath, "wb") as f:
                f.write(data)
            rc, out, err = run(*q, "--index-span", str(span))
            answered += w[0] == 0 and w[1] != ""
            if (rc, out) != w[:2]:
                fail("damage: %s: %s: exit %d (want %d), answer %s%s"
                     % (what, " ".join(q[:1] + q[2:]), rc, w[0],
                        "equal" if out == w[1] else "different", ": " + err.strip()[:200]))
            now = open(ipath, "rb").read()
            if now != pristine and (i in must or now != data):
                fail("damage: %s: %s: the index is not built again"
                     % (what, " ".join(q[:1] + q[2:])))
    # the log changed after indexing: appended to
    with open(path, "ab") as f:
        f.write(b"# a comment appended after indexing\n")
    for q in queries:
        checks += 1
        w = run(*q, "--no-index")
        got = run(*q, "--index-span", str(span))
        if got[:2] != w[:2]:
            fail("changed: appended: %s: exit %d, answer %s" % (" ".join(q[:1] + q[2:]), got[0],
                 "equal" if got[1] == w[1] else "different"))
    if open(ipath, "rb").read() == pristine:
        fail("changed: appended: the index is the one before")
    # one byte edited where a checkpoint starts, the size and mtime kept:
    # the seek sees the bytes are not the index's (an error, the index
    # removed), the next query builds it again
    run(*queries[0], "--index-span", str(span))
    ix = open(ipath, "rb").read()
    ck = checkpoints(ix)
    data = bytearray(open(path, "rb").read())
    st = os.stat(path)
    k = ck[len(ck) // 2]
    # an instruction's address digit: the answers may change too
    line_end = data.index(b"\n", k)
    digits = [i for i in range(k, line_end) if data[i:i + 1].isdigit()]
    data[digits[-1]] = ord("7") if data[digits[-1]] != ord("7") else ord("3")
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    q = ["regs", path, "--line", str(nlines - 1)]
    w = run(*q, "--no-index")
    checks += 1
    got = run(*q, "--index-span", str(span))
    if got[:2] != w[:2] and not (got[0] != 0 and got[1] == "" and
                                 "changed since it was indexed" in got[2]):
        fail("changed: edited at a checkpoint: exit %d, answer %s: %s"
             % (got[0], "equal" if got[1] == w[1] else "different", got[2].strip()[:200]))
    checks += 1
    got = run(*q, "--index-span", str(span))
    if got[:2] != w[:2]:
        fail("changed: edited at a checkpoint, then again: exit %d: %s" % (got[0], got[2][:200]))
    # an index folder that cannot be written: a warning, the same answer
    checks += 1
    got = run(*queries[0], "--index-span", str(span), "--index-dir",
              os.path.join(tmp, "no", "such"))
    w = run(*queries[0], "--no-index")
    if got[:2] != w[:2] or "warning" not in got[2]:
        fail("no index folder: exit %d, stderr %r" % (got[0], got[2][:200]))
    # --index-dir: the index in the folder, none beside the log
    d = os.path.join(tmp, "cache")
    os.mkdir(d)
    fresh = os.path.join(tmp, "fresh-" + name)
    shutil.copyfile(src, fresh)
    checks += 1
    got = run("regs", fresh, "--index-span", str(span), "--index-dir", d)
    if got[0] != 0 or len(os.listdir(d)) != 1 or os.path.exists(fresh + ".tkidx") \
            or not os.listdir(d)[0].startswith("fresh-" + name + "-"):
        fail("--index-dir: %r, beside: %s" % (os.listdir(d), os.path.exists(fresh + ".tkidx")))
    leftovers = [f for f in os.listdir(tmp) + os.listdir(d) if ".tmp" in f]
    if leftovers:
        fail("temporary files left: %r" % leftovers)


def coarse(tmp):
    """a generated log whose spans each touch more 8-byte granules than a
    summary lists (accesses spread over 32 KiB): the summaries hold
    coarser granules, and mem and history --addr answer as from the
    start"""
    import random
    rnd = random.Random(43)
    path = os.path.join(tmp, "coarse.tarmac")
    span = 32768
    out = []
    for i in range(2600):
        t = i + 1
        out.append("%d clk IT (%d) %08x e3a00601 A svc_s : MOV      r0,#0x100000"
                   % (t, t, 0x20000 + 4 * (i % 512)))
        for _ in range(4):
            a = 0x10000 + 4 * rnd.randrange(8192)
            kind, n = rnd.choice((("MW8", 8), ("MW4", 4), ("MR4", 4)))
            out.append("%d clk %s %08x:%012x %0*x" % (t, kind, a, a, 2 * n,
                                                       rnd.getrandbits(8 * n)))
    open(path, "w").write("\n".join(out) + "\n")
    nlines = len(out)
    run("regs", path, "--line", "1", "--index-span", str(span))
    ix = open(path + ".tkidx", "rb").read()
    grains = [int.from_bytes(ix[c[4]:c[4] + 4], "little") for c in table(ix)]
    global checks
    checks += 1
    if len(grains) < 16 or max(grains) <= 3 or min(grains) < 3:
        fail("coarse: the summaries' granules %r (want some coarser than 8 bytes)"
             % sorted(set(grains)))
    for q in range(12 if FULL else 6):
        a = 0x10000 + rnd.randrange(32768) - 8
        same("coarse", ["mem", path, "%x" % a, str(1 + rnd.randrange(48)),
                        "--line", str(1 + rnd.randrange(nlines))], span)
    for q in range(3):
        same("coarse", ["history", path, "--addr", "%x" % (0x10000 + rnd.randrange(32768)),
                        "--len", str(1 + rnd.randrange(16))], span)


with tempfile.TemporaryDirectory() as tmp:
    for name in LOGS:
        check_log(tmp, name)
    damage(tmp)
    coarse(tmp)

# most moments asked are in the logs: the comparisons compare answers
if answered < checks * 3 // 4:
    fail("only %d of %d comparisons had an answer" % (answered, checks))
print("%d checks (%d answered), %d failures%s" % (checks, answered, len(fails),
      "" if FULL else " (moments sampled; TK_TEST_FULL=1 for all)"))
sys.exit(1 if fails else 0)
