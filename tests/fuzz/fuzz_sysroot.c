// SPDX-License-Identifier: GPL-2.0-or-later
/* Paths inside a --sysroot (host/sysroot.c): the tree is hostile, its
 * links point anywhere, and the paths looked up come from its files
 * (crypttab, modinfo, configs). The input builds a small tree in a
 * scratch directory, then names paths to look up:
 *   up to the first 0xff byte, records: KIND PARENT NAME, KIND 0 a
 *   directory, 1 a file, 2 an executable, 3 a link whose target
 *   follows up to a NUL; PARENT picks a directory made before (0: the
 *   root), NAME a name from a short list;
 *   then paths, one a line.
 * Rules beyond "no crash": a resolved path is absolute and normal, no
 * component of it on the host is a link, so the file found is inside
 * the sysroot; sysroot_path gives that same file; a link reported to
 * on_link is a path inside; a name sysroot_name_plain passes stays
 * in its directory; what sysroot_find and sysroot_find_tool return
 * resolves inside to what they promise. A broken rule traps. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "util.h"
#include "gen/host/rmtree.h"
#include "gen/host/sysroot.h"

#define MAX_ENTRIES 24
#define MAX_PATHS 4

static const char *const names[] = {
	"usr", "bin", "sbin", "lib", "local", "etc", "firmware", "a", "b", "..", ".", "shadow", "cryptsetup", "x y",
};

static char scratch[PATH_MAX], root[PATH_MAX], root_real[PATH_MAX];

static bool normal(const char *p)
{
	if (p[0] != '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		return false;
	size_t n = strlen(p);
	if (n > 1 && (p[n - 1] == '/' || str_has_suffix(p, "/.") || str_has_suffix(p, "/..")))
		return false;
	return true;
}

/* real is inside the sysroot with no link on its way there. */
static void inside(const char *real)
{
	char *host, *c, resolved[PATH_MAX];
	struct stat st;
	size_t n = strlen(root_real);

	if (!normal(real))
		__builtin_trap();
	host = path_join(root, real);
	for (c = host + strlen(root) + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		if (lstat(host, &st) == 0 && S_ISLNK(st.st_mode))
			__builtin_trap();
		*c = '/';
	}
	if (realpath(host, resolved) &&
	    (strncmp(resolved, root_real, n) != 0 || (resolved[n] != '/' && resolved[n] != '\0')))
		__builtin_trap();
	free(host);
}

static int on_link(void *userdata, const char *link, const char *target)
{
	unsigned *left = userdata;

	(void)target;
	if (!normal(link))
		__builtin_trap();
	if ((*left)-- == 0)
		return err_set("%s: enough links", link);
	return 0;
}

static void build(const uint8_t **p, const uint8_t *end)
{
	char *dirs[MAX_ENTRIES + 1];
	size_t nd = 1, n = 0;

	dirs[0] = xstrdup(root);
	while (*p < end && n++ < MAX_ENTRIES) {
		unsigned kind = (*p)[0] % 4;
		const char *name = (*p + 2 < end) ? names[(*p)[2] % ARRAY_SIZE(names)] : "a";
		char *parent = *p + 1 < end ? dirs[(*p)[1] % nd] : dirs[0], *path;
		*p = end - *p > 3 ? *p + 3 : end;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			name = "dot"; /* the tree's own names; a link may still say ".." */
		path = xasprintf("%s/%s", parent, name);
		if (kind == 0) {
			if (mkdir(path, 0755) == 0 && nd <= MAX_ENTRIES)
				dirs[nd++] = xstrdup(path);
		} else if (kind == 3) {
			const uint8_t *z = *p;
			while (z < end && *z)
				z++;
			char *target = xstrndup((const char *)*p, (size_t)(z - *p));
			*p = z < end ? z + 1 : end;
			if (*target && symlink(target, path) < 0 && errno != EEXIST)
				__builtin_trap();
			free(target);
		} else {
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, kind == 2 ? 0755 : 0644);
			if (fd >= 0)
				close(fd);
		}
		free(path);
	}
	for (size_t i = 0; i < nd; i++)
		free(dirs[i]);
}

static void look_up(const char *q)
{
	static const char *const libdirs[] = { "/lib", "/usr/lib" };
	char *path = q[0] == '/' ? xstrdup(q) : xasprintf("/%s", q), *real = NULL, *host = NULL, *found;
	struct stat st, st2;
	unsigned left = (unsigned char)q[0] % 8;

	err_clear();
	if (sysroot_resolve(root, path, on_link, &left, &real, &st) == 0) {
		inside(real);
		if (S_ISLNK(st.st_mode))
			__builtin_trap();
		free(real);
	}
	err_clear();
	if (sysroot_path(root, path, &host, &st) == 0) {
		if (lstat(host, &st2) < 0 || st2.st_ino != st.st_ino || strncmp(host, root, strlen(root)) != 0)
			__builtin_trap();
		inside(host[strlen(root) + 1] ? host + strlen(root) : "/");
		free(host);
	}
	err_clear();
	if (sysroot_name_plain(q)) {
		char *under = xasprintf("/base/%s", q), *norm = path_normalize(under);
		if (strncmp(norm, "/base", 5) != 0 || (norm[5] != '/' && norm[5] != '\0'))
			__builtin_trap();
		free(norm);
		free(under);
	}
	if ((found = sysroot_find_tool(root, q))) {
		err_clear();
		if (sysroot_resolve(root, found, NULL, NULL, &real, &st) < 0 || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0111))
			__builtin_trap();
		inside(real);
		free(real);
		free(found);
	}
	if ((found = sysroot_find(root, libdirs, ARRAY_SIZE(libdirs), q, R_OK))) {
		err_clear();
		if (sysroot_resolve(root, found, NULL, NULL, &real, &st) < 0)
			__builtin_trap();
		inside(real);
		free(real);
		free(found);
	}
	err_clear();
	free(path);
}

static void clean(void)
{
	rm_tree(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	int paths = 0;

	if (!*scratch) {
		const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(scratch, sizeof(scratch), "%s/fuzz_sysroot.XXXXXX", tmp);
		if (!mkdtemp(scratch))
			abort();
		snprintf(root, sizeof(root), "%s/root", scratch);
		/* beside the sysroot: what an escape would reach */
		char *secret = xasprintf("%s/shadow", scratch);
		int fd = open(secret, O_WRONLY | O_CREAT, 0755);
		if (fd >= 0)
			close(fd);
		free(secret);
		atexit(clean);
	}
	/* the same tree as the last input's (the fuzzer often changes only
	 * the paths): the lookups changed nothing, so keep it */
	{
		static uint8_t *last;
		static size_t last_n = SIZE_MAX;
		const uint8_t *ff = memchr(data, 0xff, size);
		size_t n = ff ? (size_t)(ff - data) : size;
		if (n != last_n || memcmp(data, last, n) != 0) {
			rm_tree(root);
			if (mkdir(root, 0755) < 0 || !realpath(root, root_real))
				abort();
			build(&p, data + n);
			free(last);
			last = xmalloc(n ? n : 1);
			memcpy(last, data, n);
			last_n = n;
		}
		p = data + n + (ff != NULL);
	}
	while (p < end && paths++ < MAX_PATHS) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *q = xstrndup((const char *)p, n);
		look_up(q);
		free(q);
		p += n + (nl != NULL);
	}
	return 0;
}
