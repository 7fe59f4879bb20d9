#!/bin/sh
# The Cortex-M port's BASEPRI option (recorder/ports/cortex-m/FTrace_cm.h):
# built with TKREC_CM_BASEPRI for a Cortex-M3, the recorder's sections
# raise BASEPRI (msr basepri_max) and never mask with PRIMASK (cpsid);
# built without it, they use PRIMASK and never touch BASEPRI; for a
# Cortex-M0 (no BASEPRI) and with a value 0 the option is refused.
# Usage: basepri_cm.sh ARM_CC ARM_OBJDUMP RECORDER_DIR OUTDIR
set -u
cc=$1 objdump=$2 rec=$3 out=$4
mkdir -p "$out"
fail=0
build() {
	"$cc" "$@" -mthumb -std=c99 -ffreestanding -Wall -Wextra -Werror -Wshadow \
		-Wstrict-prototypes -Wmissing-prototypes -Wvla -O2 -DFTRACE_PORT_CORTEX_M -c \
		-I"$rec" "$rec/FTrace.c" -o "$out/FTrace_bp.o" 2> "$out/bp.err"
}
count() { "$objdump" -d "$out/FTrace_bp.o" | grep -ci "$1"; }
if build -mcpu=cortex-m3 -DTKREC_CM_BASEPRI=0x40; then
	n=$(count 'msr[[:space:]]*basepri_max') c=$(count 'cpsid')
	[ "$n" -ge 2 ] && [ "$c" = 0 ] ||
		{ echo "FAIL: BASEPRI build: $n msr basepri_max, $c cpsid"; fail=1; }
	echo "BASEPRI build: $n sections raise BASEPRI, $c cpsid"
else
	echo "FAIL: the BASEPRI build does not compile:"; cat "$out/bp.err"; fail=1
fi
if build -mcpu=cortex-m3; then
	n=$(count '\(msr\|mrs\)[[:space:]].*basepri') c=$(count 'cpsid')
	[ "$n" = 0 ] && [ "$c" -ge 2 ] ||
		{ echo "FAIL: PRIMASK build: $n BASEPRI accesses, $c cpsid"; fail=1; }
else
	echo "FAIL: the PRIMASK build does not compile:"; cat "$out/bp.err"; fail=1
fi
if build -mcpu=cortex-m0 -DTKREC_CM_BASEPRI=0x40 || ! grep -q 'no BASEPRI' "$out/bp.err"; then
	echo "FAIL: TKREC_CM_BASEPRI accepted for a Cortex-M0"; fail=1
fi
if build -mcpu=cortex-m3 -DTKREC_CM_BASEPRI=0 || ! grep -q 'mask nothing' "$out/bp.err"; then
	echo "FAIL: TKREC_CM_BASEPRI=0 accepted"; fail=1
fi
[ $fail = 0 ] && echo ok
exit $fail
