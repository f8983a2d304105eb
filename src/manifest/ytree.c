// SPDX-License-Identifier: Apache-2.0
/*
 * Building compact document trees from libfyaml's event stream. Open
 * containers keep their children on one shared stack; when a container
 * ends, its slice of the stack is copied into the arena as its kids array.
 */
#include "manifest/ytree.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/vec.h"

#include "base/banned.h"

#define CHUNK_SIZE (64 * 1024)
#define MAX_DEPTH  256

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct open {
	struct ynode *node;
	size_t base; /* first child on the stack */
};

struct yparser {
	struct fy_parser *fyp;
	struct fy_diag *diag;
	struct diag *d;
	const char *file;
	bool failed;
	char *text_msg; /* first error printed as text (on_text) */
	int text_line, text_col;
	struct chunk *chunks;
	VEC(struct ynode *) stack;
	VEC(struct open) open;
};

static void *arena_alloc(struct yparser *p, size_t size)
{
	struct chunk *c = p->chunks;
	void *mem;

	size = (size + 15) & ~(size_t)15;
	if (!c || c->used + size > c->size) {
		size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = xmalloc(sizeof(*c) + cap);
		c->size = cap;
		c->used = 0;
		c->next = p->chunks;
		p->chunks = c;
	}
	mem = c->data + c->used;
	c->used += size;
	return mem;
}

/* Free every chunk but one, and reuse that one from the start. */
static void arena_reset(struct yparser *p)
{
	struct chunk *c = p->chunks, *next;

	if (!c)
		return;
	for (next = c->next; next;) {
		struct chunk *n = next->next;

		free(next);
		next = n;
	}
	c->next = NULL;
	c->used = 0;
}

/*
 * libfyaml reports an error at a token either as text, followed by the source
 * line with the token underlined, or by adding it to a list on the diag
 * object. Version 0.7.12 cannot always print the underline: for a quoted
 * scalar that spans several lines wider than 80 columns and opens far to the
 * right, the '~' run of a later line overruns a buffer on its stack, and no
 * diag setting turns the underline off (found by fuzz_manifest). So errors
 * are collected (yparser_new) and read back here, with their position as
 * numbers. Each is read once: after the first, the parser stops for good.
 */
static void report_collected(struct yparser *p)
{
	struct fy_diag_error *err;
	void *iter = NULL;

	while ((err = fy_diag_errors_iterate(p->diag, &iter))) {
		if (err->type < FYET_ERROR)
			continue;
		diag_add(p->d, DIAG_ERROR, p->file, err->line, err->column,
			 "invalid YAML: %.*s", (int)strcspn(err->msg, "\n"),
			 err->msg);
		p->failed = true;
	}
}

/*
 * An error at no token is still printed, as "<line:col>: [ERR]: msg" with a
 * 0-based position (show_position), such as "indentation indicator 0" for
 * "|0". Only the first is kept: yparser_next() reports it when the stream
 * fails and nothing was collected.
 */
static void on_text(struct fy_diag *diag, void *user, const char *buf,
		    size_t len)
{
	struct yparser *p = user;
	char *text = xstrndup(buf, len), *msg, *end;

	(void)diag;
	msg = strstr(text, "[ERR]: ");
	if (msg && !p->text_msg) {
		if (text[0] == '<') {
			p->text_line = (int)strtol(text + 1, &end, 10) + 1;
			if (*end == ':')
				p->text_col =
					(int)strtol(end + 1, NULL, 10) + 1;
		}
		msg += strlen("[ERR]: ");
		msg[strcspn(msg, "\n")] = '\0';
		p->text_msg = xstrdup(msg);
	}
	free(text);
}

