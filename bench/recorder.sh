#!/bin/bash
# Instructions per log call of the FTrace recorder, counted by callgrind
# (repeatable, so one run is the median), and a peer measured in the same
# run.  The bench gives its own port: the clock is a counter (one add, in
# the count: the real clock read is excluded from the target), the section
# is empty (on a target it is PRIMASK: mrs / cpsid / msr), core 0.  Counted:
# the inclusive cost of a non-inlined function doing one call, less that of
# an empty one (the call itself).
#
# Rows:
#   TRACER_LOGEVENT                  target <= 40
#   FAST_TRACER_LOGEVENT             (no enable / filter test)
#   HTF binary mode, widths 4/2/1    tkrec_htf_log (no target; the figure)
#   HTF binary mode, widths 8/8/8
#   peer: a bare 16-byte store       the floor of any recorder: counter,
#                                    bounds test, four stores, advance
#   TKREC_STREAM: chunk + stream     the snapshot record and the compact one
#   TKREC_STREAM: stream only        the compact record alone (no chunk);
#                                    its ratio to TRACER_LOGEVENT (the
#                                    target is the target's: below)
#   TKREC_STREAM: stream off         a streaming build's snapshot call with
#                                    the stream never started
# and, wall time on the real host port (its section blocks signals with two
# pthread_sigmask calls), the median of 5 timings of 1e6 TRACER_LOGEVENT;
# the stream's bytes per event; the events per CPU second (and per wall
# second) tracekit decodes from a pipe (tracekit info -, a generated stream
# of 2e6 events).
#
# And, where arm-none-eabi-gcc and qemu-system-arm are installed, the
# instructions of one event on a Cortex-M3 in QEMU (the firmware of
# examples/qemu-cortex-m/ counts them, DWT and SysTick clocks): ftrace,
# stream off, stream-only (target <= 1.3 x ftrace), chunk+stream.  The
# 1.3 x target is the target's cost: it is checked there.  On the host the
# bench's clock is one add and its section none, so the snapshot call is
# little more than its store and the ratio is larger: it is printed, not
# checked.
#
# Usage: bash bench/recorder.sh      (needs valgrind; writes bench/out/)
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
bench_init recorder
command -v valgrind > /dev/null || bench_die "valgrind is needed"
tmp="$OUT/recorder"
mkdir -p "$tmp"

