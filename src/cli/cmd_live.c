/*
 * cmd_live.c - `tracekit live SOURCE|FILE`: the HTML report of a trace
 * that grows, served on a local HTTP port and updated in the browser as
 * events arrive (docs/recorder.md, "A live view: tracekit live").
 *
 * One thread, one poll(2) loop over the listening socket, the clients and
 * the source:
 *  - a SOURCE (as `tracekit record` takes it: '-', tcp:HOST:PORT, a tty, a
 *    FIFO) is captured by cli_capture into a stream file (-o OUT, or one in
 *    a temporary directory); a FILE (a regular file of any readable format)
 *    is looked at every interval and read again when it changed;
 *  - at most once an interval (and never more often than twice the time
 *    the last one took), when the trace changed, the report's data object
 *    (tk_report_write() of the last --window seconds into a temporary page,
 *    the JSON between the template's head and tail) is built again and sent
 *    to every client of /events as a server-sent event "data", with a
 *    "status" event (events, bytes, whether the stream ended);
 *  - GET / is the report's own page (report.html: its head, its script as a
 *    function run again on each data object, then a small script of this
 *    file that listens to /events); GET /data.json and /status.json are the
 *    last objects sent.
 * When the source ends the page stays: the last data, a status saying the
 * stream ended; the server goes on until SIGINT, SIGTERM or SIGHUP.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "tracekit/ftstream.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { O_BIND = 256, O_PORT, O_WINDOW, O_INTERVAL, O_NO_FOLLOW };

#define MAX_CLIENTS 64
#define REQ_MAX 8192
/* a client that lags this far behind is dropped */
#define OUT_MAX ((size_t)64 << 20)
#define KEEPALIVE_MS 15000
/* a client with no whole request, or that does not take its answer, in
 * this time is dropped */
#define REQ_TIMEOUT_MS 10000

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void help(FILE *fp)
{
	fprintf(fp,
		"usage: tracekit live [options] SOURCE|FILE\n\n"
		"Serves the HTML report of a trace that grows (that of 'tracekit\n"
		"report': timeline, metrics, histograms, core load, problems) on a\n"
		"local HTTP port, and updates it in the browser as events arrive\n"
		"(server-sent events on /events).  The page shows the last --window\n"
		"of the trace.\n\n"
		"SOURCE is a recorder stream as 'tracekit record' takes it: '-'\n"
		"(standard input), 'tcp:HOST:PORT', a serial device or a FIFO; it is\n"
		"captured into -o OUT (or a temporary file); a FIFO is opened as\n"
		"'record' opens it: the server starts once the FIFO has a writer.\n"
		"FILE, a regular file of any readable format, is read again whenever\n"
		"it grows (as tail -f), until a signal; with --no-follow it is read\n"
		"once.  When the stream ends (the source ends, or FILE holds the end\n"
		"record of 'tracekit record') the page keeps its last data and says\n"
		"so; the server runs until SIGINT, SIGTERM or SIGHUP.  The URL is\n"
		"printed on stdout.\n\n"
		"options:\n"
		"  --bind ADDR         the address to listen on (default 127.0.0.1;\n"
		"                      0.0.0.0 or :: for every interface)\n"
		"  --port N            the port (default 0: a free one)\n"
		"  --window TIME       the time shown: the last TIME of the trace (10s,\n"
		"                      500ms; a bare number is in seconds; default 10s;\n"
		"                      0: the whole trace)\n"
		"  --interval MS       the page is updated at most once every MS\n"
		"                      milliseconds (default 1000; at least 100)\n"
		"  -o OUT              SOURCE: keep the capture in OUT (a stream file,\n"
		"                      as 'tracekit record -o OUT' writes it)\n"
		"  --no-follow         FILE: read it once, do not wait for more\n"
		"  -q, --quiet         no report on stderr\n"
		"  -h, --help          this help\n");
}

/* ---- a growing byte buffer ------------------------------------------------ */

typedef struct buf {
	char *p;
	size_t len, cap;
} buf;

