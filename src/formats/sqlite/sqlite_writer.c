/*
 * sqlite_writer.c - one SQLite database per trace, its schema modelled on
 * APP4MC's ATDB (docs/exports.md has the schema).
 *
 * All-or-nothing: SQLite needs a real file, so the database is created at
 * the sink's temporary path (tk_sink_open made it, empty, next to the
 * target) with no journal; tk_writer_close() renames it into place after a
 * successful close, and an abort removes it.  Standard output is refused.
 *
 * Speed (issue 7): events go in by INSERTs of ROWS rows (one statement
 * execution per ROWS events), transactions of BATCH events, no journal, no
 * sync.  traceEvent is clustered on (timestamp, id) (WITHOUT ROWID) and
 * its one secondary index, (entityId, timestamp, entityInstance), is kept
 * up to date while inserting (no sort at close).  Instances are rows of
 * entityInstance with a column per single-valued metric (one row per
 * instance instead of one per value and no index to build): the last KEEP
 * instances of each entity stay open in memory while their events and
 * values arrive, then go in as one row; an instance seen again after it
 * was written is read back (reopen_inst) and rewritten.  The other values
 * (PRE, WAIT, POLL, a second value of a metric, a value whose time is not
 * the one its column implies) go to instanceMetricValue; the view
 * entityInstanceMetricValue gives them all, one row per value, as ATDB
 * does.  The entity, type and metric tables are written at close (the
 * entity table is complete only after the last event).  The aggregates
 * per entity and metric come from the stats analysis (as `tracekit
 * stats`), the per-instance values through its value callback (all
 * metrics but JIT, whose instances give DT and PER).
 */
#include "../../core/internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 100000u
#define KEEP 4u      /* instances kept open per entity */
#define NW 8         /* metrics with a column in entityInstance */
#ifndef ROWS
#define ROWS 32      /* events per INSERT statement */
#endif
#define EVCOLS 9     /* columns of traceEvent */

/* the time an instance's column value was completed at (see flush_inst) */
enum { AT_FIRST, AT_START, AT_LAST };

/* entityInstance's metric columns, in table order, and the time each
 * value is completed at: the view entityInstanceMetricValue gives it */
static const tk_metric wide_metric[NW] = {
	TK_METRIC_IPT, TK_METRIC_CET, TK_METRIC_GET, TK_METRIC_RT,
	TK_METRIC_DT, TK_METRIC_PER, TK_METRIC_ST, TK_METRIC_NPRE
};
static const uint8_t wide_at[NW] = {
	AT_START, AT_LAST, AT_LAST, AT_LAST, AT_START, AT_FIRST, AT_FIRST,
	AT_LAST
};

/* an instance being written: its times and metric values so far */
typedef struct sq_inst {
	uint64_t used;           /* LRU stamp; 0: a free slot */
	int64_t k;               /* the instance number */
	int64_t first, last;     /* min and max time of its events (as target) */
	int64_t start;           /* the time of its first start */
	uint8_t seen;            /* 1: first/last valid, 2: start valid */
	uint8_t have;            /* bit j: v[j] and t[j] valid */
	int64_t v[NW], t[NW];
} sq_inst;

/* the open instances of one entity; instances written before lie in
 * [lo, hi] (no lookup in the database for an instance outside) */
typedef struct sq_ent {
	sq_inst s[KEEP];
	int written;
	int64_t lo, hi;
} sq_ent;

/* an event waiting for its INSERT of ROWS events */
typedef struct sq_row {
	int64_t time, tinst, sinst;
	uint32_t target, source, name, core;
	size_t note_off;         /* the note: note_len bytes at */
	uint32_t note_len;       /* sq_writer.notes + note_off */
	int has_note;            /* 0: no note */
} sq_row;

