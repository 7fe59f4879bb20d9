#!/usr/bin/env python3
"""Dumps of several ascending runs (a chunk per core, one after the other)
are read in TSC order.  A plain file of at most 32 runs is merged from
its runs, each read with pread(); more runs, or the same bytes from a
pipe, go through the sort index.  For dumps of 2 to 40 runs (ties between
runs, empty slots, runs longer than the merge's 4096-record buffers, task
and interrupt records whose events depend on the order, one clock rate or
two), `tracekit cat` must give:

- from the file, the same output on one thread and with the worker;
- the same events and warnings from the file as from a pipe (the index);
- the same events as the same records written already sorted by TSC (then
  by position in the file).

Usage: merge.py TRACEKIT"""
import os
import random
import struct
import subprocess
import sys
import tempfile

CLK = 367483
EMPTY = bytes(16)


def rec(code, par1, tsc, par2=0):
    return struct.pack('<HHIII', code, par1 & 0xffff, tsc >> 32,
                       tsc & 0xffffffff, par2 & 0xffffffff)


def body(rnd, tsc):
    """A record of the demo dump's mix (tasks 264..288, IRQ 0, ipoints)."""
    ctx = 264 + 8 * rnd.randint(0, 3)
    code, par1, par2 = rnd.choice([
        (0x2B, 0, 0), (0x3B, ctx, 0),            # timer wakeup start/end
        (0x0B, 0, 0), (0x1B, 0, 0),              # timer post/delete
        (0x92, ctx, 1), (0x12, ctx, 0),          # task timer, activate
        (0x82, ctx, ctx), (0x15, ctx, 0),        # schedule, context switch
        (0x62, ctx, 1), (0x01, rnd.randint(0, 9), 0),  # end cycle, ipoint
    ])
    return rec(code, par1, tsc, par2)


def dump(rnd, nruns, n, rates, tie=False):
    """(the dump's slots, the records sorted by TSC then position); tie:
    the clock records share one TSC, in different runs"""
    # TSCs from a narrow range, so that runs tie
    tscs = sorted(rnd.randint(10**6, 10**6 + n // 2) for _ in range(n))
    runs = [[] for _ in range(nruns)]
    for t in tscs:
        runs[rnd.randrange(nruns)].append(t)
    slots = []
    for r, ts in enumerate(runs):
        # each run starts below where the one before ended: a descent
        if r and slots:
            ts = [10**6 - 1 - r] + ts
        for t in ts:
            if rnd.random() < 0.03:
                slots.append(EMPTY)
            slots.append(body(rnd, t))
        if rnd.random() < 0.5:
            slots.append(EMPTY)
    # the clock records, somewhere in the runs (the rate of the first in
    # TSC order applies first)
    tsc0 = None
    for i, rate in enumerate(rates):
        k = rnd.randrange(len(slots))
        while slots[k] == EMPTY:
            k = rnd.randrange(len(slots))
        t = struct.unpack('<HHIII', slots[k])
        tsc = t[2] << 32 | t[3]
        if tie and tsc0 is not None:
            tsc = tsc0
        tsc0 = tsc
        slots[k] = rec(0x20 if i == 0 else 0x10, 0, tsc, rate)
    keyed = []
    for i, s in enumerate(slots):
        if s == EMPTY:
            continue
        t = struct.unpack('<HHIII', s)
        keyed.append((t[2] << 32 | t[3], i, s))
    keyed.sort()
    return slots, [s for _, _, s in keyed]


def cat(cli, args, stdin=None):
    p = subprocess.run([cli, 'cat', '--from', 'shark'] + args,
                       stdin=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    cli = sys.argv[1]
    failed = 0
    cases = [(2, 3000, [CLK]), (3, 30000, [CLK]), (5, 4000, [CLK]),
             (8, 9000, [CLK, CLK * 2]), (31, 5000, [CLK]),
             (32, 6000, [CLK, CLK // 3]), (33, 6000, [CLK]),
             (40, 8000, [CLK, CLK * 5]), (6, 5000, [CLK, CLK * 3], True),
             (7, 5000, [CLK * 3, CLK], True)]
    with tempfile.TemporaryDirectory() as tmp:
        for k, (nruns, n, rates, *tie) in enumerate(cases):
            rnd = random.Random(k)
            slots, ordered = dump(rnd, nruns, n, rates, bool(tie))
            path = os.path.join(tmp, 'runs%d.bin' % nruns)
            sorted_path = os.path.join(tmp, 'sorted%d.bin' % nruns)
            with open(path, 'wb') as f:
                f.write(b''.join(slots))
            with open(sorted_path, 'wb') as f:
                f.write(b''.join(ordered))
            label = '%d runs, %d records, %d rate(s)%s' % (
                nruns, n, len(rates), ' at one TSC' if tie else '')
            t0 = cat(cli, [path])
            with open(path, 'rb') as f:
                piped = cat(cli, ['-'], stdin=f)
            want = cat(cli, [sorted_path])
            problems = []
            if t0[0] != 0 or b'not in TSC order' not in t0[2]:
                problems.append('exit %d, stderr %r' % (t0[0], t0[2][:300]))
            if piped[1] != t0[1]:
                problems.append('the events differ from those of a pipe')
            if piped[2] != t0[2].replace(path.encode(), b'<stdin>'):
                problems.append('the warnings differ from those of a pipe:\n'
                                '%r\n%r' % (t0[2][:400], piped[2][:400]))
            if want[1] != t0[1]:
                problems.append('the events differ from the sorted dump\'s')
            if problems:
                failed += 1
                print('FAIL %s: %s' % (label, '; '.join(problems)))
            else:
                print('ok %s: %d lines' % (label, t0[1].count(b'\n')))
    print('%d cases, %d failed' % (len(cases), failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
