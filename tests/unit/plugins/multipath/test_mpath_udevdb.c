// SPDX-License-Identifier: GPL-2.0-or-later
/* The multipath claim program's udev database entries
 * (src/plugins/multipath/mpath_udevdb.c) on a fake sysfs: a path is
 * marked DM_MULTIPATH_DEVICE_PATH=1 at /run/udev/data/bMAJ:MIN, as the
 * root's 60-multipath.rules imports it; an entry already there (a real
 * udev's) is left; a name with a slash reaches nothing outside. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpath_udevdb.h"
#include "test.h"

static char top[] = "/tmp/test_mpath_udevdb.XXXXXX";
static char sys[256], data[256];

static void put(const char *rel, const char *text)
{
	char p[512], *s;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	for (s = p + strlen(top) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror(p);
		close(fd);
	}
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static void test_mark_and_unmark(void)
{
	char p[512];

	put("sys/sda/dev", "8:0\n");
	put("sys/sdb/dev", "8:16\n");
	CHECK(mpath_db_mark(sys, data, "sda") == 1);
	snprintf(p, sizeof(p), "%s/b8:0", data);
	CHECK(slurp(p) && !strcmp(slurp(p), "E:DM_MULTIPATH_DEVICE_PATH=1\n"));
	/* there already: left as it was */
	CHECK(mpath_db_mark(sys, data, "sda") == 0);
	snprintf(p, sizeof(p), "%s/b8:16", data);
	put("run/udev/data/b8:16", "E:ID_SERIAL=x\n");
	CHECK(mpath_db_mark(sys, data, "sdb") == 0);
	CHECK(!strcmp(slurp(p), "E:ID_SERIAL=x\n"));
	/* unmark removes */
	mpath_db_unmark(sys, data, "sda");
	snprintf(p, sizeof(p), "%s/b8:0", data);
	CHECK(access(p, F_OK) < 0 && errno == ENOENT);
	/* no dev attribute, a bad one, names leaving sysfs */
	CHECK(mpath_db_mark(sys, data, "sdz") == -ENOENT);
	put("sys/sdy/dev", "eight\n");
	CHECK(mpath_db_mark(sys, data, "sdy") == -ENOENT);
	CHECK(mpath_db_mark(sys, data, "../sys/sda") == -ENOENT);
	CHECK(mpath_db_mark(sys, data, "..") == -ENOENT);
	CHECK(mpath_db_mark(sys, data, "") == -ENOENT);
}

/* The entry is never written through a link an attacker left. */
static void test_no_link_followed(void)
{
	char p[512], target[512];

	put("sys/sdc/dev", "8:32\n");
	snprintf(target, sizeof(target), "%s/elsewhere", top);
	snprintf(p, sizeof(p), "%s/b8:32", data);
	CHECK(symlink(target, p) == 0);
	CHECK(mpath_db_mark(sys, data, "sdc") == 0);
	CHECK(access(target, F_OK) < 0);
}

static void test_wwid(void)
{
	char w[64];

	put("sys/sdd/device/wwid", "naa.5000c50015ea71ac\n");
	put("sys/nvme0n1/wwid", "eui.0011\n");
	CHECK(mpath_wwid(sys, "sdd", w, sizeof(w)) && !strcmp(w, "naa.5000c50015ea71ac"));
	CHECK(mpath_wwid(sys, "nvme0n1", w, sizeof(w)) && !strcmp(w, "eui.0011"));
	CHECK(!mpath_wwid(sys, "sde", w, sizeof(w)));
	CHECK(!mpath_wwid(sys, "../sys/sdd", w, sizeof(w)));
	put("sys/sdf/device/wwid", "\n");
	CHECK(!mpath_wwid(sys, "sdf", w, sizeof(w)));
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(top))
		return 1;
	snprintf(sys, sizeof(sys), "%s/sys", top);
	snprintf(data, sizeof(data), "%s/run/udev/data", top);
	RUN(test_mark_and_unmark);
	RUN(test_no_link_followed);
	RUN(test_wwid);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		return 1;
	return test_done();
}
