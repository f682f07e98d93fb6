// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/modules/kernels.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"

static bool is_file(const char *sysroot, const char *rel)
{
	char *p = path_join(sysroot, rel);
	struct stat st;
	bool ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int kernels_installed(const char *sysroot, struct strv *out)
{
	char *dir = path_join(sysroot, "/lib/modules");
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		int r = errno == ENOENT ? 0 : err_errno(errno, "%s", dir);
		free(dir);
		return r;
	}
	while ((e = readdir(d))) {
		char *mod, *boot, *own;
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		mod = path_join(dir, e->d_name);
		boot = xasprintf("/boot/vmlinuz-%s", e->d_name);
		own = xasprintf("/lib/modules/%s/vmlinuz", e->d_name);
		if (stat(mod, &st) == 0 && S_ISDIR(st.st_mode) && (is_file(sysroot, boot) || is_file(sysroot, own)))
			strv_push(out, e->d_name);
		free(mod);
		free(boot);
		free(own);
	}
	closedir(d);
	free(dir);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_version);
	return 0;
}
