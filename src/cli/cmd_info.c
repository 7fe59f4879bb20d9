/* cmd_info.c - `tracekit info`: what a trace holds, in one pass. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit info [options] FILE\n\n"
		"Shows the format, header, time span, event counts per type and event,\n"
		"entities per type and the cores of a trace.  JSON gives start, end and\n"
		"duration as decimal numbers in the time base's unit, rounded half up\n"
		"to a thousandth of a tick where they do not end there, and then the\n"
		"exact N/D too (start_exact, ...; docs/analysis.md, \"Numbers\").\n\n"
		"options:\n"
		"  --format text|json  output format (default text)\n"
		"  --from FORMAT       read FILE as FORMAT instead of probing it\n"
		CLI_READ_HELP
		"  --strict            read by the specification only (stop at the first departure)\n"
		"  -q, --quiet         no warnings on stderr\n"
		"  -h, --help          this help\n");
	cli_view_help(fp, "info");
}

/*
 * Event counts per (type as written, event as written), both string ids.
 * A trace has a handful of each, so each id gets a small dense index and
 * the counts are a 2-D array.  Pairs beyond DENSE x DENSE (traces with
 * very many type or event names) are counted in a hash map instead.  A
 * pair is only ever counted in one of the two: an id that finds the
 * indices used up, or is too large (TK_NONE), never gets an index later.
 *
 * Per string id, slot[id][0] holds its type's row offset in `cell` (dense
 * index * DENSE) and slot[id][1] its event's column (dense index), each
 * with the bit SLOT set, or 0 (none; what cli_grow() adds).  A row offset
 * has its low bits clear, so offset | column is the cell; the table is
 * `cap` long, a power of two, so that one compare of type | event tells
 * that both ids are in it.  An event costs one compare, two table reads,
 * one test and an increment.
 */
#define DENSE 64
#define DENSE_MAX_ID (1u << 24)
#define SLOT 0x80000000u
#define NO_SLOT 0u
/* core names on the table form's "cores:" line, at most */
#define INFO_CORE_NAMES 32

typedef struct ev_counts {
	uint32_t (*slot)[2];     /* per string id, cap long (see above) */
	size_t cap;              /* 0 or a power of two */
	tk_str ids[2][DENSE];    /* dense index -> string id */
	uint32_t n[2];
	uint64_t *cell;          /* [DENSE][DENSE] */
	tk_counts *more;
} ev_counts;

/* The slot of string `id` in dimension d (0 = type, 1 = event), given one
 * if there is room; NO_SLOT if it has none; -1 on out of memory. */
static int64_t dense_slot(ev_counts *c, int d, tk_str id)
{
	if (id < c->cap && c->slot[id][d] != NO_SLOT)
		return c->slot[id][d];
	/* string ids are dense, so a huge one (or TK_NONE) is no reader's:
	 * not worth a table that large */
	if (c->n[d] == DENSE || id >= DENSE_MAX_ID)
		return NO_SLOT;
	if (cli_grow((void **)&c->slot, &c->cap, id, sizeof(*c->slot)) < 0)
		return -1;
	c->ids[d][c->n[d]] = id;
	c->slot[id][d] = SLOT | (d == 0 ? c->n[d] * DENSE : c->n[d]);
	c->n[d]++;
	return c->slot[id][d];
}

static __attribute__((noinline)) int count_slow(ev_counts *c, tk_str type, tk_str event)
{
	int64_t a = dense_slot(c, 0, type), e = dense_slot(c, 1, event);

	if (a < 0 || e < 0)
		return -1;
	if (a != NO_SLOT && e != NO_SLOT) {
		c->cell[(a | e) & ~SLOT]++;
		return 0;
	}
	return tk_counts_add(c->more, ((uint64_t)type << 32) | event, 1) < 0
		       ? -1 : 0;
}

/*
 * Count a batch of events and widen [*tmin, *tmax] to their times; -1 on
 * out of memory.  The tables' pointers are kept in locals (reloaded after
 * the slow path, which may grow them): the counts' stores could otherwise
 * alias them, and the loop would reload them for every event.
 */
/* count_events() on its own and count_slow() out of its loop, so that the
 * loop keeps its tables in registers, not on cmd_info()'s crowded stack */
static __attribute__((noinline)) int count_events(ev_counts *c, const tk_event *ev, size_t n,
			uint64_t *tmin, uint64_t *tmax)
{
	const tk_event *end = ev + n;
	uint32_t (*slot)[2] = c->slot;
	size_t cap = c->cap;
	uint64_t *cell = c->cell, lo = *tmin, hi = *tmax;

	for (; ev < end; ev++) {
		tk_str type = ev->type_name, event = ev->name;
		lo = ev->time < lo ? ev->time : lo;
		hi = ev->time > hi ? ev->time : hi;
		if ((type | event) < cap) {
			uint32_t a = slot[type][0], e = slot[event][1];
			if (a & e & SLOT) {
				cell[(a | e) & ~SLOT]++;
				continue;
			}
		}
		if (count_slow(c, type, event) < 0)
			return -1;
		slot = c->slot;
		cap = c->cap;
	}
	*tmin = lo;
	*tmax = hi;
	return 0;
}

