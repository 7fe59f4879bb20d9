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
err=$("$cli" verify examples/demo.btf -r tests/verify 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] && [ "$err" = "tests/verify: error: cannot read the requirements file: Is a directory" ] ||
	{ echo "FAIL: a folder as the requirements: exit $rc, '$err'"; fail=1; }
[ $fail = 0 ] && echo "ok: $n requirements files refused at their position"
exit $fail
