# Tarmac's decompression bombs (tests/formats/bombs.py runs them; BOMB's
# fields: tests/formats/btf/bomb.py).
BOMB = dict(
    head=b"0 ps IT (0) 00020000 e3a00005 A svc_s : MOV r0,#5\n1 ps R r0 ",
    endless_line=2,
    endless_col=LIMIT + 1,
    msg="line longer than 4194304 bytes",
    valid=(b"0 ps IT (0) 00020000 e3a00005 A svc_s : MOV r0,#5\n",
           long_line(b"1 ps R r0 00000005 ; ", b"c", b"\n")))
