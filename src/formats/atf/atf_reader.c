/*
 * atf_reader.c - the ATF reader (ALL-TIMES Trace Format 1.0, XML).
 *
 * Streaming: expat is fed slices of the byte source (CHUNK bytes at a
 * time), and the handlers put the events of one slice into a small queue that
 * tk_reader_next() drains before the next slice is parsed.  Memory holds the
 * SystemConfiguration (elements, event mappings, user tables) and one
 * slice's events, whatever the trace size.
 *
 * Times are decimals ("3.141592") scaled exactly into the tick: the tick is
 * the TimeBase divided by 10^d, where d is the largest number of decimal
 * digits (trailing zeros aside) among the times of the first PRESCAN bytes,
 * or the reader option time-digits=d.  A later time that needs more digits
 * is an error (never a rounding); the message names the option.
 *
 * What the model has no field for (configuration comments, annotations,
 * ToolInfo, TracingOverhead, TraceInformation, Cookies, the ids of the
 * elements and event mappings) is kept in the trace's header, elements as
 * canonical XML, so that the ATF writer gives them back.  docs/atf.md.
 */
#define _GNU_SOURCE
#include "atf.h"
#include "../../core/hashmap.h"

#include <expat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)64 << 10)
#define PRESCAN ((size_t)4 << 20)
#define MAX_DEPTH 256
#define MAX_TEXT ((size_t)1 << 20)
#define MAX_DIGITS 18

enum {
	W_VERSION, W_END, W_EVTYPE, W_SETYPE, W_LEADING_ZERO, W_NO_TIMEBASE,
	W_UNKNOWN_ELEMENT, W_USER_REF, W_TIME_DECREASES, W_TRACE_RESTART,
	W_USERTABLE, W_NO_TYPE, W_NO_START, W_START_STOP, W_OUTSIDE,
};

/* the elements the reader tracks (captured ones are not pushed) */
enum { E_NONE, E_CF, E_SC, E_TD, E_RES, E_SE, E_EIMS, E_EIM, E_UT, E_INFO,
       E_TB, E_TBVAL, E_TEXT, E_TE };

typedef struct resource {
	uint64_t id;
	uint32_t core;       /* entity */
} resource;

typedef struct selem {
	uint64_t id;
	uint32_t ent;
	uint32_t slot;       /* resource index + 1 */
	int atype;           /* ATF type or -1 */
	int sk;
	tk_etype et;
	tk_str type_name;
} selem;

typedef struct evmap {
	uint64_t id;
	int etype;           /* ATF event type or -1 (kept by name) */
	tk_str name;         /* the type as written */
	uint32_t user_ent;   /* for user events */
	tk_hashmap infos;          /* ReferenceID -> tk_str */
} evmap;

typedef struct buf {
	char *p;
	size_t n, cap;
} buf;

typedef struct atf_reader {
	tk_reader *r;
	tk_trace *t;
	const char *name;
	int strict;
	XML_Parser xp;
	/* options */
	unsigned digits;
	int digits_forced;
	uint64_t want_trace;     /* 0: all */
	/* element stack */
	uint8_t stack[MAX_DEPTH];
	unsigned depth;
	/* capture of an element as XML */
	unsigned cap_level;
	int cap_pending;         /* a start tag waits for '>' or '/>' */
	buf cap;
	char cap_key[128];
	int cap_keep;
	/* text of Comment, Info */
	buf text;
	char text_key[128];
	/* configuration */
	int seen_sc, seen_cf;
	resource *res;
	uint32_t nres, capres;
	tk_hashmap res_by_id;
	selem *se;
	uint32_t nse, capse;
	tk_hashmap se_by_id;
	uint32_t se_stack[MAX_DEPTH];
	unsigned se_depth;
	evmap *maps;
	uint32_t nmaps, capmaps;
	tk_hashmap map_by_id;
	uint32_t cur_map;
	uint64_t cur_ref;
	int have_tb, have_tbval;
	char tb_unit[8];
	uint64_t tb_num, tb_den;
	int config_done;
	/* trace data */
	uint64_t ntd;            /* TraceData seen */
	uint64_t out_td;         /* TraceData delivered */
	int td_selected;
	uint64_t td_entries;
	uint64_t q_pos;          /* pos of the last event delivered */
	uint64_t q_npos;         /* events delivered with that pos */
	int have_last;
	uint64_t last_time;
	/* the open TraceData's Start and Stop, when it has them (td_has
	 * bit 0 Start, bit 1 Stop), as written, for the messages */
	unsigned td_has;
	uint64_t td_start, td_stop;
	char td_start_s[48], td_stop_s[48];
	uint32_t last_slot;
	tk_str str_type[TK_ET_COUNT];
	/* the queue of one slice's events */
	tk_event *q;
	uint32_t qn, qhead, qcap;
	/* state */
	int failed, finished, header_done;
	tk_error perr;
	tk_synth synth;
	/* the hand scanner of <TraceData> content (scan_content()) */
	int scan_ok;             /* expat stands between tokens in <TraceData> */
	int scanning;            /* on_entry() runs for the scanner */
	uint64_t scan_line;      /* the scanned element's position */
	uint32_t scan_col;
	uint64_t last_end;       /* absolute end of expat's last event */
	uint64_t line;           /* line of the next byte to feed (1-based) */
	uint64_t line_start;     /* absolute offset of that line's start */
	int cr_last;             /* the bytes counted so far end with a CR */
	char *scratch;           /* what expat gets of a scanned slice */
	uint64_t skip_lines;     /* lines, bytes expat never saw */
	uint64_t skip_bytes;
	uint64_t pending;        /* bytes of a token expat has not finished */
} atf_reader;

/* ---- probing ------------------------------------------------------------ */

/*
 * A UTF-16 document (a byte-order mark, or '<' next to a zero byte):
 * a copy of [p, p + n) without its zero bytes, where the ASCII of the
 * markup reads as in UTF-8 (*out, n_out; the caller frees it); 0 for
 * another document, -1 out of memory.
 */
static int utf16_ascii(const uint8_t *p, size_t n, char **out, size_t *n_out)
{
	size_t i, k = 0;
	char *c;

	if (n < 2 || !((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff) ||
		       (p[0] == '<' && p[1] == 0) || (p[0] == 0 && p[1] == '<')))
		return 0;
	if (!(c = malloc(n)))
		return -1;
	for (i = 0; i < n; i++)
		if (p[i] && !(i < 2 && p[i] >= 0xfe))
			c[k++] = (char)p[i];
	*out = c;
	*n_out = k;
	return 1;
}

static int atf_probe_ascii(const uint8_t *buf_, size_t len)
{
	const char *p = (const char *)buf_;
	size_t i = 0;

	if (len >= 3 && buf_[0] == 0xef && buf_[1] == 0xbb && buf_[2] == 0xbf)
		i = 3;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i >= len || p[i] != '<')
		return 0;
	if (memmem(p + i, len - i, "<CommonFormat", 13))
		return 95;
	return 0;
}

int atf_probe(const uint8_t *buf_, size_t len)
{
	char *a;
	size_t an;

	if (utf16_ascii(buf_, len, &a, &an) > 0) {
		int score = atf_probe_ascii((const uint8_t *)a, an);
		free(a);
		return score;
	}
	return atf_probe_ascii(buf_, len);
}

/* ---- errors ------------------------------------------------------------- */

static uint64_t cur_line(atf_reader *h)
{
	if (h->scanning)
		return h->scan_line;
	return (uint64_t)XML_GetCurrentLineNumber(h->xp) + h->skip_lines;
}

static uint32_t cur_col(atf_reader *h)
{
	if (h->scanning)
		return h->scan_col;
	return (uint32_t)XML_GetCurrentColumnNumber(h->xp) + 1;
}

/* After an error (code < 0) in h->perr: the parser stops. */
static int stop(atf_reader *h, int code)
{
	if (code < 0 && !h->failed) {
		h->failed = 1;
		if (!h->scanning)
			XML_StopParser(h->xp, XML_FALSE);
	}
	return code;
}

static int fail(atf_reader *h, int code, const char *fmt, ...) TK_PRINTF(3, 4);

/* Record an error at the current element and stop the parser. */
static int fail(atf_reader *h, int code, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	if (h->failed)
		return code;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tk_err_set(&h->perr, code, h->name, cur_line(h), cur_col(h), "%s", msg);
	return stop(h, code);
}
#ifdef __clang_analyzer__
/* the static analyzer does not follow variadic functions: fail() returns
 * its code (internal.h) */
