// SPDX-License-Identifier: Apache-2.0
/*
 * All-or-nothing output folders and files: write beside the target, sync,
 * then rename into place (an exchange for a folder that exists).
 * renameat2() and RENAME_EXCHANGE come with _GNU_SOURCE, which the build
 * defines for every file.
 */
#include "cli/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"

#include "base/banned.h"

/* "dir/.base.tmp-XXXXXX" beside path. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	return xasprintf("%.*s.%s.tmp-XXXXXX",
			 (int)(slash ? slash - path + 1 : 0), path, base);
}

/* mkdir -p of the folder that holds path. */
static int make_parents(const char *path, struct errbuf *eb)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s && !rc; s++) {
		if (*s != '/' || s[1] == '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			rc = errbuf_set(eb, -errno, "%s: %s", p,
					strerror(errno));
		*s = '/';
	}
	free(p);
	return rc;
}

static bool is_known(const char *const *names, const char *name)
{
	for (; *names; names++) {
		if (strcmp(*names, name) == 0)
			return true;
	}
	return false;
}

/* Check that the existing folder path holds only names. */
static int check_existing(const char *path, const char *const *names,
			  struct errbuf *eb)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errbuf_set(eb, -errno, "%s: %s", path, strerror(errno));
	while (!rc && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 || is_known(names, e->d_name))
			continue;
		rc = errbuf_set(eb, -ENOTEMPTY,
				"%s: holds \"%s\", which echelon did not "
				"write: give a new or empty folder",
				path, e->d_name);
	}
	closedir(d);
	return rc;
}

int outdir_open(struct outdir *o, const char *path, const char *const *names,
		struct errbuf *eb)
{
	struct stat st;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->names = names;
	o->target = xstrdup(path);
	/* "out/" is the folder out, and its temporary folder goes beside. */
	for (size_t n = strlen(o->target); n > 1 && o->target[n - 1] == '/';)
		o->target[--n] = '\0';
	path = o->target;
	rc = make_parents(path, eb);
	if (rc)
		goto fail;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			rc = errbuf_set(eb, -ELOOP,
					"%s: is a symbolic link: give the "
					"folder itself",
					path);
		else if (!S_ISDIR(st.st_mode))
			rc = errbuf_set(eb, -ENOTDIR, "%s: %s", path,
					strerror(ENOTDIR));
		else
			rc = check_existing(path, names, eb);
	} else if (errno != ENOENT) {
		rc = errbuf_set(eb, -errno, "%s: %s", path, strerror(errno));
	}
	if (rc)
		goto fail;
	o->tmp = temp_name(path);
	if (!mkdtemp(o->tmp)) {
		rc = errbuf_set(eb, -errno, "%s: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	o->fd = open(o->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->fd < 0 || chmod(o->tmp, 0755) < 0) {
		rc = errbuf_set(eb, -errno, "%s: %s", o->tmp, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	outdir_abort(o);
	return rc;
}

/* Write all of sb to fd, sync and close it. */
static int write_all(int fd, const struct strbuf *sb)
{
	size_t done = 0;
	int rc = 0;

	while (done < sb->len && !rc) {
		ssize_t n = write(fd, sb->buf + done, sb->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else
			done += (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int outdir_write(struct outdir *o, const char *name, const struct strbuf *sb,
		 struct errbuf *eb)
{
	int fd, rc;

	BUG_ON(o->fd < 0 || !is_known(o->names, name));
	fd = openat(o->fd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	rc = fd < 0 ? -errno : write_all(fd, sb);
	if (rc)
		return errbuf_set(eb, rc, "%s/%s: %s", o->target, name,
				  strerror(-rc));
	return 0;
}

/* Remove the known files of the folder dirfd is open on, then the folder
 * path: unlinkat() removes a symlink, never what it points to. */
static void remove_dir(int dirfd, const char *path, const char *const *names)
{
	for (; *names; names++)
		(void)unlinkat(dirfd, *names, 0);
	(void)rmdir(path);
}

/*
 * Where the file system cannot exchange two names (EINVAL): move the old
 * folder aside first. For a moment there is no folder, never a mixture.
 */
static int swap(const char *tmp, const char *target)
{
	char *aside;
	int rc = -1, err;

	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	aside = temp_name(target);
	if (mkdtemp(aside) && rename(target, aside) == 0) {
		if (rename(tmp, target) == 0)
			rc = rename(aside, tmp);
		else
			(void)rename(aside, target);
	}
	err = errno;
	(void)rmdir(aside);
	free(aside);
	errno = err;
	return rc;
}

int outdir_commit(struct outdir *o, struct errbuf *eb)
{
	int rc = 0, oldfd;

	BUG_ON(o->fd < 0);
	if (fsync(o->fd) < 0) {
		rc = errbuf_set(eb, -errno, "%s: %s", o->tmp, strerror(errno));
		goto out;
	}
	/* No folder yet: a plain rename, which fails if one appeared. */
	if (rename(o->tmp, o->target) == 0) {
		free(o->tmp);
		o->tmp = NULL;
		goto out;
	}
	if (errno != EEXIST && errno != ENOTEMPTY) {
		rc = errbuf_set(eb, -errno, "%s: %s", o->target,
				strerror(errno));
		goto out;
	}
	/* Swap the two folders at once; the old one is then at tmp. */
	if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->target, RENAME_EXCHANGE) <
		    0 &&
	    swap(o->tmp, o->target) < 0) {
		rc = errbuf_set(eb, -errno, "%s: %s", o->target,
				strerror(errno));
		goto out;
	}
	oldfd = open(o->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (oldfd >= 0) {
		remove_dir(oldfd, o->tmp, o->names);
		close(oldfd);
	}
	free(o->tmp);
	o->tmp = NULL;
out:
	outdir_abort(o);
	return rc;
}

void outdir_abort(struct outdir *o)
{
	if (!o)
		return;
	if (o->tmp && o->fd >= 0)
		remove_dir(o->fd, o->tmp, o->names);
	else if (o->tmp)
		(void)rmdir(o->tmp);
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

int outfile_open(struct outfile *f, const char *path, struct errbuf *eb)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return errbuf_set(eb, -EISDIR, "%s: %s", path,
				  strerror(EISDIR));
	f->tmp = temp_name(path);
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0 || fchmod(f->fd, 0644) < 0) {
		int rc =
			errbuf_set(eb, -errno, "%s: %s", path, strerror(errno));

		outfile_abort(f);
		return rc;
	}
	f->target = xstrdup(path);
	return 0;
}

int outfile_commit(struct outfile *f, const struct strbuf *sb,
		   struct errbuf *eb)
{
	int rc;

	BUG_ON(f->fd < 0);
	rc = write_all(f->fd, sb);
	f->fd = -1;
	/* rename() replaces a symlink at the target, never its target. */
	if (!rc && rename(f->tmp, f->target) < 0)
		rc = -errno;
	if (rc) {
		errbuf_set(eb, rc, "%s: %s", f->target, strerror(-rc));
	} else {
		free(f->tmp);
		f->tmp = NULL;
	}
	outfile_abort(f);
	return rc;
}

void outfile_abort(struct outfile *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	if (f->tmp)
		(void)unlink(f->tmp);
	f->fd = -1;
	free(f->tmp);
	free(f->target);
	f->tmp = f->target = NULL;
}
