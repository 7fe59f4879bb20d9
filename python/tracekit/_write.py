"""tracekit.write() and tracekit.convert(): traces written by the library's
writers (BTF, HTF, ATF, CTF, Perfetto JSON, VCD, SQLite, ...: every format
`tracekit formats` lists as writable), chosen by the output's extension."""
import decimal
import fractions
import math
import numbers
import os

from . import _tracekit

__all__ = ["write", "convert"]

FIELDS = ("time", "source", "source_inst", "target_type", "target", "target_inst",
          "event", "note", "core")
REQUIRED = ("time", "source", "target", "event")
_USAGE, _RANGE = -4, -5
# seconds of one unit: ps, ns, us, ms, s (tk_unit)
_UNIT_S = [fractions.Fraction(1, 10**12), fractions.Fraction(1, 10**9),
           fractions.Fraction(1, 10**6), fractions.Fraction(1, 10**3), fractions.Fraction(1)]


def _timebase(tb):
    """(unit, num, den) of the tk_timebase that is exactly `tb` seconds per
    tick: the largest unit where a tick is a whole number of it, else the
    unit whose fraction is smallest; RangeError when none fits 64 bits."""
    if isinstance(tb, bool) or not isinstance(
            tb, (numbers.Rational, float, decimal.Decimal, str)):
        raise TypeError("timebase: expected a fractions.Fraction of seconds per tick, not %s"
                        % type(tb).__name__)
    try:
        f = fractions.Fraction(tb)
    except (ValueError, ZeroDivisionError, OverflowError):
        _tracekit._raise(_USAGE, "timebase: %r is not a number of seconds" % (tb,))
    if f <= 0:
        _tracekit._raise(_USAGE, "timebase: %s s per tick: not positive" % f)
    best = None
    for unit in (4, 3, 2, 1, 0):
        q = f / _UNIT_S[unit]
        if q.numerator >= 2**64 or q.denominator >= 2**64:
            continue
        if q.denominator == 1:
            return unit, q.numerator, 1
        size = max(q.numerator, q.denominator)
        if best is None or size < best[0]:
            best = (size, unit, q.numerator, q.denominator)
    if best is None:
        _tracekit._raise(_RANGE, "timebase: %s s per tick cannot be written as a tick of "
                         "num/den ps, ns, us, ms or s with 64-bit num and den" % f)
    return best[1:]


def _missing(v):
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return type(v).__name__ in ("NAType", "NaTType")


def _name(v):
    return None if _missing(v) else v if isinstance(v, str) else str(v)


def _int(v):
    if _missing(v):
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v  # refused by the C side with its type


_CONVERT = {"time": _int, "source_inst": _int, "target_inst": _int}


def _columns_of_frame(df):
    cols = []
    for f in FIELDS:
        if f not in df.columns:
            if f in REQUIRED:
                _tracekit._raise(_USAGE, "write: the frame has no column '%s' (columns: %s)"
                                 % (f, ", ".join(map(str, df.columns))))
            cols.append([None] * len(df))
            continue
        conv = _CONVERT.get(f, _name)
        cols.append([conv(v) for v in df[f].tolist()])
    return tuple(cols)


def _columns_of_events(events):
    cols = tuple([] for _ in FIELDS)
    for i, ev in enumerate(events):
        if isinstance(ev, dict):
            for f in REQUIRED:
                if f not in ev:
                    _tracekit._raise(_USAGE, "write: event %d has no field '%s'" % (i, f))
            vals = [ev.get(f) for f in FIELDS]
        else:
            vals = list(ev)
            if hasattr(ev, "_fields"):  # a named tuple: by name
                vals = [getattr(ev, f, None) for f in FIELDS]
            elif len(vals) > len(FIELDS):
                _tracekit._raise(_USAGE, "write: event %d has %d fields (at most %d: %s)"
                                 % (i, len(vals), len(FIELDS), ", ".join(FIELDS)))
            elif len(vals) < FIELDS.index("event") + 1:
                _tracekit._raise(_USAGE, "write: event %d has %d fields: no '%s'"
                                 % (i, len(vals), FIELDS[len(vals)]))
            vals += [None] * (len(FIELDS) - len(vals))
        for c, f, v in zip(cols, FIELDS, vals):
            c.append(_CONVERT.get(f, _name)(v))
    return cols


