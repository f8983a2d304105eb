/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Job traces: the jobs a simulation submits, read from echelon's JSONL
 * format (here) or the Microsoft ITP 2021 CSV (sim/itp.h), or generated
 * (sim/synth.h).
 *
 * A job is a gang of `pods` identical pods with per-pod requests (one
 * "pods" unit included), submitted at submit_us and running duration_us
 * when placed ideally (the throughput model stretches it otherwise). A
 * trace owns its job array; names, queues and levels are interned in the
 * string table given to trace_init(), and resource ids come from the
 * registry given there; both must outlive the trace.
 *
 * Readers never crash on bad input: every problem is reported in a struct
 * diag as "file:line:col: field: what is wrong", and a file with any error
 * adds no job at all (its new names stay interned, its new resource names
 * registered: both are harmless). Lines longer than TRACE_MAX_LINE bytes
 * are errors, and a trace never holds more than max_jobs jobs.
 *
 * The JSONL format, one job per line (blank lines and lines starting with
 * '#' are skipped; unknown fields are warnings):
 *
 *   {"name": "j1", "submit_s": 0, "duration_s": 3600, "pods": 2,
 *    "requests": {"nvidia.com/gpu": 8, "cpu": "96", "memory": "1Ti"},
 *    "queue": "team-a", "class": "large", "priority": 100, "minCount": 1,
 *    "topology": {"required": "rack"}}
 *
 * name (unique in the trace), submit_s (>= 0) and duration_s (> 0, seconds,
 * may have a fraction, kept to the microsecond) are required; pods
 * defaults to 1, minCount to pods, priority to 0; class (a job class for
 * per-class figures, workload_class_valid()) to none; parallelism (the
 * throughput model's class: data, tensor or pipeline) to none, chosen by
 * size; requests values are
 * Kubernetes quantities, as strings or numbers; topology is one of
 * {"required": LEVEL}, {"preferred": LEVEL}, {"unconstrained": true}, its
 * LEVEL a node-label key or an alias (block, rack, host) that the caller
 * resolves.
 */
#ifndef ECHELON_SIM_TRACE_H
#define ECHELON_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/diag.h"
#include "base/duration.h"
#include "base/intern.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "model/resource.h"
#include "model/resvec.h"
#include "model/workload.h"

#define TRACE_MAX_LINE 65536
#define TRACE_MAX_JOBS (1 << 22)
#define TRACE_MAX_PODS 100000
/* Times beyond ~317 years are errors, so that sums cannot overflow. */
#define TRACE_MAX_SECONDS DURATION_MAX_SECONDS
/* The job limit at 256 bytes a line: 1 GiB. */
#define TRACE_MAX_FILE_SIZE ((size_t)TRACE_MAX_JOBS * 256)

struct trace_job {
	const char *name; /* interned */
	int64_t submit_us;
	int64_t duration_us; /* at the ideal placement */
	int32_t pods;
	int32_t min_count;	/* 1..pods; pods unless partial admission */
	struct resvec requests; /* per pod, "pods" = 1 included */
	const char *queue;	/* interned; NULL when none */
	const char *klass;	/* job class, interned; NULL when none */
	int32_t priority;
	uint8_t topology_mode; /* enum topology_mode */
	/* 1 + its throughput class (enum throughput_class, sim/throughput.h:
	 * data, tensor, pipeline); 0 when none, chosen by size */
	uint8_t parallelism;
	const char *topology_level; /* interned as written; NULL when none */
	struct srcpos pos;	    /* where the job was read; zeros if not */
};

struct trace {
	VEC(struct trace_job) jobs;
	struct intern *strings;
	struct resource_registry *resources;
	size_t max_jobs; /* TRACE_MAX_JOBS unless lowered */
};

/* An empty trace that interns into strings and registers resources in
 * resources (neither NULL; both borrowed). */
void trace_init(struct trace *t, struct intern *strings,
		struct resource_registry *resources);
/* Free the job array; t may be NULL. */
void trace_release(struct trace *t);

/*
 * Parse data[0..len) (need not be NUL-terminated) as JSONL, named file in
 * messages (not NULL), and append its jobs to t. Returns 0, or -EINVAL
 * when any error was reported in d (then t is unchanged). Warnings alone
 * do not fail.
 */
int trace_parse_jsonl(struct trace *t, const char *file, const char *data,
		      size_t len, struct diag *d) MUST_CHECK;

/*
 * Write the jobs in the JSONL format above, one line each, in a canonical
 * form: fields in a fixed order, defaults left out, times in seconds with
 * up to six decimals, quantities in canonical text. Parsing the output
 * gives the same jobs back (positions aside).
 */
void trace_write_jsonl(const struct trace *t, struct strbuf *out);

/* Order the jobs by submission time, keeping the file order of ties. */
void trace_sort(struct trace *t);

/* Whether the first line of data looks like JSONL (a '{' first, after
 * blank and '#' lines). */
bool trace_is_jsonl(const char *data, size_t len);
/* Whether data holds nothing but blank and '#' lines: no job at all. */
bool trace_is_empty(const char *data, size_t len);

/*
 * Read a whole file into out (initialised by the caller), up to max bytes
 * (TRACE_MAX_FILE_SIZE for a trace); "-" is standard input. -errno with a
 * message in eb on failure ("path: No such file..."), -EFBIG when the file
 * is larger than max or has more lines that can hold a job than
 * TRACE_MAX_JOBS (and a header), -EINVAL at the first NUL byte or line
 * longer than TRACE_MAX_LINE ("path:line:col: ..."): each stops the read
 * at once, so `/dev/zero` or an endless pipe costs one buffer.
 */
int trace_read_file(const char *path, size_t max, struct strbuf *out,
		    struct errbuf *eb) MUST_CHECK;

/* Whether s (not NULL) is a valid job name: a DNS-1123 subdomain of at
 * most 253 lowercase letters, digits, '-' and '.'. */
bool trace_name_valid(const char *s);

/*
 * Shape j as a job of gpus (>= 1) GPUs on hosts of gpus_per_pod (>= 1):
 * one pod of gpus GPUs when gpus <= gpus_per_pod, else ceil(gpus /
 * gpus_per_pod) pods of gpus_per_pod each (min_count = pods); cpu and
 * memory per pod in proportion to its GPUs (gpu_id is the GPU resource).
 * Returns whether the GPUs were rounded up to whole pods. The caller keeps
 * the products within int64 (BUG otherwise).
 */
bool trace_job_set_gpus(struct trace_job *j, int64_t gpus, int32_t gpus_per_pod,
			int gpu_id, int64_t cpu_milli_per_gpu,
			int64_t memory_per_gpu);

/*
 * Append job j to c as a Workload in namespace ns (NULL: "default"): j's
 * name, queue (as the LocalQueue name) and priority, created at its
 * submission time, with one pod set "main" of j->pods pods, minCount,
 * per-pod requests and the topology request, level aliases resolved by
 * gen_level_label(). Strings are interned
 * in c, so j may go first. Returns the workload's index in c->workloads, or
 * -EEXIST (nothing added) when c already has a workload of that name.
 */
struct cluster;
struct workload;
int trace_job_add_workload(const struct trace_job *j, struct cluster *c,
			   const char *ns) MUST_CHECK;

/*
 * The same workload into *w (initialised here) instead of appending it:
 * its name is j->name as is, not interned (cluster_workload_put() interns
 * it), for workloads added while a controller runs.
 */
void trace_job_workload(const struct trace_job *j, struct cluster *c,
			const char *ns, struct workload *w);
/* The same without pod sets: for a caller that shares one pod set among
 * the workloads of jobs of one shape (workload_share_podsets()). */
void trace_job_workload_head(const struct trace_job *j, struct cluster *c,
			     const char *ns, struct workload *w);

/* Initial fill for a job record: pods 1, min_count 1, requests pods=1. */
void trace_job_init(struct trace_job *j);

#endif
