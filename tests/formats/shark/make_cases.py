#!/usr/bin/env python3
"""Writes the small S.Ha.R.K. FTrace test inputs of tests/formats/shark/
(16-byte records: u16 type, u16 par1, u32 tsc_hi, u32 tsc_lo, u32 par2, all
little-endian) into OUTDIR/ok and OUTDIR/fail.  The test (run.sh) makes
them afresh at each run; the expected .out/.err files beside this script
are reviewed by hand."""
import os
import struct
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for sub in ('ok', 'fail'):
    os.makedirs(os.path.join(here, sub), exist_ok=True)


def rec(code, par1, tsc, par2=0, fast=False):
    t = code | (0x8000 if fast else 0)
    return struct.pack('<HHIII', t, par1, tsc >> 32, tsc & 0xffffffff, par2)


EMPTY = bytes(16)
CLK = 1000  # 1000 cycles per ms: a cycle is 1 us, easy to read

# A small system: trace start, two tasks named by id, a periodic job, an
# interrupt, a mutex, a deadline miss, a user event, the stop.
basic = [
    rec(0x20, 256, 1000, CLK),
    rec(0x60, 256, 1001, 0),
    rec(0x60, 264, 1002, 1),
    rec(0x12, 264, 1010),
    rec(0x82, 264, 1011, 264),
    rec(0x15, 264, 1012),
    rec(0x16, 264, 1013, 0xdead0),
    rec(0x03, 7, 1020),
    rec(0x13, 7, 1025),
    rec(0x36, 264, 1030, 0xdead0),
    rec(0x39, 5, 1031, 42),
    rec(0x62, 264, 1040, 1),
    rec(0x15, 256, 1041),
    rec(0xB2, 264, 1050, 1),
    rec(0x30, 0, 1060),
]
# The same chunk after a cyclic wrap: physical order starts mid-way, with
# empty slots left in the buffer.  Must read exactly like basic.
wrapped = basic[9:] + [EMPTY, EMPTY] + basic[:9]
# Manual's 0x43 unlock, a FAST record (par2 as written), an unknown code
# (lenient), the timer interrupt returning to another context.
dialects = [
    rec(0x20, 256, 5000, CLK),
    rec(0x15, 256, 5001),
    rec(0x2B, 0, 5010),
    rec(0x12, 272, 5011),
    rec(0x3B, 272, 5012),
    rec(0x16, 272, 5013, 0x100),
    rec(0x43, 272, 5014, 0x100),
    rec(0x01, 3, 5015, 0x55555555, fast=True),
    rec(0x7D, 1, 5016, 2),
    rec(0x62, 272, 5020),
]
# No clock record at all: 1 GHz assumed, a warning.
noclock = [rec(0x15, 256, 100), rec(0x62, 256, 200)]


def write(path, records, tail=b''):
    with open(os.path.join(here, path), 'wb') as f:
        f.write(b''.join(records) + tail)


