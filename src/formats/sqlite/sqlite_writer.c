/*
 * sqlite_writer.c - one SQLite database per trace, its schema modelled on
 * APP4MC's ATDB (docs/exports.md has the schema).
 *
 * All-or-nothing: SQLite needs a real file, so the database is created at
 * the sink's temporary path (tk_sink_open made it, empty, next to the
 * target) with no journal; tk_writer_close() renames it into place after a
 * successful close, and an abort removes it.  Standard output is refused.
 *
 * Speed: one prepared insert, transactions of BATCH events, no journal,
 * no sync; the indexes are built at close, once the rows are in.  The
 * entity and type tables are written at close too (the entity table is
 * complete only after the last event).  The metric tables come from the
 * stats analysis: aggregates per entity and metric (as `tracekit stats`)
 * and, through its value callback, every per-instance value behind them
 * (all metrics but JIT, whose instances give DT and PER).
 */
#include "../../core/internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 100000u

typedef struct sq_writer {
	const char *name;
	sqlite3 *db;
	sqlite3_stmt *ins_ev;
	sqlite3_stmt *ins_imv;   /* entityInstanceMetricValue */
	tk_stats *stats;
	uint8_t *name_seen;      /* per string id: used as an event name */
	size_t capseen;
	uint64_t nev, inbatch;
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

static const char schema[] =
	"PRAGMA journal_mode=OFF;"
	"PRAGMA synchronous=OFF;"
	"PRAGMA foreign_keys=OFF;"
	"PRAGMA locking_mode=EXCLUSIVE;"
	"PRAGMA cache_size=-65536;" /* 64 MB: the indexes are built at close */
	"CREATE TABLE metaInformation (name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE entityType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE entity (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
	" entityTypeId INTEGER REFERENCES entityType(id),"
	" typeName TEXT, parentId INTEGER REFERENCES entity(id));"
	"CREATE TABLE entityInstance (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" sqcnr INTEGER NOT NULL, PRIMARY KEY (entityId, sqcnr)) WITHOUT ROWID;"
	"CREATE TABLE eventType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE traceEvent (id INTEGER PRIMARY KEY, timestamp INTEGER NOT NULL,"
	" entityId INTEGER NOT NULL REFERENCES entity(id), entityInstance INTEGER,"
	" sourceEntityId INTEGER REFERENCES entity(id), sourceEntityInstance INTEGER,"
	" eventTypeId INTEGER NOT NULL REFERENCES eventType(id),"
	" coreId INTEGER REFERENCES entity(id), value TEXT);"
	"CREATE TABLE metric (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" dimension TEXT NOT NULL);"
	"CREATE TABLE entityMetricValue (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" metricId INTEGER NOT NULL REFERENCES metric(id), count INTEGER NOT NULL,"
	" min INTEGER, max INTEGER, minText TEXT, avgText TEXT, maxText TEXT,"
	" unit TEXT, maxInstance INTEGER, maxTimestamp INTEGER,"
	" PRIMARY KEY (entityId, metricId)) WITHOUT ROWID;"
	"CREATE TABLE entityInstanceMetricValue (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" entityInstance INTEGER, metricId INTEGER NOT NULL REFERENCES metric(id),"
	" value INTEGER NOT NULL, timestamp INTEGER);"
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
	"CREATE INDEX traceEvent_entity ON traceEvent(entityId, entityInstance);"
	"CREATE INDEX traceEvent_time ON traceEvent(timestamp);"
	"CREATE INDEX traceEvent_type ON traceEvent(eventTypeId);"
	"CREATE INDEX entity_name ON entity(name);"
	"CREATE INDEX entityInstanceMetricValue_entity ON entityInstanceMetricValue(entityId, metricId, entityInstance);";

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

