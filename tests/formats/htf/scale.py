#!/usr/bin/env python3
"""The HTF reader on inputs whose size is in what they declare: many
reference tables, many types, many core sections, repeated type rows with
sparse event ids.  Each must be read in time and memory about linear in
the input (an audit found walks over every table for each new table and
for each type, a 256 KB window and a walk over all cores per core
section, direct tables of the largest event id per type row: a header of
2.7 MB took 96 s, a file of 80,000 one-record sections 13 GB, 200 type
rows 1.6 GB).

Every case checks the events `tracekit cat` prints against a model of the
input (or against the same trace without the padding), and its warnings or
its error.  Each run is killed past RUN_S seconds or MEM_MB of resident
memory (polled; more under AddressSanitizer): what would run for minutes
or take GB fails here instead of hanging.  No timing is asserted.

Usage: scale.py TRACEKIT [CASE...]   (CASE: tables, types, ...; default all)"""
import os
import subprocess
import sys
import tempfile
import time

RUN_S = 60          # a hang guard, far above what a linear reader needs
MEM_MB = 256        # resident memory allowed per run (Release)

HEAD = ("#Format HTF\n#TimeScale ns\n#TimestampLength 4\n"
        "#EntityLength %d\n#EventLength %d\n")


class Fail(Exception):
    pass


def asan(tk):
    with open(tk, 'rb') as f:
        return b'__asan_init' in f.read()


def hwm_kb(pid):
    """The peak resident size of process pid so far (its own: the
    rusage of a child counts the parent's pages it was forked with)."""
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(ctx, args, name):
    """Run TRACEKIT ARGS: (exit status, stdout, stderr); fails past the
    time or memory guard."""
    d, tk, mem_mb = ctx['dir'], ctx['tk'], ctx['mem_mb']
    out, err = os.path.join(d, 'out'), os.path.join(d, 'err')
    with open(out, 'wb') as fo, open(err, 'wb') as fe:
        p = subprocess.Popen([tk] + args, stdout=fo, stderr=fe)
    t0, peak, why = time.monotonic(), 0, None
    while True:
        peak = max(peak, hwm_kb(p.pid))
        pid, status = os.waitpid(p.pid, os.WNOHANG)
        if pid:
            break
        if peak > mem_mb * 1024:
            why = 'more than %d MB resident' % mem_mb
        elif time.monotonic() - t0 > RUN_S:
            why = 'still running after %d s' % RUN_S
        if why:
            p.kill()
            os.waitpid(p.pid, 0)
            p.returncode = -9
            raise Fail('%s: %s' % (name, why))
        time.sleep(0.005)
    p.returncode = os.waitstatus_to_exitcode(status)
    ctx['peak'] = max(ctx.get('peak', 0), peak)
    with open(out) as fo, open(err) as fe:
        return p.returncode, fo.read(), fe.read()


