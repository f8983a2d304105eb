// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the daemon's durable state: objects, the resourceVersion
 * counter, the uid prefix, the clock and the watch history survive a
 * close and reopen; a flush is all or nothing, whether it fails with an
 * I/O error or the process dies in the middle of it (a fault-injecting
 * SQLite VFS, as SQLite's own test_vfs.c); damaged databases, newer
 * schemas and a second daemon on one folder are refused with a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/alloc.h"
#include "serve/serve_db.h"
#include "testutil.h"

/* ---- A VFS over the default one that fails or dies on the Nth write. */

enum fault_mode { FAULT_NONE, FAULT_ERROR, FAULT_EXIT };

static struct {
	sqlite3_vfs vfs;
	sqlite3_vfs *real;
	enum fault_mode mode;
	int countdown; /* writes and syncs left before the fault */
	int faults;    /* faults injected so far */
} fault;

struct fault_file {
	sqlite3_file base;
	sqlite3_file *real;
};

#define REAL(f) (((struct fault_file *)(f))->real)

/* Whether this write or sync is the one to fail. */
static int fault_hit(void)
{
	if (fault.mode == FAULT_NONE || fault.countdown-- > 0)
		return 0;
	fault.faults++;
	if (fault.mode == FAULT_EXIT)
		_exit(0); /* as kill -9: no cleanup, no unlock */
	return 1;
}

static int f_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	if (fault_hit())
		return SQLITE_IOERR_WRITE;
	return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	if (fault_hit())
		return SQLITE_IOERR_FSYNC;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int f_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}

static int f_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}

static int f_check(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int f_devchar(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int f_shm_map(sqlite3_file *f, int pg, int pgsz, int extend,
		     void volatile **pp)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, pgsz, extend, pp);
}

static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

/* Version 2: no memory-mapped I/O, so every write goes through f_write. */
static const sqlite3_io_methods fault_methods = {
	.iVersion = 2,
	.xClose = f_close,
	.xRead = f_read,
	.xWrite = f_write,
	.xTruncate = f_truncate,
	.xSync = f_sync,
	.xFileSize = f_size,
	.xLock = f_lock,
	.xUnlock = f_unlock,
	.xCheckReservedLock = f_check,
	.xFileControl = f_control,
	.xSectorSize = f_sector,
	.xDeviceCharacteristics = f_devchar,
	.xShmMap = f_shm_map,
	.xShmLock = f_shm_lock,
	.xShmBarrier = f_shm_barrier,
	.xShmUnmap = f_shm_unmap,
};

static int f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
		  int flags, int *out)
{
	struct fault_file *ff = (struct fault_file *)f;
	int rc;

	(void)vfs;
	ff->real = (sqlite3_file *)(ff + 1);
	rc = fault.real->xOpen(fault.real, name, ff->real, flags, out);
	ff->base.pMethods = ff->real->pMethods ? &fault_methods : NULL;
	return rc;
}

static int f_delete(sqlite3_vfs *vfs, const char *name, int sync)
{
	(void)vfs;
	return fault.real->xDelete(fault.real, name, sync);
}

static int f_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return fault.real->xAccess(fault.real, name, flags, out);
}

static int f_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return fault.real->xFullPathname(fault.real, name, n, out);
}

static int f_random(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return fault.real->xRandomness(fault.real, n, out);
}

static int f_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return fault.real->xSleep(fault.real, us);
}

static int f_time(sqlite3_vfs *vfs, double *out)
{
	(void)vfs;
	return fault.real->xCurrentTime(fault.real, out);
}

static int f_last_error(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return fault.real->xGetLastError(fault.real, n, out);
}

static int f_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
	(void)vfs;
	return fault.real->xCurrentTimeInt64(fault.real, out);
}

/* Make the fault VFS the default, so serve_db_open() uses it. */
static int setup_vfs(void **state)
{
	(void)state;
	fault.real = sqlite3_vfs_find(NULL);
	assert_non_null(fault.real);
	fault.vfs = (sqlite3_vfs){
		.iVersion = 2,
		.szOsFile =
			(int)sizeof(struct fault_file) + fault.real->szOsFile,
		.mxPathname = fault.real->mxPathname,
		.zName = "echelon-fault",
		.xOpen = f_open,
		.xDelete = f_delete,
		.xAccess = f_access,
		.xFullPathname = f_fullpath,
		.xDlOpen = NULL,
		.xRandomness = f_random,
		.xSleep = f_sleep,
		.xCurrentTime = f_time,
		.xGetLastError = f_last_error,
		.xCurrentTimeInt64 = f_time64,
	};
	return sqlite3_vfs_register(&fault.vfs, 1) == SQLITE_OK ? 0 : -1;
}

