/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kueue's kueue_build_info for echelon's own build: which version of the
 * scheduler a Prometheus target runs, so that a dashboard can tell
 * releases apart. A daemon describes its build; the simulator's outputs
 * describe a run, so only `echelon serve` writes it.
 */
#ifndef ECHELON_OBS_OBS_BUILD_H
#define ECHELON_OBS_OBS_BUILD_H

#include "base/metrics.h"

/* The label values of kueue_build_info, static strings ("" when the build
 * does not know one). */
struct obs_build {
	const char *git_version; /* "v" and the project's version */
	const char *git_commit;	 /* -DECHELON_GIT_COMMIT=..., else "" */
	const char *build_date;	 /* from SOURCE_DATE_EPOCH, else "" */
	const char *go_version;	 /* always "": echelon is not written in Go */
	const char *compiler;	 /* "gcc 12.2.0", "clang 14.0.6" */
	const char *platform;	 /* "linux/amd64", Go's GOOS/GOARCH names */
};

/* This build's. */
void obs_build_get(struct obs_build *b);

/* Register kueue_build_info in m and set this build's series to 1. */
void obs_build_info(struct metrics *m);

#endif