static void counts_free(ev_counts *c)
{
	free(c->slot);
	free(c->cell);
	tk_counts_free(c->more);
}

typedef struct count_row {
	const char *type;
	size_t ntype;
	const char *event;
	size_t nevent;
	uint64_t count;
	uint64_t key;    /* type id << 32 | event id: orders equal strings */
} count_row;

static int cmp_rows(const void *a, const void *b)
{
	const count_row *x = a, *y = b;
	size_t n = x->ntype < y->ntype ? x->ntype : y->ntype;
	int c = memcmp(x->type, y->type, n);

	if (c || x->ntype != y->ntype)
		return c ? c : (x->ntype < y->ntype ? -1 : 1);
	n = x->nevent < y->nevent ? x->nevent : y->nevent;
	c = memcmp(x->event, y->event, n);
	if (c || x->nevent != y->nevent)
		return c ? c : (x->nevent < y->nevent ? -1 : 1);
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * JSON: `"name": T,` with T a decimal number in the time base's unit
 * (tk_time_format_decimal; null without events), and where that is
 * rounded, `"name_exact": "N/D",` the exact value.
 */
static void put_json_time(FILE *fp, const char *name, uint64_t nevents,
			  uint64_t ticks, const tk_timebase *tb)
{
	char dec[200], ex[200];

	fprintf(fp, "  \"%s\": ", name);
	if (!nevents ||
	    tk_time_format_decimal(ticks, tb, tb->unit, dec, sizeof(dec)) < 0) {
		fputs("null,\n", fp);
		return;
	}
	fprintf(fp, "%s,\n", dec);
	if (tk_time_format(ticks, tb, tb->unit, ex, sizeof(ex)) >= 0 &&
	    strcmp(ex, dec))
		fprintf(fp, "  \"%s_exact\": \"%s\",\n", name, ex);
}

/*
 * A time, exactly.  Text: the number and unit; where
 * only a fraction is exact, the nanoseconds (rounded down, marked '~')
 * come first so that a person can read it, then the exact value.
 */
static void put_time(FILE *fp, uint64_t ticks, const tk_timebase *tb,
		     const char *uname)
{
	tk_timebase ns = { TK_UNIT_NS, 1, 1 };
	char buf[128];
	uint64_t approx;
	int n = tk_time_format(ticks, tb, tb->unit, buf, sizeof(buf));

	if (n < 0) {
		fputs("?", fp);
	} else if (strchr(buf, '/') &&
		   tk_time_convert(ticks, tb, &ns, TK_ROUND_DOWN, &approx) == TK_OK) {
		fprintf(fp, "~%llu ns (exactly %s %s)", (unsigned long long)approx,
			buf, uname);
	} else {
		fprintf(fp, "%s %s", buf, uname);
	}
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		CLI_READ_LONGOPTS,
		CLI_END_LONGOPTS
	};
	cli_read_opts ro = CLI_READ_OPTS_INIT;
	cli_args args = { { NULL }, 0 };
	const char *path, *outfmt = "text";
	tk_input *in = NULL;
	uint64_t nevents = 0, tmin = UINT64_MAX, tmax = 0, span = 0;
	uint32_t nlines = 0;
	tk_load *load = NULL;
	uint64_t per_type[TK_ET_COUNT] = { 0 };
	ev_counts counts;
	count_row *rows = NULL;
	tk_reader *r = NULL;
	const tk_event *ev;
	size_t nb;
	const tk_trace *t;
	const tk_timebase *tb;
	tk_error err;
	int c, rc, json, ret = EXIT_BAD;
	size_t i, j, nrows = 0, nents, ncores = 0, shown;

	memset(&counts, 0, sizeof(counts));
	optind = 1;
	while ((c = cli_getopt(argc, argv, "qh", longopts, &args)) != -1) {
		switch (c) {
		case 'f': outfmt = optarg; break;
		CLI_READ_CASES:
			if (cli_read_opt(&ro, "info", c, optarg) < 0)
				return EXIT_BAD;
			break;
		case 'q': ro.quiet = 1; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (strcmp(outfmt, "text") && strcmp(outfmt, "json")) {
		cli_usage_error("info", "unknown --format '%s' (text or json)", outfmt);
		return EXIT_BAD;
	}
	json = strcmp(outfmt, "json") == 0;
	if (args.n != 1) {
		cli_usage_error("info", "expected one FILE");
		return EXIT_BAD;
	}
	path = args.v[0];
	/* FILE opened once: its format may have a view of its own (cli.h) */
	if (cli_input(&in, path, &ro) < 0)
		return EXIT_BAD;
	if ((rc = cli_view_run(argc, argv, &args, &in, NULL, NULL)) >= 0)
		return rc;
	path = cli_input_name(path);
	if (cli_open_input(&r, in, &ro) < 0)
		return EXIT_BAD;
	t = tk_reader_trace(r);
	tb = tk_trace_timebase(t);
	tk_error_clear(&err);

	counts.cell = calloc(DENSE * DENSE, sizeof(*counts.cell));
	if (!counts.cell || tk_counts_new(&counts.more, NULL) < 0)
		goto nomem;
	/* an ATF file may hold several TraceData, time lines whose time
	 * starts again: their spans are the load's (tk_load_length()) */
	if (strcmp(tk_reader_format(r), "atf") == 0 &&
	    tk_load_new(&load, t, 0, NULL, NULL, &err) < 0) {
		cli_error(&err);
		goto out;
	}
	while ((rc = tk_reader_next_batch(r, &ev, &nb, 256, &err)) == TK_OK) {
		nevents += (uint64_t)nb;
		if (count_events(&counts, ev, nb, &tmin, &tmax) < 0)
			goto nomem;
		for (i = 0; load && i < nb; i++)
			if ((rc = tk_load_event(load, &ev[i], &err)) < 0)
				break;
		if (rc < 0)
			break;
	}
	if (rc < 0 || (load && (rc = tk_load_finish(load, &err)) < 0)) {
		cli_error(&err);
		goto out;
	}
	nlines = nevents ? 1 : 0;
	span = nevents ? tmax - tmin : 0;
	if (load && tk_load_time_lines(load) > 1) {
		/* the first event's time, the last's, the spans added */
		nlines = tk_load_time_lines(load);
		tk_load_span(load, &tmin, &tmax);
		span = tk_load_length(load);
	}

	nents = tk_trace_entity_count(t);
	for (i = 0; i < nents; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		per_type[e->type]++;
		ncores += e->type == TK_ET_C;
	}
	rows = calloc((size_t)counts.n[0] * counts.n[1] +
		      tk_counts_size(counts.more) + 1,
		      sizeof(*rows));
	if (!rows)
		goto nomem;
	for (i = 0; i < counts.n[0]; i++) {
		for (j = 0; j < counts.n[1]; j++) {
			uint64_t n = counts.cell[i * DENSE + j];
			if (!n)
				continue;
			rows[nrows].key = ((uint64_t)counts.ids[0][i] << 32) |
					  counts.ids[1][j];
			rows[nrows].count = n;
			nrows++;
		}
	}
	for (i = 0; i < tk_counts_size(counts.more); i++) {
		rows[nrows].key = tk_counts_key(counts.more, i,
						&rows[nrows].count);
		nrows++;
	}
	for (i = 0; i < nrows; i++) {
		tk_str ty = (tk_str)(rows[i].key >> 32);
		tk_str en = (tk_str)(rows[i].key & 0xffffffffu);
		rows[i].type = tk_trace_str(t, ty, &rows[i].ntype);
		rows[i].event = tk_trace_str(t, en, &rows[i].nevent);
	}
	qsort(rows, nrows, sizeof(*rows), cmp_rows);

	if (json) {
		size_t nh = tk_trace_header_count(t);
		int first = 1;
		printf("{\n  \"file\": ");
		cli_json_str(stdout, path, strlen(path));
		printf(",\n  \"format\": \"%s\",\n  \"header\": [", tk_reader_format(r));
		for (i = 0; i < nh; i++) {
			const tk_header_entry *h = tk_trace_header(t, i);
			printf("%s\n    {\"kind\": \"%s\", \"key\": ", i ? "," : "",
			       h->kind == TK_HDR_PARAM ? "param"
			       : h->kind == TK_HDR_ROW ? "row" : "comment");
			cli_json_str(stdout, h->key, strlen(h->key));
			printf(", \"value\": ");
			cli_json_str(stdout, h->value, strlen(h->value));
			printf("}");
		}
		printf("%s],\n", nh ? "\n  " : "");
		printf("  \"time_unit\": \"%s\",\n", cli_unit_name(t, tb->unit));
		printf("  \"timebase\": {\"unit\": \"%s\", \"num\": %llu, \"den\": %llu},\n",
		       tk_unit_name(tb->unit), (unsigned long long)tb->num,
		       (unsigned long long)tb->den);
		put_json_time(stdout, "start", nevents, tmin, tb);
		put_json_time(stdout, "end", nevents, tmax, tb);
		put_json_time(stdout, "duration", nevents, span, tb);
		printf("  \"time_lines\": %lu,\n", (unsigned long)nlines);
		printf("  \"events\": %llu,\n  \"entities\": %zu,\n",
		       (unsigned long long)nevents, nents);
		printf("  \"entity_types\": {");
		for (c = 0; c < TK_ET_COUNT; c++) {
			if (!per_type[c])
				continue;
			printf("%s\"%s\": %llu", first ? "" : ", ",
			       tk_etype_name((tk_etype)c),
			       (unsigned long long)per_type[c]);
			first = 0;
		}
		printf("},\n  \"cores\": [");
		first = 1;
		for (i = 0; i < nents; i++) {
			const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
			size_t n;
			const char *s;
			if (e->type != TK_ET_C)
				continue;
			s = tk_trace_str(t, e->name, &n);
			printf("%s", first ? "" : ", ");
			cli_json_str(stdout, s, n);
			first = 0;
		}
		printf("],\n  \"event_counts\": [");
		for (i = 0; i < nrows; i++) {
			printf("%s\n    {\"type\": ", i ? "," : "");
			cli_json_str(stdout, rows[i].type, rows[i].ntype);
			printf(", \"event\": ");
			cli_json_str(stdout, rows[i].event, rows[i].nevent);
			printf(", \"count\": %llu}", (unsigned long long)rows[i].count);
		}
		printf("%s],\n  \"warnings\": %llu\n}\n", nrows ? "\n  " : "",
		       (unsigned long long)tk_reader_warning_count(r));
	} else {
		size_t nh = tk_trace_header_count(t);
		int first = 1;
		printf("file:        ");
		cli_text_cstr(stdout, path);
		putchar('\n');
		printf("format:      %s\n", tk_reader_format(r));
		printf("time unit:   %s", cli_unit_name(t, tb->unit));
		if (tb->num != 1 || tb->den != 1)
			printf(" x %llu/%llu", (unsigned long long)tb->num,
			       (unsigned long long)tb->den);
		printf("\n");
		if (nevents) {
			printf("start:       ");
			put_time(stdout, tmin, tb, cli_unit_name(t, tb->unit));
			printf("\nend:         ");
			put_time(stdout, tmax, tb, cli_unit_name(t, tb->unit));
			printf("\nduration:    ");
			if (nlines > 1)
				printf("%lu time lines, ", (unsigned long)nlines);
			put_time(stdout, span, tb, cli_unit_name(t, tb->unit));
			printf("%s\n", nlines > 1 ? " in all (each from its first event to its last)" : "");
		} else {
			printf("start:       -\nend:         -\nduration:    -\n");
		}
		printf("events:      %llu\n", (unsigned long long)nevents);
		printf("entities:    %zu", nents);
		for (c = 0; c < TK_ET_COUNT; c++) {
			if (!per_type[c])
				continue;
			printf("%s%s %llu", first ? " (" : ", ",
			       tk_etype_name((tk_etype)c),
			       (unsigned long long)per_type[c]);
			first = 0;
		}
		printf("%s\n", first ? "" : ")");
		printf("cores:       %zu", ncores);
		first = 1;
		for (i = 0, shown = 0; i < nents; i++) {
			const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
			size_t n;
			const char *s;
			if (e->type != TK_ET_C)
				continue;
			if (shown == INFO_CORE_NAMES) {
				/* a line, not a page: the JSON form has them all */
				printf(", ... %zu more", ncores - shown);
				break;
			}
			s = tk_trace_str(t, e->name, &n);
			fputs(first ? " (" : ", ", stdout);
			cli_text(stdout, s, n);
			first = 0;
			shown++;
		}
		printf("%s\n", first ? "" : ")");
		printf("warnings:    %llu\n",
		       (unsigned long long)tk_reader_warning_count(r));
		if (nh) {
			printf("header:\n");
			for (i = 0; i < nh; i++) {
				const tk_header_entry *h = tk_trace_header(t, i);
				printf("  #%s", h->kind == TK_HDR_ROW ? "-" : "");
				cli_text_cstr(stdout, h->key);
				fputs(h->has_value && h->kind != TK_HDR_COMMENT ? " " : "",
				      stdout);
				cli_text_cstr(stdout, h->value);
				putchar('\n');
			}
		}
		if (nrows) {
			printf("events by type:\n");
			for (i = 0; i < nrows; i++) {
				fputs("  ", stdout);
				cli_text_pad(stdout, rows[i].type, rows[i].ntype, 6);
				putchar(' ');
				cli_text_pad(stdout, rows[i].event, rows[i].nevent, 22);
				printf(" %12llu\n", (unsigned long long)rows[i].count);
			}
		}
	}
	cli_warning_summary(r, &ro);
	ret = EXIT_OK;
	goto out;
nomem:
	cli_msg("tracekit: out of memory\n");
out:
	free(rows);
	counts_free(&counts);
	tk_load_free(load);
	tk_reader_close(r);
	return ret;
}
