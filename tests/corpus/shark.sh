#!/bin/sh
# The real S.Ha.R.K. dump of the shared corpus, checked against values an
# independent decoder (python3 struct, below) computes from the bytes:
# record count, count per event code and the events each maps to (see
# docs/mappings.md), the first record, the time span, and the task timeline
# (which context runs, switch by switch) against the context switches in
# the dump.  Also: the BTF conversion reads back in lenient mode to the same
# events.
set -u
cli=$1 dump=$2
[ -f "$dump" ] || { echo "corpus dump not found at $dump: skipped"; exit 77; }
command -v python3 > /dev/null || { echo "python3 missing: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$cli" cat -q --from shark "$dump" > "$tmp/cat" || { echo "FAIL: cat"; exit 1; }
"$cli" info -q --from shark "$dump" > "$tmp/info" || { echo "FAIL: info"; exit 1; }
"$cli" convert -q --option as-read=1 --from shark "$dump" "$tmp/out.btf" || { echo "FAIL: convert"; exit 1; }
"$cli" cat -q "$tmp/out.btf" > "$tmp/cat2" || { echo "FAIL: BTF re-read (lenient)"; exit 1; }
cmp -s "$tmp/cat" "$tmp/cat2" || { echo "FAIL: the BTF conversion reads back differently"; exit 1; }

python3 - "$dump" "$tmp/cat" "$tmp/info" <<'PY'
import collections, struct, sys
dump, catf, infof = sys.argv[1:4]
data = open(dump, 'rb').read()
fail = []
def check(what, got, want):
    if got != want:
        fail.append('%s: got %r, expected %r' % (what, got, want))

# --- independent decoding of the records
assert len(data) % 16 == 0
recs = [struct.unpack_from('<HHIII', data, i) for i in range(0, len(data), 16)]
recs = [(t, p1, (hi << 32) | lo, p2) for t, p1, hi, lo, p2 in recs if t != 0]
check('record count', len(recs), 27926)
code = collections.Counter(t & 0xff for t, _, _, _ in recs)
want_hist = {0x0B: 6682, 0x1B: 3931, 0x82: 4720, 0x15: 2366, 0x62: 2359,
             0x2B: 2748, 0x3B: 2748, 0x92: 1963, 0x12: 397, 0x60: 5,
             0x02: 1, 0x03: 1, 0x13: 1, 0x16: 1, 0x20: 1, 0x30: 1, 0x42: 1}
check('histogram', dict(code), want_hist)
t0, p1, tsc0, p2 = recs[0]
check('first record', (t0, p1, tsc0, p2), (0x20, 256, 24305936302, 367483))
clk = p2
ps = lambda tsc: tsc * 10**9 // clk

# --- what tracekit made of it
lines = [l.rstrip('\n').split(',', 7) for l in open(catf) if not l.startswith('#')]
ev = collections.Counter((l[3], l[6]) for l in lines)
# one event per record for the codes mapped one to one
check('timer_post', ev[('EVENT', 'timer_post')], code[0x0B])
check('timer_delete', ev[('EVENT', 'timer_delete')], code[0x1B])
check('schedule', ev[('SCHED', 'schedule')], code[0x82])
check('mutex lock', ev[('SEM', 'lock')], code[0x16])
check('trace start', ev[('SYS', 'start')], code[0x20])
check('trace stop', ev[('SYS', 'stop')], code[0x30])
# interrupts: the timer wakeups and the one real interrupt
check('I start', ev[('I', 'start')], code[0x2B] + code[0x03])
check('I terminate', ev[('I', 'terminate')], code[0x3B] + code[0x13])
# each job end (task_end_cycle, task_end) ends one instance
check('T terminate', ev[('T', 'terminate')], code[0x62] + code[0x42])
# releases: task_activate / task_timer, less the task_timer that repeats
# the not yet started first job, plus one synthesised for each context
# that runs without a release (idle, init: 4 in this dump)
check('T activate + merged', ev[('T', 'activate')] + ev[('T', 'task_timer')],
      code[0x12] + code[0x92] + 4)
times = [int(l[0]) for l in lines]
check('first time', times[0], ps(tsc0))
check('last time', times[-1], ps(recs[-1][2]))
check('sorted', times, sorted(times))
info = open(infof).read()
# one clock rate: a tick is a cycle, shown exactly as a fraction of a ms
# after the nanoseconds rounded down
from fractions import Fraction
def ms(cycles):
    return '~%d ns (exactly %s ms)' % (cycles * 1000000 // clk, Fraction(cycles, clk))
check('info start', ('start:       %s' % ms(tsc0)) in info, True)
check('info end', ('end:         %s' % ms(recs[-1][2])) in info, True)
check('info duration', ('duration:    %s' % ms(recs[-1][2] - tsc0)) in info, True)

# --- the task timeline against the context switches
names = {}
for t, p1, tsc, p2 in recs:
    if t in (0x60, 0x02):
        names[p1] = 'task%d' % p2
name = lambda ctx: names.get(ctx, 'ctx%d' % ctx)
want = []           # (time, task) each time a task gets the core
running, in_isr = None, 0
for t, p1, tsc, p2 in recs:
    if t == 0x15:
        if in_isr:
            running = p1
        elif p1 != running:
            running = p1
            want.append((ps(tsc), name(p1)))
    elif t in (0x2B, 0x03):
        in_isr += 1
    elif t in (0x3B, 0x13):
        in_isr = max(0, in_isr - 1)
        if t == 0x3B and p1:
            running = p1
        if not in_isr and running is not None:
            want.append((ps(tsc), name(running)))
got = [(int(l[0]), l[4]) for l in lines if l[3] == 'T' and l[6] in ('start', 'resume')]
check('timeline length', len(got), len(want))
bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
check('timeline mismatches', bad[:5], [])
# and one thing runs at a time: a task or an ISR starts or resumes only
# after the one before was preempted or ended
cur, overlaps = None, 0
for l in lines:
    typ, tgt, e = l[3], l[4], l[6]
    if typ in ('T', 'I') and e in ('start', 'resume'):
        overlaps += cur is not None and cur != tgt
        cur = tgt
    elif typ in ('T', 'I') and e in ('preempt', 'terminate') and tgt == cur:
        cur = None
check('overlapping processes', overlaps, 0)
for f in fail:
    print('FAIL', f)
if fail:
    sys.exit(1)
print('corpus shark: %d records, %d events, %d switches in the timeline: all checks passed'
      % (len(recs), len(lines), len(want)))
PY