static int buf_add(buf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		np = realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int buf_str(buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

/* ---- the page ----------------------------------------------------------- */

/* The script that makes the report's page live: the report's own code
 * (tkReportRun(D), the template's script) is run on each data object
 * /events sends, over a fresh copy of the template's markup; the window
 * listeners of the last run are removed first. */
static const char live_js[] =
	"(function(){'use strict';\n"
	"const hdr=document.querySelector('header'),bar=document.createElement('div');\n"
	"bar.id='tk-live';bar.style.cssText='padding:4px 16px;background:#fff3e0;border-bottom:1px solid #ffb74d;font-size:12px';\n"
	"bar.dataset.state='waiting';bar.dataset.updates='0';\n"
	"bar.innerHTML='<b>live</b> <span id=\"tk-live-msg\">waiting for the first events</span> <label><input type=\"checkbox\" id=\"tk-live-pause\"> pause updates</label>';\n"
	"hdr.querySelector('h1').textContent='tracekit live';document.title='tracekit live';\n"
	"const box=document.createElement('div');box.id='tk-report';\n"
	"for(const n of [...document.body.childNodes])if(n.nodeName!=='SCRIPT')box.appendChild(n);\n"
	"document.body.insertBefore(box,document.body.firstChild);document.body.insertBefore(bar,box);\n"
	"const pristine=box.innerHTML,msg=document.getElementById('tk-live-msg'),pause=document.getElementById('tk-live-pause');\n"
	"const wadd=window.addEventListener;let wl=[],pending=null,st=null,updates=0,shown=null;\n"
	"function run(d){wl.forEach(a=>window.removeEventListener(a[0],a[1],a[2]));wl=[];\n"
	" const y=window.scrollY;if(st&&st.source)d.file=st.source;\n"
	" try{history.replaceState(null,'',location.pathname+location.search);}catch(e){}\n"
	" window.addEventListener=function(t,f,o){if(t!=='error')wl.push([t,f,o]);return wadd.call(window,t,f,o);};\n"
	" try{box.innerHTML=pristine;tkReportRun(d);}finally{window.addEventListener=wadd;}\n"
	" window.scrollTo(0,y);shown=d;updates++;bar.dataset.updates=String(updates);say();}\n"
	"function say(){if(!st){return;}const w=/^0 /.test(st.window)?'the whole trace':'the last '+st.window.replace(' ','');\n"
	" let s=st.source+': '+st.events+' events'+(st.bytes!==undefined?', '+st.bytes+' bytes':'')+(st.dropped?', '+st.dropped+' bytes dropped':'')+'; '+w+' shown';\n"
	" if(st.error)s+='; '+st.error;\n"
	" if(st.state==='ended')s='the stream ended ('+st.end+'): the page shows its last data. '+s;\n"
	" else if(st.state==='waiting')s='waiting for the first events. '+s;\n"
	" else if(st.state==='lost')s='the connection to the server is lost (retrying): the page shows the last data it sent. '+s;\n"
	" else s='updating as events arrive. '+s+(pause.checked?' (paused)':'');\n"
	" msg.textContent=s;bar.dataset.state=st.state;}\n"
	"pause.addEventListener('change',()=>{if(!pause.checked&&pending){const d=pending;pending=null;run(d);}say();});\n"
	"const es=new EventSource('events');\n"
	"es.addEventListener('status',e=>{st=JSON.parse(e.data);say();});\n"
	"es.addEventListener('data',e=>{const d=JSON.parse(e.data);if(!d)return;if(pause.checked){pending=d;return;}run(d);});\n"
	"es.onerror=()=>{if(st&&st.state==='ended'){es.close();return;}st=st||{source:'',events:0,window:'0 s'};st.state='lost';say();};\n"
	"window.tkLive={status:()=>st,shown:()=>shown};\n"
	"})();\n";

/* The page: the report's head without its "const D=", its script as
 * tkReportRun(D), live_js.  0, or -1 when the template is not as expected
 * (or out of memory). */
static int make_page(buf *page)
{
	static const char cd[] = "const D=";
	const char *head, *tail, *f, *e, *endf = NULL, *p;
	size_t hl, cl = strlen(cd);

	tk_report_page(&head, &tail);
	hl = strlen(head);
	f = strstr(tail, "(function(){");
	e = strstr(tail, "</script>");
	if (hl < cl || strcmp(head + hl - cl, cd) != 0 || !f || !e || f > e)
		return -1;
	for (p = f; (p = strstr(p, "})();")) != NULL && p < e; p++)
		endf = p;
	if (!endf)
		return -1;
	endf += 5;
	if (buf_add(page, head, hl - cl) < 0 || buf_str(page, "function tkReportRun(D){") < 0 ||
	    buf_add(page, f, (size_t)(endf - f)) < 0 || buf_str(page, "}\n") < 0 ||
	    buf_str(page, live_js) < 0 || buf_str(page, e) < 0)
		return -1;
	return 0;
}

/* ---- clients ------------------------------------------------------------- */

typedef struct client {
	int fd;
	int sse;              /* a client of /events */
	int close_after;      /* answered: out sent, then closed  */
	int head;             /* a HEAD request: no body */
	char req[REQ_MAX];
	size_t reqlen;
	buf out;
	size_t off;           /* bytes of out sent */
	long long since;      /* accepted at (now_ms()) */
} client;

typedef struct live {
	const char *src;      /* as given */
	const char *trace;    /* the file read: the capture or FILE */
	const char *tmpdir;   /* the temporary directory, or NULL */
	char pagepath[4096];  /* the report written there */
	int stream;           /* SOURCE (captured), not FILE */
	int ended;
	unsigned end_reason;
	uint64_t window;      /* the time shown (0: the whole trace) ... */
	tk_unit window_unit;  /* ... in this unit */
	long interval_ms;
	buf page;
	buf data;             /* the last data object ("null": none yet) */
	buf status;           /* the last status object */
	uint64_t events;
	char error[1024];     /* the last build's error, or "" */
	client *cl[MAX_CLIENTS];
	size_t ncl;
	const cli_capture *cap;
	uint64_t updates;
	int loopback;         /* bound to a loopback address: Host is checked */
	char port[16];        /* the port listened on */
} live;

static void client_close(live *L, size_t i)
{
	client *c = L->cl[i];

	close(c->fd);
	free(c->out.p);
	free(c);
	L->cl[i] = L->cl[--L->ncl];
}

/* an SSE event of `name` with the lines of data */
static int sse_event(buf *b, const char *name, const char *data, size_t n)
{
	size_t i = 0;

	if (buf_str(b, "event: ") < 0 || buf_str(b, name) < 0 || buf_str(b, "\n") < 0)
		return -1;
	while (i <= n) {
		const char *nl = memchr(data + i, '\n', n - i);
		size_t l = nl ? (size_t)(nl - (data + i)) : n - i;

		if (buf_str(b, "data: ") < 0 || buf_add(b, data + i, l) < 0 ||
		    buf_str(b, "\n") < 0)
			return -1;
		i += l + 1;
	}
	return buf_str(b, "\n");
}

/* the bytes of c->out sent are dropped (a client that never catches up
 * entirely must not make it grow) */
static void out_compact(client *c)
{
	if (c->off) {
		memmove(c->out.p, c->out.p + c->off, c->out.len - c->off);
		c->out.len -= c->off;
		c->off = 0;
	}
}

/* every SSE client gets the status and the data object (with_data) */
static void broadcast(live *L, int with_data)
{
	size_t i = 0;

	while (i < L->ncl) {
		client *c = L->cl[i];
		int bad = 0;

		if (c->sse) {
			out_compact(c);
			bad |= sse_event(&c->out, "status", L->status.p, L->status.len) < 0;
			if (with_data)
				bad |= sse_event(&c->out, "data", L->data.p, L->data.len) < 0;
			if (bad || c->out.len - c->off > OUT_MAX) {
				client_close(L, i);
				continue;
			}
		}
		i++;
	}
}

static void json_str(buf *b, const char *s)
{
	char t[8];

	buf_str(b, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			t[0] = '\\';
			t[1] = (char)ch;
			buf_add(b, t, 2);
		} else if (ch < 0x20 || ch == '<') {
			snprintf(t, sizeof(t), "\\u%04x", ch);
			buf_str(b, t);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_str(b, "\"");
}

static const char *end_text(unsigned reason)
{
	return reason == TK_FTSTREAM_END_SIGNAL ? "stopped by a signal"
	       : reason == TK_FTSTREAM_END_ERROR ? "a read error" : "the source ended";
}

static void make_status(live *L)
{
	char n[64];
	const char *state = L->ended ? "ended" : L->data.len > 4 ? "live" : "waiting";

	L->status.len = 0;
	buf_str(&L->status, "{\"state\":\"");
	buf_str(&L->status, state);
	buf_str(&L->status, "\",\"source\":");
	json_str(&L->status, L->src);
	snprintf(n, sizeof(n), ",\"events\":%llu,\"window\":\"%llu %s\",\"updates\":%llu",
		 (unsigned long long)L->events, (unsigned long long)L->window,
		 tk_unit_name(L->window_unit), (unsigned long long)L->updates);
	buf_str(&L->status, n);
	if (L->cap) {
		snprintf(n, sizeof(n), ",\"bytes\":%llu,\"dropped\":%llu",
			 (unsigned long long)L->cap->written, (unsigned long long)L->cap->dropped);
		buf_str(&L->status, n);
	}
	if (L->ended) {
		buf_str(&L->status, ",\"end\":");
		json_str(&L->status, end_text(L->end_reason));
	}
	if (L->error[0]) {
		buf_str(&L->status, ",\"error\":");
		json_str(&L->status, L->error);
	}
	buf_str(&L->status, "}");
}

/* ---- the data object ------------------------------------------------------ */

/* The trace's last time and number of events (a first read); the end
 * record of a capture (stream_end) sets *ended.  0, 1 when there is no
 * event (yet), -1 on an error (err). */
static int scan(live *L, uint64_t *last, tk_timebase *tb, int *ended, tk_error *err)
{
	tk_reader *r = NULL;
	tk_reader_opts ro;
	const tk_event *ev;
	const char *se;
	uint64_t n = 0;
	int rc;

	tk_reader_opts_init(&ro);
	rc = tk_reader_open(&r, L->trace, &ro, err);
	if (rc < 0)
		return -1;
	*last = 0;
	while ((rc = tk_reader_next(r, &ev, err)) == TK_OK) {
		if (ev->time > *last)
			*last = ev->time;
		n++;
	}
	*tb = *tk_trace_timebase(tk_reader_trace(r));
	se = tk_trace_header_get(tk_reader_trace(r), "stream_end");
	*ended = se && strncmp(se, "cut", 3) != 0;
	tk_reader_close(r);
	if (rc != TK_END)
		return -1;
	L->events = n;
	return n ? 0 : 1;
}

/* the whole file at path into b: 0 or -1 */
static int slurp(const char *path, buf *b)
{
	FILE *fp = fopen(path, "rb");
	char tmp[65536];
	size_t n;
	int rc = 0;

	if (!fp)
		return -1;
	b->len = 0;
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		if (buf_add(b, tmp, n) < 0) {
			rc = -1;
			break;
		}
	if (ferror(fp))
		rc = -1;
	fclose(fp);
	return rc;
}

/* The data object of the last L->window into L->data: 0 (built, or
 * no event yet: "null"), -1 (L->error says why; the last data stays). */
static int build(live *L)
{
	tk_error err;
	tk_timebase tb, wtb = { L->window_unit, 1, 1 };
	tk_reader_opts rdo;
	tk_report_opts opts;
	uint64_t last, win = 0;
	const char *head, *tail;
	size_t hl, tl;
	buf page = { NULL, 0, 0 };
	int rc, ended = 0, ret = -1;

	struct stat st;

	tk_report_page(&head, &tail);
	hl = strlen(head);
	tl = strlen(tail);
	tk_error_clear(&err);
	L->error[0] = 0;
	/* nothing yet: no record captured, an empty FILE */
	if (L->cap ? L->cap->written == 0 : stat(L->trace, &st) == 0 && st.st_size == 0) {
		L->events = 0;
		L->data.len = 0;
		buf_str(&L->data, "null");
		return 0;
	}
	rc = scan(L, &last, &tb, &ended, &err);
	if (rc < 0)
		goto fail;
	if (!L->stream && ended && !L->ended) {
		L->ended = 1;
		L->end_reason = TK_FTSTREAM_END_EOF;
	}
	if (rc == 1) {
		L->data.len = 0;
		buf_str(&L->data, "null");
		return 0;
	}
	tk_reader_opts_init(&rdo);
	rdo.window_stop = TK_STOP_NEVER;
	if (L->window && tk_time_convert(L->window, &wtb, &tb, TK_ROUND_UP, &win) == TK_OK &&
	    last > win) {
		rdo.has_start = 1;
		rdo.start = last - win;
		rdo.start_unit = TK_TICKS;
	}
	tk_report_opts_init(&opts);
	opts.reader = &rdo;
	if (tk_report_write(L->trace, L->pagepath, &opts, &err) < 0)
		goto fail;
	if (slurp(L->pagepath, &page) < 0 || !page.p || page.len < hl + tl ||
	    memcmp(page.p, head, hl) != 0 || memcmp(page.p + page.len - tl, tail, tl) != 0) {
		snprintf(L->error, sizeof(L->error), "the page written is not the report's");
		goto out;
	}
	L->data.len = 0;
	if (buf_add(&L->data, page.p + hl, page.len - hl - tl) < 0) {
		snprintf(L->error, sizeof(L->error), "out of memory");
		buf_str(&L->data, "null");
		goto out;
	}
	ret = 0;
	goto out;
fail:
	if (err.input[0])
		snprintf(L->error, sizeof(L->error), "%s:%llu: %s", err.input,
			 (unsigned long long)err.line, err.msg);
	else
		snprintf(L->error, sizeof(L->error), "%s", err.msg[0] ? err.msg : "cannot read");
out:
	free(page.p);
	return ret;
}

/* ---- HTTP --------------------------------------------------------------- */

static void respond(client *c, const char *status, const char *type, const char *body,
		    size_t n)
{
	char h[256];

	snprintf(h, sizeof(h),
		 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		 "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
		 status, type, n);
	buf_str(&c->out, h);
	if (!c->head)
		buf_add(&c->out, body, n);
	c->close_after = 1;
}

/* Whether the Host header of req names this server (bound to a loopback
 * address: localhost, 127.x.x.x or [::1], with the port if any): a page
 * of another site whose name is made to resolve to 127.0.0.1 (DNS
 * rebinding) must not read the trace.  No Host (HTTP/1.0): yes. */
static int host_ok(const live *L, const char *req)
{
	const char *h = req, *e, *colon;
	size_t n;

	if (!L->loopback)
		return 1;
	for (;;) {
		h = strchr(h, '\n');
		if (!h)
			return 1;
		h++;
		if (strncasecmp(h, "host:", 5) == 0)
			break;
	}
	h += 5;
	while (*h == ' ' || *h == '\t')
		h++;
	for (e = h; *e && *e != '\r' && *e != '\n' && *e != ' ' && *e != '\t'; e++)
		;
	colon = NULL;
	for (n = 0; h + n < e; n++)
		if (h[n] == ':')
			colon = h + n;
	if (*h == '[') {
		if (strncmp(h, "[::1]", 5) != 0)
			return 0;
		colon = h[5] == ':' ? h + 5 : NULL;
		if (h + 5 != e && !colon)
			return 0;
	}
	if (colon && ((size_t)(e - colon - 1) != strlen(L->port) ||
		      strncmp(colon + 1, L->port, strlen(L->port)) != 0))
		return 0;
	n = (size_t)((colon ? colon : e) - h);
	if (*h == '[' || (n == 9 && strncasecmp(h, "localhost", 9) == 0))
		return 1;
	if (n < 7 || strncmp(h, "127.", 4) != 0)
		return 0;
	for (e = h + 4; e < h + n; e++)
		if (!isdigit((unsigned char)*e) && *e != '.')
			return 0;
	return 1;
}

/* a whole request in c->req: the answer into c->out */
static void serve(live *L, client *c)
{
	char method[16], path[256];
	size_t ml, pl;

	c->req[c->reqlen] = 0;
	/* METHOD SP PATH (SP VERSION), each bounded */
	ml = strcspn(c->req, " \r\n");
	pl = c->req[ml] == ' ' ? strcspn(c->req + ml + 1, " \r\n") : 0;
	if (memchr(c->req, 0, c->reqlen) || ml == 0 || ml >= sizeof(method) || pl == 0) {
		respond(c, "400 Bad Request", "text/plain", "bad request\n", 12);
		return;
	}
	if (pl >= sizeof(path)) {
		respond(c, "414 URI Too Long", "text/plain", "too long\n", 9);
		return;
	}
	memcpy(method, c->req, ml);
	method[ml] = 0;
	memcpy(path, c->req + ml + 1, pl);
	path[pl] = 0;
	path[strcspn(path, "?")] = 0;
	c->head = strcmp(method, "HEAD") == 0;
	if (strcmp(method, "GET") != 0 && !c->head) {
		respond(c, "405 Method Not Allowed\r\nAllow: GET, HEAD", "text/plain",
			"GET only\n", 9);
		return;
	}
	if (!host_ok(L, c->req)) {
		respond(c, "403 Forbidden", "text/plain", "not this host\n", 14);
	} else if (c->head && strcmp(path, "/events") == 0) {
		respond(c, "200 OK", "text/event-stream", "", 0);
	} else if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) {
		respond(c, "200 OK", "text/html; charset=utf-8", L->page.p, L->page.len);
	} else if (strcmp(path, "/data.json") == 0) {
		respond(c, "200 OK", "application/json", L->data.p, L->data.len);
	} else if (strcmp(path, "/status.json") == 0) {
		respond(c, "200 OK", "application/json", L->status.p, L->status.len);
	} else if (strcmp(path, "/events") == 0) {
		buf_str(&c->out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
			"Cache-Control: no-store\r\nConnection: keep-alive\r\n\r\n"
			"retry: 2000\n\n");
		c->sse = 1;
		sse_event(&c->out, "status", L->status.p, L->status.len);
		if (L->data.len > 4)
			sse_event(&c->out, "data", L->data.p, L->data.len);
	} else {
		respond(c, "404 Not Found", "text/plain", "not found\n", 10);
	}
}

/* a client's socket readable: 0, or -1 to close it */
static int client_read(live *L, client *c)
{
	ssize_t r;

	if (c->sse || c->close_after) {
		char tmp[512];

		r = recv(c->fd, tmp, sizeof(tmp), 0);
		return r > 0 || (r < 0 && (errno == EINTR || errno == EAGAIN ||
					    errno == EWOULDBLOCK)) ? 0 : -1;
	}
	r = recv(c->fd, c->req + c->reqlen, REQ_MAX - 1 - c->reqlen, 0);
	if (r < 0)
		return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	if (r == 0)
		return -1;
	c->reqlen += (size_t)r;
	c->req[c->reqlen] = 0;
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n") ||
	    memchr(c->req, 0, c->reqlen))
		serve(L, c);
	else if (c->reqlen >= REQ_MAX - 1)
		respond(c, "431 Request Header Fields Too Large", "text/plain", "too large\n", 10);
	return 0;
}

/* a client's socket writable: 0, or -1 to close it */
static int client_write(client *c)
{
	ssize_t w = send(c->fd, c->out.p + c->off, c->out.len - c->off, MSG_NOSIGNAL);

	if (w < 0)
		return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	c->off += (size_t)w;
	if (c->off == c->out.len) {
		c->off = c->out.len = 0;
		/* the answer sent: what the client still sends is read until it
		 * closes (a close with unread bytes would reset the connection,
		 * the answer lost) */
		if (c->close_after)
			shutdown(c->fd, SHUT_WR);
	}
	return 0;
}

/* The listening socket on addr:port, its URL in url: the socket, or -1
 * (a line on stderr). */
static int listen_on(live *L, const char *addr, const char *port, char *url, size_t urlsz)
{
	struct addrinfo hints, *res = NULL, *a;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN], serv[16];
	int fd = -1, rc, e = 0, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(addr, port, &hints, &res);
	if (rc != 0) {
		cli_msg("tracekit: live: --bind %s --port %s: %s\n", addr, port,
			gai_strerror(rc));
		return -1;
	}
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		cli_msg("tracekit: live: --bind %s --port %s: %s\n", addr, port,
			strerror(e));
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		cli_msg("tracekit: live: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	L->loopback = ss.ss_family == AF_INET6
		      ? IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr)
		      : ss.ss_family == AF_INET &&
			(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	snprintf(L->port, sizeof(L->port), "%s", serv);
	snprintf(url, urlsz, ss.ss_family == AF_INET6 ? "http://[%s]:%s/" : "http://%s:%s/",
		 host, serv);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* a whole number in [lo, hi] from s: 0, or -1 after a usage error */
static int num_opt(const char *opt, const char *s, unsigned long long lo,
		   unsigned long long hi, unsigned long long *v)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9' || (*v = strtoull(s, &end, 10), errno) || *end ||
	    *v < lo || *v > hi) {
		cli_usage_error("live", "%s: expected a whole number from %llu to %llu, not '%s'",
				opt, lo, hi, s);
		return -1;
	}
	return 0;
}

