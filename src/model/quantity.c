// SPDX-License-Identifier: Apache-2.0
/*
 * Exact parsing and canonical formatting of Kubernetes quantities.
 *
 * The text is split into sign, mantissa digits and suffix, giving the value
 * digits * 10^exp10 * 2^exp2. The digits are kept as a little-endian decimal
 * array, multiplied by two exp2 times, and the power of ten then only moves
 * the decimal point: the digits below it decide the rounding, the digits
 * above it are the integer part. No step uses floating point, and the
 * length limit on the input bounds every array.
 */
#include "model/quantity.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* Exponents beyond this are saturated: any nonzero digit overflows (or
 * rounds up to one unit) long before. */
#define EXP_LIMIT 100000
/* Digits of the mantissa, grown by at most 19 through a 2^60 suffix. */
#define DIGITS_MAX (QUANTITY_MAX_LEN + 24)
/* Decimal digits of INT64_MAX. */
#define INT64_DIGITS 19
/* Room for a quoted, escaped copy of the input or of a suffix. */
#define QUOTE_MAX (4 * QUANTITY_MAX_LEN + 16)

struct mantissa {
	bool negative;
	unsigned char d[DIGITS_MAX]; /* d[0] least significant; no leading 0 */
	int n;			     /* digits in use; 0 for the value zero */
	int exp10;
	int exp2;
};

struct suffix {
	const char *text;
	int exp10;
	int exp2;
};

static const struct suffix suffixes[] = {
	{ "", 0, 0 },	 { "n", -9, 0 },  { "u", -6, 0 },  { "m", -3, 0 },
	{ "k", 3, 0 },	 { "M", 6, 0 },	  { "G", 9, 0 },   { "T", 12, 0 },
	{ "P", 15, 0 },	 { "E", 18, 0 },  { "Ki", 0, 10 }, { "Mi", 0, 20 },
	{ "Gi", 0, 30 }, { "Ti", 0, 40 }, { "Pi", 0, 50 }, { "Ei", 0, 60 },
};

/* Copy s into buf, escaping what would not print, at most max bytes of s. */
static void quote(const char *s, size_t max, char *buf, size_t size)
{
	size_t len = 0, i;

	for (i = 0; s[i] && i < max && len + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			len += snprintf(buf + len, size - len, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			len += snprintf(buf + len, size - len, "\\x%02x", c);
		else
			buf[len++] = (char)c;
	}
	if (s[i])
		len += snprintf(buf + len, size - len, "...");
	buf[len] = '\0';
}

static int fail(struct errbuf *eb, int err, const char *s, const char *fmt, ...)
	PRINTF_LIKE(4, 5);

/* Fill eb with '"<s>": <message>' and return err. */
static int fail(struct errbuf *eb, int err, const char *s, const char *fmt, ...)
{
	char q[QUOTE_MAX], msg[ERRBUF_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	quote(s, QUANTITY_MAX_LEN, q, sizeof(q));
	return errbuf_set(eb, err, "\"%s\": %s", q, msg);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Read digits with an optional '.' into m; return the bytes consumed. */
static size_t scan_number(const char *s, struct mantissa *m, bool *ret_any)
{
	size_t i = 0;
	int digits = 0;
	char rev[QUANTITY_MAX_LEN];
	bool point = false;

	for (;; i++) {
		if (s[i] == '.' && !point) {
			point = true;
			continue;
		}
		if (!is_digit(s[i]))
			break;
		*ret_any = true;
		if (point)
			m->exp10--;
		if (digits || s[i] != '0')
			rev[digits++] = s[i];
	}
	m->n = digits;
	for (int k = 0; k < digits; k++)
		m->d[k] = (unsigned char)(rev[digits - 1 - k] - '0');
	return i;
}

/* Parse "e3", "E-3", "e+12" (after the 'e') into *ret_exp, saturating. */
static bool scan_exponent(const char *s, int *ret_exp)
{
	bool neg = false;
	int e = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!is_digit(*s))
		return false;
	for (; is_digit(*s); s++) {
		e = e * 10 + (*s - '0');
		if (e > EXP_LIMIT)
			e = EXP_LIMIT;
	}
	if (*s)
		return false;
	*ret_exp = neg ? -e : e;
	return true;
}

static int apply_suffix(const char *s, const char *suf, struct mantissa *m,
			struct errbuf *eb)
{
	char q[QUOTE_MAX];
	int e;

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		if (!strcmp(suf, suffixes[i].text)) {
			m->exp10 += suffixes[i].exp10;
			m->exp2 = suffixes[i].exp2;
			return 0;
		}
	}
	quote(suf, QUANTITY_MAX_LEN, q, sizeof(q));
	if ((suf[0] == 'e' || suf[0] == 'E') &&
	    (is_digit(suf[1]) || suf[1] == '+' || suf[1] == '-')) {
		if (!scan_exponent(suf + 1, &e))
			return fail(eb, -EINVAL, s, "malformed exponent \"%s\"",
				    q);
		m->exp10 += e;
		return 0;
	}
	return fail(eb, -EINVAL, s, "unknown suffix \"%s\"", q);
}

/* Split s into sign, digits and suffix. */
static int scan(const char *s, struct mantissa *m, struct errbuf *eb)
{
	const char *p = s;
	bool any = false;

	if (*p == '+' || *p == '-')
		m->negative = *p++ == '-';
	p += scan_number(p, m, &any);
	if (!any) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
			return fail(eb, -EINVAL, s,
				    "missing number before the suffix");
		return fail(eb, -EINVAL, s, "malformed number");
	}
	if (is_digit(*p) || *p == '.' || *p == '+' || *p == '-')
		return fail(eb, -EINVAL, s, "malformed number");
	return apply_suffix(s, p, m, eb);
}