#define fail(h, code, ...) tk_err_code_(fail(h, code, __VA_ARGS__), code)
#endif

static int depart(atf_reader *h, unsigned kind, const char *fmt, ...)
	TK_PRINTF(3, 4);

/* A departure from the spec at the current element (tk_reader_depart()):
 * strict's error, which stops the parser (the first error is kept), is
 * the message without the lenient reading in parentheses. */
static int depart(atf_reader *h, unsigned kind, const char *fmt, ...)
{
	char msg[320], *paren;
	va_list ap;

	if (h->strict && h->failed)
		return TK_E_PARSE;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h->strict && (paren = strstr(msg, " (")))
		*paren = '\0';
	return stop(h, tk_reader_depart(h->r, &h->perr, kind, cur_line(h),
					cur_col(h), "%s", "%s", msg));
}

/* ---- small helpers ------------------------------------------------------ */

static int buf_add(buf *b, const char *s, size_t n)
{
	if (b->cap - b->n < n + 1 &&
	    (n >= SIZE_MAX - b->n ||
	     tk_grow_zero((void **)&b->p, &b->cap, b->n + n, 1) < 0))
		return TK_E_NOMEM;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return TK_OK;
}

static int buf_esc(buf *b, const char *s, size_t n, int attr)
{
	size_t i, from = 0;
	int rc = TK_OK;

	for (i = 0; i < n && rc == TK_OK; i++) {
		const char *rep = tk_xml_escape(s[i], attr);
		if (rep) {
			rc = buf_add(b, s + from, i - from);
			if (rc == TK_OK)
				rc = buf_add(b, rep, strlen(rep));
			from = i + 1;
		}
	}
	if (rc == TK_OK)
		rc = buf_add(b, s + from, n - from);
	return rc;
}

static const char *attr(const XML_Char **atts, const char *name)
{
	for (; atts && atts[0]; atts += 2)
		if (strcmp(atts[0], name) == 0)
			return atts[1];
	return NULL;
}

/* An unsigned decimal integer, the whole string. */
static int parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned)(unsigned char)*s - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int req_uint(atf_reader *h, const XML_Char **atts, const char *el,
		    const char *an, uint64_t *out)
{
	const char *v = attr(atts, an);

	if (!v)
		return fail(h, TK_E_PARSE, "<%s> without the attribute %s", el, an);
	if (parse_uint(v, out) < 0)
		return fail(h, TK_E_PARSE, "%s=\"%.40s\" of <%s> is not an unsigned integer",
			    an, v, el);
	return TK_OK;
}

static int add_header(atf_reader *h, const char *key, const char *val,
		      size_t vlen)
{
	if (tk_trace_header_push(h->t, TK_HDR_PARAM, key, strlen(key), val, vlen,
				1) < 0)
		return fail(h, TK_E_NOMEM, "out of memory");
	return TK_OK;
}

static tk_str intern(atf_reader *h, const char *s, size_t n)
{
	tk_str id = tk_strpool_intern(&h->t->pool, s, n);

	if (id == TK_NONE)
		fail(h, TK_E_NOMEM, "out of memory");
	return id;
}

static tk_str type_str(atf_reader *h, tk_etype et)
{
	if (h->str_type[et] == TK_NONE) {
		const char *n = tk_etype_name(et);
		h->str_type[et] = intern(h, n, strlen(n));
	}
	return h->str_type[et];
}

/*
 * A TimeStampType value: ((0)|([1-9][0-9]*))(\.[0-9]+)?  *intlen and
 * *frac receive the integer part's length and the significant decimal
 * digits (trailing zeros dropped).  Returns 0, 1 (valid only with leading
 * zeros) or -1.
 */
static int ts_shape(const char *s, size_t *intlen, size_t *fraclen)
{
	size_t i = 0, f, last = 0;
	int lz;

	while (s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0)
		return -1;
	lz = i > 1 && s[0] == '0';
	*intlen = i;
	*fraclen = 0;
	if (s[i] == '.') {
		f = ++i;
		while (s[i] >= '0' && s[i] <= '9') {
			if (s[i] != '0')
				last = i - f + 1;
			i++;
		}
		if (i == f)
			return -1;
		*fraclen = last;
	}
	if (s[i] != '\0')
		return -1;
	return lz;
}

/* A time value into ticks of 10^-digits; reports what is wrong. */
static int parse_time(atf_reader *h, const char *s, const char *what,
		      uint64_t *out)
{
	size_t il, fl, i;
	unsigned __int128 v = 0;
	int shape = ts_shape(s, &il, &fl);

	if (shape < 0)
		return fail(h, TK_E_PARSE,
			    "%s \"%.40s\" is not a time stamp (digits, optionally '.' and digits)",
			    what, s);
	if (shape > 0 && depart(h, W_LEADING_ZERO,
				"%s \"%.40s\" has a leading zero", what, s) < 0)
		return TK_E_PARSE;
	if (fl > MAX_DIGITS)
		return fail(h, TK_E_RANGE,
			    "%s \"%.40s\" has %zu decimal digits, more than the %d a 64-bit tick can take",
			    what, s, fl, MAX_DIGITS);
	if (fl > h->digits && h->digits_forced)
		return fail(h, TK_E_RANGE,
			    "%s \"%.40s\" has %zu decimal digits, more than the reader option time-digits=%u gives",
			    what, s, fl, h->digits);
	if (fl > h->digits)
		return fail(h, TK_E_RANGE,
			    "%s \"%.40s\" has %zu decimal digits, the tick was chosen for %u (from the times of the first %zu MiB; read with the reader option time-digits=%zu)",
			    what, s, fl, h->digits, PRESCAN >> 20, fl);
	for (i = 0; i < il; i++) {
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v >> 64)
			goto range;
	}
	for (i = 0; i < h->digits; i++) {
		unsigned d = i < fl ? (unsigned)(s[il + 1 + i] - '0') : 0;
		v = v * 10 + d;
		if (v >> 64)
			goto range;
	}
	*out = (uint64_t)v;
	return TK_OK;
range:
	return fail(h, TK_E_RANGE, "%s \"%.40s\" does not fit 64 bits of ticks",
		    what, s);
}

/* ---- capture: an element kept as canonical XML -------------------------- */

static int cap_start(atf_reader *h, const char *name, const XML_Char **atts)
{
	int rc;

	if (h->cap_pending && (rc = buf_add(&h->cap, ">", 1)) < 0)
		return rc;
	rc = buf_add(&h->cap, "<", 1);
	if (rc == TK_OK)
		rc = buf_add(&h->cap, name, strlen(name));
	for (; rc == TK_OK && atts && atts[0]; atts += 2) {
		rc = buf_add(&h->cap, " ", 1);
		if (rc == TK_OK)
			rc = buf_add(&h->cap, atts[0], strlen(atts[0]));
		if (rc == TK_OK)
			rc = buf_add(&h->cap, "=\"", 2);
		if (rc == TK_OK)
			rc = buf_esc(&h->cap, atts[1], strlen(atts[1]), 1);
		if (rc == TK_OK)
			rc = buf_add(&h->cap, "\"", 1);
	}
	h->cap_pending = 1;
	h->cap_level++;
	if (h->cap.n > MAX_TEXT)
		return fail(h, TK_E_RANGE, "element larger than %zu bytes", MAX_TEXT);
	return rc < 0 ? fail(h, TK_E_NOMEM, "out of memory") : TK_OK;
}

static void begin_capture(atf_reader *h, const char *key, int keep,
			  const char *name, const XML_Char **atts)
{
	h->cap.n = 0;
	h->cap_level = 0;
	h->cap_pending = 0;
	h->cap_keep = keep;
	snprintf(h->cap_key, sizeof(h->cap_key), "%s", key);
	cap_start(h, name, atts);
}