cat > "$tmp/bench.c" <<'C'
#include <stdint.h>
static uint64_t t;
#define FTRACE_PORT_TSC() (t += 3)
#define FTRACE_PORT_IRQ_SAVE() 0u
#define FTRACE_PORT_IRQ_RESTORE(s) ((void)(s))
#define FTRACE_PORT_CORE() 0u
#include "FTrace.h"
#include "FTrace_htf.h"
#define N 100000
static unsigned char bench_mem[1 << 21];
static unsigned char htf_a[N * 7], htf_b[N * 24];
static unsigned char floor_mem[N * 16 + 16];
static unsigned char *floor_pos = floor_mem, *floor_end = floor_mem + N * 16;
#define NOINLINE __attribute__((noinline))
NOINLINE void one(unsigned i);
NOINLINE void one(unsigned i) { TRACER_LOGEVENT(FTrace_EVT_task_activate, i, i); }
NOINLINE void fast(unsigned i);
NOINLINE void fast(unsigned i) { FAST_TRACER_LOGEVENT(FTrace_EVT_task_activate, i, i); }
NOINLINE void htf(unsigned i);
NOINLINE void htf(unsigned i) { TRACER_HTF_LOGEVENT(i & 0xff, 1); }
NOINLINE void htf8(unsigned i);
NOINLINE void htf8(unsigned i) { TRACER_HTF_LOGEVENT(i & 0xfff, 2); }
NOINLINE void floor16(unsigned i);
NOINLINE void floor16(unsigned i)
{
	uint32_t w[4];
	uint64_t ts = (t += 3);
	unsigned char *p = floor_pos;

	if (p >= floor_end)
		return;
	w[0] = i << 16 | 0x12u;
	w[1] = (uint32_t)(ts >> 32);
	w[2] = (uint32_t)ts;
	w[3] = i;
	__builtin_memcpy(p, w, 16);
	floor_pos = p + 16;
}
NOINLINE void none(unsigned i);
NOINLINE void none(unsigned i) { __asm volatile("" : : "r"(i)); }
int main(void)
{
	unsigned i;
	tkrec_init(bench_mem, sizeof(bench_mem));
	FTrace_actual_chunk_select(FTrace_chunk_create(N * 16, 0, FTRACE_CHUNK_FLAG_FREE));
	FTrace_enable();
	for (i = 0; i < N; i++) {
		one(i);
		none(i);
	}
	FTrace_set_chunk_flags(0, FTRACE_CHUNK_FLAG_FREE);
	FTrace_actual_chunk_select(0);
	for (i = 0; i < N; i++)
		fast(i);
	tkrec_htf_reset(0);
	tkrec_htf_core_init(0, htf_a, sizeof(htf_a), 4, 2, 1);
	for (i = 0; i < N; i++)
		htf(i);
	tkrec_htf_core_init(0, htf_b, sizeof(htf_b), 8, 8, 8);
	for (i = 0; i < N; i++)
		htf8(i);
	for (i = 0; i < N; i++)
		floor16(i);
	return tkrec_lost() + tkrec_htf_lost() != 0;
}
C
# one translation unit: the port macros must be seen by the recorder
printf '#include "%s/recorder/FTrace.c"\n#include "%s/recorder/FTrace_htf.c"\n' "$ROOT" "$ROOT" >> "$tmp/bench.c"
"$CC" -std=gnu99 -O2 -g -I"$ROOT/recorder" "$tmp/bench.c" -o "$tmp/bench"
"$tmp/bench" || bench_die "the bench program lost events"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/bench" > /dev/null 2>&1
callgrind_annotate --inclusive=yes "$tmp/cg.out" > "$tmp/ann.txt"
# inclusive cost of a function over its N calls
# (the largest of the lines that name it: callgrind_annotate lists a
# function's self cost too, first when its inclusive cost is below the
# list's threshold)
incl() { grep -E " (\*  )?(=> )?[^ ]*:$1 " "$tmp/ann.txt" | awk '{ v = $1; if (v == "=>") v = $2; gsub(",", "", v); if (v + 0 > m) m = v + 0 } END { print m + 0 }'; }
empty=$(incl none)
per() { awk -v a="$(incl "$1")" -v e="$empty" 'BEGIN { printf("%.1f", (a - e) / 100000) }'; }

# wall time on the real host port (section = two pthread_sigmask calls)
cat > "$tmp/host.c" <<'C'
#define _POSIX_C_SOURCE 200809L
#include "FTrace_host.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static uint64_t c;
uint64_t tkrec_host_tsc(void) { return c += 3; }
static unsigned char mem[(1 << 18) * 16 + 64];
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	double ns[5];
	int r, i, n = 1 << 18;
	for (r = 0; r < 5; r++) {
		struct timespec a, b;
		tkrec_init(mem, sizeof(mem));
		FTrace_actual_chunk_select(FTrace_chunk_create(n * 16, 0, FTRACE_CHUNK_FLAG_FREE));
		FTrace_enable();
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < n; i++)
			TRACER_LOGEVENT(FTrace_EVT_task_activate, i, i);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns[r] = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
	}
	qsort(ns, 5, sizeof(ns[0]), cmp);
	printf("%.1f\n", ns[2]);
	return 0;
}
C
"$CC" -std=c11 -O2 -I"$ROOT/recorder" -I"$ROOT/recorder/host" "$tmp/host.c" \
	"$ROOT/recorder/FTrace.c" "$ROOT/recorder/host/FTrace_host.c" -o "$tmp/host" -lpthread
host_ns=$("$tmp/host")

