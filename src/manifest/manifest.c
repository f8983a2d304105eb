// SPDX-License-Identifier: Apache-2.0
/*
 * Loading manifests: read files and folders, parse YAML/JSON documents with
 * libfyaml, dispatch each document to the decoder of its apiVersion and
 * kind, and absorb a file into the cluster only when it had no error.
 */
#include "manifest/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/text.h"
#include "manifest/dec.h"

#include "base/banned.h"

typedef int (*decode_fn)(struct dec *x, struct ynode *root);

struct kind_decoder {
	const char *group;    /* apiVersion without the version */
	const char *versions; /* space-separated */
	const char *kind;
	decode_fn decode;
};

static const struct kind_decoder decoders[] = {
	{ "", "v1", "Namespace", dec_namespace },
	{ "", "v1", "Node", dec_node },
	{ "", "v1", "Pod", dec_pod },
	{ "scheduling.k8s.io", "v1", "PriorityClass", dec_pod_priority_class },
	{ "kueue.x-k8s.io", "v1alpha1 v1beta1 v1beta2", "Topology",
	  dec_topology },
	{ "kueue.x-k8s.io", "v1beta1 v1beta2", "ResourceFlavor", dec_flavor },
	{ "kueue.x-k8s.io", "v1beta1 v1beta2", "ClusterQueue",
	  dec_cluster_queue },
	{ "kueue.x-k8s.io", "v1alpha1 v1beta1 v1beta2", "Cohort", dec_cohort },
	{ "kueue.x-k8s.io", "v1beta1 v1beta2", "LocalQueue", dec_local_queue },
	{ "kueue.x-k8s.io", "v1beta1 v1beta2", "WorkloadPriorityClass",
	  dec_priority_class },
	{ "kueue.x-k8s.io", "v1beta1 v1beta2", "Workload", dec_workload },
	{ "batch", "v1", "Job", dec_job },
	{ "scheduling.x-k8s.io", "v1alpha1", "PodGroup", dec_pod_group },
	{ "echelon.dev", "v1alpha1", "Configuration", dec_config },
};

static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	/* strstr() finds "" everywhere: p would never advance. */
	if (len == 0)
		return false;
	for (const char *p = list; (p = strstr(p, word)); p += len) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return true;
	}
	return false;
}

/* Split "group/version" (or "version" for the core group). */
static void split_api_version(const char *av, char *group, size_t gsize,
			      const char **version)
{
	const char *slash = strrchr(av, '/');

	if (!slash) {
		group[0] = '\0';
		*version = av;
		return;
	}
	snprintf(group, gsize, "%.*s", (int)(slash - av), av);
	*version = slash + 1;
}

static const struct kind_decoder *find_decoder(struct dec *x,
					       struct ynode *root,
					       const char *av, const char *kind)
{
	const char *version;
	char group[256];
	bool kind_known = false;

	split_api_version(av, group, sizeof(group), &version);
	for (size_t i = 0; i < ARRAY_SIZE(decoders); i++) {
		const struct kind_decoder *kd = &decoders[i];

		if (strcmp(kd->kind, kind) != 0)
			continue;
		kind_known = true;
		if (strcmp(kd->group, group) == 0 &&
		    has_word(kd->versions, version)) {
			x->kueue_v1beta2 = strcmp(version, "v1beta2") == 0;
			x->kueue_v1alpha1 = strcmp(version, "v1alpha1") == 0;
			return kd;
		}
	}
	if (kind_known) {
		size_t len = dec_push(x, "apiVersion");

		dec_error(x, dec_get(root, "apiVersion"),
			  "unsupported apiVersion \"%s\" for kind %s", av,
			  kind);
		dec_pop(x, len);
	} else {
		size_t len = dec_push(x, "kind");

		dec_error(x, dec_get(root, "kind"),
			  "unknown kind \"%s\" (apiVersion \"%s\")", kind, av);
		dec_pop(x, len);
	}
	return NULL;
}

static int decode_object(struct dec *x, struct ynode *root, int depth);

