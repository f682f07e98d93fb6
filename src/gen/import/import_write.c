// SPDX-License-Identifier: GPL-2.0-or-later
/* import-config --write: the one place it writes, made safe for a
 * sysroot that is another machine's root and may hold links. */
#include "gen/import/import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/sysroot.h"

int import_write(const char *sysroot, const char *text, bool force)
{
	char *real = NULL, *dir = NULL, *target = NULL, *tmp = NULL;
	struct stat st;
	int fd = -1, r;

	sysroot = sysroot ? sysroot : "/";
	/* /etc may be a link: followed inside the sysroot, never out of it */
	r = sysroot_resolve(sysroot, "/etc", NULL, NULL, &real, &st);
	if (r < 0)
		return err_wrap("--write");
	if (!S_ISDIR(st.st_mode)) {
		r = err_set("--write: %s/etc is not a directory", sysroot);
		goto out;
	}
	dir = path_join(sysroot, real);
	target = path_join(dir, "uniramfs.conf");
	if (lstat(target, &st) == 0 && !force) {
		r = err_set("--write: %s exists (--force replaces it)", target);
		goto out;
	}
	if (lstat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
		r = err_set("--write: %s is a directory", target);
		goto out;
	}
	/* a new file renamed into place: a link at the name is replaced,
	 * never written through */
	tmp = path_join(dir, ".uniramfs.conf.XXXXXX");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = err_errno(errno, "--write: cannot create a file in %s", dir);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	r = write_all(fd, text, strlen(text));
	if (r == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		r = -errno;
	if (r < 0) {
		r = err_errno(r, "--write: %s", tmp);
		goto out;
	}
	if (rename(tmp, target) < 0) {
		r = err_errno(errno, "--write: rename to %s", target);
		goto out;
	}
	free(tmp);
	tmp = NULL;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(target);
	free(dir);
	free(real);
	return r;
}
