/*
 * sqlite_writer.c - one SQLite database per trace, its schema modelled on
 * APP4MC's ATDB (docs/exports.md has the schema).
 *
 * All-or-nothing: SQLite needs a real file, so the database is created at
 * the sink's temporary path (tk_sink_open made it, empty, next to the
 * target) with no journal; tk_writer_close() renames it into place after a
 * successful close, and an abort removes it.  Standard output is refused.
 *
 * Speed: one transaction on a fresh file (no journal, no sync, exclusive
 * lock); statements prepared once, rows inserted ROWS at a time.
 * traceEvent is clustered on (timestamp, id) (WITHOUT ROWID) and appended
 * to in trace order, notes copied beside their rows (a longer note than
 * the buffer goes in alone).  Instances are rows of entityInstance with a
 * column per single-valued metric: up to POOL instances, of all entities
 * together, stay open while their events and values arrive; the least
 * recently used one is appended when a slot is needed, and one seen again
 * after that is read back (reopen_inst) and replaced through the unique
 * index entityInstance_key, built at the first reopening or at close.
 * The other values (PRE, WAIT, POLL, a second value of a metric, a value
 * whose time is not the one its column implies) go to instanceMetricValue;
 * the view entityInstanceMetricValue gives them all, one row per value, as
 * ATDB does.  The entity, type, metric and header tables are written at
 * close, the secondary indexes after the last row, each from one sort with
 * a small cache (option entity-index=0: no traceEvent_entity, the largest).
 * The aggregates come from the stats analysis (as `tracekit stats`), the
 * per-instance values through its value callback (all metrics but JIT).
 *
 * Memory: 24 bytes per entity (sq_ent) plus the pool, the row buffers
 * and SQLite's page cache, all of fixed size.
 */
#include "../../core/hashmap.h"
#include "../../core/internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL 16384u  /* open instances, all entities together */
#define NW 8         /* metrics with a column in entityInstance */
#ifndef ROWS
#define ROWS 32      /* events per INSERT statement */
#endif
#define EVCOLS 9     /* columns of traceEvent */
#define ICOLS 13     /* columns of entityInstance */
#define NOTES 65536u /* bytes of notes waiting with their rows */
#define NIL UINT32_MAX

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

/* an open instance: its times and metric values so far */
typedef struct sq_inst {
	uint32_t entity;
	uint32_t prev, next;     /* the LRU list (pool indexes, NIL at ends) */
	uint8_t seen;            /* 1: first/last valid, 2: start valid */
	uint8_t have;            /* bit j: v[j] and t[j] valid */
	int64_t k;               /* the instance number */
	int64_t first, last;     /* min and max time of its events (as target) */
	int64_t start;           /* the time of its first start */
	int64_t v[NW], t[NW];
} sq_inst;

/* one entity: the instances written before lie in [lo, hi] (no lookup in
 * the database for an instance outside); its last open instance */
typedef struct sq_ent {
	int64_t lo, hi;
	int64_t off, top;        /* sqcnr = instance + off in this time line;
				  * top: above every sqcnr given */
	uint32_t last1;          /* pool index + 1 of its last instance; 0: none */
	uint32_t written;
} sq_ent;

/* an event waiting for its INSERT of ROWS events; its note, if any, at
 * notes[note, note + len) */
typedef struct sq_row {
	int64_t time, tinst, sinst;
	uint32_t target, source, name, core;
	uint32_t note, len;      /* len UINT32_MAX: no note */
} sq_row;

/* an instance waiting for its INSERT of ROWS rows: its columns, bit j of
 * null for a NULL in column j */
typedef struct sq_irow {
	int64_t v[ICOLS];
	uint16_t null;
} sq_irow;

