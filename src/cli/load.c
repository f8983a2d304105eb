// SPDX-License-Identifier: Apache-2.0
/*
 * Loading manifests for the offline verbs: run the manifest loader over
 * the -f paths and print its diagnostics to standard error.
 */
#include "cli/cli.h"

#include "base/strbuf.h"
#include "manifest/manifest.h"

#include "base/banned.h"

int cli_load(struct cluster *c, const char *const *paths, size_t npaths,
	     bool quiet_warnings, size_t *ret_warnings)
{
	struct strbuf sb;
	struct diag d;
	int rc;

	diag_init(&d);
	rc = manifest_load_paths(c, paths, npaths, &d);
	strbuf_init(&sb);
	if (!quiet_warnings || d.errors) {
		diag_format(&d, &sb);
		fputs(sb.buf, stderr);
	}
	if (d.errors)
		fprintf(stderr, "%zu error(s), %zu warning(s)\n", d.errors,
			d.warnings);
	if (ret_warnings)
		*ret_warnings = d.warnings;
	strbuf_release(&sb);
	diag_release(&d);
	return rc < 0 ? -1 : 0;
}
