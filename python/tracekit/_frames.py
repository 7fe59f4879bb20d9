"""The arrays of Trace.to_numpy() and the frames of Trace.to_pandas(),
made from the columns the C extension reads (Trace._read): numpy views of
its buffers, no Python object per event."""
import collections
from fractions import Fraction

from . import _tracekit

Events = collections.namedtuple("Events", ["array", "names"])
Events.__doc__ = """What Trace.to_numpy() returns: `array`, a numpy structured array
of the events, and `names`, a dict of numpy object arrays, the name table
of each coded field ("source", "target", "core": the entity table, also
"entities"; "target_type"; "event"; "note"), so that
names[f][array[f]] gives field f's names (after masking the -1 of core and
note)."""

_U64_MAX = 2**64 - 1


def _np():
    import numpy
    return numpy


def record_dtype():
    """The numpy dtype of to_numpy()'s records (fields in tracekit.Event's
    order, 8-byte fields first in memory)."""
    np = _np()
    fields = _tracekit._record_fields()
    size = max(off + np.dtype(dt).itemsize for _, dt, off in fields)
    return np.dtype({"names": [f[0] for f in fields],
                     "formats": [f[1] for f in fields],
                     "offsets": [f[2] for f in fields],
                     "itemsize": size})


def _dedupe(names):
    """(unique names, remap array or None): names whose text is equal (two
    string ids of one text, or bytes that decode to the same U+FFFD) get
    one code"""
    np = _np()
    if len(set(names)) == len(names):
        return list(names), None
    first, uniq = {}, []
    remap = np.empty(len(names), dtype=np.int32)
    for i, s in enumerate(names):
        if s not in first:
            first[s] = len(uniq)
            uniq.append(s)
        remap[i] = first[s]
    return uniq, remap


def _recode(codes, remap):
    """codes through remap in place, -1 kept"""
    np = _np()
    if remap is None:
        return
    ok = codes >= 0
    codes[ok] = remap[codes[ok]]


def _table(names):
    np = _np()
    a = np.empty(len(names), dtype=object)
    a[:] = names
    return a


def numpy_events(raw):
    """Events(array, names) of the columns of Trace._read(True)"""
    np = _np()
    arr = np.frombuffer(raw["buffers"][0], dtype=record_dtype(), count=raw["n"])
    names = {}
    ents, remap = _dedupe([e["name"] for e in raw["entities"]])
    for f in ("source", "target", "core"):
        _recode(arr[f], remap)
    names["entities"] = _table(ents)
    for f in ("source", "target", "core"):
        names[f] = names["entities"]
    for f in ("target_type", "event", "note"):
        uniq, remap = _dedupe(raw[f])
        _recode(arr[f], remap)
        names[f] = _table(uniq)
    return Events(arr, names)


def time_ns(time, timebase):
    """The nanoseconds of the tick counts `time` (uint64 array) of
    `timebase` (Fraction seconds per tick): a uint64 array when every one
    is a whole number of nanoseconds below 2**64, else an object array of
    exact ints and Fractions (never rounded)."""
    np = _np()
    ns = Fraction(timebase) * 10**9
    p, q = ns.numerator, ns.denominator
    if len(time) == 0:
        return np.zeros(0, dtype=np.uint64)
    if q <= _U64_MAX and p <= _U64_MAX:
        whole = time if q == 1 else None
        if q != 1 and not (time % np.uint64(q)).any():
            whole = time // np.uint64(q)
        if whole is not None and int(whole.max()) <= _U64_MAX // p:
            return whole * np.uint64(p)
    out = np.empty(len(time), dtype=object)
    out[:] = [Fraction(int(t) * p, q) for t in time]
    for i, v in enumerate(out):
        if v.denominator == 1:
            out[i] = v.numerator
    return out


def pandas_events(raw):
    """the DataFrame of the columns of Trace._read(False)"""
    np = _np()
    import pandas as pd
    n = raw["n"]
    col = {}
    for (name, dt, _), buf in zip(_tracekit._record_fields(), raw["buffers"]):
        col[name] = np.frombuffer(buf, dtype=dt, count=n)
    ents = [e["name"] for e in raw["entities"]]
    tables = {"source": ents, "target": ents, "core": ents,
              "target_type": raw["target_type"], "event": raw["event"], "note": raw["note"]}
    cycles = raw.get("cycle_unit")
    if cycles:
        # ticks of clock cycles have no length in ns: none is made up
        ns = pd.array([pd.NA] * n, dtype="UInt64")
    else:
        ns = time_ns(col["time"], raw["timebase"])
    out = {"time": col["time"], "time_ns": ns}
    for name in ("source", "source_inst", "target_type", "target", "target_inst",
                 "event", "note", "core"):
        a = col[name]
        if name.endswith("_inst"):
            out[name] = pd.arrays.IntegerArray(a, a == _tracekit.INST_NONE)
            continue
        uniq, remap = _dedupe(tables[name])
        _recode(a, remap)
        out[name] = pd.Categorical.from_codes(a, categories=uniq)
    df = pd.DataFrame(out, copy=False)
    df.attrs["timebase"] = raw["timebase"]
    df.attrs["format"] = raw["format"]
    df.attrs["header"] = raw["header"]
    df.attrs["entities"] = raw["entities"]
    df.attrs["cycle_unit"] = cycles
    return df
