# HTF's decompression bombs (tests/formats/bombs.py runs them; BOMB's
# fields: tests/formats/btf/bomb.py).  `extra`: inputs that must read
# (exit 0) with flat memory, as (name, header, record, MiB of records from
# a .zst): short records with a '#' in their comment (the line-at-a-time
# path), and plain records (both spooled by the source).
HTF_HDR = b"""#Format HTF
#Version 1.0
#NumberOfCores 1
#TimeScale ns
#TimestampLength 4
#EntityLength 1
#EventLength 1
#TypeTable
#-00 Task
#TaskEventTable
#-00 activate
#-01 start
#-04 terminate
#EntityTable
#-00 T0
#EntityTypeTable
#-00 00
#TraceData
#-00
"""
BOMB = dict(
    head=HTF_HDR + b"000000000000 // ",
    endless_line=20,
    endless_col=LIMIT + 1,
    msg="line longer than 4194304 bytes",
    valid=(HTF_HDR, long_line(b"000000000000 // ", b"c", b"\n")),
    extra=[("'#' comments", HTF_HDR, b"000000000000 // #c\n", 64),
           ("plain records", HTF_HDR, b"000000000000\n", 96)])