typedef struct sq_writer {
	const char *name;
	sqlite3 *db;
	sqlite3_stmt *ins_ev;    /* one event */
	sqlite3_stmt *ins_evs;   /* ROWS events */
	sqlite3_stmt *ins_inst;  /* entityInstance */
	sqlite3_stmt *get_inst;  /* entityInstance, an instance written before */
	sqlite3_stmt *ins_imv;   /* instanceMetricValue */
	tk_stats *stats;
	uint8_t *name_seen;      /* per string id: used as an event name */
	size_t capseen;
	sq_ent **ents;           /* per entity id, NULL until an instance */
	size_t capents;
	sq_row rows[ROWS];
	unsigned nrows;
	char *notes;             /* the notes of rows[] */
	size_t notes_len, notes_cap;
	uint64_t nev, inbatch, tick;
	int rc;                  /* first error of a timeline callback */
	tk_error *err;
} sq_writer;

static int db_fail(sq_writer *sw, tk_error *err, const char *what)
{
	return tk_err_set(err, TK_E_IO, sw->name, 0, 0, "sqlite: %s: %s", what,
			  sqlite3_errmsg(sw->db));
}

static int exec(sq_writer *sw, const char *sql, tk_error *err)
{
	if (sqlite3_exec(sw->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(sw, err, sql);
	return TK_OK;
}

static int prepare(sq_writer *sw, const char *sql, sqlite3_stmt **st,
		   tk_error *err)
{
	if (sqlite3_prepare_v3(sw->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
			       NULL) != SQLITE_OK)
		return db_fail(sw, err, "prepare");
	return TK_OK;
}

/* one statement that must give SQLITE_DONE, reset either way */
static int step_done(sq_writer *sw, sqlite3_stmt *st, const char *what,
		     tk_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? TK_OK : db_fail(sw, err, what);
}

static const char schema[] =
	"PRAGMA journal_mode=OFF;"
	"PRAGMA synchronous=OFF;"
	"PRAGMA foreign_keys=OFF;"
	"PRAGMA locking_mode=EXCLUSIVE;"
	"PRAGMA cache_size=-65536;" /* 64 MB */
	"CREATE TABLE metaInformation (name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE entityType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE entity (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
	" entityTypeId INTEGER REFERENCES entityType(id),"
	" typeName TEXT, parentId INTEGER REFERENCES entity(id));"
	"CREATE TABLE entityInstance (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" sqcnr INTEGER NOT NULL, firstTimestamp INTEGER, lastTimestamp INTEGER,"
	" startTimestamp INTEGER, IPT INTEGER, CET INTEGER, GET INTEGER, RT INTEGER,"
	" DT INTEGER, PER INTEGER, ST INTEGER, NPRE INTEGER,"
	" PRIMARY KEY (entityId, sqcnr)) WITHOUT ROWID;"
	"CREATE TABLE eventType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE traceEvent (id INTEGER NOT NULL, timestamp INTEGER NOT NULL,"
	" entityId INTEGER NOT NULL REFERENCES entity(id), entityInstance INTEGER,"
	" sourceEntityId INTEGER REFERENCES entity(id), sourceEntityInstance INTEGER,"
	" eventTypeId INTEGER NOT NULL REFERENCES eventType(id),"
	" coreId INTEGER REFERENCES entity(id), value TEXT,"
	" PRIMARY KEY (timestamp, id)) WITHOUT ROWID;"
	"CREATE INDEX traceEvent_entity ON traceEvent(entityId, timestamp, entityInstance);"
	"CREATE TABLE metric (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" dimension TEXT NOT NULL);"
	"CREATE TABLE entityMetricValue (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" metricId INTEGER NOT NULL REFERENCES metric(id), count INTEGER NOT NULL,"
	" min INTEGER, max INTEGER, minText TEXT, avgText TEXT, maxText TEXT,"
	" unit TEXT, maxInstance INTEGER, maxTimestamp INTEGER,"
	" PRIMARY KEY (entityId, metricId)) WITHOUT ROWID;"
	"CREATE TABLE instanceMetricValue (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" entityInstance INTEGER, metricId INTEGER NOT NULL REFERENCES metric(id),"
	" value INTEGER NOT NULL, timestamp INTEGER NOT NULL);"
	"CREATE INDEX instanceMetricValue_entity ON instanceMetricValue(entityId, metricId, entityInstance);"
	"CREATE VIEW entityInstanceMetricValue (entityId, entityInstance, metricId, value, timestamp) AS"
	" SELECT entityId, sqcnr, 0, IPT, startTimestamp FROM entityInstance WHERE IPT IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 1, CET, lastTimestamp FROM entityInstance WHERE CET IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 2, GET, lastTimestamp FROM entityInstance WHERE GET IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 3, RT, lastTimestamp FROM entityInstance WHERE RT IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 4, DT, startTimestamp FROM entityInstance WHERE DT IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 5, PER, firstTimestamp FROM entityInstance WHERE PER IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 6, ST, firstTimestamp FROM entityInstance WHERE ST IS NOT NULL"
	" UNION ALL SELECT entityId, sqcnr, 9, NPRE, lastTimestamp FROM entityInstance WHERE NPRE IS NOT NULL"
	" UNION ALL SELECT entityId, entityInstance, metricId, value, timestamp FROM instanceMetricValue;"
	"CREATE VIEW traceEventInfo AS SELECT e.id, e.timestamp, en.name AS entityName,"
	" et.name AS entityType, e.entityInstance, s.name AS sourceEntityName,"
	" e.sourceEntityInstance, ev.name AS eventType, c.name AS coreName, e.value"
	" FROM traceEvent e JOIN entity en ON en.id = e.entityId"
	" LEFT JOIN entityType et ON et.id = en.entityTypeId"
	" LEFT JOIN entity s ON s.id = e.sourceEntityId"
	" JOIN eventType ev ON ev.id = e.eventTypeId"
	" LEFT JOIN entity c ON c.id = e.coreId;"
	"BEGIN;";

static const char indexes[] =
	"CREATE INDEX entity_name ON entity(name);";

static void bind_inst(sqlite3_stmt *st, int col, int64_t inst)
{
	if (inst == TK_INST_NONE)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, inst);
}

