#!/usr/bin/env python3
"""The matrix of tests/stream/matrix.sh (which gathers the inputs and
says what it checks): every input DIR/in/NAME.FMT (options in NAME.args)
read by `tracekit cat` and `tracekit info` from the file, then from
standard input (redirected), a pipe, a FIFO, a .gz and a .zst file, and
gzip's and zstd's output through a pipe; each must give the file's
standard output, exit status and messages (the input's name aside)
exactly.  Sampled unless FULL is 1, as matrix.sh says.

The runs are started from here, each a single process (no shell, no
`timeout`, no `cmp`/`sed` per comparison): what tracekit is given is what
the shell gave it (the same files, the same pipe, FIFO and compressed
bytes: gzip's and zstd's output of the file, as `gzip -c` and `zstd -c`
write it again into the pipe).

usage: matrix.py CLI FMT DIR FULL FROM INPUT...
(DIR: the directory of the runs is DIR/run; FROM: options naming the
format of every input, as '--from shark', or '')"""
import os
import re
import signal
import subprocess
import sys

VARIANTS = ["stdin", "pipe", "gz", "zst", "gzpipe", "zstpipe", "fifo"]


def norm(data):
    """the name of the input in messages and info's first line is not
    compared (sed -e 's/tkin\\.[a-z.]*/INPUT/g' -e 's/<stdin>/INPUT/g'
    -e 's/^file: *.*$/file: INPUT/')"""
    data = re.sub(rb"tkin\.[a-z.]*", b"INPUT", data)
    data = data.replace(b"<stdin>", b"INPUT")
    return re.sub(rb"(?m)^file: *.*$", b"file: INPUT", data)


