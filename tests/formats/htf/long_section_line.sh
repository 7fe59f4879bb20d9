#!/bin/sh
# The section scan of a plain HTF file refuses a core section line longer
# than a line may be: after more blanks than that before its '#', and with
# more than that after it.  The inputs are over 4 MiB, so they are made here
# (a .gz of them is refused earlier, while it is copied); each is checked by
# run_fail.sh like a fail/ case.
# Usage: long_section_line.sh TRACEKIT
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
PY
rc=0
for name in blanks_before blanks_after; do
	sh "$here/../run_fail.sh" "$cli" "$tmp/$name.htf" || rc=1
done
exit $rc
