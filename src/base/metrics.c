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
	/* Recorded samples (metrics_sample()), kept as changes: entry k
	 * holds the value from the registry's sample at[k] on, until the
	 * next entry; a value is one number, or for a histogram its
	 * per-bound counts, count and sum (stride()). */
	VEC(uint32_t) at;
	VEC(double) hist;
	bool dirty; /* recorded since the last sample: in metrics.dirty */
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
	VEC(int64_t) times; /* of the recorded samples, ms */
	/* series recorded since the last sample: the only ones that may
	 * have changed; family id << 32 | position */
	VEC(uint64_t) dirty;
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
			vec_release(&s->hist);
			vec_release(&s->at);
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
	vec_release(&m->times);
	vec_release(&m->dirty);
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

void metrics_register(struct metrics *m, const struct metrics_def *defs,
		      size_t n, int *ids)
{
	for (size_t i = 0; i < n; i++)
		ids[i] = metrics_family(m, defs[i].name, defs[i].help,
					defs[i].type, defs[i].buckets,
					defs[i].nbuckets);
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
	/* most text needs no escape: one copy */
	size_t plain = strcspn(s, quote ? "\\\n\"" : "\\\n");

	strbuf_add(sb, s, plain);
	for (s += plain; *s; s++) {
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
	/* a few pairs: insertion sort, nothing to do when sorted */
	for (size_t i = 1; i < m->pairs.len; i++) {
		struct label_pair p = m->pairs.items[i];
		size_t j = i;

		for (; j > 0 && pair_cmp(&m->pairs.items[j - 1], &p) > 0; j--)
			m->pairs.items[j] = m->pairs.items[j - 1];
		m->pairs.items[j] = p;
	}
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

/* s of f is about to change: the next sample looks at it. */
static struct series *mark(struct metrics *m, struct family *f,
			   struct series *s)
{
	if (!s->dirty) {
		s->dirty = true;
		vec_push(&m->dirty, (uint64_t)(f - m->families.items) << 32 |
					    (uint64_t)(s - f->series.items));
	}
	return s;
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
		return mark(m, f, &f->series.items[pos]);
	pos = (int64_t)f->series.len;
	s = vec_push_zero(&f->series);
	s->labels = xstrdup(m->key.buf);
	if (f->type == METRICS_HISTOGRAM)
		s->buckets = xcalloc(f->nbounds, sizeof(*s->buckets));
	hmap_put(&f->index, m->key.buf, m->key.len, pos);
	return mark(m, f, s);
}

static void add(const struct family *f, struct series *s, double v)
{
	BUG_ON(f->type == METRICS_HISTOGRAM);
	BUG_ON(f->type == METRICS_COUNTER && !(v >= 0));
	s->value += v;
}

void metrics_add(struct metrics *m, int fam, const char *const *labels,
		 double v)
{
	struct family *f = family_at(m, fam);

	add(f, series_get(m, f, labels), v);
}

void metrics_set(struct metrics *m, int fam, const char *const *labels,
		 double v)
{
	struct family *f = family_at(m, fam);

	BUG_ON(f->type != METRICS_GAUGE);
	series_get(m, f, labels)->value = v;
}

static void observe(const struct family *f, struct series *s, double v)
{
	size_t lo = 0, hi = f->nbounds;

	BUG_ON(f->type != METRICS_HISTOGRAM);
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

void metrics_observe(struct metrics *m, int fam, const char *const *labels,
		     double v)
{
	struct family *f = family_at(m, fam);

	observe(f, series_get(m, f, labels), v);
}

void metrics_touch(struct metrics *m, int fam, const char *const *labels)
{
	series_get(m, family_at(m, fam), labels);
}

/* A handle: the family id above, the series' position below; series are
 * never removed, so positions stay. */
int64_t metrics_handle(struct metrics *m, int fam, const char *const *labels)
{
	struct family *f = family_at(m, fam);
	struct series *s = series_get(m, f, labels);

	return (int64_t)fam << 32 | (int64_t)(s - f->series.items);
}

/* The family and series of handle h. */
static struct series *handle_series(struct metrics *m, int64_t h,
				    struct family **ret_f)
{
	struct family *f = family_at(m, (int)(h >> 32));
	size_t pos = (size_t)(h & 0xffffffff);

	BUG_ON(pos >= f->series.len);
	*ret_f = f;
	return mark(m, f, &f->series.items[pos]);
}

void metrics_add_handle(struct metrics *m, int64_t h, double v)
{
	struct family *f;
	struct series *s = handle_series(m, h, &f);

	add(f, s, v);
}

void metrics_set_handle(struct metrics *m, int64_t h, double v)
{
	struct family *f;
	struct series *s = handle_series(m, h, &f);

	BUG_ON(f->type != METRICS_GAUGE);
	s->value = v;
}

void metrics_observe_handle(struct metrics *m, int64_t h, double v)
{
	struct family *f;
	struct series *s = handle_series(m, h, &f);

	observe(f, s, v);
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

/* Values one recorded sample of a series of f takes. */
static size_t stride(const struct family *f)
{
	return f->type == METRICS_HISTOGRAM ? f->nbounds + 2 : 1;
}

/* The values of s now, as a sample holds them, into v[stride]. */
static void values_now(const struct family *f, const struct series *s,
		       double *v)
{
	if (f->type != METRICS_HISTOGRAM) {
		v[0] = s->value;
		return;
	}
	for (size_t i = 0; i < f->nbounds; i++)
		v[i] = (double)s->buckets[i];
	v[f->nbounds] = (double)s->count;
	v[f->nbounds + 1] = s->value;
}

void metrics_sample(struct metrics *m, int64_t t_ms)
{
	double one[METRICS_MAX_BUCKETS + 2];

	BUG_ON(m->times.len && t_ms <= m->times.items[m->times.len - 1]);
	BUG_ON(m->times.len >= UINT32_MAX);
	/* only what was recorded since may differ from its last change */
	vec_foreach (&m->dirty, d) {
		struct family *f = &m->families.items[*d >> 32];
		struct series *s = &f->series.items[*d & 0xffffffff];
		size_t w = stride(f);

		s->dirty = false;
		values_now(f, s, one);
		/* unchanged (bit for bit, NaN too): nothing to keep */
		if (s->at.len && memcmp(&s->hist.items[s->hist.len - w], one,
					w * sizeof(*one)) == 0)
			continue;
		vec_push(&s->at, (uint32_t)m->times.len);
		vec_reserve(&s->hist, s->hist.len + w);
		memcpy(&s->hist.items[s->hist.len], one, w * sizeof(*one));
		s->hist.len += w;
	}
	m->dirty.len = 0;
	vec_push(&m->times, t_ms);
}

/*
 * Keep the samples at even positions: sample j is the old sample 2j, whose
 * value is the last change at or before it. A change at old position a
 * so moves to (a + 1) / 2, and of two that land on one position the later
 * stays.
 */
void metrics_thin(struct metrics *m)
{
	size_t k = 0;

	vec_foreach (&m->families, f) {
		size_t w = stride(f);

		vec_foreach (&f->series, s) {
			size_t kept = 0;

			for (size_t i = 0; i < s->at.len; i++) {
				uint32_t a = (s->at.items[i] + 1) / 2;

				if (kept && s->at.items[kept - 1] == a)
					kept--; /* the later one stays */
				s->at.items[kept] = a;
				memmove(&s->hist.items[kept * w],
					&s->hist.items[i * w],
					w * sizeof(*s->hist.items));
				kept++;
			}
			s->at.len = kept;
			s->hist.len = kept * w;
		}
	}
	for (size_t i = 0; i < m->times.len; i += 2)
		m->times.items[k++] = m->times.items[i];
	m->times.len = k;
}

size_t metrics_samples(const struct metrics *m)
{
	return m->times.len;
}

size_t metrics_sample_lines(const struct metrics *m)
{
	size_t n = 0;

	vec_foreach (&m->families, f)
		n += f->series.len *
		     (f->type == METRICS_HISTOGRAM ? f->nbounds + 3 : 1);
	return n;
}

/* A family of one of several registries being written together. */
struct member {
	const struct family *f;
	const struct metrics *m;
	size_t reg; /* index in the caller's array: the tie-break */
};

struct entry {
	const struct series *s;
	const struct member *mb;
};

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->f->name, y->f->name);

	if (c)
		return c;
	return x->reg < y->reg ? -1 : x->reg > y->reg;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->s->labels, y->s->labels);

	/* the same labels in two registries: a caller's error */
	BUG_ON(!c && x->s != y->s);
	return c;
}

/* The families of ms[0..n), sorted by name; *ret_n of them. */
static struct member *members(const struct metrics *const *ms, size_t n,
			      size_t *ret_n)
{
	size_t total = 0, k = 0;
	struct member *mb;

	for (size_t r = 0; r < n; r++)
		total += ms[r]->families.len;
	mb = xcalloc(total ? total : 1, sizeof(*mb));
	for (size_t r = 0; r < n; r++)
		vec_foreach (&ms[r]->families, f)
			mb[k++] = (struct member){ f, ms[r], r };
	qsort(mb, total, sizeof(*mb), member_cmp);
	*ret_n = total;
	return mb;
}

/* BUG unless a and b are the same definition. */
static void check_same(const struct family *a, const struct family *b)
{
	BUG_ON(a->type != b->type || !same_help(a->help, b->help));
	BUG_ON(a->nbounds != b->nbounds);
	for (size_t i = 0; i < a->nbounds; i++)
		BUG_ON(a->bounds[i] != b->bounds[i]);
}

/* The series of group mb[0..n) (one family name), sorted by labels. */
static struct entry *entries(const struct member *mb, size_t n, size_t *ret_n)
{
	size_t total = 0, k = 0;
	struct entry *e;

	for (size_t i = 0; i < n; i++) {
		check_same(mb[0].f, mb[i].f);
		total += mb[i].f->series.len;
	}
	e = xcalloc(total ? total : 1, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		vec_foreach (&mb[i].f->series, s)
			e[k++] = (struct entry){ s, &mb[i] };
	qsort(e, total, sizeof(*e), entry_cmp);
	*ret_n = total;
	return e;
}

static void write_header(const struct family *f, const char *name, bool om,
			 struct strbuf *out)
{
	static const char *const om_types[METRICS_TYPE_COUNT] = {
		[METRICS_COUNTER] = "counter",
		[METRICS_GAUGE] = "gauge",
		[METRICS_HISTOGRAM] = "histogram",
	};

	if (om)
		strbuf_addf(out, "# TYPE %s %s\n", name, om_types[f->type]);
	if (f->help) {
		strbuf_addf(out, "# HELP %s ", name);
		for (const char *p = f->help; *p; p++) {
			if (*p == '\\')
				strbuf_addstr(out, "\\\\");
			else if (*p == '\n')
				strbuf_addstr(out, "\\n");
			else if (*p == '"' && om)
				strbuf_addstr(out, "\\\"");
			else
				strbuf_addch(out, *p);
		}
		strbuf_addch(out, '\n');
	}
	if (!om)
		strbuf_addf(out, "# TYPE %s %s\n", name, type_names[f->type]);
}

/* Write the group of families mb[0..n) that share a name. */
static void write_group(const struct member *mb, size_t n, struct strbuf *out)
{
	const struct family *f = mb[0].f;
	size_t ne;
	struct entry *e = entries(mb, n, &ne);

	write_header(f, f->name, false, out);
	for (size_t i = 0; i < ne; i++) {
		if (f->type == METRICS_HISTOGRAM)
			write_histogram(f, e[i].s, out);
		else
			add_sample(out, f->name, "", e[i].s->labels, NULL,
				   e[i].s->value);
	}
	free(e);
}

void metrics_write_all(const struct metrics *const *ms, size_t n,
		       struct strbuf *out)
{
	size_t nm;
	struct member *mb = members(ms, n, &nm);

	for (size_t i = 0, j; i < nm; i = j) {
		for (j = i + 1;
		     j < nm && strcmp(mb[i].f->name, mb[j].f->name) == 0; j++)
			;
		write_group(&mb[i], j - i, out);
	}
	free(mb);
}

void metrics_write(const struct metrics *m, struct strbuf *out)
{
	metrics_write_all(&m, 1, out);
}

/* " <seconds>" of a sample at t_ms after epoch_s, exact to the ms. */
static void add_timestamp(struct strbuf *out, int64_t epoch_s, int64_t t_ms)
{
	int64_t ms = epoch_s * 1000 + t_ms;

	BUG_ON(ms < 0);
	strbuf_addf(out, " %" PRId64, ms / 1000);
	if (ms % 1000)
		strbuf_addf(out, ".%03" PRId64, ms % 1000);
	strbuf_addch(out, '\n');
}

/* One OpenMetrics sample line without its newline's timestamp. */
static void add_om_sample(struct strbuf *out, const char *name, const char *sfx,
			  const char *labels, const char *le, double v)
{
	add_sample(out, name, sfx, labels, le, v);
	out->len--; /* the timestamp follows */
	out->buf[out->len] = '\0';
}

/* Every sample of s from its first: the value of its last change. */
static void write_om_series(const struct family *f, const char *sample_sfx,
			    const struct series *s, const struct metrics *m,
			    int64_t epoch_s, struct strbuf *out)
{
	size_t w = stride(f), e = 0;
	struct strbuf le;

	if (!s->at.len)
		return;
	strbuf_init(&le);
	for (size_t k = s->at.items[0]; k < m->times.len; k++) {
		const double *v;
		int64_t t = m->times.items[k];
		double cum = 0;

		while (e + 1 < s->at.len && s->at.items[e + 1] <= k)
			e++;
		v = &s->hist.items[e * w];
		if (f->type != METRICS_HISTOGRAM) {
			add_om_sample(out, f->name, sample_sfx, s->labels, NULL,
				      v[0]);
			add_timestamp(out, epoch_s, t);
			continue;
		}
		for (size_t i = 0; i < f->nbounds; i++) {
			cum += v[i];
			strbuf_reset(&le);
			add_number(&le, f->bounds[i]);
			add_om_sample(out, f->name, "_bucket", s->labels,
				      le.buf, cum);
			add_timestamp(out, epoch_s, t);
		}
		add_om_sample(out, f->name, "_bucket", s->labels, "+Inf",
			      v[f->nbounds]);
		add_timestamp(out, epoch_s, t);
		add_om_sample(out, f->name, "_count", s->labels, NULL,
			      v[f->nbounds]);
		add_timestamp(out, epoch_s, t);
		add_om_sample(out, f->name, "_sum", s->labels, NULL,
			      v[f->nbounds + 1]);
		add_timestamp(out, epoch_s, t);
	}
	strbuf_release(&le);
}

/* OpenMetrics names a counter's family without its _total. */
static void write_om_group(const struct member *mb, size_t n, int64_t epoch_s,
			   struct strbuf *out)
{
	const struct family *f = mb[0].f;
	size_t ne, len = strlen(f->name);
	struct entry *e = entries(mb, n, &ne);
	bool total = f->type == METRICS_COUNTER && len > 6 &&
		     strcmp(f->name + len - 6, "_total") == 0;
	struct strbuf name;

	strbuf_init(&name);
	strbuf_add(&name, f->name, total ? len - 6 : len);
	write_header(f, name.buf, true, out);
	for (size_t i = 0; i < ne; i++)
		write_om_series(
			f, f->type == METRICS_COUNTER && !total ? "_total" : "",
			e[i].s, e[i].mb->m, epoch_s, out);
	strbuf_release(&name);
	free(e);
}

void metrics_write_openmetrics(const struct metrics *const *ms, size_t n,
			       int64_t epoch_s, struct strbuf *out)
{
	size_t nm;
	struct member *mb = members(ms, n, &nm);

	for (size_t i = 0, j; i < nm; i = j) {
		for (j = i + 1;
		     j < nm && strcmp(mb[i].f->name, mb[j].f->name) == 0; j++)
			;
		write_om_group(&mb[i], j - i, epoch_s, out);
	}
	strbuf_addstr(out, "# EOF\n");
	free(mb);
}