write('ok/basic.bin', basic)
write('ok/wrapped.bin', wrapped)
write('ok/dialects.bin', dialects)
write('ok/noclock.bin', noclock)
# refused
write('fail/truncated_strict.bin', basic[:3], b'\x20\x00\x00')
write('fail/unknown_code_strict.bin', dialects[:6] + [rec(0x7D, 1, 5016, 2)])
write('fail/unlock43_strict.bin', dialects[:7])
write('fail/high_bits_strict.bin', [rec(0x20, 0, 1, CLK), struct.pack('<HHIII', 0x0415, 0, 0, 2, 0)])
# Two clock rates (times in ps): a TSC of 2^60 cycles at 2000 cycles/ms is
# 2^60 * 5 * 10^5 ps, past 2^64 ps.  (With one rate the times stay in
# cycles and cannot overflow.)
write('fail/tsc_too_large.bin', [rec(0x20, 0, 0, CLK), rec(0x10, 0, 1, 2 * CLK), rec(0x15, 256, 1 << 60)])
# Kept records whose target depends on a parameter, each twice (the
# second from the reader's cache of such targets, not the slow path): an
# ipoint (also FAST), an interrupt_hit, mutex and server events (par2),
# two codes of one family with the same parameter (one target), task
# events (par1, to the task's current job).
write('ok/kept.bin', [
    rec(0x20, 256, 7000, CLK),
    rec(0x60, 264, 7001, 1),
    rec(0x12, 264, 7002),
    rec(0x15, 264, 7003),
    rec(0x01, 4, 7004, 9),
    rec(0x01, 4, 7005, 10),
    rec(0x01, 5, 7006, 0x55555555, fast=True),
    rec(0x01, 5, 7007, 0x55555555, fast=True),
    rec(0x01, 4, 7008, 0, fast=True),
    rec(0x23, 3, 7009, 1),
    rec(0x23, 3, 7010, 2),
    rec(0x06, 264, 7011, 0xbeef0),
    rec(0x06, 264, 7012, 0xbeef0),
    rec(0x26, 264, 7013, 0xbeef0),
    rec(0x18, 0, 7014, 7),
    rec(0x18, 0, 7015, 7),
    rec(0x05, 264, 7016, 3),
    rec(0x05, 264, 7017, 4),
    rec(0x25, 264, 7018, 0),
    rec(0x30, 0, 7020),
])
# Tasks created by FAST_TRACER_LOGEVENT (tracekit's recorder writes par2 on
# the FAST path too): each is named by its pid, task5 and task6 (both were
# task0: a FAST record's par2 was read as 0); a FAST clock record does not
# set the clock (the original FAST ipoint never wrote par2).
write('ok/fast_create.bin', [
    rec(0x20, 256, 3000, CLK),
    rec(0x02, 264, 3001, 5, fast=True),
    rec(0x02, 272, 3002, 6, fast=True),
    rec(0x10, 0, 3003, 4 * CLK, fast=True),
    rec(0x12, 264, 3010),
    rec(0x15, 264, 3011),
    rec(0x62, 264, 3020, 1),
    rec(0x12, 272, 3021, fast=True),
    rec(0x15, 272, 3022),
    rec(0x62, 272, 3030, 1),
    rec(0x30, 0, 3040),
])
write('ok/unsorted.bin', [rec(0x20, 0, 10, CLK), rec(0x15, 256, 30), rec(0x15, 264, 20), rec(0x15, 272, 5)])
# For the host tools' outputs (shark-list, shark-pwc; tools.sh): every code
# pwcet_gen prints, an ipoint, a FAST record with a stale par2, a par2 of
# 2^31 and more (printed negative by the tools' %d), the largest par1, an
# empty slot (listed, not in pwc), codes pwcet_gen skips, a TSC above 2^32.
tools = [
    rec(0x20, 256, 1000, CLK),
    rec(0x10, 0, 1001, 2000),
    rec(0x60, 256, 1002, 0),
    rec(0x02, 264, 1003, 1),
    rec(0x12, 264, 1004),
    rec(0x82, 264, 1005, 264),
    rec(0x15, 264, 1006),
    rec(0x01, 7, 1007, 0x55555555, fast=True),
    rec(0x01, 65535, 1008, 0xffffffff),
    EMPTY,
    rec(0x03, 9, 1009),
    rec(0x13, 9, 1010),
    rec(0x2B, 0, 1011),
    rec(0x3B, 264, 1012),
    rec(0x58, 3, 1013, 0x80000000),
    rec(0xB2, 264, 1014, 2),
    rec(0xC2, 264, 1015, 0xfffffffe),
    rec(0x16, 264, 1016, 0xdead0),
    rec(0x62, 264, 0x123456789a, 1),
    rec(0x42, 264, 0x123456789b, 1),
    rec(0x30, 0, 0x123456789c),
]
os.makedirs(os.path.join(here, 'tools'), exist_ok=True)
write('tools/tools.bin', tools)
