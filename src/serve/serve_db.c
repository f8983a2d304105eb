// SPDX-License-Identifier: Apache-2.0
/*
 * The daemon's durable state in one SQLite database, DIR/echelon.db, in
 * WAL mode. Each flush is one transaction holding every change of the
 * store since the previous flush (group commit): each change is a row
 * appended to the versions table, a log whose latest row of each object
 * is its current version (none when that row is a deletion), and meta
 * the counters. Rows neither current nor among the last
 * SERVE_DB_HISTORY changes are deleted by a sweep, a chunk a flush, once
 * they may be half the table. A
 * transaction either lands whole or not at all, so a kill -9 at any
 * moment leaves the state of some completed flush, and the daemon
 * answers no write before the flush that holds it has returned.
 *
 * Schema changes are numbered steps applied in one transaction on open,
 * tracked by PRAGMA user_version; a database from a newer echelon is
 * refused rather than misread.
 */
#include "serve/serve_db.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/hmap.h"
#include "base/strbuf.h"
#include "base/vec.h"

#include "base/banned.h"

/* Changes kept in the versions table for watches resumed after a
 * restart (with every object's current version). */
#define SERVE_DB_HISTORY 10000
/* meta alone (the clock) is written at most once per embedded second. */
#define CLOCK_PERIOD_US 1000000
#define BUSY_TIMEOUT_MS 5000
/* Rows of versions a flush checks while a sweep pass is under way. */
#define SWEEP_CHUNK 8192

/* Schema steps: steps[i] takes user_version i to i + 1. */
static const char *const steps[] = {
	"CREATE TABLE objects (kind TEXT NOT NULL, ns TEXT NOT NULL,"
	" name TEXT NOT NULL, uid TEXT NOT NULL, rv INTEGER NOT NULL,"
	" body TEXT NOT NULL, PRIMARY KEY (kind, ns, name)) WITHOUT ROWID;"
	"CREATE TABLE events (rv INTEGER PRIMARY KEY, type INTEGER NOT NULL,"
	" kind TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,"
	" body TEXT NOT NULL);"
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;",
	/* One log of versions, each body once. Rows of objects older than
	 * the events kept become versions of type MODIFIED (their type was
	 * not kept), outside the history read back at start. */
	"CREATE TABLE versions (rv INTEGER PRIMARY KEY,"
	" type INTEGER NOT NULL, kind TEXT NOT NULL, ns TEXT NOT NULL,"
	" name TEXT NOT NULL, body TEXT NOT NULL);"
	"INSERT INTO versions SELECT rv, type, kind, ns, name, body"
	" FROM events;"
	"INSERT OR IGNORE INTO versions SELECT rv, 1, kind, ns, name, body"
	" FROM objects;"
	"DROP TABLE objects; DROP TABLE events;",
};
#define SCHEMA_VERSION ((int)ARRAY_SIZE(steps))

enum stmt {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_PUT_VER,
	ST_SWEEP,
	ST_DEL_VER,
	ST_PUT_META,
	ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_PUT_VER] = "INSERT INTO versions"
		       " (rv, type, kind, ns, name, body)"
		       " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* the sweep: the next rows out of the history, to check */
	[ST_SWEEP] = "SELECT rv, kind, ns, name FROM versions"
		     " WHERE rv > ?1 AND rv <= ?2 ORDER BY rv LIMIT ?3",
	[ST_DEL_VER] = "DELETE FROM versions WHERE rv = ?1",
	[ST_PUT_META] = "INSERT OR REPLACE INTO meta (key, value)"
			" VALUES (?1, ?2)",
};

struct serve_db {
	sqlite3 *sql;
	char *path; /* DIR/echelon.db, for messages */
	int lock_fd;
	sqlite3_stmt *st[ST_COUNT];
	uint64_t flushed_rv; /* every change up to it is in the database */
	struct sweep_state {
		uint64_t rows;	 /* in versions */
		bool on;	 /* a pass under way */
		uint64_t cursor; /* rows up to it checked in this pass */
	} sw;
	int64_t clock_us;		  /* clock in meta */
	char clock_map[TIMEMAP_TEXT_MAX]; /* clock_map in meta */
	bool loaded;
	/* For /metrics. */
	uint64_t flushes, changes, errors;
	int64_t flush_ns;
};