typedef struct sq_writer {
	tk_writer *w;
	const char *name;
	sqlite3 *db;
	sqlite3_stmt *ins_ev;    /* one event */
	sqlite3_stmt *ins_evs;   /* ROWS events */
	sqlite3_stmt *ins_inst;  /* entityInstance */
	sqlite3_stmt *ins_insts; /* ROWS instances */
	sqlite3_stmt *get_inst;  /* entityInstance, an instance written before */
	sqlite3_stmt *ins_imv;   /* instanceMetricValue */
	tk_stats *stats;
	tk_tlines tlines;        /* where a time line begins */
	uint64_t *name_seen;     /* per string id: used as an event name, by
				  * the first event at tk_event.pos
				  * name_seen - 1 (0: not used) */
	size_t capseen;
	sq_ent *ents;            /* per entity id */
	size_t capents;
	tk_name_pos npos;        /* where a name refused at close is reported */
	sq_inst *pool;           /* the open instances: npool of POOL used */
	size_t cappool;
	uint32_t npool, head, tail; /* head: most recently used */
	tk_hashmap open;         /* inst_key(entity, k) -> pool index */
	sq_row rows[ROWS];
	unsigned nrows;
	char *notes;             /* the notes of rows[]: nnotes bytes used */
	uint32_t nnotes;
	sq_irow irows[ROWS];
	unsigned nirows;
	uint64_t nev;
	int keyed;               /* entityInstance_key built */
	int no_entity_index;     /* option entity-index=0 */
	uint32_t nchains;        /* options chain=...: rows of cause-effect chains */
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

/* a fresh file written once: no journal, no sync, the lock kept, 8 KiB
 * pages and a cache of fixed size (the tables are appended to; the index
 * sorts spill to temporary files beyond it) */
static const char schema[] =
	"PRAGMA page_size=8192;"
	"PRAGMA journal_mode=OFF;"
	"PRAGMA synchronous=OFF;"
	"PRAGMA foreign_keys=OFF;"
	"PRAGMA locking_mode=EXCLUSIVE;"
	"PRAGMA cache_size=-16384;" /* 16 MiB */
	"CREATE TABLE metaInformation (name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE header (id INTEGER PRIMARY KEY, block INTEGER NOT NULL,"
	" kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT);"
	"CREATE INDEX header_key ON header(key, block);"
	"CREATE TABLE entityType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE entity (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
	" entityTypeId INTEGER REFERENCES entityType(id),"
	" typeName TEXT, parentId INTEGER REFERENCES entity(id));"
	"CREATE TABLE entityInstance (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" sqcnr INTEGER NOT NULL, firstTimestamp INTEGER, lastTimestamp INTEGER,"
	" startTimestamp INTEGER, IPT INTEGER, CET INTEGER, GET INTEGER, RT INTEGER,"
	" DT INTEGER, PER INTEGER, ST INTEGER, NPRE INTEGER);"
	"CREATE TABLE eventType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE traceEvent (id INTEGER NOT NULL, timestamp INTEGER NOT NULL,"
	" entityId INTEGER NOT NULL REFERENCES entity(id), entityInstance INTEGER,"
	" sourceEntityId INTEGER REFERENCES entity(id), sourceEntityInstance INTEGER,"
	" eventTypeId INTEGER NOT NULL REFERENCES eventType(id),"
	" coreId INTEGER REFERENCES entity(id), value TEXT,"
	" PRIMARY KEY (timestamp, id)) WITHOUT ROWID;"
	"CREATE TABLE metric (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" dimension TEXT NOT NULL);"
	"CREATE TABLE entityMetricValue (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" metricId INTEGER NOT NULL REFERENCES metric(id), count INTEGER NOT NULL,"
	" min INTEGER, max INTEGER, minText TEXT, avgText TEXT, maxText TEXT,"
	" unit TEXT, maxInstance INTEGER, maxTimestamp INTEGER, maxAtText TEXT,"
	" PRIMARY KEY (entityId, metricId)) WITHOUT ROWID;"
	"CREATE TABLE instanceMetricValue (entityId INTEGER NOT NULL REFERENCES entity(id),"
	" entityInstance INTEGER, metricId INTEGER NOT NULL REFERENCES metric(id),"
	" value INTEGER NOT NULL, timestamp INTEGER NOT NULL);"
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

/* built after the last row: one sort each instead of an insertion per row;
 * then the file's safe state (a journal, locks released by the close) */
static const char entity_index[] =
	"PRAGMA cache_size=-2048;"
	"CREATE INDEX traceEvent_entity ON traceEvent(entityId);";
static const char indexes[] =
	"PRAGMA cache_size=-2048;"
	"CREATE UNIQUE INDEX IF NOT EXISTS entityInstance_key ON entityInstance(entityId, sqcnr);"
	"CREATE INDEX instanceMetricValue_entity ON instanceMetricValue(entityId, metricId, entityInstance);"
	"CREATE INDEX entity_name ON entity(name);"
	"COMMIT;"
	"PRAGMA journal_mode=DELETE;"
	"PRAGMA locking_mode=NORMAL;"
	"PRAGMA synchronous=FULL;";

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

/* the hash key of instance k of an entity (pairs may share one: the pool
 * entries are compared) */