static void cap_end(atf_reader *h, const char *name)
{
	int rc;

	if (h->cap_pending)
		rc = buf_add(&h->cap, " />", 3);
	else if ((rc = buf_add(&h->cap, "</", 2)) == TK_OK &&
		 (rc = buf_add(&h->cap, name, strlen(name))) == TK_OK)
		rc = buf_add(&h->cap, ">", 1);
	h->cap_pending = 0;
	if (rc < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	if (--h->cap_level == 0 && h->cap_keep)
		add_header(h, h->cap_key, h->cap.p, h->cap.n);
}

static void cap_text(atf_reader *h, const char *s, int len)
{
	int i, blank = 1;

	for (i = 0; i < len && blank; i++)
		blank = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r';
	if (blank)
		return;
	if ((h->cap_pending && buf_add(&h->cap, ">", 1) < 0) ||
	    buf_esc(&h->cap, s, (size_t)len, 0) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	h->cap_pending = 0;
	if (h->cap.n > MAX_TEXT)
		fail(h, TK_E_RANGE, "element larger than %zu bytes", MAX_TEXT);
}

/* ---- the configuration -------------------------------------------------- */

static void push(atf_reader *h, int e)
{
	h->stack[h->depth++] = (uint8_t)e;
}

static void begin_text(atf_reader *h, const char *key)
{
	h->text.n = 0;
	if (h->text.p)
		h->text.p[0] = '\0';
	snprintf(h->text_key, sizeof(h->text_key), "%s", key);
	push(h, key[0] ? E_TEXT : E_INFO);
}

static void trim(const char **s, size_t *n)
{
	while (*n && strchr(" \t\r\n", (*s)[0]))
		(*s)++, (*n)--;
	while (*n && strchr(" \t\r\n", (*s)[*n - 1]))
		(*n)--;
}

static void on_resource(atf_reader *h, const XML_Char **atts)
{
	const char *sched = attr(atts, "Scheduler");
	char name[40], key[64];
	resource *rs;
	tk_entity *ent;
	uint64_t id;

	if (req_uint(h, atts, "Resource", "ID", &id) < 0)
		return;
	if (!sched) {
		fail(h, TK_E_PARSE, "<Resource> without the attribute Scheduler");
		return;
	}
	if (tk_hashmap_get(&h->res_by_id, id) != TK_NONE) {
		fail(h, TK_E_PARSE, "Resource ID %llu defined twice",
		     (unsigned long long)id);
		return;
	}
	if (tk_hashmap_set(&h->res_by_id, id, h->nres) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	if (tk_grow_zero32((void **)&h->res, &h->capres, h->nres,
			   sizeof(*h->res)) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	rs = &h->res[h->nres++];
	rs->id = id;
	snprintf(name, sizeof(name), "Core_%llu", (unsigned long long)id);
	rs->core = tk_trace_entity_intern(h->t, name, strlen(name));
	if (rs->core == TK_NONE) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	ent = tk_trace_ent(h->t, rs->core);
	ent->type = TK_ET_C;
	ent->type_name = type_str(h, TK_ET_C);
	if (tk_synth_cores(&h->synth, h->nres + 1) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	snprintf(key, sizeof(key), "Resource.%llu.Scheduler", (unsigned long long)id);
	add_header(h, key, sched, strlen(sched));
	push(h, E_RES);
}

static void on_selem(atf_reader *h, const XML_Char **atts)
{
	const char *nm = attr(atts, "Name"), *ty = attr(atts, "Type");
	char key[64], synth_name[48];
	uint64_t id;
	selem *e;
	tk_entity *te;
	int t, again;

	if (req_uint(h, atts, "SystemElement", "ID", &id) < 0)
		return;
	if (tk_hashmap_get(&h->se_by_id, id) != TK_NONE) {
		fail(h, TK_E_PARSE, "SystemElement ID %llu defined twice",
		     (unsigned long long)id);
		return;
	}
	if (tk_grow_zero32((void **)&h->se, &h->capse, h->nse,
			   sizeof(*h->se)) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	e = &h->se[h->nse];
	memset(e, 0, sizeof(*e));
	e->id = id;
	if (!nm || !*nm) {
		snprintf(synth_name, sizeof(synth_name), "SystemElement_%llu",
			 (unsigned long long)id);
		nm = synth_name;
	}
	/* a name defined before (an element of a task that migrates, one
	 * per Resource it runs in): the same entity, its first parent kept */
	again = tk_trace_entity_find(h->t, nm, strlen(nm)) != TK_NONE;
	e->ent = tk_trace_entity_intern(h->t, nm, strlen(nm));
	if (e->ent == TK_NONE) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	if (!ty) {
		if (depart(h, W_NO_TYPE, "SystemElement '%.40s' has no Type (read as unknown)",
			   nm) < 0)
			return;
		ty = "unknown";
	}
	t = atf_type_lookup(ty, strlen(ty));
	if (t < 0 && depart(h, W_SETYPE,
			    "unknown SystemElement type '%.40s' (isr, task, runnable, process, function, basic block, message, unknown); kept by name",
			    ty) < 0)
		return;
	e->atype = t;
	e->et = t >= 0 ? atf_type_etype(t) : TK_ET_OTHER;
	e->type_name = e->et == TK_ET_OTHER ? intern(h, ty, strlen(ty))
					    : type_str(h, e->et);
	e->sk = e->et == TK_ET_OTHER ? TK_SK_BLOCK : tk_synth_kind(e->et);
	/* the resource that holds it (through its ancestors) is its core */
	e->slot = h->nres;
	te = tk_trace_ent(h->t, e->ent);
	te->type = e->et;
	te->type_name = e->type_name;
	if (!again || te->parent == TK_NONE)
		te->parent = h->se_depth ? h->se[h->se_stack[h->se_depth - 1]].ent
					 : h->res[h->nres - 1].core;
	if (tk_hashmap_set(&h->se_by_id, id, h->nse) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	h->se_stack[h->se_depth++] = h->nse++;
	snprintf(key, sizeof(key), "SystemElement.%llu", (unsigned long long)id);
	if (add_header(h, key, nm, strlen(nm)) < 0)
		return;
	if (t < 0 || !attr(atts, "Type")) {
		snprintf(key, sizeof(key), "SystemElement.%llu.Type",
			 (unsigned long long)id);
		add_header(h, key, ty, strlen(ty));
	}
	push(h, E_SE);
}

static void on_evmap(atf_reader *h, const XML_Char **atts)
{
	const char *ty = attr(atts, "EventType");
	char key[64];
	uint64_t id;
	evmap *m;
	int e;

	if (req_uint(h, atts, "EventIDMapping", "EventID", &id) < 0)
		return;
	if (!ty) {
		fail(h, TK_E_PARSE, "<EventIDMapping> without the attribute EventType");
		return;
	}
	if (tk_hashmap_get(&h->map_by_id, id) != TK_NONE) {
		fail(h, TK_E_PARSE, "EventID %llu mapped twice", (unsigned long long)id);
		return;
	}
	e = atf_evtype_lookup(ty, strlen(ty));
	if (e == ATF_EV_END) {
		if (depart(h, W_END, "EventType 'end' is not in the specification's enumeration (read as terminate)") < 0)
			return;
	} else if (e < 0) {
		if (depart(h, W_EVTYPE, "unknown EventType '%.40s' (kept by name)", ty) < 0)
			return;
	}
	if (tk_grow_zero32((void **)&h->maps, &h->capmaps, h->nmaps,
			   sizeof(*h->maps)) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	m = &h->maps[h->nmaps];
	memset(m, 0, sizeof(*m));
	m->id = id;
	m->etype = e;
	m->name = intern(h, ty, strlen(ty));
	m->user_ent = TK_NONE;
	if (e == ATF_EV_USER) {
		char nm[40];
		tk_entity *te;
		snprintf(nm, sizeof(nm), "User_%llu", (unsigned long long)id);
		m->user_ent = tk_trace_entity_intern(h->t, nm, strlen(nm));
		if (m->user_ent == TK_NONE) {
			fail(h, TK_E_NOMEM, "out of memory");
			return;
		}
		te = tk_trace_ent(h->t, m->user_ent);
		te->type = TK_ET_OTHER;
		te->type_name = intern(h, "user", 4);
	}
	if (tk_hashmap_set(&h->map_by_id, id, h->nmaps) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	h->cur_map = h->nmaps++;
	snprintf(key, sizeof(key), "EventIDMapping.%llu", (unsigned long long)id);
	if (add_header(h, key, ty, strlen(ty)) < 0)
		return;
	push(h, E_EIM);
}

static void end_timebase(atf_reader *h)
{
	char v[96];
	tk_timebase tb;
	int rc;

	if (!h->have_tbval) {
		fail(h, TK_E_PARSE, "<TimeBase> without a <Value>");
		return;
	}
	rc = atf_tick(h->tb_unit, strlen(h->tb_unit), h->tb_num, h->tb_den,
		      h->digits, &tb);
	if (rc == TK_E_PARSE) {
		fail(h, TK_E_PARSE, "TimeBase Unit '%s' is not s, ms, us, ns, ps or as",
		     h->tb_unit);
		return;
	}
	if (rc < 0) {
		fail(h, TK_E_RANGE, "the TimeBase %llu/%llu %s with %u decimal digits has no 64-bit tick",
		     (unsigned long long)h->tb_num, (unsigned long long)h->tb_den,
		     h->tb_unit, h->digits);
		return;
	}
	tk_trace_set_timebase(h->t, &tb);
	h->have_tb = 1;
	snprintf(v, sizeof(v), "%s %llu/%llu", h->tb_unit,
		 (unsigned long long)h->tb_num, (unsigned long long)h->tb_den);
	add_header(h, "TimeBase", v, strlen(v));
	snprintf(v, sizeof(v), "%u", h->digits);
	add_header(h, "TimeDigits", v, strlen(v));
}

/* At the first TraceData: what the trace data need. */
static void end_config(atf_reader *h)
{
	if (h->config_done)
		return;
	h->config_done = 1;
	if (!h->have_tb) {
		char v[16];
		tk_timebase tb;

		if (depart(h, W_NO_TIMEBASE, "no <TimeBase> in the SystemConfiguration: 1 ns assumed") < 0)
			return;
		if (atf_tick("ns", 2, 1, 1, h->digits, &tb) < 0) {
			fail(h, TK_E_RANGE, "no 64-bit tick for %u digits", h->digits);
			return;
		}
		tk_trace_set_timebase(h->t, &tb);
		add_header(h, "TimeBase", "ns 1/1", 6);
		snprintf(v, sizeof(v), "%u", h->digits);
		add_header(h, "TimeDigits", v, strlen(v));
	}
}

static void on_tracedata(atf_reader *h, const XML_Char **atts)
{
	const char *st = attr(atts, "Start"), *sp = attr(atts, "Stop");
	char key[64];

	end_config(h);
	h->header_done = 1;
	h->ntd++;
	h->td_selected = !h->want_trace || h->want_trace == h->ntd;
	h->td_entries = 0;
	if (!st && depart(h, W_NO_START, "<TraceData> without the attribute Start") < 0)
		return;
	h->td_has = 0;
	if (st && parse_time(h, st, "Start", &h->td_start) < 0)
		return;
	if (sp && parse_time(h, sp, "Stop", &h->td_stop) < 0)
		return;
	h->td_has = (st ? 1u : 0u) | (sp ? 2u : 0u);
	snprintf(h->td_start_s, sizeof(h->td_start_s), "%.40s", st ? st : "");
	snprintf(h->td_stop_s, sizeof(h->td_stop_s), "%.40s", sp ? sp : "");
	if (h->td_has == 3 && h->td_start > h->td_stop &&
	    depart(h, W_START_STOP,
		   "<TraceData> Start=\"%s\" is after its Stop=\"%s\" (both kept as written)",
		   h->td_start_s, h->td_stop_s) < 0)
		return;
	if (h->td_selected) {
		h->out_td++;
		/* a recording of its own: nothing runs on from the one
		 * before, instances are numbered from 0 again */
		if (h->out_td > 1) {
			tk_synth_reset(&h->synth);
			h->last_slot = 0;
		}
		snprintf(key, sizeof(key), "TraceData.%llu.Start",
			 (unsigned long long)h->out_td);
		if (st && add_header(h, key, st, strlen(st)) < 0)
			return;
		snprintf(key, sizeof(key), "TraceData.%llu.Stop",
			 (unsigned long long)h->out_td);
		if (sp && add_header(h, key, sp, strlen(sp)) < 0)
			return;
		/* where it begins among the events, for a writer that
		 * gives the TraceData back: the line of its start tag and
		 * how many events of the TraceData before are on that line */
		{
			char b[48];
			uint64_t line = cur_line(h);
			snprintf(key, sizeof(key), "TraceData.%llu.Begin",
				 (unsigned long long)h->out_td);
			snprintf(b, sizeof(b), "%llu %llu", (unsigned long long)line,
				 (unsigned long long)(h->q_pos == line ? h->q_npos : 0));
			if (add_header(h, key, b, strlen(b)) < 0)
				return;
		}
	}
	push(h, E_TD);
}

/* ---- trace entries ------------------------------------------------------ */

static tk_event *enqueue(atf_reader *h)
{
	if (tk_grow_zero32((void **)&h->q, &h->qcap, h->qn,
			   sizeof(*h->q)) < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return NULL;
	}
	return &h->q[h->qn++];
}

static void on_entry(atf_reader *h, const XML_Char **atts)
{
	const char *ts = NULL, *es = NULL, *rs = NULL;
	uint64_t time, eid, ref;
	uint32_t mi, slot, core, fallback;
	const evmap *m;
	tk_event local, *ev = &local, *qe;
	int sk, rc;

	push(h, E_TE);
	if (!h->td_selected)
		return;
	for (; atts[0]; atts += 2) {
		switch (atts[0][0]) {
		case 'T': if (strcmp(atts[0], "Time") == 0) ts = atts[1]; break;
		case 'E': if (strcmp(atts[0], "EventID") == 0) es = atts[1]; break;
		case 'R': if (strcmp(atts[0], "ReferenceID") == 0) rs = atts[1]; break;
		default: break;
		}
	}
	if (!ts || !es || !rs) {
		fail(h, TK_E_PARSE, "<TraceEntry> without the attribute %s",
		     !ts ? "Time" : !es ? "EventID" : "ReferenceID");
		return;
	}
	if (parse_time(h, ts, "Time", &time) < 0)
		return;
	if (parse_uint(es, &eid) < 0 || parse_uint(rs, &ref) < 0) {
		fail(h, TK_E_PARSE, "%s=\"%.40s\" of <TraceEntry> is not an unsigned integer",
		     parse_uint(es, &eid) < 0 ? "EventID" : "ReferenceID",
		     parse_uint(es, &eid) < 0 ? es : rs);
		return;
	}
	mi = tk_hashmap_get(&h->map_by_id, eid);
	if (mi == UINT32_MAX) {
		fail(h, TK_E_PARSE, "EventID %llu is not in the EventIDMappings",
		     (unsigned long long)eid);
		return;
	}
	m = &h->maps[mi];
	if (h->have_last && time < h->last_time) {
		if (h->td_entries == 0) {
			tk_reader_warn(h->r, W_TRACE_RESTART, cur_line(h),
				       cur_col(h),
				       "TraceData %llu starts before the end of the one before: times decrease where they are concatenated (the reader option trace=N reads one)",
				       (unsigned long long)h->ntd);
		} else if (depart(h, W_TIME_DECREASES,
				  "time %.40s is before the entry before it", ts) < 0) {
			return;
		}
	}
	if (((h->td_has & 1) && time < h->td_start) ||
	    ((h->td_has & 2) && time > h->td_stop)) {
		int before = (h->td_has & 1) && time < h->td_start;

		if (depart(h, W_OUTSIDE,
			   "time %.40s is %s its TraceData's %s=\"%s\" (kept)", ts,
			   before ? "before" : "after", before ? "Start" : "Stop",
			   before ? h->td_start_s : h->td_stop_s) < 0)
			return;
	}
	h->have_last = 1;
	h->last_time = time;
	h->td_entries++;
	ev->time = time;
	ev->note = NULL;
	ev->note_len = 0;
	ev->pos = cur_line(h);
	if (m->etype == ATF_EV_USER) {
		uint32_t s = tk_hashmap_get(&m->infos, ref);
		if (s == UINT32_MAX) {
			char nm[32];
			if (depart(h, W_USER_REF,
				   "ReferenceID %llu is not in the UserTable of EventID %llu (named ref%llu)",
				   (unsigned long long)ref, (unsigned long long)eid,
				   (unsigned long long)ref) < 0)
				return;
			snprintf(nm, sizeof(nm), "ref%llu", (unsigned long long)ref);
			s = intern(h, nm, strlen(nm));
			if (s == TK_NONE)
				return;
		}
		ev->target = m->user_ent;
		ev->type = TK_ET_OTHER;
		ev->type_name = tk_trace_ent(h->t, m->user_ent)->type_name;
		ev->kind = TK_EV_OTHER;
		ev->name = s;
		slot = h->last_slot;
		sk = TK_SK_OTHER;
	} else {
		uint32_t si = tk_hashmap_get(&h->se_by_id, ref);
		const selem *e;
		const char *en;
		if (si == UINT32_MAX) {
			fail(h, TK_E_PARSE, "ReferenceID %llu is no SystemElement",
			     (unsigned long long)ref);
			return;
		}
		e = &h->se[si];
		ev->target = e->ent;
		ev->type = e->et;
		ev->type_name = e->type_name;
		if (m->etype < 0) {
			ev->kind = TK_EV_OTHER;
			ev->name = m->name;
		} else {
			ev->kind = atf_evtype_kind(m->etype, e->atype, &en);
			ev->name = intern(h, en, strlen(en));
			if (ev->name == TK_NONE)
				return;
		}
		slot = e->slot;
		h->last_slot = slot;
		sk = e->sk;
	}
	core = slot ? h->res[slot - 1].core : TK_NONE;
	fallback = ev->target;
	ev->core = core;
	rc = tk_synth_event(&h->synth, slot, core, fallback, sk, ev->kind,
			     ev->target, &ev->source, &ev->source_inst,
			     &ev->target_inst);
	if (rc < 0) {
		fail(h, TK_E_NOMEM, "out of memory");
		return;
	}
	qe = enqueue(h);
	if (!qe)
		return;
	*qe = local;
	if (h->q_pos != ev->pos)
		h->q_npos = 0;
	h->q_pos = ev->pos;
	h->q_npos++;
}

/* ---- expat handlers ----------------------------------------------------- */

static void unknown(atf_reader *h, const char *name, const char *parent,
		    const XML_Char **atts)
{
	if (depart(h, W_UNKNOWN_ELEMENT, "unexpected element <%.40s> in <%s> (ignored)",
		   name, parent) < 0)
		return;
	begin_capture(h, "", 0, name, atts);
}

static const char *const el_names[] = {
	"", "CommonFormat", "SystemConfiguration", "TraceData", "Resource",
	"SystemElement", "EventIDMappings", "EventIDMapping", "UserTable",
	"Info", "TimeBase", "Value", "Comment", "TraceEntry"
};

/* where expat's current event ends (absolute), for scan_content() */
static void mark_end(atf_reader *h)
{
	int n = XML_GetCurrentByteCount(h->xp);

	if (n > 0)
		h->last_end = (uint64_t)XML_GetCurrentByteIndex(h->xp) +
			      (uint64_t)n + h->skip_bytes;
}

static void XMLCALL on_start(void *ud, const XML_Char *name,
			     const XML_Char **atts)
{
	atf_reader *h = ud;
	int parent = h->depth ? h->stack[h->depth - 1] : E_NONE;
	char key[96];

	mark_end(h);
	if (h->failed)
		return;
	if (h->cap_level) {
		cap_start(h, name, atts);
		return;
	}
	if (h->depth >= MAX_DEPTH - 1) {
		fail(h, TK_E_PARSE, "elements nested deeper than %d", MAX_DEPTH);
		return;
	}
	switch (parent) {
	case E_NONE: {
		const char *v = attr(atts, "Version");
		if (strcmp(name, "CommonFormat") != 0) {
			fail(h, TK_E_PARSE, "the root element is <%.40s>, not <CommonFormat>",
			     name);
			return;
		}
		if (!v || strcmp(v, "1.0") != 0) {
			if (depart(h, W_VERSION, "CommonFormat Version is '%.20s', not 1.0",
				   v ? v : "") < 0)
				return;
		}
		h->seen_cf = 1;
		if (v && add_header(h, "Version", v, strlen(v)) < 0)
			return;
		push(h, E_CF);
		return;
	}
	case E_CF:
		if (strcmp(name, "SystemConfiguration") == 0) {
			const char *n = attr(atts, "Name");
			if (h->seen_sc || h->ntd) {
				fail(h, TK_E_PARSE, h->seen_sc ? "a second <SystemConfiguration>"
							     : "<SystemConfiguration> after <TraceData>");
				return;
			}
			h->seen_sc = 1;
			if (n && add_header(h, "SystemConfiguration.Name", n, strlen(n)) < 0)
				return;
			push(h, E_SC);
		} else if (strcmp(name, "TraceData") == 0) {
			on_tracedata(h, atts);
		} else if (strcmp(name, "Cookie") == 0) {
			begin_capture(h, "Cookie", 1, name, atts);
		} else {
			unknown(h, name, "CommonFormat", atts);
		}
		return;
	case E_SC:
		if (strcmp(name, "Comment") == 0)
			begin_text(h, "SystemConfiguration.Comment");
		else if (strcmp(name, "ToolInfo") == 0)
			begin_capture(h, "SystemConfiguration.ToolInfo", 1, name, atts);
		else if (strcmp(name, "Resource") == 0)
			on_resource(h, atts);
		else if (strcmp(name, "EventIDMappings") == 0)
			push(h, E_EIMS);
		else if (strcmp(name, "TimeBase") == 0) {
			const char *u = attr(atts, "Unit");
			if (!u) {
				fail(h, TK_E_PARSE, "<TimeBase> without the attribute Unit");
				return;
			}
			if (h->have_tb || h->have_tbval) {
				fail(h, TK_E_PARSE, "a second <TimeBase>");
				return;
			}
			snprintf(h->tb_unit, sizeof(h->tb_unit), "%.7s", u);
			if (strlen(u) > 2) {
				fail(h, TK_E_PARSE, "TimeBase Unit '%.20s' is not s, ms, us, ns, ps or as", u);
				return;
			}
			push(h, E_TB);
		} else
			unknown(h, name, "SystemConfiguration", atts);
		return;
	case E_RES:
		if (strcmp(name, "SystemElement") == 0)
			on_selem(h, atts);
		else if (strcmp(name, "TimeRangeElement") == 0) {
			snprintf(key, sizeof(key), "Resource.%llu.TimeRangeElement",
				 (unsigned long long)h->res[h->nres - 1].id);
			begin_capture(h, key, 1, name, atts);
		} else
			unknown(h, name, "Resource", atts);
		return;
	case E_SE: {
		unsigned long long id = (unsigned long long)h->se[h->se_stack[h->se_depth - 1]].id;
		if (strcmp(name, "SystemElement") == 0) {
			on_selem(h, atts);
		} else if (strcmp(name, "Comment") == 0) {
			snprintf(key, sizeof(key), "SystemElement.%llu.Comment", id);
			begin_text(h, key);
		} else if (strcmp(name, "Annotation") == 0) {
			snprintf(key, sizeof(key), "SystemElement.%llu.Annotation", id);
			begin_capture(h, key, 1, name, atts);
		} else {
			unknown(h, name, "SystemElement", atts);
		}
		return;
	}
	case E_EIMS:
		if (strcmp(name, "EventIDMapping") == 0)
			on_evmap(h, atts);
		else
			unknown(h, name, "EventIDMappings", atts);
		return;
	case E_EIM:
		if (strcmp(name, "UserTable") == 0) {
			if (h->maps[h->cur_map].etype != ATF_EV_USER &&
			    depart(h, W_USERTABLE, "a <UserTable> in a mapping of EventType '%.40s'",
				   tk_trace_str(h->t, h->maps[h->cur_map].name, NULL)) < 0)
				return;
			push(h, E_UT);
		} else {
			unknown(h, name, "EventIDMapping", atts);
		}
		return;
	case E_UT:
		if (strcmp(name, "Info") == 0) {
			if (req_uint(h, atts, "Info", "ReferenceID", &h->cur_ref) < 0)
				return;
			begin_text(h, "");
		} else {
			unknown(h, name, "UserTable", atts);
		}
		return;
	case E_TB:
		if (strcmp(name, "Value") == 0 || strcmp(name, "Fraction") == 0) {
			if (h->have_tbval) {
				fail(h, TK_E_PARSE, "a second <%s> in <TimeBase>", name);
				return;
			}
			if (req_uint(h, atts, name, "Numerator", &h->tb_num) < 0 ||
			    req_uint(h, atts, name, "Denominator", &h->tb_den) < 0)
				return;
			if (!h->tb_num || !h->tb_den) {
				fail(h, TK_E_PARSE, "a TimeBase of %llu/%llu (a zero)",
				     (unsigned long long)h->tb_num,
				     (unsigned long long)h->tb_den);
				return;
			}
			h->have_tbval = 1;
			push(h, E_TBVAL);
		} else {
			unknown(h, name, "TimeBase", atts);
		}
		return;
	case E_TD:
		if (strcmp(name, "TraceEntry") == 0) {
			on_entry(h, atts);
			return;
		}
		snprintf(key, sizeof(key), "TraceData.%llu.%.40s",
			 (unsigned long long)h->out_td, name);
		if (strcmp(name, "Comment") == 0)
			begin_text(h, h->td_selected ? key : "TraceData.-");
		else if (strcmp(name, "ToolInfo") == 0 ||
			 strcmp(name, "TracingOverhead") == 0 ||
			 strcmp(name, "TraceInformation") == 0)
			begin_capture(h, key, h->td_selected, name, atts);
		else
			unknown(h, name, "TraceData", atts);
		return;
	default:
		unknown(h, name, el_names[parent], atts);
		return;
	}
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	atf_reader *h = ud;
	int e;

	mark_end(h);
	if (h->failed)
		return;
	if (h->cap_level) {
		cap_end(h, name);
		return;
	}
	if (!h->depth)
		return;
	e = h->stack[--h->depth];
	switch (e) {
	case E_TEXT:
		if (strcmp(h->text_key, "TraceData.-") != 0)
			add_header(h, h->text_key, h->text.p ? h->text.p : "", h->text.n);
		break;
	case E_INFO: {
		evmap *m = &h->maps[h->cur_map];
		const char *s = h->text.p ? h->text.p : "";
		size_t n = h->text.n;
		char key[96];
		tk_str id;
		trim(&s, &n);
		if (!n) {
			fail(h, TK_E_PARSE, "an empty <Info>");
			return;
		}
		id = intern(h, s, n);
		if (id == TK_NONE)
			return;
		if (tk_hashmap_get(&m->infos, h->cur_ref) != TK_NONE) {
			fail(h, TK_E_PARSE, "ReferenceID %llu twice in a UserTable",
			     (unsigned long long)h->cur_ref);
			return;
		}
		if (tk_hashmap_set(&m->infos, h->cur_ref, id) < 0) {
			fail(h, TK_E_NOMEM, "out of memory");
			return;
		}
		snprintf(key, sizeof(key), "EventIDMapping.%llu.Info.%llu",
			 (unsigned long long)m->id, (unsigned long long)h->cur_ref);
		add_header(h, key, s, n);
		break;
	}
	case E_SE:
		h->se_depth--;
		break;
	case E_TB:
		end_timebase(h);
		break;
	case E_SC:
		end_config(h);
		break;
	case E_CF:
		end_config(h);
		h->header_done = 1;
		break;
	default:
		break;
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	atf_reader *h = ud;
	int e;

	mark_end(h);
	if (h->failed)
		return;
	if (h->cap_level) {
		cap_text(h, s, len);
		return;
	}
	e = h->depth ? h->stack[h->depth - 1] : E_NONE;
	if (e == E_TEXT || e == E_INFO) {
		if (buf_add(&h->text, s, (size_t)len) < 0)
			fail(h, TK_E_NOMEM, "out of memory");
		else if (h->text.n > MAX_TEXT)
			fail(h, TK_E_RANGE, "text longer than %zu bytes", MAX_TEXT);
	}
}

static void XMLCALL on_entity_decl(void *ud, const XML_Char *name, int pe,
				   const XML_Char *value, int vlen,
				   const XML_Char *base, const XML_Char *sysid,
				   const XML_Char *pubid, const XML_Char *notation)
{
	(void)pe; (void)value; (void)vlen; (void)base; (void)sysid;
	(void)pubid; (void)notation;
	fail(ud, TK_E_PARSE, "entity declaration '%.40s': ATF does not use entities",
	     name);
}

/* ---- feeding ------------------------------------------------------------ */

/*
 * The hand scanner of <TraceData> content, the bulk of a trace.  What
 * expat cannot do: hand over an element without parsing and normalising
 * its attributes and calling back at its start and its end, nor leave
 * bytes out and still count their lines.  So where expat stands between
 * two tokens inside <TraceData> (it has reported every byte fed, and
 * <TraceData> is the open element), the scanner reads what follows
 * itself: whitespace and empty <TraceEntry> elements whose attributes are
 * plain (ASCII names, quoted values without '&', '<', control characters
 * or non-ASCII bytes, no name twice), each handed to on_entry() as expat
 * would.  Expat gets, of what was scanned, the rest of
 * the first line and the start of the last one blanked out (whole lines in
 * between are left out, and counted: h->skip_lines and h->skip_bytes
 * correct expat's positions), so its columns, its element stack and its
 * checks of everything else stay as they were.  At anything else (a
 * comment, an entity or character reference, CDATA, another element,
 * </TraceData>, text) it stops and expat reads on from there, up
 * to the next <TraceEntry: it accepts nothing that expat would refuse.
 */
enum { SCAN_OTHER, SCAN_MORE };

#define SCAN_MAX_ATTS 16

static int is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_name_start(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       c == ':';
}

static int is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' ||
	       c == '.';
}

/*
 * Skips the blanks from p[*i].  A CR only as the first half of a CR LF:
 * to XML a lone CR is a line end of its own, which the scanner does not
 * count, so it leaves such regions to expat.  1: at a non-blank, 0: needs
 * more bytes, -1: a lone CR.
 */
static int skip_ws(const char *p, size_t n, size_t *i)
{
	size_t k = *i;

	while (k < n && is_ws((unsigned char)p[k])) {
		if (p[k] == '\r') {
			if (k + 1 >= n)
				return 0;
			if (p[k + 1] != '\n')
				return -1;
		}
		k++;
	}
	*i = k;
	return k < n;
}

/* one <TraceEntry .../> at p[0..n): its length, 0 if it needs more bytes,
 * -1 if it is not for the scanner */
static ptrdiff_t scan_entry(const char *p, size_t n, const char **atts,
			    char *vals)
{
	size_t i = 11, na = 0, k;
	char *v = vals;
	int rc;

	/* "<TraceEntry" checked by the caller */
	for (;;) {
		size_t ws = i, ns, ne, vs;
		char qch;
		if ((rc = skip_ws(p, n, &i)) <= 0)
			return rc;
		if (p[i] == '/') {
			if (i + 1 >= n)
				return 0;
			if (p[i + 1] != '>')
				return -1;
			i += 2;
			break;
		}
		if (p[i] == '>') {
			/* <TraceEntry ...></TraceEntry> */
			static const char close[] = "</TraceEntry";
			i++;
			if (n - i < sizeof(close) - 1)
				return 0;
			if (memcmp(p + i, close, sizeof(close) - 1) != 0)
				return -1;
			i += sizeof(close) - 1;
			if ((rc = skip_ws(p, n, &i)) <= 0)
				return rc;
			if (p[i] != '>')
				return -1;
			i++;
			break;
		}
		if (i == ws || na == SCAN_MAX_ATTS ||
		    !is_name_start((unsigned char)p[i]))
			return -1; /* no blank before the name, or an odd one */
		ns = i;
		while (i < n && is_name_char((unsigned char)p[i]))
			i++;
		ne = i;
		if ((rc = skip_ws(p, n, &i)) <= 0)
			return rc;
		if (p[i] != '=')
			return -1;
		i++;
		if ((rc = skip_ws(p, n, &i)) <= 0)
			return rc;
		if (p[i] != '"' && p[i] != '\'')
			return -1;
		qch = p[i++];
		vs = i;
		while (i < n && p[i] != qch) {
			unsigned char c = (unsigned char)p[i];
			if (c < 0x20 || c >= 0x80 || c == '&' || c == '<')
				return -1; /* normalised, referenced, or bad */
			i++;
		}
		if (i >= n)
			return 0;
		if (ne - ns > 64 || i - vs > 256)
			return -1;
		/* the names and values, NUL-terminated, in vals */
		memcpy(v, p + ns, ne - ns);
		v[ne - ns] = '\0';
		atts[2 * na] = v;
		v += ne - ns + 1;
		memcpy(v, p + vs, i - vs);
		v[i - vs] = '\0';
		atts[2 * na + 1] = v;
		v += i - vs + 1;
		for (k = 0; k < na; k++)
			if (strcmp(atts[2 * k], atts[2 * na]) == 0)
				return -1; /* twice: expat says so */
		na++;
		i++; /* the closing quote */
	}
	atts[2 * na] = NULL;
	return (ptrdiff_t)i;
}

/*
 * Scan p[0..n) (the bytes after what expat has read).  Returns the number
 * of bytes handled; *why tells why it stopped there.
 */
static size_t scan_content(atf_reader *h, const char *p, size_t n, int *why)
{
	const char *atts[2 * SCAN_MAX_ATTS + 1];
	char vals[SCAN_MAX_ATTS * (64 + 256 + 2)];
	uint64_t base = tk_source_offset(h->r->src);
	size_t i = 0;

	*why = SCAN_OTHER;
	/* the LF of a CR LF whose CR expat had: expat counts it */
	if (h->cr_last && n && p[0] == '\n')
		return 0;
	h->cr_last = 0;
	while (i < n) {
		unsigned char c = (unsigned char)p[i];
		unsigned depth;
		ptrdiff_t len;
		const char *q;
		if (c == '\n') {
			i++;
			h->line++;
			h->line_start = base + i;
			h->cr_last = 0;
			continue;
		}
		if (c == '\r') {
			if (i + 1 >= n) {
				*why = SCAN_MORE;
				return i;
			}
			if (p[i + 1] != '\n')
				return i; /* a lone CR: expat's */
		}
		if (is_ws(c)) {
			i++;
			continue;
		}
		if (c != '<')
			return i;
		if (n - i < 12) {
			*why = SCAN_MORE;
			return i;
		}
		if (memcmp(p + i, "<TraceEntry", 11) != 0 ||
		    !(is_ws((unsigned char)p[i + 11]) || p[i + 11] == '/' ||
		      p[i + 11] == '>'))
			return i;
		depth = h->depth;
		len = scan_entry(p + i, n - i, atts, vals);
		if (len <= 0) {
			*why = len == 0 ? SCAN_MORE : SCAN_OTHER;
			return i;
		}
		h->scan_line = h->line;
		h->scan_col = (uint32_t)(base + i - h->line_start + 1);
		h->scanning = 1;
		on_entry(h, atts);
		h->scanning = 0;
		if (h->depth > depth)
			h->depth = depth; /* its end tag */
		if (h->failed)
			return i;
		for (q = p + i; (q = memchr(q, '\n', (size_t)(p + i + len - q))) != NULL;) {
			q++;
			h->line++;
			h->line_start = base + (uint64_t)(q - p);
		}
		i += (size_t)len;
	}
	*why = SCAN_MORE;
	return i;
}

/*
 * Count the lines of bytes given to expat as they are, as XML does: LF,
 * CR LF and a lone CR each end a line (a CR LF may be cut between two
 * slices: cr_last).
 */
static void count_lines(atf_reader *h, const char *p, size_t n)
{
	uint64_t base = tk_source_offset(h->r->src);
	const char *e = p + n, *q = p;
	size_t i;

	if (!n)
		return;
	if (h->cr_last && p[0] == '\n') {
		q = p + 1;  /* counted with its CR */
		h->line_start = base + 1;
	}
	if (!memchr(q, '\r', (size_t)(e - q))) {
		while ((q = memchr(q, '\n', (size_t)(e - q))) != NULL) {
			q++;
			h->line++;
			h->line_start = base + (uint64_t)(q - p);
		}
	} else {
		for (i = (size_t)(q - p); i < n; i++) {
			if (p[i] == '\r' ? i + 1 < n && p[i + 1] == '\n'
					  : p[i] != '\n')
				continue;  /* a CR LF ends at its LF */
			h->line++;
			h->line_start = base + i + 1;
		}
	}
	h->cr_last = p[n - 1] == '\r';
}

static void parse_error(atf_reader *h)
{
	if (!h->failed) {
		enum XML_Error code = XML_GetErrorCode(h->xp);
		tk_err_set(&h->perr, TK_E_PARSE, h->name, cur_line(h), cur_col(h),
			   "XML: %s", XML_ErrorString(code));
		h->failed = 1;
	}
}

/*
 * What expat holds of a token it has not finished: outside a handler, its
 * byte index is just past its last event, and it was given all it is
 * counted for but the bytes the scanner left out.
 */
static void note_pending(atf_reader *h)
{
	XML_Index at = XML_GetCurrentByteIndex(h->xp);
	uint64_t fed = tk_source_offset(h->r->src) - h->skip_bytes;

	h->pending = at >= 0 && (uint64_t)at <= fed ? fed - (uint64_t)at : 0;
}

/* After expat has parsed a slice: errors, the end, whether the scanner may
 * read on. */
static void parsed(atf_reader *h, enum XML_Status st, int final)
{
	tk_source *src = h->r->src;

	if (final)
		h->finished = 1;
	if (st == XML_STATUS_ERROR) {
		parse_error(h);
		return;
	}
	note_pending(h);
	h->scan_ok = !h->failed && !final && !h->cap_level && h->depth &&
		     h->depth < MAX_DEPTH - 1 &&
		     h->stack[h->depth - 1] == E_TD &&
		     h->last_end == tk_source_offset(src);
}

/*
 * A slice of at least as many bytes as expat holds of an unfinished token
 * (a comment, a tag, a declaration longer than a slice).  expat 2.5 scans
 * such a token again from its start at each call (2.6 can defer that
 * itself), so slices of CHUNK bytes would make a token of L bytes cost
 * L^2 / CHUNK; slices that grow with it cost O(L) in all.  The bytes are
 * copied into expat's own buffer a window at a time, so that only expat
 * holds the token (what it must hold anyway); the slices are CHUNK bytes
 * again once the token ends.
 */
static int feed_long(atf_reader *h, tk_error *err)
{
	tk_source *src = h->r->src;
	size_t want = h->pending < (uint64_t)(INT_MAX / 4) ? (size_t)h->pending
							   : (size_t)(INT_MAX / 4);
	size_t got = 0, k;
	tk_window w;
	char *dst;
	int rc;

	dst = XML_GetBuffer(h->xp, (int)want);
	if (!dst) {
		tk_err_nomem(&h->perr, h->name);
		h->failed = 1;
		return TK_OK;
	}
	while (got < want) {
		w = tk_source_window(src);
		if (!w.n) {
			rc = tk_source_fill(src, CHUNK, &w, err);
			if (rc < 0) {
				h->failed = 1;
				h->perr = *err;
				return rc;
			}
			if (rc == 0)
				break;
			continue;
		}
		k = w.n < want - got ? w.n : want - got;
		count_lines(h, (const char *)w.p, k);
		memcpy(dst + got, w.p, k);
		tk_source_consume(src, k);
		got += k;
	}
	if (!got) {
		/* the input ends in the token: feed() gives expat the end */
		h->pending = 0;
		return TK_OK;
	}
	parsed(h, XML_ParseBuffer(h->xp, (int)got, 0), 0);
	return TK_OK;
}

/* Parse one slice (or the end). */
static int feed(atf_reader *h, tk_error *err)
{
	tk_source *src = h->r->src;
	tk_window w;
	size_t n;
	int rc, final = 0;
	enum XML_Status st;

	if (h->pending > TK_LINE_MAX) {
		/* expat holds a token whole (a tag with its attributes, a
		 * comment, ...): what it may hold is bounded as a line is */
		tk_err_set(&h->perr, TK_E_PARSE, h->name, cur_line(h),
			   cur_col(h), "XML token longer than %zu bytes",
			   (size_t)TK_LINE_MAX);
		h->failed = 1;
		return TK_OK;
	}
	if (h->pending >= CHUNK)
		return feed_long(h, err);
	w = tk_source_window(src);
	if (!w.n || (h->scan_ok && w.n < 4096)) {
		rc = tk_source_fill(src, CHUNK, &w, err);
		if (rc < 0) {
			h->failed = 1;
			h->perr = *err;
			return rc;
		}
		final = rc == 0 && !w.n;
	}
	n = w.n < CHUNK ? w.n : CHUNK;
	if (h->scan_ok && n && !final) {
		int why;
		size_t done;
		uint64_t line0;
		if (!h->scratch) {
			h->scratch = malloc(CHUNK);
			if (!h->scratch) {
				tk_err_nomem(&h->perr, h->name);
				h->failed = 1;
				return TK_OK;
			}
		}
		line0 = h->line;
		done = scan_content(h, (const char *)w.p, n, &why);
		if (done) {
			/* expat gets the first line's rest and the last
			 * line's start, blanked; the lines between are left
			 * out */
			const char *q = (const char *)w.p;
			const char *a = memchr(q, '\n', done);
			const char *b = a ? memrchr(q, '\n', done) : NULL;
			size_t k, m = 0, n1 = a ? (size_t)(a - q) + 1 : done;
			for (k = 0; k < n1; k++)
				h->scratch[m++] = q[k] == '\n' || q[k] == '\r' ? q[k] : ' ';
			if (b && b > a) {
				/* the newlines after the first one */
				h->skip_bytes += (uint64_t)(b - a);
				h->skip_lines += h->line - line0 - 1;
				for (k = (size_t)(b - q) + 1; k < done; k++)
					h->scratch[m++] = q[k] == '\r' ? '\r' : ' ';
			}
			st = XML_Parse(h->xp, h->scratch, (int)m, 0);
			tk_source_consume(src, done);
			if (st == XML_STATUS_ERROR)
				parse_error(h);
			else
				note_pending(h);
		}
		if (h->failed)
			return TK_OK;
		if (why == SCAN_OTHER) {
			h->scan_ok = 0; /* expat reads on from here */
			return TK_OK;
		}
		if (done)
			return TK_OK;
		/* an element cut by the end of the bytes at hand */
		if (n == w.n && n < CHUNK) {
			rc = tk_source_fill(src, w.n + CHUNK, &w, err);
			if (rc < 0) {
				h->failed = 1;
				h->perr = *err;
				return rc;
			}
			if (rc > 0)
				return TK_OK;
			/* the end: the same bytes, maybe moved */
			n = w.n < CHUNK ? w.n : CHUNK;
		}
		h->scan_ok = 0; /* too long for the scanner, or the end */
	}
	/* expat alone: up to the next <TraceEntry>, where the scanner may
	 * take over; not before the end of what expat holds of a token (it
	 * scans that again at each call: slices cut shorter would make a
	 * token that holds "<TraceEntry" cost its length squared) */
	if (!final && h->pending + 1 < n && h->seen_cf) {
		size_t from = (size_t)h->pending + 1;
		const char *t = memmem((const char *)w.p + from, n - from, "<TraceEntry", 11);
		if (t)
			n = (size_t)(t - (const char *)w.p);
	}
	count_lines(h, (const char *)w.p, n);
	st = XML_Parse(h->xp, (const char *)w.p, (int)n, final);
	tk_source_consume(src, n);
	parsed(h, st, final);
	return TK_OK;
}

/* The largest number of significant decimal digits among the time
 * attributes of the first bytes. */
static unsigned prescan(const char *p, size_t n)
{
	static const char *const names[] = { "Time", "Start", "Stop", "At", "From", "To" };
	const char *e = p + n, *q = p;
	unsigned best = 0;

	while ((q = memchr(q, '"', (size_t)(e - q))) != NULL) {
		const char *a = q, *v = q + 1;
		size_t i;
		int hit = 0;
		q++;
		if (a - p < 3 || a[-1] != '=')
			continue;
		for (i = 0; i < sizeof(names) / sizeof(names[0]) && !hit; i++) {
			size_t l = strlen(names[i]);
			hit = (size_t)(a - 1 - p) >= l + 1 &&
			      memcmp(a - 1 - l, names[i], l) == 0 &&
			      strchr(" \t\r\n", a[-2 - (ptrdiff_t)l]) != NULL;
		}
		if (!hit)
			continue;
		while (v < e && *v >= '0' && *v <= '9')
			v++;
		if (v >= e || *v != '.')
			continue;
		v++;
		{
			unsigned d = 0, k = 0;
			while (v < e && *v >= '0' && *v <= '9') {
				k++;
				if (*v != '0')
					d = k;
				v++;
			}
			if (d > best && d <= MAX_DIGITS)
				best = d;
		}
		q = v;
	}
	return best;
}

static int parse_options(atf_reader *h, tk_error *err)
{
	const char *p = h->r->opts.options;

	while (p && *p) {
		size_t n = strcspn(p, ","), kn;
		const char *eq = memchr(p, '=', n);
		uint64_t v = 0;
		size_t i;
		int ok = eq != NULL && (size_t)(eq - p) + 1 < n;

		kn = eq ? (size_t)(eq - p) : n;
		for (i = kn + 1; ok && i < n; i++) {
			if (p[i] < '0' || p[i] > '9' || v > 1000000000ull)
				ok = 0;
			else
				v = v * 10 + (uint64_t)(p[i] - '0');
		}
		if (tk_ascii_casecmp(p, kn, "trace") == 0 && ok && v) {
			h->want_trace = v;
		} else if (tk_ascii_casecmp(p, kn, "time-digits") == 0 && ok &&
			   v <= MAX_DIGITS) {
			h->digits = (unsigned)v;
			h->digits_forced = 1;
		} else {
			return tk_err_set(err, TK_E_USAGE, h->name, 0, 0,
					  "bad ATF reader option '%.*s' (trace=N: read the N-th TraceData only, from 1; time-digits=0..%d)",
					  (int)n, p, MAX_DIGITS);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return TK_OK;
}

int atf_reader_open(tk_reader *r, tk_error *err)
{
	atf_reader *h = calloc(1, sizeof(*h));
	tk_source *src = r->src;
	tk_window w;
	int rc, i;

	if (!h)
		return tk_err_nomem(err, tk_source_name(src));
	r->impl = h;
	h->r = r;
	h->t = r->trace;
	h->name = tk_source_name(src);
	h->strict = r->opts.strict;
	for (i = 0; i < TK_ET_COUNT; i++)
		h->str_type[i] = TK_NONE;
	if ((rc = parse_options(h, err)) < 0)
		goto fail;
	if (tk_synth_init(&h->synth, &atf_synth_rules, 1) < 0) {
		rc = tk_err_nomem(err, h->name);
		goto fail;
	}
	/* the tick: decimal digits of the first bytes' times */
	if (!h->digits_forced) {
		w = tk_source_window(src);
		while (w.n < PRESCAN && !tk_source_eof(src)) {
			rc = tk_source_fill(src, PRESCAN, &w, err);
			if (rc < 0)
				goto fail;
			if (rc == 0)
				break;
		}
		{
			size_t n = w.n < PRESCAN ? w.n : PRESCAN, an;
			char *a;
			int u = utf16_ascii(w.p, n, &a, &an);
			if (u < 0) {
				rc = tk_err_nomem(err, h->name);
				goto fail;
			}
			/* a UTF-16 document's times are read in its ASCII */
			h->digits = u ? prescan(a, an) : prescan((const char *)w.p, n);
			if (u)
				free(a);
		}
	}
	h->line = 1;
	h->xp = XML_ParserCreate(NULL);
	if (!h->xp) {
		rc = tk_err_nomem(err, h->name);
		goto fail;
	}
	XML_SetUserData(h->xp, h);
	XML_SetElementHandler(h->xp, on_start, on_end);
	XML_SetCharacterDataHandler(h->xp, on_text);
	XML_SetEntityDeclHandler(h->xp, on_entity_decl);
	/* the configuration, up to the first TraceData */
	while (!h->header_done && !h->failed && !h->finished)
		if ((rc = feed(h, err)) < 0)
			goto fail;
	if (h->failed && !h->qn) {
		if (err)
			*err = h->perr;
		rc = h->perr.code ? h->perr.code : TK_E_PARSE;
		goto fail;
	}
	if (!h->seen_cf && !h->depth && h->finished && !h->header_done) {
		rc = tk_err_set(err, TK_E_PARSE, h->name, 0, 0, "no <CommonFormat> element");
		goto fail;
	}
	if (!h->config_done && !h->failed) {
		/* a document without TraceData still has a time base */
		h->header_done = 1;
	}
	return TK_OK;
fail:
	atf_reader_close(r);
	return rc;
}

int atf_reader_next(tk_reader *r, const tk_event **evp, tk_error *err)
{
	atf_reader *h = r->impl;
	int rc;

	while (h->qhead == h->qn) {
		h->qhead = h->qn = 0;
		if (h->failed) {
			if (err)
				*err = h->perr;
			return h->perr.code ? h->perr.code : TK_E_PARSE;
		}
		if (h->finished) {
			if (h->want_trace > h->ntd)
				return tk_err_set(err, TK_E_USAGE, h->name, 0, 0,
						  "no TraceData %llu: the file has %llu",
						  (unsigned long long)h->want_trace,
						  (unsigned long long)h->ntd);
			return TK_END;
		}
		if ((rc = feed(h, err)) < 0)
			return rc;
	}
	*evp = &h->q[h->qhead++];
	return TK_OK;
}

void atf_reader_close(tk_reader *r)
{
	atf_reader *h = r->impl;
	uint32_t i;

	if (!h)
		return;
	if (h->xp)
		XML_ParserFree(h->xp);
	for (i = 0; i < h->nmaps; i++)
		tk_hashmap_free(&h->maps[i].infos);
	free(h->maps);
	tk_hashmap_free(&h->map_by_id);
	free(h->se);
	tk_hashmap_free(&h->se_by_id);
	free(h->res);
	tk_hashmap_free(&h->res_by_id);
	free(h->cap.p);
	free(h->text.p);
	free(h->q);
	free(h->scratch);
	tk_synth_free(&h->synth);
	free(h);
	r->impl = NULL;
}