/* "group/resource", or "resource" for the core group: stable across
 * releases, unlike the registry's index. */
static const char *kind_key(const struct api_kind *k, char *buf, size_t size)
{
	if (!k->group[0])
		return k->resource;
	snprintf(buf, size, "%s/%s", k->group, k->resource);
	return buf;
}

static const struct api_kind *kind_by_key(const char *key)
{
	char buf[160];

	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);

		if (api_kind_storage(k) == k &&
		    !strcmp(kind_key(k, buf, sizeof(buf)), key))
			return k;
	}
	return NULL;
}

/* A message for a failed SQLite call, naming corruption plainly. */
static int sql_fail(struct serve_db *db, int rc, struct errbuf *err,
		    const char *what)
{
	int code = rc & 0xff;

	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return errbuf_set(err, -EIO,
				  "%s: the database is corrupt (%s: %s); "
				  "move it away to start with an empty state",
				  db->path, what, sqlite3_errstr(rc));
	if (code == SQLITE_FULL)
		return errbuf_set(err, -ENOSPC, "%s: %s: disk full", db->path,
				  what);
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return errbuf_set(err, -EBUSY, "%s: %s: database is locked",
				  db->path, what);
	return errbuf_set(err, -EIO, "%s: %s: %s", db->path, what,
			  db->sql ? sqlite3_errmsg(db->sql)
				  : sqlite3_errstr(rc));
}

static int exec(struct serve_db *db, const char *sql, struct errbuf *err)
{
	int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, err, sql);
}

/* Run a prepared statement that returns no rows, then reset it. */
static int step(struct serve_db *db, enum stmt i, struct errbuf *err)
{
	sqlite3_stmt *st = db->st[i];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, rc, err, stmt_sql[i]);
}

/* The first column of the first row of sql as an integer (0: no row). */
static int query_int(struct serve_db *db, const char *sql, int64_t *ret,
		     struct errbuf *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(db, rc, err, sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		*ret = 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE
		       ? 0
		       : sql_fail(db, rc, err, sql);
}

/* mkdir -p with mode 0700 for the folders it creates. */
static int make_dir(const char *dir, struct errbuf *err)
{
	char *path = xstrdup(dir);
	struct stat sb;
	int r = 0;

	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			r = errbuf_set(err, -errno, "%s: cannot create: %s",
				       path, strerror(errno));
			goto out;
		}
		*p = c;
		if (!c)
			break;
	}
	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		r = errbuf_set(err, -ENOTDIR, "%s: not a folder", dir);
out:
	free(path);
	return r;
}

/* One daemon per folder: two would each believe they own the state. */
static int lock_dir(struct serve_db *db, const char *dir, struct errbuf *err)
{
	char *path = xasprintf("%s/lock", dir);
	int r = 0;

	db->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (db->lock_fd < 0)
		r = errbuf_set(err, -errno, "%s: %s", path, strerror(errno));
	else if (flock(db->lock_fd, LOCK_EX | LOCK_NB) < 0)
		r = errbuf_set(err, errno == EWOULDBLOCK ? -EBUSY : -errno,
			       "%s: in use by another echelon serve", dir);
	free(path);
	return r;
}

