#!/bin/sh
# Instructions per TRACER_LOGEVENT on the host port, counted by callgrind
# (repeatable).  The bench gives its own port: the clock is a counter
# (one add, in the count: the real clock read is excluded from the target),
# the section a compiler barrier, core 0.  Counted: the inclusive cost of a
# non-inlined function that does one TRACER_LOGEVENT, less that of an empty
# one (the call itself).  Target: <= 40.
# Usage: bash bench/recorder.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bench.c" <<'C'
#include <stdint.h>
static uint64_t t;
#define FTRACE_PORT_TSC() (t += 3)
#define FTRACE_PORT_IRQ_SAVE() 0u
#define FTRACE_PORT_IRQ_RESTORE(s) ((void)(s))
#define FTRACE_PORT_CORE() 0u
#include "FTrace.h"
static unsigned char bench_mem[1 << 20];
__attribute__((noinline)) void one(unsigned i);
__attribute__((noinline)) void one(unsigned i) { TRACER_LOGEVENT(FTrace_EVT_task_activate, i, i); }
__attribute__((noinline)) void none(unsigned i);
__attribute__((noinline)) void none(unsigned i) { __asm volatile("" : : "r"(i)); }
int main(void)
{
	unsigned i;
	tkrec_init(bench_mem, sizeof(bench_mem));
	FTrace_actual_chunk_select(FTrace_chunk_create(4096 * 16, 0, FTRACE_CHUNK_FLAG_FREE));
	FTrace_enable();
	for (i = 0; i < 100000; i++) {
		one(i);
		none(i);
	}
	return 0;
}
C
# one translation unit: the port macros must be seen by FTrace.c
printf '#include "%s/recorder/FTrace.c"\n' "$root" >> "$tmp/bench.c"
gcc -std=c99 -O2 -g -I"$root/recorder" "$tmp/bench.c" -o "$tmp/bench"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/bench" > /dev/null 2>&1
callgrind_annotate --inclusive=yes "$tmp/cg.out" > "$tmp/ann.txt"
# inclusive cost of one() and of the empty none(), per call
incl=$(grep -E ' (\*  )?[^ ]*:one ' "$tmp/ann.txt" | head -1 | awk '{gsub(",","",$1); print $1}')
empty=$(grep -E ' (\*  )?[^ ]*:none ' "$tmp/ann.txt" | head -1 | awk '{gsub(",","",$1); print $1}')
echo "TRACER_LOGEVENT: $(( (incl - empty) / 100000 )) instructions per event (host port, the call's own cost and the counter clock included: $(( incl / 100000 )) - $(( empty / 100000 )))"
