#!/bin/sh
# The recorder on an emulated Cortex-M3 (`make qemu-demo`): build the
# firmware three times with arm-none-eabi-gcc, run each build in qemu-system-arm
# (mps2-an385, -icount: reproducible times) under a bounded timeout, and
# read what it wrote with tracekit (info, check, stats):
#   OUT/trace.bin   the FTrace dump, by semihosting   (OUT/uart.bin: by UART)
#   OUT/trace.htf   the HTF binary mode, by semihosting (OUT/uart.htf)
#   OUT/trace-user.bin  the FTrace dump of the build on the port's user
#                   clock (the dual timer 1, 16 bits down), by semihosting
#                   (OUT/uart-user.bin: by UART)
#   OUT/stream.tks  the stream build's stream (TKREC_STREAM 1) on the UART as
#                   it runs, captured by `tracekit record` from a FIFO; the
#                   same run's snapshot by semihosting: OUT/snapshot.bin
#   OUT/fw-*.log    the firmware's console: jobs, interrupts, misses, drops,
#                   the measured cost of one event
# then print the commands of the live view (tracekit live: the capture, or
# the firmware as it runs), the cost of one event and the recorder's footprint.
# Usage: demo.sh TRACEKIT OUT [-q]   (-q: only the files, no tracekit output)
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
case $tk in /*) ;; *) tk=$(pwd)/$tk ;; esac
# (not the flags of a make that runs the test suite around this)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$here" O="$out"

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
run ftrace uart.bin bin
run htf uart.htf htf
rm -f "$out/trace-user.bin"
run user uart-user.bin user.bin
cmp "$out/trace.bin" "$out/uart.bin"
cmp "$out/trace.htf" "$out/uart.htf"
cmp "$out/trace-user.bin" "$out/uart-user.bin"

# the stream build: the stream goes out on the UART as the firmware runs,
# into a FIFO that `tracekit record` reads; it must hold the events of the
# snapshot the same run dumps by semihosting at its end, one for one
rm -f "$out/uart.fifo" "$out/stream.tks" "$out/snapshot.bin" "$out/fw-stream.log"
mkfifo "$out/uart.fifo"
"$tk" record -q "$out/uart.fifo" -o "$out/stream.tks" &
rpid=$!
if ! (cd "$out" && timeout "$QEMU_TIMEOUT" qemu-system-arm -M mps2-an385 \
	-display none -monitor none -serial file:uart.fifo \
	-icount shift=5,align=off,sleep=off \
	-semihosting-config enable=on,target=native \
	-kernel fw-stream.elf > fw-stream.log 2>&1); then
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	echo "qemu-demo: the stream firmware failed (or timed out after ${QEMU_TIMEOUT}s):" >&2
	cat "$out/fw-stream.log" >&2
	exit 1
fi
wait "$rpid"
rm -f "$out/uart.fifo"
"$tk" cat "$out/stream.tks" > "$out/stream.cat" 2>/dev/null
"$tk" cat --from shark "$out/snapshot.bin" > "$out/snapshot.cat" 2>/dev/null
cmp "$out/stream.cat" "$out/snapshot.cat"

[ "$quiet" = -q ] && exit 0

show() {
	echo "\$ tracekit $*"
	"$tk" "$@"
	echo
}
cat "$out/fw-ftrace.log" "$out/fw-htf.log" "$out/fw-user.log" "$out/fw-stream.log"
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
show stats --unit us "$out/stream.tks"
echo "the stream captured by tracekit record holds the events of the stream run's snapshot, one for one"
echo "the live view of the capture (serves a page on 127.0.0.1 until Ctrl-C):"
echo "  $tk live $out/stream.tks"
echo "and of the firmware as it runs (the page waits for QEMU to open the FIFO):"
echo "  mkfifo $out/live.fifo && $tk live $out/live.fifo &"
echo "  (cd $out && qemu-system-arm -M mps2-an385 -display none -monitor none -serial file:live.fifo \\"
echo "     -icount shift=5,align=off,sleep=off -semihosting-config enable=on,target=native -kernel fw-stream.elf)"
echo
echo "the cost of one event, counted by QEMU (instructions at 32 ns each):"
sed -n 's/^fw: cost of one /  /p' "$out/fw-ftrace.log" "$out/fw-htf.log" "$out/fw-stream.log"
sed -n 's/^fw: cost of one ftrace event: .*(DWT clock), /  the user clock (dual timer 1, fw-user.elf): /p' "$out/fw-user.log"
echo "the recorder's footprint (arm-none-eabi-gcc -mcpu=cortex-m3 -O2; text = flash, data + bss = RAM, without the trace buffer):"
(cd "$out/rec" && arm-none-eabi-size FTrace.o FTrace_htf.o FTrace_cm.o) | sed 's/^/  /'