static int put_meta_int(struct serve_db *db, const char *key, int64_t value,
			struct errbuf *err)
{
	sqlite3_bind_text(db->st[ST_PUT_META], 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(db->st[ST_PUT_META], 2, value);
	return step(db, ST_PUT_META, err);
}

static int put_meta_text(struct serve_db *db, const char *key,
			 const char *value, struct errbuf *err)
{
	sqlite3_bind_text(db->st[ST_PUT_META], 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(db->st[ST_PUT_META], 2, value, -1, SQLITE_STATIC);
	return step(db, ST_PUT_META, err);
}

/* Bring the schema to SCHEMA_VERSION in one transaction; a new database
 * also gets its uid prefix there, so it is made once and kept. */
static int migrate(struct serve_db *db, struct serve_meta *meta,
		   struct errbuf *err)
{
	int64_t version = 0;
	char *sql;
	int r;

	r = query_int(db, "PRAGMA user_version", &version, err);
	if (r < 0)
		return r;
	if (version > SCHEMA_VERSION)
		return errbuf_set(
			err, -EPROTO,
			"%s: written by a newer echelon (schema %" PRId64
			", this one reads up to %d)",
			db->path, version, SCHEMA_VERSION);
	meta->fresh = version == 0;
	if (version == SCHEMA_VERSION)
		return 0;
	r = exec(db, "BEGIN IMMEDIATE", err);
	if (r < 0)
		return r;
	for (int64_t v = version; v < SCHEMA_VERSION && r == 0; v++)
		r = exec(db, steps[v], err);
	if (r == 0) {
		/* user_version decides; meta says it to a human reader. */
		sql = xasprintf("PRAGMA user_version = %d;"
				" INSERT OR REPLACE INTO meta (key, value)"
				" VALUES ('schema', %d)",
				SCHEMA_VERSION, SCHEMA_VERSION);
		r = exec(db, sql, err);
		free(sql);
	}
	if (r == 0 && meta->fresh) {
		uint8_t rnd[4]; /* the first group of a uid */
		char prefix[2 * sizeof(rnd) + 1];

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			r = errbuf_set(err, -EIO, "getrandom: %s",
				       strerror(errno));
			goto out;
		}
		for (size_t i = 0; i < sizeof(rnd); i++)
			snprintf(prefix + 2 * i, 3, "%02x", rnd[i]);
		sql = sqlite3_mprintf("INSERT INTO meta (key, value) VALUES"
				      " ('rv', 0), ('clock_us', 0),"
				      " ('uid_prefix', %Q)",
				      prefix);
		r = exec(db, sql, err);
		sqlite3_free(sql);
	}
out:
	if (r == 0)
		return exec(db, "COMMIT", err);
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static int read_meta(struct serve_db *db, struct serve_meta *meta,
		     struct errbuf *err)
{
	sqlite3_stmt *st = NULL;
	const char *sql = "SELECT key, value FROM meta";
	bool have_prefix = false;
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);

	while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *text = (const char *)sqlite3_column_text(st, 1);

		if (!key || !text)
			continue;
		if (!strcmp(key, "rv"))
			db->flushed_rv = (uint64_t)sqlite3_column_int64(st, 1);
		else if (!strcmp(key, "clock_us"))
			db->clock_us = sqlite3_column_int64(st, 1);
		else if (!strcmp(key, "clock_map") &&
			 strlen(text) < sizeof(db->clock_map))
			snprintf(db->clock_map, sizeof(db->clock_map), "%s",
				 text);
		else if (!strcmp(key, "uid_prefix") &&
			 strlen(text) < sizeof(meta->uid_prefix)) {
			snprintf(meta->uid_prefix, sizeof(meta->uid_prefix),
				 "%s", text);
			have_prefix = true;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(db, rc, err, sql);
	if (!have_prefix)
		return errbuf_set(err, -EIO,
				  "%s: the database is corrupt (meta has no "
				  "uid_prefix); move it away to start with an "
				  "empty state",
				  db->path);
	meta->clock_us = db->clock_us;
	snprintf(meta->clock_map, sizeof(meta->clock_map), "%s", db->clock_map);
	return 0;
}

/* Damage inside a valid file shows here rather than mid-load. */
static int quick_check(struct serve_db *db, struct errbuf *err)
{
	const char *sql = "PRAGMA quick_check";
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
	int r = 0;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *res = (const char *)sqlite3_column_text(st, 0);

		if (!res || strcmp(res, "ok"))
			r = errbuf_set(err, -EIO,
				       "%s: the database is corrupt (%s); move "
				       "it away to start with an empty state",
				       db->path, res ? res : "quick_check");
	} else {
		r = sql_fail(db, rc, err, sql);
	}
	sqlite3_finalize(st);
	return r;
}

/* Open, check and configure the connection; the caller closes on error. */
static int open_sql(struct serve_db *db, bool full, struct serve_meta *meta,
		    struct errbuf *err)
{
	int64_t rows = 0;
	int rc, r;

