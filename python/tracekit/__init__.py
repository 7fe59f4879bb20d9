"""tracekit: read, check, measure and convert the timing traces of embedded
real-time systems (BTF, HTF, ATF, S.Ha.R.K. FTrace, Arm Tarmac) from Python.

    >>> import tracekit
    >>> t = tracekit.open("examples/demo.btf")
"""
from ._tracekit import (Error, ParseError, FormatError, UsageError, RangeError,
                        UnsupportedError, IOError, MemoryError, TraceWarning,
                        Trace, open, version)
from ._tracekit import Event, EventIterator, INST_NONE
from ._frames import Events
from ._analysis import stats, load, check, verify
from ._write import write, convert
from . import tarmac

__version__ = version()
