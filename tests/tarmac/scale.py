#!/usr/bin/env python3
"""Tarmac logs of many CPUs, exceptions and memory regions: what each must
give, from a model of the log, and time that stays linear in their number.

Before, each of these walked everything seen so far: a CPU name other than
the last line's was searched over every CPU and each new CPU grew the cores
of the exception events and of the function profile by one (a copy of
all of them), `stats` found an exception's row and a 256 MB region's row by
a walk over all rows and a return by a walk over the open exceptions of
every core, and the profile's root node of every CPU fell into one hash
chain.  At the sizes below that took tens of seconds; it now takes a few
hundred milliseconds per command.

Log 1 (Fast Models style, AArch64): CPUS CPU names of three forms (short,
`clusterN.cpuK`, names longer than 16 bytes), new and met again, some lines
sharing the stamp and CPU of the line before; exceptions (`ES ExcK`, NEXC
names) nested up to three deep and returned from by ERET, many left open on
many cores at once; memory reads and writes in REGIONS regions of a 64-bit
address space.  Checked: `info` (CPU names in first-seen order, counts per
kind), `stats --format json` (executed instructions, the exception rows in
their order with count, total, min, max and open, the traffic rows in
first-seen order) and `convert` to BTF (every ISR event with its core,
instance and time).

Log 2: instructions of CPUS2 CPUs jumping between two functions of an ELF
file (tests/tarmac/mkelf.py); `tarmac folded --elf` must give
each CPU's executed instructions per function, CPUs in first-seen order.

Usage: scale.py TRACEKIT"""
import json
import os
import random
import subprocess
import sys
import tempfile

CPUS = 40000
NEXC = 30000
REGIONS = 40000
STEPS = 200000
CPUS2 = 40000
STEPS2 = 120000

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_name(k):
    # three forms; the last is longer than the 16 bytes a hash slot holds
    if k % 3 == 0:
        return 'cpu%d' % k
    if k % 3 == 1:
        return 'cluster%d.cpu%d' % (k % 7, k)
    return 'subcluster%d.core_x.cpu%d' % (k % 5, k)


class Log1:
    """The log and what the model says tracekit must make of it."""

    def __init__(self, rnd):
        self.lines = []
        self.cpus = []             # first-seen order
        self.kinds = dict.fromkeys(('instruction', 'register', 'event',
                                    'memory'), 0)
        self.executed = 0
        self.btf = []              # ISR events, as BTF lines
        self.inst = {}             # per exception: instances so far
        self.stack = {}            # per CPU: [(name, instance, start, seq)]
        self.rows = {}             # exception -> [count, total, min, max, open]
        self.row_order = []
        self.regions = {}          # region -> [mr n, mw n, mr bytes, mw bytes]
        self.region_order = []
        self.seq = 0
        self.gen(rnd)

    def pick_cpu(self, rnd, last):
        if len(self.cpus) < CPUS and (not self.cpus or rnd.random() < 0.3):
            self.cpus.append(cpu_name(len(self.cpus)))
            return self.cpus[-1]
        if last and rnd.random() < 0.3:
            return last           # the CPU of the line before
        return rnd.choice(self.cpus)

    def row(self, name):
        if name not in self.rows:
            self.rows[name] = [0, 0, None, None, 0]
            self.row_order.append(name)
        return self.rows[name]

    def ev(self, t, cpu, name, inst, what):
        self.btf.append('%d,%s,0,I,%s,%d,%s' % (t, cpu, name, inst, what))

    def enter(self, t, cpu, name):
        st = self.stack.setdefault(cpu, [])
        if st:
            self.ev(t, cpu, st[-1][0], st[-1][1], 'preempt')
        self.inst[name] = self.inst.get(name, 0) + 1
        st.append((name, self.inst[name], t, self.seq))
        self.seq += 1
        self.ev(t, cpu, name, self.inst[name], 'activate')
        self.ev(t, cpu, name, self.inst[name], 'start')

    def leave(self, t, cpu):
        st = self.stack.get(cpu)
        if not st:
            return
        name, inst, start, _ = st.pop()
        self.ev(t, cpu, name, inst, 'terminate')
        if st:
            self.ev(t, cpu, st[-1][0], st[-1][1], 'resume')
        r = self.row(name)
        d = t - start
        r[0] += 1
        r[1] += d
        r[2] = d if r[2] is None else min(r[2], d)
        r[3] = d if r[3] is None else max(r[3], d)

    def gen(self, rnd):
        out = self.lines
        cpu = None
        for t in range(1, STEPS + 1):
            cpu = self.pick_cpu(rnd, cpu)
            x = rnd.random()
            depth = len(self.stack.get(cpu, ()))
            if x < 0.3:
                out.append('%d clk %s IT (%d) 00000100 d2a00200 O EL3h_s :'
                           '   MOVZ   X0, #16, #16' % (t, cpu, t))
                self.kinds['instruction'] += 1
                self.executed += 1
                if rnd.random() < 0.5:
                    # same stamp and CPU: the prefix of the line before
                    out.append('%d clk %s R X0 0000000000100000' % (t, cpu))
                    self.kinds['register'] += 1
            elif x < 0.55 and depth < 3:
                name = 'Exc%d' % rnd.randrange(NEXC)
                out.append('%d clk %s ES %s' % (t, cpu, name))
                self.kinds['event'] += 1
                self.enter(t, cpu, name)
            elif x < 0.8:
                out.append('%d clk %s IT (%d) 00000104 d69f03e0 O EL3h_s :'
                           '   ERET' % (t, cpu, t))
                self.kinds['instruction'] += 1
                self.executed += 1
                self.leave(t, cpu)
            else:
                if len(self.region_order) < REGIONS and \
                        (not self.region_order or rnd.random() < 0.7):
                    # spread over 2^36 regions, in no order
                    region = rnd.randrange(1, 1 << 36)
                    while region in self.regions:
                        region = rnd.randrange(1, 1 << 36)
                    self.regions[region] = [0, 0, 0, 0]
                    self.region_order.append(region)
                else:
                    region = rnd.choice(self.region_order)
                w = rnd.random() < 0.5
                a = (region << 28) | (rnd.randrange(1 << 20) << 3)
                out.append('%d clk %s M%s8 %016x:%016x %016x'
                           % (t, cpu, 'W' if w else 'R', a, a, t))
                self.kinds['memory'] += 1
                self.regions[region][w] += 1
                self.regions[region][2 + w] += 8
        # open at the end: rows in the order the exceptions started
        left = sorted((e for st in self.stack.values() for e in st),
                      key=lambda e: e[3])
        for name, _, _, _ in left:
            self.row(name)[4] += 1

    def want_exceptions(self):
        return [{'name': n, 'count': r[0], 'total': r[1], 'min': r[2],
                 'max': r[3], 'open': r[4]}
                for n, r in ((n, self.rows[n]) for n in self.row_order)]

    def want_traffic(self):
        want = []
        for region in self.region_order:
            r = self.regions[region]
            for w, kind in ((0, 'memory read'), (1, 'memory write')):
                if r[w]:
                    want.append({'region': '0x%x' % (region << 28),
                                 'kind': kind, 'count': r[w],
                                 'bytes': r[2 + w]})
        return want


