// SPDX-License-Identifier: Apache-2.0
/*
 * Reading option values shared by the verbs.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

#include "base/banned.h"

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9') /* strtoull would take "-1" and " 1" */
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || v < min || v > max)
		return -1;
	*ret = v;
	return 0;
}

const char *cli_quote(const char *s)
{
	static char buf[256];

	text_quote_buf(buf, sizeof(buf), s, strlen(s), 200);
	return buf;
}

int cli_bad_value(const char *verb, const char *opt, const char *val,
		  const char *what)
{
	fprintf(stderr, "echelon %s: %s: %s, not \"%s\"\n", verb, opt, what,
		cli_quote(val));
	return CLI_BAD_VALUE;
}

int cli_parse_placement_algorithm(const char *verb, const char *v,
				  enum placement_algorithm *ret)
{
	if (placement_algorithm_parse(v, ret) == 0)
		return 0;
	return cli_bad_value(verb, "--placement-algorithm", v,
			     "expected Mixed, BestFit, LeastFreeCapacity or "
			     "FragmentationAware");
}

void cli_set_placement_algorithm(struct cluster *c, enum placement_algorithm a)
{
	c->default_config.placement.algorithm = a;
	vec_foreach (&c->configs, cfg)
		cfg->placement.algorithm = a;
}
