#!/bin/sh
# The CLI reads a captured recorder stream (written by recorder.stream) as
# it reads the snapshot of the same run: info names the format and its
# stream parameters, cat prints the same events, stats the same figures,
# with the names the stream registered where the snapshot has task<pid>
# and IRQ<n>.
# Usage: stream_cli.sh TRACEKIT DIR
set -eu
tk=$1
dir=$2
"$tk" info "$dir/stream.tks" > "$dir/stream.info"
grep -q 'ftstream' "$dir/stream.info"
grep -q 'name.task4.*control' "$dir/stream.info"
# the snapshot's names as the stream gives them (stats: the columns as wide
# as the names, the rows in their order)
names() {
	sed -e 's/task3\([^0-9]\|$\)/idle\1/g' -e 's/task4\([^0-9]\|$\)/control\1/g' \
	    -e 's/task5\([^0-9]\|$\)/comms\1/g' -e 's/IRQ11\([^0-9]\|$\)/USART1\1/g'
}
"$tk" cat "$dir/snapshot.bin" | names > "$dir/snapshot.cat"
"$tk" cat "$dir/stream.tks" > "$dir/stream.cat"
grep -q ',T,control,' "$dir/stream.cat"
grep -q ',I,USART1,' "$dir/stream.cat"
cmp "$dir/snapshot.cat" "$dir/stream.cat"
"$tk" stats "$dir/snapshot.bin" 2>/dev/null | names | tr -s " " | sort > "$dir/snapshot.stats"
"$tk" stats "$dir/stream.tks" 2>/dev/null | tr -s " " | sort > "$dir/stream.stats"
cmp "$dir/snapshot.stats" "$dir/stream.stats"
# a stream joined late (its first 1000 bytes gone) is read from its next sync
tail -c +1001 "$dir/stream.tks" > "$dir/stream_cut.tks"
"$tk" info "$dir/stream_cut.tks" 2> "$dir/stream_cut.err" > /dev/null
grep -q 'before its first sync record' "$dir/stream_cut.err"
if "$tk" --strict info "$dir/stream_cut.tks" > /dev/null 2>&1; then
	echo "strict read a stream that does not start with a sync" >&2
	exit 1
fi
# printf events (printf.tks, written by recorder.stream): cat's BTF line has
# the text as its note, on the channel named "log"; info lists the formats;
# a conversion to another format keeps the text as the note
"$tk" cat "$dir/printf.tks" 2> /dev/null > "$dir/printf.cat"
grep -q ',EVENT,log,0,user_event_2,x=-42 y=4294967254 h=0000beef c=A 100%$' "$dir/printf.cat"
grep -q ',EVENT,log,0,user_event_2,<no format 9> 1 2$' "$dir/printf.cat"
"$tk" info "$dir/printf.tks" 2> /dev/null | grep -q 'format.2 w=\[%5d\]'
"$tk" convert "$dir/printf.tks" "$dir/printf.json" 2> /dev/null
grep -q 'w=\[   17\] l=\[-3  \] z=\[-0012\] p=+5' "$dir/printf.json"