def first_diff(what, got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return '%s %d is %r, want %r' % (what, i, g, w)
    return '%s: %d, want %d' % (what, len(got), len(want))


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if r.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(cmd[1:]),
                                                r.returncode, r.stderr.strip()))
    return r.stdout


def check_log1(tk, d):
    m = Log1(random.Random(11))
    log = os.path.join(d, 'many.tarmac')
    with open(log, 'w') as f:
        f.write('\n'.join(m.lines) + '\n')
    fails = []

    info = json.loads(run([tk, 'info', '--strict', '--format', 'json', log]))
    if info['cpus'] != m.cpus:
        fails.append(first_diff('info: cpu', info['cpus'], m.cpus))
    kinds = dict(m.kinds, bus=0, branch=0, other=0)
    if info['kinds'] != kinds:
        fails.append('info: kinds %r, want %r' % (info['kinds'], kinds))

    st = json.loads(run([tk, 'stats', '--format', 'json', log]))
    if st['instructions']['executed'] != m.executed:
        fails.append('stats: executed %d, want %d'
                     % (st['instructions']['executed'], m.executed))
    want = m.want_exceptions()
    if st['exceptions'] != want:
        fails.append(first_diff('stats: exception row', st['exceptions'],
                                want))
    want = m.want_traffic()
    if st['traffic'] != want:
        fails.append(first_diff('stats: traffic row', st['traffic'], want))

    btf = os.path.join(d, 'many.btf')
    run([tk, 'convert', '-q', log, btf])
    with open(btf) as f:
        got = [ln.rstrip('\n') for ln in f if not ln.startswith('#')]
    if got != m.btf:
        fails.append(first_diff('convert: event', got, m.btf))
    opened = sum(len(s) for s in m.stack.values())
    print('log 1: %d lines, %d CPUs, %d exception rows (%d left open), '
          '%d regions, %d ISR events' % (len(m.lines), len(m.cpus),
                                          len(m.rows), opened,
                                          len(m.region_order), len(m.btf)))
    return fails


def check_log2(tk, d):
    rnd = random.Random(12)
    elf = os.path.join(d, 'two.elf')
    subprocess.run([sys.executable, os.path.join(HERE, 'mkelf.py'), elf,
                    'main:100:100', 'work:200:100'], check=True)
    cpus, count, lines = [], {}, []
    for t in range(1, STEPS2 + 1):
        if len(cpus) < CPUS2 and (not cpus or rnd.random() < 0.4):
            cpus.append(cpu_name(len(cpus)))
            cpu = cpus[-1]
        else:
            cpu = rnd.choice(cpus)
        fn = rnd.choice(('main', 'work'))
        pc = (0x100 if fn == 'main' else 0x200) + 4 * rnd.randrange(64)
        lines.append('%d clk %s IT (%d) %08x d2a00200 O EL3h_s :'
                     '   MOVZ   X0, #16, #16' % (t, cpu, t, pc))
        count[cpu, fn] = count.get((cpu, fn), 0) + 1
    log = os.path.join(d, 'jumps.tarmac')
    with open(log, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    out = os.path.join(d, 'jumps.folded')
    run([tk, 'tarmac', 'folded', '-q', log, '-o', out, '--elf', elf])
    with open(out) as f:
        got = [ln.rstrip('\n') for ln in f]
    want = ['%s;%s %d' % (c, fn, count[c, fn]) for c in cpus
            for fn in ('main', 'work') if (c, fn) in count]
    print('log 2: %d lines, %d CPUs, %d stacks'
          % (len(lines), len(cpus), len(want)))
    if got != want:
        return [first_diff('folded: line', got, want)]
    return []


def main():
    tk = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        try:
            fails = check_log1(tk, d) + check_log2(tk, d)
        except RuntimeError as e:
            fails = [str(e)]
    for f in fails:
        print('FAIL ' + f)
    if not fails:
        print('ok')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
