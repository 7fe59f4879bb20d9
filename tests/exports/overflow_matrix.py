#!/usr/bin/env python3
"""Times at the ends of the tick range (issue 20, item 2).

Small generated traces whose times lie at 0, 2^63 and 2^64 - 1 and spans
between them go through every `convert` target format (the registry's)
and every analysis command (check, stats, load, report, info, cat), each
under a timeout.
Asserted: the exit status (a format that cannot hold a time refuses with
one clear error and leaves no file), no hang, and the values: the BTF
round trip keeps every event, HTF and ATF keep every time (any other
format read and written may drop events, never change a time), stats and load
give the exact durations, the perfetto slices and load counters, the VCD
times (VCD, SQLite and Parquet refuse a time over 2^63 - 1: GTKWave
reads VCD times as signed), the SQLite timestamps, the CTF events (babeltrace2), the report's
span and load windows.  Also an ATF input with Time near 2^64 and
S.Ha.R.K. dumps with one corrupted TSC word (made from bench/gen_shark.c's
output).

usage: overflow_matrix.py TRACEKIT SHARK_GEN
"""
import csv
import io
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal
from fractions import Fraction

TK, GEN = sys.argv[1], sys.argv[2]
# every format written, by the first extension of its name, and those also
# read (the registry: a format added needs no line here)
_REG = list(csv.DictReader(io.StringIO(subprocess.run(
    [TK, 'formats', '--format', 'csv'], check=True,
    stdout=subprocess.PIPE).stdout.decode())))
WRITES = tuple(r['extensions'].split()[0] for r in _REG if r['write'] == 'yes')
# (the formats whose refusals and values are checked one by one below)
KNOWN = ('btf', 'htf', 'atf', 'json', 'vcd', 'sqlite', 'parquet', 'ctf')
READ_BACK = {r['extensions'].split()[0] for r in _REG
             if r['write'] == 'yes' and r['read'] == 'yes'}
TIMEOUT = 60
M = 2**64 - 1
H = 2**63
failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL: ' + msg)


