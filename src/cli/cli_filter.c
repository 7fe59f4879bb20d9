/*
 * cli_filter.c - the event filters of cat, convert, report and stats,
 * parsed once: --start, --end (a time window), --entity, --type, --event
 * (names); cat, convert and report hand them to the reader as its query
 * (cli_filter_query()), stats keeps the rows of the names.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cli_filter_add(const char ***list, size_t *n, const char *value)
{
	const char **nl = realloc(*list, (*n + 1) * sizeof(**list));

	if (!nl)
		return -1;
	nl[(*n)++] = value;
	*list = nl;
	return 0;
}

int cli_filter_opt(cli_filter *f, int code, const char *arg)
{
	static const char *const names[] = {
		"--start", "--end", "--entity", "--type", "--event"
	};
	int rc = 0;

	if (!f->given)
		f->given = names[code - CLI_O_START];
	if (code == CLI_O_START || code == CLI_O_END) {
		/* a bound given again must say the same: the window is one */
		const char **b = code == CLI_O_START ? &f->start_s : &f->end_s;
		if (*b && strcmp(*b, arg) != 0) {
			cli_msg("tracekit: %s '%s' contradicts %s '%s' given before\n",
				names[code - CLI_O_START], arg,
				names[code - CLI_O_START], *b);
			return -1;
		}
		*b = arg;
	} else if (code == CLI_O_ENTITY) {
		rc = cli_filter_add(&f->entities, &f->nentities, arg);
	} else if (code == CLI_O_TYPE) {
		rc = cli_filter_add(&f->types, &f->ntypes, arg);
	} else {
		rc = cli_filter_add(&f->events, &f->nevents, arg);
	}
	if (rc < 0)
		cli_msg("tracekit: out of memory\n");
	return rc;
}

/*
 * A --start or --end in ticks: 0, 1 when it lies beyond the last tick
 * (2^64 - 1; *out is then UINT64_MAX), -1 when it is not a time.
 */
static int bound(const char *s, const tk_timebase *tb, tk_round round,
		 uint64_t *out)
{
	tk_timebase from;
	uint64_t v;
	tk_unit u;
	int rc;

	/* a bare number is in the trace's own ticks */
	rc = tk_duration_parse(s, -1, &v, &u);
	if (rc == TK_E_PARSE) {
		char *end;
		unsigned long long t;
		errno = 0;
		t = strtoull(s, &end, 10);
		if (*s >= '0' && *s <= '9' && *end == '\0') {
			*out = (uint64_t)t;
			return errno == ERANGE; /* strtoull gave ULLONG_MAX */
		}
		return -1;
	}
	if (rc < 0)
		return -1;
	from.unit = u;
	from.num = 1;
	from.den = 1;
	rc = tk_time_convert(v, &from, tb, round, out);
	if (rc < 0) {
		/* beyond any tick: past the end of every trace */
		*out = UINT64_MAX;
		return 1;
	}
	return 0;
}

/*
 * Is time a after time b, as given (not as ticks)?  Two times with units
 * are compared exactly (in the smaller unit; one that overflows 64 bits
 * there is the larger).  With a bare tick count on either side, the
 * ticks (the start rounded up, the end down) already compare exactly.
 */
static int given_after(const char *a, const char *b, uint64_t ta, uint64_t tb)
{
	uint64_t va, vb;
	tk_unit ua, ub;

	if (tk_duration_parse(a, -1, &va, &ua) < 0 ||
	    tk_duration_parse(b, -1, &vb, &ub) < 0)
		return ta > tb;
	for (; ua > ub; ua--) {
		if (va > UINT64_MAX / 1000)
			return 1;
		va *= 1000;
	}
	for (; ub > ua; ub--) {
		if (vb > UINT64_MAX / 1000)
			return 0;
		vb *= 1000;
	}
	return va > vb;
}

/*
 * A --start or --end as the reader's query takes it: a count of a unit,
 * or ticks (a bare number).  0; 1 for a bare number beyond the last tick;
 * -1 when it is not a time (cli_filter_prepare() says so).
 */
static int query_bound(const char *s, uint64_t *v, int *unit)
{
	tk_unit u;
	int rc = tk_duration_parse(s, -1, v, &u);

	if (rc == TK_OK) {
		*unit = (int)u;
		return 0;
	}
	if (rc == TK_E_PARSE) {
		char *end;
		unsigned long long t;
		errno = 0;
		t = strtoull(s, &end, 10);
		if (*s >= '0' && *s <= '9' && *end == '\0') {
			*v = (uint64_t)t;
			*unit = TK_TICKS;
			return errno == ERANGE;
		}
	}
	return -1;
}

