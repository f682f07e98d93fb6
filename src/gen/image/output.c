// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/image/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "util.h"

/* The named temp file, if any, for the signal handler to remove. */
static volatile sig_atomic_t have_tmp;
static char tmp_for_signal[4096];

static void on_signal(int sig)
{
	if (have_tmp)
		unlink(tmp_for_signal);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remember_tmp(const char *tmp)
{
	if (!tmp) {
		have_tmp = 0;
		return;
	}
	snprintf(tmp_for_signal, sizeof(tmp_for_signal), "%s", tmp);
	have_tmp = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
}

static char *tmp_name(const struct output *out)
{
	char *copy = xstrdup(out->path);
	char *name = xasprintf("%s/.%s.XXXXXX", dirname(copy), basename(out->path));
	free(copy);
	return name;
}

int output_check(const char *path)
{
	char *copy = xstrdup(path);
	const char *dir = dirname(copy);
	struct stat st;
	int r = 0;

	if (!*path)
		r = err_set("-o: empty image path");
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		r = err_set("-o %s: is a directory (give the image's file name)", path);
	else if (stat(dir, &st) < 0)
		r = err_errno(errno, "-o %s: output directory %s", path, dir);
	else if (!S_ISDIR(st.st_mode))
		r = err_errno(ENOTDIR, "-o %s: output directory %s", path, dir);
	else if (access(dir, W_OK) < 0)
		r = err_errno(errno, "-o %s: output directory %s", path, dir);
	free(copy);
	return r;
}

int output_open(struct output *out, const char *path)
{
	char *copy = xstrdup(path);
	const char *dir = dirname(copy);

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->path = xstrdup(path);
	out->dirfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (out->dirfd < 0) {
		int e = errno;
		free(copy);
		output_abort(out);
		return err_errno(e, "output directory %s", path);
	}
	out->fd = openat(out->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(copy);
	if (out->fd >= 0)
		return 0;
	/* Filesystems without O_TMPFILE: a named temp, removed on failure
	 * and on the usual signals (SIGKILL alone can leave it). */
	out->tmp = tmp_name(out);
	out->fd = mkostemp(out->tmp, O_CLOEXEC);
	if (out->fd < 0) {
		int e = errno;
		output_abort(out);
		return err_errno(e, "cannot create a file next to %s", path);
	}
	remember_tmp(out->tmp);
	return 0;
}

int output_commit(struct output *out)
{
	if (fchmod(out->fd, 0600) < 0 || fsync(out->fd) < 0)
		return err_errno(errno, "%s", out->path);
	if (!out->tmp) {
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", out->fd);
		/* linkat cannot replace a file: link under a temp name,
		 * then rename over the target. */
		for (int tries = 0;; tries++) {
			out->tmp = tmp_name(out);
			char *x = strstr(out->tmp, "XXXXXX");
			snprintf(x, 7, "%06x", (unsigned)(rand() ^ getpid()) & 0xffffff);
			remember_tmp(out->tmp);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, out->tmp, AT_SYMLINK_FOLLOW) == 0)
				break;
			int e = errno;
			remember_tmp(NULL);
			free(out->tmp);
			out->tmp = NULL;
			if (e != EEXIST || tries > 100)
				return err_errno(e, "%s", out->path);
		}
	}
	if (rename(out->tmp, out->path) < 0)
		return err_errno(errno, "rename to %s", out->path);
	remember_tmp(NULL);
	free(out->tmp);
	out->tmp = NULL;
	if (fsync(out->dirfd) < 0)
		return err_errno(errno, "fsync directory of %s", out->path);
	output_abort(out);
	return 0;
}

void output_abort(struct output *out)
{
	if (out->tmp) {
		unlink(out->tmp);
		remember_tmp(NULL);
	}
	free(out->tmp);
	out->tmp = NULL;
	if (out->fd >= 0)
		close(out->fd);
	if (out->dirfd >= 0)
		close(out->dirfd);
	out->fd = out->dirfd = -1;
	free(out->path);
	out->path = NULL;
}

/* The compressors hand over up to 128 KiB at a time, the plain cpio a
 * header or a padding at a time: one write per this many bytes. */
#define OUTPUT_BUF_SIZE (1u << 17)

struct output_sink {
	struct sink s;
	int fd;
	const char *path; /* the final path, for messages */
	int full;       /* -ENOSPC or -EDQUOT once the filesystem refused */
	uint64_t total; /* bytes given, written or not */
	size_t len;
	uint8_t buf[OUTPUT_BUF_SIZE];
};

static int output_flush(struct output_sink *o)
{
	int r = 0;

	if (o->len && !o->full)
		r = write_all(o->fd, o->buf, o->len);
	o->len = 0;
	if (r == -ENOSPC || r == -EDQUOT) {
		/* Give the blocks back now, not once the rest of the stream
		 * is compressed: /boot stays full no longer than this write.
		 * Should it fail, they come back when the file is dropped. */
		int t = ftruncate(o->fd, 0);
		(void)t;
		o->full = r;
		r = 0;
	}
	return r < 0 ? err_errno(r, "write %s", o->path) : 0;
}

static int output_write(struct sink *s, const void *data, size_t n)
{
	struct output_sink *o = (struct output_sink *)s;
	const uint8_t *p = data;

	o->total += n;
	if (o->full)
		return 0;
	while (n) {
		size_t k = n < OUTPUT_BUF_SIZE - o->len ? n : OUTPUT_BUF_SIZE - o->len;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
		if (o->len == OUTPUT_BUF_SIZE) {
			int r = output_flush(o);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The stream was counted to its end: a full filesystem is said now,
 * with its code, once the image's size is known. */
static int output_sink_finish(struct sink *s)
{
	struct output_sink *o = (struct output_sink *)s;
	int r = output_flush(o);

	if (r == 0 && o->full)
		r = err_errno(o->full, "write %s", o->path);
	return r;
}

static void output_sink_free(struct sink *s)
{
	free(s);
}

struct sink *output_sink_new(struct output *out)
{
	struct output_sink *o = xmalloc(sizeof(*o));

	memset(o, 0, offsetof(struct output_sink, buf));
	o->s.write = output_write;
	o->s.finish = output_sink_finish;
	o->s.free = output_sink_free;
	o->fd = out->fd;
	o->path = out->path ? out->path : "image";
	return &o->s;
}

uint64_t output_sink_total(struct sink *s)
{
	return ((struct output_sink *)s)->total;
}
