/*
 * gen_btf.c - write a large, valid BTF 2.3.0 trace for the reader benchmark.
 *
 *   gen_btf [-n EVENTS] [-c CORES] [-s SEED] [OUT]
 *
 *   -n EVENTS  number of event lines (default 10000000; suffixes k, M, G = 1e3, 1e6, 1e9)
 *   -c CORES   number of cores, 1..64 (default 4)
 *   -s SEED    random seed (default 1); the output is a pure function of (EVENTS, CORES, SEED)
 *   OUT        output file; "-" or no argument writes to stdout
 *
 * Standalone: C11 and libc only.
 *
 * What the trace contains.  Every core runs a small fixed-priority preemptive
 * scheduler over 8 periodic tasks (periods 1..200 ms, rate-monotonic
 * priorities, utilisation ~45 % so that no activation is ever lost) and 2
 * sporadic ISRs (TargetType I, priorities above every task).  Each process
 * activation is caused by its own stimulus (STI trigger, then activate with
 * the stimulus as the source).  A task calls 2-4 runnables one after the
 * other, an ISR calls one; each runnable reads and writes global signals
 * (SIG read/write, the value in the note).  When a process is preempted, its
 * running runnable is suspended first and resumed after the process resumes.
 * All cores are simulated in one global event loop (always the core with the
 * earliest pending event), so the time column never decreases.  Process
 * instances increase gaplessly with each activate, runnable instances with
 * each start, stimulus instances with each trigger.  If a release ever found
 * the previous instance still alive the generator would write
 * mtalimitexceeded (which consumes an instance, as BTF 2.3.0 requires); with
 * the chosen utilisation this does not happen, and the number is reported
 * on stderr.  The trace simply stops after EVENTS lines, possibly in the
 * middle of a schedule.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CORES 64
#define TASKS_PER_CORE 8
#define ISRS_PER_CORE 2
#define PROCS_PER_CORE (TASKS_PER_CORE + ISRS_PER_CORE)
#define MAX_RUNNABLES 4
#define MAX_ACC 3
#define NSIG 64
#define NAME_MAX_LEN 32
#define OUTBUF_SIZE (8u << 20)

#define MS 1000000ull /* the time scale is ns */
#define US 1000ull

/* ------------------------------------------------------------------------ */
/* Random numbers: splitmix64 (deterministic, fast, good enough)            */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

static FILE *out_fp;
static const char *out_name = "<stdout>";
static char *obuf;
static size_t opos;
static uint64_t n_written, n_limit;

static void die(const char *msg)
{
	fprintf(stderr, "gen_btf: %s\n", msg);
	exit(1);
}

static void flush_out(void)
{
	if (opos && fwrite(obuf, 1, opos, out_fp) != opos) {
		fprintf(stderr, "gen_btf: write error on %s: %s\n", out_name, strerror(errno));
		exit(1);
	}
	opos = 0;
}

static inline void put_mem(const char *s, size_t n)
{
	memcpy(obuf + opos, s, n);
	opos += n;
}

static inline void put_ch(char c)
{
	obuf[opos++] = c;
}

static inline void put_u64(uint64_t v)
{
	char tmp[24];
	int i = 24;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_mem(tmp + i, (size_t)(24 - i));
}

/* a fixed-point value with one decimal, or an integer */
static inline void put_value(int32_t tenths, int integral)
{
	uint32_t a;
	if (tenths < 0) {
		put_ch('-');
		a = (uint32_t)(-(int64_t)tenths);
	} else {
		a = (uint32_t)tenths;
	}
	if (integral) {
		put_u64(a / 10);
	} else {
		put_u64(a / 10);
		put_ch('.');
		put_ch((char)('0' + a % 10));
	}
}

typedef struct {
	char s[NAME_MAX_LEN];
	size_t n;
} name_t;

static void set_name(name_t *nm, const char *s)
{
	size_t n = strlen(s);
	if (n >= NAME_MAX_LEN)
		die("internal error: name too long");
	memcpy(nm->s, s, n + 1);
	nm->n = n;
}

/* The line prefix "<time>,<source>,<srcinst>,<type>,<target>,<tgtinst>,"
 * returns 0 when the line must be dropped (EVENTS reached). */