int cmd_live(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bind", required_argument, NULL, O_BIND },
		{ "port", required_argument, NULL, O_PORT },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "no-follow", no_argument, NULL, O_NO_FOLLOW },
		CLI_END_LONGOPTS
	};
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	cli_args args = { { NULL }, 0 };
	const char *bind_addr = "127.0.0.1", *port = "0", *outp = NULL;
	unsigned long long v;
	live L;
	cli_capture cap;
	struct sigaction sa;
	struct stat st;
	struct pollfd pfd[MAX_CLIENTS + 2];
	char url[300], tmpl[] = "/tmp/tk-live.XXXXXX", spool[4096];
	const char *tmpdir_env = getenv("TMPDIR");
	char *tmpdir = NULL;
	int c, quiet = 0, follow = 1, lfd = -1, in = -1, out = -1, have_cap = 0;
	int ret = EXIT_BAD, dirty = 1;
	long long next_build = 0, last_check = 0, last_keep = 0;
	off_t fsize = -1;
	struct timespec fmtime = { 0, 0 };
	size_t i;

	spool[0] = 0;
	memset(&L, 0, sizeof(L));
	L.window = 10;
	L.window_unit = TK_UNIT_S;
	L.interval_ms = 1000;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "o:qh", longopts, &args)) != -1) {
		switch (c) {
		case O_BIND: bind_addr = optarg; break;
		case O_PORT:
			if (num_opt("--port", optarg, 0, 65535, &v) < 0)
				return EXIT_BAD;
			port = optarg;
			break;
		case O_WINDOW:
			if (tk_duration_parse(optarg, TK_UNIT_S, &L.window, &L.window_unit) != TK_OK) {
				cli_usage_error("live", "--window: expected a time (10s, 500ms, 0), not '%s'",
						optarg);
				return EXIT_BAD;
			}
			break;
		case O_INTERVAL:
			if (num_opt("--interval", optarg, 100, 3600000, &v) < 0)
				return EXIT_BAD;
			L.interval_ms = (long)v;
			break;
		case O_NO_FOLLOW: follow = 0; break;
		case 'o': outp = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': help(stdout); return EXIT_OK;
		default: return EXIT_BAD;
		}
	}
	if (args.n != 1) {
		cli_usage_error("live", "expected one SOURCE or FILE");
		return EXIT_BAD;
	}
	L.src = args.v[0];
	if (strcmp(L.src, "-") == 0 || strncmp(L.src, "tcp:", 4) == 0) {
		L.stream = 1;
	} else if (stat(L.src, &st) != 0) {
		cli_msg("%s: error: %s\n", L.src, strerror(errno));
		return EXIT_BAD;
	} else if (S_ISREG(st.st_mode)) {
		L.stream = 0;
	} else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) {
		L.stream = 1;
	} else {
		cli_msg("%s: error: not a file, a FIFO or a serial device\n", L.src);
		return EXIT_BAD;
	}
	if (!L.stream && outp) {
		cli_usage_error("live", "-o is for a SOURCE (a stream), not a FILE");
		return EXIT_BAD;
	}
	if (!L.stream && !follow)
		L.ended = 1, L.end_reason = TK_FTSTREAM_END_EOF;
	if (make_page(&L.page) < 0) {
		cli_msg("tracekit: live: the report's template is not as expected\n");
		goto done;
	}
	buf_str(&L.data, "null");
	/* the temporary directory: the page of each build, the capture */
	if (tmpdir_env && *tmpdir_env && strlen(tmpdir_env) < 4000) {
		tmpdir = malloc(strlen(tmpdir_env) + 20);
		if (tmpdir)
			sprintf(tmpdir, "%s/tk-live.XXXXXX", tmpdir_env);
	} else {
		tmpdir = malloc(sizeof(tmpl));
		if (tmpdir)
			memcpy(tmpdir, tmpl, sizeof(tmpl));
	}
	if (!tmpdir || !mkdtemp(tmpdir)) {
		cli_msg("tracekit: live: cannot make a temporary directory: %s\n",
			strerror(errno));
		free(tmpdir);
		tmpdir = NULL;
		goto done;
	}
	L.tmpdir = tmpdir;
	snprintf(L.pagepath, sizeof(L.pagepath), "%s/page.html", tmpdir);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(stop_sigs[i], &sa, NULL);
	/* a closed stdout or stderr is an error, not the end (the temporary
	 * directory left) */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	if (L.stream) {
		snprintf(spool, sizeof(spool), "%s/stream.tks", tmpdir);
		L.trace = outp ? outp : spool;
		struct stat sout;

		in = cli_capture_open_source(L.src);
		if (in < 0)
			goto done;
		/* OUT is truncated: it must not be SOURCE */
		if (fstat(in, &st) == 0 && stat(L.trace, &sout) == 0 && st.st_dev == sout.st_dev &&
		    st.st_ino == sout.st_ino) {
			cli_msg("%s: error: the output is the source %s\n", L.trace, L.src);
			goto done;
		}
		out = open(L.trace, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0) {
			cli_msg("%s: error: %s\n", L.trace, strerror(errno));
			goto done;
		}
		if (cli_capture_init(&cap, out, L.trace) < 0)
			goto done;
		have_cap = 1;
		L.cap = &cap;
		dirty = 0;
	} else {
		L.trace = L.src;
	}
	lfd = listen_on(&L, bind_addr, port, url, sizeof(url));
	if (lfd < 0)
		goto done;
	make_status(&L);
	/* the URL not written (main says why): nobody can know it */
	if (printf("%s\n", url) < 0 || fflush(stdout) != 0)
		goto done;
	if (!quiet)
		cli_msg("live: %s: serving %s (Ctrl-C to stop)\n", L.src, url);
	ret = EXIT_OK;
	while (!stop_signal) {
		long long now = now_ms();
		int timeout = -1, n;
		size_t np = 0, src_at = (size_t)-1;

		/* FILE: changed since the last look? */
		if (!L.stream && follow && !L.ended && now - last_check >= L.interval_ms) {
			last_check = now;
			if (stat(L.src, &st) == 0 &&
			    (st.st_size != fsize || st.st_mtim.tv_sec != fmtime.tv_sec ||
			     st.st_mtim.tv_nsec != fmtime.tv_nsec)) {
				fsize = st.st_size;
				fmtime = st.st_mtim;
				dirty = 1;
			}
		}
		if (dirty && now >= next_build) {
			long long t0 = now, took;
			int brc = build(&L);

			took = now_ms() - t0;
			next_build = now_ms() + (L.interval_ms > 2 * took ? L.interval_ms : 2 * took);
			dirty = 0;
			L.updates += brc == 0;
			make_status(&L);
			broadcast(&L, brc == 0);
			if (brc < 0 && !quiet)
				cli_msg("live: %s\n", L.error);
			now = now_ms();
		}
		if (now - last_keep >= KEEPALIVE_MS) {
			last_keep = now;
			for (i = 0; i < L.ncl; i++)
				if (L.cl[i]->sse) {
					out_compact(L.cl[i]);
					buf_str(&L.cl[i]->out, ": keep-alive\n\n");
				}
		}
		/* a client that sends no whole request or takes not its answer */
		for (i = L.ncl; i-- > 0;)
			if (!L.cl[i]->sse && now - L.cl[i]->since >= REQ_TIMEOUT_MS)
				client_close(&L, i);
		if (dirty)
			timeout = (int)(next_build > now ? next_build - now : 0);
		if (!L.stream && follow && !L.ended) {
			long long t = last_check + L.interval_ms - now;

			if (timeout < 0 || t < timeout)
				timeout = t > 0 ? (int)t : 0;
		}
		if (timeout < 0 || timeout > KEEPALIVE_MS)
			timeout = KEEPALIVE_MS;
		for (i = 0; i < L.ncl; i++)
			if (!L.cl[i]->sse && timeout > 1000)
				timeout = 1000;
		pfd[np].fd = lfd;
		pfd[np++].events = POLLIN;
		if (in >= 0) {
			src_at = np;
			pfd[np].fd = in;
			pfd[np++].events = POLLIN;
		}
		for (i = 0; i < L.ncl; i++) {
			pfd[np].fd = L.cl[i]->fd;
			pfd[np++].events = (short)(POLLIN | (L.cl[i]->out.len > L.cl[i]->off ? POLLOUT : 0));
		}
		n = poll(pfd, (nfds_t)np, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			cli_msg("tracekit: live: poll: %s\n", strerror(errno));
			ret = EXIT_BAD;
			break;
		}
		/* the clients first (their indices are those polled) */
		for (i = L.ncl; i-- > 0;) {
			short re = pfd[(src_at == (size_t)-1 ? 1 : 2) + i].revents;
			int bad = 0;

			if (re & (POLLERR | POLLNVAL))
				bad = 1;
			if (!bad && (re & (POLLIN | POLLHUP)))
				bad = client_read(&L, L.cl[i]) < 0;
			if (!bad && L.cl[i]->out.len > L.cl[i]->off)
				bad = client_write(L.cl[i]) < 0;
			if (bad)
				client_close(&L, i);
		}
		if (src_at != (size_t)-1 && (pfd[src_at].revents & (POLLIN | POLLHUP | POLLERR))) {
			size_t room;
			uint8_t *at = cli_capture_space(&cap, &room);
			ssize_t r = read(in, at, room);

			if (r > 0) {
				uint64_t before = cap.written;

				if (cli_capture_took(&cap, (size_t)r) < 0) {
					/* OUT cannot be written: no end record either */
					if (in > STDIN_FILENO)
						close(in);
					in = -1;
					ret = EXIT_BAD;
					break;
				}
				if (cap.written != before)
					dirty = 1;
			} else if (r == 0 || errno != EINTR) {
				if (r < 0)
					cli_msg("%s: error: %s\n", L.src, strerror(errno));
				L.end_reason = r < 0 ? TK_FTSTREAM_END_ERROR : TK_FTSTREAM_END_EOF;
				if (cli_capture_end(&cap, L.end_reason) < 0)
					ret = EXIT_BAD;
				L.ended = 1;
				dirty = 1;
				next_build = 0;
				if (in > STDIN_FILENO)
					close(in);
				in = -1;
				if (!quiet)
					cli_msg("live: %s: the stream ended (%s); still serving %s\n",
						L.src, end_text(L.end_reason), url);
			}
		}
		/* the clients waiting (a burst must not overflow the backlog) */
		for (n = 0; (pfd[0].revents & POLLIN) && n < MAX_CLIENTS; n++) {
			int cfd = accept(lfd, NULL, NULL);

			if (cfd < 0)
				break;
			if (L.ncl == MAX_CLIENTS) {
				/* full: the oldest client that is not of /events makes room */
				size_t old = MAX_CLIENTS;

				for (i = 0; i < L.ncl; i++)
					if (!L.cl[i]->sse &&
					    (old == MAX_CLIENTS || L.cl[i]->since < L.cl[old]->since))
						old = i;
				if (old < MAX_CLIENTS)
					client_close(&L, old);
			}
			if (L.ncl == MAX_CLIENTS) {
				close(cfd);
			} else {
				client *cn = calloc(1, sizeof(*cn));

				if (!cn) {
					close(cfd);
				} else {
					fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) | O_NONBLOCK);
					cn->fd = cfd;
					cn->since = now_ms();
					L.cl[L.ncl++] = cn;
				}
			}
		}
	}
	if (in >= 0 && have_cap && cli_capture_end(&cap, TK_FTSTREAM_END_SIGNAL) < 0)
		ret = EXIT_BAD;
	if (!quiet)
		cli_msg("live: %s: %llu updates of the page; stopped\n", L.src,
			(unsigned long long)L.updates);
done:
	while (L.ncl)
		client_close(&L, L.ncl - 1);
	if (lfd >= 0)
		close(lfd);
	if (out >= 0 && close(out) != 0 && ret == EXIT_OK) {
		cli_msg("%s: error: %s\n", L.trace, strerror(errno));
		ret = EXIT_BAD;
	}
	if (in > STDIN_FILENO)
		close(in);
	if (have_cap)
		cli_capture_free(&cap);
	if (tmpdir) {
		unlink(L.pagepath);
		if (L.stream && !outp)
			unlink(spool);
		rmdir(tmpdir);
		free(tmpdir);
	}
	free(L.page.p);
	free(L.data.p);
	free(L.status.p);
	return ret;
}
