/*
 * test_recorder_htf.c - the recorder's HTF binary mode on the host port:
 * two cores with different widths, entity registration, the dump to an
 * .htf file, read back by tracekit in strict mode with exact times, names
 * and types; two threads as two cores; ids that do not fit and a full
 * buffer are counted, and the dump writes them as #LostEvents; times past
 * the width go through time-base records; unknown entities and events are
 * refused; no partial file.
 */
#define _POSIX_C_SOURCE 200809L

#include "FTrace_host.h"
#include "tracekit/tracekit.h"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static __thread uint64_t now;  /* each thread (core) has its clock */
static __thread int ticking;    /* or a clock that ticks at each read */

uint64_t tkrec_host_tsc(void)
{
	return ticking ? ++now : now;
}

static unsigned fails;

#define CHECK(cond) do { if (!(cond)) { fails++; \
	fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define T0 1000000u  /* the time origin given to tkrec_htf_reset */

static uint8_t buf0[64 * 7], buf1[64 * 4];

static int at(unsigned core, uint64_t t, uint32_t ent, uint32_t ev)
{
	tkrec_host_core = core;
	now = T0 + t;
	return tkrec_htf_log(ent, ev);
}

static void setup(void)
{
	tkrec_htf_reset(T0);
	/* core 0: 4-byte times, 2-byte entities, 1-byte events; core 1: 2, 1, 1 */
	CHECK(tkrec_htf_core_init(0, buf0, sizeof(buf0), 4, 2, 1) == 0);
	CHECK(tkrec_htf_core_init(1, buf1, sizeof(buf1), 2, 1, 1) == 0);
	CHECK(tkrec_htf_entity(0x0100, "TaskA", TKREC_HTF_TASK) == 0);
	CHECK(tkrec_htf_entity(2, "TaskB", TKREC_HTF_TASK) == 0);
	CHECK(tkrec_htf_entity(3, "Isr3", TKREC_HTF_ISR) == 0);
	CHECK(tkrec_htf_entity(4, "RunB", TKREC_HTF_RUNNABLE) == 0);
	CHECK(tkrec_htf_entity(5, "Sem", TKREC_HTF_SEMAPHORE) == 0);
}

static const struct want {
	uint64_t time;
	const char *entity, *event;
	tk_etype type;
} want[] = {
	{ 100, "TaskA", "activate", TK_ET_T },
	{ 120, "TaskB", "activate", TK_ET_T },
	{ 130, "TaskB", "start", TK_ET_T },
	{ 150, "TaskA", "start", TK_ET_T },
	{ 200, "RunB", "start", TK_ET_R },
	{ 300, "RunB", "terminate", TK_ET_R },
	{ 400, "Isr3", "start", TK_ET_I },
	{ 450, "Isr3", "terminate", TK_ET_I },
	{ 900, "TaskB", "terminate", TK_ET_T },
	{ 70000, "Sem", "lock", TK_ET_SEM },
	{ 70010, "Sem", "unlock", TK_ET_SEM },
	{ 70100, "TaskA", "terminate", TK_ET_T },
};

static void log_scenario(void)
{
	CHECK(at(0, 100, 0x0100, TKREC_HTF_TASK_ACTIVATE) == 0);
	CHECK(at(0, 150, 0x0100, TKREC_HTF_TASK_START) == 0);
	CHECK(at(0, 400, 3, TKREC_HTF_ISR_START) == 0);
	CHECK(at(0, 450, 3, TKREC_HTF_ISR_TERMINATE) == 0);
	CHECK(at(0, 70000, 5, TKREC_HTF_SEMAPHORE_LOCK) == 0);
	CHECK(at(0, 70010, 5, TKREC_HTF_SEMAPHORE_UNLOCK) == 0);
	CHECK(at(0, 70100, 0x0100, TKREC_HTF_TASK_TERMINATE) == 0);
	CHECK(at(1, 120, 2, TKREC_HTF_TASK_ACTIVATE) == 0);
	CHECK(at(1, 130, 2, TKREC_HTF_TASK_START) == 0);
	CHECK(at(1, 200, 4, TKREC_HTF_RUNNABLE_START) == 0);
	CHECK(at(1, 300, 4, TKREC_HTF_RUNNABLE_TERMINATE) == 0);
	CHECK(at(1, 900, 2, TKREC_HTF_TASK_TERMINATE) == 0);
}

