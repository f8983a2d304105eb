// SPDX-License-Identifier: Apache-2.0
/*
 * The build's description, from the generated version header and the
 * compiler's predefined macros, named as Kueue's build info names Go's:
 * the platform as GOOS/GOARCH, the compiler with its version.
 */
#include "obs/obs_build.h"

#include "base/version.h"

#include "base/banned.h"

#define STR2(x) #x
#define STR(x)	STR2(x)

#if defined(__clang__)
#define COMPILER                                                               \
	"clang " STR(__clang_major__) "." STR(__clang_minor__) "." STR(        \
		__clang_patchlevel__)
#elif defined(__GNUC__)
#define COMPILER                                                               \
	"gcc " STR(__GNUC__) "." STR(__GNUC_MINOR__) "." STR(                  \
		__GNUC_PATCHLEVEL__)
#else
#define COMPILER ""
#endif

#if defined(__linux__)
#define OS "linux"
#elif defined(__APPLE__)
#define OS "darwin"
#elif defined(__FreeBSD__)
#define OS "freebsd"
#else
#define OS "unknown"
#endif

#if defined(__x86_64__)
#define ARCH "amd64"
#elif defined(__aarch64__)
#define ARCH "arm64"
#elif defined(__i386__)
#define ARCH "386"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define ARCH "ppc64le"
#elif defined(__s390x__)
#define ARCH "s390x"
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH "riscv64"
#else
#define ARCH "unknown"
#endif

void obs_build_get(struct obs_build *b)
{
	b->git_version = "v" ECHELON_VERSION;
	b->git_commit = ECHELON_GIT_COMMIT;
	b->build_date = ECHELON_BUILD_DATE;
	b->go_version = "";
	b->compiler = COMPILER;
	b->platform = OS "/" ARCH;
}

void obs_build_info(struct metrics *m)
{
	struct obs_build b;
	const char *l[13];
	int fam = metrics_family(m, "kueue_build_info",
				 "1, with the build's 'git_version', "
				 "'git_commit', 'build_date', 'go_version' "
				 "(\"\": not Go), 'compiler' and 'platform'.",
				 METRICS_GAUGE, NULL, 0);

	obs_build_get(&b);
	l[0] = "git_version", l[1] = b.git_version;
	l[2] = "git_commit", l[3] = b.git_commit;
	l[4] = "build_date", l[5] = b.build_date;
	l[6] = "go_version", l[7] = b.go_version;
	l[8] = "compiler", l[9] = b.compiler;
	l[10] = "platform", l[11] = b.platform;
	l[12] = NULL;
	metrics_set(m, fam, l, 1);
}