void cli_filter_query(const cli_filter *f, tk_reader_opts *ro)
{
	int rc, empty = 0;

	/* a bound that is not a time is left out: cli_filter_prepare()
	 * refuses it once the reader is open, before any event is read */
	if (f->start_s && (rc = query_bound(f->start_s, &ro->start,
					    &ro->start_unit)) >= 0) {
		ro->has_start = 1;
		empty = rc == 1;
	}
	if (empty) {
		/* a bare start beyond the last tick: no event, [1, 0) */
		ro->start = 1;
		ro->has_end = 1;
		ro->end = 0;
		ro->end_unit = TK_TICKS;
	} else if (f->end_s &&
		   query_bound(f->end_s, &ro->end, &ro->end_unit) >= 0) {
		/* --end is "at or before": a closed window (a bare number
		 * beyond the last tick is UINT64_MAX, no end) */
		ro->has_end = 1;
		ro->end_closed = 1;
	}
	ro->entities = f->entities;
	ro->nentities = f->nentities;
	ro->types = f->types;
	ro->ntypes = f->ntypes;
	ro->events = f->events;
	ro->nevents = f->nevents;
	ro->window_stop = TK_STOP_NEVER;
}

/* A bound with a unit where the ticks count cycles, which have none */
static int cycles_bound(const char *opt, const char *s, const tk_trace *t)
{
	uint64_t v;
	tk_unit u;

	if (!s || !tk_trace_cycle_unit(t) || tk_duration_parse(s, -1, &v, &u) != TK_OK)
		return 0;
	cli_msg("tracekit: bad %s '%s': the trace's times are %s cycles, which have no length (a bare number of them)\n",
		opt, s, tk_trace_cycle_unit(t));
	return 1;
}

int cli_filter_prepare(cli_filter *f, tk_reader *r)
{
	const tk_timebase *tb = tk_trace_timebase(tk_reader_trace(r));

	if (cycles_bound("--start", f->start_s, tk_reader_trace(r)) ||
	    cycles_bound("--end", f->end_s, tk_reader_trace(r)))
		return -1;

	if (f->start_s) {
		int rc = bound(f->start_s, tb, TK_ROUND_UP, &f->start);
		if (rc < 0) {
			cli_msg("tracekit: bad --start '%s' (a time such as 10ms, 250us, 1.5s, or ticks)\n",
				f->start_s);
			return -1;
		}
		/* a start beyond the last tick: no event is late enough */
		f->has_start = rc == 1 ? 2 : 1;
	}
	if (f->end_s) {
		if (bound(f->end_s, tb, TK_ROUND_DOWN, &f->end) < 0) {
			cli_msg("tracekit: bad --end '%s' (a time such as 10ms, 250us, 1.5s, or ticks)\n",
				f->end_s);
			return -1;
		}
		f->has_end = 1;
	}
	/* a start after the end is an error; a window between two ticks
	 * (--start 1ps --end 2ps of a 1 ns tick) is only empty */
	if (f->has_start && f->has_end && f->start > f->end &&
	    given_after(f->start_s, f->end_s, f->start, f->end)) {
		cli_msg("tracekit: --start '%s' is after --end '%s'\n", f->start_s, f->end_s);
		return -1;
	}
	return 0;
}

/* is s (len bytes) one of the n names of list? */
static int in_list(const char **list, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
			return 1;
	return 0;
}

int cli_filter_names(const cli_filter *f, const char *entity, size_t len,
		     const char *type)
{
	return (!f->nentities || in_list(f->entities, f->nentities, entity, len)) &&
	       (!f->ntypes || in_list(f->types, f->ntypes, type, strlen(type)));
}

void cli_filter_free(cli_filter *f)
{
	free(f->entities);
	free(f->types);
	free(f->events);
}

/* does some entity of t have the type named type (as a query matches it:
 * its canonical name or the name written)? */
static int type_in(const tk_trace *t, const char *type)
{
	size_t i, n = tk_trace_entity_count(t), len;
	const char *w;

	for (i = 0; i < n; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		if (!e)
			continue;
		if (e->type != TK_ET_UNKNOWN && !strcmp(tk_etype_name(e->type), type))
			return 1;
		if (e->type_name != TK_NONE && (w = tk_trace_str(t, e->type_name, &len)) &&
		    len == strlen(type) && !memcmp(w, type, len))
			return 1;
	}
	return 0;
}

void cli_filter_unmatched(const cli_filter *f, tk_reader *r, const char *const *also,
			  size_t nalso, const cli_read_opts *o)
{
	const tk_trace *t = r ? tk_reader_trace(r) : NULL;
	size_t i, j;

	if (!f || !t || (o && o->quiet))
		return;
	for (i = 0; i < f->nentities; i++) {
		const char *name = f->entities[i];
		size_t len = strlen(name);
		for (j = 0; j < nalso && (strncmp(also[j], name, len) || also[j][len] != '='); j++)
			;
		if (j == nalso && tk_trace_entity_find(t, name, strlen(name)) == TK_NONE)
			cli_msg("tracekit: warning: --entity '%s': the trace has no entity of that name\n",
				name);
	}
	for (i = 0; i < f->ntypes; i++)
		if (strcmp(f->types[i], "CHAIN") && !type_in(t, f->types[i]))
			cli_msg("tracekit: warning: --type '%s': no entity of the trace has that type\n",
				f->types[i]);
	for (i = 0; i < f->nevents; i++)
		if (tk_reader_event_name_seen(r, i) == 0)
			cli_msg("tracekit: warning: --event '%s': no event %s has that name\n",
				f->events[i], f->start_s || f->end_s ? "in the window" : "of the trace");
}
