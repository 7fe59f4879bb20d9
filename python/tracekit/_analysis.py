"""tracekit.stats(), tracekit.load(), tracekit.check() and
tracekit.verify(): the rows of `tracekit stats`, `tracekit load --format
csv`, `tracekit check` and `tracekit verify --format json`, as a pandas
DataFrame (when pandas imports) or a list of dicts.

The numbers are the command's: a column holds what the command writes
(times in ns, with the command's decimal places, shares in percent rounded
to two places) as int where the text is a whole number and float where it
has a decimal point, None (NaN/<NA> in a frame) where the cell is empty.
Beside each such column, "<column>_exact" holds the exact value as a
fractions.Fraction (what the command's --exact writes; None where there is
no value).
"""
import decimal
import fractions
import numbers

from . import _tracekit

__all__ = ["stats", "load", "check", "verify"]

_USAGE = -4  # TK_E_USAGE


def _check_as_frame(as_frame):
    """as_frame is None, True or False: a truthy "no" is refused before the
    reading, not taken as True."""
    if as_frame is not None and not isinstance(as_frame, bool):
        raise TypeError("as_frame: expected None, True or False, not %s"
                        % type(as_frame).__name__)


def _want_frame(as_frame):
    _check_as_frame(as_frame)
    if as_frame is False:
        return None
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise
        return None
    return pandas


def _column(pd, name, values):
    """A frame column: exact values as objects, whole numbers as int64
    (Int64 when some are missing), decimals as float64, names as str."""
    if name.endswith("_exact"):
        return pd.Series(values, dtype=object, name=name)
    present = [v for v in values if v is not None]
    if present and len(present) == len(values) and all(isinstance(v, bool) for v in present):
        return pd.Series(values, dtype="bool", name=name)
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        if all(-2**63 <= v < 2**63 for v in present):
            return pd.Series(values, dtype="int64" if len(present) == len(values) else "Int64",
                             name=name)
        return pd.Series(values, dtype=object, name=name)
    if present and all(isinstance(v, (int, float)) for v in present):
        return pd.Series([float("nan") if v is None else float(v) for v in values],
                         dtype="float64", name=name)
    return pd.Series(values, dtype=object, name=name)


def _rows(columns, rows, as_frame, attrs=None):
    pd = _want_frame(as_frame)
    if pd is None:
        return [dict(zip(columns, r)) for r in rows]
    data = list(zip(*rows)) if rows else [[] for _ in columns]
    frame = pd.DataFrame({c: _column(pd, c, list(v)) for c, v in zip(columns, data)},
                         columns=columns)
    if attrs:
        frame.attrs.update(attrs)
    return frame


