// SPDX-License-Identifier: Apache-2.0
/*
 * Durations as text, read exactly: Go's duration syntax summed in units of
 * 10^-18 ns (so that every fraction of up to 18 digits is exact), numbers
 * of seconds as digit strings with a decimal point. The only parser of
 * durations in echelon; see duration.h for the grammar.
 */
#include "base/duration.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/compiler.h"

#include "base/banned.h"

/* Go's duration units, in nanoseconds. */
static const struct {
	const char *name;
	int64_t ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "\xc2\xb5s", 1000 }, /* U+00B5 micro sign */
	{ "\xce\xbcs", 1000 }, /* U+03BC Greek mu */
	{ "ms", 1000000 },
	{ "s", 1000000000 },
	{ "m", 60000000000LL },
	{ "h", 3600000000000LL },
};

/* Sums are kept in units of 10^-18 ns, and capped past twice the largest
 * duration allowed (in ns), which keeps them far from overflowing. */
#define FRAC_ONE 1000000000000000000ULL
#define CAP_NS	 ((unsigned __int128)DURATION_MAX_SECONDS * 2000000000)
/* What the messages quote of the input, at most. */
#define QUOTE_MAX 64

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int unit_ns(const char *s, size_t len, int64_t *ret_ns)
{
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		if (strlen(units[u].name) == len &&
		    memcmp(s, units[u].name, len) == 0) {
			*ret_ns = units[u].ns;
			return 0;
		}
	}
	return -EINVAL;
}

/* The 1-based character (not byte: UTF-8) of s[i]. */
static size_t column(const char *s, size_t i)
{
	size_t col = 1;

	for (size_t k = 0; k < i; k++)
		col += ((unsigned char)s[k] & 0xc0) != 0x80;
	return col;
}

/*
 * The magnitude of the Go duration s[off..n) (s[0..off) is its sign), in
 * microseconds rounded half up, capped just above DURATION_MAX_US. On a
 * syntax error -EINVAL, with what is wrong and where (in s) in why.
 */
static int magnitude(const char *s, size_t n, size_t off, int64_t *ret_us,
		     char *why, size_t whylen)
{
	const unsigned __int128 cap = CAP_NS * FRAC_ONE;
	unsigned __int128 total = 0, whole_ns;
	size_t i = off;

	if (n - off == 1 && s[off] == '0') {
		*ret_us = 0;
		return 0;
	}
	if (i == n) {
		snprintf(why, whylen, "expected a number at character %zu",
			 column(s, i));
		return -EINVAL;
	}
	while (i < n) {
		unsigned __int128 whole = 0;
		uint64_t frac = 0, scale = 1;
		bool pre = false, post = false;
		size_t start = i, u;
		int64_t unit;

		for (; i < n && is_digit(s[i]); i++, pre = true)
			if (whole < CAP_NS)
				whole = whole * 10 + (unsigned)(s[i] - '0');
		if (i < n && s[i] == '.')
			for (i++; i < n && is_digit(s[i]); i++, post = true)
				if (scale < FRAC_ONE) {
					frac = frac * 10 +
					       (uint64_t)(s[i] - '0');
					scale *= 10;
				}
		if (!pre && !post) {
			snprintf(why, whylen,
				 "expected a number at character %zu",
				 column(s, start));
			return -EINVAL;
		}
		for (u = i; u < n && s[u] != '.' && !is_digit(s[u]); u++)
			;
		if (u == i) {
			snprintf(why, whylen, "missing unit at character %zu",
				 column(s, i));
			return -EINVAL;
		}
		if (unit_ns(s + i, u - i, &unit) < 0) {
			snprintf(why, whylen,
				 "unknown unit \"%.*s\" at character %zu "
				 "(expected ns, us, ms, s, m or h)",
				 (int)(u - i > 16 ? 16 : u - i), s + i,
				 column(s, i));
			return -EINVAL;
		}
		i = u;
		whole_ns = whole * (uint64_t)unit;
		if (whole_ns > CAP_NS)
			total = cap;
		else
			total += whole_ns * FRAC_ONE +
				 (unsigned __int128)frac * (FRAC_ONE / scale) *
					 (uint64_t)unit;
		if (total > cap)
			total = cap;
	}
	/* 1 us is 10^3 * 10^18 units; the cap still fits an int64 in us */
	*ret_us = (int64_t)((total + 500 * (unsigned __int128)FRAC_ONE) /
			    (1000 * (unsigned __int128)FRAC_ONE));
	return 0;
}

/* duration_parse() with the syntax error's detail in why. */
static int go_duration(const char *s, size_t n, int64_t *ret_us, char *why,
		       size_t whylen)
{
	size_t sign = n > 0 && (s[0] == '-' || s[0] == '+');
	int64_t us;

	if (magnitude(s, n, sign, &us, why, whylen) < 0)
		return -EINVAL;
	if (us > DURATION_MAX_US)
		return -ERANGE;
	*ret_us = sign && s[0] == '-' ? -us : us;
	return 0;
}

