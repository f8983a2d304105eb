// SPDX-License-Identifier: Apache-2.0
/*
 * The map from the embedded clock to the wall-clock times timestamps
 * show, and back: a short list of linear segments searched from the
 * newest (most timestamps are recent). Arithmetic is in long double so
 * that years of microseconds times a large speed stay exact enough; the
 * way back rounds up, so a stamp parsed and formatted again is the same
 * text (see timemap.h).
 */
#include "base/timemap.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/banned.h"

static struct timemap_seg segs[TIMEMAP_MAX];
static size_t nsegs;

static bool valid(const struct timemap_seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!(s[i].speed > 0) || !isfinite(s[i].speed))
			return false;
		if (i && (s[i].clock_us < s[i - 1].clock_us ||
			  s[i].wall_us < s[i - 1].wall_us))
			return false;
	}
	return true;
}

int timemap_set(const struct timemap_seg *s, size_t n)
{
	if (n && (!s || !valid(s, n)))
		return -EINVAL;
	if (n > TIMEMAP_MAX) {
		s += n - TIMEMAP_MAX;
		n = TIMEMAP_MAX;
	}
	if (n)
		memcpy(segs, s, n * sizeof(*s));
	nsegs = n;
	return 0;
}

const struct timemap_seg *timemap_get(size_t *ret_n)
{
	*ret_n = nsegs;
	return nsegs ? segs : NULL;
}

void timemap_start(int64_t clock_us, int64_t wall_us, double speed)
{
	int64_t at;

	if (!nsegs)
		segs[nsegs++] = (struct timemap_seg){ 0, 0, 1 };
	at = timemap_wall(clock_us);
	if (clock_us < segs[nsegs - 1].clock_us)
		clock_us = segs[nsegs - 1].clock_us;
	if (wall_us < at)
		wall_us = at;
	if (!(speed > 0) || !isfinite(speed))
		speed = 1;
	if (nsegs == TIMEMAP_MAX) {
		memmove(segs, segs + 1, (TIMEMAP_MAX - 1) * sizeof(*segs));
		nsegs--;
	}
	segs[nsegs++] = (struct timemap_seg){ clock_us, wall_us, speed };
}

static int64_t clamp(long double v)
{
	if (v >= (long double)INT64_MAX)
		return INT64_MAX;
	if (v <= (long double)INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

int64_t timemap_wall(int64_t clock_us)
{
	size_t k = nsegs;
	const struct timemap_seg *s;

	if (!nsegs)
		return clock_us;
	while (k > 1 && segs[k - 1].clock_us > clock_us)
		k--;
	s = &segs[k - 1];
	return clamp(roundl((long double)s->wall_us +
			    ((long double)clock_us - s->clock_us) / s->speed));
}

int64_t timemap_clock(int64_t wall_us)
{
	size_t k = nsegs;
	const struct timemap_seg *s;
	int64_t c;

	if (!nsegs)
		return wall_us;
	while (k > 1 && segs[k - 1].wall_us > wall_us)
		k--;
	s = &segs[k - 1];
	c = clamp(ceill((long double)s->clock_us +
			((long double)wall_us - s->wall_us) * s->speed));
	/* Between two runs: the start of the later one. */
	if (k < nsegs && c > segs[k].clock_us)
		c = segs[k].clock_us;
	return c;
}

const char *timemap_format(char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < nsegs && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%lld:%lld:%.17g",
				 i ? ";" : "", (long long)segs[i].clock_us,
				 (long long)segs[i].wall_us, segs[i].speed);

		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0'; /* whole segments only */
			break;
		}
		len += (size_t)n;
	}
	return buf;
}

int timemap_parse(const char *text, struct timemap_seg *out)
{
	size_t n = 0;
	const char *p = text;

	if (!text)
		return -EINVAL;
	while (*p) {
		long long c, w;
		double sp;
		int used = 0;

		if (n == TIMEMAP_MAX ||
		    sscanf(p, "%lld:%lld:%lg%n", &c, &w, &sp, &used) != 3)
			return -EINVAL;
		out[n++] = (struct timemap_seg){ c, w, sp };
		p += used;
		if (*p == ';' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	return valid(out, n) ? (int)n : -EINVAL;
}
