# BTF's decompression bombs (tests/formats/bombs.py runs them): the text
# before an endless line and where it is refused; a long valid line (a
# data line with a 3 MiB note, the same each time: interned once) and the
# text before it.  MIB, LIMIT and long_line() come from bombs.py.
BOMB = dict(
    head=b"#version 2.3.0\n#timescale ns\n0,Core_0,0,T,Task_A,0,",
    endless_line=3,
    endless_col=LIMIT + 1,
    msg="line longer than 4194304 bytes",
    valid=(b"#version 2.3.0\n#timescale ns\n",
           long_line(b"0,Core_0,0,T,Task_A,0,activate,", b"n", b"\n")))
