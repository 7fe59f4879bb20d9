#!/bin/sh
# Process state changes on no known core are written to BTF, none dropped:
# from a task (the FreeRTOS logger's dialect) on no core, from a placeholder
# core, counted in the warning; from a source of no known
# type, from that source.  The output reads back with `info --strict` and
# has every event; converted again, it keeps them.
set -u
cli=$1 in=$2/coreless.btf
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
n_in=$(grep -c -v '^#' "$in")
"$cli" convert "$in" "$tmp/a.btf" 2> "$tmp/warn" || fail "convert: exit $?"
grep -q 'state change of processes from a task on no known core written from the placeholder core' "$tmp/warn" ||
	{ cat "$tmp/warn"; fail "no warning"; }
"$cli" info --strict "$tmp/a.btf" > /dev/null || fail "info --strict refuses the output"
"$cli" cat -q "$tmp/a.btf" | grep -v '^#' > "$tmp/lines"
n_out=$(grep -c . "$tmp/lines")
[ "$n_out" -eq "$n_in" ] || { cat "$tmp/lines"; fail "$n_in events in, $n_out out"; }
# the task's state change comes from the placeholder core, named apart from
# the signal that has its usual name
grep -q '^100,Core_unknown_2,0,T,\[0/0002\]B,0,resume' "$tmp/lines" ||
	{ cat "$tmp/lines"; fail "no placeholder core"; }
# `[0/0000]` (a source of no known type) on no known core after the
# placeholder: read back, it runs on the trace's only core, the placeholder
# (docs/btf.md), so it is written from there
grep -q '^110,Core_unknown_2,0,T,\[0/0001\]A,0,resume' "$tmp/lines" ||
	{ cat "$tmp/lines"; fail "a source of no known type not on the placeholder"; }
# the output converts to itself, again and again (it named the
# placeholder's events `[0/0000]` on the first pass, not on the second)
"$cli" convert "$tmp/a.btf" "$tmp/b.btf" 2> "$tmp/warn2" || fail "second convert: exit $?"
[ "$("$cli" cat -q "$tmp/b.btf" | grep -c -v '^#')" -eq "$n_in" ] || fail "second convert lost events"
cmp -s "$tmp/a.btf" "$tmp/b.btf" || { diff "$tmp/a.btf" "$tmp/b.btf"; fail "second convert not the same"; }
"$cli" convert "$tmp/b.btf" "$tmp/c.btf" 2> "$tmp/warn3" || fail "third convert: exit $?"
cmp -s "$tmp/b.btf" "$tmp/c.btf" || { diff "$tmp/b.btf" "$tmp/c.btf"; fail "not stable"; }
# `[0/0000]` before any core, then a task's change on no core, a
# `[1/0000]` whose target changed from the placeholder, and one whose
# target did not, on two cores: the first and the last kept as they are
# (read back, on no core), the third from the placeholder (read back, on
# its target's last core); converted again, the same
"$cli" convert -q "$2/order.btf" "$tmp/o1.btf" || fail "order: exit $?"
"$cli" cat -q "$tmp/o1.btf" | grep -v '^#' > "$tmp/olines"
for want in '^100,\[0/0000\],0,T,\[0/0001\]A,0,resume' \
	    '^110,Core_unknown,0,T,\[0/0002\]B,0,resume' \
	    '^120,Core_0,0,T,\[0/0003\]C,0,resume' \
	    '^130,Core_unknown,0,T,\[0/0002\]B,0,preempt' \
	    '^140,\[1/0000\],0,T,\[0/0004\]D,0,resume'; do
	grep -q "$want" "$tmp/olines" || { cat "$tmp/olines"; fail "order: no $want"; }
done
"$cli" convert -q "$tmp/o1.btf" "$tmp/o2.btf" || fail "order: second convert: exit $?"
cmp -s "$tmp/o1.btf" "$tmp/o2.btf" || { diff "$tmp/o1.btf" "$tmp/o2.btf"; fail "order: second convert not the same"; }
# an entity of another type read after the placeholder was first written
# with its name: an error, no file
if "$cli" convert "$2/clash.btf" "$tmp/d.btf" 2> "$tmp/err"; then
	fail "the placeholder core's name taken by a signal"
fi
grep -q "placeholder core 'Core_unknown'" "$tmp/err" || { cat "$tmp/err"; fail "no error"; }
[ ! -e "$tmp/d.btf" ] || fail "an error left a file"
echo "ok: $n_out events"
