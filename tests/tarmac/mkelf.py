#!/usr/bin/env python3
"""mkelf.py - write a minimal ELF32 little-endian ARM file with a symbol table.

  mkelf.py OUT [--thumb] NAME:ADDR:SIZE ...     functions (hex ADDR and SIZE);
                                                 NAME:ADDR:label an assembler
                                                 label (STT_NOTYPE, LOCAL)
  mkelf.py OUT [--thumb] --grid START COUNT STEP  COUNT functions fNNNN of
                                                   STEP bytes from START

Sections: null, .text (PROGBITS, covering every function), .symtab,
.strtab, .shstrtab.  The symbol table holds, besides the STT_FUNC symbols
(GLOBAL; with --thumb their address has bit 0 set, as a Thumb toolchain
writes it), a local "$t" mapping symbol and an STT_OBJECT "data_object"
that the reader must not take for functions.  Used by tests/tarmac/profile.sh
and bench/tarmac_read.sh.
"""
import struct
import sys


def build(funcs, thumb, labels=()):
    lo = min([a for _, a, _ in funcs] + [a for _, a in labels]) if funcs or labels else 0x1000
    hi = max(a + max(s, 2) for _, a, s in list(funcs) + [(n, a, 4) for n, a in labels]) \
        if funcs or labels else 0x1000
    lo &= ~0xF
    text = bytes(hi - lo)
    strtab = b"\0"
    offs = {}
    for name in ["$t", "data_object"] + [f[0] for f in funcs] + [n for n, _ in labels]:
        offs[name] = len(strtab)
        strtab += name.encode() + b"\0"
    STT_NOTYPE, STT_OBJECT, STT_FUNC = 0, 1, 2
    STB_LOCAL, STB_GLOBAL = 0, 1
    syms = [struct.pack("<IIIBBH", 0, 0, 0, 0, 0, 0)]
    syms.append(struct.pack("<IIIBBH", offs["$t"], lo, 0,
                            (STB_LOCAL << 4) | STT_NOTYPE, 0, 1))
    for name, addr in labels:
        syms.append(struct.pack("<IIIBBH", offs[name], addr | (1 if thumb else 0), 0,
                                (STB_LOCAL << 4) | STT_NOTYPE, 0, 1))
    nlocal = len(syms)
    syms.append(struct.pack("<IIIBBH", offs["data_object"], lo, 4,
                            (STB_GLOBAL << 4) | STT_OBJECT, 0, 1))
    for name, addr, size in funcs:
        syms.append(struct.pack("<IIIBBH", offs[name], addr | (1 if thumb else 0),
                                size, (STB_GLOBAL << 4) | STT_FUNC, 0, 1))
    symtab = b"".join(syms)
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    # layout: header, .text, .symtab, .strtab, .shstrtab, section headers
    off_text = 52
    off_sym = off_text + len(text)
    off_sym += (-off_sym) & 3
    off_str = off_sym + len(symtab)
    off_shstr = off_str + len(strtab)
    off_sh = off_shstr + len(shstr)
    off_sh += (-off_sh) & 3
    ehdr = struct.pack("<16sHHIIIIIHHHHHH",
                       b"\x7fELF\x01\x01\x01" + bytes(9),
                       2, 40, 1, lo | (1 if thumb else 0), 0, off_sh,
                       0x05000000, 52, 0, 0, 40, 5, 4)

    def sh(name, typ, flags, addr, off, size, link, info, align, entsize):
        return struct.pack("<IIIIIIIIII", name, typ, flags, addr, off, size,
                           link, info, align, entsize)
    shdrs = [
        sh(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        sh(1, 1, 6, lo, off_text, len(text), 0, 0, 4, 0),
        sh(7, 2, 0, 0, off_sym, len(symtab), 3, nlocal, 4, 16),
        sh(15, 3, 0, 0, off_str, len(strtab), 0, 0, 1, 0),
        sh(23, 3, 0, 0, off_shstr, len(shstr), 0, 0, 1, 0),
    ]
    out = bytearray(ehdr)
    out += text
    out += bytes(off_sym - len(out))
    out += symtab + strtab + shstr
    out += bytes(off_sh - len(out))
    out += b"".join(shdrs)
    return bytes(out)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out, args = argv[1], argv[2:]
    thumb = "--thumb" in args
    args = [a for a in args if a != "--thumb"]
    funcs, labels = [], []
    if args and args[0] == "--grid":
        start, count, step = int(args[1], 16), int(args[2]), int(args[3], 16)
        funcs = [("f%04x" % i, start + i * step, step) for i in range(count)]
    else:
        for a in args:
            name, addr, size = a.split(":")
            if size == "label":
                labels.append((name, int(addr, 16)))
            else:
                funcs.append((name, int(addr, 16), int(size, 16)))
    with open(out, "wb") as f:
        f.write(build(funcs, thumb, labels))


if __name__ == "__main__":
    main(sys.argv)