static inline int line_begin(uint64_t t, const name_t *src, uint64_t si,
			     const char *type, size_t tlen,
			     const name_t *tgt, uint64_t ti)
{
	if (n_written >= n_limit)
		return 0;
	n_written++;
	if (opos > OUTBUF_SIZE - 512)
		flush_out();
	put_u64(t);
	put_ch(',');
	put_mem(src->s, src->n);
	put_ch(',');
	put_u64(si);
	put_ch(',');
	put_mem(type, tlen);
	put_ch(',');
	put_mem(tgt->s, tgt->n);
	put_ch(',');
	put_u64(ti);
	put_ch(',');
	return 1;
}

#define EV(ev) ev, sizeof(ev) - 1

static inline void emit(uint64_t t, const name_t *src, uint64_t si,
			const char *type, size_t tlen,
			const name_t *tgt, uint64_t ti,
			const char *ev, size_t evlen)
{
	if (!line_begin(t, src, si, type, tlen, tgt, ti))
		return;
	put_mem(ev, evlen);
	put_ch('\n');
}

/* ------------------------------------------------------------------------ */
/* Model                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct {
	name_t name;
	int32_t value; /* tenths */
	int integral;
} signal_t;

static signal_t sigs[NSIG];

typedef struct {
	name_t name;
	uint64_t next_inst; /* gapless per start */
	uint64_t wcet;
	int nacc;
	int acc_sig[MAX_ACC];
	int acc_write[MAX_ACC];
} runnable_t;

enum { PS_TERMINATED, PS_ACTIVE, PS_RUNNING, PS_READY };
enum { RS_NONE, RS_RUNNING, RS_SUSPENDED };

typedef struct {
	name_t name;   /* T2_10ms / ISR2_CAN */
	name_t stim;   /* TMR2_10ms / IRQ2_CAN */
	const char *type;
	size_t type_len;
	int prio;      /* higher = more urgent */
	int sporadic;
	uint64_t period;   /* periodic: period; sporadic: minimum inter-arrival */
	uint64_t jitter;   /* sporadic: extra random inter-arrival, uniform [0, jitter] */
	uint64_t next_release;
	uint64_t stim_next;  /* next stimulus instance */
	uint64_t inst_next;  /* next process instance */
	uint64_t inst;       /* the live instance */
	int state;
	int nrun;
	runnable_t run[MAX_RUNNABLES];
	/* progress of the live instance */
	int cur;          /* index of the current / next runnable */
	int rstate;       /* RS_* of run[cur] */
	uint64_t rinst;   /* instance of run[cur] */
	int piece;        /* pieces of run[cur] completed (= signal accesses done) */
	uint64_t rleft;   /* execution time of run[cur] after the current piece */
	uint64_t seg_left;/* remaining execution time of the current piece */
} proc_t;

typedef struct {
	name_t name;
	proc_t proc[PROCS_PER_CORE]; /* sorted by priority, highest first */
	proc_t *running;
	uint64_t run_since;
	uint64_t next_time;
} core_t;

static core_t *cores;
static int ncores;
static uint64_t n_overruns, n_preempts;

static const name_t *core_name(const core_t *c) { return &c->name; }

/* ---- runnables ---- */

static void start_piece(proc_t *p)
{
	runnable_t *r = &p->run[p->cur];
	int pieces_left = r->nacc + 1 - p->piece;
	uint64_t len;
	if (pieces_left <= 1) {
		len = p->rleft;
	} else {
		uint64_t avg = p->rleft / (uint64_t)pieces_left;
		len = rnd_range(avg / 2, avg + avg / 2);
		if (len > p->rleft)
			len = p->rleft;
	}
	p->seg_left = len;
	p->rleft -= len;
}

static void runnable_start(uint64_t t, proc_t *p)
{
	runnable_t *r = &p->run[p->cur];
	p->rinst = r->next_inst++;
	emit(t, &p->name, p->inst, EV("R"), &r->name, p->rinst, EV("start"));
	p->rstate = RS_RUNNING;
	p->piece = 0;
	p->rleft = rnd_range(r->wcet / 2, r->wcet);
	start_piece(p);
}

static void signal_access(uint64_t t, proc_t *p, int k)
{
	runnable_t *r = &p->run[p->cur];
	signal_t *s = &sigs[r->acc_sig[k]];
	if (r->acc_write[k]) {
		int32_t v = s->value + (int32_t)rnd_range(0, 200) - 100;
		if (v > 99999)
			v = 99999;
		if (v < -99999)
			v = -99999;
		s->value = v;
		if (line_begin(t, &p->name, p->inst, EV("SIG"), &s->name, 0)) {
			put_mem(EV("write,"));
			put_value(s->value, s->integral);
			put_ch('\n');
		}
	} else {
		if (line_begin(t, &p->name, p->inst, EV("SIG"), &s->name, 0)) {
			put_mem(EV("read,"));
			put_value(s->value, s->integral);
			put_ch('\n');
		}
	}
}