	rc = sqlite3_open_v2(db->path, &db->sql,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				     SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, err, "open");
	sqlite3_extended_result_codes(db->sql, 1);
	sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
	/* A file that is not a database fails on its first read. */
	r = exec(db, "PRAGMA journal_mode = WAL", err);
	if (r == 0)
		r = exec(db,
			 full ? "PRAGMA synchronous = FULL"
			      : "PRAGMA synchronous = NORMAL",
			 err);
	/* A commit of a busy turn writes thousands of rows: with the
	 * default checkpoint every 1,000 pages (4 MB) nearly every commit
	 * was copied into the database at once (11 % of the test cluster's
	 * time at 50,000 pods), and its btree pages read again through a
	 * 2 MB cache. */
	if (r == 0)
		r = exec(db, "PRAGMA wal_autocheckpoint = 16384", err);
	if (r == 0)
		r = exec(db, "PRAGMA cache_size = -65536", err);
	if (r == 0)
		r = migrate(db, meta, err);
	if (r < 0)
		return r;
	r = quick_check(db, err);
	if (r == 0)
		r = query_int(db, "SELECT count(*) FROM versions", &rows, err);
	if (r < 0)
		return r;
	db->sw.rows = (uint64_t)rows;
	for (int i = 0; i < ST_COUNT; i++) {
		rc = sqlite3_prepare_v3(db->sql, stmt_sql[i], -1,
					SQLITE_PREPARE_PERSISTENT, &db->st[i],
					NULL);
		if (rc != SQLITE_OK)
			return sql_fail(db, rc, err, stmt_sql[i]);
	}
	return read_meta(db, meta, err);
}

int serve_db_open(const char *dir, bool full, struct serve_db **ret,
		  struct serve_meta *meta, struct errbuf *err)
{
	struct serve_db *db = xcalloc(1, sizeof(*db));
	struct serve_meta m = { 0 };
	int r;

	db->lock_fd = -1;
	db->path = xasprintf("%s/echelon.db", dir);
	r = make_dir(dir, err);
	if (r == 0)
		r = lock_dir(db, dir, err);
	if (r == 0)
		r = open_sql(db, full, &m, err);
	if (r < 0) {
		serve_db_close(db);
		return r;
	}
	*meta = m;
	*ret = db;
	return 0;
}

void serve_db_close(struct serve_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	/* Closing the last connection checkpoints the WAL. */
	sqlite3_close(db->sql);
	if (db->lock_fd >= 0)
		close(db->lock_fd);
	free(db->path);
	free(db);
}

/* A row's kind, with the last one cached (rows of one kind often follow
 * each other). */
struct kind_cache {
	char key[160];
	const struct api_kind *kind;
};

static const struct api_kind *row_kind(struct kind_cache *c, const char *key)
{
	if (strcmp(c->key, key)) {
		snprintf(c->key, sizeof(c->key), "%s", key);
		c->kind = kind_by_key(key);
	}
	return c->kind;
}

/* The last rv whose version left the history: rows up to it are kept
 * only as current versions. */
static uint64_t history_cut(uint64_t rv)
{
	return rv > SERVE_DB_HISTORY ? rv - SERVE_DB_HISTORY : 0;
}

/* Flush: one event's row. */
struct flush_ctx {
	struct serve_db *db;
	struct errbuf *err;
	uint64_t last_rv;
};

static int flush_event(void *ctx, const struct api_event *ev)
{
	struct flush_ctx *f = ctx;
	struct serve_db *db = f->db;
	sqlite3_stmt *st = db->st[ST_PUT_VER];
	char key[160];

	/* Events come in strictly increasing rv order, one per write. */
	BUG_ON(ev->rv <= f->last_rv);
	f->last_rv = ev->rv;
	sqlite3_bind_int64(st, 1, (int64_t)ev->rv);
	sqlite3_bind_int(st, 2, (int)ev->type);
	sqlite3_bind_text(st, 3, kind_key(ev->kind, key, sizeof(key)), -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 4, ev->ns, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, ev->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, ev->text, (int)ev->len, SQLITE_STATIC);
	return step(db, ST_PUT_VER, f->err);
}

/*
 * The sweep: a pass over the rows that left the last SERVE_DB_HISTORY
 * changes, deleting each one whose object the store does not hold at its
 * rv (replaced since, or deleted). A pass starts once the table holds
 * twice the objects and those changes (at least half of it stale then)
 * and goes SWEEP_CHUNK rows a flush, in rv order: each page of the table
 * is rewritten once a pass, as by one DELETE of them all, but no flush
 * stalls on the whole table (one DELETE of 300,000 rows stalled the test
 * cluster 1.3 s), and its cost stays in proportion to the rows written.
 */
static int sweep_chunk(struct serve_db *db, const struct api_store *s,
		       struct sweep_state *sw, struct errbuf *err)
{
	const uint64_t budget = SWEEP_CHUNK;
	sqlite3_stmt *st = db->st[ST_SWEEP];
	struct kind_cache cache = { .key = "", .kind = NULL };
	VEC(uint64_t) stale = VEC_INIT;
	uint64_t n = 0, last = sw->cursor;
	int rc, r = 0;

