#!/usr/bin/env python3
"""An interrupted run leaves no temporary output: `convert` to a file, to a
compressed file and to a CTF directory (with its files), and `report` in
its second pass, each stopped by SIGINT, SIGTERM and SIGHUP once its
temporary exists.  The process must end by the signal itself (the exit
status a shell sees), and neither OUT nor any `.OUT.tmp-*` may be left;
the output under way has that hidden name.

`convert` reads a large generated trace through a FIFO that stays open
after the trace, so it is still running, whatever the machine's speed,
when the signal comes; `report` reads a large generated file twice, and
the signal is sent as soon as its page's temporary file appears (the
second pass).

The trace has EVENTS events (2M; the sanitized and coverage builds,
whose first pass is many times slower, pass fewer: the second pass still
lasts far longer than the 2 ms poll).

Usage: signals.py TRACEKIT GEN_BTF [EVENTS]"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CORES = 8


def temps(folder):
    return sorted(n for n in os.listdir(folder) if '.tmp-' in n)


def wait_for(cond, proc, what, timeout=120.0):
    """Poll until cond() holds; False if proc ended first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        if proc.poll() is not None:
            print('FAIL: %s: ended (exit %s) before its temporary appeared'
                  % (what, proc.returncode))
            return False
        time.sleep(0.002)
    print('FAIL: %s: no temporary after %ds' % (what, timeout))
    return False


def check_after(proc, sig, folder, out, what):
    ok = True
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print('FAIL: %s: still running 60 s after the signal' % what)
        return False
    err = proc.stderr.read().decode(errors='replace')
    if proc.returncode != -sig:
        print('FAIL: %s: exit %s, want death by signal %d (stderr: %s)'
              % (what, proc.returncode, sig, err.strip()))
        ok = False
    left = temps(folder)
    if left:
        print('FAIL: %s: temporaries left: %s' % (what, ' '.join(left)))
        ok = False
    if os.path.lexists(out):
        print('FAIL: %s: %s exists' % (what, out))
        ok = False
    for n in left + ([os.path.basename(out)] if os.path.lexists(out) else []):
        p = os.path.join(folder, n)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)
    return ok


def feed(path, data):
    # blocks until convert opens the FIFO for reading; keeps it open (no
    # end of input) until the test closes it
    fd = os.open(path, os.O_WRONLY)
    try:
        off = 0
        while off < len(data):
            off += os.write(fd, data[off:off + (1 << 20)])
    except OSError:
        pass  # convert died: the pipe has no reader any more
    return fd


def convert_case(cli, folder, data, name, sig, ready):
    what = 'convert -> %s, %s' % (name, signal.Signals(sig).name)
    fifo = os.path.join(folder, 'in.fifo')
    out = os.path.join(folder, name)
    os.mkfifo(fifo)
    proc = subprocess.Popen([cli, 'convert', '-q', '--from', 'btf', fifo, out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    box = []
    th = threading.Thread(target=lambda: box.append(feed(fifo, data)))
    th.start()
    ok = wait_for(lambda: ready(folder), proc, what)
    # the output under way has a hidden name ('.OUT.tmp-XXXXXX'): one left
    # by a SIGKILL is skipped by Spark, Hadoop and globs
    shown = [n for n in temps(folder) if not n.startswith('.' + name + '.tmp-')]
    if ok and shown:
        print('FAIL: %s: temporary not hidden: %s' % (what, ' '.join(shown)))
        ok = False
    if ok:
        os.kill(proc.pid, sig)
    else:
        proc.kill()
    ok = check_after(proc, sig, folder, out, what) and ok
    # a feeder still blocked (convert died before it opened the FIFO, or
    # with the pipe full) is woken by a reader that comes and goes
    while th.is_alive():
        rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        time.sleep(0.01)
        os.close(rfd)
        th.join(0.1)
    for fd in box:
        os.close(fd)
    os.unlink(fifo)
    return ok


def report_case(cli, folder, trace, sig):
    what = 'report, %s' % signal.Signals(sig).name
    out = os.path.join(folder, 'r.html')
    proc = subprocess.Popen([cli, 'report', '-q', trace, '-o', out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ok = wait_for(lambda: temps(folder), proc, what)
    if ok:
        os.kill(proc.pid, sig)
    else:
        proc.kill()
    return check_after(proc, sig, folder, out, what) and ok


def file_ready(folder):
    return bool(temps(folder))


def ctf_ready(folder):
    # the directory and a stream file in it for each of the trace's CORES
    # cores (created at its first packet): more files than the sink's own
    # table of temporaries holds
    for n in temps(folder):
        d = os.path.join(folder, n)
        if os.path.isdir(d) and sum(f.startswith('stream_') for f in os.listdir(d)) >= CORES:
            return True
    return False


def main():
    cli, gen = sys.argv[1], sys.argv[2]
    events = sys.argv[3] if len(sys.argv) > 3 else '2M'
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'big.btf')
        subprocess.run([gen, '-n', events, '-c', str(CORES), trace], check=True,
                       stderr=subprocess.DEVNULL)
        with open(trace, 'rb') as f:
            head = f.read(16 << 20)
        work = os.path.join(tmp, 'out')
        os.mkdir(work)
        for sig in SIGNALS:
            for name, ready in (('o.btf', file_ready), ('o.htf', file_ready),
                                ('o.btf.gz', file_ready), ('o.ctf', ctf_ready)):
                ok = convert_case(cli, work, head, name, sig, ready) and ok
            ok = report_case(cli, work, trace, sig) and ok
        left = os.listdir(work)
        if left:
            print('FAIL: files left: %s' % ' '.join(sorted(left)))
            ok = False
    if ok:
        print('signals: no temporary output left by SIGINT, SIGTERM, SIGHUP')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
