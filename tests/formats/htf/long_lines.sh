#!/bin/sh
# A plain HTF file with a line longer than a line may be (4 MiB): a header
# line, and a core section line (the section scan's two exits: more blanks
# than that before its '#', more than that after it).  The inputs are over
# 4 MiB, so they are made here (a .gz of them is refused earlier, while it
# is copied); each is checked by run_fail.sh like a fail/ case.
# Usage: long_lines.sh TRACEKIT
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" "$here/fail/unknown_entity.htf" <<'PY' || exit 1
import sys
tmp, base = sys.argv[1], open(sys.argv[2], 'rb').read()
base = base.replace(b'00000001000500\n', b'00000001000100\n00000002000100\n')
M = 4 << 20
cases = {
    # the '#' of the section line behind M + 1 blanks
    'blanks_before': base + b' ' * (M + 1) + b'#-01\n00000003000200\n',
    # M blanks after '#-01'
    'blanks_after': base + b'#-01' + b' ' * M + b'\n00000003000200\n',
}
for name, data in cases.items():
    open('%s/%s.htf' % (tmp, name), 'wb').write(data)
    open('%s/%s.err' % (tmp, name), 'w').write(
        '%s.htf:36:4194305: error: line longer than 4194304 bytes\n' % name)
# a header line of M + 9 bytes
name = 'header_line'
open('%s/%s.htf' % (tmp, name), 'wb').write(
    base.replace(b'#Version 1.0\n', b'#Comment ' + b'c' * M + b'\n'))
open('%s/%s.err' % (tmp, name), 'w').write(
    '%s.htf:2:4194305: error: line longer than 4194304 bytes\n' % name)
PY
rc=0
for name in blanks_before blanks_after header_line; do
	sh "$here/../run_fail.sh" "$cli" "$tmp/$name.htf" || rc=1
done
exit $rc
