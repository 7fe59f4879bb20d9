#!/usr/bin/env python3
"""Line length and memory on every transport: decompression bombs.

Each format read (the registry's) is given what its tests/formats/<fmt>/
bomb.py says (a format of no lines, S.Ha.R.K.'s binary records, says None)
as a plain file, on standard input, gzip- and zstd-compressed:

  - one endless line (an endless XML token for ATF): a few KB of .gz/.zst
    that decode to 1 GiB (tens of MB for the file and the pipe).  It must
    be refused with "NAME:LINE:4194305: error: line longer than 4194304
    bytes" (ATF: "XML token longer than 4194304 bytes"), exit 2;
  - many long but valid lines (3 MiB each, under the limit), and the
    format's extra inputs (HTF: plain records, records with a '#' in their
    comment, the line-at-a-time path): they must read, exit 0.

Every run must stay under a peak RSS bound (ru_maxrss, as the helper RUSAGE
(bench/rusage.c) reports it) and may write no more than a bound to any file
(RLIMIT_FSIZE: the HTF reader's temporary file; 16 MiB for an endless
line), so memory and temporary disk are bounded by the line limit, not by
the input.  The bombs are made here: one compressed member
or frame repeated (gzip members and zstd frames concatenate).

In a sanitizer build the peak RSS is ASan's as much as the reader's (its
bound is 4 times larger, above the inputs' size), so flat memory is shown
by the unsanitized builds alone: there the valid inputs are cut to 12 MiB
and the format's extra inputs to 8 MiB, which still take the reader
across many fills of its window, at a seventh of the cost.

Usage: bombs.py TRACEKIT RUSAGE
"""
import csv
import io
import os
import resource
import runpy
import subprocess
import sys
import tempfile
import threading
import zlib

cli, rusage = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
MIB = 1 << 20
LIMIT = 4 * MIB              # TK_LINE_MAX
RSS_MAX_KB = 40 * 1024       # what a run may hold at its peak
FSIZE_ENDLESS = 16 * MIB     # what a run may write to one file
FSIZE_VALID = 256 * MIB
failed = []
env = dict(os.environ)
VALID_REPS, EXTRA_MIB = 24, None
with open(cli, "rb") as f:
    if b"__asan_init" in f.read():
        VALID_REPS, EXTRA_MIB = 4, 8
        RSS_MAX_KB *= 4  # ASan's shadow memory comes on top
        # and its quarantine of freed blocks, which a streamed window that
        # moves at every fill (as it does in such builds) fills up: keep
        # it small, so that the peak measures what the reader holds
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               ":quarantine_size_mb=16").lstrip(":")


