// SPDX-License-Identifier: Apache-2.0
/*
 * The manifest loader's messages: each row is a small manifest and the
 * exact diagnostics it must produce, "file:line:col: path: message", for
 * every error path of the decoders (wrong types, missing and out-of-range
 * fields, bad names, labels, quantities and selectors, Kueue's validation
 * rules, duplicates, invalid YAML and JSON). A file with an error loads
 * nothing. Unknown fields are warnings that do not stop the load, and the
 * Kubernetes fields echelon does not use produce no message at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "manifest/manifest.h"
#include "testutil.h"

#include "base/banned.h"

struct msg_case {
	const char *file; /* the name given to manifest_load_buffer() */
	const char *text;
	const char *want; /* diag_format() of the messages */
};

static const struct msg_case error_cases[] = {
	/* YAML syntax error */
	{ "t.yaml", "a: [1\n",
	  "t.yaml:2:1: invalid YAML: flow sequence without a closing "
	  "bracket\n" },
	/* YAML syntax error at no token: libfyaml prints it, positioned */
	{ "t.yaml", "a: |0\n  x\n",
	  "t.yaml:1:5: invalid YAML: indentation indicator 0\n" },
	/* JSON syntax error */
	{ "t.json", "{\"apiVersion\": \"v1\",}\n",
	  "t.json:1:20: invalid YAML: JSON disallows trailing comma before "
	  "closing brace\n" },
	/* YAML that is not JSON, in a .json file */
	{ "t.json", "apiVersion: v1\n",
	  "t.json:1:1: invalid YAML: Invalid JSON plain scalar\n" },
	/* a key twice: YAML 1.2 and Kubernetes refuse it, the first does
	 * not silently win */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "kind: Namespace\n"
	  "metadata: {name: a}\n",
	  "t.yaml:3:1: invalid YAML: duplicate key \"kind\" (first at line "
	  "2, column 1)\n" },
	/* in a nested flow mapping, quoted and plain spellings alike */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a, labels: {x: \"1\", \"x\": \"2\"}}\n",
	  "t.yaml:3:39: invalid YAML: duplicate key \"x\" (first at line 3, "
	  "column 30)\n" },
	/* in JSON */
	{ "t.json", "{\"apiVersion\": \"v1\", \"apiVersion\": \"v1\"}\n",
	  "t.json:1:23: invalid YAML: duplicate key \"apiVersion\" (first at "
	  "line 1, column 3)\n" },
	/* control characters from the input are quoted, never printed raw:
	 * no escape sequence reaches the terminal, no forged line */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: \"Node\\e]0;owned\\a\\e[2J\\nt.yaml:1:1: fake\"\n",
	  "t.yaml:2:8: kind: unknown kind "
	  "\"Node\\x1b]0;owned\\x07\\x1b[2J\\nt.yaml:1:1: fake\" (apiVersion "
	  "\"v1\")\n" },
	/* C1 controls (U+009B is a CSI on some terminals) likewise */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: \"N\\u009b2J\"\n",
	  "t.yaml:2:8: kind: unknown kind \"N\\xc2\\x9b2J\" (apiVersion "
	  "\"v1\")\n" },
	/* an annotation key is a qualified name, as Kubernetes checks it */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a, annotations: {\"a b\": x}}\n",
	  "t.yaml:3:36: metadata.annotations[\"a b\"]: name part must consist "
	  "of alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character\n" },
	/* a document that is a list */
	{ "t.yaml",
	  "- a\n"
	  "- b\n",
	  "t.yaml:1:1: must be an object, not a list\n" },
	/* a document that is a scalar */
	{ "t.yaml", "hello\n",
	  "t.yaml:1:1: must be an object, not a scalar\n" },
	/* apiVersion and kind are required */
	{ "t.yaml", "metadata: {name: x}\n",
	  "t.yaml:1:1: apiVersion: is required\n"
	  "t.yaml:1:1: kind: is required\n" },
	/* kind is required */
	{ "t.yaml", "apiVersion: v1\n", "t.yaml:1:1: kind: is required\n" },
	/* apiVersion must be a string */
	{ "t.yaml",
	  "apiVersion: 1\n"
	  "kind: Node\n",
	  "t.yaml:1:13: apiVersion: must be a string, not 1 (quote it)\n" },
	/* kind must be a string, not a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: [Node]\n",
	  "t.yaml:2:7: kind: must be a string, not a list\n" },
	/* unknown kind */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Deployment\n"
	  "metadata: {name: x}\n",
	  "t.yaml:2:7: kind: unknown kind \"Deployment\" (apiVersion "
	  "\"v1\")\n" },
	/* unsupported apiVersion of a known kind */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1alpha1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: x}\n",
	  "t.yaml:1:13: apiVersion: unsupported apiVersion "
	  "\"kueue.x-k8s.io/v1alpha1\" for kind ClusterQueue\n" },
	/* empty apiVersion (used to loop forever) */
	{ "t.yaml",
	  "apiVersion: \"\"\n"
	  "kind: Node\n",
	  "t.yaml:1:14: apiVersion: unsupported apiVersion \"\" for kind "
	  "Node\n" },
	/* kind from another group */
	{ "t.yaml",
	  "apiVersion: apps/v1\n"
	  "kind: Node\n"
	  "metadata: {name: x}\n",
	  "t.yaml:1:13: apiVersion: unsupported apiVersion \"apps/v1\" for "
	  "kind Node\n" },
	/* List items must be a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: List\n"
	  "items: {a: 1}\n",
	  "t.yaml:3:8: items: must be a list, not an object\n" },
	/* errors inside List items carry the item path */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: List\n"
	  "items:\n"
	  "- apiVersion: v1\n"
	  "  kind: Node\n"
	  "  metadata: {name: ok}\n"
	  "- 5\n"
	  "- apiVersion: v1\n"
	  "  kind: Node\n"
	  "  metadata: {name: Bad}\n",
	  "t.yaml:7:3: items[1]: must be an object, not a scalar\n"
	  "t.yaml:10:20: items[2].metadata.name: \"Bad\" is not a DNS-1123 "
	  "subdomain: at most 253 lowercase letters, digits, '-' and '.', "
	  "starting and ending with a letter or digit\n" },
	/* YAML aliases are refused */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: &n a\n"
	  "  labels: {x: *n}\n",
	  "t.yaml:5:16: metadata.labels[\"x\"]: YAML aliases are not "
	  "supported\n" },
	/* an alias in place of an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec: &s {unschedulable: true}\n"
	  "status: *s\n",
	  "t.yaml:5:10: status: YAML aliases are not supported\n" },
	/* field names must be strings */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "[1]: 2\n",
	  "t.yaml:4:1: field names must be strings\n" },
	/* metadata is required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n",
	  "t.yaml:1:1: metadata: is required\n" },
	/* metadata must be an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: a\n",
	  "t.yaml:3:11: metadata: must be an object, not a scalar\n" },
	/* metadata.name is required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {labels: {a: b}}\n",
	  "t.yaml:3:11: metadata.name: is required\n" },
	/* metadata.name must be a string */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: 5}\n",
	  "t.yaml:3:18: metadata.name: must be a string, not 5 (quote it)\n" },
	/* metadata.name: null is absent */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: null}\n",
	  "t.yaml:3:11: metadata.name: is required\n" },
	/* metadata.name must be a DNS subdomain */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: Node_1}\n",
	  "t.yaml:3:18: metadata.name: \"Node_1\" is not a DNS-1123 "
	  "subdomain: at most 253 lowercase letters, digits, '-' and '.', "
	  "starting and ending with a letter or digit\n" },
	/* metadata.name may not end with a dash */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a-}\n",
	  "t.yaml:3:18: metadata.name: \"a-\" is not a DNS-1123 subdomain: "
	  "at most 253 lowercase letters, digits, '-' and '.', starting and "
	  "ending with a letter or digit\n" },
	/* metadata.name at most 253 characters */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaa}\n",
	  "t.yaml:3:18: metadata.name: "
	  "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is "
	  "not a DNS-1123 subdomain: at most 253 lowercase letters, digits, "
	  "'-' and '.', starting and ending with a letter or digit\n" },
	/* namespace must be a DNS label (no dots) */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p, namespace: a.b}\n"
	  "spec: {containers: [{}]}\n",
	  "t.yaml:3:32: metadata.namespace: \"a.b\" is not a DNS-1123 label: "
	  "at most 63 lowercase letters, digits, '-', starting and ending "
	  "with a letter or digit\n" },
	/* label key with a bad prefix */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  labels: {Bad_Prefix/x: y}\n",
	  "t.yaml:5:12: metadata.labels[\"Bad_Prefix/x\"]: prefix part a "
	  "lowercase RFC 1123 subdomain must consist of lower case "
	  "alphanumeric characters, '-' or '.', and must start and end with "
	  "an alphanumeric character\n" },
	/* label key too long */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  labels: {kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
	  "kkkkkkkkk: y}\n",
	  "t.yaml:5:12: metadata.labels[\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
	  "kkkkkkkkkkkkkkkkkkkkkkkkkkkkk\"]: name part must be no more than "
	  "63 characters\n" },
	/* label value too long */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  labels: {k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
	  "vvvvvvvvvvvv}\n",
	  "t.yaml:5:15: metadata.labels[\"k\"]: must be no more than 63 "
	  "characters\n" },
	/* label value with a bad character */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  labels: {k: \"a b\"}\n",
	  "t.yaml:5:16: metadata.labels[\"k\"]: a valid label must be an "
	  "empty string or consist of alphanumeric characters, '-', '_' or "
	  "'.', and must start and end with an alphanumeric character\n" },
	/* label value must be a string */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  labels: {k: true}\n",
	  "t.yaml:5:15: metadata.labels[\"k\"]: must be a string, not true "
	  "(quote it)\n" },
	/* labels must be an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  labels: [a]\n",
	  "t.yaml:5:11: metadata.labels: must be an object, not a list\n" },
	/* annotations values must be strings */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: a\n"
	  "  annotations: {k: 1}\n",
	  "t.yaml:5:20: metadata.annotations[\"k\"]: must be a string, not 1 "
	  "(quote it)\n" },
	/* status.conditions: a lastTransitionTime is RFC 3339 */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
	  "status: {conditions: [{type: QuotaReserved, status: \"True\", "
	  "lastTransitionTime: yesterday}]}\n",
	  "t.yaml:5:81: status.conditions[0].lastTransitionTime: must be an "
	  "RFC 3339 time such as \"2024-05-01T10:00:00Z\", not "
	  "\"yesterday\"\n" },
	/* status.requeueState.count is a whole number */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
	  "status: {requeueState: {count: -1}}\n",
	  "t.yaml:5:32: status.requeueState.count: must be between 0 and "
	  "2147483647, not -1\n" },
	/* creationTimestamp must be RFC 3339 */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w, creationTimestamp: \"2024-13-01T00:00:00Z\"}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  "t.yaml:3:41: metadata.creationTimestamp: must be an RFC 3339 time "
	  "such as \"2024-05-01T10:00:00Z\", not \"2024-13-01T00:00:00Z\"\n" },
	/* unschedulable must be a boolean, not a string */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec: {unschedulable: \"true\"}\n",
	  "t.yaml:4:24: spec.unschedulable: must be a boolean (true or "
	  "false), not the string \"true\"\n" },
	/* unschedulable must be a boolean, not yes */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec: {unschedulable: yes}\n",
	  "t.yaml:4:23: spec.unschedulable: must be a boolean (true or "
	  "false), not yes\n" },
	/* spec must be an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec: [1]\n",
	  "t.yaml:4:7: spec: must be an object, not a list\n" },
	/* taints must be a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec: {taints: {key: a}}\n",
	  "t.yaml:4:16: spec.taints: must be a list, not an object\n" },
	/* taint: effect is required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec:\n"
	  "  taints:\n"
	  "  - key: a\n",
	  "t.yaml:6:5: spec.taints[0].effect: is required\n" },
	/* taint: bad effect and key */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec:\n"
	  "  taints:\n"
	  "  - {key: \"a b\", effect: Never}\n",
	  "t.yaml:6:12: spec.taints[0].key: name part must consist of "
	  "alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character\n"
	  "t.yaml:6:26: spec.taints[0].effect: unsupported value \"Never\": "
	  "must be one of \"NoSchedule\", \"PreferNoSchedule\", "
	  "\"NoExecute\"\n" },
	/* taint: key is required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "spec:\n"
	  "  taints:\n"
	  "  - {effect: NoSchedule}\n",
	  "t.yaml:6:5: spec.taints[0].key: is required\n" },
	/* allocatable must be an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status: {allocatable: 4}\n",
	  "t.yaml:4:23: status.allocatable: must be an object, not a "
	  "scalar\n" },
	/* bad quantities */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status:\n"
	  "  allocatable:\n"
	  "    cpu: 1x\n"
	  "    memory: -1Gi\n"
	  "    pods: 1.5\n"
	  "    nvidia.com/gpu: 100m\n",
	  "t.yaml:6:10: status.allocatable[\"cpu\"]: \"1x\": unknown suffix "
	  "\"x\"\n"
	  "t.yaml:7:13: status.allocatable[\"memory\"]: \"-1Gi\": must not "
	  "be negative\n"
	  "t.yaml:8:11: status.allocatable[\"pods\"]: \"1.5\": must be a "
	  "whole number\n"
	  "t.yaml:9:21: status.allocatable[\"nvidia.com/gpu\"]: \"100m\": "
	  "must be a whole number\n" },
	/* quantity too large */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status:\n"
	  "  allocatable: {memory: 9999999999999Ei}\n",
	  "t.yaml:5:25: status.allocatable[\"memory\"]: \"9999999999999Ei\": "
	  "too large (over 9223372036854775807)\n" },
	/* quantity must be a scalar */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status:\n"
	  "  allocatable: {cpu: [1]}\n",
	  "t.yaml:5:22: status.allocatable[\"cpu\"]: must be a quantity, not "
	  "a list\n" },
	/* bad resource names */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status:\n"
	  "  allocatable: {gpu: 1, example.com/: 1, \"a/b/c\": 1}\n",
	  "t.yaml:5:17: status.allocatable[\"gpu\"]: invalid resource name "
	  "\"gpu\": not a standard resource name; an extended resource needs "
	  "a domain prefix, like \"example.com/foo\"\n"
	  "t.yaml:5:25: status.allocatable[\"example.com/\"]: invalid "
	  "resource name \"example.com/\": the part after '/' must be 1-63 "
	  "letters, digits, '-', '_' or '.', starting and ending with a "
	  "letter or digit\n"
	  "t.yaml:5:43: status.allocatable[\"a/b/c\"]: invalid resource name "
	  "\"a/b/c\": the part after '/' must be 1-63 letters, digits, '-', "
	  "'_' or '.', starting and ending with a letter or digit\n" },
	/* conditions need type and status */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status:\n"
	  "  conditions:\n"
	  "  - {type: Ready}\n"
	  "  - status: \"True\"\n",
	  "t.yaml:6:5: status.conditions[0].status: is required\n"
	  "t.yaml:7:5: status.conditions[1].type: is required\n" },
	/* conditions must be a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "status: {conditions: {type: Ready}}\n",
	  "t.yaml:4:22: status.conditions: must be a list, not an object\n" },
	/* Pod spec is required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n",
	  "t.yaml:1:1: spec: is required\n" },
	/* containers are required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  nodeName: n\n",
	  "t.yaml:5:3: spec.containers: is required\n" },
	/* containers must be a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: {name: c}\n",
	  "t.yaml:5:15: spec.containers: must be a list, not an object\n" },
	/* a container must be an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [c]\n",
	  "t.yaml:5:16: spec.containers[0]: must be an object, not a "
	  "scalar\n" },
	/* container resources must be an object */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c, resources: [cpu]}]\n",
	  "t.yaml:5:37: spec.containers[0].resources: must be an object, not "
	  "a list\n" },
	/* requests with a bad quantity */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c, resources: {requests: {cpu: lots}}}]\n",
	  "t.yaml:5:54: spec.containers[0].resources.requests[\"cpu\"]: "
	  "\"lots\": missing number before the suffix\n" },
	/* initContainers must be a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  initContainers: c\n",
	  "t.yaml:6:19: spec.initContainers: must be a list, not a scalar\n" },
	/* overhead must be a resource list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  overhead: 1\n",
	  "t.yaml:6:13: spec.overhead: must be an object, not a scalar\n" },
	/* nodeName must be a string */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  nodeName: 12\n",
	  "t.yaml:6:13: spec.nodeName: must be a string, not 12 (quote it)\n" },
	/* bad phase */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec: {containers: [{}]}\n"
	  "status: {phase: Done}\n",
	  "t.yaml:5:17: status.phase: unsupported value \"Done\": must be "
	  "one of \"Pending\", \"Running\", \"Succeeded\", \"Failed\", "
	  "\"Unknown\"\n" },
	/* nodeSelector with a bad key */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  nodeSelector: {\"a b\": c}\n",
	  "t.yaml:6:19: spec.nodeSelector[\"a b\"]: name part must consist "
	  "of alphanumeric characters, '-', '_' or '.', and must start and "
	  "end with an alphanumeric character\n" },
	/* toleration: bad operator */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  tolerations: [{key: a, operator: In}]\n",
	  "t.yaml:6:36: spec.tolerations[0].operator: unsupported value "
	  "\"In\": must be one of \"Equal\", \"Exists\"\n" },
	/* toleration: Exists with a value */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  tolerations: [{key: a, operator: Exists, value: b}]\n",
	  "t.yaml:6:17: spec.tolerations[0]: value: value must be empty when "
	  "`operator` is 'Exists'\n" },
	/* toleration: Equal needs a key */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  tolerations: [{operator: Equal, value: b}]\n",
	  "t.yaml:6:17: spec.tolerations[0]: operator: operator must be "
	  "Exists when `key` is empty, which means \"match all values and "
	  "all keys\"\n" },
	/* toleration: tolerationSeconds must be an integer */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  tolerations: [{key: a, operator: Exists, effect: NoExecute, "
	  "tolerationSeconds: 1.5}]\n",
	  "t.yaml:6:82: spec.tolerations[0].tolerationSeconds: must be an "
	  "integer, not 1.5\n" },
	/* node affinity: nodeSelectorTerms required */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  affinity:\n"
	  "    nodeAffinity:\n"
	  "      requiredDuringSchedulingIgnoredDuringExecution: {}\n",
	  "t.yaml:8:55: spec.affinity.nodeAffinity.requiredDuringSchedulingIg"
	  "noredDuringExecution.nodeSelectorTerms: is required\n" },
	/* node affinity: bad operator */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  affinity:\n"
	  "    nodeAffinity:\n"
	  "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	  "        nodeSelectorTerms:\n"
	  "        - matchExpressions:\n"
	  "          - {key: a, operator: Like, values: [b]}\n",
	  "t.yaml:11:32: spec.affinity.nodeAffinity.requiredDuringSchedulingI"
	  "gnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].ope"
	  "rator: unsupported operator \"Like\"\n" },
	/* node affinity: Gt needs one integer */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  affinity:\n"
	  "    nodeAffinity:\n"
	  "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	  "        nodeSelectorTerms:\n"
	  "        - matchExpressions:\n"
	  "          - {key: a, operator: Gt, values: [b]}\n",
	  "t.yaml:11:13: spec.affinity.nodeAffinity.requiredDuringSchedulingI"
	  "gnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]: "
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an "
	  "integer\n" },
	/* node affinity: In needs values */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  affinity:\n"
	  "    nodeAffinity:\n"
	  "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	  "        nodeSelectorTerms:\n"
	  "        - matchExpressions:\n"
	  "          - {key: a, operator: In}\n",
	  "t.yaml:11:13: spec.affinity.nodeAffinity.requiredDuringSchedulingI"
	  "gnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]: "
	  "values: must be specified when `operator` is 'In' or 'NotIn'\n" },
	/* node affinity: terms must be a list */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  affinity:\n"
	  "    nodeAffinity:\n"
	  "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	  "        nodeSelectorTerms: {}\n",
	  "t.yaml:9:28: spec.affinity.nodeAffinity.requiredDuringSchedulingIg"
	  "noredDuringExecution.nodeSelectorTerms: must be a list, not an "
	  "object\n" },
	/* Topology spec is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n",
	  "t.yaml:1:1: spec: is required\n" },
	/* levels are required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n"
	  "spec: {}\n",
	  "t.yaml:4:7: spec.levels: is required\n" },
	/* levels must not be empty */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n"
	  "spec:\n"
	  "  levels: []\n",
	  "t.yaml:5:11: spec.levels: must have between 1 and 16 levels\n" },
	/* more than 16 levels */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n"
	  "spec:\n"
	  "  levels:\n"
	  "  - nodeLabel: l0\n"
	  "  - nodeLabel: l1\n"
	  "  - nodeLabel: l2\n"
	  "  - nodeLabel: l3\n"
	  "  - nodeLabel: l4\n"
	  "  - nodeLabel: l5\n"
	  "  - nodeLabel: l6\n"
	  "  - nodeLabel: l7\n"
	  "  - nodeLabel: l8\n"
	  "  - nodeLabel: l9\n"
	  "  - nodeLabel: l10\n"
	  "  - nodeLabel: l11\n"
	  "  - nodeLabel: l12\n"
	  "  - nodeLabel: l13\n"
	  "  - nodeLabel: l14\n"
	  "  - nodeLabel: l15\n"
	  "  - nodeLabel: l16\n",
	  "t.yaml:6:3: spec.levels: must have between 1 and 16 levels\n" },
	/* hostname must be the last level */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n"
	  "spec:\n"
	  "  levels:\n"
	  "  - nodeLabel: kubernetes.io/hostname\n"
	  "  - nodeLabel: rack\n",
	  "t.yaml:6:3: spec.levels: \"kubernetes.io/hostname\" may only be "
	  "the last level\n" },
	/* duplicate level */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n"
	  "spec:\n"
	  "  levels:\n"
	  "  - nodeLabel: rack\n"
	  "  - nodeLabel: block\n"
	  "  - nodeLabel: rack\n",
	  "t.yaml:8:16: spec.levels[2].nodeLabel: duplicate level \"rack\"\n" },
	/* level nodeLabel is required and must be a label key */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Topology\n"
	  "metadata: {name: t}\n"
	  "spec:\n"
	  "  levels:\n"
	  "  - {}\n"
	  "  - nodeLabel: \"-rack\"\n",
	  "t.yaml:6:5: spec.levels[0].nodeLabel: is required\n"
	  "t.yaml:7:17: spec.levels[1].nodeLabel: name part must consist of "
	  "alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character\n" },
	/* topologyName needs nodeLabels */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ResourceFlavor\n"
	  "metadata: {name: f}\n"
	  "spec: {topologyName: t}\n",
	  "t.yaml:4:7: spec.nodeLabels: at least one node label is required "
	  "when topologyName is set\n" },
	/* flavor spec must be an object */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ResourceFlavor\n"
	  "metadata: {name: f}\n"
	  "spec: []\n",
	  "t.yaml:4:7: spec: must be an object, not a list\n" },
	/* flavor nodeTaints and tolerations */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ResourceFlavor\n"
	  "metadata: {name: f}\n"
	  "spec:\n"
	  "  nodeLabels: {a: b}\n"
	  "  nodeTaints: [{key: k}]\n"
	  "  tolerations: [{operator: Exists, value: x}]\n",
	  "t.yaml:6:16: spec.nodeTaints[0].effect: is required\n"
	  "t.yaml:7:17: spec.tolerations[0]: value: value must be empty when "
	  "`operator` is 'Exists'\n" },
	/* ClusterQueue spec is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n",
	  "t.yaml:1:1: spec: is required\n" },
	/* coveredResources and flavors are required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - {}\n",
	  "t.yaml:6:5: spec.resourceGroups[0].coveredResources: is "
	  "required\n" },
	/* flavor resources must match coveredResources, in order */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu, memory]\n"
	  "    flavors:\n"
	  "    - name: f\n"
	  "      resources:\n"
	  "      - {name: memory, nominalQuota: 1}\n"
	  "      - {name: cpu, nominalQuota: 1}\n",
	  "t.yaml:10:16: spec.resourceGroups[0].flavors[0].resources[0].name:"
	  " must match coveredResources[0] (flavors list the covered "
	  "resources in the same order)\n"
	  "t.yaml:11:16: spec.resourceGroups[0].flavors[0].resources[1].name:"
	  " must match coveredResources[1] (flavors list the covered "
	  "resources in the same order)\n" },
	/* flavor lists fewer resources than covered */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu, memory]\n"
	  "    flavors:\n"
	  "    - name: f\n"
	  "      resources:\n"
	  "      - {name: cpu, nominalQuota: 1}\n",
	  "t.yaml:10:7: spec.resourceGroups[0].flavors[0].resources: must "
	  "list exactly the 2 covered resource(s), not 1\n" },
	/* nominalQuota is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu]\n"
	  "    flavors:\n"
	  "    - name: f\n"
	  "      resources:\n"
	  "      - {name: cpu}\n",
	  "t.yaml:10:9: spec.resourceGroups[0].flavors[0].resources[0].nomina"
	  "lQuota: is required\n" },
	/* lendingLimit above nominalQuota */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu]\n"
	  "    flavors:\n"
	  "    - name: f\n"
	  "      resources:\n"
	  "      - {name: cpu, nominalQuota: 1, lendingLimit: 1500m}\n",
	  "t.yaml:10:52: spec.resourceGroups[0].flavors[0].resources[0].lendi"
	  "ngLimit: must be less than or equal to nominalQuota\n" },
	/* a resource covered by two groups */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu]\n"
	  "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "
	  "1}]}]\n"
	  "  - coveredResources: [cpu]\n"
	  "    flavors: [{name: g, resources: [{name: cpu, nominalQuota: "
	  "1}]}]\n",
	  "t.yaml:6:3: spec.resourceGroups: resource \"cpu\" is covered by "
	  "more than one group\n" },
	/* a resource covered twice in one group */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu, cpu]\n"
	  "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "
	  "1}]}]\n",
	  "t.yaml:6:29: spec.resourceGroups[0].coveredResources[1]: "
	  "duplicate resource \"cpu\"\n" },
	/* more than 16 flavors in a group */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu]\n"
	  "    flavors:\n"
	  "    - {name: f0, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f1, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f2, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f3, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f4, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f5, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f6, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f7, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f8, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f9, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f10, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f11, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f12, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f13, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f14, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f15, resources: [{name: cpu, nominalQuota: 1}]}\n"
	  "    - {name: f16, resources: [{name: cpu, nominalQuota: 1}]}\n",
	  "t.yaml:8:5: spec.resourceGroups[0].flavors: must have at most 16 "
	  "flavors\n" },
	/* more than 16 resource groups */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - {coveredResources: [r.io/x0], flavors: []}\n"
	  "  - {coveredResources: [r.io/x1], flavors: []}\n"
	  "  - {coveredResources: [r.io/x2], flavors: []}\n"
	  "  - {coveredResources: [r.io/x3], flavors: []}\n"
	  "  - {coveredResources: [r.io/x4], flavors: []}\n"
	  "  - {coveredResources: [r.io/x5], flavors: []}\n"
	  "  - {coveredResources: [r.io/x6], flavors: []}\n"
	  "  - {coveredResources: [r.io/x7], flavors: []}\n"
	  "  - {coveredResources: [r.io/x8], flavors: []}\n"
	  "  - {coveredResources: [r.io/x9], flavors: []}\n"
	  "  - {coveredResources: [r.io/x10], flavors: []}\n"
	  "  - {coveredResources: [r.io/x11], flavors: []}\n"
	  "  - {coveredResources: [r.io/x12], flavors: []}\n"
	  "  - {coveredResources: [r.io/x13], flavors: []}\n"
	  "  - {coveredResources: [r.io/x14], flavors: []}\n"
	  "  - {coveredResources: [r.io/x15], flavors: []}\n"
	  "  - {coveredResources: [r.io/x16], flavors: []}\n",
	  "t.yaml:6:3: spec.resourceGroups: must have at most 16 groups\n" },
	/* LocalQueue stopPolicy: Kueue's three values only */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: LocalQueue\n"
	  "metadata: {name: q}\n"
	  "spec: {clusterQueue: cq, stopPolicy: Drain}\n",
	  "t.yaml:4:38: spec.stopPolicy: unsupported value \"Drain\": must be "
	  "one of \"None\", \"Hold\", \"HoldAndDrain\"\n" },
	/* Namespace: a DNS-1123 label, valid labels, no unknown fields */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Namespace\n"
	  "metadata:\n"
	  "  name: team.a\n"
	  "data: {}\n",
	  "t.yaml:5:1: warning: unknown field \"data\" is ignored\n"
	  "t.yaml:4:9: metadata.name: \"team.a\" is not a DNS-1123 label: at "
	  "most 63 lowercase letters, digits, '-', starting and ending with a "
	  "letter or digit\n" },
	/* bad enums */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  queueingStrategy: LIFO\n"
	  "  stopPolicy: Stop\n"
	  "  preemption: {reclaimWithinCohort: Sometimes, "
	  "withinClusterQueue: Any, borrowWithinCohort: {policy: Any}}\n"
	  "  flavorFungibility: {whenCanBorrow: Preempt, whenCanPreempt: "
	  "Borrow}\n",
	  "t.yaml:5:21: spec.queueingStrategy: unsupported value \"LIFO\": "
	  "must be one of \"BestEffortFIFO\", \"StrictFIFO\"\n"
	  "t.yaml:6:15: spec.stopPolicy: unsupported value \"Stop\": must be "
	  "one of \"None\", \"Hold\", \"HoldAndDrain\"\n"
	  "t.yaml:7:37: spec.preemption.reclaimWithinCohort: unsupported "
	  "value \"Sometimes\": must be one of \"Never\", \"LowerPriority\", "
	  "\"Any\"\n"
	  "t.yaml:7:68: spec.preemption.withinClusterQueue: unsupported "
	  "value \"Any\": must be one of \"Never\", \"LowerPriority\", "
	  "\"LowerOrNewerEqualPriority\"\n"
	  "t.yaml:7:102: spec.preemption.borrowWithinCohort.policy: "
	  "unsupported value \"Any\": must be one of \"Never\", "
	  "\"LowerPriority\"\n"
	  "t.yaml:8:38: spec.flavorFungibility.whenCanBorrow: unsupported "
	  "value \"Preempt\": must be one of \"Borrow\", \"MayStopSearch\", "
	  "\"TryNextFlavor\"\n"
	  "t.yaml:8:63: spec.flavorFungibility.whenCanPreempt: unsupported "
	  "value \"Borrow\": must be one of \"Preempt\", \"MayStopSearch\", "
	  "\"TryNextFlavor\"\n" },
	/* maxPriorityThreshold out of int32 */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  preemption: {borrowWithinCohort: {policy: LowerPriority, "
	  "maxPriorityThreshold: 2147483648}}\n",
	  "t.yaml:5:82: spec.preemption.borrowWithinCohort.maxPriorityThresho"
	  "ld: must be between -2147483648 and 2147483647, not 2147483648\n" },
	/* fairSharing weight must be a non-negative quantity */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  fairSharing: {weight: -1}\n",
	  "t.yaml:5:25: spec.fairSharing.weight: \"-1\": must not be "
	  "negative\n" },
	/* cohort must be a string */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  cohort: {name: c}\n",
	  "t.yaml:5:11: spec.cohort: must be a string, not an object\n" },
	/* namespaceSelector: bad expressions */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec:\n"
	  "  namespaceSelector:\n"
	  "    matchExpressions:\n"
	  "    - {key: a, operator: Gt, values: [\"1\"]}\n"
	  "    - {key: a, operator: Exists, values: [b]}\n"
	  "    - {operator: In, values: [b]}\n",
	  "t.yaml:7:26: spec.namespaceSelector.matchExpressions[0].operator: "
	  "unsupported operator \"Gt\"\n"
	  "t.yaml:8:7: spec.namespaceSelector.matchExpressions[1]: values: "
	  "may not be specified when `operator` is 'Exists' or "
	  "'DoesNotExist'\n"
	  "t.yaml:9:7: spec.namespaceSelector.matchExpressions[2].key: is "
	  "required\n" },
	/* Cohort parent must be a string */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Cohort\n"
	  "metadata: {name: c}\n"
	  "spec: {parentName: [a]}\n",
	  "t.yaml:4:20: spec.parentName: must be a string, not a list\n" },
	/* Cohort quota follows the ClusterQueue rules */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: Cohort\n"
	  "metadata: {name: c}\n"
	  "spec:\n"
	  "  resourceGroups:\n"
	  "  - coveredResources: [cpu]\n"
	  "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, "
	  "lendingLimit: 2}]}]\n",
	  "t.yaml:7:80: spec.resourceGroups[0].flavors[0].resources[0].lendin"
	  "gLimit: must be less than or equal to nominalQuota\n" },
	/* LocalQueue clusterQueue is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: LocalQueue\n"
	  "metadata: {name: q}\n"
	  "spec: {}\n",
	  "t.yaml:4:7: spec.clusterQueue: is required\n" },
	/* LocalQueue spec is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: LocalQueue\n"
	  "metadata: {name: q}\n",
	  "t.yaml:1:1: spec: is required\n" },
	/* priority value is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: WorkloadPriorityClass\n"
	  "metadata: {name: p}\n",
	  "t.yaml:1:1: value: is required\n" },
	/* priority value out of int32 */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: WorkloadPriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 2147483648\n",
	  "t.yaml:4:8: value: must be between -2147483648 and 2147483647, "
	  "not 2147483648\n" },
	/* priority value must be an integer */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: WorkloadPriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: \"10\"\n",
	  "t.yaml:4:9: value: must be an integer\n" },
	/* priority value not a float */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: WorkloadPriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 1.0\n",
	  "t.yaml:4:8: value: must be an integer, not 1.0\n" },
	/* PriorityClass value is required */
	{ "t.yaml",
	  "apiVersion: scheduling.k8s.io/v1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: p}\n",
	  "t.yaml:1:1: value: is required\n" },
	/* PriorityClass value out of int32, globalDefault not a boolean */
	{ "t.yaml",
	  "apiVersion: scheduling.k8s.io/v1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: -2147483649\n"
	  "globalDefault: \"true\"\n"
	  "description: 5\n",
	  "t.yaml:4:8: value: must be between -2147483648 and 2147483647, "
	  "not -2147483649\n"
	  "t.yaml:5:17: globalDefault: must be a boolean (true or false), "
	  "not the string \"true\"\n"
	  "t.yaml:6:14: description: must be a string, not 5 (quote it)\n" },
	/* PriorityClass: only scheduling.k8s.io/v1 */
	{ "t.yaml",
	  "apiVersion: scheduling.k8s.io/v1beta1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 1\n",
	  "t.yaml:1:13: apiVersion: unsupported apiVersion "
	  "\"scheduling.k8s.io/v1beta1\" for kind PriorityClass\n" },
	/* PriorityClass name must be a DNS subdomain */
	{ "t.yaml",
	  "apiVersion: scheduling.k8s.io/v1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: High}\n"
	  "value: 1\n",
	  "t.yaml:3:18: metadata.name: \"High\" is not a DNS-1123 "
	  "subdomain: at most 253 lowercase letters, digits, '-' and '.', "
	  "starting and ending with a letter or digit\n" },
	/* duplicate PriorityClass; a WorkloadPriorityClass of the same name
	 * is another kind */
	{ "t.yaml",
	  "apiVersion: scheduling.k8s.io/v1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 1\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: WorkloadPriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 1\n"
	  "---\n"
	  "apiVersion: scheduling.k8s.io/v1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 2\n",
	  "t.yaml:13:18: metadata.name: PriorityClass \"p\" is defined twice "
	  "in this file\n" },
	/* a pod template's spec.priority is an int32 */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata: {name: j}\n"
	  "spec:\n"
	  "  template:\n"
	  "    spec:\n"
	  "      priority: high\n"
	  "      priorityClassName: [a]\n"
	  "      containers: [{}]\n",
	  "t.yaml:8:26: spec.template.spec.priorityClassName: must be a "
	  "string, not a list\n"
	  "t.yaml:7:17: spec.template.spec.priority: must be an integer, "
	  "not high\n" },
	/* Job spec.suspend, status.active and status.ready */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata: {name: j}\n"
	  "spec:\n"
	  "  suspend: 0\n"
	  "  template: {spec: {containers: [{}]}}\n"
	  "status: {active: -1, ready: 1.5}\n",
	  "t.yaml:5:12: spec.suspend: must be a boolean (true or false), "
	  "not 0\n"
	  "t.yaml:7:18: status.active: must be between 0 and 2147483647, "
	  "not -1\n"
	  "t.yaml:7:29: status.ready: must be an integer, not 1.5\n" },
	/* Job status must be an object */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata: {name: j}\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n"
	  "status: [active]\n",
	  "t.yaml:5:9: status: must be an object, not a list\n" },
	/* priorityClassRef: known group and kind, a name */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  priorityClassRef: {group: x.io, kind: Foo}\n"
	  "  podSets: [{template: {spec: {containers: [{}]}}}]\n",
	  "t.yaml:5:29: spec.priorityClassRef.group: unsupported value "
	  "\"x.io\": must be one of \"kueue.x-k8s.io\", "
	  "\"scheduling.k8s.io\"\n"
	  "t.yaml:5:41: spec.priorityClassRef.kind: unsupported value "
	  "\"Foo\": must be one of \"WorkloadPriorityClass\", "
	  "\"PriorityClass\"\n"
	  "t.yaml:5:21: spec.priorityClassRef.name: is required\n" },
	/* a Workload's ownerReferences: a list of {kind, name} */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: Workload\n"
	  "metadata:\n"
	  "  name: w\n"
	  "  ownerReferences:\n"
	  "  - {kind: Job, controller: yes}\n"
	  "  - name: x\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  "t.yaml:6:5: metadata.ownerReferences[0].name: is required\n"
	  "t.yaml:6:29: metadata.ownerReferences[0].controller: must be a "
	  "boolean (true or false), not yes\n"
	  "t.yaml:7:5: metadata.ownerReferences[1].kind: is required\n" },
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: Workload\n"
	  "metadata: {name: w, ownerReferences: {kind: Job}}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  "t.yaml:3:38: metadata.ownerReferences: must be a list, not an "
	  "object\n" },
	/* Workload spec is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n",
	  "t.yaml:1:1: spec: is required\n" },
	/* podSets are required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  queueName: q\n",
	  "t.yaml:5:3: spec.podSets: is required\n" },
	/* podSets must not be empty */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets: []\n",
	  "t.yaml:5:12: spec.podSets: must have between 1 and 8 pod sets\n" },
	/* more than 8 pod sets */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - {name: p0, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p1, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p2, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p3, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p4, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p5, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p6, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p7, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: p8, template: {spec: {containers: [{}]}}}\n",
	  "t.yaml:6:3: spec.podSets: must have between 1 and 8 pod sets\n" },
	/* template is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - {name: a, count: 1}\n",
	  "t.yaml:6:5: spec.podSets[0].template: is required\n" },
	/* count must be a non-negative integer */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - {name: a, count: -1, template: {spec: {containers: [{}]}}}\n",
	  "t.yaml:6:22: spec.podSets[0].count: must be between 0 and "
	  "1000000, not -1\n" },
	/* count must be an integer, not a string */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - {name: a, count: \"2\", template: {spec: {containers: "
	  "[{}]}}}\n",
	  "t.yaml:6:23: spec.podSets[0].count: must be an integer\n" },
	/* minCount above count */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    minCount: 7\n",
	  "t.yaml:9:15: spec.podSets[0].minCount: must be less than or equal "
	  "to count (6)\n" },
	/* duplicate pod set names */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - {name: a, template: {spec: {containers: [{}]}}}\n"
	  "  - {name: a, template: {spec: {containers: [{}]}}}\n",
	  "t.yaml:7:5: spec.podSets[1]: duplicate pod set name \"a\"\n" },
	/* two topology modes */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {required: rack, preferred: block}\n",
	  "t.yaml:9:22: spec.podSets[0].topologyRequest: only one of "
	  "required, preferred and unconstrained may be set\n" },
	/* required and unconstrained */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {required: rack, unconstrained: true}\n",
	  "t.yaml:9:22: spec.podSets[0].topologyRequest: only one of "
	  "required, preferred and unconstrained may be set\n" },
	/* slice size must divide count */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {required: block, "
	  "podSetSliceRequiredTopology: rack, podSetSliceSize: 4}\n",
	  "t.yaml:9:22: spec.podSets[0].topologyRequest: slice size 4 must "
	  "evenly divide count 6\n" },
	/* slice size without a slice topology */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {required: block, podSetSliceSize: 2}\n",
	  "t.yaml:9:22: spec.podSets[0].topologyRequest: slice 0: topology "
	  "is required\n" },
	/* slice size must be positive */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {required: block, "
	  "podSetSliceRequiredTopology: rack, podSetSliceSize: 0}\n",
	  "t.yaml:9:92: spec.podSets[0].topologyRequest.podSetSliceSize: "
	  "must be between 1 and 1000000, not 0\n" },
	/* slice constraints and single slice fields */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest:\n"
	  "      required: block\n"
	  "      podSetSliceSize: 2\n"
	  "      podsetSliceRequiredTopologyConstraints: [{topology: rack, "
	  "size: 2}]\n",
	  "t.yaml:12:47: spec.podSets[0].topologyRequest.podsetSliceRequiredT"
	  "opologyConstraints: cannot be combined with "
	  "podSetSliceRequiredTopology or podSetSliceSize\n" },
	/* more than 3 slice layers */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest:\n"
	  "      required: block\n"
	  "      podsetSliceRequiredTopologyConstraints: [{topology: a, "
	  "size: 1}, {topology: b, size: 1}, {topology: c, size: 1}, "
	  "{topology: d, size: 1}]\n",
	  "t.yaml:11:47: spec.podSets[0].topologyRequest.podsetSliceRequiredT"
	  "opologyConstraints: must have at most 3 layers\n" },
	/* slice layers must divide each other */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 12\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest:\n"
	  "      required: block\n"
	  "      podsetSliceRequiredTopologyConstraints: [{topology: a, "
	  "size: 6}, {topology: b, size: 4}]\n",
	  "t.yaml:10:7: spec.podSets[0].topologyRequest: slice size 4 must "
	  "evenly divide the outer slice size 6\n" },
	/* slice layer fields are required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest:\n"
	  "      required: block\n"
	  "      podsetSliceRequiredTopologyConstraints: [{}]\n",
	  "t.yaml:11:48: spec.podSets[0].topologyRequest.podsetSliceRequiredT"
	  "opologyConstraints[0].topology: is required\n"
	  "t.yaml:11:48: spec.podSets[0].topologyRequest.podsetSliceRequiredT"
	  "opologyConstraints[0].size: is required\n" },
	/* group name without a mode */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {podSetGroupName: g}\n",
	  "t.yaml:9:22: spec.podSets[0].topologyRequest: podSetGroupName "
	  "needs a required or preferred topology\n" },
	/* unconstrained must be a boolean */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets:\n"
	  "  - name: a\n"
	  "    count: 6\n"
	  "    template: {spec: {containers: [{name: c}]}}\n"
	  "    topologyRequest: {unconstrained: \"true\"}\n",
	  "t.yaml:9:39: spec.podSets[0].topologyRequest.unconstrained: must "
	  "be a boolean (true or false), not the string \"true\"\n" },
	/* admission: clusterQueue is required */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
	  "status:\n"
	  "  admission: {podSetAssignments: []}\n",
	  "t.yaml:6:14: status.admission.clusterQueue: is required\n" },
	/* admission: assignments */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
	  "status:\n"
	  "  admission:\n"
	  "    clusterQueue: cq\n"
	  "    podSetAssignments:\n"
	  "    - {count: 1}\n"
	  "    - {name: main, flavors: {\"bad name\": f}}\n",
	  "t.yaml:9:7: status.admission.podSetAssignments[0].name: is "
	  "required\n"
	  "t.yaml:10:31: status.admission.podSetAssignments[1].flavors: "
	  "invalid resource name \"bad name\": not a standard resource name; "
	  "an extended resource needs a domain prefix, like "
	  "\"example.com/foo\"\n" },
	/* admission: one value per level */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
	  "status:\n"
	  "  admission:\n"
	  "    clusterQueue: cq\n"
	  "    podSetAssignments:\n"
	  "    - name: main\n"
	  "      topologyAssignment:\n"
	  "        levels: [rack, host]\n"
	  "        domains:\n"
	  "        - {values: [r1], count: 1}\n"
	  "        - {values: [r1, h1], count: 0}\n",
	  "t.yaml:13:11: status.admission.podSetAssignments[0].topologyAssign"
	  "ment.domains[0]: values: must have one value per level (2)\n"
	  "t.yaml:14:37: status.admission.podSetAssignments[0].topologyAssign"
	  "ment.domains[1].count: must be between 1 and 1000000, not 0\n" },
	/* admission: the compact slices form, one value per domain */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
	  "status:\n"
	  "  admission:\n"
	  "    clusterQueue: cq\n"
	  "    podSetAssignments:\n"
	  "    - name: main\n"
	  "      topologyAssignment:\n"
	  "        levels: [rack]\n"
	  "        slices:\n"
	  "        - domainCount: 2\n"
	  "          valuesPerLevel: [{individual: {roots: [r1]}}]\n"
	  "          podCounts: {universal: 1}\n",
	  "t.yaml:14:49: status.admission.podSetAssignments[0].topologyAssign"
	  "ment.slices[0].valuesPerLevel[0].individual: roots: must have one "
	  "value per domain (2)\n" },
	/* Job spec is required */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n",
	  "t.yaml:1:1: spec: is required\n" },
	/* Job template is required */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec: {parallelism: 1}\n",
	  "t.yaml:5:7: spec.template: is required\n" },
	/* parallelism out of range */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: -1\n"
	  "  completions: 2000000\n"
	  "  template: {spec: {containers: [{}]}}\n",
	  "t.yaml:6:16: spec.parallelism: must be between 0 and 1000000, not "
	  "-1\n"
	  "t.yaml:7:16: spec.completions: must be between 0 and 1000000, not "
	  "2000000\n" },
	/* two topology annotations */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: 6\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: rack\n"
	  "        kueue.x-k8s.io/podset-preferred-topology: block\n"
	  "    spec: {containers: [{name: c}]}\n",
	  "t.yaml:10:9: spec.template.metadata.annotations: only one of the "
	  "required, preferred and unconstrained topology annotations may be "
	  "set\n" },
	/* slice size annotation must be a positive integer */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: 6\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology: rack\n"
	  "        kueue.x-k8s.io/podset-slice-size: two\n"
	  "    spec: {containers: [{name: c}]}\n",
	  "t.yaml:12:43: spec.template.metadata.annotations[\"kueue.x-k8s.io/"
	  "podset-slice-size\"]: must be a positive integer, not \"two\"\n" },
	/* slice size annotation must divide the count */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: 6\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology: rack\n"
	  "        kueue.x-k8s.io/podset-slice-size: \"4\"\n"
	  "    spec: {containers: [{name: c}]}\n",
	  "t.yaml:10:9: spec.template.metadata.annotations: slice size 4 "
	  "must evenly divide count 6\n" },
	/* constraints annotation is not JSON */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: 6\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology-constraints:"
	  " \"[{topology: rack}]\"\n"
	  "    spec: {containers: [{name: c}]}\n",
	  "t.yaml:11:69: spec.template.metadata.annotations[\"kueue.x-k8s.io/"
	  "podset-slice-required-topology-constraints\"]: must be a JSON "
	  "list of 1 to 3 {\"topology\": LEVEL, \"size\": N} objects\n" },
	/* constraints annotation entry without a size */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: 6\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology-constraints:"
	  " '[{\"topology\": \"rack\", \"size\": 2}, {\"topology\": "
	  "\"host\"}]'\n"
	  "    spec: {containers: [{name: c}]}\n",
	  "t.yaml:11:69: spec.template.metadata.annotations[\"kueue.x-k8s.io/"
	  "podset-slice-required-topology-constraints\"]: entry 1 must be "
	  "{\"topology\": LEVEL, \"size\": N} with N >= 1\n" },
	/* constraints annotation with the slice annotations */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  parallelism: 6\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-size: \"2\"\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology-constraints:"
	  " '[{\"topology\": \"rack\", \"size\": 2}]'\n"
	  "    spec: {containers: [{name: c}]}\n",
	  "t.yaml:10:9: spec.template.metadata.annotations: the slice "
	  "constraints annotation cannot be combined with the slice topology "
	  "or size annotations\n" },
	/* min-parallelism must be a positive integer */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "  annotations: {kueue.x-k8s.io/job-min-parallelism: \"-3\"}\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n",
	  "t.yaml:5:54: metadata.annotations[\"kueue.x-k8s.io/job-min-paralle"
	  "lism\"]: must be a positive integer, not \"-3\"\n" },
	/* runtime limits: positive seconds, reported at the field */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "  labels: {kueue.x-k8s.io/max-exec-time-seconds: \"1h\"}\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n",
	  "t.yaml:5:51: metadata.labels[\"kueue.x-k8s.io/max-exec-time-"
	  "seconds\"]: must be a positive integer, not \"1h\"\n" },
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata: {name: j}\n"
	  "spec: {activeDeadlineSeconds: 0, template: {spec: {containers: "
	  "[{}]}}}\n",
	  "t.yaml:4:31: spec.activeDeadlineSeconds: must be between 1 and "
	  "2147483647, not 0\n" },
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec: {maximumExecutionTimeSeconds: -5, podSets: [{name: m, "
	  "count: 1, template: {spec: {containers: [{}]}}}]}\n",
	  "t.yaml:4:37: spec.maximumExecutionTimeSeconds: must be between 1 "
	  "and 2147483647, not -5\n" },
	/* PodGroup minMember is required */
	{ "t.yaml",
	  "apiVersion: scheduling.x-k8s.io/v1alpha1\n"
	  "kind: PodGroup\n"
	  "metadata: {name: pg}\n"
	  "spec: {scheduleTimeoutSeconds: 5}\n",
	  "t.yaml:4:7: spec.minMember: is required\n" },
	/* PodGroup minMember must be positive */
	{ "t.yaml",
	  "apiVersion: scheduling.x-k8s.io/v1alpha1\n"
	  "kind: PodGroup\n"
	  "metadata: {name: pg}\n"
	  "spec: {minMember: 0, scheduleTimeoutSeconds: -1, minResources: "
	  "{cpu: x}}\n",
	  "t.yaml:4:19: spec.minMember: must be between 1 and 1000000, not "
	  "0\n"
	  "t.yaml:4:46: spec.scheduleTimeoutSeconds: must be between 0 and "
	  "2147483647, not -1\n"
	  "t.yaml:4:70: spec.minResources[\"cpu\"]: \"x\": missing number "
	  "before the suffix\n" },
	/* bad placement algorithm and booleans */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "placement: {algorithm: Random, balancedPlacement: 1}\n",
	  "t.yaml:3:24: placement.algorithm: unsupported value \"Random\": "
	  "must be one of \"Mixed\", \"BestFit\", \"LeastFreeCapacity\", "
	  "\"FragmentationAware\"\n"
	  "t.yaml:3:51: placement.balancedPlacement: must be a boolean (true "
	  "or false), not 1\n" },
	/* bad durations */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "waitForPodsReady:\n"
	  "  timeout: 10\n"
	  "  recoveryTimeout: -5m\n",
	  "t.yaml:4:12: waitForPodsReady.timeout: must be a string, not 10 "
	  "(quote it)\n"
	  "t.yaml:5:20: waitForPodsReady.recoveryTimeout: must not be "
	  "negative, not \"-5m\"\n" },
	/* durations: Go syntax only */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "waitForPodsReady: {timeout: 1e3s, recoveryTimeout: 0x10s}\n",
	  "t.yaml:3:29: waitForPodsReady.timeout: must be a duration such as "
	  "\"90s\", \"5m\" or \"1h30m\", not \"1e3s\": unknown unit \"e\" at "
	  "character 2 (expected ns, us, ms, s, m or h)\n"
	  "t.yaml:3:52: waitForPodsReady.recoveryTimeout: must be a duration "
	  "such as \"90s\", \"5m\" or \"1h30m\", not \"0x10s\": unknown unit "
	  "\"x\" at character 2 (expected ns, us, ms, s, m or h)\n" },
	/* backoffMaxSeconds below backoffBaseSeconds */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "waitForPodsReady:\n"
	  "  requeuingStrategy: {backoffBaseSeconds: 100, backoffMaxSeconds: "
	  "50}\n",
	  "t.yaml:4:67: waitForPodsReady.requeuingStrategy.backoffMaxSeconds:"
	  " must be at least backoffBaseSeconds (100)\n" },
	/* backoffBaseSeconds above the default maximum */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "waitForPodsReady:\n"
	  "  requeuingStrategy: {backoffBaseSeconds: 7200}\n",
	  "t.yaml:4:43: waitForPodsReady.requeuingStrategy.backoffBaseSeconds"
	  ": must be at most backoffMaxSeconds (3600 by default)\n" },
	/* requeuing timestamp and limits */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "waitForPodsReady:\n"
	  "  requeuingStrategy: {timestamp: Now, backoffBaseSeconds: 0, "
	  "backoffLimitCount: -1}\n",
	  "t.yaml:4:34: waitForPodsReady.requeuingStrategy.timestamp: "
	  "unsupported value \"Now\": must be one of \"Eviction\", "
	  "\"Creation\"\n"
	  "t.yaml:4:59: waitForPodsReady.requeuingStrategy.backoffBaseSeconds"
	  ": must be between 1 and 2147483647, not 0\n"
	  "t.yaml:4:81: waitForPodsReady.requeuingStrategy.backoffLimitCount:"
	  " must be between 0 and 2147483647, not -1\n" },
	/* two Configurations in one file */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "---\n"
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n",
	  "t.yaml:4:1: only one Configuration may be given\n" },
	/* placement must be an object */
	{ "t.yaml",
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "placement: BestFit\n",
	  "t.yaml:3:12: placement: must be an object, not a scalar\n" },
	/* duplicate names within a file */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n"
	  "---\n"
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a}\n",
	  "t.yaml:7:18: metadata.name: Node \"a\" is defined twice in this "
	  "file\n" },
	/* duplicate namespaced names within a file */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: LocalQueue\n"
	  "metadata: {name: q, namespace: x}\n"
	  "spec: {clusterQueue: a}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: LocalQueue\n"
	  "metadata: {name: q, namespace: x}\n"
	  "spec: {clusterQueue: b}\n",
	  "t.yaml:8:18: metadata.name: LocalQueue \"x/q\" is defined twice "
	  "in this file\n" },
	/* duplicate Job workload within a file */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n"
	  "---\n"
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n",
	  "t.yaml:10:9: metadata.name: Workload \"default/job-j\" is defined "
	  "twice in this file\n" },
	/* JSON: wrong types */
	{ "t.json",
	  "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": "
	  "{\"name\": \"a\", \"labels\": {\"k\": 1}}, \"spec\": "
	  "{\"unschedulable\": \"no\"}}\n",
	  "t.json:1:80: metadata.labels[\"k\"]: must be a string, not 1 "
	  "(quote it)\n"
	  "t.json:1:112: spec.unschedulable: must be a boolean (true or "
	  "false), not the string \"no\"\n" },
};

