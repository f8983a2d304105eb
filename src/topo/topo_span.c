// SPDX-License-Identifier: Apache-2.0
/*
 * Placement summaries: the domains spanned per level against the fewest
 * possible, by the topology index's own counts (the figures compact gangs
 * are judged by).
 */
#include "topo/topo_span.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/topology.h"

#include "base/banned.h"

/* The last word of a level's label: after the last '/', '-' or '.'. */
static void level_word(const struct topology *tp, size_t l, struct strbuf *out)
{
	const char *label = tp->levels[l], *w = label;

	if (strcmp(label, TOPOLOGY_HOSTNAME_LABEL) == 0) {
		strbuf_addstr(out, "host");
		return;
	}
	for (const char *p = label; *p; p++) {
		if ((*p == '/' || *p == '-' || *p == '.') && p[1])
			w = p + 1;
	}
	strbuf_addstr(out, w);
}

void topo_span_summary(const struct topo *t, const uint32_t *n, size_t count,
		       const struct resvec *req, struct strbuf *out)
{
	uint32_t *tmp = xcalloc(count + 1, sizeof(*tmp));

	for (size_t k = t->nlevels; k-- > 0;) {
		int32_t used =
			topo_domains_spanned(t, n, count, (unsigned)k, tmp);

		strbuf_addf(out, "%s%d ", k + 1 == t->nlevels ? "" : ", ",
			    used);
		level_word(t->topology, k, out);
		if (used != 1)
			strbuf_addch(out, 's');
		if (k + 1 < t->nlevels)
			strbuf_addf(out, " (min %d)",
				    topo_fewest_domains(t, (unsigned)k, req,
							(int32_t)count));
	}
	free(tmp);
}