static int decode_list(struct dec *x, struct ynode *root, int depth)
{
	struct ynode *items = dec_get(root, "items"), *item;
	size_t len, i = 0;
	int rc = 0;

	if (!items)
		return 0;
	len = dec_push(x, "items");
	if (dec_expect_seq(x, items) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	ynode_foreach(items, item)
	{
		size_t l2 = dec_push_index(x, i++);

		if (decode_object(x, item, depth + 1) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	dec_pop(x, len);
	return rc;
}

static int decode_object(struct dec *x, struct ynode *root, int depth)
{
	const char *av = NULL, *kind = NULL;
	const struct kind_decoder *kd;
	struct srcpos saved = x->obj_pos;
	int rc;

	if (dec_expect_map(x, root) < 0)
		return -EINVAL;
	x->obj_pos = dec_pos(x, root);
	rc = dec_str_field(x, root, "apiVersion", true, &av);
	if (dec_str_field(x, root, "kind", true, &kind) < 0 || rc < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (strcmp(kind, "List") == 0 && strcmp(av, "v1") == 0) {
		if (depth < 4) {
			rc = decode_list(x, root, depth);
		} else {
			size_t len = dec_push(x, "kind");

			dec_error(x, dec_get(root, "kind"),
				  "Lists may be nested at most 4 deep");
			dec_pop(x, len);
			rc = -EINVAL;
		}
		goto out;
	}
	kd = find_decoder(x, root, av, kind);
	rc = kd ? kd->decode(x, root) : -EINVAL;
out:
	x->obj_pos = saved;
	return rc;
}

/*
 * Manifests must be UTF-8 (as JSON and Kubernetes require). Checked before
 * libfyaml sees the text: its 0.7 scanner loops forever on some invalid
 * sequences in a directive line ("%\x80", found by fuzz_manifest). A NUL
 * byte is refused too: libfyaml takes it for the end of the input, so
 * whatever follows it would be ignored without a word.
 */
static int check_utf8(struct dec *x, const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t bad;
	int line, col;

	if (text_find_nul(buf, len, &line, &col) < len) {
		diag_add(x->d, DIAG_ERROR, x->file, line, col,
			 "invalid YAML: NUL byte (0x00) in the text");
		return -EINVAL;
	}
	bad = text_find_bad_utf8(buf, len);
	if (bad < len) {
		text_position(buf, bad, &line, &col);
		diag_add(x->d, DIAG_ERROR, x->file, line, col,
			 "invalid YAML: not UTF-8 (byte 0x%02x)", p[bad]);
		return -EINVAL;
	}
	return 0;
}

static int parse_documents(struct dec *x, const char *buf, size_t len,
			   bool json)
{
	struct yparser *p;
	struct ynode *root;
	int rc = 0, more;

	if (check_utf8(x, buf, len) < 0)
		return -EINVAL;
	p = yparser_new(buf, len, json, x->file, x->d);
	while ((more = yparser_next(p, &root)) > 0) {
		/* An empty document ("---" alone) is null: nothing in it. */
		if (!ynode_is_null(root) && decode_object(x, root, 0) < 0)
			rc = -EINVAL;
	}
	if (more < 0)
		rc = -EINVAL;
	yparser_free(p);
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Forget the resource names a rejected file registered, so that it leaves
 * no trace (and cannot use up RESOURCE_MAX for the files after it). */
static void forget_resources(struct resource_registry *r, int count)
{
	while (r->count > count) {
		r->count--;
		free(r->names[r->count]);
		r->names[r->count] = NULL;
	}
}

/* What one load decodes: a text of documents, or one JSON object. */
struct load_src {
	const char *buf;
	size_t len;
	const json_t *obj;
};

static int load(struct cluster *c, const char *name, const struct load_src *src,
		struct diag *d)
{
	int nresources = c->resources->count;
	struct cluster batch;
	struct diag local;
	struct dec x;
	int rc;

	diag_init(&local);
	cluster_init_batch(&batch, c);
	dec_init(&x, &batch, &local, cluster_str(c, name));
	if (src->obj) {
		struct ynode *root;
		struct yjson *t = yjson_new(src->obj, &root);

		rc = decode_object(&x, root, 0);
		yjson_free(t);
	} else {
		rc = parse_documents(&x, src->buf, src->len,
				     ends_with(name, ".json"));
	}
	if (local.errors)
		rc = -EINVAL;
	if (rc == 0 && cluster_absorb(c, &batch, &local) < 0)
		rc = -EINVAL;
	dec_release(&x);
	cluster_release(&batch);
	if (rc < 0)
		forget_resources(c->resources, nresources);
	diag_move(d, &local);
	return rc;
}

int manifest_load_buffer(struct cluster *c, const char *name, const char *buf,
			 size_t len, struct diag *d)
{
	struct load_src src = { buf, len, NULL };

	return load(c, name, &src, d);
}

int manifest_load_json(struct cluster *c, const char *name, const json_t *obj,
		       struct diag *d)
{
	struct load_src src = { NULL, 0, obj };

	return load(c, name, &src, d);
}

int manifest_pod_requests(struct cluster *c, const json_t *spec,
			  struct resvec *ret)
{
	static const char *const fields[] = { "containers", "initContainers",
					      "overhead" };
	int nresources = c->resources->count;
	json_t *only = json_object();
	struct dec_pod_spec ps;
	struct cluster batch;
	struct ynode *root;
	struct yjson *t;
	struct diag d;
	struct dec x;
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		json_t *v = json_object_get(spec, fields[i]);

		if (v)
			json_object_set(only, fields[i], v);
	}
	diag_init(&d);
	cluster_init_batch(&batch, c);
	dec_init(&x, &batch, &d, cluster_str(c, "spec"));
	dec_pod_spec_init(&ps);
	t = yjson_new(only, &root);
	rc = dec_pod_spec(&x, root, &ps);
	if (d.errors)
		rc = -EINVAL;
	if (rc == 0)
		*ret = ps.requests;
	else
		forget_resources(c->resources, nresources);
	yjson_free(t);
	dec_pod_spec_release(&ps);
	dec_release(&x);
	cluster_release(&batch);
	diag_release(&d);
	json_decref(only);
	return rc;
}

static int read_stream(FILE *f, const char *path, struct strbuf *out,
		       struct diag *d)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->len + n > MANIFEST_MAX_FILE_BYTES) {
			diag_add(d, DIAG_ERROR, path, 0, 0,
				 "file is larger than %u bytes",
				 MANIFEST_MAX_FILE_BYTES);
			return -EFBIG;
		}
		strbuf_add(out, chunk, n);
	}
	if (ferror(f)) {
		diag_add(d, DIAG_ERROR, path, 0, 0, "read error: %s",
			 strerror(errno));
		return -EIO;
	}
	return 0;
}

static int load_file(struct cluster *c, const char *path, struct diag *d)
{
	struct strbuf sb;
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	int rc;

	if (!f) {
		diag_add(d, DIAG_ERROR, path, 0, 0, "cannot open: %s",
			 strerror(errno));
		return -errno;
	}
	strbuf_init(&sb);
	rc = read_stream(f, is_stdin ? "<stdin>" : path, &sb, d);
	if (!is_stdin)
		fclose(f);
	if (rc == 0)
		rc = manifest_load_buffer(c, is_stdin ? "<stdin>" : path,
					  sb.buf, sb.len, d);
	strbuf_release(&sb);
	return rc;
}

static bool manifest_name(const char *name)
{
	return name[0] != '.' &&
	       (ends_with(name, ".yaml") || ends_with(name, ".yml") ||
		ends_with(name, ".json"));
}

/* Every object in c. */
static size_t objects(const struct cluster *c)
{
	size_t n = 0;

	for (int k = 0; k < KIND_COUNT; k++)
		n += cluster_count(c, (enum kind)k);
	return n;
}

static int load_path(struct cluster *c, const char *path, int depth,
		     size_t *files, struct diag *d);

/*
 * A folder's entries in name order. Hidden entries are skipped, and so are
 * files whose names do not end in .yaml, .yml or .json; an entry that
 * cannot be looked at (a dangling symlink, a symlink loop, no permission)
 * is an error, as it is when given directly.
 */
static int load_dir(struct cluster *c, const char *path, int depth,
		    size_t *files, struct diag *d)
{
	struct dirent **ents;
	size_t before = *files;
	int n, rc = 0;

	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		diag_add(d, DIAG_ERROR, path, 0, 0, "cannot read folder: %s",
			 strerror(errno));
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *child = xasprintf("%s/%s", path, name);
		struct stat st;

		if (name[0] == '.') {
			/* hidden, and "." and ".." */
		} else if (stat(child, &st) < 0) {
			diag_add(d, DIAG_ERROR, child, 0, 0, "cannot open: %s",
				 strerror(errno));
			rc = -EINVAL;
		} else if ((S_ISDIR(st.st_mode) || manifest_name(name)) &&
			   load_path(c, child, depth + 1, files, d) < 0) {
			rc = -EINVAL;
		}
		free(child);
		free(ents[i]);
	}
	free(ents);
	if (rc == 0 && *files == before)
		diag_add(d, DIAG_WARNING, path, 0, 0,
			 "no .yaml, .yml or .json file in this folder");
	return rc;
}

