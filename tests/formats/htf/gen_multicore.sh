#!/bin/sh
# Writes a BTF trace of CORES cores, CYCLES task cycles per core, to stdout:
# tasks with runnables, instruction blocks, signals and a semaphore, an ISR
# that preempts them.  Sources and instances follow the rules by which HTF
# reading synthesises them (docs/mappings.md), so BTF -> HTF -> BTF must
# give the same events exactly.  Times are unique across cores (core c
# uses times = c mod 10), so the global order is the same in any format.
# Usage: gen_multicore.sh CORES CYCLES SEED
set -eu
cores=${1:-4} cycles=${2:-50} seed=${3:-1}
printf '#version 2.2.1\n#creator gen_multicore.sh\n#timescale ns\n'
awk -v cores="$cores" -v cycles="$cycles" -v seed="$seed" '
function ev(src, si, type, tgt, ti, name) {
	clock += (1 + int(rand() * 50)) * 10
	printf "%d,%s,%d,%s,%s,%d,%s\n", clock + c, src, si, type, tgt, ti, name
}
BEGIN {
	srand(seed)
	for (c = 1; c <= cores; c++) {
		clock = 0
		core = "Core_" c
		isr = "Isr_" c
		for (n = 0; n < cycles; n++) {
			task = "Task_" c "_" (n % 3)
			ti = act[task]++
			ev(core, 0, "T", task, ti, "activate")
			ev(core, 0, "T", task, ti, "start")
			for (j = 0; j < 2; j++) {
				r = "Run_" c "_" (n % 3) "_" j
				ri = rs[r]++
				ev(task, ti, "R", r, ri, "start")
				ev(task, ti, "SIG", "Sig_" c "_" j, 0, (j ? "write" : "read"))
				if (rand() < 0.3) {
					b = "Block_" c "_" j
					bi = bs[b]++
					ev(r, ri, "IB", b, bi, "start")
					ev(r, ri, "IB", b, bi, "terminate")
				}
				if (rand() < 0.4) {
					ev(task, ti, "R", r, ri, "suspend")
					ev(core, 0, "T", task, ti, "preempt")
					ii = is[isr]++
					ev(core, 0, "I", isr, ii, "start")
					ev(core, 0, "I", isr, ii, "terminate")
					ev(core, 0, "T", task, ti, "resume")
					ev(task, ti, "R", r, ri, "resume")
				}
				ev(task, ti, "R", r, ri, "terminate")
			}
			if (rand() < 0.5) {
				ev(task, ti, "SEM", "Sem_shared", 0, "lock")
				ev(task, ti, "SEM", "Sem_shared", 0, "unlock")
			}
			ev(core, 0, "T", task, ti, "terminate")
		}
	}
}' | sort -t, -k1,1n
