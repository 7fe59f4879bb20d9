#!/usr/bin/env python3
"""The clean read path (docs/shark.md): a dump in TSC order with one clock
rate and no type word with bits 8-14 set is mapped without the per-record
checks (run_fast_t() unchecked).  Random dumps that mix every kind of record the
mapping knows (tasks named mid-dump, interrupts nested and unbalanced,
mutexes and semaphores, kept and unknown codes, FAST records, the
recorder's lost count, the manual's 0x43, empty slots whose TSC is
garbage) are read through it and through the checked loop
(TRACEKIT_TEST_SHARK_PATH=checked), on one thread and with the worker:
the BTF output, the warnings, `info` and `check` (which names the
record of each violation) must be the same byte for byte.
TRACEKIT_TEST_SHARK_PATH=clean proves that the clean path was taken; a
dump with a TSC descent or a type word with high bits must not take it,
and must read as the checked path reads it.

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


def run(tk, args, path):
    env = dict(os.environ)
    env.pop('TRACEKIT_TEST_SHARK_PATH', None)
    if path:
        env['TRACEKIT_TEST_SHARK_PATH'] = path
    p = subprocess.run([tk] + args, env=env, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def read_all(tk, f, tmp, path, threads):
    out = os.path.join(tmp, 'out.btf')
    if os.path.exists(out):
        os.unlink(out)
    rc, so, se = run(tk, ['convert', '--from', 'shark', '--threads', threads,
                          f, out], path)
    btf = open(out, 'rb').read() if rc == 0 else b''
    irc, info, ie = run(tk, ['info', '--from', 'shark', '--threads', threads,
                             f], path)
    # check names each violation's record number (the events' pos)
    crc, chk, _ = run(tk, ['check', '--from', 'shark', '--threads', threads,
                           f], path)
    return (rc, so, se, btf, irc, info, ie, crc, chk)


def main():
    tk = sys.argv[1]
    rnd = random.Random(20261126)
    bad = 0
    n_clean = 0
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, 'd.bin')
        cases = []
        for i in range(24):
            # small and large: blocks of the caller (4096 events) and of
            # the worker (16384) end inside a dump of the large ones
            n = rnd.choice((40, 300, 3000, 30000, 90000))
            cases.append((f'random {i} ({n} records)', dump(rnd, n), True))
        base = dump(rnd, 5000)
        k = 2500 * 16
        while struct.unpack_from('<H', base, k)[0] == 0:
            k += 16  # a record, not an empty slot
        # a descent: not clean (read in TSC order, with a warning)
        hdr = struct.unpack_from('<HHII', base, k)
        desc = base[:k] + struct.pack('<HHII', hdr[0], hdr[1], 0, 5) + \
            base[k + 12:]
        cases.append(('one TSC descent', desc, False))
        # a type word with bits 8-14 set: not clean
        hb = base[:k] + struct.pack('<H', hdr[0] | 0x0100) + base[k + 2:]
        cases.append(('type word with high bits', hb, False))
        # a second clock rate: read in picoseconds, not clean
        cases.append(('two clock rates',
                      base + rec(0x10, 0, (1 << 41), CLK + 1), False))
        for name, data, clean in cases:
            with open(f, 'wb') as fh:
                fh.write(data)
            rc, _, se = run(tk, ['info', '--from', 'shark', f], 'clean')
            if (rc == 0) != clean:
                print(f'FAIL {name}: read clean: {rc == 0}, expected {clean}'
                      f' ({se.decode(errors="replace").strip()})')
                bad += 1
                continue
            n_clean += clean
            for threads in ('0', '1'):
                a = read_all(tk, f, tmp, None, threads)
                b = read_all(tk, f, tmp, 'checked', threads)
                if a != b:
                    print(f'FAIL {name}, --threads {threads}: the clean and '
                          'the checked path differ')
                    for what, x, y in zip(('rc', 'stdout', 'stderr', 'btf',
                                           'info rc', 'info', 'info stderr',
                                           'check rc', 'check'),
                                          a, b):
                        if x != y:
                            print(f'  {what}: {str(x)[:300]!r}\n'
                                  f'  vs {str(y)[:300]!r}')
                    bad += 1
                elif a[0] != 0 or not a[3]:
                    print(f'FAIL {name}: not read ({a[2][:200]!r})')
                    bad += 1
        # the scan finds a high type word at each place of the groups of
        # eight and four records it reads at once, with each scan this
        # host has (TRACEKIT_TEST_SIMD caps it)
        plain = b''.join(rec(0x01, 1, 1000 + i) for i in range(64))
        for at in range(16, 32):
            hb = plain[:at * 16] + struct.pack('<H', 0x0101) + \
                plain[at * 16 + 2:]
            with open(f, 'wb') as fh:
                fh.write(hb)
            for simd in ('', 'avx2', 'none'):
                env = dict(os.environ, TRACEKIT_TEST_SHARK_PATH='clean',
                           TRACEKIT_TEST_SIMD=simd)
                p = subprocess.run([tk, 'info', '--from', 'shark', f],
                                   env=env, capture_output=True)
                if p.returncode == 0 or b'not read clean' not in p.stderr:
                    print(f'FAIL high type word in record {at}, scan '
                          f'{simd or "widest"}: read clean')
                    bad += 1
    if n_clean < 20:
        print(f'FAIL only {n_clean} dumps read clean')
        bad += 1
    if bad:
        sys.exit(1)
    print(f'ok: {len(cases)} dumps ({n_clean} clean), the same output '
          'through both paths')


if __name__ == '__main__':
    main()
