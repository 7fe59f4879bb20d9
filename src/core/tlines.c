/*
 * tlines.c - the time lines of a trace (internal.h, tk_tlines).
 *
 * An ATF file may hold several TraceData, each a recording of its own whose
 * time starts again.  Its reader gives, as it comes to the k-th TraceData
 * and before its events, the header entry `TraceData.<k>.Begin` = "LINE
 * SKIP": its events are those from the line of its start tag (tk_event.pos)
 * on, past the first SKIP events of that line (those of the TraceData
 * before it on the same line).  This is the one place that reads it: the
 * ATF writer gives each event back to its TraceData, the analyses restart
 * their state where a time line begins.
 */
#include "internal.h"

#include <stdio.h>

void tk_tlines_init(tk_tlines *c, const tk_trace *t)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->on = t && strcmp(tk_trace_format(t), "atf") == 0;
	c->hdr_seen = (size_t)-1;
}

int tk_tlines_begin(const tk_trace *t, uint64_t k, uint64_t *line,
		    uint64_t *skip)
{
	char key[64];
	const char *v;
	unsigned long long l, n;

	snprintf(key, sizeof(key), "TraceData.%llu.Begin", (unsigned long long)k);
	v = tk_trace_header_get(t, key);
	if (!v || sscanf(v, "%llu %llu", &l, &n) != 2)
		return -1;
	*line = l;
	*skip = n;
	return 0;
}

uint32_t tk_tlines_of(tk_tlines *c, const tk_event *ev)
{
	uint64_t seen;
	size_t nh;

	if (!c->on)
		return 0;
	seen = ev->pos == c->pos_last ? c->pos_n : 0;
	for (;;) {
		if (!c->have_next) {
			nh = tk_trace_header_count(c->t);
			if (nh == c->hdr_seen)
				break;
			if (tk_tlines_begin(c->t, (uint64_t)c->k + 1, &c->next_line,
				     &c->next_skip) < 0) {
				c->hdr_seen = nh;
				break;
			}
			c->have_next = 1;
		}
		if (ev->pos < c->next_line ||
		    (ev->pos == c->next_line && seen < c->next_skip))
			break;
		c->k++;
		c->have_next = 0;
		c->hdr_seen = (size_t)-1;
	}
	if (ev->pos != c->pos_last)
		c->pos_n = 0;
	c->pos_last = ev->pos;
	c->pos_n++;
	return c->k;
}

int tk_tlines_next(tk_tlines *c, const tk_event *ev)
{
	uint32_t before = c->k;
	int any = c->any;

	if (!c->on)
		return 0;
	c->any = 1;
	return tk_tlines_of(c, ev) != before && any;
}