/* ---- processes ---- */

static void release(uint64_t t, proc_t *p)
{
	uint64_t si = p->stim_next++;
	emit(t, &p->stim, si, EV("STI"), &p->stim, si, EV("trigger"));
	if (p->state != PS_TERMINATED) {
		/* the previous instance is still alive: no multiple activation */
		emit(t, &p->stim, si, p->type, p->type_len, &p->name, p->inst_next++,
		     EV("mtalimitexceeded"));
		n_overruns++;
	} else {
		p->inst = p->inst_next++;
		emit(t, &p->stim, si, p->type, p->type_len, &p->name, p->inst, EV("activate"));
		p->state = PS_ACTIVE;
		p->cur = 0;
		p->rstate = RS_NONE;
	}
	p->next_release += p->period;
	if (p->sporadic)
		p->next_release += rnd_range(0, p->jitter);
}

/* the running process finished its current piece at time t */
static void complete_piece(core_t *c, uint64_t t)
{
	proc_t *p = c->running;
	runnable_t *r = &p->run[p->cur];
	if (p->piece < r->nacc) {
		signal_access(t, p, p->piece);
		p->piece++;
		start_piece(p);
		return;
	}
	emit(t, &p->name, p->inst, EV("R"), &r->name, p->rinst, EV("terminate"));
	p->rstate = RS_NONE;
	p->cur++;
	if (p->cur == p->nrun) {
		emit(t, core_name(c), 0, p->type, p->type_len, &p->name, p->inst, EV("terminate"));
		p->state = PS_TERMINATED;
		c->running = NULL;
	}
	/* otherwise the next runnable starts in dispatch(), unless preempted */
}

static void dispatch(core_t *c, uint64_t t)
{
	proc_t *best = NULL;
	for (int i = 0; i < PROCS_PER_CORE; i++) {
		int st = c->proc[i].state;
		if (st != PS_TERMINATED) {
			best = &c->proc[i];
			break;
		}
	}
	proc_t *cur = c->running;
	if (best != cur) {
		/* best has a strictly higher priority than cur (or cur is NULL) */
		if (cur) {
			cur->seg_left -= t - c->run_since;
			if (cur->rstate == RS_RUNNING) {
				emit(t, &cur->name, cur->inst, EV("R"), &cur->run[cur->cur].name,
				     cur->rinst, EV("suspend"));
				cur->rstate = RS_SUSPENDED;
			}
			emit(t, core_name(c), 0, cur->type, cur->type_len, &cur->name, cur->inst,
			     EV("preempt"));
			cur->state = PS_READY;
			n_preempts++;
		}
		if (best->state == PS_ACTIVE) {
			emit(t, core_name(c), 0, best->type, best->type_len, &best->name, best->inst,
			     EV("start"));
		} else {
			emit(t, core_name(c), 0, best->type, best->type_len, &best->name, best->inst,
			     EV("resume"));
			if (best->rstate == RS_SUSPENDED) {
				emit(t, &best->name, best->inst, EV("R"), &best->run[best->cur].name,
				     best->rinst, EV("resume"));
				best->rstate = RS_RUNNING;
			}
		}
		best->state = PS_RUNNING;
		c->running = best;
		c->run_since = t;
	}
	if (c->running && c->running->rstate == RS_NONE) {
		runnable_start(t, c->running);
		c->run_since = t;
	}
}

static void update_next(core_t *c)
{
	uint64_t nt = UINT64_MAX;
	for (int i = 0; i < PROCS_PER_CORE; i++)
		if (c->proc[i].next_release < nt)
			nt = c->proc[i].next_release;
	if (c->running) {
		uint64_t done = c->run_since + c->running->seg_left;
		if (done < nt)
			nt = done;
	}
	c->next_time = nt;
}

/* handle everything that happens on core c at time t = c->next_time */
static void step(core_t *c)
{
	uint64_t t = c->next_time;
	if (c->running && c->run_since + c->running->seg_left == t) {
		/* rebase, then finish the piece */
		c->running->seg_left = 0;
		c->run_since = t;
		complete_piece(c, t);
	}
	for (int i = 0; i < PROCS_PER_CORE; i++)
		if (c->proc[i].next_release == t)
			release(t, &c->proc[i]);
	dispatch(c, t);
	update_next(c);
}

