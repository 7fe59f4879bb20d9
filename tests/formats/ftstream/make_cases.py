#!/usr/bin/env python3
"""Writes the small recorder stream test inputs of tests/formats/ftstream/
(the stream format of docs/recorder.md, "Streaming", encoded here
independently of the recorder) into OUTDIR/ok and OUTDIR/fail; with
--gen N FILE, a stream of about N events into FILE (the stream matrix's
large inputs).  The test (run.sh) makes them afresh at each run; the
expected .out/.err files beside this script are reviewed by hand."""
import os
import struct
import sys
import zlib


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def nbytes(v, maxn):
    n = 0
    while v >> (8 * n) and n < maxn:
        n += 1
    return n


class Stream:
    def __init__(self, clk=1000, tsc=1000):
        self.b = bytearray()
        self.clk = clk
        self.prev = tsc
        self.lost = 0
        self.seq = 0
        self.names = []
        self.ctxs = {}

    def sync(self):
        body = bytes([0, 1]) + b'TKSY' + bytes([2, 0]) + struct.pack(
            '<IIIII', self.clk, self.prev & 0xFFFFFFFF, self.prev >> 32,
            self.lost, self.seq)
        self.b += body + struct.pack('<I', zlib.crc32(body))
        self.seq += 1
        for kind, ident, name in self.names:
            self.name(kind, ident, name, register=False)
        for ctx, pid in self.ctxs.items():
            self.b += bytes([0, 6]) + varint(ctx) + varint(pid)

    def name(self, kind, ident, name, register=True):
        if register:
            self.names.append((kind, ident, name))
        nb = name.encode()
        self.b += bytes([0, 3, kind]) + varint(ident) + bytes([len(nb)]) + nb

    def ev(self, code, par1, tsc, par2=0, fast=False):
        d = tsc - self.prev
        if not fast and 0 <= d < 1 << 24 and par2 < 1 << 16:
            # the short record: code, u24 delta, u16 par1, u16 par2
            self.b += bytes([code]) + d.to_bytes(3, 'little') + struct.pack('<HH', par1, par2)
        else:
            # the long one: 00 07 code header varint(zigzag delta) par1 par2
            zz = 2 * d if d >= 0 else -2 * d - 1
            l1, l2 = nbytes(par1, 2), nbytes(par2, 4)
            self.b += bytes([0, 7, code, l1 | l2 << 2 | (0x80 if fast else 0)]) + varint(zz)
            self.b += par1.to_bytes(2, 'little')[:l1] + par2.to_bytes(4, 'little')[:l2]
        self.prev = tsc

    def ident(self, ctx, pid, tsc):
        """an id record, its context re-sent after each sync (00 06)"""
        self.ev(0x60, ctx, tsc, pid)
        self.ctxs[ctx] = pid

    def core(self, c):
        self.b += bytes([0, 4, c])

    def overflow(self, n):
        self.lost += n
        self.b += bytes([0, 2]) + varint(n)


def basic():
    s = Stream()
    s.names = [(0, 1, 'control'), (1, 7, 'UART')]
    s.sync()
    s.ev(0x20, 256, 1000, 1000)
    s.ev(0x60, 256, 1001, 0)
    s.ev(0x60, 264, 1002, 1)
    s.ev(0x12, 264, 1010)
    s.ev(0x82, 264, 1011, 264)
    s.ev(0x15, 264, 1012)
    s.ev(0x16, 264, 1013, 0xdead0)
    s.sync()
    s.ev(0x03, 7, 1020)
    s.ev(0x13, 7, 1025)
    s.ev(0x36, 264, 1030, 0xdead0)
    s.ev(0x39, 5, 1031, 42, fast=True)
    s.ev(0x62, 264, 1040, 1)
    s.ev(0x15, 256, 1041)
    s.ev(0x30, 0, 1060)
    return s


def named():
    """names of tasks (two share one), of a user event channel; the
    contexts' pids after the second sync"""
    s = Stream()
    s.names = [(0, 1, 'control'), (0, 2, 'worker'), (0, 3, 'worker'),
               (2, 3, 'telemetry')]
    s.sync()
    s.ev(0x20, 0, 1000, 1000)
    s.ident(264, 1, 1001)
    s.ident(265, 2, 1002)
    s.ident(266, 3, 1003)
    s.ev(0x12, 264, 1010)
    s.ev(0x15, 264, 1011)
    at = len(s.b)
    s.sync()
    s.ev(0x39, 5, 1020, 42)
    s.ev(0x62, 264, 1021)
    s.ev(0x12, 265, 1030)
    s.ev(0x15, 265, 1031)
    s.ev(0x62, 265, 1040)
    s.ev(0x12, 266, 1041)
    s.ev(0x15, 266, 1042)
    s.ev(0x62, 266, 1050)
    s.ev(0x30, 0, 1060)
    return s, at


