#!/usr/bin/env python3
"""An independent model of the S.Ha.R.K. host tools `list` and `pwcet_gen`
(demos/newtrace/utils), written from specs/shark-ftrace-reference.md 1.7
and 1.9 only, not from tracekit's code: `tools_ref.py list|pwc DUMP`
prints what the tool prints.  C's printf conversions are spelled out:
%d of the 32-bit par2 is signed, %02x of the 16-bit type word keeps the
FAST bit, whole 16-byte records only."""
import struct
import sys


def c_int(v):
    return v - (1 << 32) if v >= 1 << 31 else v


def main():
    mode, path = sys.argv[1], sys.argv[2]
    data = open(path, 'rb').read()
    out = []
    for ev in range(len(data) // 16):
        typ, par1, hi, lo, par2 = struct.unpack_from('<HHIII', data, ev * 16)
        tsc = (hi << 32) | lo
        p2 = c_int(par2)
        if mode == 'list':
            out.append('%08d Type = %02x ' % (ev, typ)
                       + 'TSC = %d (%08x:%08x)' % (tsc, hi, lo)
                       + ' Par1 = %11d' % par1 + ' Par2 = %11d\n' % p2)
            continue
        code = typ & 0xff
        head = lambda c: '%d %d ' % (c, tsc)
        one = {0x03: 2, 0x13: 3, 0x3B: 3, 0x15: 4, 0x12: 6, 0x42: 7, 0x62: 8}
        two = {0x02: 5, 0x60: 9, 0x58: 16, 0xB2: 20, 0xC2: 21}
        if code == 0x01:
            line = head(par1)
        elif code == 0x20:
            line = head(0) + '%d %d ' % (par1, p2)
        elif code == 0x30:
            line = head(1)
        elif code == 0x2B:
            line = head(2) + '0 '
        elif code in one:
            line = head(one[code]) + '%d ' % par1
        elif code in two:
            line = head(two[code]) + '%d %d' % (par1, p2)
        elif code == 0x10:
            line = head(10) + '%d ' % p2
        else:
            continue
        out.append(line + '\n')
    sys.stdout.write(''.join(out))


main()