def write(ctx, name, text):
    path = os.path.join(ctx['dir'], name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def events(stdout):
    return [l for l in stdout.split('\n') if l and not l.startswith('#')]


def expect(name, got, want):
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                raise Fail('%s: event %d is %r, %r expected' % (name, i, g, w))
        raise Fail('%s: %d events, %d expected' % (name, len(got), len(want)))


def warnings_total(name, stderr, want):
    line = 'tracekit: %d warning%s in all' % (want, '' if want == 1 else 's')
    if line not in stderr:
        raise Fail('%s: %r expected in the warnings:\n%s' %
                   (name, line, stderr[-2000:]))


# ---- many tables ----------------------------------------------------------

def case_tables(ctx):
    """300,000 tables nobody refers to: the same events as without them;
    in strict mode an event table of no type is reported at its line."""
    base_tables = ("#TypeTable\n#-00 Task\n#TaskEventTable\n#-00 activate\n"
                   "#EntityTable\n#-00 t\n#EntityTypeTable\n#-00 00\n")
    data = "#TraceData\n#-0\n" + "".join(
        "%08X0000\n" % i for i in range(1000))
    pad = "".join("#Pad%dTable\n#-%X x\n" % (i, i) for i in range(300000))
    plain = write(ctx, 'plain.htf', HEAD % (1, 1) + base_tables + data)
    padded = write(ctx, 'padded.htf', HEAD % (1, 1) + pad + base_tables + data)
    rc, want, _ = run(ctx, ['cat', plain], 'tables (plain)')
    rc2, got, _ = run(ctx, ['cat', padded], 'tables')
    if rc or rc2:
        raise Fail('tables: exit %d / %d' % (rc, rc2))
    expect('tables', events(got), events(want))
    if len(events(got)) != 1000:
        raise Fail('tables: %d events, 1000 expected' % len(events(got)))

    # strict: the orphan event table comes after all the others
    head = HEAD % (1, 1) + pad + base_tables
    orphan_line = head.count('\n') + 1
    strict = write(ctx, 'orphan.htf', head + "#ZEventTable\n#-00 go\n" + data)
    rc, _, err = run(ctx, ['cat', '--strict', strict], 'tables (strict)')
    msg = '%s:%d:1: error: #ZEventTable is for a type the #TypeTable ' \
          'does not list' % (strict, orphan_line)
    if rc != 2 or msg not in err:
        raise Fail('tables (strict): exit %d, %r expected in:\n%s' %
                   (rc, msg, err[-2000:]))


def case_types(ctx):
    """120,000 types of unknown names, each with its own event table, and
    an entity of every 40th: each event has its type's name and its
    event's."""
    n, step = 120000, 40
    tt = "".join("#-%X X%d\n" % (i, i) for i in range(n))
    ets = "".join("#X%dEventTable\n#-00 go%d\n#-01 stop\n" % (i, i)
                  for i in range(n))
    ents = list(range(0, n, step))
    et = "".join("#-%04X e%d\n" % (k, k) for k in range(len(ents)))
    ett = "".join("#-%04X %X\n" % (k, i) for k, i in enumerate(ents))
    recs, want = [], []
    for k, i in enumerate(ents):
        for ev, name in ((0, 'go%d' % i), (1, 'stop')):
            t = 2 * k + ev
            recs.append('%08X%04X%02X\n' % (t, k, ev))
            want.append('%d,Core_0,0,X%d,e%d,0,%s' % (t, i, k, name))
    path = write(ctx, 'types.htf', HEAD % (2, 1) + "#TypeTable\n" + tt + ets +
                 "#EntityTable\n" + et + "#EntityTypeTable\n" + ett +
                 "#TraceData\n#-0\n" + "".join(recs))
    rc, out, err = run(ctx, ['cat', path], 'types')
    if rc:
        raise Fail('types: exit %d:\n%s' % (rc, err[-2000:]))
    expect('types', events(out), want)
    # each type and each of its 2 events is unknown
    warnings_total('types', err, 3 * n)


# ---- many core sections ---------------------------------------------------

ACT_TABLES = ("#TypeTable\n#-00 Task\n#TaskEventTable\n#-00 activate\n"
              "#EntityTable\n%s#EntityTypeTable\n%s")


def act_tables(nents):
    return ACT_TABLES % (
        "".join("#-%02X t%d\n" % (e, e) for e in range(nents)),
        "".join("#-%02X 00\n" % e for e in range(nents)))


def merged(sections):
    """The model: sections as lists of (time, entity, comment), merged in
    (time, section) order; each an activate of task t<entity>, whose
    instance counts its activates before it, with the core as its source."""
    recs = []
    for i, (core, rs) in enumerate(sections):
        for j, (t, e, _) in enumerate(rs):
            recs.append((t, i, j, core, e))
    recs.sort()
    inst, out = {}, []
    for t, _, _, core, e in recs:
        k = inst.get(e, 0)
        inst[e] = k + 1
        out.append('%d,Core_%d,0,T,t%d,%d,activate' % (t, core, e, k))
    return out


def section_text(sections, ncores_decl=None):
    text = HEAD % (1, 1)
    if ncores_decl is not None:
        text += "#NumberOfCores %d\n" % ncores_decl
    text += act_tables(256) + "#TraceData\n"
    for core, rs in sections:
        text += "#-%X\n" % core + "".join(
            "%08X%02X00%s\n" % (t, e, c) for t, e, c in rs)
    return text


def case_cores(ctx):
    """60,000 cores, a section of one record each, and a #NumberOfCores one
    short: the events in time order and one warning that counts them."""
    n = 60000
    secs = [(i, [((i * 7919) % n, i % 256, '')]) for i in range(n)]
    path = write(ctx, 'cores.htf', section_text(secs, n - 1))
    rc, out, err = run(ctx, ['cat', path], 'cores')
    if rc:
        raise Fail('cores: exit %d:\n%s' % (rc, err[-2000:]))
    expect('cores', events(out), merged(secs))
    msg = 'warning: %d core sections, #NumberOfCores is %d' % (n, n - 1)
    if msg not in err:
        raise Fail('cores: %r expected in:\n%s' % (msg, err[-2000:]))
    warnings_total('cores', err, 1)
    rc, _, err = run(ctx, ['cat', '--strict', path], 'cores (strict)')
    msg = 'error: %d core sections, #NumberOfCores is %d' % (n, n - 1)
    if rc != 2 or msg not in err:
        raise Fail('cores (strict): exit %d, %r expected in:\n%s' %
                   (rc, msg, err[-2000:]))


def case_same_core(ctx):
    """60,000 sections of core 0 (each its own cursor in the merge), two
    records each: merged by time, ties in section order."""
    n = 60000
    secs = [(0, [(i % 997, i % 256, ''), (i % 997 + 500, (i + 1) % 256, '')])
            for i in range(n)]
    path = write(ctx, 'same.htf', section_text(secs))
    rc, out, err = run(ctx, ['cat', path], 'same core')
    if rc:
        raise Fail('same core: exit %d:\n%s' % (rc, err[-2000:]))
    expect('same core', events(out), merged(secs))


def case_empty_sections(ctx):
    """200,000 section lines of 1,000 cores, most of them empty (the next
    line is a section again): each core is counted for #NumberOfCores, the
    records of the others merge as the model says."""
    n, ncores = 200000, 1000
    secs = [(i % ncores, [((i * 37) % 5000, i % 256, '')] if i % 997 == 5
             else []) for i in range(n)]
    path = write(ctx, 'empty.htf', section_text(secs, ncores - 1))
    rc, out, err = run(ctx, ['cat', path], 'empty sections')
    if rc:
        raise Fail('empty sections: exit %d:\n%s' % (rc, err[-2000:]))
    expect('empty sections', events(out), merged(secs))
    msg = 'warning: %d core sections, #NumberOfCores is %d' % (ncores,
                                                                ncores - 1)
    if msg not in err:
        raise Fail('empty sections: %r expected in:\n%s' % (msg, err[-2000:]))


def case_windows(ctx):
    """1,100 sections of 22 KB (a 24 MB file): the sections share the
    window memory, each window smaller than its section, refilled as it is
    read; the events as the model merges them."""
    n, m = 1100, 100
    long = ' // ' + 'x' * 2000
    secs = [(i, [(3 * j + i % 3, (i + j) % 256, long if j % 10 == 3 else '')
                 for j in range(m)]) for i in range(n)]
    path = write(ctx, 'windows.htf', section_text(secs, n))
    rc, out, err = run(ctx, ['cat', path], 'windows')
    if rc:
        raise Fail('windows: exit %d:\n%s' % (rc, err[-2000:]))
    expect('windows', events(out), merged(secs))


# ---- repeated type rows, sparse event ids ---------------------------------

def repeated_types(ctx, evlen, nents):
    n = 60000
    names = ['Task', 'TASK', 'task', 'Foo', 'FOO']
    tt = "".join("#-%X %s\n" % (i, names[i % 5]) for i in range(n))
    top = (1 << 8 * evlen) - 1      # the largest event id of a record
    task_ev = top if evlen == 4 else 0xFFFF
    foo_evs = ((top, 'go'), (0x7FFF, 'stop'), (3, 'up'))
    # ids past what a record holds are table rows all the same
    ets = ("#TaskEventTable\n#-%X activate\n#-12345 bogus\n"
           "#FooEventTable\n#-%X go\n#-%X stop\n#-3 up\n#-1FFFFFFFF far\n"
           % (task_ev, top, 0x7FFF))
    # entity k has the type of row k * 239 (all five spellings)
    rows = [(k * 239) % n for k in range(nents)]
    et = "".join("#-%02X e%d\n" % (k, k) for k in range(nents))
    ett = "".join("#-%02X %X\n" % (k, r) for k, r in enumerate(rows))
    recs, want, inst = [], [], {}
    for t in range(4000):
        k = (t * 7) % nents
        name = names[rows[k] % 5]
        if name.lower() == 'task':
            ev, evname, typ = task_ev, 'activate', 'T'
            i = inst.get(k, 0)
            inst[k] = i + 1
        else:
            ev, evname = foo_evs[t % 3]
            typ, i = name, 0
        recs.append('%08X%02X%0*X\n' % (t, k, 2 * evlen, ev))
        want.append('%d,Core_0,0,%s,e%d,%d,%s' % (t, typ, k, i, evname))
    name = 'repeated types (EventLength %d)' % evlen
    path = write(ctx, 'repeated.htf', HEAD % (1, evlen) + "#TypeTable\n" +
                 tt + ets + "#EntityTable\n" + et + "#EntityTypeTable\n" +
                 ett + "#TraceData\n#-0\n" + "".join(recs))
    rc, out, err = run(ctx, ['cat', path], name)
    if rc:
        raise Fail('%s: exit %d:\n%s' % (name, rc, err[-2000:]))
    expect(name, events(out), want)
    # per row: Task 'bogus' (1); Foo/FOO itself and its 4 events (5)
    ntask = sum(1 for i in range(n) if i % 5 < 3)
    warnings_total(name, err, ntask + 5 * (n - ntask))


def case_repeated_types(ctx):
    """60,000 #TypeTable rows that name Task (in three spellings), Foo or
    FOO, event tables with sparse ids up to 0x1FFFFFFFF, and entities of
    rows all through the table: each event as the rows say, each warning
    counted once per row.  With 4-byte event ids (records of 26 digits,
    the word-at-a-time decoder) and with 2-byte ones and 15 entities
    (14 digits: the flat (entity, event) table)."""
    repeated_types(ctx, 4, 250)
    repeated_types(ctx, 2, 15)


def case_spellings(ctx):
    """4,096 spellings of one type name (of no type of the spec, each kept
    as written) sharing an event table of 4,096 rows would make 16 M event
    descriptors: an error at the row that passes the limit the header's
    size sets, not GB of memory."""
    v = e = 4096
    word = 'abcdefghijkl'
    spell = [''.join(c.upper() if k >> j & 1 else c
                     for j, c in enumerate(word)) for k in range(v)]
    head = HEAD % (1, 2) + "#TypeTable\n"
    first = head.count('\n') + 1
    text = (head + "".join("#-%X %s\n" % (k, w) for k, w in enumerate(spell)) +
            "#%sEventTable\n" % word +
            "".join("#-%X ev%d\n" % (j, j) for j in range(e)) +
            "#EntityTable\n#-00 x\n#EntityTypeTable\n#-00 0\n"
            "#TraceData\n#-0\n0000000100000000\n")
    path = write(ctx, 'spellings.htf', text)
    rows = v + e + 2
    limit = 8 * rows + 65536
    k = limit // e + 1              # the spelling that passes the limit
    msg = ('%s:%d:%d: error: too many event descriptors (more than %d): '
           '#%sEventTable serves %d types whose names differ in case only'
           % (path, first + k - 1, len('#-%X ' % (k - 1)) + 1, limit, word,
              k))
    rc, _, err = run(ctx, ['cat', path], 'spellings')
    if rc != 2 or msg not in err:
        raise Fail('spellings: exit %d, %r expected in:\n%s' %
                   (rc, msg, err[-2000:]))


CASES = [case_tables, case_types, case_cores, case_same_core,
         case_empty_sections, case_windows, case_repeated_types,
         case_spellings]


def main():
    tk = os.path.abspath(sys.argv[1])
    a = asan(tk)
    failed = 0
    with tempfile.TemporaryDirectory(prefix='htf-scale.') as d:
        # ASan's shadow memory and quarantine come on top
        ctx = {'tk': tk, 'dir': d, 'mem_mb': MEM_MB * 4 if a else MEM_MB}
        only = sys.argv[2:]
        for case in CASES:
            if only and case.__name__[5:] not in only:
                continue
            t0 = time.monotonic()
            ctx['peak'] = 0
            try:
                case(ctx)
                print('ok   %s (%.1f s, runs up to %d MB resident)' %
                      (case.__name__, time.monotonic() - t0,
                       ctx['peak'] // 1024))
            except Fail as e:
                print('FAIL %s' % e)
                failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
