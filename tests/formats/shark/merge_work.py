#!/usr/bin/env python3
"""The merge of a dump's ascending runs costs about what reading the same
records already in TSC order does (docs/shark.md, "Order").

The merge hands the reader a stretch of one run's records: those before
the next run's head, up to the end of the run's buffer (4096 records).
The reader takes only those its block has room for, or fewer (a record
for the slow path ends a block); the records it left used to be looked
through again at the next stretch, up to 4096 at each.

A dump of 30 000 records of common task, interrupt and job codes in three
runs (as orders.sh's sorted.bin), and the same records sorted by TSC:
the instructions callgrind counts for `tracekit info --from shark` on the
merged dump may be at most 1.5 times those on the sorted one.  Where
valgrind is missing: skipped (77).  CI runs it on its Release build
(label `release`): a sanitizer build cannot run under valgrind, and a
coverage build's counts are its counters'.

Usage: merge_work.py TRACEKIT"""
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

CLK = 367483
LIMIT = 1.5


def rec(code, par1, tsc, par2=0):
    return struct.pack('<HHIII', code, par1 & 0xffff, tsc >> 32,
                       tsc & 0xffffffff, par2 & 0xffffffff)


def mix(n, seed):
    """n records of the codes make_orders.py draws most, on six contexts
    (a FAST-free, irregular-free mix: every record the reader's fast
    path)"""
    rnd = random.Random(seed)
    tsc = 24305936302
    out = [rec(0x20, 256, tsc, CLK)]
    ctxs = [256 + 8 * k for k in range(6)]
    for k, c in enumerate(ctxs):
        tsc += 3
        out.append(rec(0x60, c, tsc, k))
    codes = [c for c, w in ((0x15, 30), (0x12, 8), (0x92, 8), (0x62, 8),
                            (0x42, 2), (0x82, 12), (0x03, 5), (0x13, 5),
                            (0x16, 4), (0x36, 4), (0x0B, 10), (0x1B, 10),
                            (0x01, 3)) for _ in range(w)]
    while len(out) < n:
        tsc += rnd.randint(1, 60)
        code = rnd.choice(codes)
        ctx = rnd.choice(ctxs)
        if code in (0x16, 0x36):
            out.append(rec(code, ctx, tsc, rnd.choice((0xdead0, 0xbeef0, 1))))
        elif code == 0x82:
            out.append(rec(code, ctx, tsc, ctx))
        elif code in (0x03, 0x13):
            out.append(rec(code, rnd.randint(0, 4), tsc))
        elif code == 0x01:
            out.append(rec(code, rnd.randint(0, 5), tsc, rnd.randint(0, 5)))
        elif code in (0x0B, 0x1B):
            out.append(rec(code, 0, tsc))
        else:
            out.append(rec(code, ctx, tsc, rnd.randint(0, 2)))
    return out


def count(tk, path, tmp):
    """the instructions of `tracekit info --from shark path`"""
    out = os.path.join(tmp, 'cg.out')
    p = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out,
                        tk, 'info', '--from', 'shark', path],
                       capture_output=True, text=True)
    m = re.search(r'Collected : (\d+)', p.stderr)
    if p.returncode != 0 or not m:
        print('FAIL: callgrind on %s: exit %d\n%s' % (path, p.returncode, p.stderr[-600:]))
        return None
    return int(m.group(1))


def main():
    tk = sys.argv[1]
    if not shutil.which('valgrind'):
        print('skip: valgrind is not installed')
        return 77
    s = mix(30000, 4)
    runs = s[:1000] + s[20000:25000] + s[1000:20000] + s[25000:]
    with tempfile.TemporaryDirectory() as tmp:
        merged = os.path.join(tmp, 'merged.bin')
        ordered = os.path.join(tmp, 'sorted.bin')
        with open(merged, 'wb') as f:
            f.write(b''.join(runs))
        with open(ordered, 'wb') as f:
            f.write(b''.join(s))
        # the merged dump is read as runs (a warning), the sorted one not
        p = subprocess.run([tk, 'info', '--from', 'shark', merged],
                           capture_output=True, text=True)
        if p.returncode != 0 or 'not in TSC order from offset 96000 on' not in p.stderr:
            print('FAIL: merged.bin: exit %d, no descent at offset 96000: %s'
                  % (p.returncode, p.stderr.strip()[:300]))
            return 1
        a, b = count(tk, merged, tmp), count(tk, ordered, tmp)
        if a is None or b is None:
            return 1
        print('merged: %d instructions, sorted: %d (x%.2f, at most x%.1f)'
              % (a, b, a / b, LIMIT))
        if a > LIMIT * b:
            print('FAIL: the merge costs x%.2f the sorted read' % (a / b))
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