static void bind_ent(sqlite3_stmt *st, int col, uint32_t ent)
{
	if (ent == TK_NONE)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, ent);
}

/* a value that has no column in entityInstance */
static int put_value(sq_writer *sw, uint32_t entity, int64_t inst,
		     tk_metric metric, int64_t value, int64_t time,
		     tk_error *err)
{
	sqlite3_stmt *st = sw->ins_imv;

	sqlite3_bind_int64(st, 1, entity);
	bind_inst(st, 2, inst);
	sqlite3_bind_int(st, 3, (int)metric);
	sqlite3_bind_int64(st, 4, value);
	sqlite3_bind_int64(st, 5, time);
	return step_done(sw, st, "insert instanceMetricValue", err);
}

/*
 * Write instance r of `entity` into entityInstance (replacing the row of a
 * reopened instance).  A metric value goes to its column when it was
 * completed at the time the view gives it (see wide_at), else to
 * instanceMetricValue with its own time, so the view is exact.
 */
static int flush_inst(sq_writer *sw, uint32_t entity, sq_ent *e,
		      sq_inst *r, tk_error *err)
{
	sqlite3_stmt *st = sw->ins_inst;
	int j;

	sqlite3_bind_int64(st, 1, entity);
	sqlite3_bind_int64(st, 2, r->k);
	if (r->seen & 1) {
		sqlite3_bind_int64(st, 3, r->first);
		sqlite3_bind_int64(st, 4, r->last);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	if (r->seen & 2)
		sqlite3_bind_int64(st, 5, r->start);
	else
		sqlite3_bind_null(st, 5);
	for (j = 0; j < NW; j++) {
		int ok = 0;
		if (r->have & (1u << j)) {
			switch (wide_at[j]) {
			case AT_FIRST:
				ok = (r->seen & 1) && r->t[j] == r->first;
				break;
			case AT_LAST:
				ok = (r->seen & 1) && r->t[j] == r->last;
				break;
			default:
				ok = (r->seen & 2) && r->t[j] == r->start;
				break;
			}
			if (!ok && put_value(sw, entity, r->k, wide_metric[j],
					     r->v[j], r->t[j], err) < 0)
				return TK_E_IO;
		}
		if (ok)
			sqlite3_bind_int64(st, 6 + j, r->v[j]);
		else
			sqlite3_bind_null(st, 6 + j);
	}
	if (step_done(sw, st, "insert entityInstance", err) < 0)
		return TK_E_IO;
	if (!e->written || r->k < e->lo)
		e->lo = r->k;
	if (!e->written || r->k > e->hi)
		e->hi = r->k;
	e->written = 1;
	r->used = 0;
	return TK_OK;
}

/* reopen instance r written before, if it was: its row back into r */
static int reopen_inst(sq_writer *sw, uint32_t entity, sq_inst *r,
		       tk_error *err)
{
	sqlite3_stmt *st = sw->get_inst;
	int rc, j;

	sqlite3_bind_int64(st, 1, entity);
	sqlite3_bind_int64(st, 2, r->k);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			r->seen |= 1;
			r->first = sqlite3_column_int64(st, 0);
			r->last = sqlite3_column_int64(st, 1);
		}
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
			r->seen |= 2;
			r->start = sqlite3_column_int64(st, 2);
		}
		for (j = 0; j < NW; j++) {
			if (sqlite3_column_type(st, 3 + j) == SQLITE_NULL)
				continue;
			r->have |= (uint8_t)(1u << j);
			r->v[j] = sqlite3_column_int64(st, 3 + j);
			r->t[j] = wide_at[j] == AT_FIRST ? r->first :
				  wide_at[j] == AT_LAST ? r->last : r->start;
		}
		rc = sqlite3_step(st);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? TK_OK : db_fail(sw, err, "select entityInstance");
}

