// SPDX-License-Identifier: Apache-2.0
/*
 * The metrics registry. Each series is keyed by its rendered label text
 * (keys sorted, values escaped), which is both its identity, so that the
 * order of labels in a call does not matter, and its sort key when the
 * registry is written. Families keep their registration order for stable
 * ids and are sorted by name only when written.
 */
#include "base/metrics.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/vec.h"

#include "base/banned.h"

const double metrics_buckets_b16[METRICS_B16_LEN] = {
	1,   2.5, 5,	10,   20,   40,	   80,	  160,
	320, 640, 1280, 2560, 5120, 10240, 20480, 40960,
};

struct series {
	char *labels;	/* k="v",k2="v2" (escaped, keys sorted); "" for none */
	double value;	/* counter or gauge; a histogram's sum */
	uint64_t count; /* histogram: observations */
	uint64_t *buckets; /* histogram: per bound, not cumulative */
};

struct family {
	char *name;
	char *help; /* NULL: none */
	enum metrics_type type;
	double *bounds;
	size_t nbounds;
	VEC(struct series) series;
	struct hmap index; /* label text -> position in series */
};

struct label_pair {
	const char *key, *value;
};

struct metrics {
	VEC(struct family) families;
	struct hmap index; /* name -> family id */
	/* Scratch for normalising the labels of one call. */
	VEC(struct label_pair) pairs;
	struct strbuf key;
};

static const char *const type_names[METRICS_TYPE_COUNT] = {
	[METRICS_COUNTER] = "counter",
	[METRICS_GAUGE] = "gauge",
	[METRICS_HISTOGRAM] = "histogram",
};

static const char *const histogram_suffixes[] = { "_bucket", "_sum", "_count" };

struct metrics *metrics_new(void)
{
	struct metrics *m = xcalloc(1, sizeof(*m));

	hmap_init(&m->index);
	strbuf_init(&m->key);
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	vec_foreach (&m->families, f) {
		vec_foreach (&f->series, s) {
			free(s->labels);
			free(s->buckets);
		}
		vec_release(&f->series);
		hmap_release(&f->index);
		free(f->name);
		free(f->help);
		free(f->bounds);
	}
	vec_release(&m->families);
	hmap_release(&m->index);
	vec_release(&m->pairs);
	strbuf_release(&m->key);
	free(m);
}

static bool is_word_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool valid_metric_name(const char *s)
{
	if (!is_word_start(*s) && *s != ':')
		return false;
	for (s++; *s; s++)
		if (!is_word_start(*s) && !is_digit(*s) && *s != ':')
			return false;
	return true;
}

static bool valid_label_name(const char *s)
{
	if (!is_word_start(*s) || (s[0] == '_' && s[1] == '_'))
		return false;
	for (s++; *s; s++)
		if (!is_word_start(*s) && !is_digit(*s))
			return false;
	return true;
}

static bool same_help(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool lookup(const struct metrics *m, const char *name, int *ret_id)
{
	int64_t id;

	if (!hmap_get_str(&m->index, name, &id))
		return false;
	*ret_id = (int)id;
	return true;
}

/* BUG when name and a registered family would write samples of the same
 * name: a histogram's _bucket, _sum and _count. */
static void check_no_collision(const struct metrics *m, const char *name,
			       enum metrics_type type)
{
	size_t len = strlen(name);
	struct strbuf sb;
	int id;

	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(histogram_suffixes); i++) {
		const char *sfx = histogram_suffixes[i];
		size_t sl = strlen(sfx);

		/* name is the _sum (...) of a registered histogram */
		if (len > sl && strcmp(name + len - sl, sfx) == 0) {
			strbuf_reset(&sb);
			strbuf_add(&sb, name, len - sl);
			BUG_ON(lookup(m, sb.buf, &id) &&
			       m->families.items[id].type == METRICS_HISTOGRAM);
		}
		/* a registered family is the _sum (...) of this histogram */
		if (type == METRICS_HISTOGRAM) {
			strbuf_reset(&sb);
			strbuf_addstr(&sb, name);
			strbuf_addstr(&sb, sfx);
			BUG_ON(lookup(m, sb.buf, &id));
		}
	}
	strbuf_release(&sb);
}

