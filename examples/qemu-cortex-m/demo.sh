#!/bin/sh
# The recorder on an emulated Cortex-M3 (`make qemu-demo`): build the
# firmware four times with arm-none-eabi-gcc, run each build in
# qemu-system-arm (mps2-an385, -icount: reproducible times) under a
# bounded timeout, and read what it wrote with tracekit (info, check,
# stats):
#   OUT/trace.bin   the FTrace dump, by semihosting   (OUT/uart.bin: by UART)
#   OUT/trace.htf   the HTF binary mode, by semihosting (OUT/uart.htf)
#   OUT/trace-user.bin  the FTrace dump of the build on the port's user
#                   clock (the dual timer 1, 16 bits down), by semihosting
#                   (OUT/uart-user.bin: by UART)
#   OUT/stream.tks  the stream build's stream (TKREC_STREAM 1) on the UART as
#                   it runs (STREAM_MS ticks of 1 ms: 3 s by default; the
#                   other builds run 100 ms), captured by `tracekit record`
#                   from a FIFO; the same run's snapshot by semihosting:
#                   OUT/snapshot.bin
#   OUT/fw-*.log    the firmware's console: jobs, interrupts, misses, drops,
#                   the measured cost of one event
# The three snapshot builds run as fast as QEMU goes.  The stream build
# runs in real time (-icount align=on: an instruction is 32 ns of the
# host's time too) while `tracekit live` serves the page of the capture
# as `tracekit record` writes it (on 127.0.0.1, a free port; its URL is
# printed before the firmware starts).  The capture must hold the
# events of the run's snapshot, one for one, and `tracekit diff` prints
# their figures side by side: they must be the same.  Then the cost of
# one event and the recorder's footprint.  On a terminal, the demo waits
# for Enter before the stream build starts (time to open the page) and
# serves the page after the run until Enter (Ctrl-C too, which make
# reports as an interrupt); else the server stops at the end.
# Usage: demo.sh TRACEKIT OUT [-q]   (-q: only the files: no tracekit
#        output, no live view, the stream build not paced)
# Exit 77 when the toolchain or QEMU is missing.
set -eu
tk=$1
out=$2
quiet=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
# an instruction takes 2^5 = 32 ns of virtual time: 31.25 M instructions
# a second on the board's 25 MHz clock; the idle thread never sleeps, so
# the guest's time is its instruction count
QEMU_TIMEOUT=${QEMU_TIMEOUT:-60}
# the stream build's run, in ticks of 1 ms
stream_ms=${STREAM_MS:-3000}
case $stream_ms in
'' | *[!0-9]* | 0*)
	echo "qemu-demo: STREAM_MS: expected a number of milliseconds, not '$stream_ms'" >&2
	exit 2
	;;
esac
secs=$(awk "BEGIN { print $stream_ms / 1000 }")
# on a terminal: wait for Enter before the stream build, serve the live
# view after it until Enter
interactive=
if [ "$quiet" != -q ] && [ -t 0 ] && [ -t 1 ]; then
	interactive=1
fi

for tool in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm make; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "qemu-demo: $tool is not installed (scripts/install-deps.sh with TK_QEMU_DEPS=1 installs gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)" >&2
		exit 77
	fi
done
if ! echo 'int main(void){return 0;}' |
	arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb --specs=rdimon.specs -x c - -o /dev/null 2>/dev/null; then
	echo "qemu-demo: arm-none-eabi-gcc has no C library (libnewlib-arm-none-eabi is not installed)" >&2
	exit 77
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
tk=$(cd "$(dirname "$tk")" && pwd)/$(basename "$tk")
# (not the flags of a make that runs the test suite around this)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$here" O="$out" STREAM_MS="$stream_ms"