# streaming (TKREC_STREAM 1): the same call with a chunk and the stream
# (snapshot + streaming), and with the stream alone (compact records
# only); the transport is called when the recorder drains (a quarter of
# the ring used) and takes every byte (its cost in the count); syncs every
# 1024 bytes, in the count too; bytes per event of the stream
cat > "$tmp/bench_stream.c" <<'C'
#include <stdint.h>
static uint64_t t;
#define FTRACE_PORT_TSC() (t += 3)
#define FTRACE_PORT_IRQ_SAVE() 0u
#define FTRACE_PORT_IRQ_RESTORE(s) ((void)(s))
#define FTRACE_PORT_CORE() 0u
#define TKREC_STREAM 1
#include "FTrace.h"
#include <stdio.h>
#define N 100000
static unsigned char bench_mem[1 << 21], ring[4096];
static unsigned long long streamed;
#define NOINLINE __attribute__((noinline))
NOINLINE static size_t take(const void *b, size_t n) { (void)b; streamed += n; return n; }
NOINLINE void both(unsigned i);
NOINLINE void both(unsigned i) { TRACER_LOGEVENT(FTrace_EVT_task_activate, i & 0xff, i & 0xff); }
NOINLINE void compact(unsigned i);
NOINLINE void compact(unsigned i) { TRACER_LOGEVENT(FTrace_EVT_task_activate, i & 0xff, i & 0xff); }
NOINLINE void off(unsigned i);
NOINLINE void off(unsigned i) { TRACER_LOGEVENT(FTrace_EVT_task_activate, i, i); }
NOINLINE void none(unsigned i);
NOINLINE void none(unsigned i) { __asm volatile("" : : "r"(i)); }
int main(void)
{
	unsigned i;
	tkrec_init(bench_mem, sizeof(bench_mem));
	FTrace_actual_chunk_select(FTrace_chunk_create(N * 16, 0, FTRACE_CHUNK_FLAG_FREE));
	FTrace_enable();
	for (i = 0; i < N; i++)
		off(i);
	tkrec_init(bench_mem, sizeof(bench_mem));
	FTrace_actual_chunk_select(FTrace_chunk_create(N * 16, 0, FTRACE_CHUNK_FLAG_FREE));
	tkrec_stream_init(ring, sizeof(ring), take, 72000, 1024);
	tkrec_stream_name(TKREC_NAME_TASK, 3, "control");
	FTrace_enable();
	for (i = 0; i < N; i++) {
		both(i);
		none(i);
	}
	tkrec_stream_stop();
	tkrec_init(bench_mem, sizeof(bench_mem));
	streamed = 0;
	tkrec_stream_init(ring, sizeof(ring), take, 72000, 1024);
	tkrec_stream_name(TKREC_NAME_TASK, 3, "control");
	FTrace_enable();
	for (i = 0; i < N; i++)
		compact(i);
	tkrec_stream_stop();
	/* bytes per event: syncs and names included */
	printf("%.2f\n", (double)streamed / N);
	return tkrec_lost() + tkrec_stream_lost() != 0;
}
C
printf '#include "%s/recorder/FTrace.c"\n' "$ROOT" >> "$tmp/bench_stream.c"
"$CC" -std=gnu99 -O2 -g -I"$ROOT/recorder" "$tmp/bench_stream.c" -o "$tmp/bench_stream"
stream_bytes=$("$tmp/bench_stream") || bench_die "the stream bench program lost events"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cgs.out" "$tmp/bench_stream" > /dev/null 2>&1
callgrind_annotate --inclusive=yes "$tmp/cgs.out" > "$tmp/anns.txt"
incls() { grep -E " (\*  )?(=> )?[^ ]*:$1 " "$tmp/anns.txt" | awk '{ v = $1; if (v == "=>") v = $2; gsub(",", "", v); if (v + 0 > m) m = v + 0 } END { print m + 0 }'; }
emptys=$(incls none)
pers() { awk -v a="$(incls "$1")" -v e="$emptys" 'BEGIN { printf("%.1f", (a - e) / 100000) }'; }