int metrics_family(struct metrics *m, const char *name, const char *help,
		   enum metrics_type type, const double *buckets,
		   size_t nbuckets)
{
	struct family *f;
	int id;

	BUG_ON(!name || !valid_metric_name(name));
	BUG_ON((unsigned)type >= METRICS_TYPE_COUNT);
	BUG_ON(type != METRICS_HISTOGRAM && (buckets || nbuckets));
	BUG_ON(nbuckets > METRICS_MAX_BUCKETS || (nbuckets && !buckets));
	for (size_t i = 0; i < nbuckets; i++)
		BUG_ON(!isfinite(buckets[i]) ||
		       (i > 0 && !(buckets[i] > buckets[i - 1])));

	if (lookup(m, name, &id)) {
		f = &m->families.items[id];
		BUG_ON(f->type != type || !same_help(f->help, help));
		BUG_ON(f->nbounds != nbuckets);
		for (size_t i = 0; i < nbuckets; i++)
			BUG_ON(f->bounds[i] != buckets[i]);
		return id;
	}
	check_no_collision(m, name, type);
	BUG_ON(m->families.len >= INT32_MAX);

	id = (int)m->families.len;
	f = vec_push_zero(&m->families);
	f->name = xstrdup(name);
	f->help = help ? xstrdup(help) : NULL;
	f->type = type;
	f->nbounds = nbuckets;
	f->bounds = xcalloc(nbuckets, sizeof(*f->bounds));
	if (nbuckets)
		memcpy(f->bounds, buckets, nbuckets * sizeof(*buckets));
	hmap_init(&f->index);
	hmap_put_str(&m->index, f->name, id);
	return id;
}

static struct family *family_at(struct metrics *m, int fam)
{
	BUG_ON(fam < 0 || (size_t)fam >= m->families.len);
	return &m->families.items[fam];
}

static int pair_cmp(const void *a, const void *b)
{
	const struct label_pair *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static void add_escaped(struct strbuf *sb, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addstr(sb, "\\\\");
		else if (*s == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*s == '"' && quote)
			strbuf_addstr(sb, "\\\"");
		else
			strbuf_addch(sb, *s);
	}
}

/* Render labels into m->key: sorted by key, values escaped. */
static void render_labels(struct metrics *m, const struct family *f,
			  const char *const *labels)
{
	m->pairs.len = 0;
	strbuf_reset(&m->key);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		struct label_pair p = { labels[i], labels[i + 1] };

		BUG_ON(!p.value);
		BUG_ON(!valid_label_name(p.key));
		BUG_ON(f->type == METRICS_HISTOGRAM &&
		       strcmp(p.key, "le") == 0);
		vec_push(&m->pairs, p);
	}
	if (m->pairs.len > 1)
		qsort(m->pairs.items, m->pairs.len, sizeof(*m->pairs.items),
		      pair_cmp);
	for (size_t i = 0; i < m->pairs.len; i++) {
		const struct label_pair *p = &m->pairs.items[i];

		BUG_ON(i > 0 && strcmp(p[-1].key, p->key) == 0);
		if (i > 0)
			strbuf_addch(&m->key, ',');
		strbuf_addstr(&m->key, p->key);
		strbuf_addstr(&m->key, "=\"");
		add_escaped(&m->key, p->value, true);
		strbuf_addch(&m->key, '"');
	}
}

/* The series of labels in f, created at zero when new. The pointer is
 * valid until the next series of f is created. */
static struct series *series_get(struct metrics *m, struct family *f,
				 const char *const *labels)
{
	struct series *s;
	int64_t pos;

	render_labels(m, f, labels);
	if (hmap_get(&f->index, m->key.buf, m->key.len, &pos))
		return &f->series.items[pos];
	pos = (int64_t)f->series.len;
	s = vec_push_zero(&f->series);
	s->labels = xstrdup(m->key.buf);
	if (f->type == METRICS_HISTOGRAM)
		s->buckets = xcalloc(f->nbounds, sizeof(*s->buckets));
	hmap_put(&f->index, m->key.buf, m->key.len, pos);
	return s;
}

void metrics_add(struct metrics *m, int fam, const char *const *labels,
		 double v)
{
	struct family *f = family_at(m, fam);

	BUG_ON(f->type == METRICS_HISTOGRAM);
	BUG_ON(f->type == METRICS_COUNTER && !(v >= 0));
	series_get(m, f, labels)->value += v;
}

