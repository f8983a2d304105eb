// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the embedded cluster's simulated dcgm-exporter: the
 * sim.echelon.dev/gpu-fault grammar (values and precise errors), which
 * GPU goes to which pod's container, the signals of busy, idle and
 * faulty GPUs, and the exporter's text (dcgm-exporter's names and
 * labels, the same bytes for the same store).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/compiler.h"
#include "serve/serve_dcgm.h"
#include "testutil.h"

#define T0 1796130000000000LL /* 2026-12-01T13:00:00Z */

static void test_fault_parse(void **state)
{
	static const struct {
		const char *in;
		int rc;
		int32_t xid, gpu, temp_c;
		double slowdown;
		const char *err;
	} table[] = {
		{ "xid=79", 0, 79, 0, 0, 1, NULL },
		{ "xid=79,gpu=2,temp=91,slowdown=0.5", 0, 79, 2, 91, 0.5,
		  NULL },
		{ "slowdown=0.25, temp=88", 0, 0, 0, 88, 0.25, NULL },
		{ "slowdown=1", 0, 0, 0, 0, 1, NULL },
		{ "", -EINVAL, 0, 0, 0, 0,
		  "empty: give xid=CODE, temp=CELSIUS or slowdown=FACTOR" },
		{ "slowdown=0", -EINVAL, 0, 0, 0, 0,
		  "slowdown: must be a number above 0 and at most 1, not "
		  "\"0\"" },
		{ "slowdown=1.5", -EINVAL, 0, 0, 0, 0,
		  "slowdown: must be a number above 0 and at most 1, not "
		  "\"1.5\"" },
		{ "slowdown=half", -EINVAL, 0, 0, 0, 0,
		  "slowdown: must be a number above 0 and at most 1, not "
		  "\"half\"" },
		{ "xid=79x", -EINVAL, 0, 0, 0, 0,
		  "xid: must be a whole number from 1 to 1000, not \"79x\"" },
		{ "gpu=64", -EINVAL, 0, 0, 0, 0,
		  "gpu: must be a whole number from 0 to 63, not \"64\"" },
		{ "temp=151", -EINVAL, 0, 0, 0, 0,
		  "temp: must be a whole number from 1 to 150, not \"151\"" },
		{ "xid", -EINVAL, 0, 0, 0, 0,
		  "\"xid\": expected KEY=VALUE (xid, temp, slowdown, gpu)" },
		{ "xid=79,ecc=2", -EINVAL, 0, 0, 0, 0,
		  "unknown key \"ecc\" (expected xid, temp, slowdown, gpu)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		struct serve_dcgm_fault f = { .xid = -1 };
		struct errbuf err = { { 0 } };
		int rc = serve_dcgm_fault_parse(table[i].in, &f, &err);

		assert_int_equal(rc, table[i].rc);
		if (rc) {
			assert_string_equal(err.msg, table[i].err);
			assert_int_equal(f.xid, -1); /* untouched */
			continue;
		}
		assert_true(f.set);
		assert_int_equal(f.xid, table[i].xid);
		assert_int_equal(f.gpu, table[i].gpu);
		assert_int_equal(f.temp_c, table[i].temp_c);
		assert_true(f.slowdown == table[i].slowdown);
		assert_int_equal(f.since_us, -1);
	}
}

static void add(struct api_store *s, const char *kind, const char *json)
{
	assert_int_equal(api_store_create(s, api_kind_of("v1", kind),
					  testutil_json(json), T0, NULL),
			 0);
}

/* A pod on node with containers' GPU limits (or requests) in phase. */
static void add_pod(struct api_store *s, const char *name, const char *node,
		    const char *phase, const char *containers)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
		 "\"name\":\"%s\",\"namespace\":\"ml\"},\"spec\":{"
		 "\"nodeName\":\"%s\",\"containers\":%s},\"status\":{"
		 "\"phase\":\"%s\"}}",
		 name, node, containers, phase);
	add(s, "Pod", buf);
}

#define GPUS(n) "{\"limits\":{\"nvidia.com/gpu\":\"" #n "\"}}"

/* Node n1 (8 GPUs, faulty when fault is not NULL), its pods: a (Running:
 * trainer 4 GPUs, sidecar none, helper 2 by requests), b (Pending, 1),
 * c (Succeeded, 8: gone from the GPUs); z on node n2. */
static struct api_store *cluster(const char *fault)
{
	struct api_store *s = api_store_new(NULL);
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{"
		 "\"name\":\"n1\",\"annotations\":{%s%s%s\"x\":\"y\"}},"
		 "\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"8\"}}}",
		 fault ? "\"sim.echelon.dev/gpu-fault\":\"" : "",
		 fault ? fault : "", fault ? "\"," : "");
	add(s, "Node", buf);
	add(s, "Node",
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	    "\"n2\",\"labels\":{\"nvidia.com/gpu.product\":\"NVIDIA-A100-"
	    "SXM4-80GB\"}},\"status\":{\"capacity\":{\"nvidia.com/gpu\":4}}}");
	add_pod(s, "c", "n1", "Succeeded",
		"[{\"name\":\"t\",\"resources\":" GPUS(8) "}]");
	add_pod(s, "a", "n1", "Running",
		"[{\"name\":\"trainer\",\"resources\":" GPUS(
			4) "},"
			   "{\"name\":\"sidecar\"},{\"name\":\"helper\","
			   "\"resources\":"
			   "{\"requests\":{\"nvidia.com/gpu\":\"2\"}}}]");
	add_pod(s, "b", "n1", "Pending",
		"[{\"name\":\"t\",\"resources\":" GPUS(1) "}]");
	add_pod(s, "z", "n2", "Running",
		"[{\"name\":\"t\",\"resources\":" GPUS(4) "}]");
	return s;
}

