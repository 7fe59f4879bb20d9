#!/usr/bin/env python3
"""Writes the S.Ha.R.K. FTrace dumps of tests/formats/shark/orders.sh into
OUTDIR: a deterministic random mix of every kind of record, with the
irregularities that need the reader's slow path spread through them (new
contexts, first kept codes (and kept codes with a parameter-dependent
target: cached after the first), unknown codes, code 0x43, lost-event
records, job ends without a job, unbalanced and too deeply nested
interrupts, type words with high bits, empty slots, FAST records, clock
records), so that the reader's blocks end early many times.

  mixed.bin    30 000 records, one clock rate (ticks are cycles)
  big*.bin     600 000 records (9.6 MB), wrapped, in runs, sorted;
               big_clock.bin with a clock rate of its own from record
               500 000 on (8 MB in: in the scan's eighth 1 MB part) until the
               mix's next clock record
  clock.bin    the clock rate changes (times in picoseconds)
  sorted.bin   parts out of TSC order (three runs: merged)
  runs40.bin   mixed.bin in 40 parts, the last first (sorted by TSC)
  wrapped.bin  mixed.bin after a cyclic wrap (read as a rotation)
  tail.bin     a few records whose TSC goes down and a partial record:
               appended to a large generated dump (orders.sh)
"""
import os
import random
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
CLK = 367483


def rec(code, par1, tsc, par2=0, fast=False, high=0):
    t = code | (0x8000 if fast else 0) | high
    return struct.pack('<HHIII', t, par1 & 0xffff, tsc >> 32, tsc & 0xffffffff,
                       par2 & 0xffffffff)


EMPTY = bytes(16)


def mix(n, seed, clocks=(CLK,), irregular=True):
    rnd = random.Random(seed)
    tsc = 24305936302
    recs = [rec(0x20, 256, tsc, clocks[0])]
    ctxs = [256 + 8 * k for k in range(6)]
    for k, c in enumerate(ctxs):
        tsc += 3
        recs.append(rec(0x60, c, tsc, k))
    common = [
        (0x15, 30), (0x12, 8), (0x92, 8), (0x62, 8), (0x42, 2), (0x82, 12),
        (0xB2, 2), (0x03, 5), (0x13, 5), (0x2B, 5), (0x3B, 5), (0x16, 4),
        (0x36, 4), (0x46, 3), (0x56, 3), (0x0B, 10), (0x1B, 10), (0x01, 3),
        (0x58, 2), (0xC2, 1), (0x02, 1), (0x30, 1),
        # kept codes whose target depends on a parameter (the reader's
        # cache of their targets; mutexes from many addresses evict)
        (0x23, 2), (0xF3, 1), (0xF1, 1), (0x05, 2), (0x25, 1), (0x52, 1),
        (0x06, 2), (0x26, 1), (0x18, 1),
    ]
    rare = [0x7D, 0xEE, 0x43, 0x70, 'fast', 'empty', 'newctx', 'high',
            'clock', 'nest', 'id']
    codes = [c for c, w in common for _ in range(w)]
    while len(recs) < n:
        tsc += rnd.randint(1, 60)
        if irregular and rnd.random() < 0.004:
            what = rnd.choice(rare)
            if what == 'fast':
                recs.append(rec(0x01, rnd.randint(0, 3), tsc, 0x55555555, fast=True))
            elif what == 'empty':
                recs.append(EMPTY)
            elif what == 'newctx':
                c = 400 + 8 * rnd.randint(0, 40)
                ctxs.append(c)
                recs.append(rec(0x15, c, tsc))
            elif what == 'high':
                recs.append(rec(0x15, rnd.choice(ctxs), tsc, high=0x0400))
            elif what == 'clock':
                recs.append(rec(0x10, 0, tsc, rnd.choice(clocks)))
            elif what == 'nest':
                for k in range(18):
                    recs.append(rec(0x03, k % 3, tsc + k))
                for k in range(19):
                    recs.append(rec(0x13, 0, tsc + 18 + k))
                tsc += 40
            elif what == 'id':
                recs.append(rec(0x60, rnd.choice(ctxs), tsc, rnd.randint(0, 12)))
            elif what == 0x70:
                recs.append(rec(0x70, rnd.choice((0, 1)), tsc, rnd.randint(1, 9)))
            else:
                recs.append(rec(what, rnd.choice(ctxs), tsc, rnd.randint(0, 3)))
            continue
        code = rnd.choice(codes)
        ctx = rnd.choice(ctxs)
        if code in (0x16, 0x36, 0x46, 0x56):
            recs.append(rec(code, ctx, tsc, rnd.choice((0xdead0, 0xbeef0, 1, 2, 3))))
        elif code == 0x82:
            recs.append(rec(code, ctx, tsc, ctx if rnd.random() < 0.8 else rnd.choice(ctxs)))
        elif code == 0x3B:
            recs.append(rec(code, ctx if rnd.random() < 0.7 else 0, tsc))
        elif code in (0x03, 0x13):
            recs.append(rec(code, rnd.randint(0, 4), tsc))
        elif code in (0x23, 0xF3, 0xF1):
            recs.append(rec(code, rnd.randint(0, 6), tsc, rnd.randint(0, 3)))
        elif code in (0x06, 0x26):
            recs.append(rec(code, ctx, tsc, rnd.randint(0, 3000) * 16))
        elif code in (0x01, 0x58, 0x18):
            recs.append(rec(code, rnd.randint(0, 5), tsc, rnd.randint(0, 5)))
        elif code in (0x0B, 0x1B, 0x2B, 0x30):
            recs.append(rec(code, 0, tsc))
        else:
            recs.append(rec(code, ctx, tsc, rnd.randint(0, 2)))
    return recs