struct yparser *yparser_new(const char *buf, size_t len, bool json,
			    const char *file, struct diag *d)
{
	struct yparser *p = xcalloc(1, sizeof(*p));
	struct fy_diag_cfg dcfg;
	struct fy_parse_cfg cfg;

	p->d = d;
	p->file = file;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = on_text;
	dcfg.user = p;
	dcfg.level = FYET_ERROR;
	dcfg.colorize = false;
	dcfg.show_source = false;
	dcfg.show_position = true;
	p->diag = fy_diag_create(&dcfg);
	BUG_ON(!p->diag);
	fy_diag_set_collect_errors(p->diag, true);
	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = FYPCF_QUIET | (json ? FYPCF_JSON_FORCE : FYPCF_JSON_NONE);
	cfg.diag = p->diag;
	p->fyp = fy_parser_create(&cfg);
	BUG_ON(!p->fyp);
	BUG_ON(fy_parser_set_string(p->fyp, buf, len) != 0);
	return p;
}

void yparser_free(struct yparser *p)
{
	if (!p)
		return;
	fy_parser_destroy(p->fyp);
	fy_diag_destroy(p->diag);
	free(p->text_msg);
	arena_reset(p);
	free(p->chunks);
	vec_release(&p->stack);
	vec_release(&p->open);
	free(p);
}

static struct ynode *new_node(struct yparser *p, struct fy_event *e,
			      enum ynode_type type)
{
	struct ynode *n = arena_alloc(p, sizeof(*n));
	const struct fy_mark *m = fy_event_start_mark(e);

	memset(n, 0, sizeof(*n));
	n->type = type;
	n->line = m ? m->line + 1 : 0;
	n->col = m ? m->column + 1 : 0;
	return n;
}

static void set_text(struct yparser *p, struct ynode *n, struct fy_token *t)
{
	size_t len = 0;
	const char *s = t ? fy_token_get_text(t, &len) : NULL;
	char *copy = arena_alloc(p, len + 1);

	if (len)
		memcpy(copy, s, len);
	copy[len] = '\0';
	n->text = copy;
	n->len = len;
}

/* Report key b as a duplicate of key a; returns -1. */
static int duplicate(struct yparser *p, const struct ynode *a,
		     const struct ynode *b)
{
	diag_add(p->d, DIAG_ERROR, p->file, b->line, b->col,
		 "invalid YAML: duplicate key \"%s\" (first at line %d, "
		 "column %d)",
		 b->text, a->line, a->col);
	p->failed = true;
	return -1;
}

