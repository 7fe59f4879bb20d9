#!/usr/bin/env python3
"""Every export stays linear in the events whatever stays open (issue 20,
item 3).

The trace (bench/gen_background.c): one background task per core that
never terminates, under many short task instances with a runnable each.
Perfetto used to sort every waiting slice after each event (its slices all
nest in the open one): 100k events took 7 s, 500k 204 s.

1. Work counted, not seconds (where valgrind is installed): the
   instructions callgrind counts for each export (perfetto, vcd, ctf,
   sqlite, the report) on a trace of N and of 8N events; linear work gives
   a ratio of about 8 (less: the fixed start-up cost), the sort per event
   gave ~70.  A ratio above 12 fails.
   The VCD export on a trace of C and of 8C cores too (one background
   task and one job per core): a look over the lanes per entity at its
   close made it quadratic in the cores (x32 for 8 times the cores).
2. A trace of 500k events through every export natively, each under a
   timeout (120 s; they take under 3 s): a hang guard that needs no
   valgrind.  With --no-count, 100k events: the sanitized build runs
   the exports' code, and the Release build (CI's step with the label
   `release`) counts its work.

usage: linear.py TRACEKIT GEN_BACKGROUND [--no-count]
(--no-count: a sanitizer build, which valgrind cannot run, or a coverage
build, whose instructions are those of its gcov counters too: part 2
only)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TK, GEN = sys.argv[1], sys.argv[2]
EXPORTS = (('perfetto', 'json'), ('vcd', 'vcd'), ('ctf', 'ctf'),
           ('sqlite', 'sqlite'), ('report', 'html'))
SMALL = {'sqlite': 6000}          # events of the smaller trace; 8x for the larger
SMALL_DEFAULT = 12000
MAX_RATIO = 12.0
failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL: ' + msg)


def gen(tmp, n, cores=1):
    path = os.path.join(tmp, 'bg_%d_%d.btf' % (n, cores))
    if not os.path.exists(path):
        subprocess.run([GEN, '-n', str(n), '-c', str(cores), path], check=True)
    return path


def export_cmd(kind, ext, src, dst):
    if kind == 'report':
        return [TK, 'report', '-q', src, '-o', dst]
    return [TK, 'convert', '-q', src, dst]


def clean(dst):
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    elif os.path.exists(dst):
        os.remove(dst)


def instructions(cmd, tmp, timeout):
    """instructions callgrind counts for cmd, or None"""
    out = os.path.join(tmp, 'cg.out')
    try:
        p = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out]
                           + cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r'Collected : (\d+)', p.stderr.decode())
    if p.returncode != 0 or not m:
        print(p.stderr.decode()[-2000:])
        return None
    return int(m.group(1))


def count_pair(tmp, kind, ext, what, small, make):
    """instructions of the export of make(small) and make(8 * small): the
    larger must cost at most MAX_RATIO times the smaller"""
    counts = []
    for size in (small, 8 * small):
        src = make(size)
        dst = os.path.join(tmp, 'out.' + ext)
        clean(dst)
        c = instructions(export_cmd(kind, ext, src, dst), tmp, 600)
        clean(dst)
        if c is None:
            fail('%s of %d %s under callgrind: failed or no answer in 600 s'
                 % (kind, size, what))
            return
        counts.append(c)
    ratio = counts[1] / counts[0]
    print('%-8s %d %s: %d instructions, %d %s: %d (x%.2f)'
          % (kind, small, what, counts[0], 8 * small, what, counts[1], ratio))
    if ratio > MAX_RATIO:
        fail('%s: 8 times the %s cost %.1f times the instructions '
             '(more than %.0f: not linear)' % (kind, what, ratio, MAX_RATIO))


def count_work(tmp):
    for kind, ext in EXPORTS:
        count_pair(tmp, kind, ext, 'events', SMALL.get(kind, SMALL_DEFAULT),
                   lambda size: gen(tmp, size))


CORES = (('vcd', 'vcd'),)          # exports counted against the cores
SMALL_CORES = 1024                  # cores of the smaller trace; 8x for the larger


def count_cores(tmp):
    for kind, ext in CORES:
        # 9 events a core
        count_pair(tmp, kind, ext, 'cores', SMALL_CORES,
                   lambda cores: gen(tmp, 9 * cores, cores))


def hang_guard(tmp):
    n = 100000 if '--no-count' in sys.argv[3:] else 500000
    for cores in (1, 2):
        src = gen(tmp, n, cores)
        for kind, ext in EXPORTS:
            dst = os.path.join(tmp, 'big.' + ext)
            clean(dst)
            try:
                p = subprocess.run(export_cmd(kind, ext, src, dst),
                                   capture_output=True, timeout=120)
            except subprocess.TimeoutExpired:
                fail('%s of %dk events on %d cores: no answer in 120 s' % (kind, n // 1000, cores))
                continue
            if p.returncode != 0 or not os.path.exists(dst):
                fail('%s of %dk events: exit %d: %s'
                     % (kind, n // 1000, p.returncode, p.stderr.decode()[:300]))
            clean(dst)


def main():
    tmp = tempfile.mkdtemp(prefix='tk_linear_')
    try:
        if '--no-count' in sys.argv[3:]:
            print('a sanitizer or coverage build: the work is not counted')
        elif shutil.which('valgrind'):
            count_work(tmp)
            count_cores(tmp)
        else:
            print('valgrind is not installed: the work is not counted')
        hang_guard(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print('%d failures' % len(failures))
        return 1
    print('ok')
    return 0


sys.exit(main())
