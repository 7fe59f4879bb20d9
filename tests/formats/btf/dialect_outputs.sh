#!/bin/sh
# What the analyses make of a BTF input read in a dialect: for each
# ok/NAME.btf with sidecars NAME.info, NAME.load, NAME.check, NAME.stats,
# the output of that command on it must be the sidecar exactly, and
# NAME.warn is the warnings (stderr of `info`).  Run from ok/ so that the
# file names shown are NAME.btf.
set -u
cli=$1 dir=$2
cd "$dir" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for exp in *.info *.load *.check *.stats *.warn; do
	[ -f "$exp" ] || continue
	stem=${exp%.*} cmd=${exp##*.}
	case $cmd in
	warn) "$cli" info "$stem.btf" > /dev/null 2> "$tmp/got"; rc=$? ;;
	*) "$cli" "$cmd" -q "$stem.btf" > "$tmp/got" 2>&1; rc=$? ;;
	esac
	if [ $rc -ne 0 ]; then echo "FAIL $exp: exit $rc"; cat "$tmp/got"; fail=1; continue; fi
	if ! cmp -s "$tmp/got" "$exp"; then
		echo "FAIL $exp differs:"; diff "$exp" "$tmp/got" | head -20; fail=1
	fi
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "FAIL: no sidecar found"; exit 1; }
[ $fail -eq 0 ] && echo "ok: $n outputs"
exit $fail
