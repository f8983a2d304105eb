// SPDX-License-Identifier: Apache-2.0
/*
 * Reading option values shared by the verbs.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
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

void cli_usage_hint(const char *verb)
{
	fprintf(stderr, "Run 'echelon %s --help' for usage.\n", verb);
}

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "echelon %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cli_usage_hint(verb);
	return 2;
}

int cli_getopt_error(const char *verb, int opt, char *const *argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *cur = argv[optind]; /* argv ends with NULL */
	size_t len = strcspn(arg, "=");
	char *name;
	int rc;

	/* inside a cluster of short options ("-xq"), getopt has not moved
	 * past it yet: the word is the current one, not the one before */
	if (cur && cur[0] == '-' && cur[1] && cur[1] != '-' && optopt > 0 &&
	    strchr(cur + 1, optopt))
		arg = cur;
	if (strncmp(arg, "--", 2) != 0) { /* a short option: its letter */
		if (opt == ':')
			return cli_usage_error(verb, "option -%c needs a value",
					       optopt);
		if (optopt > ' ' && optopt < 0x7f)
			return cli_usage_error(verb, "unknown option -%c",
					       optopt);
		return cli_usage_error(verb, "unknown option");
	}
	name = xstrndup(arg, len);
	if (opt == ':')
		rc = cli_usage_error(verb, "option %s needs a value",
				     cli_quote(name));
	else if (optopt && arg[len] == '=')
		rc = cli_usage_error(verb, "option %s takes no value",
				     cli_quote(name));
	else
		rc = cli_usage_error(verb, "unknown option %s",
				     cli_quote(name));
	free(name);
	return rc;
}

int cli_usage_args(const char *verb, int argc, char *const *argv, size_t nfiles)
{
	if (optind < argc)
		return cli_usage_error(verb, "unexpected argument \"%s\"",
				       cli_quote(argv[optind]));
	if (!nfiles)
		return cli_usage_error(verb, "missing -f FILE (a manifest "
					     "file or folder)");
	return 0;
}

int cli_bad_value(const char *verb, const char *opt, const char *val,
		  const char *what)
{
	fprintf(stderr, "echelon %s: %s: %s, not \"%s\"\n", verb, opt, what,
		cli_quote(val));
	cli_usage_hint(verb);
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