/* *out: the open instance k of `entity`, opened (or reopened) if not */
static int get_inst(sq_writer *sw, uint32_t entity, int64_t k,
		    sq_inst **out, tk_error *err)
{
	sq_ent *e;
	sq_inst *r = NULL;
	unsigned i;
	int rc;

	if (tk_grow_zero((void **)&sw->ents, &sw->capents, entity,
			 sizeof(*sw->ents)) < 0)
		goto nomem;
	e = sw->ents[entity];
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			goto nomem;
		sw->ents[entity] = e;
	}
	for (i = 0; i < KEEP; i++) {
		if (e->s[i].used && e->s[i].k == k) {
			e->s[i].used = ++sw->tick;
			*out = &e->s[i];
			return TK_OK;
		}
		if (!r || e->s[i].used < r->used)
			r = &e->s[i];
	}
	/* r: a free slot or the least recently used instance */
	if (r->used && (rc = flush_inst(sw, entity, e, r, err)) < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	r->k = k;
	r->used = ++sw->tick;
	if (e->written && k >= e->lo && k <= e->hi &&
	    (rc = reopen_inst(sw, entity, r, err)) < 0)
		return rc;
	*out = r;
	return TK_OK;
nomem:
	return tk_err_nomem(err, sw->name);
}

/* every per-instance value of the stats analysis */
static void on_value(void *ctx, uint32_t entity, tk_metric metric,
		     int64_t inst, uint64_t value, uint64_t time)
{
	sq_writer *sw = ctx;
	sq_inst *r;
	int j;

	if (sw->rc < 0)
		return;
	if (value > INT64_MAX) {
		sw->rc = tk_err_set(sw->err, TK_E_RANGE, sw->name, 0, 0,
				    "a %s value of %llu does not fit SQLite's 64-bit integers",
				    tk_metric_name(metric),
				    (unsigned long long)value);
		return;
	}
	for (j = 0; j < NW && wide_metric[j] != metric; j++)
		;
	if (j == NW || inst == TK_INST_NONE) {
		sw->rc = put_value(sw, entity, inst, metric, (int64_t)value,
				   (int64_t)time, sw->err);
		return;
	}
	if ((sw->rc = get_inst(sw, entity, inst, &r, sw->err)) < 0)
		return;
	if (r->have & (1u << j)) {  /* a second value: no column for it */
		sw->rc = put_value(sw, entity, inst, metric, (int64_t)value,
				   (int64_t)time, sw->err);
		return;
	}
	r->have |= (uint8_t)(1u << j);
	r->v[j] = (int64_t)value;
	r->t[j] = (int64_t)time;
}