# what this script starts in the background, ended on the way out (an
# error, Ctrl-C, the end)
qpid='' rpid='' lpid=''
cleanup() {
	for p in $qpid $rpid $lpid; do
		kill "$p" 2>/dev/null || :
	done
	for p in $qpid $rpid $lpid; do
		wait "$p" 2>/dev/null || :
	done
	rm -f "$out/uart.fifo"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() {
	[ "$quiet" = -q ] || echo "$@"
}
show() {
	echo "\$ tracekit $*"
	"$tk" "$@"
	echo
}

# run one build: the semihosting files land in QEMU's working directory
run() {
	fw=$1 uart=$2
	rm -f "$out/$uart" "$out/trace.${3}" "$out/fw-$fw.log"
	if ! (cd "$out" && timeout "$QEMU_TIMEOUT" qemu-system-arm -M mps2-an385 \
		-display none -monitor none -serial "file:$uart" \
		-icount shift=5,align=off,sleep=off \
		-semihosting-config enable=on,target=native \
		-kernel "fw-$fw.elf" > "fw-$fw.log" 2>&1); then
		echo "qemu-demo: the $fw firmware failed (or timed out after ${QEMU_TIMEOUT}s):" >&2
		cat "$out/fw-$fw.log" >&2
		exit 1
	fi
}
say "qemu-demo: the FTrace, HTF and user-clock builds run 100 ms each, as fast as QEMU goes"
run ftrace uart.bin bin
run htf uart.htf htf
rm -f "$out/trace-user.bin"
run user uart-user.bin user.bin
cmp "$out/trace.bin" "$out/uart.bin"
cmp "$out/trace.htf" "$out/uart.htf"
cmp "$out/trace-user.bin" "$out/uart-user.bin"
[ "$quiet" = -q ] || cat "$out/fw-ftrace.log" "$out/fw-htf.log" "$out/fw-user.log"

# the stream build: the stream goes out on the UART as the firmware runs,
# into a FIFO that `tracekit record` reads; it must hold the events of the
# snapshot the same run dumps by semihosting at its end, one for one.
# Not quiet, it runs in real time: QEMU sleeps whenever the guest's time
# gets ahead of the host's (align=on, which QEMU takes with sleep=on
# only: the idle thread never sleeps, so the times are those of
# sleep=off), and `tracekit live` follows the capture as it grows
rm -f "$out/uart.fifo" "$out/stream.tks" "$out/snapshot.bin" "$out/fw-stream.log" \
	"$out/qemu-stream.log" "$out/record.log" "$out/live.url"
mkfifo "$out/uart.fifo"
icount=shift=5,align=off,sleep=off
url=''
if [ "$quiet" != -q ]; then
	icount=shift=5,align=on,sleep=on
	: > "$out/stream.tks"
	"$tk" live -q --interval 500 "$out/stream.tks" > "$out/live.url" &
	lpid=$!
	n=0
	while [ ! -s "$out/live.url" ]; do
		n=$((n + 1))
		if ! kill -0 "$lpid" 2>/dev/null || [ "$n" -gt 100 ]; then
			echo "qemu-demo: tracekit live did not start" >&2
			exit 1
		fi
		sleep 0.1
	done
	url=$(head -n 1 "$out/live.url")
	echo
	echo "qemu-demo: the stream build runs $secs s in real time; tracekit record captures its stream"
	echo "from the UART (a FIFO) into $out/stream.tks"
	echo "the live view of the capture, updating while the firmware runs: $url"
	if [ -n "$interactive" ]; then
		printf 'open it in a browser, then press Enter to start the firmware: '
		read -r _ || echo
	fi
fi
"$tk" record "$out/uart.fifo" -o "$out/stream.tks" 2> "$out/record.log" &
rpid=$!
(cd "$out" && exec timeout $((QEMU_TIMEOUT + stream_ms / 1000)) qemu-system-arm -M mps2-an385 \
	-display none -monitor none -serial file:uart.fifo \
	-icount "$icount" \
	-semihosting-config enable=on,target=native \
	-kernel fw-stream.elf > qemu-stream.log 2> fw-stream.log) &
qpid=$!
st=0
wait "$qpid" || st=$?
qpid=''
if [ "$st" != 0 ]; then
	echo "qemu-demo: the stream firmware failed (or timed out after $((QEMU_TIMEOUT + stream_ms / 1000))s):" >&2
	cat "$out/qemu-stream.log" "$out/fw-stream.log" >&2
	exit 1
fi
st=0
wait "$rpid" || st=$?
rpid=''
rm -f "$out/uart.fifo"
if [ "$st" != 0 ]; then
	echo "qemu-demo: tracekit record failed:" >&2
	cat "$out/record.log" >&2
	exit 1
fi
"$tk" cat "$out/stream.tks" > "$out/stream.cat" 2>/dev/null
"$tk" cat --from shark "$out/snapshot.bin" > "$out/snapshot.cat" 2>/dev/null
if ! cmp "$out/stream.cat" "$out/snapshot.cat"; then
	echo "qemu-demo: the stream captured is not the run's snapshot (tracekit cat differs)" >&2
	exit 1
fi
# the figures: every row of stats the same (threshold 0: any change is
# listed)
st=0
"$tk" diff -q "$out/snapshot.bin" "$out/stream.tks" > "$out/diff.txt" || st=$?
if [ "$st" != 0 ] || ! grep -qx '(no change beyond the threshold)' "$out/diff.txt"; then
	echo "qemu-demo: the stream's figures are not the snapshot's (tracekit diff, exit $st):" >&2
	cat "$out/diff.txt" >&2
	exit 1
fi

[ "$quiet" = -q ] && exit 0

cat "$out/fw-stream.log"
sed 's/^record: [^:]*: /tracekit record: /' "$out/record.log"
# (QEMU's own messages, on its stdout: the semihosting console is its
# stderr; "Warning: The guest is now late by 1.0 to 2.0 seconds" when the
# host cannot keep the pace)
late=$(sed -n 's/.*The guest is now late by .* to \([0-9.]*\) seconds.*/\1/p' "$out/qemu-stream.log" | tail -n 1)
if [ -n "$late" ]; then
	echo "(this host did not keep QEMU at real time all along: the firmware ran behind, by less than $late s)"
fi
if grep -v 'The guest is now late' "$out/qemu-stream.log" | grep -q .; then
	cat "$out/qemu-stream.log"
fi
echo
for f in "$out/trace.bin" "$out/trace.htf"; do
	from=
	case $f in *.bin) from="--from shark" ;; esac
	# shellcheck disable=SC2086
	show info $from "$f"
	# shellcheck disable=SC2086
	show check $from "$f"
	# shellcheck disable=SC2086
	show stats $from --unit us "$f"