def _seq(v, what, of):
    """v as a list: a sequence or iterable of entries, not a str or mapping"""
    if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
        raise TypeError("%s: expected a list of %s, not %s" % (what, of, type(v).__name__))
    return list(v)


def _entry(e, what, kind, make):
    """one entry of a list: a dict (a mapping or pairs) or a tuple"""
    try:
        if isinstance(e, (str, bytes)):
            raise TypeError
        return e if isinstance(e, make) else make(e)
    except (TypeError, ValueError):
        raise TypeError("%s: expected %s per entry, not %s: %r"
                        % (what, kind, type(e).__name__, e)) from None


def write(data, path, *, timebase=None, entities=None, header=None, format=None):
    """Write events to `path` through the library's writers; returns the
    number of events written.

    data: a pandas DataFrame with the columns of Trace.to_pandas(): time
    (ticks, int), source, source_inst (int or missing), target_type,
    target, target_inst, event, note, core (str, or None/NaN for absent;
    time, source, target and event are required), whose attrs give
    "timebase", "header" and "entities" where the keywords are None; or an
    iterable of events, each a dict with those keys or a tuple in that
    order (at least up to event).

    timebase: seconds per tick, exactly (a fractions.Fraction, int,
    Decimal or str such as "1/1000000000"); it becomes the tick of the
    output without rounding (tracekit.RangeError when no tick of num/den ps,
    ns, us, ms or s with 64-bit num and den is it).  entities: dicts with
    name, type ("T", "I", "C", ...) and parent (a name or None), added
    before the events.  header: (kind, key, value) entries, kind "param",
    "comment" or "row", value None for a key alone.  format: the output
    format's name ("btf", "htf", ...); None: told by the path's extension
    (.btf, .htf, .atf, .ctf, .json, .vcd, .sqlite, ...; .gz/.zst compress
    the stream formats).

    Errors raise tracekit.Error subclasses (UsageError for a missing
    column or field, an unknown extension or format; TypeError for a value
    of the wrong type) and leave no file: the writer writes under a
    temporary name renamed at the end.  What the format cannot hold is a
    tracekit.TraceWarning.
    """
    attrs = getattr(data, "attrs", None) or {}
    if timebase is None:
        timebase = attrs.get("timebase")
    if entities is None:
        entities = attrs.get("entities")
    if header is None:
        header = attrs.get("header")
    if timebase is None:
        _tracekit._raise(_USAGE, "write: no timebase (give timebase=, seconds per tick as "
                         "a Fraction, or a frame whose attrs have one)")
    tb = _timebase(timebase)
    if format is not None and not isinstance(format, str):
        raise TypeError("format: expected a format's name (str) or None, not %s"
                        % type(format).__name__)
    if entities is not None:
        entities = [_entry(e, "entities", "a dict (name, type, parent)", dict)
                    for e in _seq(entities, "entities", "dicts (name, type, parent)")]
    if header is not None:
        header = [_entry(h, "header", "a (kind, key, value) tuple", tuple)
                  for h in _seq(header, "header", "(kind, key, value) tuples")]
        for h in header:
            if len(h) != 3:
                raise TypeError("header: expected (kind, key, value) tuples, not one of %d "
                                "items: %r" % (len(h), h))
    if hasattr(data, "columns") and hasattr(data, "iloc"):  # a DataFrame
        cols = _columns_of_frame(data)
    else:
        cols = _columns_of_events(data)
    return _tracekit._write(os.fsdecode(path), format, tb, header, entities, cols)


def convert(src, dst, **reader_kwargs):
    """Read `src` (a path or a tracekit.Trace) and write it to `dst` in the
    format its extension names, as `tracekit convert SRC DST` does (the
    same bytes).  reader_kwargs: those of tracekit.open() (format=,
    strict=, entities=, start=, end=, ..., format options); strict=True
    also makes the writer refuse what the output format cannot hold.
    Errors raise tracekit.Error subclasses and leave no file at `dst`.
    """
    _tracekit._convert(src, dst, reader_kwargs)