static void double_digits(struct mantissa *m)
{
	int carry = 0;

	for (int i = 0; i < m->n; i++) {
		int v = m->d[i] * 2 + carry;

		m->d[i] = (unsigned char)(v % 10);
		carry = v / 10;
	}
	if (carry)
		m->d[m->n++] = (unsigned char)carry;
}

/*
 * The integer part of m in *ret_int and whether a fraction remains in
 * *ret_frac; false when the integer part does not fit in 19 digits.
 */
static bool integer_part(struct mantissa *m, uint64_t *ret_int, bool *ret_frac)
{
	uint64_t v = 0;
	int low = 0, zeros = 0;

	for (int i = 0; i < m->exp2 && m->n; i++)
		double_digits(m);
	*ret_frac = false;
	if (m->exp10 >= 0) {
		zeros = m->exp10;
	} else {
		low = -m->exp10 < m->n ? -m->exp10 : m->n;
		for (int i = 0; i < low; i++)
			*ret_frac |= m->d[i] != 0;
	}
	if (m->n && m->n - low + zeros > INT64_DIGITS)
		return false;
	for (int i = m->n - 1; i >= low; i--)
		v = v * 10 + m->d[i];
	for (int i = 0; i < zeros && v; i++)
		v *= 10;
	*ret_int = v;
	return true;
}

static int convert(const char *s, struct mantissa *m, enum quantity_kind kind,
		   int64_t *ret_value, struct errbuf *eb)
{
	const char *unit = kind == QUANTITY_MILLI ? "m" : "";
	uint64_t v;
	bool frac;

	if (kind == QUANTITY_MILLI)
		m->exp10 += 3;
	if (!integer_part(m, &v, &frac) || v > INT64_MAX ||
	    (frac && v == INT64_MAX))
		return fail(eb, -ERANGE, s, "too large (over %" PRId64 "%s)",
			    INT64_MAX, unit);
	if (frac && kind == QUANTITY_UNITS)
		return fail(eb, -EINVAL, s, "must be a whole number");
	*ret_value = (int64_t)v + frac;
	return 0;
}

int quantity_parse(const char *s, enum quantity_kind kind, int64_t *ret_value,
		   struct errbuf *eb)
{
	struct mantissa m = { 0 };
	size_t len = strnlen(s, QUANTITY_MAX_LEN + 1);
	int err;

	BUG_ON((unsigned int)kind >= QUANTITY_KIND_COUNT);
	if (len == 0)
		return fail(eb, -EINVAL, s, "empty quantity");
	if (len > QUANTITY_MAX_LEN)
		return fail(eb, -EINVAL, s, "too long (over %d characters)",
			    QUANTITY_MAX_LEN);
	if (strpbrk(s, " \t\n\v\f\r"))
		return fail(eb, -EINVAL, s, "must not contain whitespace");
	err = scan(s, &m, eb);
	if (err < 0)
		return err;
	if (m.negative && m.n)
		return fail(eb, -EINVAL, s, "must not be negative");
	return convert(s, &m, kind, ret_value, eb);
}

/* Bytes in a suffix: 1024^k for the binary ones, 1000^k for the others. */
static void largest_suffix(uint64_t v, bool binary, char *buf, size_t size)
{
	static const char *const bin[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	static const char *const dec[] = { "k", "M", "G", "T", "P", "E" };
	uint64_t step = binary ? 1024 : 1000, unit = 1;
	int k = 0;

	while (k < 6 && v % (unit * step) == 0) {
		unit *= step;
		k++;
	}
	snprintf(buf, size, "%" PRIu64 "%s", v / unit,
		 k == 0	  ? ""
		 : binary ? bin[k - 1]
			  : dec[k - 1]);
}

/*
 * The shortest of the forms with the largest binary suffix, with the
 * largest decimal suffix and with none; on a tie binary, then decimal.
 */
static void format_bytes(uint64_t v, struct strbuf *out)
{
	char bin[32], dec[32];

	if (!v) {
		strbuf_addch(out, '0');
		return;
	}
	largest_suffix(v, true, bin, sizeof(bin));
	largest_suffix(v, false, dec, sizeof(dec));
	strbuf_addstr(out, strlen(bin) <= strlen(dec) ? bin : dec);
}

void quantity_format(int64_t value, enum quantity_kind kind, struct strbuf *out)
{
	/* The magnitude, computed so that INT64_MIN does not overflow. */
	uint64_t v = value < 0 ? -(uint64_t)value : (uint64_t)value;

	BUG_ON((unsigned int)kind >= QUANTITY_KIND_COUNT);
	if (value < 0)
		strbuf_addch(out, '-');
	switch (kind) {
	case QUANTITY_MILLI:
		if (v % 1000 == 0)
			strbuf_addf(out, "%" PRIu64, v / 1000);
		else
			strbuf_addf(out, "%" PRIu64 "m", v);
		break;
	case QUANTITY_BYTES:
		format_bytes(v, out);
		break;
	default:
		strbuf_addf(out, "%" PRIu64, v);
		break;
	}
}
