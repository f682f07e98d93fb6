// SPDX-License-Identifier: GPL-2.0-or-later
/* A root on ZFS: mountinfo names no device (an anonymous 0:N, the source
 * "pool/dataset"), so the disks that hold it are its pool's members,
 * found as blkid finds them: the block devices of SYSROOT/sys/class/block
 * whose SYSROOT/dev/NAME probes as TYPE zfs_member with LABEL the pool's
 * name. Only read, never written; a node that is not a block device is
 * passed over. */
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly_priv.h"
#include "util.h"

/* Whether the node at path is a zfs_member of pool. */
static bool member_of(const char *path, const char *pool)
{
	const char *type = NULL, *label = NULL;
	struct stat st;
	bool r = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	blkid_probe pr;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || !(pr = blkid_new_probe())) {
		close(fd);
		return false;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL);
		if (blkid_do_safeprobe(pr) == 0 &&
		    blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 &&
		    blkid_probe_lookup_value(pr, "LABEL", &label, NULL) == 0)
			r = !strcmp(type, "zfs_member") && !strcmp(label, pool);
	}
	blkid_free_probe(pr);
	close(fd);
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int hostonly_zfs_members(const struct ctx *c, const char *source, struct strv *majmins)
{
	char *pool = xstrndup(source, strcspn(source, "/"));
	char *dir = at_root(c, "/sys/class/block");
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		int r = err_errno(errno, "the root is on ZFS pool %s: cannot list %s", pool, dir);
		free(pool);
		free(dir);
		return r;
	}
	while ((e = readdir(d))) {
		char *node, *devfile, *majmin = NULL;
		if (e->d_name[0] == '.')
			continue;
		node = xasprintf("%s/dev/%s", c->root, e->d_name);
		devfile = xasprintf("%s/%s/dev", dir, e->d_name);
		if (member_of(node, pool) && read_line(devfile, &majmin) == 0)
			strv_push_owned(majmins, majmin);
		free(node);
		free(devfile);
	}
	closedir(d);
	free(dir);
	if (majmins->n) /* qsort(NULL, 0, …) is undefined: UBSan stops on it */
		qsort(majmins->v, majmins->n, sizeof(char *), by_name);
	if (majmins->n == 0) {
		int r = err_set("the root is on ZFS pool %s: no zfs_member device of it under %s/dev",
				pool, c->root);
		free(pool);
		return r;
	}
	free(pool);
	return 0;
}
