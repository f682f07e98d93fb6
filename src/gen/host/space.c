// SPDX-License-Identifier: GPL-2.0-or-later
/* /boot is often a small partition holding two or three kernels. A bare
 * ENOSPC says nothing of how much is missing; the build learns the
 * image's full size (it goes on counting once the filesystem is full,
 * output.c) and this says how much room it needs beside the old one. */
#include "gen/host/space.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <sys/statvfs.h>

#include "err.h"
#include "util.h"

int space_check(const char *path, uint64_t size)
{
	char *copy = xstrdup(path);
	const char *dir = dirname(copy);
	struct statvfs sv;
	uint64_t block, need, avail;
	int r = 0;

	if (statvfs(dir, &sv) < 0) {
		r = err_errno(errno, "output directory %s", dir);
		free(copy);
		return r;
	}
	block = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	if (block == 0)
		block = 1;
	/* a file takes whole blocks */
	need = (size + block - 1) / block * block;
	avail = (uint64_t)sv.f_bavail * block;
	if (need > avail)
		r = err_set("not enough space in %s for %s: the new image needs %llu bytes, %llu are free "
			    "(the old image stays until the new one is complete): free %llu more bytes",
			    dir, path, (unsigned long long)need, (unsigned long long)avail,
			    (unsigned long long)(need - avail));
	free(copy);
	return r;
}
