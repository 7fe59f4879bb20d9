#!/usr/bin/env python3
"""Writes a valid trace of about SIZE bytes for the stream matrix
(matrix.sh): lines of every length, so that the refills of a streamed
source fall at every position of a line and of a token, and a few lines
longer than the read-ahead's headroom (4 KiB) and than ATF's slice of
expat (64 KiB would be too long for the readers' line caps; 20 KiB is
enough to cross a refill of any streamed source several times).

  gen.py btf SIZE OUT      BTF 2.3 (the HTF and ATF inputs are converted
                           from it by tracekit)
  gen.py tarmac SIZE OUT   an Arm Fast Models Tarmac log (AArch64)
"""
import random
import sys


def name(rng, prefix, k):
    """The k-th entity of a kind: most names short, some long."""
    r = random.Random(k * 7919 + len(prefix))
    n = r.choice((0, 1, 3, 9, 17, 40, 130, 700)) if k % 5 == 0 else r.randrange(0, 12)
    return prefix + str(k) + ('_' + 'x' * n if n else '')


def btf(size, out):
    rng = random.Random(size)
    tasks = [name(rng, 'Task_', k) for k in range(12)]
    runs = [name(rng, 'Run_', k) for k in range(20)]
    sigs = [name(rng, 'Sig_', k) for k in range(6)]
    lines = ['#version 2.3.0', '#creator tracekit tests/stream/gen.py',
             '#creationDate 2026-11-26T00:00:00Z', '#timescale ns',
             '# a generated trace: %d bytes' % size]
    total = sum(len(x) + 1 for x in lines)
    t = 0
    inst = [0] * len(tasks)
    while total < size:
        k = rng.randrange(len(tasks))
        task = tasks[k]
        core = 'Core_%d' % (k % 2 + 1)
        run = runs[rng.randrange(len(runs))]
        sig = sigs[rng.randrange(len(sigs))]
        i = inst[k]
        inst[k] += 1
        block = [
            '%d,Stim_%d,0,STI,Stim_%d,0,trigger' % (t, k, k),
            '%d,Stim_%d,0,T,%s,%d,activate' % (t, k, task, i),
            '%d,%s,0,T,%s,%d,start' % (t + 3, core, task, i),
            '%d,%s,%d,R,%s,0,start' % (t + 5, task, i, run),
        ]
        # a note of any length, a few longer than the read-ahead's headroom
        r = rng.random()
        n = rng.randrange(20000) if r < 0.004 else rng.randrange(4200, 6000) if r < 0.02 \
            else rng.randrange(300)
        note = ''.join(rng.choice('0123456789abcdef ,') for _ in range(min(n, 64)))
        note = (note * (n // 64 + 1))[:n] if n else 'v'
        block.append('%d,%s,%d,SIG,%s,0,write,%s' % (t + 7, task, i, sig, note))
        block += [
            '%d,%s,%d,R,%s,0,terminate' % (t + 11, task, i, run),
            '%d,%s,0,T,%s,%d,terminate' % (t + 13, core, task, i),
        ]
        t += 17 + rng.randrange(50)
        for x in block:
            lines.append(x)
            total += len(x) + 1
    with open(out, 'w', newline='\n') as f:
        f.write('\n'.join(lines) + '\n')


def tarmac(size, out):
    rng = random.Random(size)
    mnem = ['MOV      x0,#0x100000', 'ADD      x1,x1,#1', 'LDR      x2,[sp,#0x10]',
            'STP      x29,x30,[sp,#-0x20]!', 'BL       {pc}+0x3e0 ; 0x2109bc', 'RET']
    lines = []
    total = 0
    clk = 1
    pc = 0x2105d4
    while total < size:
        m = mnem[rng.randrange(len(mnem))]
        r = rng.random()
        if r < 0.01:
            # a long comment on the disassembly
            m += ' ; ' + 'c' * rng.randrange(4200, 9000)
        elif r < 0.3:
            m += ' ; ' + 'c' * rng.randrange(100)
        block = ['%d clk IT (%d) %08x %08x O EL3h_s : %s' % (clk, clk, pc, rng.getrandbits(32), m)]
        if rng.random() < 0.5:
            block.append('%d clk R X%d %016x' % (clk, rng.randrange(31), rng.getrandbits(64)))
        if rng.random() < 0.2:
            a = 0xfffe0 + 8 * rng.randrange(4)
            block.append('%d clk MW8 %08x:%012x %08x_%08x' % (clk, a, a, rng.getrandbits(32),
                                                             rng.getrandbits(32)))
        clk += 1
        pc += 4
        for x in block:
            lines.append(x)
            total += len(x) + 1
    with open(out, 'w', newline='\n') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    if len(sys.argv) != 4 or sys.argv[1] not in ('btf', 'tarmac'):
        sys.exit(__doc__)
    {'btf': btf, 'tarmac': tarmac}[sys.argv[1]](int(sys.argv[2]), sys.argv[3])
