// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/modules/kernels.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/host/sysroot.h"

/* rel's kind inside the sysroot, its links resolved there (sysroot_path):
 * an absolute link of the sysroot never answers with the host's file */
static bool is_kind(const char *sysroot, const char *rel, mode_t kind)
{
	char *host;
	struct stat st;

	if (sysroot_path(sysroot, rel, &host, &st) < 0) {
		err_clear();
		return false;
	}
	free(host);
	return (st.st_mode & S_IFMT) == kind;
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int kernels_installed(const char *sysroot, struct strv *out)
{
	char *dir;
	struct stat st;
	struct dirent *e;
	DIR *d;
	int r = sysroot_path(sysroot, "/lib/modules", &dir, &st);

	if (r == -ENOENT) {
		err_clear();
		return 0;
	}
	if (r < 0)
		return r;
	if (!(d = opendir(dir))) {
		r = errno == ENOENT || errno == ENOTDIR ? 0 : err_errno(errno, "%s", dir);
		free(dir);
		return r;
	}
	while ((e = readdir(d))) {
		char *mod, *boot, *own;
		if (e->d_name[0] == '.')
			continue;
		mod = xasprintf("/lib/modules/%s", e->d_name);
		boot = xasprintf("/boot/vmlinuz-%s", e->d_name);
		own = xasprintf("/lib/modules/%s/vmlinuz", e->d_name);
		if (is_kind(sysroot, mod, S_IFDIR) && (is_kind(sysroot, boot, S_IFREG) || is_kind(sysroot, own, S_IFREG)))
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
