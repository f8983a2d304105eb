/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Durations as text: the one grammar of every duration field (manifests,
 * annotations, traces, command-line options), to int64_t microseconds.
 *
 * duration_parse() reads Go's time.ParseDuration syntax; the simulator's
 * times also take a plain number of seconds (duration_parse_seconds(),
 * JSON's number syntax, as traces write them), and duration_parse_time()
 * takes either. All read exactly (no floating point) and round to the
 * nearest microsecond, halves away from zero ("1500ns" is 2 us, "-1500ns"
 * -2 us). Values beyond DURATION_MAX_SECONDS are errors, so that
 * sums of a few times cannot overflow. The functions are pure: they read
 * n bytes of s (no terminator needed) and write *ret_us only on success;
 * an error is -EINVAL (syntax, or a sign the form refuses) or -ERANGE,
 * with a message for the user in eb (may be NULL) that names the
 * offending character when the syntax is wrong; the caller adds where
 * the text came from.
 */
#ifndef ECHELON_BASE_DURATION_H
#define ECHELON_BASE_DURATION_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"

/* About 317 years. */
#define DURATION_MAX_SECONDS 10000000000LL
#define DURATION_MAX_US	     (DURATION_MAX_SECONDS * 1000000)

/*
 * Go's duration syntax: an optional sign, then "0" or one or more
 * decimal numbers (digits with an optional fraction, ".5" and "1." too)
 * each followed by a unit: ns, us, µs (U+00B5 or U+03BC), ms, s, m or h
 * ("1h30m", "1.5h", "-90s", "1500ns"). Fraction digits past the 18th are
 * dropped. The value may be negative; |value| > DURATION_MAX_US is
 * -ERANGE. Syntax errors say what is wrong at which character (1-based):
 * must be a duration such as "90s", "5m" or "1h30m", not "1h-5m":
 * expected a number at character 3
 */
int duration_parse(const char *s, size_t n, int64_t *ret_us,
		   struct errbuf *eb) MUST_CHECK;

/*
 * A non-negative number of seconds in JSON's number syntax ("12", "0.5",
 * "1.5e3"; a leading '+' is allowed), rounded half up to the
 * microsecond. -EINVAL (not a number, negative) or -ERANGE (over
 * DURATION_MAX_SECONDS).
 */
int duration_parse_seconds(const char *s, size_t n, int64_t *ret_us,
			   struct errbuf *eb) MUST_CHECK;

/*
 * A simulation time: a number of seconds as duration_parse_seconds() reads
 * it ("3600", "1.5"), or a Go duration as duration_parse() reads it
 * ("90s", "1h30m"); which one by the last character (a digit or '.' is a
 * number). Negative values are -EINVAL ("must not be negative"); 0 is
 * accepted (callers that need a positive value check).
 */
int duration_parse_time(const char *s, size_t n, int64_t *ret_us,
			struct errbuf *eb) MUST_CHECK;

#endif
