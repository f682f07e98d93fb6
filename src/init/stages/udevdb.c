// SPDX-License-Identifier: GPL-2.0-or-later
/* udev's database entries for the device-mapper devices this boot made.
 *
 * After switch_root the root's udev replays an "add" event for every
 * device. For a dm device, 10-dm.rules then reads the database to learn
 * whether libdevmapper announced it (DM_UDEV_PRIMARY_SOURCE_FLAG): with
 * no entry it takes the device for one still being set up and disables
 * it (SYSTEMD_READY=0), so a swap or /home on LVM or LUKS named by UUID
 * never appears and systemd waits its 90 s job timeout. No udev ran
 * here and every dm device was made by this boot, so each gets the two
 * properties libdevmapper's udev sync would have left, in udev's
 * database format ("E:KEY=VALUE" lines in /run/udev/data/bMAJ:MIN). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/stages/stages.h"
#include "log.h"
#include "util.h"

#define UDEV_DATA "/run/udev/data"

static const char entry[] = "E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\n"
			    "E:DM_UDEV_RULES_VSN=2\n";

/* One device: "253:0" from sysfs, the entry unless one is there (a hook
 * that ran udevd made a better one). 1 written, 0 left, < 0 (err set). */
static int write_one(const struct sysops *ops, const char *name)
{
	char *p = xasprintf("/sys/class/block/%s/dev", name), *real = ops->path(p), *dev = NULL;
	char *path = NULL;
	unsigned maj, min;
	int fd, r = 0;

	if (read_line(real, &dev) < 0 || sscanf(str_trim(dev), "%u:%u", &maj, &min) != 2)
		goto out; /* gone meanwhile */
	path = xasprintf(UDEV_DATA "/b%u:%u", maj, min);
	fd = ops->open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd == -EEXIST)
		goto out;
	if (fd < 0) {
		r = err_errno(fd, "cannot create %s", path);
		goto out;
	}
	r = write_all(fd, entry, sizeof(entry) - 1);
	close(fd);
	r = r < 0 ? err_errno(r, "cannot write %s", path) : 1;
out:
	free(p);
	free(real);
	free(dev);
	free(path);
	return r;
}

static int make_dirs(const struct sysops *ops)
{
	static const char *const dirs[] = { "/run/udev", UDEV_DATA };
	int e;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if ((e = ops->mkdir(dirs[i], 0755)) < 0 && e != -EEXIST)
			return err_errno(e, "cannot create %s", dirs[i]);
	return 0;
}

int udevdb_write(const struct sysops *ops)
{
	char *real = ops->path("/sys/class/block");
	DIR *d = opendir(real);
	struct dirent *de;
	bool made = false;
	int r = 0, n = 0;

	free(real);
	if (!d)
		return 0; /* no sysfs, no devices */
	while (r >= 0 && (de = readdir(d))) {
		if (!str_has_prefix(de->d_name, "dm-"))
			continue;
		if (!made && (r = make_dirs(ops)) < 0)
			break;
		made = true;
		if ((r = write_one(ops, de->d_name)) > 0)
			n++;
	}
	closedir(d);
	if (r < 0)
		return r;
	if (n)
		log_debug("udev's database: %d device-mapper devices marked as set up", n);
	return n;
}