static const struct msg_case warning_cases[] = {
	/* unknown fields are warnings */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a, colour: red}\n"
	  "foo: 1\n"
	  "spec: {taints: [{key: k, effect: NoSchedule, bar: 1}]}\n",
	  "t.yaml:4:1: warning: unknown field \"foo\" is ignored\n"
	  "t.yaml:3:21: warning: metadata: unknown field \"colour\" is "
	  "ignored\n"
	  "t.yaml:5:46: warning: spec.taints[0]: unknown field \"bar\" is "
	  "ignored\n" },
	/* unknown Pod and container fields */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers:\n"
	  "  - name: c\n"
	  "    image: x\n"
	  "    colour: red\n"
	  "    resources: {requests: {cpu: 1}, claims: [], sizes: {}}\n"
	  "  frobnicate: true\n",
	  "t.yaml:10:3: warning: spec: unknown field \"frobnicate\" is "
	  "ignored\n"
	  "t.yaml:8:5: warning: spec.containers[0]: unknown field \"colour\" "
	  "is ignored\n"
	  "t.yaml:9:49: warning: spec.containers[0].resources: unknown field "
	  "\"sizes\" is ignored\n" },
	/* namespace on a cluster-scoped kind */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: a, namespace: x}\n",
	  "t.yaml:3:32: warning: metadata.namespace: ignored: the kind is "
	  "cluster-scoped\n" },
	/* cohortName in v1beta1, cohort in v1beta2 */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec: {cohortName: c}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq2}\n"
	  "spec: {cohort: c}\n",
	  "t.yaml:4:20: warning: spec.cohortName: ignored: this apiVersion "
	  "calls the field cohort\n"
	  "t.yaml:9:16: warning: spec.cohort: ignored: this apiVersion calls "
	  "the field cohortName\n" },
	/* parent in v1beta1, parentName in v1alpha1 */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Cohort\n"
	  "metadata: {name: a}\n"
	  "spec: {parent: c}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1alpha1\n"
	  "kind: Cohort\n"
	  "metadata: {name: b}\n"
	  "spec: {parentName: c}\n",
	  "t.yaml:4:16: warning: spec.parent: ignored: this apiVersion calls "
	  "the field parentName\n"
	  "t.yaml:9:20: warning: spec.parentName: ignored: this apiVersion "
	  "calls the field parent\n" },
	/* matchFields matches no node */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata: {name: p}\n"
	  "spec:\n"
	  "  containers: [{name: c}]\n"
	  "  affinity:\n"
	  "    nodeAffinity:\n"
	  "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	  "        nodeSelectorTerms:\n"
	  "        - matchFields: [{key: metadata.name, operator: In, "
	  "values: [n]}]\n",
	  "t.yaml:10:11: warning: "
	  "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringEx"
	  "ecution.nodeSelectorTerms[0]: matchFields is not supported; the "
	  "term matches no node\n" },
	/* unknown Workload, Job and Configuration fields */
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w}\n"
	  "spec:\n"
	  "  podSets: [{template: {spec: {containers: [{}]}}, extra: 1}]\n"
	  "  colour: red\n"
	  "---\n"
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec: {template: {spec: {containers: [{}]}}, colour: red}\n"
	  "---\n"
	  "apiVersion: echelon.dev/v1alpha1\n"
	  "kind: Configuration\n"
	  "colour: red\n",
	  "t.yaml:6:3: warning: spec: unknown field \"colour\" is ignored\n"
	  "t.yaml:5:52: warning: spec.podSets[0]: unknown field \"extra\" is "
	  "ignored\n"
	  "t.yaml:12:46: warning: spec: unknown field \"colour\" is ignored\n"
	  "t.yaml:16:1: warning: unknown field \"colour\" is ignored\n" },
	/* known but unused Kubernetes fields */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Pod\n"
	  "metadata:\n"
	  "  name: p\n"
	  "  uid: x\n"
	  "  resourceVersion: \"1\"\n"
	  "  generation: 2\n"
	  "  ownerReferences: []\n"
	  "  finalizers: []\n"
	  "  managedFields: []\n"
	  "  annotations: {a: b}\n"
	  "spec:\n"
	  "  restartPolicy: Always\n"
	  "  serviceAccountName: sa\n"
	  "  schedulerName: default\n"
	  "  volumes: []\n"
	  "  securityContext: {}\n"
	  "  dnsPolicy: ClusterFirst\n"
	  "  terminationGracePeriodSeconds: 30\n"
	  "  priority: 5\n"
	  "  topologySpreadConstraints: []\n"
	  "  schedulingGates: []\n"
	  "  containers:\n"
	  "  - name: c\n"
	  "    image: busybox\n"
	  "    imagePullPolicy: Always\n"
	  "    command: [sh]\n"
	  "    args: [-c, true]\n"
	  "    env: []\n"
	  "    envFrom: []\n"
	  "    ports: [{containerPort: 80}]\n"
	  "    volumeMounts: []\n"
	  "    livenessProbe: {}\n"
	  "    readinessProbe: {}\n"
	  "    startupProbe: {}\n"
	  "    lifecycle: {}\n"
	  "    securityContext: {}\n"
	  "    workingDir: /\n"
	  "    stdin: false\n"
	  "    tty: false\n"
	  "    resources: {requests: {cpu: 1}, claims: []}\n"
	  "status: {phase: Pending, conditions: [], podIP: 1.2.3.4, hostIP: "
	  "1.2.3.4, startTime: x, qosClass: Burstable, containerStatuses: "
	  "[]}\n",
	  "" },
	/* unknown PriorityClass, Job status and ownerReferences fields;
	 * preemptionPolicy is known but unused */
	{ "t.yaml",
	  "apiVersion: scheduling.k8s.io/v1\n"
	  "kind: PriorityClass\n"
	  "metadata: {name: p}\n"
	  "value: 1\n"
	  "preemptionPolicy: Never\n"
	  "colour: red\n"
	  "---\n"
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata: {name: j}\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n"
	  "status: {active: 1, succeeded: 2, colour: red}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: Workload\n"
	  "metadata:\n"
	  "  name: w\n"
	  "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, "
	  "uid: u, colour: red}]\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  "t.yaml:6:1: warning: unknown field \"colour\" is ignored\n"
	  "t.yaml:12:35: warning: status: unknown field \"colour\" is "
	  "ignored\n"
	  "t.yaml:18:72: warning: metadata.ownerReferences[0]: unknown field "
	  "\"colour\" is ignored\n" },
	/* known but unused Job and Workload fields */
	{ "t.yaml",
	  "apiVersion: batch/v1\n"
	  "kind: Job\n"
	  "metadata:\n"
	  "  name: j\n"
	  "spec:\n"
	  "  backoffLimit: 3\n"
	  "  completionMode: Indexed\n"
	  "  suspend: true\n"
	  "  ttlSecondsAfterFinished: 10\n"
	  "  podFailurePolicy: {rules: []}\n"
	  "  template: {spec: {containers: [{name: c}]}}\n"
	  "status: {active: 1}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: Workload\n"
	  "metadata: {name: w2}\n"
	  "spec:\n"
	  "  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass\n"
	  "  podSets: [{template: {spec: {containers: [{}]}}}]\n"
	  "status:\n"
	  "  conditions: []\n"
	  "  requeueState: {count: 1}\n"
	  "  reclaimablePods: []\n",
	  "" },
	/* known but unused Node and queue fields */
	{ "t.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata: {name: n}\n"
	  "spec: {podCIDR: 10.0.0.0/24, providerID: x}\n"
	  "status: {capacity: {cpu: 1}, allocatable: {cpu: 1}}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta1\n"
	  "kind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec: {admissionChecks: [a], namespaceSelector: {}}\n"
	  "---\n"
	  "apiVersion: kueue.x-k8s.io/v1beta2\n"
	  "kind: LocalQueue\n"
	  "metadata: {name: q}\n"
	  "spec: {clusterQueue: cq, stopPolicy: Hold, fairSharing: {weight: "
	  "1}}\n",
	  "" },
};

