#!/usr/bin/env python3
"""The byte order of the data side (`tarmac mem`, `history --addr`): small
logs written here by hand, their bytes worked out by hand below (not by
tracekit's rules).

A value of a memory line (MW4, MW2, MW8, the MW16 of 128 bits) is laid out
little-endian unless the log is big-endian (BE8): with --big-endian, or by
default when the CPSR of the CPU, as last written, has its E bit (9) set
in AArch32 state (M[4], bit 4, set; an AArch64 cpsr's bit 9 is D);
--little-endian makes it little-endian whatever the CPSR says.  The lanes
of an ST line (each byte at its address) and a data-port line of the
spec's form ("MNW4___D", bytes in memory order) read the same in either
order.  Memory is shared: on a log of several CPUs each access follows
the byte order of the CPU that made it, whichever CPU --cpu chooses.
Each log is read from its start and, padded to many spans, with the
index (--index-span 256), whose checkpoints carry the CPSR.

Usage: byteorder.py CLI"""
import os
import subprocess
import sys
import tempfile

cli = sys.argv[1]
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


MEM = """{t} clk MW4 00001000:000000001000 11223344
{t} clk MW2 00001006:000000001006 aabb
{t} clk MW1 00001007:000000001007 cc
{t} clk MW8 00001008:000000001008 01020304_05060708
{t} clk ST 00001010 ........ ........ ........ deadbeef    S:00001010    nGnRnE OSH
{t} clk MNW4___D 00001020 11223344
{t} clk MW16 00001030:000000001030 00112233445566778899aabbccddeeff
"""
# the 64 bytes from 0x1000 after MEM, per order (".." never written)
BE = ("11 22 33 44 .. .. aa cc 01 02 03 04 05 06 07 08 "
      "ef be ad de .. .. .. .. .. .. .. .. .. .. .. .. "
      "11 22 33 44 .. .. .. .. .. .. .. .. .. .. .. .. "
      "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff").split()
LE = ("44 33 22 11 .. .. bb cc 08 07 06 05 04 03 02 01 "
      "ef be ad de .. .. .. .. .. .. .. .. .. .. .. .. "
      "11 22 33 44 .. .. .. .. .. .. .. .. .. .. .. .. "
      "ff ee dd cc bb aa 99 88 77 66 55 44 33 22 11 00").split()


def log(cpsr_first, cpsr_then, pad):
    """cpsr_first, then (after pad instructions) cpsr_then and MEM, then
    pad instructions more"""
    out, t = ["0 clk R cpsr %s" % cpsr_first], 1

    def instrs(n):
        nonlocal t
        for _ in range(n):
            out.append("%d clk IT (%d) 00020150 e3a00601 A svc_s : MOV      r0,#0x100000"
                       % (t, t))
            t += 1
    instrs(1 + pad)
    out.append("%d clk R cpsr %s" % (t, cpsr_then))
    out.extend(MEM.format(t=t).splitlines())
    instrs(1 + pad)
    return "\n".join(out) + "\n"


