/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output files that are either complete or not there: a folder of results
 * (sim --out) and a single file (sim --log).
 *
 * Both are written beside their target first, in a temporary folder or
 * file named ".<name>.tmp-XXXXXX", and renamed into place only once every
 * byte is written and synced: a full disk, a signal or a failed run leaves
 * the previous results whole, never a mixture or a truncated file. Files
 * are created with O_EXCL | O_NOFOLLOW in a folder made for them, and the
 * old folder is emptied with unlinkat(): no symlink is ever followed out
 * of it. Opening checks everything that can be checked (parents created,
 * the target's type, write permission), so that a verb can do it before
 * long work instead of failing after it.
 *
 * Errors go to eb as "PATH: reason", complete enough to show as is.
 */
#ifndef ECHELON_CLI_OUTDIR_H
#define ECHELON_CLI_OUTDIR_H

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"

struct outdir {
	char *target;		  /* the folder asked for */
	char *tmp;		  /* the folder being filled, or NULL */
	const char *const *names; /* the files it may hold */
	int fd;			  /* tmp, open */
};

/*
 * Prepare to replace the folder path (its parents are created) with one
 * holding files from names (NULL-terminated; borrowed). An existing path
 * must be a folder holding no other file than those names, so that nothing
 * of the user's is lost when it is replaced. 0, or -errno with eb set (o
 * is then released).
 */
int outdir_open(struct outdir *o, const char *path, const char *const *names,
		struct errbuf *eb) MUST_CHECK;
/* Write file name (one of the names) with the text of sb. */
int outdir_write(struct outdir *o, const char *name, const struct strbuf *sb,
		 struct errbuf *eb) MUST_CHECK;
/* Put the written folder in place of the target, and remove the old one.
 * o is released either way. */
int outdir_commit(struct outdir *o, struct errbuf *eb) MUST_CHECK;
/* Remove what was written; the target is left as it was. NULL-safe, and
 * harmless after commit. */
void outdir_abort(struct outdir *o);

struct outfile {
	char *target;
	char *tmp;
	int fd;
};

/* Prepare to replace the file path (its folder must exist): a folder in
 * its place is an error now, not after the work. 0, or -errno with eb. */
int outfile_open(struct outfile *f, const char *path,
		 struct errbuf *eb) MUST_CHECK;
/* Write sb, sync, and rename into place. f is released either way. */
int outfile_commit(struct outfile *f, const struct strbuf *sb,
		   struct errbuf *eb) MUST_CHECK;
/* Remove the temporary file. Harmless after commit. */
void outfile_abort(struct outfile *f);

#endif
