#!/usr/bin/env python3
"""The scan at open (docs/shark.md): where the first TSC descent is, for
dumps whose descent falls at every position of the first records,
beside empty slots and clock records.  A dump whose clock rate changes at each such
position must say so.  A model here finds the first descent (empty slots skipped)
and the reader's "not in TSC order from offset N" warning must name it;
one descent is read as a rotation, more as a sort, and both give the
records in TSC order.

Usage: scan.py TRACEKIT"""
import os
import random
import struct
import subprocess
import sys
import tempfile

CLK = 367483
EMPTY = bytes(16)


def rec(code, par1, tsc, par2=0, fast=False):
    t = code | (0x8000 if fast else 0)
    return struct.pack('<HHIII', t, par1 & 0xffff, tsc >> 32,
                       tsc & 0xffffffff, par2 & 0xffffffff)


def base(n, rnd):
    out = [rec(0x20, 0, 1000, CLK)]
    t = 1000
    for _ in range(n):
        t += rnd.randint(1, 500)
        out.append(rec(0x01, rnd.randint(0, 5), t, 0))
    return out


def first_descent(recs):
    prev = None
    n = 0
    first = None
    for i, r in enumerate(recs):
        typ, _, hi, lo, _ = struct.unpack('<HHIII', r)
        if typ == 0:
            continue
        tsc = hi << 32 | lo
        if prev is not None and tsc < prev:
            n += 1
            if first is None:
                first = i
        prev = tsc
    return first, n


def main():
    cli = sys.argv[1]
    failed = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(1, 41):
            rnd = random.Random(k)
            r = base(300, rnd)
            rot = r[k:] + r[:k]
            two = list(r)
            two[k], two[k + 7] = two[k + 7], two[k]
            mix = list(rot)
            mix.insert(k % 5 + 3, EMPTY)
            mix.insert(k + 2, rec(0x10, 0, 900, CLK))
            mix.insert(k + 9, EMPTY)
            clk = list(r)
            clk.insert(k + 4, rec(0x10, 0, 900 + k, CLK * 2))
            for name, recs in (('rot', rot), ('two', two), ('mix', mix),
                               ('clk', clk)):
                path = os.path.join(tmp, '%s_%d.bin' % (name, k))
                with open(path, 'wb') as f:
                    f.write(b''.join(recs))
                first, n = first_descent(recs)
                for threads in ('0', '1'):
                    outs = []
                    p = subprocess.run([cli, 'cat', '--from', 'shark',
                                        '--threads', threads, path],
                                       capture_output=True, text=True)
                    outs.append((p.returncode, p.stdout, p.stderr))
                    checked += 1
                    rc, out, err = outs[0]
                    if name == 'clk':
                        want = 'the clock rate changes within the dump'
                    else:
                        want = ('not in TSC order from offset %d on'
                                % (first * 16))
                    times = [int(line.split(',')[0])
                             for line in out.splitlines()
                             if line and line[0].isdigit()]
                    if rc != 0 or want not in err:
                        print('FAIL %s (threads %s): expected "%s" (%d descents)\n%s'
                              % (os.path.basename(path), threads, want, n,
                                 err))
                        failed += 1
                    elif times != sorted(times):
                        print('FAIL %s (threads %s): events not in time order'
                              % (os.path.basename(path), threads))
                        failed += 1
    print('%d reads, %d failed' % (checked, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
