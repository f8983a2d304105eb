/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The times that timestamps show. echelon serve runs its embedded
 * cluster on a clock that may run faster than the wall clock (--speed),
 * yet clients such as kubectl compare the timestamps in objects with
 * their own clock: a timestamp ahead of it prints as "<invalid>". So
 * every instant of the embedded clock is shown as the wall-clock time at
 * which it happened: the formatters of timestamps map the embedded clock
 * to the wall clock (timemap_wall) and the parsers map back
 * (timemap_clock), while everything else (durations, timers, the model)
 * keeps the embedded clock. Stamps thus never run ahead of the wall
 * clock, and a duration of an hour at --speed 60 spans a minute of them.
 *
 * The map is a list of segments, one per run of the daemon: from its
 * embedded instant clock_us on, the wall clock is wall_us plus the
 * embedded time since then divided by speed. Time stands still for the
 * embedded cluster while the daemon is down, so the wall times between
 * two runs map to the instant the next run starts. A process holds one
 * map (none: the identity, as for echelon sim and the tests); the daemon
 * installs it at start and keeps it in its database. No clock is read
 * here.
 */
#ifndef ECHELON_BASE_TIMEMAP_H
#define ECHELON_BASE_TIMEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

/* Segments a map keeps: the oldest go first (their stamps, older than
 * any object is likely to be, then map by the oldest kept). */
#define TIMEMAP_MAX 32
/* The text of a full map fits in this. */
#define TIMEMAP_TEXT_MAX (TIMEMAP_MAX * 64)

struct timemap_seg {
	int64_t clock_us; /* the embedded instant the run started at */
	int64_t wall_us;  /* its wall-clock time */
	double speed;	  /* embedded time per wall time (> 0) */
};

/* Install segs[0..n) (copied; clock_us and wall_us not decreasing, speed
 * > 0, else -EINVAL and nothing changes); n == 0 is the identity. Beyond
 * TIMEMAP_MAX the oldest are dropped. */
int timemap_set(const struct timemap_seg *segs, size_t n) MUST_CHECK;
/* The segments installed (NULL when none): *ret_n of them. */
const struct timemap_seg *timemap_get(size_t *ret_n);
/* Start a run at the embedded instant clock_us, wall_us on the wall
 * clock, at speed: appends a segment. Its wall time is never before what
 * the map already gives clock_us, so the map stays monotonic (a wall
 * clock set back keeps stamps from going back). An empty map first gets
 * the identity for what came before, which is how timestamps were
 * written before maps existed. */
void timemap_start(int64_t clock_us, int64_t wall_us, double speed);

/* The wall-clock time of embedded instant clock_us (nearest us). */
int64_t timemap_wall(int64_t clock_us);
/* The embedded instant a timestamp of wall_us stands for: the first
 * whose wall time is at or after wall_us, so that a timestamp read and
 * written again prints the same; a wall time between two runs maps to
 * the start of the later one. */
int64_t timemap_clock(int64_t wall_us);

/* The map as text ("CLOCK:WALL:SPEED;..." oldest first; "" for none)
 * into buf (size >= TIMEMAP_TEXT_MAX for a full map); returns buf. */
const char *timemap_format(char *buf, size_t size);
/* Parse text as timemap_format() writes it into segs (room for
 * TIMEMAP_MAX); returns how many, or -EINVAL. */
int timemap_parse(const char *text, struct timemap_seg *segs) MUST_CHECK;

#endif
