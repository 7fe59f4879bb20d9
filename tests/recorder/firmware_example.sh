#!/bin/sh
# The firmware example of docs/recorder.md (examples/recorder/) run on the
# host port: host_sim calls the kernel hooks of trace_glue.c for a 3 ms run
# of two tasks, an interrupt and a mutex, and dumps the chunk; tracekit must
# read it in strict mode with the expected events, entities and time base
# (firmware_example.expected), and `check --strict` must find it clean.
# Usage: firmware_example.sh TRACEKIT HOST_SIM WORKDIR
set -eu
tk=$1
sim=$2
dir=$3
here=$(dirname "$0")
mkdir -p "$dir"
dump="$dir/firmware_example.bin"
rm -f "$dump"
"$sim" "$dump"
"$tk" info --strict --from shark "$dump" | sed "s|$dump|DUMP|" |
	diff -u "$here/firmware_example.expected" -
"$tk" check --strict --from shark "$dump" >/dev/null
# the names FTrace mode gives: task<pid> from task_create, IRQ<n>, mutex_<addr>
"$tk" cat -q --no-header --from shark "$dump" > "$dir/firmware_example.btf"
for want in ',task1,1,start' ',IRQ5,1,start' ',SEM,mutex_20001000,0,lock' ',T,task2,3,terminate'; do
	grep -q -- "$want" "$dir/firmware_example.btf" ||
		{ echo "cat: no '$want'" >&2; exit 1; }
done
echo "firmware example: ok"
