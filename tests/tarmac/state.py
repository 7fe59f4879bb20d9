#!/usr/bin/env python3
"""`tracekit tarmac regs`, `mem` and `history` on the corpus logs against
a replay of the log's lines written here (no tracekit code): the R lines
set registers (name as written, hex digits in lower case; an AArch64 Wn
is Xn zero-extended), the MR<n>/MW<n>
lines and the LD/ST lanes of Text Rev 3t set memory bytes (value little
endian; lanes highest address first, '..' not accessed).

At many lines of each log: `regs --line N` is the replayed register file,
`mem ADDR LEN --line N` the replayed bytes ('..' never seen) around the
addresses the log accesses; `--instr K` and `--time T` are the state at the
line the replay finds for them; `history --reg` / `--addr` list exactly the
replayed changes (line, old, new).  The regs moments of a log are asked
in one run (several moments: each answer after its '@ OPTION VALUE'
heading).

That is the whole test under `make test-full` (TK_TEST_FULL=1); `make test`
(the sanitized and the coverage builds of CI) asks regs and mem at 5 lines
spread over the span of each log where test-full asks at 15 (and at the
first, second, fifth and last line in both), every other query as
test-full does.

Usage: state.py CLI CORPUS_DIR"""
import os
import re
import subprocess
import sys

cli, corpus = sys.argv[1], sys.argv[2]
SPREAD = 15 if os.environ.get("TK_TEST_FULL") == "1" else 5
LOGS = ["quicksort.tarmac", "calltest32.tarmac", "calltest64.tarmac",
        "calculator-aarch64-gem5.tarmac", "calculator-aarch64-fastmodel.tarmac",
        "calculator-aarch32-fastmodel.tarmac",
        "calculator-aarch32-es-ld-st-style.tarmac",
        "calculator-aarch64-es-ld-st-style.tarmac", "crash32.tarmac",
        "crash32m.tarmac", "crash64.tarmac"]
