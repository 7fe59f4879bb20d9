#!/bin/sh
# The recorder's UDP sender (host port) to tracekit's receiver on loopback:
# `tracekit shark-receive` must write exactly the chunks' disk dump, with no
# missing packet (4 datagrams: 60 + 60 + 30, then 18 with the lost record).
# Usage: udp_interop.sh TRACEKIT TEST_RECORDER
set -eu
tk=$1
rec=$2
d=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
"$tk" shark-receive --port 0 --bind 127.0.0.1 --count 168 --timeout 30 "$d/rx.bin" 2> "$d/rx.err" &
pid=$!
i=0
while ! grep -q 'listening on' "$d/rx.err"; do
	i=$((i + 1))
	if [ $i -gt 200 ]; then echo "receiver did not start" >&2; cat "$d/rx.err" >&2; exit 1; fi
	sleep 0.05
done
port=$(sed -n 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p' "$d/rx.err")
"$rec" --udp-send "$port" "$d/ref.bin"
st=0
wait "$pid" || st=$?
pid=
if [ "$st" != 0 ]; then echo "receiver exit $st" >&2; cat "$d/rx.err" >&2; exit 1; fi
cmp "$d/ref.bin" "$d/rx.bin"
[ "$(wc -c < "$d/rx.bin")" -eq 2688 ]