static int load_path(struct cluster *c, const char *path, int depth,
		     size_t *files, struct diag *d)
{
	struct stat st;
	size_t before;
	int rc;

	if (strcmp(path, "-") != 0 && stat(path, &st) < 0) {
		diag_add(d, DIAG_ERROR, path, 0, 0, "cannot open: %s",
			 strerror(errno));
		return -ENOENT;
	}
	if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
		if (depth > 32) {
			diag_add(d, DIAG_ERROR, path, 0, 0,
				 "folders nested too deeply");
			return -ELOOP;
		}
		return load_dir(c, path, depth, files, d);
	}
	if (++*files > MANIFEST_MAX_FILES) {
		diag_add(d, DIAG_ERROR, path, 0, 0, "more than %u files",
			 MANIFEST_MAX_FILES);
		return -E2BIG;
	}
	before = objects(c);
	rc = load_file(c, path, d);
	if (rc == 0 && objects(c) == before)
		diag_add(d, DIAG_WARNING,
			 strcmp(path, "-") == 0 ? "<stdin>" : path, 0, 0,
			 "no object found (the input is empty or holds only "
			 "comments)");
	return rc;
}

int manifest_load_paths(struct cluster *c, const char *const *paths,
			size_t npaths, struct diag *d)
{
	size_t files = 0, before = objects(c), errors = d->errors;
	int rc = 0;

	for (size_t i = 0; i < npaths; i++) {
		if (load_path(c, paths[i], 0, &files, d) < 0)
			rc = -EINVAL;
	}
	/* Nothing to work on: say so rather than succeed on nothing. */
	if (npaths && rc == 0 && d->errors == errors && objects(c) == before) {
		diag_add(d, DIAG_ERROR, NULL, 0, 0,
			 "no object found in the input (%zu file%s read)",
			 files, files == 1 ? "" : "s");
		rc = -ENODATA;
	}
	cluster_compute_usage(c, d);
	return rc;
}