/* ------------------------------------------------------------------------ */
/* Set-up                                                                    */
/* ------------------------------------------------------------------------ */

static const struct {
	const char *label;
	uint64_t period;
} task_def[TASKS_PER_CORE] = {
	{"1ms", 1 * MS}, {"2ms", 2 * MS}, {"5ms", 5 * MS}, {"10ms", 10 * MS},
	{"20ms", 20 * MS}, {"50ms", 50 * MS}, {"100ms", 100 * MS}, {"200ms", 200 * MS},
};

static const struct {
	const char *label;
	uint64_t min_gap, jitter, wcet;
} isr_def[ISRS_PER_CORE] = {
	{"CAN", 400 * US, 3000 * US, 12 * US},
	{"ADC", 1000 * US, 6000 * US, 8 * US},
};

static void setup(void)
{
	char buf[NAME_MAX_LEN + 32];
	for (int s = 0; s < NSIG; s++) {
		snprintf(buf, sizeof buf, "S%02d", s);
		set_name(&sigs[s].name, buf);
		sigs[s].integral = (s % 3 == 0);
		sigs[s].value = (int32_t)rnd_range(0, 20000) - 10000;
	}
	for (int ci = 0; ci < ncores; ci++) {
		core_t *c = &cores[ci];
		int cn = ci + 1;
		snprintf(buf, sizeof buf, "Core_%d", cn);
		set_name(&c->name, buf);
		/* per-core task utilisation (WCET based) 0.52 .. 0.60; average
		 * execution is 3/4 of the WCET */
		double util_total = 0.52 + 0.02 * (double)(ci % 5);
		for (int i = 0; i < PROCS_PER_CORE; i++) {
			proc_t *p = &c->proc[i];
			memset(p, 0, sizeof *p);
			p->state = PS_TERMINATED;
			p->prio = PROCS_PER_CORE - i;
			uint64_t wcet;
			if (i < ISRS_PER_CORE) {
				snprintf(buf, sizeof buf, "ISR%d_%s", cn, isr_def[i].label);
				set_name(&p->name, buf);
				snprintf(buf, sizeof buf, "IRQ%d_%s", cn, isr_def[i].label);
				set_name(&p->stim, buf);
				p->type = "I";
				p->type_len = 1;
				p->sporadic = 1;
				p->period = isr_def[i].min_gap;
				p->jitter = isr_def[i].jitter;
				p->next_release = rnd_range(0, isr_def[i].jitter);
				p->nrun = 1;
				wcet = isr_def[i].wcet;
			} else {
				int k = i - ISRS_PER_CORE;
				snprintf(buf, sizeof buf, "T%d_%s", cn, task_def[k].label);
				set_name(&p->name, buf);
				snprintf(buf, sizeof buf, "TMR%d_%s", cn, task_def[k].label);
				set_name(&p->stim, buf);
				p->type = "T";
				p->type_len = 1;
				p->period = task_def[k].period;
				/* small per-core phase so cores do not run in lock step */
				p->next_release = (uint64_t)ci * 37 * US + (uint64_t)k * 3 * US;
				p->nrun = 2 + (int)rnd_range(0, 2);
				double u = util_total / TASKS_PER_CORE * (0.7 + 0.6 * (double)(rnd() % 1000) / 1000.0);
				wcet = (uint64_t)(u * (double)p->period);
			}
			/* split the WCET over the runnables */
			uint64_t weights[MAX_RUNNABLES], wsum = 0;
			for (int r = 0; r < p->nrun; r++) {
				weights[r] = rnd_range(1, 4);
				wsum += weights[r];
			}
			for (int r = 0; r < p->nrun; r++) {
				runnable_t *rn = &p->run[r];
				if (i < ISRS_PER_CORE)
					snprintf(buf, sizeof buf, "R%d_%s", cn, isr_def[i].label);
				else
					snprintf(buf, sizeof buf, "R%d_%s_%d", cn,
						 task_def[i - ISRS_PER_CORE].label, r + 1);
				set_name(&rn->name, buf);
				rn->wcet = wcet * weights[r] / wsum;
				if (rn->wcet < 2 * US)
					rn->wcet = 2 * US;
				if (i < ISRS_PER_CORE) {
					rn->nacc = 1;
					rn->acc_write[0] = 1;
				} else {
					rn->nacc = (int)rnd_range(1, MAX_ACC);
					for (int a = 0; a < rn->nacc; a++)
						rn->acc_write[a] = (a == rn->nacc - 1) ? 1 : (int)(rnd() % 4 == 0);
				}
				for (int a = 0; a < rn->nacc; a++)
					rn->acc_sig[a] = (int)rnd_range(0, NSIG - 1);
			}
		}
		c->running = NULL;
		update_next(c);
	}
}

