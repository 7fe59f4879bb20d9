"""Type stubs of tracekit.tarmac: Arm Tarmac logs, their records as arrays
and the function profile with an ELF."""
import os
from typing import Any, Optional, Union

def open(log: Union[str, "os.PathLike[str]"], *,
         elf: Optional[Union[str, "os.PathLike[str]"]] = ..., strict: bool = ...,
         load_offset: int = ...) -> Any: ...