static bool same_key(const struct ynode *a, const struct ynode *b)
{
	return a->type == YNODE_SCALAR && b->type == YNODE_SCALAR &&
	       a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

/*
 * YAML 1.2 and Kubernetes' strict decoding refuse a mapping that holds a
 * key twice; libfyaml's event stream does not check. keys[0], keys[2]...
 * are the keys. Small mappings are compared pairwise, larger ones through
 * a hash set, so a mapping of 300,000 annotations costs linear time.
 */
static int check_keys(struct yparser *p, struct ynode **kv, size_t npairs)
{
	struct hmap seen;
	int rc = 0;

	if (npairs <= 16) {
		for (size_t i = 1; i < npairs; i++) {
			for (size_t j = 0; j < i; j++) {
				if (same_key(kv[2 * j], kv[2 * i]))
					return duplicate(p, kv[2 * j],
							 kv[2 * i]);
			}
		}
		return 0;
	}
	hmap_init(&seen);
	for (size_t i = 0; i < npairs && !rc; i++) {
		const struct ynode *k = kv[2 * i];
		int64_t first;

		if (k->type != YNODE_SCALAR)
			continue;
		if (hmap_get(&seen, k->text, k->len, &first))
			rc = duplicate(p, kv[2 * first], k);
		else
			hmap_put(&seen, k->text, k->len, (int64_t)i);
	}
	hmap_release(&seen);
	return rc;
}

static int close_container(struct yparser *p)
{
	struct open o = vec_pop(&p->open);
	size_t count = p->stack.len - o.base;

	o.node->kids = arena_alloc(p, count * sizeof(*o.node->kids) + 1);
	/* An empty collection before any other node: items is still NULL,
	 * and memcpy() from NULL is undefined even for 0 bytes. */
	if (count)
		memcpy(o.node->kids, p->stack.items + o.base,
		       count * sizeof(*o.node->kids));
	o.node->n = o.node->type == YNODE_MAP ? count / 2 : count;
	p->stack.len = o.base;
	if (o.node->type == YNODE_MAP)
		return check_keys(p, o.node->kids, o.node->n);
	return 0;
}

/* Handle one event; returns 1 when the document is complete. */
static int on_event(struct yparser *p, struct fy_event *e, struct ynode **root)
{
	struct ynode *n = NULL;

	switch (e->type) {
	case FYET_SCALAR:
		n = new_node(p, e, YNODE_SCALAR);
		n->plain = fy_token_scalar_style(e->scalar.value) == FYSS_PLAIN;
		set_text(p, n, e->scalar.value);
		break;
	case FYET_ALIAS:
		n = new_node(p, e, YNODE_ALIAS);
		set_text(p, n, e->alias.anchor);
		break;
	case FYET_MAPPING_START:
	case FYET_SEQUENCE_START:
		n = new_node(p, e,
			     e->type == FYET_MAPPING_START ? YNODE_MAP
							   : YNODE_SEQ);
		break;
	case FYET_MAPPING_END:
	case FYET_SEQUENCE_END:
		return close_container(p);
	case FYET_DOCUMENT_END:
		return 1;
	default:
		return 0;
	}
	if (p->open.len == 0)
		*root = n;
	else
		vec_push(&p->stack, n);
	if (n->type == YNODE_MAP || n->type == YNODE_SEQ) {
		if (p->open.len >= MAX_DEPTH) {
			diag_add(p->d, DIAG_ERROR, p->file, n->line, n->col,
				 "invalid YAML: nested deeper than %d levels",
				 MAX_DEPTH);
			p->failed = true;
			return -1;
		}
		vec_push(&p->open,
			 ((struct open){ .node = n, .base = p->stack.len }));
	}
	return 0;
}

int yparser_next(struct yparser *p, struct ynode **ret_root)
{
	struct ynode *root = NULL;
	struct fy_event *e;
	bool started = false;
	int done = 0;

	arena_reset(p);
	p->stack.len = 0;
	p->open.len = 0;
	while (!p->failed && !done && (e = fy_parser_parse(p->fyp))) {
		if (e->type == FYET_DOCUMENT_START)
			started = true;
		done = on_event(p, e, &root);
		fy_parser_event_free(p->fyp, e);
		report_collected(p);
	}
	if (!p->failed)
		report_collected(p);
	if (!p->failed && fy_parser_get_stream_error(p->fyp)) {
		diag_add(p->d, DIAG_ERROR, p->file, p->text_line, p->text_col,
			 "invalid YAML%s%s", p->text_msg ? ": " : "",
			 p->text_msg ? p->text_msg : "");
		p->failed = true;
	}
	if (p->failed)
		return -EINVAL;
	if (!started)
		return 0;
	*ret_root = root;
	return 1;
}

struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	size_t len;

	if (!map || map->type != YNODE_MAP)
		return NULL;
	len = strlen(key);
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->kids[2 * i];

		if (k->type == YNODE_SCALAR && k->len == len &&
		    memcmp(k->text, key, len) == 0)
			return ynode_is_null(map->kids[2 * i + 1])
				       ? NULL
				       : map->kids[2 * i + 1];
	}
	return NULL;
}

bool ynode_is_null(const struct ynode *n)
{
	if (!n)
		return true;
	if (n->type != YNODE_SCALAR || !n->plain)
		return false;
	return n->len == 0 || strcmp(n->text, "~") == 0 ||
	       strcmp(n->text, "null") == 0 || strcmp(n->text, "Null") == 0 ||
	       strcmp(n->text, "NULL") == 0;
}