void metrics_set(struct metrics *m, int fam, const char *const *labels,
		 double v)
{
	struct family *f = family_at(m, fam);

	BUG_ON(f->type != METRICS_GAUGE);
	series_get(m, f, labels)->value = v;
}

void metrics_observe(struct metrics *m, int fam, const char *const *labels,
		     double v)
{
	struct family *f = family_at(m, fam);
	struct series *s;
	size_t lo = 0, hi = f->nbounds;

	BUG_ON(f->type != METRICS_HISTOGRAM);
	s = series_get(m, f, labels);
	/* the first bound >= v; none for NaN or above the last bound */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v <= f->bounds[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < f->nbounds)
		s->buckets[lo]++;
	s->count++;
	s->value += v;
}

void metrics_touch(struct metrics *m, int fam, const char *const *labels)
{
	series_get(m, family_at(m, fam), labels);
}

/* One spelling per value, so that equal registries write equal text. */
static void add_number(struct strbuf *sb, double v)
{
	char buf[40];

	if (isnan(v)) {
		strbuf_addstr(sb, "NaN");
	} else if (isinf(v)) {
		strbuf_addstr(sb, v > 0 ? "+Inf" : "-Inf");
	} else if (v == trunc(v) && fabs(v) < 1e15) {
		/* also turns -0 into 0 */
		strbuf_addf(sb, "%" PRId64, (int64_t)v);
	} else {
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		strbuf_addstr(sb, buf);
	}
}

static void add_sample(struct strbuf *out, const char *name, const char *sfx,
		       const char *labels, const char *le, double v)
{
	strbuf_addstr(out, name);
	strbuf_addstr(out, sfx);
	if (*labels || le) {
		strbuf_addch(out, '{');
		strbuf_addstr(out, labels);
		if (le) {
			if (*labels)
				strbuf_addch(out, ',');
			strbuf_addf(out, "le=\"%s\"", le);
		}
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, ' ');
	add_number(out, v);
	strbuf_addch(out, '\n');
}

static void write_histogram(const struct family *f, const struct series *s,
			    struct strbuf *out)
{
	struct strbuf le;
	uint64_t cum = 0;

	strbuf_init(&le);
	for (size_t i = 0; i < f->nbounds; i++) {
		cum += s->buckets[i];
		strbuf_reset(&le);
		add_number(&le, f->bounds[i]);
		add_sample(out, f->name, "_bucket", s->labels, le.buf,
			   (double)cum);
	}
	add_sample(out, f->name, "_bucket", s->labels, "+Inf",
		   (double)s->count);
	add_sample(out, f->name, "_sum", s->labels, NULL, s->value);
	add_sample(out, f->name, "_count", s->labels, NULL, (double)s->count);
	strbuf_release(&le);
}

static int series_cmp(const void *a, const void *b)
{
	const struct series *const *x = a, *const *y = b;

	return strcmp((*x)->labels, (*y)->labels);
}

static void write_family(const struct family *f, struct strbuf *out)
{
	const struct series **ord;
	size_t n = f->series.len;

	if (f->help) {
		strbuf_addf(out, "# HELP %s ", f->name);
		add_escaped(out, f->help, false);
		strbuf_addch(out, '\n');
	}
	strbuf_addf(out, "# TYPE %s %s\n", f->name, type_names[f->type]);

	ord = xcalloc(n, sizeof(*ord));
	for (size_t i = 0; i < n; i++)
		ord[i] = &f->series.items[i];
	qsort(ord, n, sizeof(*ord), series_cmp);
	for (size_t i = 0; i < n; i++) {
		if (f->type == METRICS_HISTOGRAM)
			write_histogram(f, ord[i], out);
		else
			add_sample(out, f->name, "", ord[i]->labels, NULL,
				   ord[i]->value);
	}
	free(ord);
}

static int family_cmp(const void *a, const void *b)
{
	const struct family *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

void metrics_write(const struct metrics *m, struct strbuf *out)
{
	size_t n = m->families.len;
	const struct family **ord = xcalloc(n, sizeof(*ord));

	for (size_t i = 0; i < n; i++)
		ord[i] = &m->families.items[i];
	qsort(ord, n, sizeof(*ord), family_cmp);
	for (size_t i = 0; i < n; i++)
		write_family(ord[i], out);
	free(ord);
}