static int too_big(struct errbuf *eb, bool neg)
{
	return errbuf_set(eb, -ERANGE, "must be at %s %s%lld seconds",
			  neg ? "least" : "most", neg ? "-" : "",
			  (long long)DURATION_MAX_SECONDS);
}

int duration_parse(const char *s, size_t n, int64_t *ret_us, struct errbuf *eb)
{
	char why[128];
	int64_t us;
	int rc = go_duration(s, n, &us, why, sizeof(why));

	if (rc == -EINVAL)
		return errbuf_set(eb, rc,
				  "must be a duration such as \"90s\", \"5m\" "
				  "or \"1h30m\", not \"%.*s\": %s",
				  (int)(n > QUOTE_MAX ? QUOTE_MAX : n), s, why);
	if (rc < 0)
		return too_big(eb, s[0] == '-');
	*ret_us = us;
	return 0;
}

/* Digits of a decimal number without leading zeros, and the position of
 * its decimal point relative to them. */
struct decimal {
	char digits[40];
	int ndigits;
	int64_t point;
};

static int scan_decimal(const char *s, size_t n, struct decimal *dec)
{
	size_t i = 0;
	int64_t exp = 0;
	bool any = false, neg_exp = false, frac = false;

	memset(dec, 0, sizeof(*dec));
	if (i < n && s[i] == '+')
		i++;
	for (; i < n && (s[i] == '.' || (s[i] >= '0' && s[i] <= '9')); i++) {
		if (s[i] == '.') {
			if (frac)
				return -EINVAL;
			frac = true;
			continue;
		}
		any = true;
		if (dec->ndigits == 0 && s[i] == '0') {
			dec->point -= frac;
			continue;
		}
		/* digits past the 40th cannot reach the microsecond */
		if (dec->ndigits < (int)sizeof(dec->digits))
			dec->digits[dec->ndigits++] = s[i];
		dec->point += !frac;
	}
	if (!any)
		return -EINVAL;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			neg_exp = s[i++] == '-';
		if (i >= n)
			return -EINVAL;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (exp < 100000)
				exp = exp * 10 + (s[i] - '0');
	}
	if (i != n)
		return -EINVAL;
	dec->point += neg_exp ? -exp : exp;
	return 0;
}

int duration_parse_seconds(const char *s, size_t n, int64_t *ret_us,
			   struct errbuf *eb)
{
	struct decimal dec;
	int64_t us = 0;
	int64_t keep; /* digits left of the microsecond point */

	if (n > 0 && s[0] == '-' && n > 1)
		return errbuf_set(eb, -EINVAL, "must not be negative");
	if (scan_decimal(s, n, &dec) < 0)
		return errbuf_set(eb, -EINVAL, "\"%.*s\" is not a number",
				  (int)(n > 40 ? 40 : n), s);
	keep = dec.point + 6;
	if (dec.ndigits > 0 && keep > 18)
		return errbuf_set(eb, -ERANGE, "must be at most %lld seconds",
				  (long long)DURATION_MAX_SECONDS);
	for (int64_t i = 0; i < keep; i++)
		us = us * 10 + (i < dec.ndigits ? dec.digits[i] - '0' : 0);
	/* round half up on the first digit dropped */
	if (keep >= 0 && keep < dec.ndigits && dec.digits[keep] >= '5')
		us++;
	if (us > DURATION_MAX_SECONDS * 1000000)
		return errbuf_set(eb, -ERANGE, "must be at most %lld seconds",
				  (long long)DURATION_MAX_SECONDS);
	*ret_us = us;
	return 0;
}

int duration_parse_time(const char *s, size_t n, int64_t *ret_us,
			struct errbuf *eb)
{
	size_t sign = n > 0 && (s[0] == '-' || s[0] == '+');
	const char *body = s + sign;
	size_t len = n - sign;
	char why[128] = "";
	int64_t us = 0;
	int rc;

	if (len == 0 || body[0] == '-' || body[0] == '+')
		rc = -EINVAL;
	else if (is_digit(body[len - 1]) || body[len - 1] == '.')
		rc = duration_parse_seconds(body, len, &us, NULL);
	else
		rc = go_duration(s, n, &us, why, sizeof(why));
	if (rc == -EINVAL)
		return errbuf_set(eb, -EINVAL,
				  "must be a number of seconds or a duration "
				  "such as \"90s\", \"45m\" or \"1h30m\", not "
				  "\"%.*s\"%s%s",
				  (int)(n > QUOTE_MAX ? QUOTE_MAX : n), s,
				  why[0] ? ": " : "", why);
	if (s[0] == '-')
		return errbuf_set(eb, -EINVAL, "must not be negative");
	if (rc < 0)
		return too_big(eb, false);
	*ret_us = us;
	return 0;
}
