#!/usr/bin/env python3
"""The call graphs of the corpus logs (`stats LOG --elf ELF --format json`)
against what is known without tracekit's stack rules:

- a per-PC count of the log's executed instructions (IT/IE/IA lines, and
  ES lines that are neither CCFAIL nor fetch-failed), summed per function
  of the ELF's symbols (read here with struct, not libelf): every function's
  self instructions;
- the call sites of the disassembly (llvm-objdump): every executed BL/BLX/BLR
  at a site in function P whose next executed instruction is the entry of
  function C is one call P -> C; the tree's calls summed per (caller,
  callee) must be those, and no edge may be missing from the log's calls;
- for calltest32/64 (Arm's calltest32.S / calltest64.S, whose assembler
  labels are STT_NOTYPE symbols) the call tree the sources mean, written out
  below, including the calls made by the link-register convention
  (MOV lr,pc; BX r1 and LDR lr,=loopstart; B leaf_bx_lr).

Usage: callgraph.py CLI CORPUS_DIR   (exit 77 without llvm-objdump)"""
import json
import re
import shutil
import struct
import subprocess
import sys

cli, corpus = sys.argv[1], sys.argv[2]
objdump = shutil.which("llvm-objdump")
if not objdump:
    print("skip: no llvm-objdump")
    sys.exit(77)
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def ok(what, n0):
    if len(fails) == n0:
        print("ok", what)