def _percentiles(ps):
    """(millionths of a percent, column name) of each percentile: 0 < p <=
    100 with at most 6 decimals, none twice, as `tracekit stats --percentiles`."""
    if ps is None:
        return None
    if isinstance(ps, (str, numbers.Number, decimal.Decimal)):
        ps = [ps]
    try:
        ps = list(ps)
    except TypeError:
        raise TypeError("percentiles: expected a number or an iterable of numbers, not %s"
                        % type(ps).__name__) from None
    out = []
    for p in ps:
        if isinstance(p, bool) or not isinstance(p, (str, numbers.Real, decimal.Decimal)):
            raise TypeError("percentiles: expected numbers (int, float, str such as \"99.9\"), "
                            "not %s" % type(p).__name__)
        if isinstance(p, float):
            p = repr(p)
        try:
            q = fractions.Fraction(p)
        except (TypeError, ValueError, OverflowError):
            q = None
        if q is None:
            _tracekit._raise(_USAGE, "percentiles: %r is not a number" % (p,))
        m = q * 1000000
        if m.denominator != 1 or not 0 < m <= 100000000:
            _tracekit._raise(_USAGE, "percentiles: %s: expected numbers above 0 and at "
                             "most 100, with at most 6 decimals" % (p,))
        m = int(m)
        name = "p%d" % (m // 1000000)
        if m % 1000000:
            name += (".%06d" % (m % 1000000)).rstrip("0")
        for m0, name0 in out:
            if m0 == m:  # two columns of one name, as the command refuses
                _tracekit._raise(_USAGE, "percentiles: %s is given twice" % name0[1:])
        out.append((m, name))
    return out


def stats(source, *, percentiles=None, as_frame=None, **reader_kwargs):
    """Timing metrics per task, ISR and runnable: the rows of
    `tracekit stats --format csv` (docs/analysis.md defines the metrics).

    source: a path or a tracekit.Trace (read again with its open()
    arguments).  percentiles: numbers 0 < p <= 100 (at most 6 decimals, at
    most 64, none twice), as --percentiles: columns "p50", "p99.9", ... after
    "max_at".  reader_kwargs: those of tracekit.open() (format=, strict=,
    entities=, types=, events=, start=, end=, window_stop=, format options).

    Columns: entity, type (T, I, R, ...), metric (IPT, CET, ...), count
    (int), min, avg, max (ns for times, "unit" says "ns" or "1"; a trace
    timed in cycles, a Tarmac log in clk, gives them in its cycles, "unit"
    says which),
    unit, max_instance (the instance of the max; None when there is none),
    max_at (ns), the percentiles, then min_exact, avg_exact, max_exact,
    max_at_exact and "<p>_exact": fractions.Fraction, exact (a JIT's in
    its own unit 1).  Numbers are int where the command writes a whole
    number, float where it writes a decimal, None where it writes nothing.

    Returns a pandas DataFrame when pandas imports and as_frame is not
    False, else a list of dicts (as_frame=True requires pandas).  Raises
    tracekit.Error subclasses on unreadable input or bad arguments.
    """
    _check_as_frame(as_frame)
    cols, rows = _tracekit._stats(source, _percentiles(percentiles), reader_kwargs)
    return _rows(cols, rows, as_frame)


def load(source, *, window=None, idle=None, as_frame=None, **reader_kwargs):
    """Core load: the rows of `tracekit load --format csv`, in its order:
    the windows (kind "window", one row per window and core, with window=),
    then the whole span per core ("core"), the idle processes' time per
    core ("idle", when some idle process ran) and each entity's time per
    core ("entity").

    window: a duration str ("1ms", "250 us") or an int of ticks (a str of a
    bare number is ticks too), a positive whole number of the trace's
    ticks, windows aligned to multiples of it (at most ten million
    windows: tracekit.RangeError beyond); None: no windows.  idle: a glob
    pattern or patterns of the idle processes (as --idle; [] for none;
    None: the default, IDLE* for FreeRTOS trace logger traces).
    reader_kwargs: those of tracekit.open().

    Columns: kind, start, end (ns), core, entity (names; None where the
    command's cell is empty), busy, length (ns), percent (busy/length in
    percent rounded half up to 2 places, a float; None for an empty span),
    and start_exact, end_exact, busy_exact, length_exact (ns) and
    percent_exact as fractions.Fraction.

    Returns a pandas DataFrame when pandas imports and as_frame is not
    False, else a list of dicts.  A bad window raises tracekit.UsageError.
    """
    _check_as_frame(as_frame)
    cols, rows = _tracekit._load(source, window, idle, reader_kwargs)
    return _rows(cols, rows, as_frame)


def check(source, *, as_frame=None, **reader_kwargs):
    """Validation against the BTF state machines: the violations
    `tracekit check` reports (one line FILE:POS: error: MESSAGE [RULE]),
    one row each, in event order.

    Columns: pos (the event's line or record number, int), time (ticks,
    int), rule ("process-state", ...) and message.  An empty result means
    the trace is clean.  A DataFrame's attrs hold "events" (the number of
    events read) and "violations" (a dict rule -> count, the command's
    summary).  strict=True checks by the specification only, as --strict.

    Returns a pandas DataFrame when pandas imports and as_frame is not
    False, else a list of dicts.
    """
    _check_as_frame(as_frame)
    cols, rows, events, counts = _tracekit._check(source, reader_kwargs)
    return _rows(cols, rows, as_frame, {"events": events, "violations": counts})


def verify(source, requirements, *, as_frame=None, **reader_kwargs):
    """Timing requirements held against one trace: the verdicts of
    `tracekit verify TRACE -r REQUIREMENTS --format json`, one row per
    requirement in the file's order (docs/verify.md gives the file's
    format; the values are those of stats() and load()).

    source: a path or a tracekit.Trace.  requirements: the path of the
    YAML file (str or os.PathLike; "-" is standard input).
    reader_kwargs: those of tracekit.open().

    Columns: name (the requirement's), ok (bool), subject ("Task_A RT
    p99"), value, bound, margin (str with their units, as the command
    writes them: "52us", "max 50us", "-2us"), where (the entity, core or
    chain of the worst value), instance (int), time (the worst instance's
    or window's time in ticks, int), message (the command's line); None
    where the command's JSON has null (no value: an absent entity, say).
    A DataFrame's attrs hold "failures" (the number of rows not ok): a
    gate fails when it is not 0.

    Returns a pandas DataFrame when pandas imports and as_frame is not
    False, else a list of dicts.  Raises tracekit.Error subclasses on an
    unreadable trace or requirements file (tracekit.ParseError with the
    file's line and column for a bad requirement).
    """
    _check_as_frame(as_frame)
    cols, rows, failures = _tracekit._verify(source, requirements, reader_kwargs)
    return _rows(cols, rows, as_frame, {"failures": failures})
