"""tracekit.tarmac: the instructions of an Arm Tarmac log as numpy arrays,
and the function profile against the program's ELF file.

    >>> import tracekit.tarmac
    >>> log = tracekit.tarmac.open("quicksort.tarmac", elf="quicksort.elf")
    >>> log.pc[:3], log.mnemonic_names()[:3]
    >>> log.profile()          # the rows of `tracekit stats LOG --elf ELF --format csv`

The records are read once, in C, into columns (docs/tarmac.md describes the
producers and line forms read).
"""
import numbers as _numbers
import os as _os

from . import _tracekit

__all__ = ["open", "Log"]

_COLUMNS = (("pc", "u8"), ("opcode", "u8"), ("opcode_bits", "u1"), ("mnemonic", "u4"),
            ("time", "u8"), ("unit", "u1"), ("cpu", "u4"), ("line", "u8"),
            ("executed", "u1"), ("iset", "u1"))
_PROFILE = ("function", "calls", "self_instructions", "instructions", "self_time", "time",
            "unit")


class Log:
    """The instruction records of a Tarmac log (tracekit.tarmac.open()),
    one element per instruction line (executed, skipped or faulted), in
    log order, as numpy arrays:

    pc (uint64, the instruction's address), opcode (uint64) and
    opcode_bits (uint8: 16, 32, 0 when not known), mnemonic (uint32 codes
    into .mnemonics, the first word of the disassembly as written), time
    (uint64, the stamp in the unit .units[unit] says: the log's own, a
    fractional SI stamp scaled exactly to a finer unit), unit (uint8),
    cpu (uint32: 0 without a CPU prefix, else an index into .cpus), line
    (uint64, 1-based), executed (bool: False for a skipped or faulted
    instruction), iset (uint8: ord("A") A32, ord("T") T32, ord("O") A64,
    ord("X") unknown, 0 not given).

    Also: .mnemonics (list of str), .units (unit names by code), .cpus
    (CPU names by index, "" for no prefix), .variant (the producer),
    .path, .elf, len(log).
    """

    def __init__(self, path, elf, d):
        import numpy as np
        self.path = path
        self.elf = elf
        for name, dt in _COLUMNS:
            a = np.frombuffer(d[name], dtype=np.dtype(dt))
            if name == "executed":
                a = a.view(np.bool_)
            setattr(self, name, a)
        self.mnemonics = d["mnemonics"]
        self.units = d["units"]
        self.cpus = d["cpus"]
        self.variant = d["variant"]
        self._profile = d.get("profile")
        self._n = d["count"]

    def __len__(self):
        return self._n

    def __repr__(self):
        return "<tracekit.tarmac.Log %r: %d instructions%s>" % (
            self.path, self._n, ", elf %r" % self.elf if self.elf else "")

    def mnemonic_names(self):
        """The mnemonic of every instruction as a numpy object array of str
        (the codes looked up in .mnemonics)."""
        import numpy as np
        return np.asarray(self.mnemonics, dtype=object)[self.mnemonic] \
            if self._n else np.empty(0, dtype=object)

    def to_pandas(self):
        """The instructions as a pandas DataFrame: the columns above, with
        mnemonic, unit and cpu as categoricals of their names."""
        import pandas as pd
        data = {}
        for name, _ in _COLUMNS:
            a = getattr(self, name)
            if name == "mnemonic":
                a = pd.Categorical.from_codes(a.astype("int64"), categories=self.mnemonics) \
                    if len(set(self.mnemonics)) == len(self.mnemonics) else self.mnemonic_names()
            elif name == "unit":
                a = pd.Categorical.from_codes(a.astype("int64"), categories=self.units)
            elif name == "cpu":
                a = pd.Categorical.from_codes(a.astype("int64"), categories=self.cpus) \
                    if len(set(self.cpus)) == len(self.cpus) else a
            data[name] = a
        return pd.DataFrame(data)

    def profile(self, *, as_frame=None):
        """The function profile of the log against the ELF given to open():
        the rows of `tracekit stats LOG --elf ELF --format csv`, by inclusive
        instructions: function, calls, self_instructions, instructions,
        self_time, time (ints, the time in the log's first stamp's unit),
        unit.  A pandas DataFrame when pandas imports and as_frame is not
        False, else a list of dicts.  tracekit.UsageError without an ELF.
        """
        if self._profile is None:
            _tracekit._raise(-4, "tarmac: the profile needs the program's ELF file "
                             "(tracekit.tarmac.open(log, elf=...))")
        from ._analysis import _rows
        return _rows(list(_PROFILE), self._profile, as_frame)


_U64 = (1 << 64) - 1


def _path(v, what):
    try:
        return _os.fsdecode(_os.fspath(v))
    except TypeError:
        raise TypeError("%s: expected str, bytes or os.PathLike, not %s"
                        % (what, type(v).__name__)) from None


def open(log, *, elf=None, strict=False, load_offset=0):
    """Read the Tarmac log `log` (a path; gzip and zstd are decoded) in one
    pass into a tracekit.tarmac.Log of numpy arrays; with `elf` (the
    program's ELF file) the same pass makes the function profile
    (Log.profile()).  strict=True: only the documented line forms (an
    error otherwise; lenient reading skips such lines with a
    tracekit.TraceWarning).  load_offset: the program was loaded that many
    bytes above its link addresses (as --load-offset: an int of at most 64
    bits; a negative one, below).  Errors raise
    tracekit.Error subclasses.
    """
    path = _path(log, "log")
    elfp = None if elf is None else _path(elf, "elf")
    if not isinstance(strict, bool):
        raise TypeError("strict: expected True or False, not %s" % type(strict).__name__)
    if isinstance(load_offset, bool) or not isinstance(load_offset, _numbers.Integral):
        raise TypeError("load_offset: expected an int (bytes), not %s"
                        % type(load_offset).__name__)
    off = int(load_offset)
    if not -_U64 <= off <= _U64:
        # as --load-offset: 64 bits, a negative offset subtracts
        raise ValueError("load_offset: %d does not fit 64 bits (-0x%x .. 0x%x)"
                         % (off, _U64, _U64))
    d = _tracekit._tarmac_read(path, strict, elfp, off & _U64)
    return Log(path, elfp, d)