# the host's decode rate from a pipe: a stream of 2,000,000 events
# (tests/formats/ftstream/make_cases.py --gen) read by tracekit info from
# standard input; the median of 3
python3 "$ROOT/tests/formats/ftstream/make_cases.py" --gen 2000000 "$tmp/big.tks"
big_bytes=$(wc -c < "$tmp/big.tks")
# events per CPU second (user + system of the pipe; the wall time of a
# shared machine says little) and per wall second
rates="" walls=""
for r in 1 2 3; do
	a=$(date +%s.%N)
	cpu=$( { TIMEFORMAT='%U %S'; time (cat "$tmp/big.tks" | "$TRACEKIT" info - > /dev/null 2>&1); } 2>&1 )
	b=$(date +%s.%N)
	rates="$rates $(echo "$cpu" | awk '{ printf("%.0f", 2000000 / ($1 + $2)) }')"
	walls="$walls $(awk -v a="$a" -v b="$b" 'BEGIN { printf("%.0f", 2000000 / (b - a)) }')"
done
decode=$(printf '%s\n' $rates | sort -n | sed -n 2p)
decode_wall=$(printf '%s\n' $walls | sort -n | sed -n 2p)
decode_mb=$(awk -v r="$decode" -v n="$big_bytes" 'BEGIN { printf("%.1f", r * n / 2000000 / 1e6) }')

logevent=$(per one)
verdict=PASS
awk -v x="$logevent" 'BEGIN { exit !(x <= 40) }' || { verdict=FAIL; FAILED=1; }
# the stream's target: the stream alone at most 1.3 x the snapshot's call
stream_only=$(pers compact)
stream_ratio=$(awk -v s="$stream_only" -v l="$logevent" 'BEGIN { printf("%.2f", s / l) }')
sverdict="($stream_ratio x; the 1.3 x target: the Cortex-M3 rows)"
echo
echo "FTrace recorder: instructions per log call (callgrind, host build -O2, $(($(nproc))) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
echo "counted: the call and a counter standing in for the clock; the real clock read and section are the port's"
echo
printf '%-44s %14s   %-10s %s\n' "call" "instructions" "target" "result"
printf '%s\n' "--------------------------------------------------------------------------------"
printf '%-44s %14s   %-10s %s\n' "TRACER_LOGEVENT" "$logevent" "<= 40" "$verdict"
printf '%-44s %14s   %-10s %s\n' "FAST_TRACER_LOGEVENT" "$(per fast)" "" ""
printf '%-44s %14s   %-10s %s\n' "TRACER_HTF_LOGEVENT, widths 4/2/1 (7 B)" "$(per htf)" "" ""
printf '%-44s %14s   %-10s %s\n' "TRACER_HTF_LOGEVENT, widths 8/8/8 (24 B)" "$(per htf8)" "" ""
printf '%-44s %14s   %-10s %s\n' "peer: bare 16-byte record store" "$(per floor16)" "" "(peer)"
printf '%-44s %14s   %-10s %s\n' "TRACER_LOGEVENT, TKREC_STREAM: chunk + stream" "$(pers both)" "" ""
printf '%-44s %14s   %-10s %s\n' "TRACER_LOGEVENT, TKREC_STREAM: stream only" "$stream_only" "" "$sverdict"
printf '%-44s %14s   %-10s %s\n' "TRACER_LOGEVENT, stream build, stream off" "$(pers off)" "" ""
echo
echo "bytes per event: snapshot 16; stream $stream_bytes (task_activate, par1/par2 < 256, 3 cycles apart, syncs every 1024 bytes and a name included)"
echo "host decode from a pipe (tracekit info -, 2e6 events, $big_bytes bytes): $decode events per CPU second ($decode_mb MB/s), $decode_wall per wall second (load $(cut -d' ' -f1 /proc/loadavg)), medians of 3"
echo
echo "host port (section = 2 x pthread_sigmask), wall: median of 5 x 2^18 TRACER_LOGEVENT: $host_ns ns/event"

