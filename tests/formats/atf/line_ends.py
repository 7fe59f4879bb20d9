#!/usr/bin/env python3
"""Line ends in ATF (XML): LF, CR LF and a lone CR each end a line.

The reader's fast scanner counts lines itself; this test writes traces
large enough for it (several 64 KiB slices) with their line ends as LF,
CR LF, lone CR and a mix, with lone CRs also inside tags and comments and
CR LF pairs cut by a slice boundary, and checks that every variant reads
to the same events and reports an error at the same line and column as
the LF variant (and as xmllint, for an XML error in a file without lone
CRs: libxml2 counts LF only).

Usage: line_ends.py TRACEKIT TESTDIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

cli, testdir = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
failed = []


def fail(msg):
    failed.append(msg)
    print("FAIL:", msg)


def lines_of(fixture):
    with open(os.path.join(testdir, fixture), "rb") as f:
        return f.read().split(b"\n")


def body(lines, n):
    """The fixture with n extra entries after its first TraceEntry line."""
    first = next(i for i, l in enumerate(lines) if b"<TraceEntry" in l)
    extra = []
    for k in range(n):
        e = b'    <TraceEntry Time="1" EventID="2" ReferenceID="10" />'
        if k % 97 == 5:   # attributes on lines of their own
            e = b'    <TraceEntry Time="1"\n\tEventID="2"\n ReferenceID="10" />'
        if k % 89 == 7:
            e = b"    <!-- a comment\n over two lines -->"
        extra.append(e)
    return b"\n".join(lines[:first + 1] + extra + lines[first + 1:])


def with_ends(text, style):
    parts = text.split(b"\n")
    out = []
    for i, part in enumerate(parts[:-1]):
        if style == "lf":
            end = b"\n"
        elif style == "crlf":
            end = b"\r\n"
        elif style == "cr":
            end = b"\r"
        else:  # mixed
            end = (b"\n", b"\r\n", b"\r")[i % 3]
        out.append(part + end)
    out.append(parts[-1])
    return b"".join(out)


def run(args):
    p = subprocess.run([cli] + args, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def position(stderr, path):
    m = re.search(re.escape(path) + r":(\d+):(\d+): error", stderr)
    return (int(m.group(1)), int(m.group(2))) if m else None


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# 1. a valid trace: the same events whatever the line ends
ok = body(lines_of("fail/scanner_event_id.atf"), 6000)
ok = ok.replace(b'EventID="77"', b'EventID="2"')
ref = None
for style in ("lf", "crlf", "cr", "mixed"):
    path = write("ok_%s.atf" % style, with_ends(ok, style))
    rc, out, err = run(["cat", "-q", path])
    if rc != 0:
        fail("ok %s: exit %d: %s" % (style, rc, err.strip()))
        continue
    if ref is None:
        ref = out
        if out.count(b"\n") < 5900:
            fail("ok lf: only %d events" % out.count(b"\n"))
    elif out != ref:
        fail("ok %s: events differ from the LF variant" % style)

# 2. errors after many lines: the same line and column for every variant
for fixture, xml_error in (("fail/scanner_event_id.atf", False),
                           ("fail/scanner_malformed.atf", True)):
    text = body(lines_of(fixture), 6000)
    want = None
    for style in ("lf", "crlf", "cr", "mixed"):
        path = write("err_%s.atf" % style, with_ends(text, style))
        rc, _, err = run(["info", "-q", path])
        pos = position(err, path)
        if rc == 0 or pos is None:
            fail("%s %s: no error with a position: %s" % (fixture, style, err.strip()))
            continue
        if want is None:
            want = pos
            if pos[0] < 6000:
                fail("%s lf: error at line %d, before the entries" % (fixture, pos[0]))
        elif pos != want:
            fail("%s %s: error at %d:%d, LF variant at %d:%d" % ((fixture, style) + pos + want))
        # libxml2 counts LF only: compare where the two agree on lines
        if xml_error and style in ("lf", "crlf") and shutil.which("xmllint"):
            x = subprocess.run(["xmllint", "--noout", path], capture_output=True)
            m = re.search(re.escape(path) + r":(\d+):", x.stderr.decode(errors="replace"))
            if not m or int(m.group(1)) != pos[0]:
                fail("%s %s: xmllint says line %s, we say %d" %
                     (fixture, style, m.group(1) if m else "?", pos[0]))

# 3. a CR LF cut by a slice boundary (the reader hands expat 64 KiB
#    slices): a header of some 80 KiB of CR LF comment lines, shifted
#    byte by byte so that one of the variants has a CR as the last byte
#    of the first slice
text = with_ends(body(lines_of("fail/scanner_event_id.atf"), 6000), "crlf")
want = None
for shift in range(0, 24):
    pad = b"<!--" + b" " * shift + b"-->\r\n" + b"  <!-- padding -->\r\n" * 4000
    data = text.replace(b"  <TraceData", pad + b"  <TraceData", 1)
    path = write("cut_%d.atf" % shift, data)
    rc, _, err = run(["info", "-q", path])
    pos = position(err, path)
    if pos is None:
        fail("cut %d: no error with a position: %s" % (shift, err.strip()))
    elif want is None:
        want = pos
    elif pos != want:
        fail("cut %d: error at %d:%d, want %d:%d" % ((shift,) + pos + want))

shutil.rmtree(tmp)
if failed:
    sys.exit(1)
print("line ends: LF, CR LF, CR and mixed read alike")