/* Lines of text that are errors (no "warning: " after the position). */
static size_t count_errors(const char *text)
{
	size_t n = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		const char *eol = strchr(p, '\n');
		const char *w = strstr(p, ": warning: ");

		if (!w || w > eol)
			n++;
	}
	return n;
}

/* Load one case into a fresh cluster; returns the formatted messages. */
static char *load_case(const struct msg_case *tc, struct cluster *c,
		       struct diag *d, int *ret_rc)
{
	struct strbuf sb;
	char *text;

	cluster_init(c);
	diag_init(d);
	strbuf_init(&sb);
	*ret_rc = manifest_load_buffer(c, tc->file, tc->text, strlen(tc->text),
				       d);
	diag_format(d, &sb);
	text = strbuf_take(&sb);
	strbuf_release(&sb);
	return text;
}

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++) {
		const struct msg_case *tc = &error_cases[i];
		struct cluster c;
		struct diag d;
		char *text;
		int rc;

		text = load_case(tc, &c, &d, &rc);
		if (strcmp(text, tc->want) != 0)
			print_error("case %zu:\n%s", i, tc->text);
		assert_string_equal(text, tc->want);
		assert_int_equal(rc, -EINVAL);
		assert_int_equal(d.errors, count_errors(tc->want));
		/* All or nothing: not even the valid objects of the file. */
		for (int k = 0; k < KIND_COUNT; k++)
			assert_int_equal(cluster_count(&c, (enum kind)k), 0);
		assert_int_equal(c.jobs, 0);
		free(text);
		diag_release(&d);
		cluster_release(&c);
	}
}