/* every per-instance value of the stats analysis */
static void on_value(void *ctx, uint32_t entity, tk_metric metric,
		     int64_t inst, uint64_t value, uint64_t time)
{
	sq_writer *sw = ctx;
	sqlite3_stmt *st = sw->ins_imv;

	if (sw->rc < 0)
		return;
	if (value > INT64_MAX) {
		sw->rc = tk_err_set(sw->err, TK_E_RANGE, sw->name, 0, 0,
				    "a %s value of %llu does not fit SQLite's 64-bit integers",
				    tk_metric_name(metric),
				    (unsigned long long)value);
		return;
	}
	sqlite3_bind_int64(st, 1, entity);
	bind_inst(st, 2, inst);
	sqlite3_bind_int64(st, 3, metric);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)value);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)time);
	if (sqlite3_step(st) != SQLITE_DONE)
		sw->rc = db_fail(sw, sw->err, "insert entityInstanceMetricValue");
	sqlite3_reset(st);
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
	if (sqlite3_prepare_v2(sw->db,
			       "INSERT INTO traceEvent VALUES (?,?,?,?,?,?,?,?,?)",
			       -1, &sw->ins_ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sw->db,
			       "INSERT INTO entityInstanceMetricValue VALUES (?,?,?,?,?)",
			       -1, &sw->ins_imv, NULL) != SQLITE_OK)
		return db_fail(sw, err, "prepare");
	sw->stats = tk_stats_new(w->trace);
	if (!sw->stats)
		return tk_err_nomem(err, sw->name);
	tk_stats_on_value(sw->stats, on_value, sw);
	return TK_OK;
}

static int sqlite_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	sq_writer *sw = w->impl;
	sqlite3_stmt *st = sw->ins_ev;

	sw->err = err;
	if (ev->time > INT64_MAX)
		return tk_err_set(err, TK_E_RANGE, sw->name, 0, 0,
				  "time %llu does not fit SQLite's 64-bit integers",
				  (unsigned long long)ev->time);
	if (ev->name != TK_NONE && ev->name >= sw->capseen) {
		size_t cap = sw->capseen ? sw->capseen : 256;
		uint8_t *n;
		while (cap <= ev->name)
			cap *= 2;
		n = realloc(sw->name_seen, cap);
		if (!n)
			return tk_err_nomem(err, sw->name);
		memset(n + sw->capseen, 0, cap - sw->capseen);
		sw->name_seen = n;
		sw->capseen = cap;
	}
	if (ev->name != TK_NONE)
		sw->name_seen[ev->name] = 1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)++sw->nev);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)ev->time);
	bind_ent(st, 3, ev->target);
	bind_inst(st, 4, ev->target_inst);
	bind_ent(st, 5, ev->source);
	bind_inst(st, 6, ev->source_inst);
	bind_ent(st, 7, ev->name);
	bind_ent(st, 8, ev->core);
	if (ev->note)
		sqlite3_bind_text(st, 9, ev->note, (int)ev->note_len,
				  SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 9);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return db_fail(sw, err, "insert traceEvent");
	}
	sqlite3_reset(st);
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
	if (exec(sw, "INSERT OR IGNORE INTO entityInstance"
		 " SELECT DISTINCT entityId, entityInstance FROM traceEvent"
		 " WHERE entityInstance IS NOT NULL;"
		 "INSERT OR IGNORE INTO entityInstance"
		 " SELECT DISTINCT sourceEntityId, sourceEntityInstance FROM traceEvent"
		 " WHERE sourceEntityInstance IS NOT NULL AND sourceEntityId IS NOT NULL;",
		 err) < 0)
		return TK_E_IO;
	return TK_OK;
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
	rc = write_tables(w, &st, err);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if (exec(sw, indexes, err) < 0 || exec(sw, "COMMIT;", err) < 0)
		return TK_E_IO;
	sqlite3_finalize(sw->ins_ev);
	sqlite3_finalize(sw->ins_imv);
	sw->ins_ev = sw->ins_imv = NULL;
	if (sqlite3_close(sw->db) != SQLITE_OK)
		return db_fail(sw, err, "close");
	sw->db = NULL;
	return TK_OK;
}

static void sqlite_writer_free(tk_writer *w)
{
	sq_writer *sw = w->impl;

	if (!sw)
		return;
	sqlite3_finalize(sw->ins_ev);
	sqlite3_finalize(sw->ins_imv);
	if (sw->db)
		sqlite3_close(sw->db);
	tk_stats_free(sw->stats);
	free(sw->name_seen);
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
};