def gz(data):
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def zst(data):
    return subprocess.run(["zstd", "-q", "-c"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def run(args, fsize, stdin_parts=None, fifo=None):
    """Run tracekit; returns (status, stderr, peak RSS in KiB).  The parts
    go to its standard input, or to the named pipe `fifo`."""
    err = open(os.path.join(tmp, "err"), "w+")
    res = os.path.join(tmp, "rusage")

    def limits():
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    p = subprocess.Popen([rusage, res, cli] + args, stdout=subprocess.DEVNULL,
                         stderr=err, preexec_fn=limits, env=env,
                         stdin=subprocess.PIPE if stdin_parts and not fifo
                         else subprocess.DEVNULL)
    if stdin_parts:
        def feed():
            out = p.stdin
            try:
                if fifo:
                    out = open(fifo, "wb")
                for part, times in stdin_parts:
                    for _ in range(times):
                        out.write(part)
            except (BrokenPipeError, OSError):
                pass
            finally:
                try:
                    out.close()
                except OSError:
                    pass
        th = threading.Thread(target=feed)
        th.start()
    p.wait()
    if stdin_parts:
        th.join()
    err.seek(0)
    text = err.read()
    err.close()
    try:
        with open(res) as f:
            _, rss, code = f.read().split()[:3]
    except (OSError, ValueError):
        return p.returncode, text, 1 << 40
    return int(code), text, int(rss)


def check(name, args, want_rc, want_msg, stdin_parts=None, fifo=None):
    rc, text, rss = run(args, FSIZE_ENDLESS if want_rc else FSIZE_VALID,
                        stdin_parts, fifo)
    first = text.splitlines()[0] if text else ""
    ok = rc == want_rc and rss <= RSS_MAX_KB
    if want_msg is not None and want_msg not in first:
        ok = False
    if want_msg is None and rc == 0 and "error" in text:
        ok = False
    print("%s %s: exit %d, peak RSS %d KiB%s" %
          ("ok:" if ok else "FAIL:", name, rc, rss,
           "" if ok else ", stderr: " + first))
    if not ok:
        failed.append(name)


def long_line(prefix, fill, suffix):
    return prefix + fill * (3 * MIB) + suffix


def bombs():
    """Each format read (the registry: `tracekit formats --format csv`)
    and its BOMB, from tests/formats/<fmt>/bomb.py beside this script
    (None: a format with no lines); a format read without one fails."""
    out = subprocess.run([cli, "formats", "--format", "csv"], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    here = os.path.dirname(os.path.abspath(__file__))
    found = {}
    for row in csv.DictReader(io.StringIO(out)):
        if row["read"] != "yes":
            continue
        path = os.path.join(here, row["format"], "bomb.py")
        if not os.path.exists(path):
            print("FAIL: %s is read but has no %s" % (row["format"], path))
            failed.append(row["format"] + " bomb.py")
            continue
        bomb = runpy.run_path(path, dict(MIB=MIB, LIMIT=LIMIT,
                                         long_line=long_line))["BOMB"]
        if bomb:
            found[row["format"]] = bomb
    return found


FORMATS = bombs()
unit = b"a" * MIB
for fmt, f in FORMATS.items():
    want = ":%d:%d: error: %s" % (f["endless_line"], f["endless_col"], f["msg"])
    # one endless line: 1 GiB from .gz/.zst, 64 MiB from a file or a pipe
    for ext, comp, n in (("gz", gz, 1024), ("zst", zst, 1024)):
        path = os.path.join(tmp, "endless.%s.%s" % (fmt, ext))
        with open(path, "wb") as out:
            out.write(comp(f["head"]))
            out.write(comp(unit) * n)
        check("%s endless line .%s (%d MiB)" % (fmt, ext, n),
              ["info", "--from", fmt, path], 2, want)
    path = os.path.join(tmp, "endless." + fmt)
    with open(path, "wb") as out:
        out.write(f["head"])
        for _ in range(64):
            out.write(unit)
    check("%s endless line, file (64 MiB)" % fmt, ["info", "--from", fmt, path],
          2, want)
    os.unlink(path)
    check("%s endless line, stdin (64 MiB)" % fmt, ["info", "--from", fmt, "-"],
          2, want, [(f["head"], 1), (unit, 64)])
    # a named pipe given by its path is a stream too
    fifo = os.path.join(tmp, "fifo." + fmt)
    os.mkfifo(fifo)
    check("%s endless line, named pipe (64 MiB)" % fmt,
          ["info", "--from", fmt, fifo], 2, want, [(f["head"], 1), (unit, 64)],
          fifo)
    os.unlink(fifo)

    # long valid lines: 24 of 3 MiB (72 MiB) from .zst, .gz and a pipe
    # (4 under a sanitizer)
    head, line = f["valid"]
    tail = f.get("tail", b"")
    for ext, comp in (("gz", gz), ("zst", zst)):
        path = os.path.join(tmp, "long.%s.%s" % (fmt, ext))
        with open(path, "wb") as out:
            out.write(comp(head))
            out.write(comp(line) * VALID_REPS)
            if tail:
                out.write(comp(tail))
        check("%s long lines .%s (%d MiB)" % (fmt, ext, 3 * VALID_REPS),
              ["info", "--from", fmt, path], 0, None)
    check("%s long lines, stdin (%d MiB)" % (fmt, 3 * VALID_REPS),
          ["info", "--from", fmt, "-"], 0, None,
          [(head, 1), (line, VALID_REPS)] + ([(tail, 1)] if tail else []))

    # inputs of the format's own that must read with flat memory
    for name, head, rec, mib in f.get("extra", []):
        mib = min(mib, EXTRA_MIB or mib)
        path = os.path.join(tmp, "extra.%s.zst" % fmt)
        with open(path, "wb") as out:
            out.write(zst(head))
            out.write(zst(rec * (MIB // len(rec))) * mib)
        check("%s %s .zst (%d MiB)" % (fmt, name, mib), ["info", path], 0, None)
        os.unlink(path)

for name in os.listdir(tmp):
    os.unlink(os.path.join(tmp, name))
os.rmdir(tmp)
if failed:
    print("%d failed: %s" % (len(failed), ", ".join(failed)))
    sys.exit(1)
print("all bombs bounded")
