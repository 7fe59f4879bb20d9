#!/bin/sh
# tracekit record: the stream of recorder.stream (DIR/stream.tks) captured
# from a FIFO written in two parts, from standard input after bytes that
# are no stream, and from a file that grows (--follow, stopped by SIGTERM);
# OUT is read while the capture goes on (stream_end: cut), and at the end
# gives the events of the stream itself and says how the capture ended.
# Usage: stream_record.sh TRACEKIT DIR
set -eu
tk=$1
src=$2/stream.tks
d=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
"$tk" cat "$src" > "$d/want.cat"
size=$(wc -c < "$src")
half=$((size / 2 + 7))   # inside a record, most likely
head -c "$half" "$src" > "$d/part1"
tail -c +$((half + 1)) "$src" > "$d/part2"
# wait until FILE has at least N bytes
wait_size() {
	i=0
	while [ "$(wc -c < "$1" 2>/dev/null || echo 0)" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -lt 400 ] || { echo "FAIL: $1 stays below $2 bytes" >&2; exit 1; }
		sleep 0.05
	done
}

# 1. a FIFO: OUT readable between the two parts
mkfifo "$d/fifo"
"$tk" record -q "$d/fifo" -o "$d/fifo.tks" &
pid=$!
exec 3> "$d/fifo"
cat "$d/part1" >&3
wait_size "$d/fifo.tks" $((half - 300))
"$tk" info "$d/fifo.tks" > "$d/mid.info" 2> /dev/null
grep -q 'stream_end cut' "$d/mid.info"
cat "$d/part2" >&3
exec 3>&-
wait "$pid"
pid=
"$tk" info "$d/fifo.tks" > "$d/fifo.info"
grep -q 'stream_end the source ended' "$d/fifo.info"
"$tk" cat "$d/fifo.tks" > "$d/fifo.cat"
cmp "$d/want.cat" "$d/fifo.cat"

# 2. standard input, after 100 bytes that are no stream (dropped)
{ head -c 100 /dev/zero | tr '\0' '\377'; cat "$src"; } |
	"$tk" record - -o "$d/stdin.tks" 2> "$d/stdin.err"
grep -q '100 bytes dropped' "$d/stdin.err"
"$tk" cat "$d/stdin.tks" > "$d/stdin.cat"
cmp "$d/want.cat" "$d/stdin.cat"

# 3. a file that grows, followed until SIGTERM
cp "$d/part1" "$d/grow"
"$tk" record -q --follow "$d/grow" -o "$d/grow.tks" &
pid=$!
wait_size "$d/grow.tks" $((half - 300))
cat "$d/part2" >> "$d/grow"
wait_size "$d/grow.tks" "$size"
kill -TERM "$pid"
wait "$pid"
pid=
"$tk" info "$d/grow.tks" > "$d/grow.info"
grep -q 'stream_end stopped by a signal' "$d/grow.info"
"$tk" cat "$d/grow.tks" > "$d/grow.cat"
cmp "$d/want.cat" "$d/grow.cat"

# 4. OUT is SOURCE: an error, the source left whole
cp "$src" "$d/same.tks"
if "$tk" record -q "$d/same.tks" -o "$d/same.tks" 2> "$d/same.err"; then
	echo "FAIL: record SOURCE -o SOURCE exit 0" >&2; exit 1
fi
[ "$(wc -l < "$d/same.err")" -eq 1 ] && grep -q 'error: the output is the source' "$d/same.err"
cmp "$src" "$d/same.tks"

# 5. a source with no sync record (garbage): an error, no OUT
head -c 5000 /dev/zero | tr '\0' '\377' > "$d/garbage"
if "$tk" record -q "$d/garbage" -o "$d/garbage.tks" 2> "$d/garbage.err"; then
	echo "FAIL: record of garbage exit 0" >&2; exit 1
fi
[ "$(wc -l < "$d/garbage.err")" -eq 1 ] && grep -q 'garbage: error: no sync record in the stream (5000 bytes dropped)' "$d/garbage.err"
[ ! -e "$d/garbage.tks" ]

# 6. SIGINT while a FIFO's writer is silent: a readable stream, no temporary
mkfifo "$d/fifo2"
"$tk" record -q "$d/fifo2" -o "$d/int.tks" &
pid=$!
exec 3> "$d/fifo2"
cat "$d/part1" >&3
wait_size "$d/int.tks" $((half - 300))
kill -INT "$pid"
wait "$pid"
pid=
exec 3>&-
"$tk" info "$d/int.tks" > "$d/int.info"
grep -q 'stream_end stopped by a signal' "$d/int.info"
[ "$(ls "$d" | grep -c '^int')" -eq 2 ]

# 7. SIGTERM while OUT (a FIFO nobody reads) takes no more: the capture
# stops with one line, where it used to retry the write for ever
mkfifo "$d/outfifo"
exec 4<> "$d/outfifo"   # a reader that never reads
for i in 1 2 3 4 5 6 7 8; do cat "$src"; done > "$d/big.tks"
"$tk" record -q "$d/big.tks" -o "$d/outfifo" 2> "$d/stall.err" &
pid=$!
i=0   # until the write waits on the full FIFO
until grep -q pipe "/proc/$pid/wchan" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || { echo "FAIL: record never waits on the full FIFO" >&2; exit 1; }
	sleep 0.05
done
kill -TERM "$pid"
i=0
while [ -r "/proc/$pid/stat" ] && ! awk '{ exit $3 != "Z" }' "/proc/$pid/stat"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "FAIL: record still blocked on OUT 5 s after SIGTERM" >&2; kill -9 "$pid"; exit 1; }
	sleep 0.05
done
if wait "$pid"; then
	echo "FAIL: record stopped on a blocked OUT exit 0" >&2; exit 1
fi
pid=
exec 4<&-
[ "$(wc -l < "$d/stall.err")" -eq 1 ] &&
	grep -q 'outfifo: error: the output takes no more; stopped by a signal' "$d/stall.err"