	sqlite3_bind_int64(st, 1, (int64_t)sw->cursor);
	sqlite3_bind_int64(st, 2, (int64_t)history_cut(api_store_rv(s)));
	sqlite3_bind_int64(st, 3, (int64_t)budget);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 1);
		const struct api_kind *k = row_kind(&cache, key ? key : "");
		const struct api_obj *o =
			k ? api_store_get(
				    s, k,
				    (const char *)sqlite3_column_text(st, 2),
				    (const char *)sqlite3_column_text(st, 3))
			  : NULL;

		last = (uint64_t)sqlite3_column_int64(st, 0);
		n++;
		if (!o || o->rv != last)
			vec_push(&stale, last);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		r = sql_fail(db, rc, err, stmt_sql[ST_SWEEP]);
	for (size_t i = 0; i < stale.len && r == 0; i++) {
		sqlite3_bind_int64(db->st[ST_DEL_VER], 1,
				   (int64_t)stale.items[i]);
		r = step(db, ST_DEL_VER, err);
	}
	if (r == 0) {
		sw->rows -= stale.len;
		sw->cursor = last;
		sw->on = n == budget; /* else past the last */
	}
	vec_release(&stale);
	return r;
}

/* Start a pass when it is due; go one chunk on while one is under way. */
static int sweep(struct serve_db *db, const struct api_store *s,
		 struct sweep_state *sw, struct errbuf *err)
{
	uint64_t rv = api_store_rv(s), live = 0;

	if (!sw->on) {
		for (size_t i = 0; i < api_kind_count(); i++)
			if (api_kind_storage(api_kind_at(i)) == api_kind_at(i))
				live += api_store_count(s, api_kind_at(i));
		if (sw->rows < 2 * (live + (rv - history_cut(rv))))
			return 0;
		sw->on = true;
		sw->cursor = 0;
	}
	return sweep_chunk(db, s, sw, err);
}

static int flush_tx(struct serve_db *db, const struct api_store *s,
		    const struct serve_meta *meta, struct sweep_state *sw,
		    struct errbuf *err)
{
	struct flush_ctx f = { .db = db,
			       .err = err,
			       .last_rv = db->flushed_rv };
	uint64_t rv = api_store_rv(s);
	int r;

