#!/bin/sh
# verify.errors: every requirements file tests/verify/err_*.yaml is refused
# with exit 2 and the one line its first line expects
# ("# expect: LINE:COL: error: ..."), prefixed with its path.
set -u
cli=$1 root=$2
cd "$root" || exit 1
fail=0 n=0
for f in tests/verify/err_*.yaml; do
	n=$((n + 1))
	want="$f:$(sed -n '1s/^# expect: //p' "$f")"
	err=$("$cli" verify examples/demo.btf -r "$f" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != 2 ]; then
		echo "FAIL: $f: exit $rc, expected 2"; fail=1
	fi
	case "$err" in
	"$want"*) ;;
	*) echo "FAIL: $f: got '$err', expected '$want...'"; fail=1 ;;
	esac
	if [ "$(printf '%s\n' "$err" | wc -l)" != 1 ]; then
		echo "FAIL: $f: more than one line on stderr"; fail=1
	fi
done
[ "$n" -ge 25 ] || { echo "FAIL: only $n error files"; fail=1; }

# a file read from a pipe (read once: the checks before the load do not
# read it again), and a folder, said so
cat tests/verify/demo_pass.yaml | "$cli" verify examples/demo.btf -r /dev/stdin > /dev/null
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: requirements from a pipe: exit $rc, expected 0"; fail=1; }
# '-' is standard input: read, its errors named <stdin>; with a trace on
# '-' too, a usage error (one of them would find it empty)
"$cli" verify examples/demo.btf -r - < tests/verify/demo_pass.yaml > /dev/null
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: -r -: exit $rc, expected 0"; fail=1; }
err=$("$cli" verify examples/demo.btf -r - < tests/verify/err_empty.yaml 2>&1 >/dev/null)
rc=$?
want="<stdin>:$(sed -n '1s/^# expect: //p' tests/verify/err_empty.yaml)"
case "$rc:$err" in
"2:$want"*) ;;
*) echo "FAIL: -r - with an error: exit $rc, '$err', expected '$want...'"; fail=1 ;;
esac
err=$("$cli" verify - -r - < examples/demo.btf 2>&1 >/dev/null)
rc=$?
case "$rc:$err" in
"2:tracekit verify: standard input (-) given twice"*) ;;
*) echo "FAIL: verify - -r -: exit $rc, '$err'"; fail=1 ;;
esac
# report: its requirements from standard input, its trace a file (its
# trace on '-' is refused first, whatever -r is)
err=$("$cli" report - -r - -o /dev/null < examples/demo.btf 2>&1 >/dev/null)
rc=$?
case "$rc:$err" in
"2:tracekit report: the report reads FILE twice: standard input cannot be used"*) ;;
*) echo "FAIL: report - -r -: exit $rc, '$err'"; fail=1 ;;
esac
# and -r - with a file
"$cli" report examples/demo.btf -r - -o /dev/null < tests/verify/demo_fail.yaml
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: report -r -: exit $rc, expected 0"; fail=1; }
err=$("$cli" verify examples/demo.btf -r tests/verify 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] && [ "$err" = "tests/verify: error: cannot read the requirements file: Is a directory" ] ||
	{ echo "FAIL: a folder as the requirements: exit $rc, '$err'"; fail=1; }
[ $fail = 0 ] && echo "ok: $n requirements files refused at their position"
exit $fail
