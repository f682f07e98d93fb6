// SPDX-License-Identifier: GPL-2.0-or-later
/* The multipath claim program's sysfs reads and udev database writes
 * (mpath_udevdb.h); the directories are arguments, so the unit test
 * runs them on a tree of its own. */
#include "mpath_udevdb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* Up to size-1 bytes of a sysfs attribute, its first line. */
static bool read_attr(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, out, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return out[0] != '\0';
}

bool mpath_wwid(const char *sys, const char *name, char *out, size_t size)
{
	char p[512];

	if (!name_ok(name))
		return false;
	snprintf(p, sizeof(p), "%s/%s/device/wwid", sys, name);
	if (read_attr(p, out, size))
		return true;
	snprintf(p, sizeof(p), "%s/%s/wwid", sys, name);
	return read_attr(p, out, size);
}

/* DATA/bMAJ:MIN of NAME in buf; false when NAME has no dev attribute. */
static bool db_path(const char *sys, const char *data, const char *name, char *buf, size_t size)
{
	char p[512], dev[32];
	unsigned maj, min;

	if (!name_ok(name))
		return false;
	snprintf(p, sizeof(p), "%s/%s/dev", sys, name);
	if (!read_attr(p, dev, sizeof(dev)) || sscanf(dev, "%u:%u", &maj, &min) != 2)
		return false;
	snprintf(buf, size, "%s/b%u:%u", data, maj, min);
	return true;
}

static int mkdir_p(const char *data)
{
	char p[512];

	snprintf(p, sizeof(p), "%s", data);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

int mpath_db_mark(const char *sys, const char *data, const char *name)
{
	char p[512];
	size_t n = sizeof(MPATH_DB_ENTRY) - 1;
	int fd, r;

	if (!db_path(sys, data, name, p, sizeof(p)))
		return -ENOENT;
	if ((r = mkdir_p(data)) < 0)
		return r;
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	if (write(fd, MPATH_DB_ENTRY, n) != (ssize_t)n) {
		close(fd);
		unlink(p);
		return -EIO;
	}
	return close(fd) < 0 ? -errno : 1;
}

void mpath_db_unmark(const char *sys, const char *data, const char *name)
{
	char p[512];

	if (db_path(sys, data, name, p, sizeof(p)))
		unlink(p);
}
