#!/usr/bin/env python3
"""Many task names: id records name contexts with pids, most of them new,
some met before on another context (the task of that name goes on with its
instances there).  The reader finds a name's task through an index of the
entities (before, a walk over every task for each new name made a dump of
n names cost n^2 / 2 steps: 200,000 names took seconds, 1 million minutes).

For a dump of ROUNDS rounds of id, task_activate, context_switch and
task_end_cycle on random contexts, `tracekit convert --to btf` must give
each round's activate, start and terminate of the task named by the id,
with the instance the model counts for that pid.

Usage: names.py TRACEKIT"""
import os
import random
import struct
import subprocess
import sys
import tempfile

ROUNDS = 120000


def rec(code, par1, tsc, par2=0):
    return struct.pack('<HHIII', code, par1 & 0xffff, tsc >> 32,
                       tsc & 0xffffffff, par2 & 0xffffffff)


def main():
    tk = sys.argv[1]
    rnd = random.Random(4)
    out = [rec(0x20, 0, 1000, 1000)]   # trace_start, 1000 cycles/ms
    tsc = 1001
    want = []
    inst = {}
    for _ in range(ROUNDS):
        ctx = 8 * rnd.randint(1, 4000)
        # mostly new pids, some met before
        pid = rnd.randint(0, 10**7) if rnd.random() < 0.9 else \
            rnd.choice(list(inst)) if inst else 1
        inst[pid] = inst.get(pid, 0) + 1
        for code, par2 in ((0x60, pid), (0x12, 0), (0x15, 0), (0x62, 1)):
            out.append(rec(code, ctx, tsc, par2))
            tsc += 3
        for ev in ('activate', 'start', 'terminate'):
            want.append('T,task%d,%d,%s' % (pid, inst[pid], ev))
    with tempfile.TemporaryDirectory() as d:
        dump = os.path.join(d, 'names.bin')
        with open(dump, 'wb') as f:
            f.write(b''.join(out))
        for run in ('file',):
            btf = os.path.join(d, 'out.btf')
            subprocess.run([tk, 'convert', '--from', 'shark', dump, btf],
                           check=True)
            got = []
            with open(btf) as f:
                for line in f:
                    p = line.rstrip('\n').split(',')
                    if len(p) >= 7 and p[3] == 'T':
                        got.append(','.join(p[3:7]))
            if got != want:
                bad = next(i for i, (a, b) in
                           enumerate(zip(got + [''] * len(want), want))
                           if a != b)
                print('FAIL (%s): task event %d is %r, want %r'
                      % (run, bad, got[bad] if bad < len(got) else None,
                         want[bad]))
                return 1
    print('ok: %d rounds, %d names, %d task events' %
          (ROUNDS, len(inst), len(want)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
