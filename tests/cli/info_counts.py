#!/usr/bin/env python3
"""`tracekit info` counts events per (type as written, event as written)
in a dense table of 64 x 64 names and a hash map beyond it (src/cli/
cmd_info.c).  Generated BTF traces with few names, with more than 64 types
or events (some pairs in the table, some in the map), and with names met
in an order that fills the table's dimensions unevenly: each count of
`info --format json` must be the count of that pair in the trace, and the
events and the time span must match.

Usage: info_counts.py TRACEKIT"""
import collections
import json
import os
import random
import subprocess
import sys
import tempfile


def trace(rnd, ntypes, nevents, n):
    types = ['TY%d' % i for i in range(ntypes)]
    names = ['ev%d' % i for i in range(nevents)]
    rows = []
    t = 0
    for _ in range(n):
        t += rnd.randint(0, 3)
        # a few hot pairs and a long tail, so that both paths count a lot
        if rnd.random() < 0.6:
            ty = types[rnd.randint(0, min(2, ntypes - 1))]
            ev = names[rnd.randint(0, min(2, nevents - 1))]
        else:
            ty, ev = rnd.choice(types), rnd.choice(names)
        rows.append((t, ty, ev))
    return rows


def main():
    cli = sys.argv[1]
    failed = 0
    cases = [(3, 4, 500), (64, 64, 20000), (65, 3, 5000), (3, 65, 5000),
             (100, 90, 30000), (200, 1, 3000)]
    with tempfile.TemporaryDirectory() as tmp:
        for k, (nt, ne, n) in enumerate(cases):
            rnd = random.Random(k)
            rows = trace(rnd, nt, ne, n)
            path = os.path.join(tmp, 'c%d.btf' % k)
            with open(path, 'w') as f:
                f.write('#version 2.2.1\n#timescale ns\n')
                for t, ty, ev in rows:
                    f.write('%d,Core_0,0,%s,x,0,%s\n' % (t, ty, ev))
            p = subprocess.run([cli, 'info', '-q', '--format', 'json', path],
                               capture_output=True, text=True)
            want = collections.Counter((ty, ev) for _, ty, ev in rows)
            label = '%d types x %d events, %d events' % (nt, ne, n)
            if p.returncode != 0:
                print('FAIL %s: exit %d\n%s' % (label, p.returncode, p.stderr))
                failed += 1
                continue
            info = json.loads(p.stdout)
            got = collections.Counter()
            for c in info['event_counts']:
                got[(c['type'], c['event'])] += c['count']
            dup = len(info['event_counts']) != len(got)
            if got != want or dup:
                print('FAIL %s: %d pairs counted, %d in the trace%s'
                      % (label, len(got), len(want),
                         ' (a pair listed twice)' if dup else ''))
                failed += 1
            elif (info['events'] != n or info['start'] != rows[0][0] or
                  info['end'] != rows[-1][0]):
                print('FAIL %s: events %s start %s end %s'
                      % (label, info['events'], info['start'], info['end']))
                failed += 1
            else:
                print('ok %s: %d pairs' % (label, len(want)))
    print('%d cases, %d failed' % (len(cases), failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
