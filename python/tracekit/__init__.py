"""tracekit: read, check, measure and convert the timing traces of embedded
real-time systems (BTF, HTF, ATF, S.Ha.R.K. FTrace, Arm Tarmac) from Python.

    >>> import tracekit
    >>> t = tracekit.open("examples/demo.btf")
"""
from ._tracekit import (Error, ParseError, FormatError, UsageError, RangeError,
                        UnsupportedError, IOError, MemoryError, TraceWarning,
                        Trace, open, version)
from ._tracekit import Event, EventIterator, INST_NONE

__version__ = version()
from ._frames import Events