static void fault_arm(enum fault_mode mode, int after)
{
	fault.mode = mode;
	fault.countdown = after;
	fault.faults = 0;
}

/* ---- Helpers. */

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/echelon-test-db-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void remove_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static const struct api_kind *kind(const char *resource)
{
	const struct api_kind *k = api_kind_find("", "v1", resource);

	assert_non_null(k);
	return api_kind_storage(k);
}

static void remove_wal(const char *path)
{
	char *p = xasprintf("%s-wal", path);

	unlink(p);
	free(p);
	p = xasprintf("%s-shm", path);
	unlink(p);
	free(p);
}

static json_t *object(const char *kind_name, const char *ns, const char *name,
		      int value)
{
	json_t *o = json_pack("{s:s, s:s, s:{s:s}, s:{s:i}}", "apiVersion",
			      "v1", "kind", kind_name, "metadata", "name", name,
			      "spec", "value", value);

	if (ns)
		json_object_set_new(json_object_get(o, "metadata"), "namespace",
				    json_string(ns));
	return o;
}

static struct api_store *new_store(const struct serve_meta *m)
{
	struct api_store_options o = { .uid_prefix = m->uid_prefix };

	return api_store_new(&o);
}

static struct serve_db *open_ok(const char *dir, struct serve_meta *m)
{
	struct serve_db *db = NULL;
	struct errbuf err = { "" };
	int r = serve_db_open(dir, true, &db, m, &err);

	if (r < 0)
		fail_msg("open %s: %s", dir, err.msg);
	return db;
}

static void flush_ok(struct serve_db *db, struct api_store *s, int64_t clock)
{
	struct serve_meta m = { .clock_us = clock };
	struct errbuf err = { "" };

	if (serve_db_flush(db, s, &m, &err) < 0)
		fail_msg("flush: %s", err.msg);
}

/* Open dir into a fresh store, loaded. */
static struct api_store *reload(const char *dir, struct serve_meta *m,
				struct serve_db **ret_db)
{
	struct serve_db *db = open_ok(dir, m);
	struct api_store *s = new_store(m);
	struct errbuf err = { "" };

	if (serve_db_load(db, s, &err) < 0)
		fail_msg("load: %s", err.msg);
	if (ret_db)
		*ret_db = db;
	else
		serve_db_close(db);
	return s;
}

/* Every object of a and b, as text, equal. */
struct cmp_ctx {
	const struct api_store *other;
	size_t n;
};

static int cmp_obj(void *ctx, const struct api_obj *o)
{
	struct cmp_ctx *c = ctx;
	const struct api_obj *p =
		api_store_get(c->other, o->kind, o->ns, o->name);

	assert_non_null(p);
	assert_int_equal(p->rv, o->rv);
	assert_string_equal(p->uid, o->uid);
	assert_string_equal(p->text, o->text);
	c->n++;
	return 0;
}

static void assert_same(const struct api_store *a, const struct api_store *b)
{
	assert_int_equal(api_store_rv(a), api_store_rv(b));
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);
		struct cmp_ctx c = { .other = b };

		if (api_kind_storage(k) != k)
			continue;
		assert_int_equal(api_store_count(a, k), api_store_count(b, k));
		assert_int_equal(
			api_store_each(a, k, NULL, NULL, NULL, cmp_obj, &c), 0);
		assert_int_equal(c.n, api_store_count(b, k));
	}
}

/* A mixed series of n writes: creates, updates, deletes, two kinds. */
static void write_series(struct api_store *s, int from, int n)
{
	const struct api_kind *pods = kind("pods");
	const struct api_kind *nodes = kind("nodes");

	for (int i = from; i < from + n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "o%d", i / 3);
		switch (i % 3) {
		case 0:
			assert_int_equal(
				api_store_create(
					s, pods,
					object("Pod", "default", name, i), 1000,
					NULL),
				0);
			break;
		case 1:
			assert_int_equal(
				api_store_update(
					s, pods,
					object("Pod", "default", name, i), 0,
					2000, NULL),
				0);
			break;
		default:
			assert_int_equal(
				api_store_create(s, nodes,
						 object("Node", NULL, name, i),
						 3000, NULL),
				0);
			if (i % 2)
				assert_int_equal(
					api_store_delete(s, pods, "default",
							 name, 0, 4000),
					0);
			break;
		}
	}
}