done
show info "$out/stream.tks"
echo "the stream captured by tracekit record holds the events of the run's snapshot, one for one;"
echo "their figures side by side (snapshot.bin -> stream.tks; every metric: tracekit diff --all):"
show diff --all --unit us --metric CET,RT,PER "$out/snapshot.bin" "$out/stream.tks"
echo "the figures match: tracekit diff finds no row of stats that differs"
echo
echo "the cost of one event, counted by QEMU (instructions at 32 ns each):"
sed -n 's/^fw: cost of one /  /p' "$out/fw-ftrace.log" "$out/fw-htf.log" "$out/fw-stream.log"
sed -n 's/^fw: cost of one ftrace event: .*(DWT clock), /  the user clock (dual timer 1, fw-user.elf): /p' "$out/fw-user.log"
echo "the recorder's footprint (arm-none-eabi-gcc -mcpu=cortex-m3 -O2; text = flash, data + bss = RAM, without the trace buffer):"
(cd "$out/rec" && arm-none-eabi-size FTrace.o FTrace_htf.o FTrace_cm.o) | sed 's/^/  /'
echo
if [ -n "$interactive" ]; then
	printf 'the live view still serves the capture: %s (press Enter to stop) ' "$url"
	trap 'echo; exit 0' INT
	read -r _ || echo
	kill "$lpid" 2>/dev/null || :
	wait "$lpid" || :
	lpid=
else
	# (the page says the capture ended when live next looks at it, at
	# most an interval after record ended it: a viewer still open sees
	# the end)
	n=0
	while [ "$n" -lt 100 ]; do
		if command -v curl > /dev/null 2>&1; then
			curl -s "${url}status.json" 2>/dev/null | grep -q '"state":"ended"' && break
		elif [ "$n" -ge 20 ]; then
			break
		fi
		n=$((n + 1))
		sleep 0.1
	done
	# (and a moment for a page that polls to see it)
	sleep 0.5
	kill "$lpid"
	wait "$lpid" || :
	lpid=''
	echo "the live view has stopped (not on a terminal); to serve the capture again:"
	echo "  $tk live $out/stream.tks"
fi