static uint64_t inst_key(uint32_t entity, int64_t k)
{
	return (uint64_t)entity << 32 ^ (uint64_t)k;
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

/* insert the instances waiting in irows[]: ROWS at once, or one by one */
static int flush_irows(sq_writer *sw, tk_error *err)
{
	sqlite3_stmt *st = sw->nirows == ROWS ? sw->ins_insts : sw->ins_inst;
	unsigned i, j, n = sw->nirows == ROWS ? ROWS : 1;
	int p = 1;

	for (i = 0; i < sw->nirows; i++) {
		for (j = 0; j < ICOLS; j++, p++)
			if (sw->irows[i].null & (1u << j))
				sqlite3_bind_null(st, p);
			else
				sqlite3_bind_int64(st, p, sw->irows[i].v[j]);
		if (i % n == n - 1) {
			if (step_done(sw, st, "insert entityInstance", err) < 0)
				return TK_E_IO;
			p = 1;
		}
	}
	sw->nirows = 0;
	return TK_OK;
}

/*
 * Write open instance r into entityInstance (replacing the row of a
 * reopened instance).  A metric value goes to its column when it was
 * completed at the time the view gives it (see wide_at), else to
 * instanceMetricValue with its own time, so the view is exact.
 */
static int flush_inst(sq_writer *sw, sq_inst *r, tk_error *err)
{
	sq_irow *q = &sw->irows[sw->nirows];
	sq_ent *e = &sw->ents[r->entity];
	int j;

	q->v[0] = r->entity;
	q->v[1] = r->k;
	q->v[2] = r->first;
	q->v[3] = r->last;
	q->v[4] = r->start;
	q->null = (uint16_t)((r->seen & 1 ? 0 : 3u << 2) | (r->seen & 2 ? 0 : 1u << 4));
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
			if (!ok && put_value(sw, r->entity, r->k, wide_metric[j],
					     r->v[j], r->t[j], err) < 0)
				return TK_E_IO;
		}
		q->v[5 + j] = r->v[j];
		if (!ok)
			q->null |= (uint16_t)(1u << (5 + j));
	}
	if (++sw->nirows == ROWS && flush_irows(sw, err) < 0)
		return TK_E_IO;
	if (!e->written || r->k < e->lo)
		e->lo = r->k;
	if (!e->written || r->k > e->hi)
		e->hi = r->k;
	e->written = 1;
	return TK_OK;
}

static int make_key(sq_writer *sw, tk_error *err)
{
	sw->keyed = 1;
	return exec(sw, "CREATE UNIQUE INDEX entityInstance_key ON entityInstance(entityId, sqcnr)", err);
}

