#!/usr/bin/env python3
"""The clean read path (docs/shark.md): a dump with one clock rate and no
type word with bits 8-14 set is mapped without the per-record checks
(run_fast_t() unchecked).  Random dumps that mix every kind of record the
mapping knows (tasks named mid-dump, interrupts nested and unbalanced,
mutexes and semaphores, kept and unknown codes, FAST records, the
recorder's lost count, the manual's 0x43, empty slots whose TSC is
garbage) are read through it, and with one more record at the end whose
type word has a high bit (which the scan sees, so the whole dump is read
through the checked loop): the events of the records before it must be the
same byte for byte (the BTF output), and `check`'s findings on them too.
Dumps with a TSC descent, a type word with high bits or a second clock
rate read without error.

Usage: clean.py TRACEKIT"""
import os
import random
import struct
import subprocess
import sys
import tempfile

CLK = 367483


def rec(code, par1, tsc, par2=0, fast=False, high=0):
    t = code | (0x8000 if fast else 0) | high
    return struct.pack('<HHIII', t, par1 & 0xffff, tsc >> 32,
                       tsc & 0xffffffff, par2 & 0xffffffff)


def dump(rnd, n):
    """n records of a random but mostly coherent dump, TSC never
    decreasing (equal TSCs included)."""
    out = []
    t = rnd.randint(1, 1 << 40)
    ctxs = [256 + 8 * k for k in range(rnd.randint(1, 6))]
    named = []

    def tick():
        nonlocal t
        t += rnd.choice((0, 1, 37, 500, 100000))
        return t

    out.append(rec(0x20, 0, tick(), CLK))
    for c in ctxs[:2]:
        out.append(rec(0x60, c, tick(), c // 8))
        named.append(c)
    for _ in range(n):
        r = rnd.random()
        c = rnd.choice(ctxs + [300 + rnd.randint(0, 40)]
                       if rnd.random() < 0.02 else ctxs)
        if r < 0.04:
            # a name met again or a new one: the worker stalls on it
            out.append(rec(rnd.choice((0x60, 0x02)), c, tick(),
                           rnd.randint(0, 50)))
        elif r < 0.16:
            out.append(rec(rnd.choice((0x12, 0x92)), c, tick(), 1))
        elif r < 0.28:
            out.append(rec(0x15, c, tick()))
        elif r < 0.36:
            out.append(rec(rnd.choice((0x62, 0x42)), c, tick()))
        elif r < 0.42:
            out.append(rec(0x82, c, tick(), rnd.choice((c, 5))))
        elif r < 0.44:
            out.append(rec(0xB2, c, tick()))
        elif r < 0.52:
            out.append(rec(rnd.choice((0x03, 0x2B)), rnd.randint(0, 3),
                           tick()))
        elif r < 0.60:
            out.append(rec(rnd.choice((0x13, 0x3B)),
                           rnd.choice((0, c)), tick()))
        elif r < 0.66:
            out.append(rec(rnd.choice((0x16, 0x36, 0x46, 0x56)), c, tick(),
                           rnd.choice((0x1000, 0x2000, 3, rnd.randint(0, 99)))))
        elif r < 0.80:
            # kept: by code, by par1 (ipoint, IRQ), by par2 (server),
            # task events, the tracer's own
            code = rnd.choice((0x0B, 0x1B, 0x01, 0x09, 0x19, 0x05, 0x23,
                               0x18, 0x04, 0x24, 0x30, 0x40, 0xF1, 0xFF,
                               0x1A, 0x07, 0x72, 0x22))
            out.append(rec(code, rnd.choice((0, 1, c, rnd.randint(0, 9))),
                           tick(), rnd.choice((0, 0, 1, rnd.randint(0, 1 << 32)))))
        elif r < 0.83:
            # FAST: ipoint, and code 0 (an unknown code, not an empty slot)
            out.append(rec(rnd.choice((0x01, 0x00)), rnd.randint(0, 4), tick(),
                           rnd.randint(0, 99), fast=True))
        elif r < 0.85:
            out.append(rec(rnd.choice((0x0C, 0xEE, 0x43)), c, tick(),
                           rnd.randint(0, 9)))
        elif r < 0.86:
            out.append(rec(0x70, rnd.choice((0, 1)), tick(), rnd.randint(1, 9)))
        elif r < 0.87:
            out.append(rec(0x10, 0, tick(), CLK))  # the same rate again
        else:
            # an empty slot: type word 0, the rest garbage (a TSC far
            # ahead or behind must change nothing)
            out.append(struct.pack('<HH', 0, rnd.randint(0, 65535)) +
                       os.urandom(12))
    return b''.join(out)


def run(tk, args):
    p = subprocess.run([tk] + args, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def btf(tk, f, tmp):
    out = os.path.join(tmp, 'out.btf')
    if os.path.exists(out):
        os.unlink(out)
    rc, _, se = run(tk, ['convert', '-q', '--from', 'shark', f, out])
    return rc, (open(out, 'rb').read() if rc == 0 else se)


def last_tsc(data):
    t = 0
    for i in range(0, len(data), 16):
        if data[i:i + 2] != b'\0\0':
            t = struct.unpack_from('<II', data, i + 4)
            t = t[0] << 32 | t[1]
    return t


def main():
    tk = sys.argv[1]
    rnd = random.Random(20261126)
    bad = 0
    n_clean = 0
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, 'd.bin')
        g = os.path.join(tmp, 'g.bin')
        cases = []
        for i in range(24):
            # small and large: blocks (4096 events) end inside the large
            n = rnd.choice((40, 300, 3000, 30000, 90000))
            cases.append((f'random {i} ({n} records)', dump(rnd, n), True))
        base = dump(rnd, 5000)
        k = 2500 * 16
        while struct.unpack_from('<H', base, k)[0] == 0:
            k += 16  # a record, not an empty slot
        hdr = struct.unpack_from('<HHII', base, k)
        desc = base[:k] + struct.pack('<HHII', hdr[0], hdr[1], 0, 5) + \
            base[k + 12:]
        cases.append(('one TSC descent', desc, False))
        hb = base[:k] + struct.pack('<H', hdr[0] | 0x0100) + base[k + 2:]
        cases.append(('type word with high bits', hb, False))
        cases.append(('two clock rates',
                      base + rec(0x10, 0, (1 << 41), CLK + 1), False))
        for name, data, clean in cases:
            with open(f, 'wb') as fh:
                fh.write(data)
            rc, a = btf(tk, f, tmp)
            if rc != 0:
                print(f'FAIL {name}: not read ({a[:200]!r})')
                bad += 1
                continue
            if not clean:
                continue
            n_clean += 1
            # one more record, an ipoint with a high bit, after the others
            with open(g, 'wb') as fh:
                fh.write(data + struct.pack('<HH', 0x0101, 1) +
                         rec(0x01, 1, last_tsc(data))[4:])
            rc, b = btf(tk, g, tmp)
            extra = b[len(a):].count(b'\n') if b.startswith(a) else -1
            if rc != 0 or extra != 1:
                print(f'FAIL {name}: the clean and the checked path differ '
                      f'(exit {rc}, {extra} lines more)')
                bad += 1
                continue
            crc, ca, _ = run(tk, ['check', '--from', 'shark', f])
            crc2, cb, _ = run(tk, ['check', '--from', 'shark', g])
            if crc != crc2 or ca != cb:
                print(f'FAIL {name}: check differs on the checked path')
                bad += 1
        # the scan looks at eight records at a time: a high type word at
        # each place of such a group (and of the one before or after it)
        # is seen, so the dump is read by the checked loop, which warns
        plain = b''.join(rec(0x01, 1, 1000 + i) for i in range(64))
        for at in range(8, 32):
            with open(f, 'wb') as fh:
                fh.write(plain[:at * 16] + struct.pack('<H', 0x0101) +
                         plain[at * 16 + 2:])
            rc, _, se = run(tk, ['info', '--from', 'shark', f])
            if rc != 0 or b'offset %d: type word 0x0101' % (at * 16) not in se:
                print(f'FAIL high type word in record {at}: not seen')
                bad += 1
    print(f'{len(cases)} dumps ({n_clean} clean), {bad} failed')
    return 1 if bad else 0


if __name__ == '__main__':
    main()