static void test_allocation(void **state)
{
	static const struct {
		const char *pod, *container;
		bool busy;
	} want[8] = {
		{ "a", "trainer", true }, { "a", "trainer", true },
		{ "a", "trainer", true }, { "a", "trainer", true },
		{ "a", "helper", true },  { "a", "helper", true },
		{ "b", "t", false },	  { NULL, NULL, false },
	};
	struct api_store *s = cluster(NULL);
	struct serve_dcgm_node n;

	(void)state;
	assert_int_equal(serve_dcgm_node(s, "nope", &n), -ENOENT);
	assert_int_equal(serve_dcgm_node(s, "n1", &n), 0);
	assert_string_equal(n.name, "n1");
	assert_string_equal(n.model, SERVE_DCGM_MODEL);
	assert_false(n.fault.set);
	assert_int_equal(n.ngpus, 8);
	for (uint32_t g = 0; g < 8; g++) {
		const struct serve_dcgm_gpu *u = &n.gpus[g];

		assert_int_equal(u->index, g);
		assert_true(strncmp(u->uuid, "GPU-", 4) == 0);
		if (!want[g].pod) {
			assert_null(u->pod);
		} else {
			assert_string_equal(u->pod, want[g].pod);
			assert_string_equal(u->ns, "ml");
			assert_string_equal(u->container, want[g].container);
		}
		assert_int_equal(u->busy, want[g].busy);
		if (u->busy) {
			assert_in_range(u->util, 95, 99);
			assert_in_range(u->temp_c, 66, 72);
			assert_int_equal(u->sm_clock, SERVE_DCGM_SM_CLOCK_MHZ);
			assert_true(u->power_w >= 590 && u->power_w < 660);
		} else {
			assert_int_equal(u->util, 0);
			assert_in_range(u->temp_c, 30, 35);
			assert_true(u->power_w >= 65 && u->power_w < 85);
		}
		assert_int_equal(u->xid, 0);
		for (uint32_t h = 0; h < g; h++)
			assert_string_not_equal(u->uuid, n.gpus[h].uuid);
	}
	assert_int_equal(serve_dcgm_node(s, "n2", &n), 0);
	assert_string_equal(n.model, "NVIDIA-A100-SXM4-80GB");
	assert_int_equal(n.ngpus, 4);
	assert_string_equal(n.gpus[3].pod, "z");
	api_store_free(s);
}

static void test_fault_signals(void **state)
{
	struct api_store *s = cluster("xid=79,gpu=6,temp=91,slowdown=0.5");
	struct api_store *bad = cluster("slowdown=3");
	struct serve_dcgm_node n, healthy;

	(void)state;
	assert_int_equal(serve_dcgm_node(s, "n1", &n), 0);
	assert_true(n.fault.set);
	assert_int_equal(n.fault.since_us, -1); /* no kubelet stamped it */
	for (uint32_t g = 0; g < 8; g++) {
		const struct serve_dcgm_gpu *u = &n.gpus[g];

		assert_int_equal(u->xid, g == 6 ? 79 : 0);
		if (g == 6)
			assert_int_equal(u->temp_c, 91); /* idle, but hot */
		else
			assert_true(u->temp_c < SERVE_DCGM_HOT_C);
		assert_int_equal(u->sm_clock, u->busy ? 990 : 345);
	}
	/* A value that does not parse shows no fault. */
	assert_int_equal(serve_dcgm_node(bad, "n1", &n), 0);
	assert_false(n.fault.set);
	assert_int_equal(n.gpus[0].sm_clock, SERVE_DCGM_SM_CLOCK_MHZ);
	assert_int_equal(serve_dcgm_node(s, "n2", &healthy), 0);
	assert_false(healthy.fault.set);
	api_store_free(s);
	api_store_free(bad);
}

static void test_metrics_text(void **state)
{
	struct api_store *s = cluster("xid=79,gpu=6");
	struct serve_dcgm_node n;
	struct strbuf a, b;
	char line[512];

	(void)state;
	strbuf_init(&a);
	strbuf_init(&b);
	serve_dcgm_metrics(s, &a);
	serve_dcgm_metrics(s, &b);
	assert_string_equal(a.buf, b.buf);
	testutil_assert_line(a.buf, "# HELP DCGM_FI_DEV_XID_ERRORS Value of "
				    "the last XID error encountered.");
	testutil_assert_line(a.buf, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge");
	assert_int_equal(serve_dcgm_node(s, "n1", &n), 0);
	snprintf(line, sizeof(line),
		 "DCGM_FI_DEV_XID_ERRORS{Hostname=\"n1\",UUID=\"%s\","
		 "container=\"t\",device=\"nvidia6\",gpu=\"6\",modelName=\""
		 "%s\",namespace=\"ml\",pod=\"b\"} 79",
		 n.gpus[6].uuid, SERVE_DCGM_MODEL);
	testutil_assert_line(a.buf, line);
	/* An unallocated GPU has no pod labels. */
	snprintf(line, sizeof(line),
		 "DCGM_FI_DEV_GPU_UTIL{Hostname=\"n1\",UUID=\"%s\",device=\""
		 "nvidia7\",gpu=\"7\",modelName=\"%s\"} 0",
		 n.gpus[7].uuid, SERVE_DCGM_MODEL);
	testutil_assert_line(a.buf, line);
	strbuf_release(&a);
	strbuf_release(&b);
	api_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_parse),
		cmocka_unit_test(test_allocation),
		cmocka_unit_test(test_fault_signals),
		cmocka_unit_test(test_metrics_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