class Matrix:
    def __init__(self, cli, fmt, tmp, full, base_from):
        self.cli, self.fmt, self.tmp, self.full = cli, fmt, tmp, full
        self.base_from = base_from
        self.timeout = float(os.environ.get("TK_STREAM_TIMEOUT", "120"))
        self.fail = 0
        self.count = self.turn = 0
        self.seen = set()
        self.has_fifo = True
        self.out = sys.stdout

    def say(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def run(self, v, cmd, inp, opts, stdin=None, data=None):
        """out, err and status of `tracekit CMD OPTS INPUT`, kept as V.*"""
        argv = [self.cli, cmd] + opts + [inp]
        with open(v + ".out", "wb") as out, open(v + ".err", "wb") as err:
            p = subprocess.Popen(argv, stdin=subprocess.PIPE if data is not None else stdin,
                                 stdout=out, stderr=err)
            try:
                p.communicate(data, timeout=self.timeout)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                # as `timeout` does: the read that hangs fails (124)
                p.kill()
                p.wait()
                rc = 124
        if rc < 0:
            rc = 128 - rc
        res = {"out": open(v + ".out", "rb").read(), "err": open(v + ".err", "rb").read(),
               "rc": b"%d\n" % rc}
        return res

    def fifo(self, cmd, opts, data):
        """the input written into a FIFO by another process as tracekit
        reads it; a reader that stopped early (or never opened it) ends the
        writer"""
        try:
            if os.path.exists("tkin.fifo"):
                os.unlink("tkin.fifo")
            os.mkfifo("tkin.fifo")
        except OSError:
            return None
        pid = os.fork()
        if pid == 0:
            try:
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
                fd = os.open("tkin.fifo", os.O_WRONLY)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os._exit(0)
        try:
            return self.run("fifo", cmd, "tkin.fifo", opts)
        finally:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)

    def same(self, name, ref, var, v, what):
        for x in ("out", "err", "rc"):
            if ref[x] == var[x]:
                continue
            a, b = norm(ref[x]), norm(var[x])
            if a == b:
                continue
            self.say("FAIL %s (%s, %s): %s differs from the file's" % (name, what, v, x))
            with open("file.%s.n" % x, "wb") as f:
                f.write(a)
            with open("%s.%s.n" % (v, x), "wb") as f:
                f.write(b)
            d = subprocess.run(["diff", "file.%s.n" % x, "%s.%s.n" % (v, x)],
                               stdout=subprocess.PIPE, check=False).stdout
            self.out.write(b"".join(d.splitlines(True)[:8]).decode("utf-8", "replace"))
            self.fail = 1
            return

    def input(self, path):
        fmt = self.fmt
        name = os.path.basename(path)
        stem = os.path.splitext(path)[0]
        args = []
        if os.path.isfile(stem + ".args"):
            args = open(stem + ".args").read().split()
        from_ = self.base_from.split()
        if name.startswith("fail_"):
            from_ = ["--from", fmt]
        opts = from_ + args
        data = open(path, "rb").read()
        plain = "tkin." + fmt
        with open(plain, "wb") as f:
            f.write(data)
        gz = subprocess.run(["gzip", "-c", plain], stdout=subprocess.PIPE, check=True).stdout
        zst = subprocess.run(["zstd", "-q", "-c", plain], stdout=subprocess.PIPE, check=True).stdout
        with open(plain + ".gz", "wb") as f:
            f.write(gz)
        with open(plain + ".zst", "wb") as f:
            f.write(zst)
        cmds = ["cat", "info"]
        if not self.full:
            # one of the two commands per input, in turn
            cmds = [cmds[self.turn % 2]]
        for cmd in cmds:
            ref = self.run("file", cmd, plain, opts)
            # what must read does (so that a matrix of failures to start
            # cannot pass)
            if not name.startswith("fail_") and (ref["rc"] != b"0\n" or not ref["out"]):
                self.say("FAIL %s (%s, file): exit %s" % (name, cmd, ref["rc"].decode().strip()))
                self.out.write(b"".join(ref["err"].splitlines(True)[:3]).decode("utf-8", "replace"))
                self.fail = 1
            # the variants this input is read through (all of them in the
            # full matrix, one in turn in the sampled one; the first input
            # through all of them, so that a format of few inputs has
            # every transport read too)
            variants = VARIANTS
            if not self.full and self.count > 0:
                self.turn += 1
                variants = [VARIANTS[self.turn % 7]]
            got = {}
            for v in variants:
                if v == "stdin":
                    with open(plain, "rb") as f:
                        got[v] = self.run(v, cmd, "-", opts, stdin=f)
                elif v == "pipe":
                    got[v] = self.run(v, cmd, "-", opts, data=data)
                elif v == "gz":
                    got[v] = self.run(v, cmd, plain + ".gz", opts)
                elif v == "zst":
                    got[v] = self.run(v, cmd, plain + ".zst", opts)
                elif v == "gzpipe":
                    got[v] = self.run(v, cmd, "-", opts, data=gz)
                elif v == "zstpipe":
                    got[v] = self.run(v, cmd, "-", opts, data=zst)
                elif v == "fifo":
                    r = self.fifo(cmd, opts, data)
                    if r is None:
                        self.has_fifo = False
                    else:
                        got[v] = r
            self.seen.update(got)
            for v in variants:
                if v in got:
                    self.same(name, ref, got[v], v, cmd)
            self.count += 1


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    cli, fmt, tmp, full, base_from = sys.argv[1:6]
    m = Matrix(os.path.abspath(cli), fmt, os.path.abspath(tmp), full == "1", base_from)
    os.chdir(os.path.join(m.tmp, "run"))
    for f in sys.argv[6:]:
        m.input(f)
    # the sampled matrix must still have read through every transport
    for v in VARIANTS:
        if v not in m.seen and (v != "fifo" or m.has_fifo):
            m.say("FAIL: no input was read through %s" % v)
            m.fail = 1
    if m.fail == 0:
        if m.full:
            m.say("stream matrix %s: %d inputs x commands, each the same from 8 transports"
                  % (fmt, m.count))
        else:
            m.say("stream matrix %s (sampled; TK_TEST_FULL=1 for all): %d inputs x commands, "
                  "each the same from the file and one other transport in turn" % (fmt, m.count))
    sys.exit(m.fail)


if __name__ == "__main__":
    main()
