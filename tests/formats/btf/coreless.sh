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
grep -q '^110,\[0/0000\],0,T,\[0/0001\]A,0,resume' "$tmp/lines" ||
	{ cat "$tmp/lines"; fail "a source of no known type not kept"; }
# read again, `[0/0000]` runs on the trace's only core (docs/btf.md): the
# output keeps every event, and a third conversion gives it unchanged
"$cli" convert "$tmp/a.btf" "$tmp/b.btf" 2> "$tmp/warn2" || fail "second convert: exit $?"
[ "$("$cli" cat -q "$tmp/b.btf" | grep -c -v '^#')" -eq "$n_in" ] || fail "second convert lost events"
"$cli" convert "$tmp/b.btf" "$tmp/c.btf" 2> "$tmp/warn3" || fail "third convert: exit $?"
cmp -s "$tmp/b.btf" "$tmp/c.btf" || { diff "$tmp/b.btf" "$tmp/c.btf"; fail "not stable"; }
# an entity of another type read after the placeholder was first written
# with its name: an error, no file
if "$cli" convert "$2/clash.btf" "$tmp/d.btf" 2> "$tmp/err"; then
	fail "the placeholder core's name taken by a signal"
fi
grep -q "placeholder core 'Core_unknown'" "$tmp/err" || { cat "$tmp/err"; fail "no error"; }
[ ! -e "$tmp/d.btf" ] || fail "an error left a file"
echo "ok: $n_out events"