/* bind event row r at parameter base+1.. of st */
static void bind_row(const sq_writer *sw, sqlite3_stmt *st, int base,
		     uint64_t id, const sq_row *r)
{
	sqlite3_bind_int64(st, base + 1, (sqlite3_int64)id);
	sqlite3_bind_int64(st, base + 2, r->time);
	bind_ent(st, base + 3, r->target);
	bind_inst(st, base + 4, r->tinst);
	bind_ent(st, base + 5, r->source);
	bind_inst(st, base + 6, r->sinst);
	bind_ent(st, base + 7, r->name);
	bind_ent(st, base + 8, r->core);
	if (r->has_note)
		sqlite3_bind_text(st, base + 9, sw->notes + r->note_off,
				  (int)r->note_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, base + 9);
}

/* insert the events waiting in rows[]: ROWS at once, or one by one */
static int flush_rows(sq_writer *sw, tk_error *err)
{
	uint64_t id = sw->nev - sw->nrows + 1;
	unsigned i;

	if (sw->nrows == ROWS) {
		for (i = 0; i < ROWS; i++)
			bind_row(sw, sw->ins_evs, (int)i * EVCOLS, id + i,
				 &sw->rows[i]);
		if (step_done(sw, sw->ins_evs, "insert traceEvent", err) < 0)
			return TK_E_IO;
	} else {
		for (i = 0; i < sw->nrows; i++) {
			bind_row(sw, sw->ins_ev, 0, id + i, &sw->rows[i]);
			if (step_done(sw, sw->ins_ev, "insert traceEvent", err) < 0)
				return TK_E_IO;
		}
	}
	sw->nrows = 0;
	sw->notes_len = 0;
	return TK_OK;
}