{
	printf 'call\tinstructions\ttarget\tresult\n'
	printf 'TRACER_LOGEVENT\t%s\t<= 40\t%s\n' "$logevent" "$verdict"
	printf 'FAST_TRACER_LOGEVENT\t%s\t\t\n' "$(per fast)"
	printf 'HTF 4/2/1\t%s\t\t\n' "$(per htf)"
	printf 'HTF 8/8/8\t%s\t\t\n' "$(per htf8)"
	printf 'peer bare store\t%s\t\t(peer)\n' "$(per floor16)"
	printf 'host port ns/event\t%s\t\t\n' "$host_ns"
	printf 'TKREC_STREAM chunk + stream\t%s\t\t\n' "$(pers both)"
	printf 'TKREC_STREAM stream only\t%s\t\t%s x TRACER_LOGEVENT\n' "$stream_only" "$stream_ratio"
	printf 'TKREC_STREAM stream off\t%s\t\t\n' "$(pers off)"
	printf 'stream bytes/event\t%s\t\t\n' "$stream_bytes"
	printf 'host decode events/CPU s (pipe)\t%s\t\t\n' "$decode"
	printf 'host decode events/wall s (pipe)\t%s\t\t\n' "$decode_wall"
} > "$RESULTS"
# the Cortex-M3 in QEMU (examples/qemu-cortex-m/, where the toolchain and
# QEMU are installed): the firmware's own count of one event's
# instructions (-icount: exact), the stream alone against the FTrace
# build's event, each clock (target <= 1.3 x); the stream build's run
# of 100 ms, not the demo's 3 s (only its counts are read)
m3=""
if command -v arm-none-eabi-gcc > /dev/null && command -v qemu-system-arm > /dev/null &&
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT/examples/qemu-cortex-m" O="$tmp/qemu" STREAM_MS=100 > /dev/null 2>&1; then
	for fw in ftrace stream; do
		(cd "$tmp/qemu" && timeout 120 qemu-system-arm -M mps2-an385 -display none -monitor none \
			-serial file:/dev/null -icount shift=5,align=off,sleep=off \
			-semihosting-config enable=on,target=native -kernel "fw-$fw.elf") > "$tmp/qemu/$fw.log" 2>&1 || true
	done
	m3=$(cat "$tmp/qemu/ftrace.log" "$tmp/qemu/stream.log" | sed -n 's/^fw: cost of one \([a-z+-]*\) event: \([0-9.]*\) instructions (SysTick clock), \([0-9.]*\) (DWT clock)/\1 \3 \2/p')
fi
if [ -n "$m3" ]; then
	echo
	echo "Cortex-M3 in QEMU ($(arm-none-eabi-gcc -dumpversion), -O2 -ffreestanding): instructions per event, DWT / SysTick clock"
	echo "$m3" | awk '$1 == "ftrace" { sd = $2; ss = $3 }
		{ n[NR] = $1; d[NR] = $2; s[NR] = $3 }
		END {
			for (i = 1; i <= NR; i++) {
				r = ""
				if (n[i] == "stream-only") {
					ok = d[i] <= 1.3 * sd && s[i] <= 1.3 * ss
					r = sprintf("%.2f x / %.2f x   <= 1.3 x   %s", d[i] / sd, s[i] / ss, ok ? "PASS" : "FAIL")
				}
				printf("  %-14s %7s / %-7s %s\n", n[i] == "stream" ? "stream off" : n[i], d[i], s[i], r)
			}
		}'
	echo "$m3" | awk '$1 == "ftrace" { sd = $2; ss = $3 } $1 == "stream-only" { exit !($2 <= 1.3 * sd && $3 <= 1.3 * ss) }' || FAILED=1
	echo "$m3" | awk '{ printf("M3 %s DWT/SysTick\t%s / %s\t\t\n", $1, $2, $3) }' >> "$RESULTS"
else
	echo
	echo "Cortex-M3 rows not measured (arm-none-eabi-gcc, qemu-system-arm and the firmware's build needed): the stream's 1.3 x target is not checked"
fi
exit "$FAILED"
