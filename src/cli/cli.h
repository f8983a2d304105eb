/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The echelon command line: one function per verb, in a file of its own.
 *
 * Each verb takes argv with argv[0] set to the verb's name and returns the
 * process exit status: 0 on success, 1 when the input is bad or the work
 * failed, 2 for a usage error.
 */
#ifndef ECHELON_CLI_H
#define ECHELON_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/compiler.h"
#include "model/cluster.h"

typedef int (*cli_verb_fn)(int argc, char **argv);

struct cli_verb {
	const char *name;
	cli_verb_fn run;
	const char *summary;
};

const struct cli_verb *cli_find_verb(const char *name);
void cli_usage(FILE *out);

/*
 * Load manifests from files and folders into c, printing every error and
 * warning to stderr as "file:line:col: path: message" (warnings only when
 * quiet_warnings is false, or there were errors). Returns 0, or -1 when any
 * error was found (files without errors are still loaded). The number of
 * warnings goes to *ret_warnings unless it is NULL.
 */
int cli_load(struct cluster *c, const char *const *paths, size_t npaths,
	     bool quiet_warnings, size_t *ret_warnings);

int cli_validate(int argc, char **argv);
int cli_place(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_bench_place(int argc, char **argv);
int cli_bench_load(int argc, char **argv);
int cli_bench_sim(int argc, char **argv);
/*
 * Say on stderr, in one line, that an option's value is wrong:
 * "echelon VERB: OPT: WHAT, not "VAL"" (VAL quoted and cut, see
 * text_quote()), then the line of cli_usage_hint(). Returns CLI_BAD_VALUE,
 * which a verb's option parser passes up and turns into exit status 2 without
 * the usage text.
 */
#define CLI_BAD_VALUE 3
/*
 * Usage errors, as kubectl reports them: what was wrong in one line, then
 * where the usage is:
 *   echelon VERB: unknown option --foo
 *   Run 'echelon VERB --help' for usage.
 * cli_usage_error() prints both lines and returns 2, the exit status of a
 * usage error; cli_usage_hint() prints the second alone (after a message
 * of the verb's own). Verbs parse with an optstring that starts with ':'
 * (getopt prints nothing) and pass getopt_long()'s '?' or ':' to
 * cli_getopt_error(), which names the option getopt stopped at (argv
 * ends with NULL, as main()'s does).
 * cli_usage_args() checks what is left after the options: an argument
 * that is not an option, or no -f given (nfiles 0); 0 when all is well,
 * else 2 with the message.
 */
int cli_usage_error(const char *verb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void cli_usage_hint(const char *verb);
int cli_getopt_error(const char *verb, int opt, char *const *argv);
int cli_usage_args(const char *verb, int argc, char *const *argv,
		   size_t nfiles);
/* s (an argument) safe to print: control characters escaped, cut to a
 * couple of hundred bytes (text_quote()). A static buffer, overwritten by
 * the next call. */
const char *cli_quote(const char *s);
int cli_bad_value(const char *verb, const char *opt, const char *val,
		  const char *what);
/* s as a whole number in [min, max], digits only (no sign, no space):
 * 0 and *ret set, or -1. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max,
		  uint64_t *ret) MUST_CHECK;
/*
 * --placement-algorithm: v as a placement algorithm's name into *ret (0),
 * or the error said on stderr (CLI_BAD_VALUE). cli_set_placement_algorithm()
 * makes it the one in force, over the Configuration c loaded (if any).
 */
int cli_parse_placement_algorithm(const char *verb, const char *v,
				  enum placement_algorithm *ret) MUST_CHECK;
void cli_set_placement_algorithm(struct cluster *c, enum placement_algorithm a);
/* For the benchmarks: monotonic wall seconds, CPU seconds of the process
 * and its peak resident set in KiB. */
double cli_now_s(void);
double cli_cpu_s(void);
long cli_peak_rss_kb(void);
int cli_plan(int argc, char **argv);
int cli_sim(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_explain(int argc, char **argv);
int cli_bench_admit(int argc, char **argv);
int cli_bench_churn(int argc, char **argv);
int cli_bench_forecast(int argc, char **argv);
int cli_bench_serve(int argc, char **argv);
int cli_bench_kube(int argc, char **argv);
int cli_version(int argc, char **argv);
int cli_help(int argc, char **argv);

#endif