static void test_warnings(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(warning_cases); i++) {
		const struct msg_case *tc = &warning_cases[i];
		size_t objects = 0;
		struct cluster c;
		struct diag d;
		char *text;
		int rc;

		text = load_case(tc, &c, &d, &rc);
		if (strcmp(text, tc->want) != 0)
			print_error("case %zu:\n%s", i, tc->text);
		assert_string_equal(text, tc->want);
		assert_int_equal(rc, 0);
		assert_int_equal(d.errors, 0);
		assert_int_equal(d.warnings, d.msgs.len);
		for (int k = 0; k < KIND_COUNT; k++)
			objects += cluster_count(&c, (enum kind)k);
		assert_true(objects > 0);
		free(text);
		diag_release(&d);
		cluster_release(&c);
	}
}

/* The same input as YAML and as JSON gives the same messages. */
static void test_json_like_yaml(void **state)
{
	static const struct {
		const char *yaml, *json;
	} cases[] = {
		{ "{apiVersion: v1, kind: Node, metadata: {name: A}}",
		  "{\"apiVersion\": \"v1\", \"kind\": \"Node\", "
		  "\"metadata\": {\"name\": \"A\"}}" },
		{ "{apiVersion: batch/v1, kind: Job, metadata: {name: j}, "
		  "spec: {parallelism: 1.5, template: {spec: {containers: "
		  "[{}]}}}}",
		  "{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\", "
		  "\"metadata\": {\"name\": \"j\"}, \"spec\": "
		  "{\"parallelism\": "
		  "1.5, \"template\": {\"spec\": {\"containers\": "
		  "[{}]}}}}" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct msg_case y = { "t", cases[i].yaml, NULL };
		struct msg_case j = { "t.json", cases[i].json, NULL };
		struct cluster cy, cj;
		struct diag dy, dj;
		char *ty, *tj;
		int rcy, rcj;

		ty = load_case(&y, &cy, &dy, &rcy);
		tj = load_case(&j, &cj, &dj, &rcj);
		assert_int_equal(rcy, -EINVAL);
		assert_int_equal(rcj, -EINVAL);
		assert_int_equal(dy.msgs.len, 1);
		assert_int_equal(dj.msgs.len, 1);
		/* Same path and message; columns differ with the quotes. */
		assert_string_equal(strstr(dy.msgs.items[0].text, ": "),
				    strstr(dj.msgs.items[0].text, ": "));
		free(ty);
		free(tj);
		diag_release(&dy);
		diag_release(&dj);
		cluster_release(&cy);
		cluster_release(&cj);
	}
}

/*
 * A quoted scalar left open at the far right of a long line, continued on a
 * wider line: libfyaml 0.7.12 overran a stack buffer while underlining it in
 * its error report and the loader crashed (found by fuzz_manifest).
 */
static void test_long_open_quote(void **state)
{
	static const struct {
		const char *open; /* text between the key and the scalar */
		int key, width;	  /* key and continuation line lengths */
		const char *want; /* diag_format() of the messages */
	} cases[] = {
		{ ": '", 400, 1000,
		  "t.yaml:1:404: invalid YAML: single-quoted scalar without "
		  "closing quote\n" },
		{ ": \"", 400, 1000,
		  "t.yaml:1:404: invalid YAML: double-quoted scalar without "
		  "closing quote\n" },
		{ ": '", 1000, 2000,
		  "t.yaml:1:1004: invalid YAML: single-quoted scalar without "
		  "closing quote\n" },
		/* in a flow mapping, as the fuzzer found it */
		{ ": {a: '", 400, 1000,
		  "t.yaml:1:408: invalid YAML: single-quoted scalar without "
		  "closing quote\n" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct msg_case tc = { "t.yaml", NULL, cases[i].want };
		struct strbuf in;
		struct cluster c;
		struct diag d;
		char *text;
		int rc;

		strbuf_init(&in);
		for (int k = 0; k < cases[i].key; k++)
			strbuf_addch(&in, 'k');
		strbuf_addf(&in, "%sv\n  ", cases[i].open);
		for (int k = 0; k < cases[i].width; k++)
			strbuf_addch(&in, 'w');
		strbuf_addch(&in, '\n');
		tc.text = in.buf;
		text = load_case(&tc, &c, &d, &rc);
		assert_string_equal(text, tc.want);
		assert_int_equal(rc, -EINVAL);
		free(text);
		diag_release(&d);
		cluster_release(&c);
		strbuf_release(&in);
	}
}

/* A NUL byte anywhere is an error at its position: libfyaml would take it
 * for the end of the text and drop the rest without a word. */
static void test_nul_bytes(void **state)
{
	static const struct {
		const char *file;
		const char text[64];
		size_t len;
		const char *want;
	} cases[] = {
		/* in a plain scalar: "a<NUL>b" loaded as "a" */
		{ "t.yaml",
		  "apiVersion: v1\nkind: Node\nmetadata: {name: a\0b}\n", 47,
		  "t.yaml:3:19: invalid YAML: NUL byte (0x00) in the text\n" },
		/* after the documents: everything after it was ignored */
		{ "t.yaml",
		  "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n\0x", 48,
		  "t.yaml:4:1: invalid YAML: NUL byte (0x00) in the text\n" },
		{ "t.json", "{\"apiVersion\": \"v\0\"}", 20,
		  "t.json:1:18: invalid YAML: NUL byte (0x00) in the text\n" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb;
		struct cluster c;
		struct diag d;

		cluster_init(&c);
		diag_init(&d);
		strbuf_init(&sb);
		assert_int_equal(manifest_load_buffer(&c, cases[i].file,
						      cases[i].text,
						      cases[i].len, &d),
				 -EINVAL);
		diag_format(&d, &sb);
		assert_string_equal(sb.buf, cases[i].want);
		assert_int_equal(cluster_count(&c, KIND_NODE), 0);
		strbuf_release(&sb);
		diag_release(&d);
		cluster_release(&c);
	}
}

/* Duplicates in a large mapping (found through a hash set), and the time
 * it takes stays linear: 100,000 keys load at once. */
static void test_duplicate_key_large_map(void **state)
{
	static const size_t sizes[] = { 17, 1000, 100000 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct strbuf in, out, want;
		struct cluster c;
		struct diag d;

		strbuf_init(&in);
		strbuf_init(&out);
		strbuf_init(&want);
		strbuf_addstr(&in, "apiVersion: v1\nkind: Node\nmetadata:\n"
				   "  name: a\n  annotations:\n");
		for (size_t k = 0; k < sizes[i]; k++)
			strbuf_addf(&in, "    k%zu: v\n", k);
		strbuf_addstr(&in, "    k7: again\n");
		strbuf_addf(&want,
			    "t.yaml:%zu:5: invalid YAML: duplicate key \"k7\" "
			    "(first at line 13, column 5)\n",
			    sizes[i] + 6);
		cluster_init(&c);
		diag_init(&d);
		assert_int_equal(
			manifest_load_buffer(&c, "t.yaml", in.buf, in.len, &d),
			-EINVAL);
		diag_format(&d, &out);
		assert_string_equal(out.buf, want.buf);
		diag_release(&d);
		cluster_release(&c);
		strbuf_release(&in);
		strbuf_release(&out);
		strbuf_release(&want);
	}
}

/* A huge value is cut in the middle of the message: the field and what is
 * wrong stay, the value's bulk goes. */
static void test_long_value_cut(void **state)
{
	struct strbuf in, out;
	struct cluster c;
	struct diag d;
	size_t n = 1 << 20;

	(void)state;
	strbuf_init(&in);
	strbuf_init(&out);
	strbuf_addstr(&in, "apiVersion: v1\nkind: ");
	for (size_t k = 0; k < n; k++)
		strbuf_addch(&in, 'K');
	strbuf_addch(&in, '\n');
	cluster_init(&c);
	diag_init(&d);
	assert_int_equal(manifest_load_buffer(&c, "t.yaml", in.buf, in.len, &d),
			 -EINVAL);
	diag_format(&d, &out);
	assert_true(out.len < 2 * 1024);
	assert_non_null(
		strstr(out.buf, "t.yaml:2:7: kind: unknown kind \"KKK"));
	assert_non_null(strstr(out.buf, " bytes ...]KKK"));
	assert_non_null(strstr(out.buf, "KKK\" (apiVersion \"v1\")\n"));
	diag_release(&d);
	cluster_release(&c);
	strbuf_release(&in);
	strbuf_release(&out);
}

/* Kubernetes' limit: 256 KiB of annotations per object, keys and values
 * together. 300,000 annotations (4.8 MB) are refused at once. */
static void test_annotations_limit(void **state)
{
	static const struct {
		size_t count, value_len;
		const char *want; /* NULL: loads */
	} cases[] = {
		/* 1000 * (6 + 256) = 262000 bytes: just under */
		{ 1000, 256, NULL },
		/* 1000 * (6 + 257) = 263000 bytes */
		{ 1000, 257,
		  "t.yaml:6:5: metadata.annotations: too long: must have at "
		  "most 262144 bytes (keys and values together), not "
		  "263000\n" },
		{ 300000, 4,
		  "t.yaml:6:5: metadata.annotations: too long: must have at "
		  "most 262144 bytes (keys and values together), not "
		  "3000000\n" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf in, out;
		struct cluster c;
		struct diag d;
		int rc;

		strbuf_init(&in);
		strbuf_init(&out);
		strbuf_addstr(&in, "apiVersion: v1\nkind: Node\nmetadata:\n"
				   "  name: a\n  annotations:\n");
		for (size_t k = 0; k < cases[i].count; k++) {
			strbuf_addf(&in, "    %c%05zu: ", 'a' + (int)(k % 26),
				    k % 100000);
			for (size_t v = 0; v < cases[i].value_len; v++)
				strbuf_addch(&in, 'v');
			strbuf_addch(&in, '\n');
		}
		cluster_init(&c);
		diag_init(&d);
		rc = manifest_load_buffer(&c, "t.yaml", in.buf, in.len, &d);
		diag_format(&d, &out);
		if (cases[i].want) {
			assert_int_equal(rc, -EINVAL);
			assert_string_equal(out.buf, cases[i].want);
		} else {
			assert_int_equal(rc, 0);
			assert_string_equal(out.buf, "");
			assert_int_equal(cluster_count(&c, KIND_NODE), 1);
		}
		diag_release(&d);
		cluster_release(&c);
		strbuf_release(&in);
		strbuf_release(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_json_like_yaml),
		cmocka_unit_test(test_long_open_quote),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_duplicate_key_large_map),
		cmocka_unit_test(test_long_value_cut),
		cmocka_unit_test(test_annotations_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
