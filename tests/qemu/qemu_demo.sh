#!/bin/sh
# The recorder on an emulated Cortex-M3 (examples/qemu-cortex-m/demo.sh):
# the firmware's two builds run in QEMU and tracekit must find in their
# recordings what the firmware was configured to do (check_run.py).
# Skipped (77) only where arm-none-eabi-gcc, its C library or
# qemu-system-arm is not installed.
# Usage: qemu_demo.sh TRACEKIT WORKDIR
set -eu
tk=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
st=0
sh "$here/../../examples/qemu-cortex-m/demo.sh" "$tk" "$dir" -q || st=$?
if [ "$st" = 77 ]; then
	echo "SKIP: the Cortex-M toolchain or QEMU is not installed; TK_QEMU_DEPS=1 sh scripts/install-deps.sh installs them"
	exit 77
fi
[ "$st" = 0 ] || exit "$st"
python3 "$here/check_run.py" "$tk" "$dir"
