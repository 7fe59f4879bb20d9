# ATF's decompression bombs (tests/formats/bombs.py runs them; BOMB's
# fields: tests/formats/btf/bomb.py): an endless XML token, refused at
# its start; 3 MiB comments before the (empty) configuration, which
# `tail` closes.
BOMB = dict(
    head=b'<?xml version="1.0" encoding="utf-8"?>\n'
         b'<CommonFormat Version="1.0">\n<SystemConfiguration Name="',
    endless_line=3,
    endless_col=1,
    msg="XML token longer than 4194304 bytes",
    valid=(b'<?xml version="1.0" encoding="utf-8"?>\n'
           b'<CommonFormat Version="1.0">\n',
           long_line(b"<!-- ", b"c", b" -->\n")),
    tail=b"<SystemConfiguration/></CommonFormat>\n")
