/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Durable state of `echelon serve` in SQLite (WAL) under --data: every
 * object, a bounded history of changes (so a watch resumed after a
 * restart continues or gets 410), and meta (schema version, last
 * resourceVersion, the store's uid prefix, the embedded clock).
 * Group commit: serve_db_flush() writes every change since the last
 * flush in one transaction; the daemon answers writes only after it.
 * Only the owner thread calls it.
 *
 * Files under DIR (created with mode 0700 when missing): echelon.db and
 * its -wal and -shm, and `lock`, held (flock) while open so that two
 * daemons never share one state. The log of versions keeps every
 * object's current one and the last 10,000 changes.
 */
#ifndef ECHELON_SERVE_DB_H
#define ECHELON_SERVE_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "base/timemap.h"

/* What the daemon keeps besides objects. */
struct serve_meta {
	char uid_prefix[40]; /* made on first start, then kept */
	int64_t clock_us;    /* embedded clock at the last flush */
	/* The embedded clock's map to the wall clock, timemap_format()'s
	 * text ("" when none was kept): written when it changes. */
	char clock_map[TIMEMAP_TEXT_MAX];
	bool fresh; /* set by open: no state existed */
};

struct serve_db;
/* Open (creating dir and the schema when missing). full: synchronous=FULL
 * (else NORMAL). Returns 0 or a negative errno with a message in err:
 * -EBUSY when another process holds DIR, -EIO for a corrupt database,
 * -EPROTO for one written by a newer echelon. */
int serve_db_open(const char *dir, bool full, struct serve_db **ret,
		  struct serve_meta *meta, struct errbuf *err) MUST_CHECK;
/* Load every stored object into s (empty) and set its rv and history
 * (api_store_restore_event). Once, before the first flush. -EIO for a
 * corrupt row, -EPROTO for a kind this echelon does not serve. */
int serve_db_load(struct serve_db *db, struct api_store *s,
		  struct errbuf *err) MUST_CHECK;
/*
 * Write the changes of s since the last flush, and meta, in one
 * transaction. Nothing is answered before it returns 0. Without changes
 * it writes meta (the clock) only once per second of the clock.
 * On failure (disk full, I/O error) the transaction is rolled back: the
 * database keeps the previous flush and the next call retries the same
 * changes. The store is then ahead of the disk, so the daemon must not
 * acknowledge the held writes; it answers them 500 and stops
 * (docs/internals/serve.md, "When a flush fails").
 */
int serve_db_flush(struct serve_db *db, const struct api_store *s,
		   const struct serve_meta *meta,
		   struct errbuf *err) MUST_CHECK;
/* Append the Prometheus text of the flush counters (flushes, changes,
 * errors, seconds) to out. */
void serve_db_metrics(const struct serve_db *db, struct strbuf *out);
void serve_db_close(struct serve_db *db);

#endif