/* ------------------------------------------------------------------------ */
/* main                                                                      */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: gen_btf [-n EVENTS] [-c CORES] [-s SEED] [OUT]\n"
	      "  -n EVENTS  event lines to write (default 10000000; suffix k/M/G)\n"
	      "  -c CORES   cores, 1..64 (default 4)\n"
	      "  -s SEED    random seed (default 1)\n"
	      "  OUT        output file, '-' or none for stdout\n", f);
}

static uint64_t parse_count(const char *s, const char *opt)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-') {
		fprintf(stderr, "gen_btf: bad value for %s: '%s'\n", opt, s);
		exit(2);
	}
	uint64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000ull, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1000000ull, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1000000000ull, end++;
	if (*end) {
		fprintf(stderr, "gen_btf: bad value for %s: '%s'\n", opt, s);
		exit(2);
	}
	if (v > UINT64_MAX / mul) {
		fprintf(stderr, "gen_btf: value too large for %s: '%s'\n", opt, s);
		exit(2);
	}
	return (uint64_t)v * mul;
}

int main(int argc, char **argv)
{
	uint64_t n_events = 10000000ull, seed = 1;
	uint64_t nc = 4;
	const char *out = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1] && strchr("ncs", a[1]) && !a[2]) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gen_btf: option %s needs a value\n", a);
				return 2;
			}
			uint64_t v = parse_count(argv[++i], a);
			if (a[1] == 'n')
				n_events = v;
			else if (a[1] == 'c')
				nc = v;
			else
				seed = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gen_btf: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else if (!out) {
			out = a;
		} else {
			fprintf(stderr, "gen_btf: more than one output file\n");
			return 2;
		}
	}
	if (nc < 1 || nc > MAX_CORES) {
		fprintf(stderr, "gen_btf: -c must be 1..%d\n", MAX_CORES);
		return 2;
	}
	ncores = (int)nc;
	n_limit = n_events;
	rng_state = seed * 0xD1B54A32D192ED03ull + 0x2545F4914F6CDD1Dull;

	if (!out || !strcmp(out, "-")) {
		out_fp = stdout;
	} else {
		out_fp = fopen(out, "wb");
		out_name = out;
		if (!out_fp) {
			fprintf(stderr, "gen_btf: cannot open %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	setvbuf(out_fp, NULL, _IONBF, 0);
	obuf = malloc(OUTBUF_SIZE);
	cores = calloc((size_t)ncores, sizeof *cores);
	if (!obuf || !cores)
		die("out of memory");

	clock_t c0 = clock();
	setup();

	/* header (not counted as events) */
	opos += (size_t)snprintf(obuf + opos, 512,
				 "#version 2.3.0\n"
				 "#creator tracekit-bench-gen\n"
				 "#creationDate 2024-01-01T00:00:00Z\n"
				 "#timescale ns\n"
				 "# gen_btf events=%llu cores=%d seed=%llu\n",
				 (unsigned long long)n_events, ncores, (unsigned long long)seed);

	uint64_t tmax = 0;
	while (n_written < n_limit) {
		core_t *c = &cores[0];
		for (int i = 1; i < ncores; i++)
			if (cores[i].next_time < c->next_time)
				c = &cores[i];
		tmax = c->next_time;
		step(c);
	}
	flush_out();
	if (out_fp != stdout) {
		if (fclose(out_fp) != 0) {
			fprintf(stderr, "gen_btf: cannot close %s: %s\n", out_name, strerror(errno));
			return 1;
		}
	} else if (fflush(stdout) != 0) {
		fprintf(stderr, "gen_btf: write error on stdout: %s\n", strerror(errno));
		return 1;
	}
	double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
	fprintf(stderr,
		"gen_btf: %llu events, %d cores, seed %llu, simulated %.3f s, "
		"%llu preemptions, %llu lost activations, %.2f s CPU\n",
		(unsigned long long)n_written, ncores, (unsigned long long)seed,
		(double)tmax / 1e9, (unsigned long long)n_preempts,
		(unsigned long long)n_overruns, cpu);
	free(obuf);
	free(cores);
	return 0;
}
