// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the duration parsers: every input is read as a Go
 * duration, a number of seconds and a simulation time. A success stays in
 * range and reads back the same from its microseconds; the Go and time
 * forms agree where both apply; a failure leaves the output alone and
 * explains itself.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/duration.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* rc, us and the message of one parse obey the common contract. */
static void check(int rc, int64_t us, const struct errbuf *eb)
{
	if (rc < 0) {
		BUG_ON(rc != -EINVAL && rc != -ERANGE);
		BUG_ON(us != INT64_MIN || eb->msg[0] == '\0');
		return;
	}
	BUG_ON(rc != 0 || us > DURATION_MAX_US || us < -DURATION_MAX_US);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	int64_t go = INT64_MIN, sec = INT64_MIN, t = INT64_MIN, back = -1;
	struct errbuf eb = { "" };
	char buf[32];
	int rc_go, rc;

	if (size > 256)
		return 0;
	rc_go = duration_parse(s, size, &go, &eb);
	check(rc_go, go, &eb);
	eb.msg[0] = '\0';
	rc = duration_parse_seconds(s, size, &sec, &eb);
	check(rc, sec, &eb);
	BUG_ON(rc == 0 && sec < 0);
	eb.msg[0] = '\0';
	rc = duration_parse_time(s, size, &t, &eb);
	check(rc, t, &eb);
	BUG_ON(rc == 0 && t < 0);
	/* a time that does not end in a digit or '.' is a Go duration */
	if (size > 0 && rc_go == 0 && go >= 0 && s[0] != '-' &&
	    !(s[size - 1] >= '0' && s[size - 1] <= '9') && s[size - 1] != '.')
		BUG_ON(rc != 0 || t != go);
	if (rc_go == 0) {
		snprintf(buf, sizeof(buf), "%lldus", (long long)go);
		BUG_ON(duration_parse(buf, strlen(buf), &back, NULL) != 0);
		BUG_ON(back != go);
	}
	return 0;
}
