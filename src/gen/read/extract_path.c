// SPDX-License-Identifier: GPL-2.0-or-later
/* Resolving member names inside the extraction target. Images made by
 * every tool put entries below symlinks (lib -> usr/lib, then
 * lib/modules/...), so symlinks must be followed, but only as if the
 * target were the root: that is what the image's own /init will see,
 * and it keeps an absolute or ../ symlink from reaching the host. */
#include "gen/read/extract_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "err.h"

/* The kernel's MAXSYMLINKS: more than this in one lookup is ELOOP. */
#define MAX_SYMLINKS 40

static bool force_walk;

void extract_path_force_walk(bool on)
{
	force_walk = on;
}

int name_split(const char *name, struct strv *comps)
{
	const char *p = name;

	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return err_set("refusing entry \"%s\": it has a \"..\" component", name);
		if (n && !(n == 1 && p[0] == '.'))
			strv_push_owned(comps, xstrndup(p, n));
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

char *comps_join(const struct strv *comps, size_t n)
{
	struct buf b = { 0 };

	buf_append(&b, "", 0);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_append(&b, "/", 1);
		buf_append(&b, comps->v[i], strlen(comps->v[i]));
	}
	return b.p;
}

/* Push the components of path onto the stack todo, last first, so the
 * first is popped next; empty and "." components name nothing. */
static void push_path(struct strv *todo, const char *path)
{
	const char *end = path + strlen(path);

	while (end > path) {
		const char *start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (end - start && !(end - start == 1 && *start == '.'))
			strv_push_owned(todo, xstrndup(start, (size_t)(end - start)));
		end = start > path ? start - 1 : path;
	}
}

/* RESOLVE_IN_ROOT by hand: one component at a time, each opened with
 * O_PATH|O_NOFOLLOW; a symlink's target is spliced into what is left
 * (from root if absolute); ".." pops to the directory held below, never
 * above root. Every step holds an fd, so a rename cannot move the walk. */
static int walk_in_root(int root, const char *path)
{
	struct strv todo = { 0 };
	int *fds = NULL;
	size_t depth = 0, cap = 0;
	unsigned links = 0;
	int r;

	ARRAY_GROW(fds, cap, 1);
	fds[0] = root;
	push_path(&todo, path);
	while (todo.n) {
		char *c = todo.v[--todo.n];
		struct stat st;
		int fd;

		todo.v[todo.n] = NULL;
		if (strcmp(c, "..") == 0) {
			if (depth)
				close(fds[depth--]);
			free(c);
			continue;
		}
		fd = openat(fds[depth], c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		free(c);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			if (n < 0) {
				r = -errno;
				goto out;
			}
			if (++links > MAX_SYMLINKS) {
				r = -ELOOP;
				goto out;
			}
			target[n] = '\0';
			if (target[0] == '/')
				while (depth)
					close(fds[depth--]);
			push_path(&todo, target);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			r = -ENOTDIR;
			goto out;
		}
		ARRAY_GROW(fds, cap, depth + 2);
		fds[++depth] = fd;
	}
	r = openat(fds[depth], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r < 0)
		r = -errno;
out:
	while (depth)
		close(fds[depth--]);
	free(fds);
	strv_free(&todo);
	return r;
}

#ifdef SYS_openat2
/* 1: use it, 0: the kernel lacks it (ENOSYS, or a seccomp filter that
 * says EPERM for what it does not know). */
static int have_openat2 = -1;

static int openat2_in_root(int root, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	/* EAGAIN: a rename raced with a ".." step; the kernel asks to retry */
	for (int tries = 0; tries < 16; tries++) {
		fd = (int)syscall(SYS_openat2, root, *path ? path : ".", &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	if (fd >= 0)
		return fd;
	return -errno;
}
#endif

int open_dir_in_root(int root, const char *path)
{
#ifdef SYS_openat2
	if (have_openat2 < 0) {
		const char *env = getenv("UNIRAMFS_NO_OPENAT2");
		have_openat2 = !(env && strcmp(env, "1") == 0);
	}
	if (have_openat2 && !force_walk) {
		int fd = openat2_in_root(root, path);
		if (fd != -ENOSYS && fd != -EPERM)
			return fd;
		have_openat2 = 0;
	}
#endif
	return walk_in_root(root, path);
}