def write(name, recs, tail=b''):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(b''.join(recs) + tail)


mixed = mix(30000, 1)
write('mixed.bin', mixed)
# large: a wrap in the first half, a wrap at slot 262144 behind empty
# slots, descents in both halves, a clock rate that differs only in the
# second half
big = mix(600000, 2, irregular=True)
write('big.bin', big)
write('big_wrap.bin', big[400000:] + big[:400000])
write('big_mid.bin', big[-262144:] + [EMPTY] * 3 + big[:-262144])
write('big_sort.bin', big[:100000] + big[400000:450000] + big[100000:400000] + big[450000:])
# a stretch of 16384 slots of nothing but empty slots, and the one
# descent at the first record of a stretch after them (two runs: merged)
write('big_parts.bin', big[:81920] + [EMPTY] * 32768 + big[300000:] +
      [EMPTY] * (16384 - (81920 + 32768 + 300000) % 16384) + big[81920:300000])
k = 500000
while big[k] == EMPTY:
    k += 1
hi, lo = struct.unpack('<II', big[k][4:12])
write('big_clock.bin', big[:k] + [rec(0x10, 0, hi << 32 | lo, 1000000)] + big[k + 1:])
write('clock.bin', mix(30000, 3, clocks=(CLK, 1000000, 2500)))
s = mix(30000, 4)
write('sorted.bin', s[:1000] + s[20000:25000] + s[1000:20000] + s[25000:])
parts = [mixed[i * 750:(i + 1) * 750] for i in range(40)]
write('runs40.bin', [r for p in reversed(parts) for r in p])
write('wrapped.bin', mixed[12345:] + [EMPTY] * 7 + mixed[:12345])
# appended to a generated dump (TSCs from about 2.4e10 up by ~50 each):
# the TSC goes down, then an unknown code, then 5 stray bytes
t = 1 << 40
write('tail.bin', [rec(0x0B, 0, t), rec(0x0B, 0, 5), rec(0x1B, 0, t + 1),
                   rec(0x7D, 264, t + 2), rec(0x30, 0, t + 3)], b'\x0b\x00\x00\x00\x01')
