#!/bin/sh
# recorder/FTrace_freertos.h compiled freestanding with the Cortex-M port
# (tests/recorder/freertos_hooks_cm.c: each FreeRTOS trace macro once), and
# what the object must hold: kernel_hooks defined, and calling the
# recorder's ipoint (FTrace_safe_ipoint, what TRACER_LOGEVENT calls); with STREAM 1 the task's name registered by
# tkrec_stream_name() too; for an Arm Cortex-M target, the IPSR read of
# TKREC_FREERTOS_IRQ() in traceISR_ENTER / traceISR_EXIT (one mrs each at
# least).
# Usage: freertos_cm.sh CC NM OBJDUMP|- STREAM SRCDIR RECORDER_DIR OUT.o [CFLAGS...]
set -u
cc=$1 nm=$2 objdump=$3 stream=$4 src=$5 rec=$6 out=$7
shift 7
"$cc" "$@" -std=c99 -ffreestanding -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -O2 -DFTRACE_PORT_CORTEX_M -DTKREC_STREAM="$stream" \
	-c -I"$rec" "$src/freertos_hooks_cm.c" -o "$out" || { echo "FAIL: does not compile"; exit 1; }
fail=0
syms=$("$nm" "$out") || { echo "FAIL: $nm $out"; exit 1; }
echo "$syms" | grep -q ' T kernel_hooks$' || { echo "FAIL: kernel_hooks not defined"; fail=1; }
echo "$syms" | grep -q ' U FTrace_safe_ipoint$' || { echo "FAIL: the hooks log no event (FTrace_safe_ipoint)"; fail=1; }
if [ "$stream" = 1 ]; then
	echo "$syms" | grep -q ' U tkrec_stream_name$' ||
		{ echo "FAIL: traceTASK_CREATE does not register the name (tkrec_stream_name)"; fail=1; }
fi
if [ "$objdump" != - ]; then
	n=$("$objdump" -d "$out" | grep -ci 'mrs[[:space:]].*ipsr')
	[ "$n" -ge 2 ] || { echo "FAIL: $n IPSR reads (traceISR_ENTER and _EXIT read one each)"; fail=1; }
	echo "IPSR reads: $n"
fi
[ $fail = 0 ] && echo "ok: $(basename "$cc") STREAM=$stream"
exit $fail