def elf_symbols(path):
    """(address, size, name, type) of FUNC and NOTYPE symbols, code only."""
    b = open(path, "rb").read()
    is64 = b[4] == 2
    if is64:
        shoff, = struct.unpack_from("<Q", b, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", b, 0x3A)
    else:
        shoff, = struct.unpack_from("<I", b, 0x20)
        shentsize, shnum = struct.unpack_from("<HH", b, 0x2E)
    secs = []
    for i in range(shnum):
        o = shoff + i * shentsize
        if is64:
            name, typ, flags, addr, off, size, link, info, align, entsize = \
                struct.unpack_from("<IIQQQQIIQQ", b, o)
        else:
            name, typ, flags, addr, off, size, link, info, align, entsize = \
                struct.unpack_from("<IIIIIIIIII", b, o)
        secs.append((typ, flags, addr, off, size, link, entsize))
    out = []
    for typ, flags, addr, off, size, link, entsize in secs:
        if typ != 2:
            continue
        stroff = secs[link][3]
        for k in range(size // entsize):
            o = off + k * entsize
            if is64:
                nm, info, other, shndx, value, ssize = struct.unpack_from("<IBBHQQ", b, o)
            else:
                nm, value, ssize, info, other, shndx = struct.unpack_from("<IIIBBH", b, o)
            name = b[stroff + nm:b.index(b"\0", stroff + nm)].decode()
            st = info & 15
            if st not in (0, 2) or shndx == 0 or shndx >= 0xff00 or not name:
                continue
            if not secs[shndx][1] & 4:      # SHF_EXECINSTR
                continue
            out.append((value & ~1 if not is64 else value, ssize, name,
                        "FUNC" if st == 2 else "NOTYPE", secs[shndx][2] + secs[shndx][4]))
    return out


def regions(syms):
    """address -> name: functions first, labels where no function is."""
    funcs = sorted((a, s, n) for a, s, n, t, e in syms if t == "FUNC" and s)
    starts = sorted(set(a for a, s, n, t, e in syms))
    regs = [(a, a + s, n) for a, s, n in funcs]

    def in_func(x):
        return any(a <= x < e for a, e, n in regs)
    for a, s, n, t, end in sorted(syms):
        if t != "NOTYPE" or n.startswith("$") or in_func(a):
            continue
        if any(r[0] == a for r in regs):
            continue
        nxt = [x for x in starts if x > a]
        e = min([end] + nxt[:1] + [x for x, s2, n2, t2, e2 in syms if n2.startswith("$d") and x > a][:1])
        regs.append((a, e, n))
    regs.sort()
    return regs


def find(regs, pc):
    for a, e, n in regs:
        if a <= pc < e:
            return n
    return "[unknown]"


INSTR = re.compile(r"^\s*\S+\s*(?:\S+\s+)?(?:cpu\d+\s+)?(IT|IS|IE|IA|IF|ES)\s+\((\w+)(?::([-0-9a-fA-F]+))?\)\s+([0-9a-fA-F_]+)?")


def instructions(log):
    """[(pc, executed, stamp)] of the instructions, in order."""
    out = []
    for line in open(log, errors="replace"):
        t = re.match(r"\s*(\d+)", line)
        t = int(t.group(1)) if t else None
        m = re.search(r"\b(IT|IS|IE|IA|IF)\s+\(\d+\)\s+([0-9a-fA-F_]+)\s", line)
        if m:
            out.append((int(m.group(2).replace("_", ""), 16), m.group(1) != "IS", t))
            continue
        m = re.search(r"\bES\s+\(([0-9a-fA-F]+):([-0-9a-fA-F]+)\)", line)
        if m and "-" not in m.group(2):
            out.append((int(m.group(1), 16), "CCFAIL" not in line, t))
    return out


def executed(log):
    """[(pc)] of the executed instructions, in order."""
    return [pc for pc, x, t in instructions(log) if x]


def call_sites(elf):
    """The pcs of every BL/BLX/BLR of the disassembly, and of every B."""
    d = subprocess.run([objdump, "-d", "--no-show-raw-insn", elf],
                       capture_output=True, text=True, check=True).stdout
    sites, jumps = set(), set()
    for line in d.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        if m.group(2) in ("bl", "blx", "blr") or re.match(r"bl(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)$", m.group(2)):
            sites.add(int(m.group(1), 16))
        elif m.group(2) == "b":
            jumps.add(int(m.group(1), 16))
    return sites, jumps


def profile(log, elf):
    r = subprocess.run([cli, "stats", "-q", log, "--elf", elf, "--format", "json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{log}: exit {r.returncode}: {r.stderr}")
        return None
    return json.loads(r.stdout)


def walk(nodes, parent, f):
    for n in nodes:
        f(parent, n)
        walk(n["children"], n["name"], f)


def check_compiled(name, elfname):
    n0 = len(fails)
    log, elf = f"{corpus}/{name}.tarmac", f"{corpus}/elf/{elfname}.elf"
    d = profile(log, elf)
    if d is None:
        return
    regs = regions(elf_symbols(elf))
    entries = {a: n for a, e, n in regs}
    pcs = executed(log)
    # per-PC counts, per function
    want_self = {}
    for pc in pcs:
        n = find(regs, pc)
        want_self[n] = want_self.get(n, 0) + 1
    got_self = {f["name"]: f["self_instructions"] for f in d["functions"]}
    if got_self != want_self:
        fail(f"{name}: self instructions {sorted(set(got_self.items()) ^ set(want_self.items()))}")
    # per-PC times: an instruction (executed or skipped) runs to the next
    # one's stamp, and is its function's (a skipped one just after a
    # return is the caller's)
    ins = instructions(log)
    want_time = {}
    for (pc, x, t), nxt in zip(ins, ins[1:]):
        n = find(regs, pc)
        want_time[n] = want_time.get(n, 0) + nxt[2] - t
    got_time = {f["name"]: f["self_time"] for f in d["functions"]}
    want_time = {k: v for k, v in want_time.items() if v or k in got_time}
    if got_time != want_time:
        fail(f"{name}: self time {sorted(set(got_time.items()) ^ set(want_time.items()))}")
    # calls per (caller, callee) from the call sites
    sites, jumps = call_sites(elf)
    want, tail = {}, {}
    for i in range(len(pcs) - 1):
        if pcs[i + 1] not in entries:
            continue
        k = (find(regs, pcs[i]), entries[pcs[i + 1]])
        if pcs[i] in sites:
            want[k] = want.get(k, 0) + 1
        elif pcs[i] in jumps and k[0] != k[1]:
            tail[k] = tail.get(k, 0) + 1   # a tail call F -> C
    got = {}

    def edge(parent, n):
        # (a CPU's root is no function)
        if parent is not None and not re.match(r"cpu\d+$", parent):
            got[(parent, n["name"])] = got.get((parent, n["name"]), 0) + n["calls"]
    walk(d["call_tree"], None, edge)
    # a tail call F -> C is a call of C by F's caller X
    extra = {k: v - want.get(k, 0) for k, v in got.items() if v != want.get(k, 0)}
    for (x, c), v in list(extra.items()):
        for (f, c2), n in tail.items():
            if c2 == c and (x, f) in want and v > 0:
                v -= min(v, n)
        extra[(x, c)] = v
    extra = {k: v for k, v in extra.items() if v}
    missing = {k: v for k, v in want.items() if k not in got}
    if extra or missing:
        fail(f"{name}: calls not from the call sites {extra}, missing {missing}")
    ok(f"{name}: {len(pcs)} instructions, {sum(want.values())} calls, "
       f"{len(want)} caller-callee pairs", n0)


def tree(nodes):
    return [(n["name"], n["calls"], n["self_instructions"], tree(n["children"]))
            for n in sorted(nodes, key=lambda n: n["name"])]


def t(name, calls, self_i, *kids):
    return (name, calls, self_i, sorted(kids))


# The call trees of Arm's calltest32.S / calltest64.S: calls by BL, BLX,
# BLR, by MOV lr,pc; BX r1 and by LDR lr,=loopstart; B leaf (3 times in
# calltest32, 4 in calltest64), a helper that branches through r1/x1 (a
# tail call: leaf_mov_pc_lr / leaf_ret then count as called from _start).
# The labels inside functions (loopstart, done, the *_internal_label ones)
# are places in their function, not functions; `bl internal_bl_label` is
# a BL used as a branch (its return address is never reached): no call, its
# instructions are internal_bl's, as calltest32.S says and Arm's tools show.
EXPECT = {
    "calltest32": [t("_start", 1, 31,
                     t("leaf_bx_lr", 4, 16),
                     t("nonleaf_pop_pc", 1, 4, t("leaf_bx_lr", 1, 4), t("leaf_mov_pc_lr", 1, 4)),
                     t("nonleaf_pop_lr", 1, 5, t("leaf_mov_pc_lr", 1, 4), t("leaf_bx_lr", 1, 4)),
                     t("call_via_r1", 1, 1),
                     t("leaf_mov_pc_lr", 1, 4),
                     t("internal_bl", 1, 9),
                     t("internal_bx_lr", 1, 8),
                     t("branch_after_call_wrapper", 1, 4, t("branch_after_call", 1, 6)))],
    "calltest64": [t("_start", 1, 34,
                     t("leaf_ret", 6, 24),
                     t("nonleaf_pop_lr", 1, 5, t("leaf_ret", 2, 8)),
                     t("call_via_x1", 1, 1),
                     t("branch_after_call_wrapper", 1, 4, t("branch_after_call", 1, 6)))],
}


def check_calltest(name):
    n0 = len(fails)
    d = profile(f"{corpus}/{name}.tarmac", f"{corpus}/elf/{name}.elf")
    if d is None:
        return
    got, want = tree(d["call_tree"]), sorted(EXPECT[name])

    def norm(x):
        return [(a, b, c, norm(k)) for a, b, c, k in sorted(x)]
    if norm(got) != norm(want):
        fail(f"{name}: call tree\n got  {norm(got)}\n want {norm(want)}")
    total = sum(f["self_instructions"] for f in d["functions"])
    if total != len(executed(f"{corpus}/{name}.tarmac")):
        fail(f"{name}: {total} instructions in the profile")
    if any(f["name"] == "[unknown]" for f in d["functions"]):
        fail(f"{name}: [unknown] code")
    ok(name, n0)


def check_backwards():
    """quicksort with the stamp of line 199 (an instruction) made 2 instead
    of 20: no function's time may exceed the log's span, and one warning
    says so; the folded stacks weighted by time sum to no more than the
    span either."""
    n0 = len(fails)
    import os
    import tempfile
    lines = open(f"{corpus}/quicksort.tarmac").read().split("\n")
    assert lines[198].startswith("20 clk IT")
    lines[198] = "2" + lines[198][2:]
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "back.tarmac")
        open(log, "w").write("\n".join(lines))
        r = subprocess.run([cli, "stats", log, "--elf", f"{corpus}/elf/quicksort.elf",
                            "--format", "json"], capture_output=True, text=True)
        f = subprocess.run([cli, "tarmac", "folded", log, "--elf",
                            f"{corpus}/elf/quicksort.elf", "--weight", "time"],
                           capture_output=True, text=True)
    total = sum(int(ln.rsplit(" ", 1)[1]) for ln in f.stdout.splitlines())
    fwarn = [x for x in f.stderr.splitlines() if "1 earlier than the one before" in x]
    if f.returncode != 0 or total > 2043 or len(fwarn) != 1 or len(f.stderr.splitlines()) != 1:
        fail(f"backwards: folded --weight time: exit {f.returncode}, total {total}, "
             f"warnings {f.stderr!r}")
    if r.returncode != 0:
        fail(f"backwards: exit {r.returncode}")
        return
    d = json.loads(r.stdout)
    top = max(f["time"] for f in d["functions"])
    if top > 2043:
        fail(f"backwards: a function's time {top} on a span of 2043")
    warn = [x for x in r.stderr.splitlines() if "earlier than the one before" in x]
    if len(warn) != 1 or "1 earlier" not in warn[0]:
        fail(f"backwards: warnings {r.stderr!r}")
    ok("backwards", n0)


SITE = re.compile(r"(from|entry|exit|last|back) t:(\d+) l:(\d+) pc:0x([0-9a-f]+)")


def check_calls(name, elfname):
    """`tarmac calls`: every site names a line of the log that holds an
    instruction at that pc and stamp; an entry is the callee's first
    address; a call by BL comes from a call site of the disassembly and goes
    back to the instruction after it; the calls per function are those of
    the profile."""
    n0 = len(fails)
    log, elf = f"{corpus}/{name}.tarmac", f"{corpus}/elf/{elfname}.elf"
    r = subprocess.run([cli, "tarmac", "calls", "-q", log, "--elf", elf],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{name}: calls: exit {r.returncode}: {r.stderr}")
        return
    lines = open(log, errors="replace").read().split("\n")
    starts = {n: a for a, e, n in regions(elf_symbols(elf))}
    sites, jumps = call_sites(elf)
    per_name = {}
    last = {}          # depth -> the sites of the last call listed there
    for out in r.stdout.splitlines():
        m = re.match(r"(?:cpu\d+: )?\s*(\S+)  \(([a-z ]+), depth (\d+)\)", out)
        if not m:
            fail(f"{name}: calls: line {out!r}")
            continue
        callee, kind = m.group(1), m.group(2)
        per_name[callee] = per_name.get(callee, 0) + 1
        at = {w: (int(t), int(l), int(pc, 16)) for w, t, l, pc in SITE.findall(out)}
        for w, (t, l, pc) in at.items():
            text = lines[l - 1]
            m2 = re.search(r"\b(?:IT|IS|IE|IA|IF)\s+\(\d+\)\s+([0-9a-fA-F_]+)|\bES\s+\(([0-9a-fA-F]+):", text)
            lt = re.match(r"\s*(\d+)", text)
            if not m2 or int((m2.group(1) or m2.group(2)).replace("_", ""), 16) != pc or \
                    not lt or int(lt.group(1)) != t:
                fail(f"{name}: calls: {w} t:{t} l:{l} pc:{pc:#x} is not line {l}: {text!r}")
        if callee in starts and at["entry"][2] != starts[callee]:
            fail(f"{name}: calls: {callee} entered at {at['entry'][2]:#x}")
        depth = int(m.group(3))
        last[depth] = at
        # back after the call, or popped with its caller (a return that
        # skips a frame: calltest32's internal_bl_label)
        if kind == "call" and at["from"][2] in sites and "back" in at and \
                at["back"][2] != at["from"][2] + 4 and \
                not (depth - 1 in last and last[depth - 1].get("back") == at["back"]):
            fail(f"{name}: calls: {callee} called at {at['from'][2]:#x} back at {at['back'][2]:#x}")
        if kind == "call" and at["from"][2] not in sites and not name.startswith("calltest"):
            fail(f"{name}: calls: {callee} called from {at['from'][2]:#x}, no call site")
    d = profile(log, elf)
    want = {f["name"]: f["calls"] for f in d["functions"]} if d else {}
    if per_name != want:
        fail(f"{name}: calls per function {sorted(set(per_name.items()) ^ set(want.items()))}")
    ok(f"{name}: {sum(per_name.values())} calls listed", n0)


def check_multicpu():
    """calltest32 on two CPUs, its lines interleaved (cpu0's line, then the
    same line on cpu1): `tarmac calls` lists for each CPU the calls of the
    one-CPU log (the BL used as a branch, undone while the call logged last
    is the other CPU's, is dropped too), their sites on the lines of the
    two-CPU log."""
    n0 = len(fails)
    import os
    import tempfile
    stamp = re.compile(r"^(\s*\d+\s*(?:fs|ps|ns|us|ms|s|clk|cyc|tic|cs)\s+)(.*)$")
    elf = f"{corpus}/elf/calltest32.elf"
    src = open(f"{corpus}/calltest32.tarmac").read().split("\n")
    out, where = [], {}
    for i, ln in enumerate(src):
        m = stamp.match(ln)
        if not m:
            out.append(ln)
            continue
        for cpu in ("cpu0", "cpu1"):
            out.append(m.group(1) + cpu + " " + m.group(2))
            where[(cpu, i + 1)] = len(out)
    one = subprocess.run([cli, "tarmac", "calls", "-q", f"{corpus}/calltest32.tarmac",
                          "--elf", elf], capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "two.tarmac")
        open(log, "w").write("\n".join(out))
        two = subprocess.run([cli, "tarmac", "calls", "-q", log, "--elf", elf],
                             capture_output=True, text=True)
    if one.returncode != 0 or two.returncode != 0:
        fail(f"multicpu: calls: exit {one.returncode}, {two.returncode}: {two.stderr}")
        return
    if "internal_bl_label" in one.stdout:
        fail("multicpu: the one-CPU log lists the undone call")
    for cpu in ("cpu0", "cpu1"):
        want = [re.sub(r"l:(\d+)", lambda m: "l:%d" % where[(cpu, int(m.group(1)))], ln)
                for ln in one.stdout.splitlines()]
        got = [ln[len(cpu) + 2:] for ln in two.stdout.splitlines()
               if ln.startswith(cpu + ": ")]
        if got != want:
            fail(f"multicpu: {cpu}: calls\n got  {got}\n want {want}")
    ok("multicpu: calltest32 on two CPUs", n0)


check_backwards()
check_multicpu()
for n, e in (("calltest32", "calltest32"), ("calltest64", "calltest64"),
             ("quicksort", "quicksort"),
             ("calculator-aarch64-fastmodel", "calculator-aarch64"),
             ("calculator-aarch32-es-ld-st-style", "calculator-aarch32")):
    check_calls(n, e)
check_calltest("calltest32")
check_calltest("calltest64")
check_compiled("quicksort", "quicksort")
for v in ("fastmodel", "es-ld-st-style"):
    check_compiled(f"calculator-aarch32-{v}", "calculator-aarch32")
    check_compiled(f"calculator-aarch64-{v}", "calculator-aarch64")
check_compiled("calculator-aarch64-gem5", "calculator-aarch64")
sys.exit(1 if fails else 0)
