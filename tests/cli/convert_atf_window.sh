#!/bin/sh
# What the ATF writer writes, a strict reading takes: every TraceData's
# Start/Stop holds its entries.  ATF inputs whose windows do not (read
# leniently: an entry before Start or after Stop, an empty TraceData whose
# Stop is before its Start, times of more decimals than the window), the
# ATF format cases and the BTF traces of the corpus (when present) are
# converted to ATF, and the result is read back with --strict, with the
# same events as the input.  Before the fix the writer kept the input's
# Start/Stop as written, and the strict reading refused its own output.
set -u
cli=$1 root=$2
cd "$root" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
set -- tests/cli/atf_start_stop.atf tests/cli/atf_window_decimals.atf \
	tests/formats/atf/ok/*.atf
for f in ../shared/corpus/btf/*.btf ../shared/corpus/btf/*/*.btf; do
	[ -e "$f" ] && set -- "$@" "$f"
done
for in in "$@"; do
	rm -f "$tmp/out.atf"
	if ! "$cli" convert -q "$in" "$tmp/out.atf" 2> "$tmp/err"; then
		echo "FAIL: $in: convert: $(head -c 300 "$tmp/err")"; fail=1; continue
	fi
	if ! "$cli" cat --strict "$tmp/out.atf" > "$tmp/back" 2> "$tmp/err"; then
		echo "FAIL: $in: the strict reading of its ATF: $(head -c 300 "$tmp/err")"
		fail=1; continue
	fi
	case $in in
	tests/cli/*)
		# nothing of these is dropped: the same events back
		"$cli" cat -q "$in" > "$tmp/want" 2> /dev/null
		if ! cmp -s "$tmp/want" "$tmp/back"; then
			echo "FAIL: $in: other events read back:"
			diff "$tmp/want" "$tmp/back" | head -20; fail=1
		fi;;
	esac
done
[ $fail = 0 ] && echo "ok: $# inputs"
exit $fail