def mem(path, *opts):
    r = subprocess.run([cli, "tarmac", "mem", path, "1000", "64"] + list(opts),
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("mem %s: exit %d: %s" % (" ".join(opts), r.returncode, r.stderr.strip()))
        return None
    return [w for ln in r.stdout.splitlines() for w in ln.split()[1:]]


def history(path, *opts):
    r = subprocess.run([cli, "tarmac", "history", path, "--addr", "1000", "--len", "4"]
                       + list(opts), capture_output=True, text=True)
    if r.returncode != 0:
        fail("history %s: exit %d: %s" % (" ".join(opts), r.returncode, r.stderr.strip()))
        return None
    return r.stdout.split("->")[-1].split()


checks = 0
with tempfile.TemporaryDirectory() as tmp:
    # E clear, E set (BE8 from the start), E set only before the data (a
    # SETEND BE), E set then cleared (SETEND LE); an AArch64 cpsr (PSTATE,
    # M[4] clear) whose bit 9 is D, not E
    for name, first, then, auto in (("le", "000001d3", "000001d3", LE),
                                    ("be8", "000003d3", "000003d3", BE),
                                    ("setend-be", "000001d3", "000003d3", BE),
                                    ("setend-le", "000003d3", "000001d3", LE),
                                    ("aarch64", "000003cd", "000003cd", LE)):
        for pad, idx in ((0, ["--no-index"]), (400, ["--index-span", "256"])):
            path = os.path.join(tmp, "%s-%d.tarmac" % (name, pad))
            open(path, "w").write(log(first, then, pad))
            if pad and os.path.getsize(path) < 16 * 256:
                fail("%s: too short for an index" % path)
            for opts, want in (([], auto), (["--big-endian"], BE),
                               (["--little-endian"], LE)):
                checks += 1
                got = mem(path, *opts, *idx)
                if got is not None and got != want:
                    fail("%s mem %s: %s, want %s" % (name, " ".join(opts + idx),
                                                      " ".join(got), " ".join(want)))
                checks += 1
                got = history(path, *opts, *idx)
                if got is not None and got != want[:4]:
                    fail("%s history %s: %s, want %s" % (name, " ".join(opts + idx),
                                                          " ".join(got), " ".join(want[:4])))
    # two CPUs sharing the memory, each access in the byte order of the
    # CPU that made it (its CPSR as last written), whichever CPU --cpu
    # chooses: cpu1 big-endian writes 0x1000, then cpu1 turns
    # little-endian and cpu0 big-endian; cpu0 writes 0x1008, cpu1 0x100c
    # and 0x1004 (read)
    for pad, idx in ((0, ["--no-index"]), (400, ["--index-span", "256"])):
        out, t = ["0 clk cpu0 R cpsr 000001d3", "0 clk cpu1 R cpsr 000003d3"], 1

        def instrs(n):
            global t
            for _ in range(n):
                for c in (0, 1):
                    out.append("%d clk cpu%d IT (%d) 00020150 e3a00601 A svc_s : "
                               "MOV      r0,#0x100000" % (t, c, t))
                t += 1
        # the accesses and CPSR writes together after the last instruction
        # (with the index: read on from its last checkpoint)
        instrs(1 + pad)
        out.append("%d clk cpu1 MW4 00001000:000000001000 11223344" % t)
        out.append("%d clk cpu1 R cpsr 000001d3" % t)
        out.append("%d clk cpu0 R cpsr 000003d3" % t)
        out.append("%d clk cpu0 MW4 00001008:000000001008 55667788" % t)
        out.append("%d clk cpu1 MW4 0000100c:00000000100c 99aabbcc" % t)
        out.append("%d clk cpu1 MR4 00001004:000000001004 01020304" % t)
        path = os.path.join(tmp, "two-cpus-%d.tarmac" % pad)
        open(path, "w").write("\n".join(out) + "\n")
        want = "11 22 33 44 04 03 02 01 55 66 77 88 cc bb aa 99".split()
        for cpu in ([], ["--cpu", "cpu0"], ["--cpu", "cpu1"]):
            checks += 1
            r = subprocess.run([cli, "tarmac", "mem", path, "1000", "16"] + cpu + idx,
                               capture_output=True, text=True)
            got = [w for ln in r.stdout.splitlines() for w in ln.split()[1:]]
            if r.returncode != 0 or got != want:
                fail("two CPUs: mem %s: exit %d, %s, want %s: %s"
                     % (" ".join(cpu + idx), r.returncode, " ".join(got), " ".join(want),
                        r.stderr.strip()))
            checks += 1
            r = subprocess.run([cli, "tarmac", "history", path, "--addr", "1000", "--len", "16"]
                               + cpu + idx, capture_output=True, text=True)
            got = r.stdout.split("->")[-1].split()
            if r.returncode != 0 or got != want:
                fail("two CPUs: history %s: exit %d, %s, want %s: %s"
                     % (" ".join(cpu + idx), r.returncode, " ".join(got), " ".join(want),
                        r.stderr.strip()))
    r = subprocess.run([cli, "tarmac", "mem", path, "1000", "--big-endian", "--little-endian"],
                       capture_output=True, text=True)
    checks += 1
    if r.returncode == 0 or r.stdout:
        fail("--big-endian --little-endian: exit %d, %r" % (r.returncode, r.stdout))
print("%d checks, %d failed" % (checks, len(fails)))
sys.exit(1 if fails else 0)