static int sqlite_writer_open(tk_writer *w, tk_error *err)
{
	sq_writer *sw;

	if (!w->sink.path)
		return tk_err_set(err, TK_E_UNSUPPORTED, "<stdout>", 0, 0,
				  "an SQLite database cannot be written to standard output: give a file name");
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = sw;
	sw->name = w->sink.path;
	sw->err = err;
	if (sqlite3_open_v2(w->sink.tmp, &sw->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return db_fail(sw, err, "cannot open the database");
	if (exec(sw, schema, err) < 0)
		return TK_E_IO;
	{
		/* "INSERT INTO traceEvent VALUES (?,...),(?,...)...": ROWS rows */
		static const char head[] = "INSERT INTO traceEvent VALUES ",
			row[] = "(?,?,?,?,?,?,?,?,?),";
		char sql[sizeof(head) + ROWS * (sizeof(row) - 1)];
		unsigned i;
		memcpy(sql, head, sizeof(head) - 1);
		for (i = 0; i < ROWS; i++)
			memcpy(sql + sizeof(head) - 1 + i * (sizeof(row) - 1), row,
			       sizeof(row) - 1);
		sql[sizeof(head) - 1 + ROWS * (sizeof(row) - 1) - 1] = '\0';
		if (prepare(sw, sql, &sw->ins_evs, err) < 0)
			return TK_E_IO;
	}
	if (prepare(sw, "INSERT INTO traceEvent VALUES (?,?,?,?,?,?,?,?,?)",
		    &sw->ins_ev, err) < 0 ||
	    prepare(sw, "INSERT OR REPLACE INTO entityInstance"
		    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", &sw->ins_inst, err) < 0 ||
	    prepare(sw, "SELECT firstTimestamp, lastTimestamp, startTimestamp,"
		    " IPT, CET, GET, RT, DT, PER, ST, NPRE FROM entityInstance"
		    " WHERE entityId = ? AND sqcnr = ?", &sw->get_inst, err) < 0 ||
	    prepare(sw, "INSERT INTO instanceMetricValue VALUES (?,?,?,?,?)",
		    &sw->ins_imv, err) < 0)
		return TK_E_IO;
	if (tk_stats_new(&sw->stats, w->trace, NULL) < 0)
		return tk_err_nomem(err, sw->name);
	tk_stats_on_value(sw->stats, on_value, sw);
	return TK_OK;
}

static int sqlite_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	sq_writer *sw = w->impl;
	sq_row *row;
	int rc;

	sw->err = err;
	if (ev->time > INT64_MAX)
		return tk_err_set(err, TK_E_RANGE, sw->name, 0, 0,
				  "time %llu does not fit SQLite's 64-bit integers",
				  (unsigned long long)ev->time);
	if (ev->name != TK_NONE &&
	    tk_grow_zero((void **)&sw->name_seen, &sw->capseen, ev->name, 1) < 0)
		return tk_err_nomem(err, sw->name);
	if (ev->name != TK_NONE)
		sw->name_seen[ev->name] = 1;
	row = &sw->rows[sw->nrows];
	row->time = (int64_t)ev->time;
	row->target = ev->target;
	row->tinst = ev->target_inst;
	row->source = ev->source;
	row->sinst = ev->source_inst;
	row->name = ev->name;
	row->core = ev->core;
	row->has_note = ev->note != NULL;
	row->note_len = row->note_off = 0;
	if (ev->note) {
		if (ev->note_len > sw->notes_cap - sw->notes_len &&
		    (ev->note_len > SIZE_MAX - sw->notes_len ||
		     tk_grow_zero((void **)&sw->notes, &sw->notes_cap,
				  sw->notes_len + ev->note_len - 1, 1) < 0))
			return tk_err_nomem(err, sw->name);
		memcpy(sw->notes + sw->notes_len, ev->note, ev->note_len);
		row->note_off = sw->notes_len;
		row->note_len = ev->note_len;
		sw->notes_len += ev->note_len;
	}
	sw->nev++;
	if (++sw->nrows == ROWS && flush_rows(sw, err) < 0)
		return TK_E_IO;
	/* the instances: the target's times, the source's row */
	if (ev->target != TK_NONE && ev->target_inst != TK_INST_NONE) {
		sq_inst *r;
		int64_t t = (int64_t)ev->time;
		if ((rc = get_inst(sw, ev->target, ev->target_inst, &r, err)) < 0)
			return rc;
		if (!(r->seen & 1)) {
			r->seen |= 1;
			r->first = r->last = t;
		} else if (t < r->first) {
			r->first = t;
		} else if (t > r->last) {
			r->last = t;
		}
		if (ev->kind == TK_EV_START && !(r->seen & 2)) {
			r->seen |= 2;
			r->start = t;
		}
	}
	if (ev->source != TK_NONE && ev->source_inst != TK_INST_NONE) {
		sq_inst *r;
		if ((rc = get_inst(sw, ev->source, ev->source_inst, &r, err)) < 0)
			return rc;
	}
	if (tk_stats_event(sw->stats, ev) < 0)
		return tk_err_nomem(err, sw->name);
	if (sw->rc < 0)
		return sw->rc;
	if (++sw->inbatch == BATCH) {
		sw->inbatch = 0;
		if (exec(sw, "COMMIT;BEGIN;", err) < 0)
			return TK_E_IO;
	}
	return TK_OK;
}

static int put_meta(sq_writer *sw, sqlite3_stmt *st, const char *k,
		    const char *v, tk_error *err)
{
	sqlite3_bind_text(st, 1, k, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, v, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return db_fail(sw, err, "insert metaInformation");
	}
	sqlite3_reset(st);
	return TK_OK;
}

static int write_tables(tk_writer *w, sqlite3_stmt **stp, tk_error *err)
{
	sq_writer *sw = w->impl;
	const tk_trace *t = w->trace;
	const tk_timebase *tb = tk_trace_timebase(t);
	sqlite3_stmt *st = NULL;
	size_t i, n;
	char b[128];
	int k;

#define PREP(sql) do { \
		sqlite3_finalize(st); \
		*stp = st = NULL; \
		if (sqlite3_prepare_v2(sw->db, sql, -1, &st, NULL) != SQLITE_OK) \
			return db_fail(sw, err, "prepare"); \
		*stp = st; \
	} while (0)
#define STEP(what) do { \
		if (sqlite3_step(st) != SQLITE_DONE) \
			return db_fail(sw, err, what); \
		sqlite3_reset(st); \
	} while (0)

	/* metaInformation: the header parameters and the time base */
	PREP("INSERT OR REPLACE INTO metaInformation VALUES (?,?)");
	for (i = 0; i < tk_trace_header_count(t); i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		if (h->kind == TK_HDR_PARAM &&
		    put_meta(sw, st, h->key, h->value, err) < 0)
			return TK_E_IO;
	}
	snprintf(b, sizeof(b), "%llu/%llu %s", (unsigned long long)tb->num,
		 (unsigned long long)tb->den, tk_unit_name(tb->unit));
	if (put_meta(sw, st, "format", tk_trace_format(t), err) < 0 ||
	    put_meta(sw, st, "timeBase", b, err) < 0 ||
	    put_meta(sw, st, "timeUnit", tk_unit_name(tb->unit), err) < 0 ||
	    put_meta(sw, st, "generator", "tracekit", err) < 0 ||
	    put_meta(sw, st, "generatorVersion", tk_version(), err) < 0)
		return TK_E_IO;
	snprintf(b, sizeof(b), "%llu", (unsigned long long)sw->nev);
	if (put_meta(sw, st, "eventCount", b, err) < 0)
		return TK_E_IO;

	PREP("INSERT INTO entityType VALUES (?,?)");
	for (k = 0; k < TK_ET_COUNT; k++) {
		sqlite3_bind_int(st, 1, k);
		sqlite3_bind_text(st, 2, tk_etype_name((tk_etype)k), -1,
				  SQLITE_STATIC);
		STEP("insert entityType");
	}

	PREP("INSERT INTO entity VALUES (?,?,?,?,?)");
	n = tk_trace_entity_count(t);
	for (i = 0; i < n; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		size_t len;
		const char *s = tk_trace_str(t, e->name, &len);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		sqlite3_bind_text(st, 2, s, (int)len, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, (int)e->type);
		if (e->type_name != TK_NONE) {
			s = tk_trace_str(t, e->type_name, &len);
			sqlite3_bind_text(st, 4, s, (int)len, SQLITE_STATIC);
		} else {
			sqlite3_bind_null(st, 4);
		}
		bind_ent(st, 5, e->parent);
		STEP("insert entity");
	}

	PREP("INSERT INTO eventType VALUES (?,?)");
	for (i = 0; i < sw->capseen; i++) {
		size_t len;
		const char *s;
		if (!sw->name_seen[i])
			continue;
		s = tk_trace_str(t, (tk_str)i, &len);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		sqlite3_bind_text(st, 2, s, (int)len, SQLITE_STATIC);
		STEP("insert eventType");
	}

	PREP("INSERT INTO metric VALUES (?,?,?)");
	for (k = 0; k < TK_METRIC_COUNT; k++) {
		sqlite3_bind_int(st, 1, k);
		sqlite3_bind_text(st, 2, tk_metric_name((tk_metric)k), -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 3, tk_metric_is_time((tk_metric)k) ?
				  "time" : "count", -1, SQLITE_STATIC);
		STEP("insert metric");
	}

	PREP("INSERT INTO entityMetricValue VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	n = tk_stats_count(sw->stats);
	for (i = 0; i < n; i++) {
		const tk_stat *r = tk_stats_get(sw->stats, i);
		static const tk_stat_field f[3] = { TK_STAT_MIN, TK_STAT_AVG,
						    TK_STAT_MAX };
		int j;
		sqlite3_bind_int64(st, 1, r->entity);
		sqlite3_bind_int(st, 2, (int)r->metric);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)r->count);
		if (r->metric == TK_METRIC_JIT) {
			sqlite3_bind_null(st, 4);
			sqlite3_bind_null(st, 5);
		} else {
			sqlite3_bind_int64(st, 4, (sqlite3_int64)r->min);
			sqlite3_bind_int64(st, 5, (sqlite3_int64)r->max);
		}
		for (j = 0; j < 3; j++) {
			int len = tk_stats_format(sw->stats, i, f[j], tb->unit,
						  b, sizeof(b));
			if (len < 0)
				sqlite3_bind_null(st, 6 + j);
			else
				sqlite3_bind_text(st, 6 + j, b, len,
						  SQLITE_TRANSIENT);
		}
		sqlite3_bind_text(st, 9, tk_metric_is_time(r->metric) ?
				  tk_unit_name(tb->unit) : "1", -1, SQLITE_STATIC);
		bind_inst(st, 10, r->max_inst);
		sqlite3_bind_int64(st, 11, (sqlite3_int64)r->max_time);
		STEP("insert entityMetricValue");
	}
	sqlite3_finalize(st);
	*stp = NULL;
