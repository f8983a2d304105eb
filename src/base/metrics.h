/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A registry of Prometheus metrics and its text exposition (format 0.0.4).
 *
 * A registry holds metric families (counter, gauge, histogram), each with
 * series addressed by a label set. It does no I/O and reads no clock: the
 * caller records values and asks for the text. The text is a function of
 * the registry's contents only: families in name order, series in order of
 * their label text, labels in key order, numbers in one fixed spelling, so
 * the same calls in any order give the same bytes. See
 * docs/internals/metrics.md.
 *
 * Misuse is a programmer error and a BUG: an invalid metric or label name,
 * a name registered twice with different definitions, a counter decreased,
 * an operation that does not fit the family's type, an unknown family id.
 */
#ifndef ECHELON_BASE_METRICS_H
#define ECHELON_BASE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

enum metrics_type {
	METRICS_COUNTER,
	METRICS_GAUGE,
	METRICS_HISTOGRAM,
	METRICS_TYPE_COUNT
};

/* Most bucket bounds of one histogram family. */
#define METRICS_MAX_BUCKETS 1024

/*
 * Kueue's bucket sets for wait and execution times, in seconds: B16 is 1,
 * then 2.5 * 2^k up to 40960 (16 bounds); B14 is its first 14 bounds (up
 * to 10240), passed as (metrics_buckets_b16, METRICS_B14_LEN).
 */
#define METRICS_B16_LEN 16
#define METRICS_B14_LEN 14
extern const double metrics_buckets_b16[METRICS_B16_LEN];

struct metrics;

/* An empty registry; never NULL. Free with metrics_free() (NULL is fine). */
struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/*
 * Register a family and return its id (>= 0), valid for the registry's
 * life. name must match [a-zA-Z_:][a-zA-Z0-9_:]* and must not collide with
 * the _bucket, _sum or _count series of a histogram; help (copied; NULL:
 * no HELP line) may be any text. buckets are the histogram's upper bounds,
 * finite and strictly increasing (at most METRICS_MAX_BUCKETS; +Inf is
 * implied and must not be given); other types take NULL and 0. Registering
 * a name again with the same type, help and buckets returns the same id;
 * with anything different it is a BUG.
 */
int metrics_family(struct metrics *m, const char *name, const char *help,
		   enum metrics_type type, const double *buckets,
		   size_t nbuckets);

/* A family's definition, for callers that register theirs from a table. */
struct metrics_def {
	const char *name, *help;
	enum metrics_type type;
	const double *buckets;
	size_t nbuckets;
};

/* metrics_family() of defs[0..n), the ids into ids[0..n). */
void metrics_register(struct metrics *m, const struct metrics_def *defs,
		      size_t n, int *ids);

/*
 * Series are addressed by labels: a NULL-terminated array of alternating
 * keys and values ({ "queue", "a", "policy", "tas", NULL }), or NULL for
 * no labels. The order of the pairs does not matter. Keys must match
 * [a-zA-Z_][a-zA-Z0-9_]*, not start with "__", appear once, and not be
 * "le" in a histogram; values may be any text (copied). A series is
 * created, at zero, on first use.
 */

/* Counter or gauge: add v. A counter never decreases (v >= 0). */
void metrics_add(struct metrics *m, int fam, const char *const *labels,
		 double v);
/* Gauge: set to v. */
void metrics_set(struct metrics *m, int fam, const char *const *labels,
		 double v);
/* Histogram: count v in the first bucket whose bound is >= v (NaN only in
 * +Inf), add it to the sum and one to the count. */
void metrics_observe(struct metrics *m, int fam, const char *const *labels,
		     double v);
/* Any type: create the series at zero if it does not exist, so that it is
 * written even when nothing was recorded. */
void metrics_touch(struct metrics *m, int fam, const char *const *labels);

/*
 * For series recorded often: metrics_handle() creates the series (at zero)
 * when new and returns a handle to it, valid for the registry's life; the
 * _handle operations are those above on that series, without looking its
 * labels up again.
 */
int64_t metrics_handle(struct metrics *m, int fam, const char *const *labels);
void metrics_add_handle(struct metrics *m, int64_t h, double v);
void metrics_set_handle(struct metrics *m, int64_t h, double v);
void metrics_observe_handle(struct metrics *m, int64_t h, double v);

/*
 * Append the text exposition of every family to out: "# HELP" (when help
 * was given) and "# TYPE" lines, then the series, also for families that
 * have none yet. Values are integers when integral and below 1e15 in
 * magnitude, otherwise the first of %.15g, %.16g and %.17g that reads
 * back exactly; +Inf, -Inf and NaN as Prometheus spells them. Histogram
 * buckets are cumulative, their "le" label last.
 */
void metrics_write(const struct metrics *m, struct strbuf *out);

/*
 * The registries ms[0..n) written as one, for callers that keep one
 * registry per run: each family once, with the series of all registries
 * that have it, in label order. A family registered in several must have
 * the same definition there, and one series (label text) must not be in
 * two of them; either is a BUG.
 */
void metrics_write_all(const struct metrics *const *ms, size_t n,
		       struct strbuf *out);

/*
 * History. metrics_sample() records the value of every series now, at
 * t_ms (milliseconds of the caller's clock; strictly increasing from one
 * call to the next). A series created later has samples from its first
 * sample on. metrics_thin() keeps every other sample (the first, third,
 * ...), for callers that bound the history by halving its resolution;
 * metrics_samples() says how many there are.
 */
void metrics_sample(struct metrics *m, int64_t t_ms);
void metrics_thin(struct metrics *m);
size_t metrics_samples(const struct metrics *m);
/* The lines one sample of every series writes (a histogram's buckets,
 * +Inf, _count and _sum), for callers that bound the written size. */
size_t metrics_sample_lines(const struct metrics *m);

/*
 * Append the recorded samples of ms[0..n) in the OpenMetrics text format
 * (1.0.0), as `promtool tsdb create-blocks-from openmetrics` reads it:
 * families in name order, each once ("# TYPE", then "# HELP"; a counter's
 * family is named without its _total, which its samples keep), its series
 * in label order, each series' samples in time order with the timestamp
 * epoch_s + t_ms / 1000 in seconds (up to three decimals), a histogram's
 * buckets, _count and _sum per timestamp; "# EOF" at the end. The same
 * rules on definitions and series as metrics_write_all().
 */
void metrics_write_openmetrics(const struct metrics *const *ms, size_t n,
			       int64_t epoch_s, struct strbuf *out);

#endif
