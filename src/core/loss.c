/* loss.c - what a writer's format cannot hold (see loss.h). */
#include "loss.h"

#include <stdio.h>
#include <string.h>

/* The type of ev as the input spells it. */
static const char *type_of(const tk_writer *w, const tk_event *ev)
{
	if (!ev)
		return "-";
	if (ev->type_name != TK_NONE)
		return tk_trace_str(w->trace, ev->type_name, NULL);
	return tk_etype_name(ev->type);
}

int tk_loss_add(tk_losses *l, const tk_writer *w, const char *out, int kind,
		const tk_event *ev, tk_error *err)
{
	const char *en;

	if (kind < 0 || (unsigned)kind >= l->nkinds)
		return TK_OK;
	en = ev && ev->name != TK_NONE ? tk_trace_str(w->trace, ev->name, NULL)
	     : ev ? tk_evkind_name(ev->kind) : "";
	if (w->opts.strict && !ev)
		/* found at close: no one event to name */
		return tk_err_set(err, TK_E_UNSUPPORTED, out, 0, 0,
				  "%s cannot hold %s; outside strict mode it is dropped or changed with a warning",
				  l->format, l->what[kind]);
	if (w->opts.strict) {
		char at[48] = "";

		/* the position, unless the error names the input's line */
		if (!tk_writer_locates(w, ev))
			snprintf(at, sizeof(at), " at input position %llu",
				 ev ? (unsigned long long)ev->pos : 0ull);
		tk_err_set(err, TK_E_UNSUPPORTED, out, 0, 0,
			   "%s cannot hold %s (event '%.40s' of type %s%s); outside strict mode it is dropped or changed with a warning",
			   l->format, l->what[kind], en, type_of(w, ev), at);
		return tk_writer_locate(w, ev, TK_E_UNSUPPORTED, err);
	}
	if (!l->n[kind]++ && ev)
		snprintf(l->first[kind], sizeof(l->first[kind]),
			 "'%.24s' of %.24s", en, type_of(w, ev));
	return TK_OK;
}

/*
 * brief as it reads after a count of n: for 1, its first plural noun in
 * the singular ("1 note dropped", "1 empty target instance written as 0").
 */
static const char *count_brief(char *buf, size_t cap, const char *brief,
			       uint64_t n)
{
	static const char *const plural[][2] = {
		{ "events", "event" }, { "notes", "note" }, { "cores", "core" },
		{ "times", "time" }, { "instances", "instance" },
		{ "entries", "entry" }, { "changes", "change" },
		{ "strings", "string" }, { "names", "name" },
		{ "windows", "window" },
	};
	const char *p;
	size_t i, k;

	if (n != 1)
		return brief;
	for (p = brief; *p; p++) {
		if (p != brief && p[-1] != ' ')
			continue;
		for (i = 0; i < sizeof(plural) / sizeof(plural[0]); i++) {
			k = strlen(plural[i][0]);
			if (strncmp(p, plural[i][0], k) == 0 &&
			    (p[k] == ' ' || p[k] == '\0')) {
				snprintf(buf, cap, "%.*s%s%s", (int)(p - brief),
					 brief, plural[i][1], p + k);
				return buf;
			}
		}
	}
	return brief;
}

void tk_loss_report(const tk_losses *l, const tk_writer *w, const char *out)
{
	char one[256];
	tk_error wn;
	size_t o;
	uint64_t total = 0;
	unsigned k;

	if (!w->opts.on_warning)
		return;
	memset(&wn, 0, sizeof(wn));
	snprintf(wn.input, sizeof(wn.input), "%s", out);
	o = (size_t)snprintf(wn.msg, sizeof(wn.msg), "%s cannot hold everything:",
			     l->format);
	for (k = 0; k < l->nkinds; k++) {
		if (!l->n[k] || o >= sizeof(wn.msg))
			continue;
		o += (size_t)snprintf(wn.msg + o, sizeof(wn.msg) - o, "%s %llu %s",
				      total ? ";" : "",
				      (unsigned long long)l->n[k],
				      count_brief(one, sizeof(one), l->brief[k],
						  l->n[k]));
		if (l->first[k][0] && o < sizeof(wn.msg))
			o += (size_t)snprintf(wn.msg + o, sizeof(wn.msg) - o,
					      " (first %s)", l->first[k]);
		total += l->n[k];
	}
	if (o < sizeof(wn.msg))
		snprintf(wn.msg + o, sizeof(wn.msg) - o, " (strict mode refuses)");
	if (total)
		w->opts.on_warning(w->opts.warning_ctx, &wn);
}
