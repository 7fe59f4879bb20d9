#!/bin/sh
# End to end: the recorder's host port (recorder/, through rec_send) logs a
# run and sends its chunk by UDP; `tracekit shark-receive` writes the file;
# it must equal, byte for byte, the disk writer's dump of the same chunk,
# hold 285 records (4 + 40 x 7 + 1), and tracekit must read it to the same
# events as that dump.  The receiver listens on its default address,
# 127.0.0.1, which the recorder's host port sends to.
set -u
cli=$1 send=$2
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0
"$cli" shark-receive --port 0 --count 285 --timeout 20 "$tmp/got.bin" 2> "$tmp/err" &
pid=$!
i=0
while ! grep -q "listening on" "$tmp/err" 2> /dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && { echo "FAIL: receiver did not start"; exit 1; }
	sleep 0.1
done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/err")
n=$("$send" "$port" "$tmp/ref.bin") || { echo "FAIL: rec_send"; exit 1; }
wait "$pid"; rc=$?; pid=
[ "$n" = 285 ] || { echo "FAIL: the recorder dumped $n records, expected 285"; fail=1; }
[ $rc -eq 0 ] || { echo "FAIL: shark-receive exit $rc"; cat "$tmp/err"; fail=1; }
grep -qF "285 records (4560 bytes) from 5 packets, numbers 1-5" "$tmp/err" || { echo "FAIL: report"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/got.bin" "$tmp/ref.bin" || { echo "FAIL: received file differs from the disk dump"; fail=1; }
"$cli" cat -q --from shark "$tmp/got.bin" > "$tmp/a" || fail=1
"$cli" cat -q --from shark "$tmp/ref.bin" > "$tmp/b" || fail=1
cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL: events differ"; fail=1; }
k=$(grep -c ',T,task[12],[0-9]*,terminate' "$tmp/a")
[ "$k" = 40 ] || { echo "FAIL: $k job ends read, expected 40"; fail=1; }
[ $fail = 0 ] && echo "recorder -> UDP -> shark-receive -> tracekit: all passed"
exit $fail
