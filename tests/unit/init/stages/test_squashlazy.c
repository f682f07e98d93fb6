// SPDX-License-Identifier: GPL-2.0-or-later
/* The squashfs segment mounted when first wanted (stages/squashlazy.c),
 * against the fake ops: what mounts it, what does not, and the lock
 * the init and the kernel's modprobe share. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fake_ops.h"
#include "init/stages/squashlazy.h"
#include "log.h"
#include "log_capture.h"
#include "test.h"

static const struct sysops *start(struct fake_ops *f)
{
	const struct sysops *ops = &f->ops;

	fake_write(f, "/uniramfs.sqfs", "hsqs");
	fake_write(f, "/dev/loop-control", "");
	fake_write(f, "/dev/loop0", "");
	fake_mkdir(f, "/uniramfs.sqfs.d");
	fake_write(f, "/usr/sbin/here", "in the main segment");
	fake_symlink(f, "/uniramfs.sqfs.d/usr/sbin/lvm", "/usr/sbin/lvm");
	CHECK(squash_lazy_start(&ops, NULL));
	CHECK(ops != &f->ops);
	return ops;
}

/* A file of the main segment, a check that a tool is there: no mount. A
 * file linked into the segment opened: mounted first, once. */
static void test_mounts_when_wanted(void)
{
	struct fake_ops *f = fake_ops_new();
	const struct sysops *ops = start(f);
	int fd;

	fd = ops->open("/usr/sbin/here", O_RDONLY, 0);
	CHECK(fd >= 0);
	close(fd);
	CHECK(ops->access("/usr/sbin/lvm", X_OK) == 0);
	CHECK(ops->access("/usr/sbin/none", X_OK) == -ENOENT);
	CHECK(fake_log_count(f, "mount") == 0);
	CHECK(squash_lazy_mounted() == NULL);
	/* the fake mount fills nothing: the open still fails after it */
	CHECK(ops->open("/usr/sbin/lvm", O_RDONLY, 0) == -ENOENT);
	CHECK(fake_log_count(f, "mount /dev/loop0 /uniramfs.sqfs.d squashfs") == 1);
	CHECK(squash_lazy_mounted() && !strcmp(squash_lazy_mounted(), "loop0"));
	CHECK(ops->open("/usr/sbin/lvm", O_RDONLY, 0) == -ENOENT);
	CHECK(fake_log_count(f, "mount /dev/loop0") == 1);
	squash_lazy_forget();
	fake_ops_free(f);
}

/* An image without the segment: the tables stay the fake's own. */
static void test_no_segment(void)
{
	struct fake_ops *f = fake_ops_new();
	const struct sysops *ops = &f->ops;

	CHECK(!squash_lazy_start(&ops, NULL));
	CHECK(ops == &f->ops);
	CHECK(squash_lazy_mount() == 0);
	CHECK(squash_lazy_mounted() == NULL);
	fake_ops_free(f);
}

/* The kernel's modprobe waits a bounded time for the lock (the init may
 * hold it while waiting for that very modprobe), then says why, once. */
static void test_lock_bounded(void)
{
	struct fake_ops *f = fake_ops_new();
	char *p;
	int held;

	start(f);
	p = fake_path(f, "/uniramfs.sqfs");
	held = open(p, O_RDONLY);

	CHECK(held >= 0 && flock(held, LOCK_EX) == 0);
	squash_lazy_lock_limit(50);
	msgs_capture(LOG_DEBUG);
	CHECK(squash_lazy_mount() < 0);
	CHECK(said("<3>the squashfs segment: another process has been mounting it for 50 ms; "
		   "its programs and modules are missing\n"));
	CHECK(fake_log_count(f, "mount") == 0);
	CHECK(squash_lazy_mount() == 0); /* said once, not tried again */
	CHECK(count_said("<3>the squashfs segment: another process has been mounting it for 50 ms; "
			 "its programs and modules are missing\n") == 1);
	close(held);
	free(p);
	fake_ops_free(f);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_mounts_when_wanted);
	RUN(test_no_segment);
	RUN(test_lock_bounded);
	buf_free(&msgs);
	return test_done();
}