def run(args, what):
    """(exit status, stdout, stderr); a hang is a failure (status None)"""
    try:
        p = subprocess.run([TK] + args, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail('%s: no answer in %d s (hang)' % (what, TIMEOUT))
        return None, '', ''
    return (p.returncode, p.stdout.decode('utf-8', 'replace'),
            p.stderr.decode('utf-8', 'replace'))


# A preempted by B at t1; B runs runnable R from t1 to t2; A resumes and
# ends at t2, a signal is written at t2.  Core_0 is busy from t0 to t2.
BTF = """#version 2.2.0
#timescale ps
{0},STI,0,T,A,0,activate
{0},Core_0,0,T,A,0,start
{1},Core_0,0,T,A,0,preempt
{1},Core_0,0,T,B,0,start
{1},B,0,R,R,0,start
{2},B,0,R,R,0,terminate
{2},Core_0,0,T,B,0,terminate
{2},Core_0,0,T,A,0,resume
{2},A,0,SIG,S,0,write,7
{2},Core_0,0,T,A,0,terminate
"""

CASES = [
    ('zero', 0, 0, 0),
    ('small', 0, 5, 10),
    ('mid', 0, H, H + 1),
    ('issue', 0, 18446744073709551000, M),   # the reproducer
    ('below_max', 0, M - 2, M - 1),
    ('top', M - 2, M - 1, M),
    ('upper_half', H, M - 1, M),
    ('at_max', M, M, M),
]


def events(cat_out):
    return [l for l in cat_out.splitlines() if l and not l.startswith('#')]


def times(cat_out):
    return [int(l.split(',')[0]) for l in events(cat_out)]


def ps_of(text):
    """a time printed with --unit ps"""
    return int(text)


def us_ps(v):
    """a perfetto microsecond value (JSON number text) -> ps"""
    return int(Decimal(v) * 1000000)


def ns_of(ps):
    """ps rounded half up to the ns, as the perfetto export writes times"""
    return (ps + 500) // 1000


def check_perfetto(name, path, t0, t1, t2):
    """the instance slices (pid 2) and the runnable slice: times rounded
    to the ns at each end (what Perfetto can hold), since the first event
    where it is past 2^49 ns; the load counters ascending, one per ns at
    most, evenly spaced to the ns"""
    with open(path) as f:
        doc = json.load(f, parse_float=str, parse_int=str)
    xs = [e for e in doc['traceEvents'] if e['ph'] == 'X' and e['cat'] != 'state'
          and (e['pid'] == '2' or e['cat'] == 'R')]
    off = us_ps(doc['metadata']['ts_offset_us']) // 1000
    got = sorted((e['name'], us_ps(e['ts']) // 1000, us_ps(e['dur']) // 1000) for e in xs)
    n0, n1, n2 = (ns_of(t) - off for t in (t0, t1, t2))
    want = sorted([('A', n0, n2 - n0), ('B', n1, n2 - n1), ('R', n1, n2 - n1)])
    if got != want:
        fail('%s perfetto: slices %s, want %s' % (name, got, want))
    cs = [e for e in doc['traceEvents'] if e['ph'] == 'C']
    span = n2 - n0
    ts = [us_ps(e['ts']) // 1000 for e in cs]
    if t2 == t0:
        return
    if not cs or ts[0] != n0 or ts != sorted(set(ts)):
        fail('%s perfetto: load counter times %s' % (name, ts[:5]))
        return
    d = [b - a for a, b in zip(ts, ts[1:])]
    if d and max(d) - min(d) > 1:
        fail('%s perfetto: load windows of %s ns' % (name, sorted(set(d))[:5]))
    if ts[-1] - n0 > span:
        fail('%s perfetto: a load window at %d past the span %d' % (name, ts[-1], span))
    bad = [e['args']['percent'] for e in cs if e['args']['percent'] != '100.00']
    if bad:
        fail('%s perfetto: the core is busy all along, load %s' % (name, bad[:5]))


def check_vcd(name, path, t0, t2):
    with open(path) as f:
        text = f.read()
    if '$timescale 1 ps $end' not in text:
        fail('%s vcd: timescale not 1 ps' % name)
        return
    ts = [int(l[1:]) for l in text.splitlines() if l.startswith('#')]
    # every event at one time: a final time one unit later (a time range
    # to draw; docs/exports.md)
    if t0 == t2 and t2 < 2**64 - 1:
        t2 += 1
    if not ts or ts[0] != t0 or ts[-1] != t2 or ts != sorted(ts):
        fail('%s vcd: times %s .. %s, want %d .. %d, ascending'
             % (name, ts[:3], ts[-3:], t0, t2))


def check_sqlite(name, path, tm):
    db = sqlite3.connect(path)
    got = [r[0] for r in db.execute('SELECT timestamp FROM traceEvent ORDER BY id')]
    db.close()
    if got != tm:
        fail('%s sqlite: timestamps %s, want %s' % (name, got, tm))


def check_ctf(name, path, n):
    if not shutil.which('babeltrace2'):
        return
    try:
        p = subprocess.run(['babeltrace2', path], capture_output=True,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail('%s ctf: babeltrace2 hangs' % name)
        return
    lines = p.stdout.decode().splitlines()
    if p.returncode != 0 or len(lines) != n:
        fail('%s ctf: babeltrace2 exit %d, %d events, want %d'
             % (name, p.returncode, len(lines), n))


def check_report(name, path, span):
    with open(path) as f:
        page = f.read()
    m = re.search(r'"span":(\d+)', page)
    if not m or int(m.group(1)) != span:
        fail('%s report: span %s, want %d' % (name, m and m.group(1), span))
    m = re.search(r'"binw":(\d+)', page)
    b = re.search(r'"load":\[\[([0-9,]*)\]', page)
    if not m or not b:
        fail('%s report: no load windows' % name)
        return
    busy = [int(v) for v in b.group(1).split(',') if v]
    if sum(busy) != span or any(v > int(m.group(1)) for v in busy[:-1]):
        fail('%s report: busy per window %s (sum %d), want the span %d'
             % (name, busy[:4], sum(busy), span))


def analyses(name, path, tmp, fmt=None):
    """every analysis command: exit status and no hang; the outputs.  cat
    writes BTF: a dump's times beyond BTF's 64-bit picoseconds are one
    error (exit 2)"""
    out = {}
    extra = ['--from', fmt] if fmt else []
    for cmd in ('check', 'stats', 'load', 'info', 'cat'):
        args = [cmd, path] + extra
        if cmd in ('stats', 'load'):
            args += ['--format', 'csv', '--unit', 'ps']
        rc, o, e = run(args, '%s %s' % (name, cmd))
        if rc is None:
            continue
        if cmd == 'cat' and fmt == 'shark' and rc == 2 and \
                re.fullmatch(r"(.*warning.*\n)*%s: error: record \d+: a time of \d+ ticks "
                             r"is beyond BTF's 64-bit times in ps \(writing <stdout>\)\n"
                             % re.escape(path), e):
            continue
        if rc not in ((0, 1) if cmd == 'check' else (0,)):
            fail('%s %s: exit %d: %s' % (name, cmd, rc, e.strip()[:300]))
        out[cmd] = o
    rep = os.path.join(tmp, name + '.html')
    rc, o, e = run(['report', path, '-o', rep] + extra, name + ' report')
    if rc is not None and rc != 0:
        fail('%s report: exit %d: %s' % (name, rc, e.strip()[:300]))
    out['report'] = rep if rc == 0 else None
    return out


def stats_of(csv):
    v = {}
    for l in csv.splitlines()[1:]:
        f = l.split(',')
        v[(f[0], f[2])] = (f[4], f[6])   # min, max
    return v


def btf_case(tmp, name, t0, t1, t2):
    src = os.path.join(tmp, name + '.btf')
    with open(src, 'w') as f:
        f.write(BTF.format(t0, t1, t2))
    out = analyses(name, src, tmp)
    orig = out.get('cat', '')
    tm = times(orig)
    if tm != [t0, t0, t1, t1, t1, t2, t2, t2, t2, t2]:
        fail('%s cat: times %s' % (name, tm))
    if out.get('check') is not None and 'error' in out['check']:
        fail('%s check: %s' % (name, out['check'][:300]))
    st = stats_of(out.get('stats', ''))
    for key, want in ((('A', 'CET'), t1 - t0), (('A', 'RT'), t2 - t0),
                      (('A', 'PRE'), t2 - t1), (('B', 'CET'), t2 - t1),
                      (('R', 'GET'), t2 - t1)):
        got = st.get(key)
        if got is None or ps_of(got[0]) != want or ps_of(got[1]) != want:
            fail('%s stats %s %s: %s, want %d' % (name, key[0], key[1], got, want))
    core = [l.split(',') for l in out.get('load', '').splitlines()
            if l.startswith('core,')]
    if t2 > t0 and (len(core) != 1 or ps_of(core[0][5]) != t2 - t0 or
                    core[0][7] != '100.00'):
        fail('%s load: %s, want busy %d at 100.00' % (name, core, t2 - t0))
    info = out.get('info', '')
    if 'start:       %d ps' % t0 not in info or 'end:         %d ps' % t2 not in info:
        fail('%s info: start/end not %d/%d' % (name, t0, t2))
    # cat's window: a start beyond the last tick selects nothing (it was
    # taken as 2^64 - 1), one at t2 the events at t2
    for start, want in (('18446744073709552ns', []),
                        ('%dps' % t2, [t for t in tm if t >= t2])):
        rc, o, e = run(['cat', src, '--no-header', '--start', start],
                       '%s cat --start %s' % (name, start))
        if rc != 0 or times(o) != want:
            fail('%s cat --start %s: exit %s, times %s, want %s'
                 % (name, start, rc, times(o), want))
    if out.get('report') and t2 > t0:
        check_report(name, out['report'], t2 - t0)

    for ext in WRITES:
        dst = os.path.join(tmp, '%s.%s.%s' % (name, 'out', ext))
        rc, o, e = run(['convert', src, dst], '%s convert %s' % (name, ext))
        if rc is None:
            continue
        refuse = (ext in ('sqlite', 'parquet') and t2 > 2**63 - 1) or \
            (ext == 'ctf' and t2 == M) or (ext == 'vcd' and t2 >= H)
        if ext not in KNOWN and rc == 2:
            # a format this script has no rule for may refuse a time, as
            # the others do: with one error and no file
            refuse = True
        if refuse:
            if rc != 2 or os.path.exists(dst) or len(e.strip().splitlines()) != 1 \
                    or 'error:' not in e:
                fail('%s convert %s: want one error and no output, got exit %d, '
                     'exists %s: %s' % (name, ext, rc, os.path.exists(dst), e))
            continue
        if rc != 0:
            fail('%s convert %s: exit %d: %s' % (name, ext, rc, e.strip()[:300]))
            continue
        if ext in READ_BACK:
            rc, back, e = run(['cat', dst], '%s cat %s' % (name, ext))
            if rc != 0:
                fail('%s cat of %s: exit %s: %s' % (name, ext, rc, e[:300]))
            elif ext == 'btf':
                if events(back) != events(orig):
                    fail('%s btf round trip: %s' % (name, events(back)))
            elif ext in ('htf', 'atf'):
                if times(back) != (tm[:8] + tm[9:] if ext == 'atf' else tm):
                    # ATF: without the signal write (no ATF element type for it)
                    fail('%s %s round trip: times %s, want %s' % (name, ext, times(back), tm))
            elif not is_sublist(times(back), tm):
                # another format may drop events (with a warning), never
                # change a time
                fail('%s %s round trip: times %s, not among %s' % (name, ext, times(back), tm))
        elif ext == 'json':
            check_perfetto(name, dst, t0, t1, t2)
        elif ext == 'vcd':
            check_vcd(name, dst, t0, t2)
        elif ext == 'sqlite':
            check_sqlite(name, dst, tm)
        elif ext == 'ctf':
            check_ctf(name, dst, len(tm))


ATF = """<?xml version="1.0" encoding="utf-8"?>
<CommonFormat Version="1.0">
  <SystemConfiguration Name="s">
    <Resource ID="0" Scheduler="unknown">
      <SystemElement Name="A" ID="1" Type="task" />
    </Resource>
    <EventIDMappings>
      <EventIDMapping EventID="1" EventType="activation" />
      <EventIDMapping EventID="2" EventType="start" />
      <EventIDMapping EventID="5" EventType="terminate" />
    </EventIDMappings>
    <TimeBase Unit="ps">
      <Value Numerator="1" Denominator="1" />
    </TimeBase>
  </SystemConfiguration>
  <TraceData Start="0">
    <TraceEntry Time="0" EventID="1" ReferenceID="1" />
    <TraceEntry Time="0" EventID="2" ReferenceID="1" />
    <TraceEntry Time="18446744073709551000" EventID="5" ReferenceID="1" />
  </TraceData>
</CommonFormat>
"""


def is_sublist(a, b):
    """a is b with some items left out (in order)"""
    it = iter(b)
    return all(x in it for x in a)


def convert_all(name, src, tmp, exts, fmt=None):
    """every target format: exit 0, or one error and no file"""
    extra = ['--from', fmt] if fmt else []
    for ext in exts:
        dst = os.path.join(tmp, '%s.out.%s' % (name, ext))
        rc, o, e = run(['convert', src, dst] + extra, '%s convert %s' % (name, ext))
        if rc is None:
            continue
        if rc == 2 and 'error:' in e and not os.path.exists(dst):
            continue
        if rc != 0:
            fail('%s convert %s: exit %d: %s' % (name, ext, rc, e.strip()[:300]))
        elif ext == 'json':
            with open(dst) as f:
                doc = json.load(f, parse_float=str, parse_int=str)
            cs = [us_ps(e['ts']) for e in doc['traceEvents'] if e['ph'] == 'C']
            if cs != sorted(set(cs)):
                fail('%s perfetto: load counter times not ascending' % name)


def atf_case(tmp):
    src = os.path.join(tmp, 'near_max.atf')
    with open(src, 'w') as f:
        f.write(ATF)
    out = analyses('atf', src, tmp)
    st = stats_of(out.get('stats', ''))
    if st.get(('A', 'CET')) != ('18446744073709551000', '18446744073709551000'):
        fail('atf stats: A CET %s' % (st.get(('A', 'CET')),))
    convert_all('atf', src, tmp, WRITES)
    rc, o, e = run(['convert', src, os.path.join(tmp, 'atf.rt.btf')], 'atf to btf')
    rc, o, e = run(['cat', os.path.join(tmp, 'atf.rt.btf')], 'atf cat')
    if times(o) != [0, 0, 18446744073709551000]:
        fail('atf -> btf: times %s' % times(o))


def shark_cases(tmp):
    base = os.path.join(tmp, 'gen.bin')
    subprocess.run([GEN, '-n', '3000', base], check=True, capture_output=True)
    with open(base, 'rb') as f:
        data = f.read()
    n = len(data) // 16
    # (name, record, TSC high word, TSC low word or None)
    for name, rec, hi, lo in (('shark_last_hi', n - 1, 0xFFFFFFFF, None),
                              ('shark_first_max', 0, 0xFFFFFFFF, 0xFFFFFFFF),
                              ('shark_mid_hi', n // 2, 0xFFFFFFFF, None),
                              ('shark_first_zero', 0, 0, 0)):
        b = bytearray(data)
        b[rec * 16 + 4:rec * 16 + 8] = struct.pack('<I', hi)
        if lo is not None:
            b[rec * 16 + 8:rec * 16 + 12] = struct.pack('<I', lo)
        src = os.path.join(tmp, name + '.bin')
        with open(src, 'wb') as f:
            f.write(b)
        out = analyses(name, src, tmp, 'shark')
        if 'error' in out.get('check', ''):
            fail('%s check: %s' % (name, out['check'][:300]))
        # info: the span from the smallest to the largest TSC, exactly
        tscs = [struct.unpack_from('<I', b, i * 16 + 4)[0] << 32 |
                struct.unpack_from('<I', b, i * 16 + 8)[0] for i in range(n)]
        info = out.get('info', '')
        clk = re.search(r'#clk_per_msec (\d+)', info)
        for key, v in (('start', min(tscs)), ('end', max(tscs))):
            line = re.search(r'^%s: +(.*)$' % key, info, re.M)
            if not clk or not line:
                fail('%s info: no %s or clk_per_msec' % (name, key))
                continue
            f = Fraction(v, int(clk.group(1)))
            want = '%d ms' % f.numerator if f.denominator == 1 else \
                '%d/%d ms' % (f.numerator, f.denominator)
            if not line.group(1).endswith(want) and \
                    not line.group(1).endswith(want + ')'):
                fail('%s info %s: %s, want %s' % (name, key, line.group(1), want))
        convert_all(name, src, tmp, WRITES + ('list', 'pwc'), 'shark')


def report_summary_case(tmp):
    """more run intervals than the report draws one by one, the last at the
    last tick (2^64 - 1): summarised into windows near 2^64.  The report
    draws the timeline's run intervals, so the slices last one tick each
    (a run of no length is no run): X's n and Bg's n + 1, 160,001 run
    intervals, over the report's 150,000.  X's name has 14 bytes: its lines
    of 55 to 63 bytes (Bg's: 43 and 44) end within 16 bytes of the read
    window's edge at some of its refills, a branch of the BTF reader's fast
    path (parse_fast()) that the lines of other sizes (a trace of twice the
    events with a name of one byte) reach at few refills or none"""
    src = os.path.join(tmp, 'many.btf')
    n = 80000
    x = 'X_one_tick_run'
    t0 = M - 2 * n - 9
    with open(src, 'w') as f:
        f.write('#version 2.2.0\n#timescale ps\n')
        f.write('%d,Core_0,0,T,Bg,0,start\n' % t0)
        t = t0 + 9
        for i in range(n):
            f.write('%d,Core_0,0,T,Bg,0,preempt\n%d,Core_0,0,T,%s,%d,start\n'
                    '%d,Core_0,0,T,%s,%d,terminate\n%d,Core_0,0,T,Bg,0,resume\n'
                    % (t, t, x, i, t + 1, x, i, t + 1))
            t += 2
    rep = os.path.join(tmp, 'many.html')
    rc, o, e = run(['report', src, '-o', rep], 'many report')
    if rc != 0:
        fail('many report: exit %s: %s' % (rc, e[:300]))
        return
    with open(rep) as f:
        page = f.read()
    m = re.search(r'"summary":\[\[([0-9,]*)\]', page)
    if not m:
        fail('many report: no summary windows')
        return
    s = [int(v) for v in m.group(1).split(',') if v]
    span = 2 * n + 8
    # the core is busy throughout (Bg or X): the summarised busy time is
    # the span less what is drawn one by one (Bg's first 9 ticks), never
    # more (a sum that wrapped near 2^64 would be far off)
    if not span - 9 - 2 <= sum(s) <= span:
        fail('many report: summarised busy time %d in a span of %d ticks' % (sum(s), span))
    m = re.search(r'"summaryDom":\[\[([-0-9,]*)\]', page)
    dom = [int(v) for v in m.group(1).split(',')] if m else []
    # windows of ceil(span / 2000) = 81 ticks: the first 1976 lie in the
    # span, each with a slice, the rest past it, with none
    if len(dom) != 2000 or any(v == -1 for v in dom[:1976]) or \
            any(v != -1 for v in dom[1976:]):
        fail('many report: summarised windows: empty %s'
             % [i for i, v in enumerate(dom) if v == -1][:14])


def main():
    tmp = tempfile.mkdtemp(prefix='tk_overflow_')
    try:
        for c in CASES:
            btf_case(tmp, *c)
        atf_case(tmp)
        shark_cases(tmp)
        report_summary_case(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print('%d failures' % len(failures))
        return 1
    print('ok')
    return 0


sys.exit(main())
