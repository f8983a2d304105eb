// SPDX-License-Identifier: Apache-2.0
/*
 * A main() for fuzz targets built without libFuzzer: runs the target once
 * on every file named on the command line, or in the directories named, so
 * that CI replays the committed corpus under the sanitizers.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	struct strbuf sb;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return -1;
	}
	strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}

static int run_path(const char *path, int *count)
{
	struct dirent **ents;
	struct stat st;
	int n, rc = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			char *child = xasprintf("%s/%s", path, ents[i]->d_name);

			if (run_path(child, count) < 0)
				rc = -1;
			free(child);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (run_path(argv[i], &count) < 0)
			rc = 1;
	}
	printf("replayed %d input(s)\n", count);
	return rc;
}