static void read_back(const char *path)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	size_t n = 0;
	int rc;

	tk_reader_opts_init(&o);
	o.format = "htf";
	o.strict = 1;
	rc = tk_reader_open(&r, path, &o, &err);
	CHECK(rc == TK_OK);
	if (rc != TK_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		tk_trace *t = tk_reader_trace(r);
		const tk_entity *e = tk_trace_entity(t, ev->target);
		const char *ename = e ? tk_trace_str(t, e->name, NULL) : "?";
		const char *name = tk_trace_str(t, ev->name, NULL);

		if (n < sizeof(want) / sizeof(want[0]) &&
		    (ev->time != want[n].time || strcmp(ename, want[n].entity) ||
		     strcmp(name, want[n].event) || ev->type != want[n].type)) {
			fprintf(stderr, "event %zu: %llu %s %s, expected %llu %s %s\n", n,
				(unsigned long long)ev->time, ename, name,
				(unsigned long long)want[n].time, want[n].entity,
				want[n].event);
			fails++;
		}
		n++;
	}
	if (rc != TK_END)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == TK_END);
	CHECK(n == sizeof(want) / sizeof(want[0]));
	CHECK(tk_reader_warning_count(r) == 0);
	tk_reader_close(r);
}

static int exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static void refused(const char *path, const char *needle)
{
	char err[512];
	char tmp[600];

	remove(path);
	CHECK(tkrec_htf_dump(path, NULL, err, sizeof(err)) < 0);
	if (!strstr(err, needle)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", err, needle);
		fails++;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	CHECK(!exists(path) && !exists(tmp));
}

/* warnings of a reading: their messages, one line each */
static char warned[2048];

static void on_warning(void *ctx, const tk_error *w)
{
	size_t n = strlen(warned);

	(void)ctx;
	snprintf(warned + n, sizeof(warned) - n, "%s\n", w->msg);
}

/*
 * Read `path` back (strict) and count its events; the warnings' messages
 * go to `warned`.  -1 if it cannot be read.
 */
static long count_events(const char *path, uint64_t *last, uint64_t *nwarn)
{
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error err;
	long n = 0;
	int rc;

	warned[0] = 0;
	tk_reader_opts_init(&o);
	o.format = "htf";
	o.strict = 1;
	o.on_warning = on_warning;
	if (tk_reader_open(&r, path, &o, &err) != TK_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	while ((rc = tk_reader_next(r, &ev, &err)) == TK_OK) {
		*last = ev->time;
		n++;
	}
	if (rc != TK_END) {
		fprintf(stderr, "%s\n", err.msg);
		n = -1;
	}
	*nwarn = tk_reader_warning_count(r);
	tk_reader_close(r);
	return n;
}

/*
 * A trace with drops is written with its records and #LostEvents (it
 * was refused, no file, before), and tracekit warns of them.
 */
static void lost_file(const char *path, long records, unsigned lost)
{
	char err[512], wline[128];
	uint64_t last = 0, nwarn = 0;
	FILE *f;
	char line[256];
	int found = 0;

	remove(path);
	CHECK(tkrec_htf_dump(path, NULL, err, sizeof(err)) == records);
	snprintf(wline, sizeof(wline), "#LostEvents %u\n", lost);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		found += !strcmp(line, wline);
	if (f)
		fclose(f);
	CHECK(found == 1);
	CHECK(count_events(path, &last, &nwarn) == records);
	snprintf(wline, sizeof(wline),
		 "the target lost %u events (#LostEvents): the trace is incomplete\n", lost);
	CHECK(nwarn == 1 && !strcmp(warned, wline));
	if (strcmp(warned, wline))
		fprintf(stderr, "warnings: '%s'\n", warned);
	remove(path);
}

/*
 * Times past the width: a 4-byte time goes on past 2^32 (25.6 s at 168
 * MHz), by one wrap or many at once, through time-base records; with a
 * 1-byte time, a gap of more than 255 wraps takes several.  The file has
 * the whole times (8 bytes wide), read back exactly, and no drop.
 */
static void time_wrap(const char *path)
{
	static uint8_t b4[64 * 6], b1[64 * 3];
	static const uint64_t t4[] = {
		100, 0xFFFFFFF0ull, 0x100000010ull, 0x100000020ull,
		5 * 0x100000000ull + 7, 5 * 0x100000000ull + 9,
	};
	static const uint64_t t1[] = { 3, 0x1F0, 0x123456, 0x123457 };
	char err[512];
	uint64_t last = 0, nwarn = 0;
	long n;
	unsigned i;

	tkrec_htf_reset(T0);
	CHECK(tkrec_htf_core_init(0, b4, sizeof(b4), 4, 1, 1) == 0);
	CHECK(tkrec_htf_core_init(1, b1, sizeof(b1), 1, 1, 1) == 0);
	CHECK(tkrec_htf_entity(1, "T", TKREC_HTF_TASK) == 0);
	for (i = 0; i < sizeof(t4) / sizeof(t4[0]); i++)
		CHECK(at(0, t4[i], 1, i % 2 ? TKREC_HTF_TASK_PREEMPT : TKREC_HTF_TASK_RESUME) == 0);
	for (i = 0; i < sizeof(t1) / sizeof(t1[0]); i++)
		CHECK(at(1, t1[i], 1, TKREC_HTF_TASK_POLL) == 0);
	CHECK(tkrec_htf_lost() == 0);
	/* core 0: 100, FFFFFFF0, base +1, 10, 20, base +4, 7, 9 */
	CHECK(tkrec_htf_core_get(0)->pos == b4 + 8 * 6);
	CHECK(b4[2 * 6 + 3] == 1 && b4[2 * 6 + 4] == 0xFF && b4[2 * 6 + 5] == 0);
	CHECK(b4[5 * 6 + 3] == 4 && b4[5 * 6 + 4] == 0xFF);
	/* core 1: 3, base +1, 0xF0, then 0x1233 wraps of 256 up to 0x123456: 19 records
	 * of at most 255 wraps, and 0x56 */
	CHECK(tkrec_htf_core_get(1)->pos == b1 + (3 + 19 + 2) * 3);
	remove(path);
	CHECK(tkrec_htf_dump(path, NULL, err, sizeof(err)) == 10);
	if (err[0])
		fprintf(stderr, "%s\n", err);
	n = count_events(path, &last, &nwarn);
	CHECK(n == 10 && nwarn == 0);
	CHECK(last == 5 * 0x100000000ull + 9);
	{
		FILE *f = fopen(path, "r");
		char line[256];
		int hits = 0;

		while (f && fgets(line, sizeof(line), f))
			hits += !strcmp(line, "#TimestampLength 8\n") ||
				!strcmp(line, "00000001000000100102\n") ||
				!strcmp(line, "00000000001234560107\n");
		if (f)
			fclose(f);
		CHECK(hits == 3);
	}
}

#define PER_CORE 1000

static uint8_t tbuf[2][PER_CORE * 7 + 8];

/* core k: task k+1 activate / start / terminate at 10 i + k */
static void *core_main(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg, i;
	unsigned bad = 0;

	for (i = 0; i < PER_CORE; i++)
		bad += at(k, 10u * i + k, k + 1, i % 3 == 0 ? TKREC_HTF_TASK_ACTIVATE :
			  i % 3 == 1 ? TKREC_HTF_TASK_START : TKREC_HTF_TASK_TERMINATE) != 0;
	return (void *)(uintptr_t)bad;
}

static void threads(const char *tmp)
{
	static const char *names[3] = { "activate", "start", "terminate" };
	pthread_t th[2];
	tk_reader_opts o;
	tk_reader *r = NULL;
	const tk_event *ev;
	tk_error e;
	char err[512];
	unsigned k, n = 0, bad = 0;
	void *ret;
	int rc;

	tkrec_htf_reset(T0);
	for (k = 0; k < 2; k++)
		CHECK(tkrec_htf_core_init(k, tbuf[k], sizeof(tbuf[k]), 4, 1, 1) == 0);
	CHECK(tkrec_htf_entity(1, "T1", TKREC_HTF_TASK) == 0);
	CHECK(tkrec_htf_entity(2, "T2", TKREC_HTF_TASK) == 0);
	for (k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, core_main, (void *)(uintptr_t)k);
	for (k = 0; k < 2; k++) {
		pthread_join(th[k], &ret);
		CHECK(ret == NULL);
	}
	CHECK(tkrec_htf_lost() == 0);
	CHECK(tkrec_htf_dump(tmp, NULL, err, sizeof(err)) == 2 * PER_CORE);
	tk_reader_opts_init(&o);
	o.format = "htf";
	o.strict = 1;
	CHECK(tk_reader_open(&r, tmp, &o, &e) == TK_OK);
	while (r && (rc = tk_reader_next(r, &ev, &e)) == TK_OK) {
		/* merged by time: 0 (core 0), 1 (core 1), 10, 11, ... */
		unsigned i = n / 2, c = n % 2;
		tk_trace *t = tk_reader_trace(r);
		const char *tn = tk_trace_str(t, tk_trace_entity(t, ev->target)->name, NULL);

		bad += ev->time != 10u * i + c || strcmp(tn, c ? "T2" : "T1") ||
		       strcmp(tk_trace_str(t, ev->name, NULL), names[i % 3]);
		n++;
	}
	CHECK(n == 2 * PER_CORE && bad == 0);
	if (r) {
		CHECK(tk_reader_warning_count(r) == 0);
		tk_reader_close(r);
	}
	remove(tmp);
}

/* ---- a SIGALRM handler logs while the main flow logs ---------------------- */

static volatile uint32_t h_count;

static void on_alarm(int sig)
{
	(void)sig;
	if (tkrec_htf_log(2, TKREC_HTF_ISR_START) == 0)
		h_count = h_count + 1;
}

static void signal_reentry(void)
{
	static uint8_t sbuf[200000 * 7 + 8];
	struct itimerval it, off;
	struct sigaction sa;
	const tkrec_htf_core *c;
	const uint8_t *p;
	uint32_t i, nmain = 0, n1 = 0, n2 = 0, bad = 0;
	uint64_t last = 0;

	tkrec_htf_reset(T0);
	tkrec_host_core = 0;
	now = T0;
	ticking = 1;
	CHECK(tkrec_htf_core_init(0, sbuf, sizeof(sbuf), 4, 2, 1) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	memset(&off, 0, sizeof(off));
	it.it_interval.tv_usec = it.it_value.tv_usec = 100;
	h_count = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 50000 || (h_count < 20 && i < 150000); i++)
		nmain += tkrec_htf_log(1, TKREC_HTF_TASK_START) == 0;
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	ticking = 0;
	c = tkrec_htf_core_get(0);
	CHECK(h_count >= 20 && nmain == i && tkrec_htf_lost() == 0);
	/* every record whole, times strictly growing: no section was cut */
	for (p = sbuf; c && p < c->pos; p += 7) {
		uint64_t t = (uint64_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		unsigned e = (unsigned)(p[4] << 8 | p[5]);

		bad += t <= last || !((e == 1 && p[6] == TKREC_HTF_TASK_START) ||
				      (e == 2 && p[6] == TKREC_HTF_ISR_START));
		n1 += e == 1;
		n2 += e == 2;
		last = t;
	}
	CHECK(bad == 0 && n1 == nmain && n2 == h_count);
	fprintf(stderr, "htf signal re-entry: %u main + %u handler events\n",
		(unsigned)n1, (unsigned)n2);
}

/*
 * An interrupt that registers an entity while the task registers one
 * (the host port's test point between the checks and the new entry):
 * both are kept, in two slots; the same id twice is kept once.
 */
static uint32_t isr_id;
static int isr_rc;

static void isr_register(unsigned id)
{
	if (id != TKREC_POINT_ENTITY)
		return;
	tkrec_host_set_point_hook(NULL);  /* once */
	isr_rc = tkrec_htf_entity(isr_id, "Isr", TKREC_HTF_ISR);
}

static void entity_interrupt(void)
{
	const tkrec_htf_ent *e0, *e1;

	tkrec_htf_reset(T0);
	isr_id = 8;
	isr_rc = -2;
	tkrec_host_set_point_hook(isr_register);
	CHECK(tkrec_htf_entity(7, "Task", TKREC_HTF_TASK) == 0);
	tkrec_host_set_point_hook(NULL);
	CHECK(isr_rc == 0);
	CHECK(tkrec_htf_entity_count() == 2);
	e0 = tkrec_htf_entity_get(0);
	e1 = tkrec_htf_entity_get(1);
	CHECK(e0 && e1 && e0->name && e1->name && e0->id == 7 && !strcmp(e0->name, "Task") &&
	      e1->id == 8 && !strcmp(e1->name, "Isr"));

	tkrec_htf_reset(T0);
	isr_id = 7;
	isr_rc = -2;
	tkrec_host_set_point_hook(isr_register);
	CHECK(tkrec_htf_entity(7, "Task", TKREC_HTF_TASK) == 0);
	tkrec_host_set_point_hook(NULL);
	CHECK(isr_rc < 0);  /* the id is the task's already */
	CHECK(tkrec_htf_entity_count() == 1);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "recorder_htf.htf";
	char bad[600], err[512];
	tkrec_htf_meta meta = { "host", "recorder test", "ns", 1, 1 };
	const tkrec_htf_core *c;
	FILE *f;
	char line[256];
	int in_data = 0, lines = 0;

	snprintf(bad, sizeof(bad), "%s.bad", path);
	setup();
	/* widths must be 1, 2, 4, 8; one record must fit */
	CHECK(tkrec_htf_core_init(2, buf1, sizeof(buf1), 3, 1, 1) < 0);
	CHECK(tkrec_htf_core_init(2, buf1, 7, 2, 1, 1) < 0);  /* 8 bytes needed */
	CHECK(tkrec_htf_core_init(2, buf1, 8, 2, 1, 1) == 0);
	CHECK(tkrec_htf_core_init(2, buf1, 23, 8, 8, 8) < 0);
	CHECK(tkrec_htf_core_init(2, buf1, 24, 8, 8, 8) == 0);
	tkrec_htf_reset(T0);
	setup();
	CHECK(tkrec_htf_core_init(FTRACE_MAX_CORES, buf1, sizeof(buf1), 2, 1, 1) < 0);
	CHECK(tkrec_htf_entity(2, "again", TKREC_HTF_TASK) < 0);
	CHECK(tkrec_htf_entity(9, "", TKREC_HTF_TASK) < 0);
	CHECK(tkrec_htf_entity(9, "x", 6) < 0);
	CHECK(at(2, 5, 2, 0) < 0);  /* core 2 has no buffer */
	CHECK(tkrec_htf_lost() == 0);
	log_scenario();
	/* the records are big-endian: core 1's first is 0078 02 00 */
	CHECK(buf1[0] == 0x00 && buf1[1] == 0x78 && buf1[2] == 0x02 && buf1[3] == 0x00);
	CHECK(buf0[0] == 0 && buf0[3] == 100 && buf0[4] == 0x01 && buf0[5] == 0x00);
	remove(path);
	CHECK(tkrec_htf_dump(path, &meta, err, sizeof(err)) == 12);
	if (err[0])
		fprintf(stderr, "%s\n", err);
	/* the file's widths are the widest (4, 2, 1): core 1's lines widened */
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "#TraceData\n"))
			in_data = 1;
		else if (in_data && line[0] != '#') {
			CHECK(strlen(line) == 15);
			lines++;
		}
		if (!strcmp(line, "#-01\n") && fgets(line, sizeof(line), f))
			CHECK(!strcmp(line, "00000078000200\n"));
	}
	if (f)
		fclose(f);
	CHECK(lines == 11);  /* 12 less the one read after #-01 */
	read_back(path);

	/* ids too wide, the all-ones id (time-base records'), a time back
	 * before a time-base record: dropped and counted; the dump writes
	 * the file with the count, and tracekit warns */
	CHECK(at(1, 900, 0x100, TKREC_HTF_TASK_START) < 0);  /* entity > 1 byte */
	CHECK(at(1, 900, 0xFF, TKREC_HTF_TASK_START) < 0);   /* the base marker */
	CHECK(at(1, 900, 2, 0x100) < 0);                     /* event > 1 byte */
	CHECK(at(1, 65536 + 5, 2, TKREC_HTF_TASK_RELEASE) == 0);
	CHECK(at(1, 65535, 2, TKREC_HTF_TASK_RELEASE) < 0);  /* back past 2^16 */
	c = tkrec_htf_core_get(1);
	CHECK(c && c->ovf_ts == 1 && c->ovf_ent == 2 && c->ovf_ev == 1);
	CHECK(tkrec_htf_lost() == 4);
	lost_file(bad, 13, 4);

	/* a full buffer: counted too */
	setup();
	while (at(1, 10, 2, 0) == 0)
		;
	c = tkrec_htf_core_get(1);
	/* 4-byte records written as 8-byte stores: 4 bytes of slack, 63 fit */
	CHECK(c && c->full == 1 && c->pos == c->end && c->pos == buf1 + 63 * 4);
	CHECK(buf1[sizeof(buf1) - 5] == 0x00 && buf1[sizeof(buf1) - 8] == 0x00 &&
	      buf1[sizeof(buf1) - 6] == 0x02);
	lost_file(bad, 63, 1);

	time_wrap(bad);

	/* an entity that was never registered, an event its type lacks */
	setup();
	CHECK(at(0, 10, 7, 0) == 0);
	refused(bad, "core 0 record 0: entity 0x7 is not registered");
	setup();
	CHECK(at(0, 10, 3, TKREC_HTF_ISR_TERMINATE + 1) == 0);
	refused(bad, "core 0 record 0: event 0x4 is no event of type ISR");
	/* an entity name the reader could not take back */
	tkrec_htf_reset(T0);
	CHECK(tkrec_htf_core_init(0, buf0, sizeof(buf0), 4, 2, 1) == 0);
	CHECK(tkrec_htf_entity(1, "two\nlines", TKREC_HTF_TASK) == 0);
	refused(bad, "entity 0x1: a name with a line break");
	/* a header value on two lines (its second line a header line of its
	 * own, read as the file's time scale), a time scale the reader lacks */
	tkrec_htf_reset(T0);
	CHECK(tkrec_htf_core_init(0, buf0, sizeof(buf0), 4, 2, 1) == 0);
	CHECK(tkrec_htf_entity(1, "T", TKREC_HTF_TASK) == 0);
	CHECK(at(0, 10, 1, TKREC_HTF_TASK_ACTIVATE) == 0);
	{
		tkrec_htf_meta m = { 0 };

		remove(bad);
		m.description = "demo\n#TimeScale ms";
		CHECK(tkrec_htf_dump(bad, &m, err, sizeof(err)) < 0);
		CHECK(strstr(err, "the meta's description has a line break") != NULL);
		m.description = NULL;
		m.target_system = "board\r";
		CHECK(tkrec_htf_dump(bad, &m, err, sizeof(err)) < 0);
		CHECK(strstr(err, "the meta's target system has a line break") != NULL);
		m.target_system = NULL;
		m.timescale = "minutes";
		CHECK(tkrec_htf_dump(bad, &m, err, sizeof(err)) < 0);
		CHECK(strstr(err, "time scale is none of") != NULL);
		CHECK(access(bad, F_OK) != 0);
		m.timescale = "us";
		CHECK(tkrec_htf_dump(bad, &m, err, sizeof(err)) == 1);
		remove(bad);
	}

	/* 8-byte entity ids with 1-byte times: the time-base records (an
	 * entity id of 8 bytes of ones) are taken as such, not as an entity
	 * that is not registered */
	tkrec_htf_reset(T0);
	CHECK(tkrec_htf_core_init(0, buf0, sizeof(buf0), 1, 8, 1) == 0);
	CHECK(tkrec_htf_entity(0xABCDEF01u, "Wide", TKREC_HTF_TASK) == 0);
	CHECK(at(0, 5, 0xABCDEF01u, TKREC_HTF_TASK_ACTIVATE) == 0);
	CHECK(at(0, 0x305, 0xABCDEF01u, TKREC_HTF_TASK_START) == 0);
	CHECK(tkrec_htf_core_get(0)->pos == buf0 + 3 * 10);  /* a time-base record between */
	remove(bad);
	CHECK(tkrec_htf_dump(bad, NULL, err, sizeof(err)) == 2);
	if (err[0])
		fprintf(stderr, "%s\n", err);
	{
		uint64_t last = 0, nwarn = 0;

		CHECK(count_events(bad, &last, &nwarn) == 2 && last == 0x305 && nwarn == 0);
	}
	remove(bad);

	signal_reentry();
	entity_interrupt();

	/* two threads as two cores, 1000 events each, read back in order */
	threads(bad);

	/* wide records (8/4/2 bytes: not packed), a time past 2^32 */
	tkrec_htf_reset(T0);
	CHECK(tkrec_htf_core_init(0, buf0, sizeof(buf0), 8, 4, 2) == 0);
	CHECK(tkrec_htf_entity(0x12345, "Wide", TKREC_HTF_TASK) == 0);
	CHECK(at(0, 5, 0x12345, TKREC_HTF_TASK_ACTIVATE) == 0);
	CHECK(at(0, 0x123456789ull, 0x12345, TKREC_HTF_TASK_START) == 0);
	CHECK(buf0[14 + 3] == 0x01 && buf0[14 + 4] == 0x23 && buf0[14 + 7] == 0x89 &&
	      buf0[14 + 9] == 0x01 && buf0[14 + 11] == 0x45 && buf0[14 + 13] == 0x01);
	CHECK(tkrec_htf_dump(bad, &meta, err, sizeof(err)) == 2);
	f = fopen(bad, "r");
	lines = 0;
	while (f && fgets(line, sizeof(line), f))
		lines += !strcmp(line, "0000000123456789000123450001\n");
	if (f)
		fclose(f);
	CHECK(lines == 1);
	remove(bad);

	if (fails) {
		fprintf(stderr, "recorder htf: %u checks failed\n", fails);
		return 1;
	}
	printf("recorder htf: all checks passed\n");
	return 0;
}