def cores():
    """two cores in one stream: each runs its task, core 1 an interrupt;
    a task that moves from one core to the other"""
    s = Stream()
    s.sync()
    s.ev(0x20, 0, 1000, 1000)
    s.ident(264, 1, 1001)
    s.ident(265, 2, 1002)
    s.ev(0x15, 264, 1010)
    s.core(1)
    s.ev(0x15, 265, 1011)
    s.ev(0x03, 9, 1012)
    s.core(0)
    s.ev(0x62, 264, 1013)
    s.core(1)
    s.ev(0x13, 9, 1014)
    s.ev(0x62, 265, 1020)
    # task1 runs on core 0, then core 1 takes it: preempted, resumed there
    s.core(0)
    s.ev(0x12, 264, 1030)
    s.ev(0x15, 264, 1031)
    s.core(1)
    s.ev(0x15, 264, 1040)
    # core 0 runs nothing now: task2 starts there with no preempt of task1
    s.core(0)
    s.ev(0x12, 265, 1045)
    s.ev(0x15, 265, 1046)
    s.core(1)
    s.ev(0x62, 264, 1050)
    return s


def cases():
    out = {}
    out['ok/cores'] = bytes(cores().b)
    s, at = named()
    out['ok/named'] = bytes(s.b)
    # joined after the id records: the context records name the tasks
    out['ok/named_late'] = bytes(s.b[at - 3:])
    s = basic()
    out['ok/basic'] = bytes(s.b)
    # joined late: the first 5 bytes (inside the first sync) are gone
    out['ok/joined_late'] = bytes(s.b[5:])
    # events dropped by the target: an overflow record between two events
    o = Stream()
    o.sync()
    o.ev(0x20, 256, 1000, 1000)
    o.ev(0x12, 264, 1010)
    o.overflow(3)
    o.ev(0x82, 264, 1050, 264)
    o.ev(0x15, 264, 1051)
    out['ok/overflow'] = bytes(o.b)
    # a record cut by the end (refused under --strict, at its offset)
    out['ok/cut_end'] = bytes(s.b[:-1])
    out['fail/cut_end_strict'] = bytes(s.b[:-1])
    # a corrupt delta (its high byte) in a short event: the times that
    # follow are wrong, and the next sync record's time says so
    c = Stream()
    c.sync()
    c.ev(0x20, 256, 1000, 1000)
    c.ev(0x12, 264, 1010)
    at = len(c.b)
    c.ev(0x15, 264, 1011)
    c.ev(0x62, 264, 1020)
    c.sync()
    c.ev(0x12, 264, 2010)
    cor = bytearray(c.b)
    cor[at + 3] = 0x10
    out['fail/corrupt_delta_strict'] = bytes(cor)
    # what the shark reader refuses under --strict (a type with bits 8-14,
    # a long event's type byte) is said at the record's offset in the
    # stream, not in the records the stream is decoded to
    h = Stream()
    h.sync()
    h.ev(0x20, 256, 1000, 1000)
    h.ev(0x12, 264, 1010)
    h.b += bytes([0, 7, 0x09, 1 | 0x20]) + varint(2 * 5) + bytes([0x12, 7])
    h.prev = 1015
    h.ev(0x62, 264, 1020)
    out['fail/type_bits_strict'] = bytes(h.b)
    out['fail/joined_late_strict'] = bytes(s.b[5:])
    # a control record of no known kind in place of the first event
    bad = bytearray(s.b)
    first_ev = 32 + (3 + 1 + 1 + 7) + (3 + 1 + 1 + 4)
    bad[first_ev:first_ev + 2] = bytes([0, 0x7F])
    out['fail/bad_record_strict'] = bytes(bad)
    # no sync record at all (a sync whose CRC is wrong)
    n = Stream()
    n.sync()
    n.ev(0x20, 256, 1000, 1000)
    n.ev(0x12, 264, 1010)
    nos = bytearray(n.b)
    nos[28] ^= 0xFF
    out['fail/no_sync'] = bytes(nos)
    return out


def gen(n, path):
    s = Stream(clk=72000, tsc=10 ** 9)
    s.names = [(0, 3 + t, 'task%d' % t) for t in range(4)]
    s.sync()
    t = s.prev
    s.ev(0x20, 0, t, 72000)
    for k in range(4):
        t += 13
        s.ev(0x60, 256 + k, t, 3 + k)
    i = 0
    since = len(s.b)
    while i < n:
        for code, par2 in ((0x12, 0), (0x82, 256 + i % 4), (0x15, 0), (0x62, 0)):
            t += 40 + (i * 7919) % 1900
            s.ev(code, 256 + i % 4, t, par2 if code != 0x82 else 0)
            i += 1
        if len(s.b) - since >= 1024:
            s.sync()
            since = len(s.b)
    s.ev(0x30, 0, t + 5)
    with open(path, 'wb') as f:
        f.write(s.b)


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--gen':
        gen(int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for sub in ('ok', 'fail'):
        os.makedirs(os.path.join(here, sub), exist_ok=True)
    for name, data in cases().items():
        with open(os.path.join(here, name + '.tks'), 'wb') as f:
            f.write(data)
