// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/host/sysroot.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "layout.h"
#include "util.h"

int sysroot_resolve(const char *sysroot, const char *path, sysroot_link_fn on_link, void *userdata, char **real,
		    struct stat *st)
{
	char *cur = path_normalize(path);
	int hops = 0;

restart:
	for (char *slash = cur + 1;; slash++) {
		if (*slash && *slash != '/')
			continue;
		char c = *slash, target[4096], *next, *host;
		ssize_t n;

		*slash = '\0';
		host = path_join(sysroot, cur);
		if (lstat(host, st) < 0) {
			err_errno(errno, "%s", host);
			free(host);
			break;
		}
		if (!S_ISLNK(st->st_mode)) {
			free(host);
			if (!c) {
				*real = cur;
				return 0;
			}
			*slash = c;
			continue;
		}
		n = readlink(host, target, sizeof(target) - 1);
		if (n < 0) {
			err_errno(errno, "readlink %s", host);
			free(host);
			break;
		}
		free(host);
		target[n] = '\0';
		if (on_link && on_link(userdata, cur, target) < 0)
			break;
		if (++hops > 40) {
			err_set("%s: too many levels of symbolic links", path);
			break;
		}
		*strrchr(cur, '/') = '\0';
		next = target[0] == '/' ? xasprintf("%s/%s", target, c ? slash + 1 : "")
					: xasprintf("%s/%s/%s", cur, target, c ? slash + 1 : "");
		free(cur);
		cur = path_normalize(next);
		free(next);
		goto restart;
	}
	free(cur);
	return err_code();
}

int sysroot_path(const char *sysroot, const char *path, char **host, struct stat *st)
{
	char *real;
	int r = sysroot_resolve(sysroot, path, NULL, NULL, &real, st);

	if (r < 0)
		return r;
	*host = path_join(sysroot, real);
	free(real);
	return 0;
}

int sysroot_read(const char *sysroot, const char *path, char **data, size_t *len)
{
	char *host = NULL;
	struct stat st;
	int r = sysroot_path(sysroot, path, &host, &st);

	if (r == 0 && !S_ISREG(st.st_mode))
		r = err_set("%s: not a regular file", host);
	if (r == 0 && (r = read_file(host, data, len)) < 0)
		err_errno(-r, "%s", host);
	free(host);
	return r;
}

bool sysroot_name_plain(const char *name)
{
	if (!*name || *name == '/')
		return false;
	for (const char *p = name; (p = strstr(p, "..")); p += 2)
		if ((p == name || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return false;
	return true;
}

char *sysroot_find(const char *sysroot, const char *const *dirs, size_t ndirs, const char *name,
		   int mode)
{
	for (size_t i = 0; i < ndirs; i++) {
		char *p = xasprintf("%s/%s", dirs[i], name), *host;
		struct stat st;
		bool ok = sysroot_path(sysroot, p, &host, &st) == 0;
		if (ok) {
			ok = access(host, mode) == 0;
			free(host);
		} else {
			err_clear(); /* a lookup: missing is no error */
		}
		if (ok)
			return p;
		free(p);
	}
	return NULL;
}

char *sysroot_find_tool(const char *sysroot, const char *name)
{
	static const char *const dirs[] = { LAYOUT_TOOL_DIRS };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = xasprintf("%s/%s", dirs[i], name), *host;
		struct stat st;
		bool ok = sysroot_path(sysroot, p, &host, &st) == 0;
		if (ok) {
			ok = S_ISREG(st.st_mode) && (st.st_mode & 0111);
			free(host);
		} else {
			err_clear();
		}
		if (ok)
			return p;
		free(p);
	}
	return NULL;
}
