# check_btf.awk - validate a BTF trace written by gen_btf (or any symbolic BTF
# trace that uses the same subset: STI, T, I, R, SIG).
#
#   mawk -f bench/check_btf.awk FILE      (exit status 0 = valid, 1 = errors)
#
# Checks:
#   - every event line has at least 7 fields, an unsigned integer time, and
#     the time never decreases;
#   - stimulus instances increase gaplessly per stimulus (from 0), a trigger
#     is self-sourced (Source == Target, SourceInstance == TargetInstance);
#   - process (T/I) instances increase gaplessly per process with each
#     activate / mtalimitexceeded (from 0); each activation names a stimulus
#     instance that was triggered right before; no multiple activation;
#   - process state machine: activate -> start -> (preempt -> resume)* ->
#     terminate; start/resume/preempt/terminate come from a core;
#   - each core has at most one process allocated at any time, and a
#     preempt/terminate comes from the core the process runs on;
#   - runnable instances increase gaplessly per runnable with each start;
#     runnable state machine start -> (suspend -> resume)* -> terminate;
#     runnable and signal events only while their process is RUNNING (the
#     source instance must be the live one); no runnable is still running when
#     its process is preempted and none is unfinished when it terminates;
#   - signal events are read/write with a numeric note.
# A trace may end anywhere; the final states are not checked.

BEGIN { FS = ","; nerr = 0; maxshow = 20; nev = 0; last = -1 }

function err(msg) {
	nerr++
	if (nerr <= maxshow)
		printf("line %d: %s\n    %s\n", NR, msg, $0) > "/dev/stderr"
}

/^#/ { next }
/^$/ { next }

{
	nev++
	if (NF < 7) { err("fewer than 7 fields"); next }
	if ($1 !~ /^[0-9]+$/) { err("time is not an unsigned integer"); next }
	t = $1 + 0
	if (t < last) err(sprintf("time decreases (previous %.0f)", last))
	last = t
	src = $2; si = $3; ty = $4; tg = $5; ti = $6; ev = $7
	if (si !~ /^-?[0-9]+$/ || ti !~ /^-?[0-9]+$/) err("instance is not an integer")
	count[ty " " ev]++

	if (ty == "STI") {
		if (ev != "trigger") err("stimulus event is not trigger")
		if (src != tg || si != ti) err("trigger not self-sourced")
		exp_i = (tg in sti_next) ? sti_next[tg] : 0
		if (ti + 0 != exp_i) err("stimulus instance " ti " of " tg ", expected " exp_i)
		sti_next[tg] = ti + 1
		trig[tg] = ti
	} else if (ty == "T" || ty == "I") {
		key = tg SUBSEP ti
		if (ev == "activate" || ev == "mtalimitexceeded") {
			exp_i = (tg in p_next) ? p_next[tg] : 0
			if (ti + 0 != exp_i) err("process instance " ti " of " tg ", expected " exp_i " (not gapless)")
			p_next[tg] = ti + 1
			if (!(src in trig) || trig[src] != si) err("activation without a preceding trigger of " src " instance " si)
			if (ev == "activate") {
				if (alive[tg] > 0) err("activate while an instance of " tg " is alive (no MTA expected)")
				alive[tg]++
				p_st[key] = "ACTIVE"
				nact++
			} else {
				if (alive[tg] == 0) err("mtalimitexceeded although no instance of " tg " is alive")
				nmta++
			}
		} else if (ev == "start" || ev == "resume") {
			need = (ev == "start") ? "ACTIVE" : "READY"
			if (p_st[key] != need) err(ev " of " tg "/" ti " in state " p_st[key] " (expected " need ")")
			if (src !~ /^Core_/) err(ev " not from a core")
			if (running[src] != "") err("core " src " already runs " running[src])
			running[src] = tg "/" ti
			on_core[key] = src
			p_st[key] = "RUNNING"
			if (ev == "resume") nres++
		} else if (ev == "preempt" || ev == "terminate") {
			if (p_st[key] != "RUNNING") err(ev " of " tg "/" ti " in state " p_st[key] " (expected RUNNING)")
			if (on_core[key] != src) err(ev " of " tg "/" ti " from " src " but it runs on " on_core[key])
			if (running[src] != tg "/" ti) err(ev " of " tg "/" ti " but " src " runs " running[src])
			running[src] = ""
			if (ev == "preempt") {
				if (r_running[key] > 0) err("process preempted while a runnable still runs")
				p_st[key] = "READY"
				npre++
			} else {
				if (r_open[key] > 0) err("process terminates with " r_open[key] " unfinished runnable(s)")
				delete p_st[key]; delete on_core[key]; delete r_open[key]; delete r_running[key]
				alive[tg]--
				nterm++
			}
		} else {
			err("unexpected process event " ev)
		}
	} else if (ty == "R") {
		pkey = src SUBSEP si
		rkey = tg SUBSEP ti
		if (p_st[pkey] != "RUNNING") err("runnable event while process " src "/" si " is " p_st[pkey])
		if (ev == "start") {
			exp_i = (tg in r_next) ? r_next[tg] : 0
			if (ti + 0 != exp_i) err("runnable instance " ti " of " tg ", expected " exp_i " (not gapless)")
			r_next[tg] = ti + 1
			r_st[rkey] = "RUNNING"; r_open[pkey]++; r_running[pkey]++
		} else if (ev == "suspend") {
			if (r_st[rkey] != "RUNNING") err("suspend of runnable in state " r_st[rkey])
			r_st[rkey] = "SUSPENDED"; r_running[pkey]--
		} else if (ev == "resume") {
			if (r_st[rkey] != "SUSPENDED") err("resume of runnable in state " r_st[rkey])
			r_st[rkey] = "RUNNING"; r_running[pkey]++
		} else if (ev == "terminate") {
			if (r_st[rkey] != "RUNNING") err("terminate of runnable in state " r_st[rkey])
			delete r_st[rkey]; r_open[pkey]--; r_running[pkey]--
		} else {
			err("unexpected runnable event " ev)
		}
	} else if (ty == "SIG") {
		if (p_st[src SUBSEP si] != "RUNNING") err("signal access while process " src "/" si " is " p_st[src SUBSEP si])
		if (ev != "read" && ev != "write") err("unexpected signal event " ev)
		if (ti != 0) err("signal instance is not 0")
		if (NF < 8 || $8 !~ /^-?[0-9]+(\.[0-9]+)?$/) err("signal access without a numeric value note")
	} else {
		err("unexpected TargetType " ty)
	}
}

END {
	printf("check_btf: %d events, last time %.0f, %d activations, %d terminations, %d preemptions, %d resumes, %d lost activations\n",
	       nev, last, nact, nterm, npre, nres, nmta)
	if (nerr) {
		printf("check_btf: INVALID, %d error(s)\n", nerr)
		exit 1
	}
	print "check_btf: OK"
}