fails = []
checks = 0


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def run(*args):
    p = subprocess.run([cli, "tarmac"] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


STAMP = re.compile(r"^\s*(\d+)\s*(fs|ps|ns|us|ms|s|clk|cyc|tic|cs)\s+(?:(cpu\d+)\s+)?(.*)$")


def regs_at(path, queries):
    """regs at each moment of queries ((option, value, what, wanted)),
    asked in one run: each answer against the replay's registers"""
    global checks
    out = run("regs", path, *[w for q in queries for w in q[:2]])
    parts = [] if len(queries) > 1 else [["@ %s %s\n" % queries[0][:2], out]]
    for row in out.splitlines(keepends=True) if len(queries) > 1 else []:
        if row.startswith("@ "):
            parts.append([row, ""])
        elif parts:
            parts[-1][1] += row
    if [h for h, _ in parts] != ["@ %s %s\n" % q[:2] for q in queries]:
        fail("%s: regs at %d moments: the headings are %r"
             % (path, len(queries), [h for h, _ in parts]))
        parts = [[None, None]] * len(queries)
    for q, (_, got) in zip(queries, parts):
        checks += 1
        if got != q[3]:
            fail("%s: regs %s:\n%s\nwanted:\n%s" % (os.path.basename(path), q[2], got, q[3]))


def replay(path):
    """Per line: the events the line makes. Returns a list of
    (line, time, kind, payload) and the instruction lines."""
    out = []
    time = 0
    prev_ldst = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            m = STAMP.match(line)
            if m:
                time = int(m.group(1))
                rest = m.group(4)
            else:
                rest = line.strip()
            tok = rest.split()
            if not tok:
                continue
            k = tok[0]
            if k in ("IT", "IS", "ES"):
                # executed: IT, ES not CCFAIL and not a failed fetch
                if k == "ES" and tok[1] != "EXC" and tok[1].startswith("("):
                    ex = "CCFAIL" not in rest and ":--------)" not in tok[1]
                    out.append((n, time, "I", ex))
                elif k == "IT":
                    out.append((n, time, "I", True))
                elif k == "IS":
                    out.append((n, time, "I", False))
                prev_ldst = None
            elif k == "R":
                name, v = tok[1], tok[2].lower()
                # AArch64 Wn (gem5) is Xn, zero-extended
                if re.fullmatch(r"[Ww]([0-9]|[12][0-9]|30)", name) and len(v) == 8:
                    name, v = ("X" if name[0] == "W" else "x") + name[1:], "0" * 8 + v
                out.append((n, time, "R", (name, v)))
                prev_ldst = None
            elif re.fullmatch(r"M[RW]\d+", k):
                addr = int(tok[1].split(":")[0], 16)
                size = int(k[2:])
                if tok[2] != "(ABORTED)":
                    v = int(tok[2], 16)
                    out.append((n, time, "M", {addr + i: (v >> (8 * i)) & 0xff
                                                for i in range(size)}))
                prev_ldst = None
            elif k in ("LD", "ST"):
                base = int(tok[1], 16)
                lanes = "".join(t for t in tok[2:6])
                assert len(lanes) == 32, line
                b = {}
                for j in range(16):          # j: the pair at base + j
                    pair = lanes[30 - 2 * j:32 - 2 * j]
                    if pair != "..":
                        b[base + j] = int(pair, 16)
                out.append((n, time, "M", b))
                prev_ldst = k
            else:
                prev_ldst = None
    return out


def state_at(ev, last_line):
    regs, mem = {}, {}
    for n, t, k, p in ev:
        if n > last_line:
            break
        if k == "R":
            if p[0] not in regs:
                regs[p[0]] = None
            regs[p[0]] = p[1]
        elif k == "M":
            mem.update(p)
    return regs, mem


def regs_text(regs):
    return "".join("%s 0x%s\n" % (r, v) for r, v in regs.items())


def mem_text(mem, addr, ln):
    out = []
    for i in range(0, ln, 16):
        row = ["%02x" % mem[addr + j] if addr + j in mem else ".."
               for j in range(i, min(ln, i + 16))]
        out.append("%08x  %s\n" % (addr + i, " ".join(row)))
    return "".join(out)


for log in LOGS:
    path = corpus + "/" + log
    ev = replay(path)
    n0 = len(fails)
    lines = [e[0] for e in ev]
    last = lines[-1]
    picks = sorted(set([1, 2, 5, last] + [lines[(i * 15 * len(lines)) // (23 * SPREAD)]
                                          for i in range(SPREAD)]))
    addrs = sorted({a for e in ev if e[2] == "M" for a in e[3]})
    # the regs queries of the log, asked in one run (regs_at)
    rq = []
    for n in picks:
        regs, mem = state_at(ev, n)
        rq.append(("--line", str(n), "--line %d" % n, regs_text(regs)))
        if addrs:
            a = addrs[(n * 7919) % len(addrs)] & ~0xf
            a = max(a - 16, 0)
            got = run("mem", path, "0x%x" % a, "48", "--line", str(n))
            checks += 1
            if got != mem_text(mem, a, 48):
                fail("%s: mem %x 48 --line %d:\n%s\nwanted:\n%s" %
                     (log, a, n, got, mem_text(mem, a, 48)))
    # --instr K: the state just before the instruction after the K-th executed
    instrs = [e for e in ev if e[2] == "I"]
    executed = [i for i, e in enumerate(instrs) if e[3]]
    for k in [1, len(executed) // 3, len(executed) // 2, len(executed)]:
        if k < 1:
            continue
        i = executed[k - 1]
        end = instrs[i + 1][0] - 1 if i + 1 < len(instrs) else last
        regs, mem = state_at(ev, end)
        rq.append(("--instr", str(k), "--instr %d (line %d)" % (k, end), regs_text(regs)))
    # --time T: the records up to the first one stamped later than T
    times = sorted({e[1] for e in ev})
    for t in [times[0], times[len(times) // 2], times[-1] - 1]:
        end = last
        for e in ev:
            if e[1] > t:
                end = e[0] - 1
                break
        regs, mem = state_at(ev, end)
        rq.append(("--time", str(t), "--time %d" % t, regs_text(regs)))
    regs_at(path, rq)
    # history --reg: every change of the two registers written most
    count = {}
    for e in ev:
        if e[2] == "R":
            count[e[3][0]] = count.get(e[3][0], 0) + 1
    for name in sorted(count, key=lambda r: -count[r])[:2]:
        want, old = [], None
        for n, t, k, p in ev:
            if k == "R" and p[0] == name and p[1] != old:
                want.append((n, old, p[1]))
                old = p[1]
        got = []
        for row in run("history", path, "--reg", name).splitlines():
            m = re.search(r" l:(\d+) pc:\S+  (\S+) (\S+) -> (\S+)$", row)
            if not m or m.group(2) != name:
                fail("%s: history --reg %s: line %r" % (log, name, row))
                continue
            o = None if m.group(3) == "unknown" else m.group(3)[2:]
            got.append((int(m.group(1)), o, m.group(4)[2:]))
        checks += 1
        if got != want:
            fail("%s: history --reg %s: %d changes, wanted %d; first apart: %s" %
                 (log, name, len(got), len(want),
                  next(((g, w) for g, w in zip(got, want) if g != w), None)))
    # history --addr: the 8 bytes most often accessed
    if addrs:
        hits = {}
        for e in ev:
            if e[2] == "M":
                for a in e[3]:
                    hits[a & ~7] = hits.get(a & ~7, 0) + 1
        a = max(sorted(hits), key=lambda x: hits[x])
        want, cur = [], {}
        for n, t, k, p in ev:
            if k != "M":
                continue
            new = dict(cur)
            for i in range(8):
                if a + i in p:
                    new[a + i] = p[a + i]
            if new != cur:
                want.append((n, " ".join("%02x" % new[a + i] if a + i in new else ".."
                                         for i in range(8))))
                cur = new
        got = []
        for row in run("history", path, "--addr", "%x" % a, "--len", "8").splitlines():
            m = re.search(r" l:(\d+) pc:\S+  (read|write) \S+ (.+) -> (.+)$", row)
            if not m:
                fail("%s: history --addr: line %r" % (log, row))
                continue
            got.append((int(m.group(1)), m.group(4)))
        checks += 1
        if got != want:
            fail("%s: history --addr %x: %d changes, wanted %d; first apart: %s" %
                 (log, a, len(got), len(want),
                  next(((g, w) for g, w in zip(got, want) if g != w), None)))
    if len(fails) == n0:
        print("ok: %s (%d lines, %d points)" % (log, last, len(picks)))

print("%d checks, %d failed" % (checks, len(fails)))
sys.exit(1 if fails else 0)
