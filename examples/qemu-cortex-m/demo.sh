#!/bin/sh
# The recorder on an emulated Cortex-M3 (`make qemu-demo`): build the
# firmware twice with arm-none-eabi-gcc, run each build in qemu-system-arm
# (mps2-an385, -icount: reproducible times) under a bounded timeout, and
# read what it wrote with tracekit (info, check, stats):
#   OUT/trace.bin   the FTrace dump, by semihosting   (OUT/uart.bin: by UART)
#   OUT/trace.htf   the HTF binary mode, by semihosting (OUT/uart.htf)
#   OUT/fw-*.log    the firmware's console: jobs, interrupts, misses, drops,
#                   the measured cost of one event
# then print the cost of one event and the recorder's footprint.
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
cmp "$out/trace.bin" "$out/uart.bin"
cmp "$out/trace.htf" "$out/uart.htf"

[ "$quiet" = -q ] && exit 0

show() {
	echo "\$ tracekit $*"
	"$tk" "$@"
	echo
}
cat "$out/fw-ftrace.log" "$out/fw-htf.log"
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
echo "the cost of one event, counted by QEMU (instructions at 32 ns each):"
sed -n 's/^fw: cost of one /  /p' "$out/fw-ftrace.log" "$out/fw-htf.log"
echo "the recorder's footprint (arm-none-eabi-gcc -mcpu=cortex-m3 -O2; text = flash, data + bss = RAM, without the trace buffer):"
(cd "$out/rec" && arm-none-eabi-size FTrace.o FTrace_htf.o FTrace_cm.o) | sed 's/^/  /'
