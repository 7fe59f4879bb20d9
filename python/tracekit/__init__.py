"""tracekit: read, check, measure and convert the timing traces of embedded
real-time systems (BTF, HTF, ATF, S.Ha.R.K. FTrace, Arm Tarmac) from Python.

    >>> import tracekit
    >>> t = tracekit.open("examples/demo.btf")
"""
from ._tracekit import (Error, ParseError, FormatError, UsageError, RangeError,
                        UnsupportedError, IOError, MemoryError, TraceWarning,
                        Trace, open, version)

__version__ = version()
from ._analysis import stats, load, check
from ._write import write, convert
from . import tarmac