/* ---- Tests. */

static void test_round_trip(void **state)
{
	static const int writes[] = { 0, 1, 7, 300 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(writes); i++) {
		char *tmp = temp_dir();
		char *dir = xasprintf("%s/state/echelon", tmp);
		struct serve_meta m, m2;
		struct serve_db *db = open_ok(dir, &m);
		struct api_store *s = new_store(&m), *s2;
		struct stat sb;

		assert_true(m.fresh);
		assert_true(strlen(m.uid_prefix) >= 8);
		assert_int_equal(stat(dir, &sb), 0);
		assert_int_equal(sb.st_mode & 0777, 0700);
		write_series(s, 0, writes[i]);
		flush_ok(db, s, 123456789);
		serve_db_close(db);

		s2 = reload(dir, &m2, NULL);
		assert_false(m2.fresh);
		assert_string_equal(m2.uid_prefix, m.uid_prefix);
		assert_int_equal(m2.clock_us, 123456789);
		assert_same(s, s2);
		api_store_free(s);
		api_store_free(s2);
		remove_tree(tmp);
		free(dir);
		free(tmp);
	}
}

/* The clock's map to the wall clock is kept, also by a flush that has
 * no change but it (a restart with nothing to write), and a new one
 * replaces it. */
static void test_clock_map(void **state)
{
	static const char *const maps[] = { "0:0:1;5000000:5000000:60",
					    "0:0:1;5000000:5000000:60;"
					    "6000000:9000000:2" };
	char *tmp = temp_dir();
	char *dir = xasprintf("%s/state", tmp);
	struct serve_meta m;
	struct serve_db *db = open_ok(dir, &m);
	struct api_store *s = new_store(&m);
	struct errbuf err = { "" };

	(void)state;
	assert_string_equal(m.clock_map, "");
	write_series(s, 0, 3);
	flush_ok(db, s, 7);
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		struct serve_meta m2;
		struct api_store *s2;

		snprintf(m.clock_map, sizeof(m.clock_map), "%s", maps[i]);
		m.clock_us = 7;
		assert_int_equal(serve_db_flush(db, s, &m, &err), 0);
		serve_db_close(db);
		s2 = reload(dir, &m2, &db);
		assert_string_equal(m2.clock_map, maps[i]);
		api_store_free(s2);
	}
	serve_db_close(db);
	api_store_free(s);
	remove_tree(tmp);
	free(dir);
	free(tmp);
}

/* After a restart, new writes continue the counter and never reuse a
 * uid, and the flush after them lands too. */
static void test_rv_increases(void **state)
{
	char *dir = temp_dir();
	const struct api_kind *pods = kind("pods");
	uint64_t last = 0;

	(void)state;
	for (int round = 0; round < 4; round++) {
		struct serve_meta m;
		struct serve_db *db;
		struct api_store *s = reload(dir, &m, &db);
		const struct api_obj *o;
		char name[16];

		assert_int_equal(api_store_rv(s), last);
		snprintf(name, sizeof(name), "p%d", round);
		assert_int_equal(
			api_store_create(s, pods,
					 object("Pod", "default", name, round),
					 1, &o),
			0);
		assert_true(o->rv > last);
		for (int j = 0; j < round; j++) {
			const struct api_obj *p;

			snprintf(name, sizeof(name), "p%d", j);
			p = api_store_get(s, pods, "default", name);
			assert_non_null(p);
			assert_string_not_equal(p->uid, o->uid);
		}
		last = o->rv;
		flush_ok(db, s, round);
		serve_db_close(db);
		api_store_free(s);
	}
	remove_tree(dir);
	free(dir);
}

struct ev_list {
	uint64_t rv[64];
	int type[64];
	char name[64][32];
	size_t n;
};

