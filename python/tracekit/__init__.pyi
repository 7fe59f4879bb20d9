"""Type stubs of the tracekit package (PEP 561: py.typed beside it)."""
import os
from fractions import Fraction
from typing import (Any, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence,
                    Tuple, TypedDict, Union)

from . import tarmac as tarmac

__version__: str

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
Source = Union[PathLike, "Trace"]
Names = Union[str, Iterable[str]]
Bound = Union[int, str]

INST_NONE: int
"""The instance value of to_numpy()'s arrays where the input had none (-2**63)."""


def version() -> str: ...


class Error(Exception):
    code: int
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    offset: Optional[int]
    message: str

class ParseError(Error): ...
class FormatError(Error): ...
class UsageError(Error, ValueError): ...
class RangeError(Error, ValueError): ...
class UnsupportedError(Error): ...
class IOError(Error, OSError): ...
class MemoryError(Error, MemoryError): ...  # type: ignore[misc]
class TraceWarning(UserWarning): ...


class Event(Tuple[int, str, Optional[int], str, str, Optional[int], str, Optional[str],
                  Optional[str]]):
    """One event: a named tuple (a structseq)."""
    time: int
    source: str
    source_inst: Optional[int]
    target_type: str
    target: str
    target_inst: Optional[int]
    event: str
    note: Optional[str]
    core: Optional[str]


class EventIterator(Iterator[Event]):
    def __next__(self) -> Event: ...
    def close(self) -> None: ...


class Entity(TypedDict):
    name: str
    type: Optional[str]
    parent: Optional[str]


class Events(NamedTuple):
    """What Trace.to_numpy() returns."""
    array: Any                 # numpy.ndarray, structured
    names: Dict[str, Any]      # field -> numpy object array of names


class Trace:
    path: str
    @property
    def format(self) -> str: ...
    @property
    def timebase(self) -> Fraction: ...
    @property
    def cycle_unit(self) -> Optional[str]: ...
    @property
    def header(self) -> List[Tuple[str, str, Optional[str]]]: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    @property
    def entities(self) -> List[Entity]: ...
    def __iter__(self) -> EventIterator: ...
    def events(self, *, format: Optional[str] = ..., strict: bool = ...,
               force_format: bool = ...,
               entities: Optional[Names] = ..., types: Optional[Names] = ...,
               events: Optional[Names] = ..., start: Optional[Bound] = ...,
               end: Optional[Bound] = ..., end_closed: bool = ...,
               window_stop: Optional[str] = ..., options: Optional[str] = ...,
               **format_options: Any) -> EventIterator: ...
    def to_numpy(self, *, format: Optional[str] = ..., strict: bool = ...,
                 force_format: bool = ...,
                 entities: Optional[Names] = ..., types: Optional[Names] = ...,
                 events: Optional[Names] = ..., start: Optional[Bound] = ...,
                 end: Optional[Bound] = ..., end_closed: bool = ...,
                 window_stop: Optional[str] = ..., options: Optional[str] = ...,
                 **format_options: Any) -> Events: ...
    def to_pandas(self, *, format: Optional[str] = ..., strict: bool = ...,
                  force_format: bool = ...,
                  entities: Optional[Names] = ..., types: Optional[Names] = ...,
                  events: Optional[Names] = ..., start: Optional[Bound] = ...,
                  end: Optional[Bound] = ..., end_closed: bool = ...,
                  window_stop: Optional[str] = ..., options: Optional[str] = ...,
                  **format_options: Any) -> Any: ...   # pandas.DataFrame


def open(path: PathLike, *, format: Optional[str] = ..., strict: bool = ...,
         force_format: bool = ...,
         entities: Optional[Names] = ..., types: Optional[Names] = ...,
         events: Optional[Names] = ..., start: Optional[Bound] = ...,
         end: Optional[Bound] = ..., end_closed: bool = ...,
         window_stop: Optional[str] = ..., options: Optional[str] = ...,
         **format_options: Any) -> Trace: ...


# the analyses (DataFrames with pandas, else lists of dicts)
def stats(source: Source, *, percentiles: Optional[Sequence[float]] = ...,
          as_frame: Optional[bool] = ..., **reader_kwargs: Any) -> Any: ...
def load(source: Source, *, window: Optional[Bound] = ..., idle: Optional[Names] = ...,
         as_frame: Optional[bool] = ..., **reader_kwargs: Any) -> Any: ...
def check(source: Source, *, as_frame: Optional[bool] = ..., **reader_kwargs: Any) -> Any: ...
def verify(source: Source, requirements: PathLike, *, as_frame: Optional[bool] = ...,
           **reader_kwargs: Any) -> Any: ...

# writing
def write(data: Any, path: PathLike, *, timebase: Optional[Fraction] = ...,
          entities: Optional[Sequence[Entity]] = ...,
          header: Optional[Sequence[Tuple[str, str, Optional[str]]]] = ...,
          format: Optional[str] = ...) -> None: ...
def convert(src: Source, dst: PathLike, **reader_kwargs: Any) -> None: ...
