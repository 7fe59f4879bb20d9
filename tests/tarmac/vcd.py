#!/usr/bin/env python3
"""`tracekit tarmac vcd` on corpus logs: a VCD parser written here checks
the header (timescale, one scope per CPU, declared variables with their
widths), that times only grow, that every change names a declared variable
with as many bits as it declares; the PC at each time is the address of
the log's last instruction line stamped by then; and at several times T the
registers' values are those of `tarmac regs --time T` (checked against a
replay of the log in tests/tarmac/state.py).  Where they are installed,
vcd2fst and GTKWave (under xvfb-run, a Tcl script listing the signals) read
the file, GTKWave listing exactly the declared names (with their bits,
`cpu0.X0[63:0]`).

Usage: vcd.py CLI CORPUS_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

cli, corpus = sys.argv[1], sys.argv[2]
LOGS = ["quicksort.tarmac", "calltest32.tarmac", "calculator-aarch64-gem5.tarmac",
        "calculator-aarch32-fastmodel.tarmac", "calculator-aarch64-es-ld-st-style.tarmac",
        "crash32m.tarmac"]
fails = []
STAMP = re.compile(r"^\s*(\d+)\s*(fs|ps|ns|us|ms|s|clk|cyc|tic|cs)\s+(?:(cpu\d+)\s+)?(.*)$")


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def parse(path):
    """(vars {id: (scope, name, width)}, changes [(time, id, bits)])"""
    text = open(path).read()
    head, _, body = text.partition("$enddefinitions $end")
    if not body:
        raise ValueError("no $enddefinitions")
    if not re.search(r"\$timescale 1 (fs|ps|ns|us|ms|s) \$end", head):
        raise ValueError("no timescale")
    vars_, scope = {}, None
    for tok in re.finditer(r"\$scope module (\S+) \$end|\$upscope \$end|"
                           r"\$var (?:wire|string) (\d+) (\S+) (\S+) \$end", head):
        if tok.group(1):
            scope = tok.group(1)
        elif tok.group(0).startswith("$upscope"):
            scope = None
        else:
            if scope is None or tok.group(3) in vars_:
                raise ValueError("var outside a scope or id twice: " + tok.group(0))
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok.group(4)):
                raise ValueError("bad reference " + tok.group(4))
            vars_[tok.group(3)] = (scope, tok.group(4), int(tok.group(2)))
    changes, t = [], None
    for line in body.split("\n"):
        if not line:
            continue
        if line.startswith("#"):
            nt = int(line[1:])
            if t is not None and nt <= t:
                raise ValueError("time %d after %d" % (nt, t))
            t = nt
            continue
        m = re.fullmatch(r"s(\S+) (\S+)", line)
        if m and t is not None and vars_.get(m.group(2), (0, 0, -1))[2] == 0:
            changes.append((t, m.group(2), m.group(1)))
            continue
        m = re.fullmatch(r"b([01x]+) (\S+)", line)
        if not m or t is None or m.group(2) not in vars_:
            raise ValueError("bad change %r" % line)
        if len(m.group(1)) != vars_[m.group(2)][2]:
            raise ValueError("%r: %d bits for a %d-bit variable" %
                             (line, len(m.group(1)), vars_[m.group(2)][2]))
        changes.append((t, m.group(2), m.group(1)))
    return vars_, changes


def value_at(changes, ident, t):
    v = None
    for ct, i, bits in changes:
        if ct > t:
            break
        if i == ident:
            v = bits
    return v


def bits_of(hexv, width):
    b = "".join("xxxx" if c == "-" else format(int(c, 16), "04b") for c in hexv)
    return "0" * (width - len(b)) + b


tmp = tempfile.mkdtemp()
gtk = shutil.which("gtkwave") and shutil.which("xvfb-run")
for log in LOGS:
    path = os.path.join(corpus, log)
    out = os.path.join(tmp, log + ".vcd")
    p = subprocess.run([cli, "tarmac", "vcd", path, out], capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (log, p.returncode, p.stderr))
        continue
    try:
        vars_, changes = parse(out)
    except ValueError as e:
        fail("%s: %s" % (log, e))
        continue
    n0 = len(fails)
    # the PC: the last instruction line stamped by then
    pcid = [i for i, v in vars_.items() if v[1] == "pc"]
    if len(pcid) != 1:
        fail("%s: %d pc variables" % (log, len(pcid)))
        continue
    pcid = pcid[0]
    instr, t = [], 0
    for line in open(path, errors="replace"):
        m = STAMP.match(line)
        rest = m.group(4) if m else line.strip()
        if m:
            t = int(m.group(1))
        tok = rest.split()
        if tok and tok[0] in ("IT", "IS"):
            instr.append((t, int(tok[2], 16)))
        elif tok and tok[0] == "ES" and tok[1].startswith("("):
            instr.append((t, int(tok[1][1:].split(":")[0], 16)))
    times = sorted({c[0] for c in changes})
    picks = [times[(i * len(times)) // 9] for i in range(9)] + [times[-1]]
    for t in picks:
        want = [a for ti, a in instr if ti <= t]
        got = value_at(changes, pcid, t)
        if (got is None) != (not want) or (want and int(got, 2) != want[-1]):
            fail("%s: pc at %d: %s, wanted %s" % (log, t, got and hex(int(got, 2)),
                                                  want and hex(want[-1])))
        regs = subprocess.run([cli, "tarmac", "regs", path, "--time", str(t)],
                              capture_output=True, text=True).stdout
        byname = {v[1]: i for i, v in vars_.items()}
        for row in regs.splitlines():
            name, val = row.split(" ", 1)
            if not val.startswith("0x"):
                continue
            ref = re.sub(r"[^A-Za-z0-9_]", "_", name)
            if ref not in byname:
                fail("%s: %s not declared" % (log, name))
                continue
            i = byname[ref]
            got = value_at(changes, i, t)
            if got != bits_of(val[2:], vars_[i][2]):
                fail("%s: %s at %d: %s, regs says %s" % (log, name, t, got, val))
    if shutil.which("vcd2fst"):
        p = subprocess.run(["vcd2fst", out, out + ".fst"], capture_output=True, text=True)
        if p.returncode != 0 or "error" in (p.stdout + p.stderr).lower():
            fail("%s: vcd2fst: %s" % (log, p.stderr))
    if gtk:
        tcl = os.path.join(tmp, "list.tcl")
        with open(tcl, "w") as f:
            f.write('set n [ gtkwave::getNumFacs ]\nfor {set i 0} {$i < $n} {incr i} {\n'
                    '    puts "TKFAC [ gtkwave::getFacName $i ]"\n}\ngtkwave::/File/Quit\n')
        p = subprocess.run(["xvfb-run", "-a", "gtkwave", "-S", tcl, out],
                           capture_output=True, text=True, timeout=120)
        # GTKWave names a vector with its bits: cpu0.X0[63:0]
        listed = sorted(l[6:].strip() for l in p.stdout.splitlines() if l.startswith("TKFAC "))
        want = sorted("%s.%s[%d:0]" % (v[0], v[1], v[2] - 1) for v in vars_.values())
        if p.returncode != 0 or listed != want:
            fail("%s: GTKWave: exit %d, %d signals listed, %d declared (%s)" %
                 (log, p.returncode, len(listed), len(want),
                  sorted(set(listed) ^ set(want))[:5]))
    if len(fails) == n0:
        print("ok: %s (%d variables, %d changes%s)" %
              (log, len(vars_), len(changes), ", GTKWave read it" if gtk else ""))


def symbols(elf):
    """FUNC symbols [(lo, hi, name)] and the other named code labels
    [(addr, name)] of `elf`, by readelf (mapping symbols $a $t $x $d left out)"""
    funcs, labels = [], []
    out = subprocess.run(["readelf", "-sW", elf], capture_output=True, text=True).stdout
    for row in out.splitlines():
        f = row.split()
        if len(f) < 8 or not f[0][:-1].isdigit() or f[6] in ("UND", "ABS"):
            continue
        addr, size, typ, name = int(f[1], 16) & ~1, int(f[2], 0), f[3], f[7]
        if typ == "FUNC" and size:
            funcs.append((addr, addr + size, name))
        elif typ == "NOTYPE" and not name.startswith("$"):
            labels.append((addr, name))
    return funcs, sorted(labels)


def func_of(funcs, labels, pc):
    for lo, hi, name in funcs:
        if lo <= pc < hi:
            return name
    best = None
    for a, name in labels:
        if a <= pc:
            best = name
    return best or "[unknown]"


# --elf: a "func" string per CPU, the function of the PC at every change
for log, elf in (("quicksort.tarmac", "quicksort.elf"), ("calltest32.tarmac", "calltest32.elf"),
                 ("calltest64.tarmac", "calltest64.elf")):
    path, elfp = os.path.join(corpus, log), os.path.join(corpus, "elf", elf)
    out = os.path.join(tmp, log + ".elf.vcd")
    p = subprocess.run([cli, "tarmac", "vcd", path, out, "--elf", elfp],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s --elf: exit %d: %s" % (log, p.returncode, p.stderr))
        continue
    try:
        vars_, changes = parse(out)
    except ValueError as e:
        fail("%s --elf: %s" % (log, e))
        continue
    funcs, labels = symbols(elfp)
    fid = [i for i, v in vars_.items() if v[1] == "func"]
    pcid = [i for i, v in vars_.items() if v[1] == "pc"]
    if len(fid) != 1 or len(pcid) != 1:
        fail("%s --elf: %d func and %d pc variables" % (log, len(fid), len(pcid)))
        continue
    times = sorted({c[0] for c in changes if c[1] == pcid[0]})
    bad = 0
    names = set()
    for t in times:
        pc = int(value_at(changes, pcid[0], t), 2)
        got, want = value_at(changes, fid[0], t), func_of(funcs, labels, pc)
        names.add(got)
        if got != want and bad < 3:
            fail("%s --elf: func at %d (pc %#x): %s, the symbols say %s" % (log, t, pc, got, want))
            bad += 1
    if "[unknown]" in names or len(names) < 3:
        fail("%s --elf: names %s" % (log, sorted(names)[:8]))
    if gtk:
        p = subprocess.run(["xvfb-run", "-a", "gtkwave", "-S", tcl, out],
                           capture_output=True, text=True, timeout=120)
        listed = [l[6:].strip() for l in p.stdout.splitlines() if l.startswith("TKFAC ")]
        if p.returncode != 0 or not any(l.endswith(".func") for l in listed):
            fail("%s --elf: GTKWave: exit %d, signals %s" % (log, p.returncode, listed[:5]))
    if shutil.which("vcd2fst"):
        p = subprocess.run(["vcd2fst", out, out + ".fst"], capture_output=True, text=True)
        if p.returncode != 0 or "error" in (p.stdout + p.stderr).lower():
            fail("%s --elf: vcd2fst: %s" % (log, p.stderr))
    if not bad:
        print("ok: %s --elf (%d times, %d functions)" % (log, len(times), len(names)))
shutil.rmtree(tmp)
sys.exit(1 if fails else 0)