static int collect(void *ctx, const struct api_event *ev)
{
	struct ev_list *l = ctx;

	if (l->n < ARRAY_SIZE(l->rv)) {
		l->rv[l->n] = ev->rv;
		l->type[l->n] = (int)ev->type;
		snprintf(l->name[l->n], sizeof(l->name[0]), "%s", ev->name);
	}
	l->n++;
	return 0;
}

/* A watch from an rv before the restart gets the same changes after it;
 * one older than the kept history gets -ERANGE (410 Expired). */
static void test_history_resumes(void **state)
{
	static const struct {
		int writes;	/* before the restart */
		int since_back; /* watch from rv - since_back */
		bool expired;
	} cases[] = {
		{ 10, 10, false },    { 10, 4, false },	      { 10, 0, false },
		{ 10030, 40, false }, { 10030, 10001, true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *dir = temp_dir();
		struct serve_meta m;
		struct serve_db *db = open_ok(dir, &m);
		struct api_store *s = new_store(&m), *s2;
		struct ev_list want = { .n = 0 }, got = { .n = 0 };
		uint64_t since;

		/* In batches, as the daemon flushes each loop turn. */
		for (int w = 0; w < cases[i].writes; w += 1000) {
			int n = cases[i].writes - w;

			write_series(s, w, n < 1000 ? n : 1000);
			flush_ok(db, s, w);
		}
		serve_db_close(db);
		since = api_store_rv(s) - (uint64_t)cases[i].since_back;
		assert_int_equal(api_store_events(s, since, collect, &want), 0);

		s2 = reload(dir, &m, NULL);
		if (cases[i].expired) {
			assert_int_equal(
				api_store_events(s2, since, collect, &got),
				-ERANGE);
		} else {
			assert_int_equal(
				api_store_events(s2, since, collect, &got), 0);
			assert_int_equal(got.n, want.n);
			assert_memory_equal(got.rv, want.rv, sizeof(want.rv));
			assert_memory_equal(got.type, want.type,
					    sizeof(want.type));
			assert_memory_equal(got.name, want.name,
					    sizeof(want.name));
		}
		api_store_free(s);
		api_store_free(s2);
		remove_tree(dir);
		free(dir);
	}
}

/* The first column of the first row of sql on dir's database. */
static int64_t raw_int(const char *dir, const char *sql)
{
	char *path = xasprintf("%s/echelon.db", dir);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
	return v;
}

/* rv in meta and the number of objects (their newest rows not
 * deletions), read beside the daemon's connection (SQLite's own locking,
 * no lock file). */
static void raw_state(const char *dir, uint64_t *rv, size_t *count)
{
	*rv = (uint64_t)raw_int(dir, "SELECT value FROM meta WHERE key = 'rv'");
	*count = (size_t)raw_int(dir, "SELECT count(*) FROM versions v"
				      " WHERE type != 2 AND rv = (SELECT"
				      " max(rv) FROM versions w WHERE"
				      " w.kind = v.kind AND w.ns = v.ns"
				      " AND w.name = v.name)");
}

static size_t total(const struct api_store *s)
{
	size_t n = 0;

	for (size_t i = 0; i < api_kind_count(); i++)
		n += api_store_count(s, api_kind_at(i));
	return n;
}

/* The state after write_series(0, n), built alone: writes are
 * deterministic (uids from the prefix, times given). */
static struct api_store *reference(const struct serve_meta *m, int n)
{
	struct api_store *s = new_store(m);

	write_series(s, 0, n);
	return s;
}

/*
 * The log of versions stays within a small multiple of what it must hold
 * (the current version of each object and the last 10,000 changes),
 * swept as it grows, never losing a current version: old objects updated long
 * after they passed out of the history (nodes), objects deleted and created
 * again, and a churn of new ones (pods) in flushes of varied size.
 */
static void test_versions_bounded(void **state)
{
	static const int batch[] = { 1, 7, 300, 2000, 13 };
	char *dir = temp_dir();
	struct serve_meta m;
	struct serve_db *db = open_ok(dir, &m);
	struct api_store *s = new_store(&m), *s2;
	const struct api_kind *nodes = kind("nodes"), *pods = kind("pods");
	int64_t rows, last = 0;
	int i = 0, shrunk = 0;

	(void)state;
	for (int n = 0; n < 40; n++) {
		char name[32];

		snprintf(name, sizeof(name), "n%d", n);
		assert_int_equal(api_store_create(s, nodes,
						  object("Node", NULL, name, 0),
						  1000, NULL),
				 0);
	}
	flush_ok(db, s, 1);
	for (size_t b = 0; i < 45000; b++) {
		for (int end = i + batch[b % ARRAY_SIZE(batch)]; i < end; i++) {
			char name[32];

			snprintf(name, sizeof(name), "%c%d", i % 4 ? 'p' : 'n',
				 i % 4 ? i % 997 : i % 40);
			if (i % 4 == 0)
				assert_int_equal(
					api_store_update(
						s, nodes,
						object("Node", NULL, name, i),
						0, 2000, NULL),
					0);
			else if (api_store_get(s, pods, "default", name))
				assert_int_equal(
					api_store_delete(s, pods, "default",
							 name, 0, 3000),
					0);
			else
				assert_int_equal(
					api_store_create(s, pods,
							 object("Pod",
								"default", name,
								i),
							 4000, NULL),
					0);
		}
		flush_ok(db, s, (int64_t)b);
		rows = raw_int(dir, "SELECT count(*) FROM versions");
		shrunk += rows < last;
		last = rows;
		/* a pass starts at twice the objects and the history's
		 * rows (all of them), and what is appended during it (a few
		 * flushes of up to 2,000 here) stays under a third more */
		assert_true((uint64_t)rows <
			    3 * ((api_store_rv(s) < 10000 ? api_store_rv(s)
							  : 10000) +
				 api_store_count(s, nodes) +
				 api_store_count(s, pods)));
		if (b % 16 == 15) { /* the daemon restarted */
			serve_db_close(db);
			s2 = reload(dir, &m, &db);
			assert_same(s, s2);
			api_store_free(s2);
		}
	}
	assert_true(shrunk >= 2); /* passes done */
	serve_db_close(db);
	s2 = reload(dir, &m, NULL);
	assert_same(s, s2);
	api_store_free(s);
	api_store_free(s2);
	remove_tree(dir);
	free(dir);
}

/* Schema 1's rows of a store, for test_schema_1. */
static const char *v1_kind(const struct api_kind *k, char *buf, size_t size)
{
	if (!k->group[0])
		return k->resource;
	snprintf(buf, size, "%s/%s", k->group, k->resource);
	return buf;
}

static int v1_object(void *ctx, const struct api_obj *o)
{
	char key[160];
	char *sql = sqlite3_mprintf(
		"INSERT INTO objects VALUES (%Q, %Q, %Q, %Q, %llu, %Q)",
		v1_kind(o->kind, key, sizeof(key)), o->ns, o->name, o->uid,
		(unsigned long long)o->rv, o->text);

	assert_int_equal(sqlite3_exec(ctx, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);
	return 0;
}

static int v1_event(void *ctx, const struct api_event *ev)
{
	char key[160];
	char *sql = sqlite3_mprintf(
		"INSERT INTO events VALUES (%llu, %d, %Q, %Q, %Q, %.*Q)",
		(unsigned long long)ev->rv, (int)ev->type,
		v1_kind(ev->kind, key, sizeof(key)), ev->ns, ev->name,
		(int)ev->len, ev->text);

	assert_int_equal(sqlite3_exec(ctx, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);
	return 0;
}

/*
 * A database of schema 1 (each body in objects, and again in events for
 * the last 10,000 changes) opens as schema 2: the same objects (pods
 * deleted among them), the same history for a watch resumed from its
 * oldest change, 410 before it, and it goes on from there.
 */
static void test_schema_1(void **state)
{
	char *dir = temp_dir();
	char *path = xasprintf("%s/echelon.db", dir);
	struct serve_meta m = { .uid_prefix = "0abc1234" };
	struct api_store *s = new_store(&m), *s2;
	struct ev_list want = { .n = 0 }, got = { .n = 0 };
	struct serve_db *db;
	sqlite3 *sql = NULL;
	char *text;

	(void)state;
	write_series(s, 0, 10060);
	assert_int_equal(mkdir(dir, 0700) == 0 || errno == EEXIST, 1);
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	text = sqlite3_mprintf(
		"CREATE TABLE objects (kind TEXT NOT NULL, ns TEXT NOT NULL,"
		" name TEXT NOT NULL, uid TEXT NOT NULL, rv INTEGER NOT NULL,"
		" body TEXT NOT NULL, PRIMARY KEY (kind, ns, name))"
		" WITHOUT ROWID;"
		"CREATE TABLE events (rv INTEGER PRIMARY KEY,"
		" type INTEGER NOT NULL, kind TEXT NOT NULL, ns TEXT NOT NULL,"
		" name TEXT NOT NULL, body TEXT NOT NULL);"
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
		"INSERT INTO meta VALUES ('rv', %llu), ('clock_us', 7),"
		" ('uid_prefix', %Q), ('schema', 1);"
		"PRAGMA user_version = 1;",
		(unsigned long long)api_store_rv(s), m.uid_prefix);
	assert_int_equal(sqlite3_exec(sql, text, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(text);
	assert_int_equal(sqlite3_exec(sql, "BEGIN", NULL, NULL, NULL),
			 SQLITE_OK);
	/* objects: as schema 1 wrote them */
	for (size_t k = 0; k < api_kind_count(); k++) {
		const struct api_kind *kd = api_kind_at(k);

		if (api_kind_storage(kd) == kd)
			assert_int_equal(api_store_each(s, kd, NULL, NULL, NULL,
							v1_object, sql),
					 0);
	}
	/* events: the last 10,000 changes */
	assert_int_equal(
		api_store_events(s, api_store_rv(s) - 10000, v1_event, sql), 0);
	assert_int_equal(sqlite3_exec(sql, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(sql);

	s2 = reload(dir, &m, &db);
	assert_same(s, s2);
	assert_int_equal(
		api_store_events(s, api_store_rv(s) - 10000, collect, &want),
		0);
	assert_int_equal(
		api_store_events(s2, api_store_rv(s) - 10000, collect, &got),
		0);
	assert_int_equal(
		api_store_events(s2, api_store_rv(s) - 10001, collect, &got),
		-ERANGE);
	assert_int_equal(got.n, want.n);
	assert_memory_equal(got.rv, want.rv, sizeof(want.rv));
	assert_memory_equal(got.type, want.type, sizeof(want.type));
	assert_int_equal(raw_int(dir, "PRAGMA user_version"), 2);
	write_series(s2, 10060, 30);
	flush_ok(db, s2, 8);
	serve_db_close(db);
	api_store_free(s);
	s = reload(dir, &m, NULL);
	assert_same(s, s2);
	api_store_free(s);
	api_store_free(s2);
	remove_tree(dir);
	free(path);
	free(dir);
}

/* A flush that fails on its Nth write or sync leaves the database as the
 * previous flush left it, and a retry writes everything. */
static void test_flush_fault(void **state)
{
	static const int after[] = { 0, 1, 2, 3, 5, 8, 13, 21, 34, 55 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(after); i++) {
		char *dir = temp_dir();
		struct serve_meta m, m2;
		struct serve_db *db = open_ok(dir, &m);
		struct api_store *s = new_store(&m), *before, *s2;
		struct serve_meta fm = { .clock_us = 5 };
		struct errbuf err = { "" };
		uint64_t rv;
		size_t count;
		int r, faults;

		write_series(s, 0, 30);
		flush_ok(db, s, 1);
		before = reference(&m, 30);
		write_series(s, 30, 200);
		fault_arm(FAULT_ERROR, after[i]);
		r = serve_db_flush(db, s, &fm, &err);
		faults = fault.faults;
		fault_arm(FAULT_NONE, 0);
		if (!faults) {
			/* The flush needed fewer writes than after[i]. */
			assert_int_equal(r, 0);
			assert_true(i > 3);
		} else {
			assert_int_equal(r, -EIO);
			assert_non_null(strstr(err.msg, dir));
			raw_state(dir, &rv, &count);
			assert_int_equal(rv, api_store_rv(before));
			assert_int_equal(count, total(before));
		}

		flush_ok(db, s, 6);
		raw_state(dir, &rv, &count);
		assert_int_equal(rv, api_store_rv(s));
		serve_db_close(db);
		s2 = reload(dir, &m2, NULL);
		assert_same(s, s2);
		api_store_free(s);
		api_store_free(s2);
		api_store_free(before);
		remove_tree(dir);
		free(dir);
	}
}

/* The process dies (as kill -9) at the Nth write or sync of a flush:
 * the database then holds the previous flush or this one, whole. */
static void test_group_commit_crash(void **state)
{
	static const int after[] = { 0, 1, 2, 3, 4, 6, 9, 14, 30, 100, 100000 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(after); i++) {
		char *dir = temp_dir();
		struct serve_meta m;
		struct serve_db *db = open_ok(dir, &m);
		struct api_store *s = new_store(&m), *old, *new, *s2;
		int status;
		pid_t pid;

		write_series(s, 0, 40);
		flush_ok(db, s, 1);
		serve_db_close(db);
		api_store_free(s);

		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			s = reload(dir, &m, &db);
			write_series(s, 40, 300);
			fault_arm(FAULT_EXIT, after[i]);
			flush_ok(db, s, 2);
			_exit(3); /* the flush completed */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_true(WEXITSTATUS(status) == 0 ||
			    WEXITSTATUS(status) == 3);

		old = reference(&m, 40);
		new = reference(&m, 340);
		s2 = reload(dir, &m, NULL);
		if (WEXITSTATUS(status) == 3 ||
		    api_store_rv(s2) != api_store_rv(old))
			assert_same(new, s2);
		else
			assert_same(old, s2);
		api_store_free(old);
		api_store_free(new);
		api_store_free(s2);
		remove_tree(dir);
		free(dir);
	}
}

/* Damage is a message naming the file, never a crash. */
static void test_corrupt(void **state)
{
	static const struct {
		const char *sql;  /* run on a valid database, or NULL */
		const char *junk; /* or write this 200 times ... */
		long at;	  /* ... from here (0: replacing the file) */
		int open_err, load_err;
		const char *want;
	} cases[] = {
		{ NULL, "this is not a database, it is a text file\n", 0, -EIO,
		  0, "the database is corrupt" },
		/* Pages 2 and 3 (the tables' first pages) overwritten. */
		{ NULL, "garbage in the middle of a b-tree page\n", 4096, -EIO,
		  0, "the database is corrupt" },
		{ "PRAGMA user_version = 99", NULL, 0, -EPROTO, 0,
		  "written by a newer echelon (schema 99" },
		{ ("UPDATE versions SET body = '{\"metadata\":' WHERE rv = "
		   "(SELECT max(rv) FROM versions WHERE type != 2)"),
		  NULL, 0, 0, -EIO, "body is not a JSON object" },
		{ "UPDATE versions SET body = '[1]'", NULL, 0, 0, -EIO,
		  "body is not a JSON object" },
		{ ("UPDATE versions SET type = 7 WHERE rv = "
		   "(SELECT max(rv) FROM versions)"),
		  NULL, 0, 0, -EIO, "type 7" },
		{ ("UPDATE versions SET body = json_set(body, "
		   "'$.metadata.resourceVersion', '3') WHERE rv = "
		   "(SELECT max(rv) FROM versions WHERE type != 2)"),
		  NULL, 0, 0, -EIO, "its body's resourceVersion is 3" },
		{ "UPDATE versions SET kind = 'example.com/gadgets'", NULL, 0,
		  0, -EPROTO, "example.com/gadgets" },
		{ ("UPDATE versions SET rv = 999999 WHERE rv = "
		   "(SELECT max(rv) FROM versions)"),
		  NULL, 0, 0, -EIO, "resourceVersion 999999" },
		{ "DELETE FROM meta WHERE key = 'uid_prefix'", NULL, 0, -EIO, 0,
		  "no uid_prefix" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *dir = temp_dir();
		char *path = xasprintf("%s/echelon.db", dir);
		struct serve_meta m;
		struct serve_db *db = open_ok(dir, &m);
		struct api_store *s = new_store(&m);
		struct errbuf err = { "" };
		int r;

		write_series(s, 0, 20);
		flush_ok(db, s, 1);
		serve_db_close(db);
		api_store_free(s);
		if (cases[i].sql) {
			sqlite3 *sql;

			assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
			assert_int_equal(sqlite3_exec(sql, cases[i].sql, NULL,
						      NULL, NULL),
					 SQLITE_OK);
			sqlite3_close(sql);
		} else {
			FILE *f = fopen(path, cases[i].at ? "r+" : "w");

			assert_non_null(f);
			assert_int_equal(fseek(f, cases[i].at, SEEK_SET), 0);
			for (int n = 0; n < 200; n++)
				fputs(cases[i].junk, f);
			fclose(f);
			remove_wal(path);
		}
		db = NULL;
		r = serve_db_open(dir, true, &db, &m, &err);
		assert_int_equal(r, cases[i].open_err);
		if (r == 0) {
			s = new_store(&m);
			assert_int_equal(serve_db_load(db, s, &err),
					 cases[i].load_err);
			serve_db_close(db);
			api_store_free(s);
		} else {
			assert_null(db);
		}
		if (!strstr(err.msg, cases[i].want) || !strstr(err.msg, dir))
			fail_msg("case %zu: %s", i, err.msg);
		remove_tree(dir);
		free(path);
		free(dir);
	}
}

/* The counters say how many changes the group commits carried. */
static void test_metrics(void **state)
{
	static const struct {
		int writes;
		bool fail; /* the flush fails */
		int flushes, errors;
	} steps[] = {
		{ 7, false, 1, 0 },
		{ 0, false, 1, 0 }, /* nothing to write: no transaction */
		{ 2, true, 1, 1 },
		{ 3, false, 2, 1 }, /* the failed flush's changes too */
	};
	char *dir = temp_dir();
	struct serve_meta m;
	struct serve_db *db = open_ok(dir, &m);
	struct api_store *s = new_store(&m);
	uint64_t flushed = 0;
	struct strbuf out;
	int done = 0;

	(void)state;
	strbuf_init(&out);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		struct serve_meta fm = { .clock_us = 0 };
		struct errbuf err;
		char want[3][96];

		write_series(s, done, steps[i].writes);
		done += steps[i].writes;
		fault_arm(steps[i].fail ? FAULT_ERROR : FAULT_NONE, 0);
		assert_int_equal(serve_db_flush(db, s, &fm, &err),
				 steps[i].fail ? -EIO : 0);
		fault_arm(FAULT_NONE, 0);
		if (!steps[i].fail)
			flushed = api_store_rv(s);
		snprintf(want[0], sizeof(want[0]),
			 "\nechelon_serve_db_flushes_total %d\n",
			 steps[i].flushes);
		snprintf(want[1], sizeof(want[1]),
			 "\nechelon_serve_db_changes_total %d\n", (int)flushed);
		snprintf(want[2], sizeof(want[2]),
			 "\nechelon_serve_db_flush_errors_total %d\n",
			 steps[i].errors);
		strbuf_reset(&out);
		serve_db_metrics(db, &out);
		for (size_t k = 0; k < 3; k++)
			if (!strstr(out.buf, want[k]))
				fail_msg("step %zu: no %s in\n%s", i, want[k],
					 out.buf);
	}
	strbuf_release(&out);
	serve_db_close(db);
	api_store_free(s);
	remove_tree(dir);
	free(dir);
}

/* Two daemons on one folder would each think they own the state. */
static void test_one_owner(void **state)
{
	char *dir = temp_dir();
	struct serve_meta m, m2;
	struct serve_db *db = open_ok(dir, &m), *db2 = NULL;
	struct errbuf err = { "" };

	(void)state;
	assert_int_equal(serve_db_open(dir, false, &db2, &m2, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "in use by another echelon serve"));
	serve_db_close(db);
	db2 = open_ok(dir, &m2);
	serve_db_close(db2);
	remove_tree(dir);
	free(dir);
}

/* A path that exists but is a file. */
static void test_data_not_a_folder(void **state)
{
	char *dir = temp_dir();
	char *file = xasprintf("%s/file", dir);
	struct serve_meta m;
	struct serve_db *db = NULL;
	struct errbuf err = { "" };
	int fd = open(file, O_CREAT | O_WRONLY, 0600);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_true(serve_db_open(file, true, &db, &m, &err) < 0);
	assert_null(db);
	assert_non_null(strstr(err.msg, file));
	remove_tree(dir);
	free(file);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rv_increases),
		cmocka_unit_test(test_clock_map),
		cmocka_unit_test(test_history_resumes),
		cmocka_unit_test(test_versions_bounded),
		cmocka_unit_test(test_schema_1),
		cmocka_unit_test(test_flush_fault),
		cmocka_unit_test(test_group_commit_crash),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_one_owner),
		cmocka_unit_test(test_data_not_a_folder),
	};

	return cmocka_run_group_tests(tests, setup_vfs, NULL);
}