#undef PREP
#undef STEP
	/* the instances still open */
	for (i = 0; i < sw->capents; i++) {
		sq_ent *e = sw->ents[i];
		unsigned j;
		for (j = 0; e && j < KEEP; j++)
			if (e->s[j].used &&
			    flush_inst(sw, (uint32_t)i, e, &e->s[j], err) < 0)
				return TK_E_IO;
	}
	return TK_OK;
}

static void finalize_all(sq_writer *sw)
{
	sqlite3_finalize(sw->ins_ev);
	sqlite3_finalize(sw->ins_evs);
	sqlite3_finalize(sw->ins_inst);
	sqlite3_finalize(sw->get_inst);
	sqlite3_finalize(sw->ins_imv);
	sw->ins_ev = sw->ins_evs = sw->ins_inst = NULL;
	sw->get_inst = sw->ins_imv = NULL;
}

static int sqlite_writer_close(tk_writer *w, tk_error *err)
{
	sq_writer *sw = w->impl;
	sqlite3_stmt *st = NULL;
	int rc;

	sw->err = err;
	if (tk_stats_finish(sw->stats) < 0)
		return tk_err_nomem(err, sw->name);
	if (sw->rc < 0)
		return sw->rc;
	if (flush_rows(sw, err) < 0)
		return TK_E_IO;
	rc = write_tables(w, &st, err);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if (exec(sw, indexes, err) < 0 || exec(sw, "COMMIT;", err) < 0)
		return TK_E_IO;
	finalize_all(sw);
	if (sqlite3_close(sw->db) != SQLITE_OK)
		return db_fail(sw, err, "close");
	sw->db = NULL;
	return TK_OK;
}

static void sqlite_writer_free(tk_writer *w)
{
	sq_writer *sw = w->impl;
	size_t i;

	if (!sw)
		return;
	finalize_all(sw);
	if (sw->db)
		sqlite3_close(sw->db);
	tk_stats_free(sw->stats);
	free(sw->name_seen);
	free(sw->notes);
	for (i = 0; i < sw->capents; i++)
		free(sw->ents[i]);
	free(sw->ents);
	free(sw);
	w->impl = NULL;
}

const tk_format_ops tk_format_sqlite = {
	.info = {
		.name = "sqlite",
		.extensions = "sqlite db",
		.description = "SQLite database after APP4MC's ATDB: entities, events, instances, metrics (export only)",
		.caps = TK_CAP_WRITE,
	},
	.writer_open = sqlite_writer_open,
	.writer_write = sqlite_writer_write,
	.writer_close = sqlite_writer_close,
	.writer_free = sqlite_writer_free,
	.writes_file = 1,
};