/* reopen instance r written before, if it was: its row back into r */
static int reopen_inst(sq_writer *sw, sq_inst *r, tk_error *err)
{
	sqlite3_stmt *st = sw->get_inst;
	int rc, j;

	if (flush_irows(sw, err) < 0)
		return TK_E_IO;
	sqlite3_bind_int64(st, 1, r->entity);
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

/* the LRU list: take pool entry i out, put it at the head */
static void lru_unlink(sq_writer *sw, uint32_t i)
{
	sq_inst *r = &sw->pool[i];

	if (r->prev != NIL)
		sw->pool[r->prev].next = r->next;
	else
		sw->head = r->next;
	if (r->next != NIL)
		sw->pool[r->next].prev = r->prev;
	else
		sw->tail = r->prev;
}

static void lru_push(sq_writer *sw, uint32_t i)
{
	sq_inst *r = &sw->pool[i];

	r->prev = NIL;
	r->next = sw->head;
	if (sw->head != NIL)
		sw->pool[sw->head].prev = i;
	else
		sw->tail = i;
	sw->head = i;
}

/* a pool entry for a new instance: a free one, else the least recently
 * used instance, written and forgotten */
static int pool_take(sq_writer *sw, uint32_t *out, tk_error *err)
{
	uint32_t i, h;
	sq_inst *r;

	if (sw->npool < POOL) {
		if (tk_grow_zero((void **)&sw->pool, &sw->cappool, sw->npool,
				 sizeof(*sw->pool)) < 0)
			return tk_err_nomem(err, sw->name);
		*out = sw->npool++;
		return TK_OK;
	}
	i = sw->tail;
	r = &sw->pool[i];
	if (flush_inst(sw, r, err) < 0)
		return TK_E_IO;
	lru_unlink(sw, i);
	for (h = tk_hashmap_first(&sw->open, inst_key(r->entity, r->k));
	     h != TK_HASHMAP_END;
	     h = tk_hashmap_next(&sw->open, inst_key(r->entity, r->k), h))
		if (sw->open.slots[h].val == i) {
			tk_hashmap_del_at(&sw->open, h);
			break;
		}
	if (sw->ents[r->entity].last1 == i + 1)
		sw->ents[r->entity].last1 = 0;
	*out = i;
	return TK_OK;
}

/* *out: the open instance k of `entity`, opened (or reopened) if not */
static int get_inst(sq_writer *sw, uint32_t entity, int64_t k,
		    sq_inst **out, tk_error *err)
{
	uint64_t key = inst_key(entity, k);
	sq_ent *e;
	sq_inst *r;
	uint32_t i, h;
	int rc;

	if (tk_grow_zero((void **)&sw->ents, &sw->capents, entity,
			 sizeof(*sw->ents)) < 0)
		return tk_err_nomem(err, sw->name);
	e = &sw->ents[entity];
	i = e->last1 - 1;
	if (e->last1 && sw->pool[i].k == k)
		goto found;
	for (h = tk_hashmap_first(&sw->open, key); h != TK_HASHMAP_END;
	     h = tk_hashmap_next(&sw->open, key, h)) {
		i = sw->open.slots[h].val;
		if (sw->pool[i].entity == entity && sw->pool[i].k == k)
			goto found;
	}
	if ((rc = pool_take(sw, &i, err)) < 0)
		return rc;
	if (tk_hashmap_add(&sw->open, key, i) < 0)
		return tk_err_nomem(err, sw->name);
	r = &sw->pool[i];
	memset(r, 0, sizeof(*r));
	r->entity = entity;
	r->k = k;
	lru_push(sw, i);
	e = &sw->ents[entity];
	e->last1 = i + 1;
	if (e->written && k >= e->lo && k <= e->hi &&
	    ((!sw->keyed && (rc = make_key(sw, err)) < 0) ||
	     (rc = reopen_inst(sw, r, err)) < 0))
		return rc;
	*out = r;
	return TK_OK;
found:
	if (sw->head != i) {
		lru_unlink(sw, i);
		lru_push(sw, i);
	}
	e->last1 = i + 1;
	*out = &sw->pool[i];
	return TK_OK;
}

/*
 * The sqcnr of instance inst of an entity: each time line (an ATF
 * TraceData) numbers its instances from 0, entityInstance holds one row per
 * entity and sqcnr, so a time line's numbers go on after those of the time
 * lines before.  TK_OK or TK_E_NOMEM.
 */
static int sq_num(sq_writer *sw, uint32_t entity, int64_t *inst)
{
	sq_ent *e;

	if (*inst == TK_INST_NONE || entity == TK_NONE)
		return TK_OK;
	if (tk_grow_zero((void **)&sw->ents, &sw->capents, entity,
			 sizeof(*sw->ents)) < 0)
		return TK_E_NOMEM;
	e = &sw->ents[entity];
	*inst += e->off;
	if (*inst >= e->top)
		e->top = *inst + 1;
	return TK_OK;
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
	if (sq_num(sw, entity, &inst) < 0) {
		sw->rc = tk_err_nomem(sw->err, sw->name);
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

/* bind event row r, the id-th event, at parameter base+1.. of st */
static void bind_row(sqlite3_stmt *st, int base, uint64_t id,
		     const sq_row *r, const char *notes)
{
	sqlite3_bind_int64(st, base + 1, (sqlite3_int64)id);
	sqlite3_bind_int64(st, base + 2, r->time);
	bind_ent(st, base + 3, r->target);
	bind_inst(st, base + 4, r->tinst);
	bind_ent(st, base + 5, r->source);
	bind_inst(st, base + 6, r->sinst);
	bind_ent(st, base + 7, r->name);
	bind_ent(st, base + 8, r->core);
	if (r->len == UINT32_MAX)
		sqlite3_bind_null(st, base + 9);
	else
		sqlite3_bind_text(st, base + 9, notes + r->note, (int)r->len,
				  SQLITE_STATIC);
}

/* insert the events waiting in rows[]: ROWS at once, or one by one */
static int flush_rows(sq_writer *sw, tk_error *err)
{
	uint64_t id = sw->nev - sw->nrows + 1;
	unsigned i;

	if (sw->nrows == ROWS) {
		for (i = 0; i < ROWS; i++)
			bind_row(sw->ins_evs, (int)i * EVCOLS, id + i,
				 &sw->rows[i], sw->notes);
		if (step_done(sw, sw->ins_evs, "insert traceEvent", err) < 0)
			return TK_E_IO;
	} else {
		for (i = 0; i < sw->nrows; i++) {
			bind_row(sw->ins_ev, 0, id + i, &sw->rows[i], sw->notes);
			if (step_done(sw, sw->ins_ev, "insert traceEvent", err) < 0)
				return TK_E_IO;
		}
	}
	sw->nrows = 0;
	sw->nnotes = 0;
	return TK_OK;
}

/* "head(row)(row)...": ROWS rows, the last one's comma dropped */
static const char *multi_sql(char *sql, const char *head, const char *row)
{
	size_t h = strlen(head), r = strlen(row);
	unsigned i;

	memcpy(sql, head, h);
	for (i = 0; i < ROWS; i++)
		memcpy(sql + h + i * r, row, r);
	sql[h + ROWS * r - 1] = '\0';
	return sql;
}

/* option chain=NAME=S0:S1:...:Sn (p, n bytes, after "chain=") */
static int add_chain(sq_writer *sw, const char *p, size_t n, tk_error *err)
{
	char *copy = malloc(n + 1), *q, *eq;
	const char **sig = NULL;
	size_t k = 1, i;
	int rc;

	if (!copy)
		return tk_err_nomem(err, sw->name);
	memcpy(copy, p, n);
	copy[n] = '\0';
	eq = strchr(copy, '=');
	for (q = eq ? eq + 1 : copy; *q; q++)
		k += *q == ':';
	sig = eq ? calloc(k, sizeof(*sig)) : NULL;
	if (sig) {
		*eq = '\0';
		for (i = 0, q = eq + 1; i < k; i++) {
			sig[i] = q;
			q += strcspn(q, ":");
			if (*q)
				*q++ = '\0';
		}
	}
	rc = !eq ? TK_E_USAGE : !sig ? TK_E_NOMEM
	     : tk_stats_add_chain(sw->stats, copy, sig, k);
	free(sig);
	free(copy);
	if (rc == TK_E_NOMEM)
		return tk_err_nomem(err, sw->name);
	if (rc < 0)
		return tk_err_set(err, TK_E_USAGE, sw->name, 0, 0,
				  "bad SQLite writer option 'chain=%.*s' (chain=NAME=S0:S1:...:Sn, "
				  "two signals or more, all different)", (int)(n < 60 ? n : 60), p);
	sw->nchains++;
	return TK_OK;
}

/* the writer options, separated by commas: entity-index=0|1, and
 * chain=NAME=S0:...:Sn (repeatable) */
static int parse_options(sq_writer *sw, const char *p, tk_error *err)
{
	int rc;

	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 14 && !memcmp(p, "entity-index=0", 14)) {
			sw->no_entity_index = 1;
		} else if (n == 14 && !memcmp(p, "entity-index=1", 14)) {
			sw->no_entity_index = 0;
		} else if (n > 6 && !memcmp(p, "chain=", 6)) {
			if ((rc = add_chain(sw, p + 6, n - 6, err)) < 0)
				return rc;
		} else {
			return tk_err_set(err, TK_E_USAGE, sw->name, 0, 0,
					  "unknown SQLite writer option '%.*s' (entity-index=0|1, "
					  "chain=NAME=S0:...:Sn)", (int)(n < 40 ? n : 40), p);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return TK_OK;
}

static int sqlite_writer_open(tk_writer *w, tk_error *err)
{
	/* "INSERT INTO traceEvent (...) VALUES (?,...),(?,...)...": ROWS rows */
	static const char head[] = "INSERT INTO traceEvent VALUES ",
		ihead[] = "INSERT OR REPLACE INTO entityInstance VALUES ",
		row[] = "(?,?,?,?,?,?,?,?,?),",
		irow[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?),";
	char sql[sizeof(ihead) + ROWS * (sizeof(irow) - 1)];
	sq_writer *sw;
	int rc;

	if (!w->sink.path)
		return tk_err_set(err, TK_E_UNSUPPORTED, "<stdout>", 0, 0,
				  "an SQLite database cannot be written to standard output: give a file name");
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return tk_err_nomem(err, w->sink.path);
	w->impl = sw;
	sw->w = w;
	sw->name = w->sink.path;
	sw->err = err;
	sw->head = sw->tail = NIL;
	if (tk_stats_new(&sw->stats, w->trace, NULL) < 0)
		return tk_err_nomem(err, sw->name);
	if (w->opts.options && *w->opts.options &&
	    (rc = parse_options(sw, w->opts.options, err)) < 0)
		return rc;
	if (sqlite3_open_v2(w->sink.tmp, &sw->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return db_fail(sw, err, "cannot open the database");
	if (exec(sw, schema, err) < 0)
		return TK_E_IO;
	if (!(sw->notes = malloc(NOTES)))
		return tk_err_nomem(err, w->sink.path);
	if (prepare(sw, multi_sql(sql, head, row), &sw->ins_evs, err) < 0 ||
	    prepare(sw, multi_sql(sql, ihead, irow), &sw->ins_insts, err) < 0 ||
	    prepare(sw, "INSERT INTO traceEvent VALUES (?,?,?,?,?,?,?,?,?)",
		    &sw->ins_ev, err) < 0 ||
	    prepare(sw, "INSERT OR REPLACE INTO entityInstance"
		    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", &sw->ins_inst, err) < 0 ||
	    prepare(sw, "SELECT firstTimestamp, lastTimestamp, startTimestamp,"
		    " IPT, CET, GET, RT, DT, PER, ST, NPRE FROM entityInstance"
		    " WHERE entityId = ? AND sqcnr = ?", &sw->get_inst, err) < 0 ||
	    prepare(sw, "INSERT INTO instanceMetricValue VALUES (?,?,?,?,?)",
		    &sw->ins_imv, err) < 0)
		return TK_E_IO;
	tk_stats_on_value(sw->stats, on_value, sw);
	tk_tlines_init(&sw->tlines, w->trace);
	return TK_OK;
}

static int sqlite_writer_write(tk_writer *w, const tk_event *ev, tk_error *err)
{
	sq_writer *sw = w->impl;
	int64_t tinst = ev->target_inst, sinst = ev->source_inst;
	int rc;

	sw->err = err;
	if (ev->time > INT64_MAX)
		return tk_err_set(err, TK_E_RANGE, sw->name, 0, 0,
				  "time %llu does not fit SQLite's 64-bit integers",
				  (unsigned long long)ev->time);
	if (ev->name != TK_NONE) {
		if (tk_grow_zero((void **)&sw->name_seen, &sw->capseen,
				 ev->name, sizeof(*sw->name_seen)) < 0)
			return tk_err_nomem(err, sw->name);
		if (!sw->name_seen[ev->name])
			sw->name_seen[ev->name] = ev->pos + 1;
	}
	if (tk_name_pos_event(&sw->npos, ev) < 0)
		return tk_err_nomem(err, sw->name);
	if (tk_tlines_next(&sw->tlines, ev)) {
		size_t i;
		for (i = 0; i < sw->capents; i++)
			sw->ents[i].off = sw->ents[i].top;
	}
	{
		sq_row *row = &sw->rows[sw->nrows];
		const char *note = ev->note;
		size_t nlen = ev->note_len;
		if (note && (rc = tk_writer_text(w, note, nlen, &note, &nlen, err)) < 0)
			return rc;
		row->time = (int64_t)ev->time;
		row->target = ev->target;
		if (sq_num(sw, ev->target, &tinst) < 0 ||
		    sq_num(sw, ev->source, &sinst) < 0)
			return tk_err_nomem(err, sw->name);
		row->tinst = tinst;
		row->source = ev->source;
		row->sinst = sinst;
		row->name = ev->name;
		row->core = ev->core;
		row->len = UINT32_MAX;
		if (note && nlen > NOTES - sw->nnotes &&
		    flush_rows(sw, err) < 0)
			return TK_E_IO;
		if (note && nlen > NOTES) {
			/* alone (rows[] was flushed), its note bound where
			 * the reader (or the writer's UTF-8 repair) holds it */
			bind_row(sw->ins_ev, 0, ++sw->nev, row, sw->notes);
			sqlite3_bind_text(sw->ins_ev, EVCOLS, note,
					  (int)nlen, SQLITE_STATIC);
			if (step_done(sw, sw->ins_ev, "insert traceEvent", err) < 0)
				return TK_E_IO;
		} else {
			if (note) {
				row->note = sw->nnotes;
				row->len = (uint32_t)nlen;
				memcpy(sw->notes + sw->nnotes, note, nlen);
				sw->nnotes += row->len;
			}
			sw->nev++;
			if (++sw->nrows == ROWS && flush_rows(sw, err) < 0)
				return TK_E_IO;
		}
	}
	/* the instances: the target's times, the source's row */
	if (ev->target != TK_NONE && ev->target_inst != TK_INST_NONE) {
		sq_inst *r;
		int64_t t = (int64_t)ev->time;
		if ((rc = get_inst(sw, ev->target, tinst, &r, err)) < 0)
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
		if ((rc = get_inst(sw, ev->source, sinst, &r, err)) < 0)
			return rc;
	}
	if ((rc = tk_stats_event(sw->stats, ev, err)) < 0)
		return tk_err_input(err, sw->name, rc);
	if (sw->rc < 0)
		return sw->rc;
	return TK_OK;
}

/* Text of the trace bound to column col under the UTF-8 rule of every
 * writer (tk_writer_text(): bad bytes as U+FFFD, counted; refused under
 * --strict). */
static int bind_text(sq_writer *sw, sqlite3_stmt *st, int col, const char *s,
		     size_t n, tk_error *err)
{
	const char *o;
	size_t on;
	int rc = tk_writer_text(sw->w, s, n, &o, &on, err);

	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, col, o, (int)on,
			  o == s ? SQLITE_STATIC : SQLITE_TRANSIENT);
	return TK_OK;
}

static int put_meta(sq_writer *sw, sqlite3_stmt *st, const char *k,
		    const char *v, tk_error *err)
{
	if (bind_text(sw, st, 1, k, strlen(k), err) < 0 ||
	    bind_text(sw, st, 2, v, strlen(v), err) < 0)
		return TK_E_UNSUPPORTED;
	/* (the key and the value outlive the step) */
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return db_fail(sw, err, "insert metaInformation");
	}
	sqlite3_reset(st);
	return TK_OK;
}

/* header: every entry in input order; a parameter whose key the current
 * block already has starts the next block */
static int write_header(sq_writer *sw, const tk_trace *t, tk_error *err)
{
	static const char *const kinds[] = { "param", "comment", "row" };
	sqlite3_stmt *sel = NULL, *ins = NULL;
	sqlite3_int64 block = 0;
	size_t i;
	int rc = TK_E_IO;

	if (sqlite3_prepare_v2(sw->db, "SELECT 1 FROM header WHERE key = ?"
			       " AND block = ? AND kind = 'param'", -1, &sel,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sw->db, "INSERT INTO header VALUES (NULL,?,?,?,?)",
			       -1, &ins, NULL) != SQLITE_OK) {
		db_fail(sw, err, "prepare");
		goto out;
	}
	for (i = 0; i < tk_trace_header_count(t); i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		int k = h->kind == TK_HDR_PARAM ? 0 : h->kind == TK_HDR_ROW ? 2 : 1;
		int s;
		if (h->kind == TK_HDR_PARAM) {
			if (bind_text(sw, sel, 1, h->key, strlen(h->key), err) < 0)
				goto out;
			sqlite3_bind_int64(sel, 2, block);
			s = sqlite3_step(sel);
			sqlite3_reset(sel);
			if (s == SQLITE_ROW) {
				block++;
			} else if (s != SQLITE_DONE) {
				db_fail(sw, err, "select header");
				goto out;
			}
		}
		sqlite3_bind_int64(ins, 1, block);
		sqlite3_bind_text(ins, 2, kinds[k], -1, SQLITE_STATIC);
		if (bind_text(sw, ins, 3, h->key, strlen(h->key), err) < 0)
			goto out;
		if (h->has_value || h->kind == TK_HDR_COMMENT) {
			if (bind_text(sw, ins, 4, h->value, strlen(h->value), err) < 0)
				goto out;
		} else
			sqlite3_bind_null(ins, 4);
		if (step_done(sw, ins, "insert header", err) < 0)
			goto out;
	}
	rc = TK_OK;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc;
}

static int write_tables(tk_writer *w, sqlite3_stmt **stp, tk_error *err)
{
	sq_writer *sw = w->impl;
	const tk_trace *t = w->trace;
	const tk_timebase *tb = tk_trace_timebase(t);
	/* ticks that count cycles: the texts in cycles, as stats gives them */
	const char *cyc = tk_trace_cycle_unit(t);
	tk_unit tu = cyc ? tb->unit : TK_UNIT_NS;
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

	/* metaInformation: the time base and the counts, then the header
	 * parameters (a key already there is kept: the first value of a key
	 * repeated by a later header block; the header table has them all) */
	PREP("INSERT OR IGNORE INTO metaInformation VALUES (?,?)");
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
	for (i = 0; i < tk_trace_header_count(t); i++) {
		const tk_header_entry *h = tk_trace_header(t, i);
		if (h->kind == TK_HDR_PARAM &&
		    put_meta(sw, st, h->key, h->value, err) < 0)
			return TK_E_IO;
	}
	if (write_header(sw, t, err) < 0)
		return TK_E_IO;

	PREP("INSERT INTO entityType VALUES (?,?)");
	for (k = 0; k < TK_ET_COUNT; k++) {
		sqlite3_bind_int(st, 1, k);
		sqlite3_bind_text(st, 2, tk_etype_name((tk_etype)k), -1,
				  SQLITE_STATIC);
		STEP("insert entityType");
	}

	/* a name refused (--strict) is reported at the first event that
	 * carries it, as the writers that write names with the events do */
	PREP("INSERT INTO entity VALUES (?,?,?,?,?)");
	n = tk_trace_entity_count(t);
	for (i = 0; i < n; i++) {
		const tk_entity *e = tk_trace_entity(t, (uint32_t)i);
		uint64_t pos1 = tk_name_pos_get(&sw->npos, (uint32_t)i);
		size_t len;
		const char *s = tk_trace_str(t, e->name, &len);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		if ((k = bind_text(sw, st, 2, s, len, err)) < 0)
			return tk_writer_locate_pos(w, pos1, k, err);
		sqlite3_bind_int(st, 3, (int)e->type);
		if (e->type_name != TK_NONE) {
			s = tk_trace_str(t, e->type_name, &len);
			if ((k = bind_text(sw, st, 4, s, len, err)) < 0)
				return tk_writer_locate_pos(w, pos1, k, err);
		} else {
			sqlite3_bind_null(st, 4);
		}
		bind_ent(st, 5, e->parent);
		STEP("insert entity");
	}
	/* the chains: entities of type name CHAIN after the trace's */
	for (i = 0; i < tk_stats_count(sw->stats); i++) {
		const tk_stat *r = tk_stats_get(sw->stats, i);
		size_t len;
		const char *s;
		if (!r->chain || r->metric != TK_METRIC_REACTION)
			continue;
		s = tk_stats_row_name(sw->stats, i, &len);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)(n + r->chain - 1));
		if ((k = bind_text(sw, st, 2, s, len, err)) < 0)
			return k;
		sqlite3_bind_null(st, 3);
		sqlite3_bind_text(st, 4, "CHAIN", -1, SQLITE_STATIC);
		sqlite3_bind_null(st, 5);
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
		if ((k = bind_text(sw, st, 2, s, len, err)) < 0)
			return tk_writer_locate_pos(w, sw->name_seen[i], k, err);
		STEP("insert eventType");
	}

	PREP("INSERT INTO metric VALUES (?,?,?)");
	for (k = 0; k < (sw->nchains ? TK_METRIC_END : TK_METRIC_COUNT); k++) {
		sqlite3_bind_int(st, 1, k);
		sqlite3_bind_text(st, 2, tk_metric_name((tk_metric)k), -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 3, tk_metric_is_time((tk_metric)k) ?
				  "time" : "count", -1, SQLITE_STATIC);
		STEP("insert metric");
	}

	/* the texts as `tracekit stats --format csv` writes them (ns, or cycles) */
	PREP("INSERT INTO entityMetricValue VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
	n = tk_stats_count(sw->stats);
	for (i = 0; i < n; i++) {
		const tk_stat *r = tk_stats_get(sw->stats, i);
		static const tk_stat_field f[3] = { TK_STAT_MIN, TK_STAT_AVG,
						    TK_STAT_MAX };
		int j, len;
		int none = r->metric == TK_METRIC_LOST || !r->count; /* a chain's */
		sqlite3_bind_int64(st, 1, r->chain ? (sqlite3_int64)(tk_trace_entity_count(t) +
								     r->chain - 1)
						   : (sqlite3_int64)r->entity);
		sqlite3_bind_int(st, 2, (int)r->metric);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)r->count);
		if (r->metric == TK_METRIC_JIT || none) {
			sqlite3_bind_null(st, 4);
			sqlite3_bind_null(st, 5);
		} else {
			sqlite3_bind_int64(st, 4, (sqlite3_int64)r->min);
			sqlite3_bind_int64(st, 5, (sqlite3_int64)r->max);
		}
		for (j = 0; j < 3; j++) {
			len = tk_stats_format(sw->stats, i, f[j], tu,
					      b, sizeof(b));
			if (len <= 0)
				sqlite3_bind_null(st, 6 + j);
			else
				sqlite3_bind_text(st, 6 + j, b, len,
						  SQLITE_TRANSIENT);
		}
		sqlite3_bind_text(st, 9, !tk_metric_is_time(r->metric) ? "1" :
				  cyc ? cyc : tk_unit_name(TK_UNIT_NS), -1,
				  SQLITE_STATIC);
		bind_inst(st, 10, none ? TK_INST_NONE : r->max_inst);
		if (none)
			sqlite3_bind_null(st, 11);
		else
			sqlite3_bind_int64(st, 11, (sqlite3_int64)r->max_time);
		len = none ? -1 : tk_time_format_decimal(r->max_time, tb, tu, b,
							 sizeof(b));
		if (len < 0)
			sqlite3_bind_null(st, 12);
		else
			sqlite3_bind_text(st, 12, b, len, SQLITE_TRANSIENT);
		STEP("insert entityMetricValue");
	}
	sqlite3_finalize(st);
	*stp = NULL;
#undef PREP
#undef STEP
	/* the instances still open */
	for (i = 0; i < sw->npool; i++)
		if (flush_inst(sw, &sw->pool[i], err) < 0)
			return TK_E_IO;
	return flush_irows(sw, err);
}

static void finalize_all(sq_writer *sw)
{
	sqlite3_finalize(sw->ins_ev);
	sqlite3_finalize(sw->ins_evs);
	sqlite3_finalize(sw->ins_inst);
	sqlite3_finalize(sw->ins_insts);
	sqlite3_finalize(sw->get_inst);
	sqlite3_finalize(sw->ins_imv);
	sw->ins_ev = sw->ins_evs = sw->ins_inst = sw->ins_insts = NULL;
	sw->get_inst = sw->ins_imv = NULL;
}

static int sqlite_writer_close(tk_writer *w, tk_error *err)
{
	sq_writer *sw = w->impl;
	sqlite3_stmt *st = NULL;
	int rc;

	sw->err = err;
	if ((rc = tk_stats_finish(sw->stats, err)) < 0)
		return tk_err_input(err, sw->name, rc);
	if (sw->rc < 0)
		return sw->rc;
	if (flush_rows(sw, err) < 0)
		return TK_E_IO;
	rc = write_tables(w, &st, err);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if ((!sw->no_entity_index && exec(sw, entity_index, err) < 0) ||
	    exec(sw, indexes, err) < 0)
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

	if (!sw)
		return;
	finalize_all(sw);
	if (sw->db)
		sqlite3_close(sw->db);
	tk_stats_free(sw->stats);
	free(sw->name_seen);
	free(sw->notes);
	free(sw->ents);
	free(sw->npos.pos1);
	free(sw->pool);
	tk_hashmap_free(&sw->open);
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
	.writer_options = 1,
	.writer_write = sqlite_writer_write,
	.writer_close = sqlite_writer_close,
	.writer_free = sqlite_writer_free,
	.writes_file = 1,
};
