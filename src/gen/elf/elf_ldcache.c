// SPDX-License-Identifier: GPL-2.0-or-later
/* /etc/ld.so.cache for the libraries the resolver found through
 * ld.so.conf (step 5 of elf.c's search), which ld.so in the image would
 * not find without it. ldconfig makes it: the format is glibc's. */
#include "gen/elf/elf_ldcache.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/elf/elf_ldconf.h"
#include "gen/host/rmtree.h"
#include "gen/host/run_tool.h"
#include "log.h"
#include "util.h"

#define LDCACHE_PATH "/etc/ld.so.cache"
/* ldconfig's output is a few lines at most */
#define LDCONFIG_OUT_MAX (64u << 10)

/* Directories ld.so searches with no cache (glibc's system dirs; TUPLE
 * is a multiarch triplet such as x86_64-linux-gnu). */
static bool ld_default_dir(const char *dir)
{
	static const char *const plain[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64" };

	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (strcmp(dir, plain[i]) == 0)
			return true;
	return fnmatch("/lib/*-linux*", dir, FNM_PATHNAME) == 0 ||
	       fnmatch("/usr/lib/*-linux*", dir, FNM_PATHNAME) == 0;
}

struct collect {
	const struct strv *dirs; /* the ld.so.conf dirs ld.so does not search */
	struct strv files;       /* image paths of host files in them */
	struct strv used;        /* those of dirs that hold one */
	struct strv srcs;        /* host path of each of files */
};

static int collect_one(void *ctx, const char *dst, const char *src, mode_t mode, uint64_t size)
{
	struct collect *c = ctx;
	const char *slash = strrchr(dst, '/');
	char *dir;

	(void)mode;
	(void)size;
	if (!slash || !strstr(slash, ".so"))
		return 0;
	dir = xstrndup(dst, slash > dst ? (size_t)(slash - dst) : 1);
	if (strv_contains(c->dirs, dir)) {
		strv_push(&c->files, dst);
		strv_push(&c->srcs, src);
		if (!strv_contains(&c->used, dir))
			strv_push(&c->used, dir);
	}
	free(dir);
	return 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int r;

	if (fd < 0)
		return err_errno(errno, "%s", path);
	r = write_all(fd, data, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r < 0 ? err_errno(-r, "%s", path) : 0;
}

/* A copy of the libraries under tmp, with an ld.so.conf naming their
 * directories; ldconfig -r tmp writes tmp/etc/ld.so.cache. */
static int make_cache(const char *tmp, const struct collect *c, struct buf *cache)
{
	struct buf conf = { 0 };
	char *path = NULL, *data = NULL;
	size_t len;
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->files.n; i++) {
		char *slash;

		path = xasprintf("%s%s", tmp, c->files.v[i]);
		slash = strrchr(path, '/');
		*slash = '\0';
		r = mkdir_p(path, 0755);
		if (r < 0)
			r = err_errno(-r, "%s", path);
		*slash = '/';
		if (r == 0 && (r = read_file(c->srcs.v[i], &data, &len)) < 0)
			r = err_errno(-r, "%s", c->srcs.v[i]);
		if (r == 0)
			r = write_file(path, data, len);
		free(data);
		data = NULL;
		free(path);
		path = NULL;
	}
	for (size_t i = 0; i < c->used.n; i++)
		buf_printf(&conf, "%s\n", c->used.v[i]);
	path = xasprintf("%s/etc", tmp);
	if (r == 0 && (r = mkdir_p(path, 0755)) < 0)
		r = err_errno(-r, "%s", path);
	free(path);
	path = xasprintf("%s/etc/ld.so.conf", tmp);
	if (r == 0)
		r = write_file(path, conf.p ? conf.p : "", conf.len);
	free(path);
	buf_free(&conf);
	if (r == 0) {
		const char *argv[] = { "ldconfig", "-r", tmp, NULL };
		struct buf out = { 0 };
		r = run_tool_capture(argv, "libc-bin", LDCONFIG_OUT_MAX, &out);
		buf_free(&out);
	}
	path = xasprintf("%s%s", tmp, LDCACHE_PATH);
	if (r == 0 && (r = read_file(path, &data, &len)) < 0)
		r = err_errno(-r, "ldconfig made no %s", path);
	if (r == 0) {
		buf_append(cache, data, len);
		free(data);
	}
	free(path);
	return r;
}

int elf_ldcache_add(struct image *img, const char *sysroot)
{
	struct strv conf = { 0 }, dirs = { 0 };
	struct collect c = { .dirs = &dirs };
	struct buf cache = { 0 };
	const char *tmpdir = getenv("TMPDIR");
	char *tmp = NULL;
	int r = 0;

	if (image_has(img, LDCACHE_PATH))
		return 0;
	ldconf_read(sysroot, &conf);
	for (size_t i = 0; i < conf.n; i++)
		if (!ld_default_dir(conf.v[i]))
			strv_push(&dirs, conf.v[i]);
	if (dirs.n)
		r = image_each_host_file(img, collect_one, &c);
	if (r == 0 && c.files.n) {
		tmp = xasprintf("%s/uniramfs-ldcache-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
		if (!mkdtemp(tmp)) {
			r = err_errno(errno, "%s", tmp);
		} else {
			r = make_cache(tmp, &c, &cache);
			rm_tree(tmp);
		}
		if (r < 0)
			r = err_wrap("%s for the libraries in %s", LDCACHE_PATH, c.used.v[0]);
		else
			r = image_add_data(img, LDCACHE_PATH, cache.p, cache.len, 0644);
		if (r == 0)
			log_info("%s: made for the libraries in %zu ld.so.conf director%s (%s...)",
				 LDCACHE_PATH, c.used.n, c.used.n == 1 ? "y" : "ies", c.used.v[0]);
	}
	free(tmp);
	buf_free(&cache);
	strv_free(&c.files);
	strv_free(&c.srcs);
	strv_free(&c.used);
	strv_free(&dirs);
	strv_free(&conf);
	return r;
}