	r = api_store_events(s, db->flushed_rv, flush_event, &f);
	/*
	 * -ERANGE: the store's history no longer holds the flushed cursor,
	 * so changes would be lost. The daemon flushes every loop turn and
	 * a turn writes far fewer changes than the history holds, so this
	 * is a bug, not an outcome.
	 */
	BUG_ON(r == -ERANGE);
	if (r < 0)
		return r;
	BUG_ON(f.last_rv != rv);
	sw->rows += rv - db->flushed_rv;
	if (r == 0)
		r = put_meta_int(db, "rv", (int64_t)rv, err);
	if (r == 0)
		r = put_meta_int(db, "clock_us", meta->clock_us, err);
	if (r == 0 && strcmp(meta->clock_map, db->clock_map) != 0)
		r = put_meta_text(db, "clock_map", meta->clock_map, err);
	if (r == 0)
		r = sweep(db, s, sw, err);
	return r;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int serve_db_flush(struct serve_db *db, const struct api_store *s,
		   const struct serve_meta *meta, struct errbuf *err)
{
	uint64_t rv = api_store_rv(s);
	struct sweep_state sw = db->sw;
	int64_t t0;
	int r;

	BUG_ON(rv < db->flushed_rv);
	if (rv == db->flushed_rv && meta->clock_us >= db->clock_us &&
	    meta->clock_us - db->clock_us < CLOCK_PERIOD_US &&
	    strcmp(meta->clock_map, db->clock_map) == 0)
		return 0;
	t0 = mono_ns();
	r = step(db, ST_BEGIN, err);
	if (r == 0)
		r = flush_tx(db, s, meta, &sw, err);
	if (r == 0)
		r = step(db, ST_COMMIT, err);
	db->flush_ns += mono_ns() - t0;
	if (r < 0) {
		/* Nothing of this flush stays; the next one retries it all. */
		if (!sqlite3_get_autocommit(db->sql))
			(void)step(db, ST_ROLLBACK, NULL);
		db->errors++;
		return r;
	}
	db->flushes++;
	db->changes += rv - db->flushed_rv;
	db->flushed_rv = rv;
	db->sw = sw;
	db->clock_us = meta->clock_us;
	snprintf(db->clock_map, sizeof(db->clock_map), "%s", meta->clock_map);
	return 0;
}

void serve_db_metrics(const struct serve_db *db, struct strbuf *out)
{
	strbuf_addf(out,
		    "# HELP echelon_serve_db_flushes_total Transactions "
		    "committed (group commits).\n"
		    "# TYPE echelon_serve_db_flushes_total counter\n"
		    "echelon_serve_db_flushes_total %" PRIu64 "\n"
		    "# HELP echelon_serve_db_changes_total Changes written, "
		    "one per resourceVersion.\n"
		    "# TYPE echelon_serve_db_changes_total counter\n"
		    "echelon_serve_db_changes_total %" PRIu64 "\n"
		    "# HELP echelon_serve_db_flush_errors_total Flushes that "
		    "failed and were rolled back.\n"
		    "# TYPE echelon_serve_db_flush_errors_total counter\n"
		    "echelon_serve_db_flush_errors_total %" PRIu64 "\n"
		    "# HELP echelon_serve_db_flush_seconds_total Time spent "
		    "in flushes, fsync included.\n"
		    "# TYPE echelon_serve_db_flush_seconds_total counter\n"
		    "echelon_serve_db_flush_seconds_total %.6f\n",
		    db->flushes, db->changes, db->errors,
		    (double)db->flush_ns / 1e9);
}

/* A message for a database whose rows contradict each other. */
PRINTF_LIKE(3, 4)
static int corrupt(struct serve_db *db, struct errbuf *err, const char *fmt,
		   ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return errbuf_set(err, -EIO,
			  "%s: the database is corrupt (%s); move it away to "
			  "start with an empty state",
			  db->path, why);
}

/* The JSON body of a row, or NULL with a message. */
static json_t *row_body(struct serve_db *db, sqlite3_stmt *st, int col,
			const char *what, struct errbuf *err)
{
	const char *text = (const char *)sqlite3_column_text(st, col);
	json_error_t jerr;
	json_t *body;

	body = text ? json_loadb(text, (size_t)sqlite3_column_bytes(st, col), 0,
				 &jerr)
		    : NULL;
	if (!json_is_object(body)) {
		json_decref(body);
		corrupt(db, err, "%s: body is not a JSON object", what);
		return NULL;
	}
	return body;
}

/* One row of the log read at load: the first seen of its object (rows
 * come newest first) is its current version; a deletion, none. */
static int load_row(struct serve_db *db, struct api_store *s, sqlite3_stmt *st,
		    const struct api_kind *k, const char *key,
		    struct errbuf *err)
{
	uint64_t rv = (uint64_t)sqlite3_column_int64(st, 0), body_rv;
	int type = sqlite3_column_int(st, 1);
	char what[512];
	const char *v;
	json_t *body;
	int r;

	snprintf(what, sizeof(what), "versions: rv %" PRIu64 ", %s %s/%s", rv,
		 key, sqlite3_column_text(st, 3), sqlite3_column_text(st, 4));
	/* Rows and meta are written in one transaction. */
	if (rv > db->flushed_rv)
		return corrupt(db, err,
			       "%s: resourceVersion %" PRIu64
			       " after the last one, %" PRIu64,
			       what, rv, db->flushed_rv);
	if (type == API_DELETED)
		return 0;
	if (type < 0 || type >= API_EV_COUNT)
		return corrupt(db, err, "%s: type %d", what, type);
	if (!k)
		return errbuf_set(err, -EPROTO,
				  "%s: %s: a kind this echelon does not serve",
				  db->path, what);
	body = row_body(db, st, 5, what, err);
	if (!body)
		return -EIO;
	/* the store keeps the body's rv; the sweep keeps rows by it */
	v = json_string_value(json_object_get(json_object_get(body, "metadata"),
					      "resourceVersion"));
	if (!v || !api_rv_parse(v, strlen(v), &body_rv) || body_rv != rv) {
		r = corrupt(db, err, "%s: its body's resourceVersion is %s",
			    what, v ? v : "missing");
		json_decref(body);
		return r;
	}
	r = api_store_load(s, k, body);
	if (r < 0)
		errbuf_set(err, r, "%s: %s: cannot restore: %s", db->path, what,
			   strerror(-r));
	return r;
}

/* Every object's current version: the newest row of each in the log. */
static int load_objects(struct serve_db *db, struct api_store *s,
			struct errbuf *err)
{
	const char *sql = "SELECT rv, type, kind, ns, name, body FROM versions"
			  " ORDER BY rv DESC";
	struct kind_cache cache = { .key = "", .kind = NULL };
	struct strbuf id;
	struct hmap seen;
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	hmap_init(&seen);
	strbuf_init(&id);
	rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
	while (r == 0 && st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 2);

		key = key ? key : "?";
		strbuf_reset(&id);
		strbuf_addf(&id, "%s\n%s\n%s", key,
			    (const char *)sqlite3_column_text(st, 3),
			    (const char *)sqlite3_column_text(st, 4));
		if (hmap_put(&seen, id.buf, id.len, 1))
			r = load_row(db, s, st, row_kind(&cache, key), key,
				     err);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = sql_fail(db, rc, err, sql);
	sqlite3_finalize(st);
	hmap_release(&seen);
	strbuf_release(&id);
	return r;
}

/*
 * Put the versions of the last SERVE_DB_HISTORY changes back into the
 * store's history, newest first, so a watch from an rv before the
 * restart resumes. It stops at a gap (none is written: each flush stores
 * every change) or when the store's history is full; watches from before
 * that get 410 Expired.
 */
static int load_history(struct serve_db *db, struct api_store *s,
			struct errbuf *err)
{
	const char *sql = "SELECT rv, type, kind, body FROM versions"
			  " WHERE rv > ?2 AND rv <= ?1 ORDER BY rv DESC";
	struct kind_cache cache = { .key = "", .kind = NULL };
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (int64_t)db->flushed_rv);
		sqlite3_bind_int64(st, 2, (int64_t)history_cut(db->flushed_rv));
	}
	while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t rv = (uint64_t)sqlite3_column_int64(st, 0);
		int type = sqlite3_column_int(st, 1);
		const char *key = (const char *)sqlite3_column_text(st, 2);
		const struct api_kind *k = row_kind(&cache, key ? key : "");
		char what[64];
		json_t *body;

		if (rv != api_store_oldest_rv(s) || !k || type < 0 ||
		    type >= API_EV_COUNT)
			break;
		snprintf(what, sizeof(what), "versions: rv %" PRIu64, rv);
		body = row_body(db, st, 3, what, err);
		if (!body) {
			r = -EIO;
			break;
		}
		if (api_store_restore_event(s, rv, (enum api_ev_type)type, k,
					    body) < 0)
			break;
	}
	sqlite3_finalize(st);
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = sql_fail(db, rc, err, sql);
	return r;
}

int serve_db_load(struct serve_db *db, struct api_store *s, struct errbuf *err)
{
	int r;

	BUG_ON(db->loaded);
	r = load_objects(db, s, err);
	if (r < 0)
		return r;
	api_store_restored(s, db->flushed_rv);
	r = load_history(db, s, err);
	if (r == 0)
		db->loaded = true;
	return r;
}
