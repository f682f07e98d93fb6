// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.driver.export (stages/modexport.c): the image's /lib/modules/KVER
 * copied onto a tmpfs on the root's /lib/modules, found inside the root
 * whatever its links say; never over the root's own modules unless
 * forced; never a failed boot. The fake mount is a no-op, so the copy
 * lands in the fake root's directory itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define KVER "6.1.0-test"

static const struct initops no_xops = { .reboot = fake_reboot };

static struct fake_ops *image(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, cmdline, &no_xops);
	snprintf(in->kver, sizeof(in->kver), "%s", KVER);
	fake_write(f, "/lib/modules/" KVER "/modules.dep", "kernel/fs/xfs/xfs.ko:\n");
	fake_write(f, "/lib/modules/" KVER "/kernel/fs/xfs/xfs.ko", "XFS MODULE\n");
	/* the squashfs segment's way: a link to the file elsewhere */
	fake_write(f, "/sqfs/ext4.ko", "EXT4 MODULE\n");
	fake_mkdir(f, "/lib/modules/" KVER "/kernel/fs/ext4");
	fake_symlink(f, "../../../../../../sqfs/ext4.ko", "/lib/modules/" KVER "/kernel/fs/ext4/ext4.ko");
	fake_mkdir(f, "/sysroot/sbin");
	return f;
}

static bool exists(struct fake_ops *f, const char *p)
{
	char *real = fake_path(f, p);
	bool r = access(real, F_OK) == 0;

	free(real);
	return r;
}

static bool has(struct fake_ops *f, const char *p, const char *want)
{
	char *got = fake_read(f, p);
	bool ok = got && !strcmp(got, want);

	if (!ok)
		printf("# %s: %s\n", p, got ? got : "(none)");
	free(got);
	return ok;
}

/* A usrmerged root without modules: /lib is a link to usr/lib, its
 * modules directory is made there, the tmpfs goes on it. */
static void test_export_usrmerged(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "root=/dev/vda rd.driver.export");

	fake_mkdir(f, "/sysroot/usr/lib");
	fake_symlink(f, "usr/lib", "/sysroot/lib");
	export_modules(&in);
	CHECK(fake_log_find(f, "mount driver_export /sysroot/usr/lib/modules tmpfs 0x6 mode=0755") >= 0);
	CHECK(has(f, "/sysroot/usr/lib/modules/" KVER "/modules.dep", "kernel/fs/xfs/xfs.ko:\n"));
	CHECK(has(f, "/sysroot/usr/lib/modules/" KVER "/kernel/fs/xfs/xfs.ko", "XFS MODULE\n"));
	/* a link of the image's is followed: the root gets the file */
	CHECK(has(f, "/sysroot/usr/lib/modules/" KVER "/kernel/fs/ext4/ext4.ko", "EXT4 MODULE\n"));
	CHECK(said("<6>rd.driver.export: the image's /lib/modules/" KVER
		   " (3 files) is the root's, on a tmpfs\n"));
	stack_init_finish(f, &in, test_cur_failed);
}

/* An absolute link is the root's own /elsewhere, not the init's: no such
 * directory there, and a link is never made into one. */
static void test_absolute_link_stays_in_root(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "root=/dev/vda rd.driver.export=1");

	fake_mkdir(f, "/elsewhere");
	fake_symlink(f, "/elsewhere", "/sysroot/lib");
	export_modules(&in);
	CHECK(fake_log_find_prefix(f, "mount ", 0) < 0);
	CHECK(!exists(f, "/elsewhere/modules"));
	CHECK(said("<4>rd.driver.export: cannot make the root's /lib: File exists\n"));
	stack_init_finish(f, &in, test_cur_failed);
}

/* The root's own modules of this kernel stay, unless forced. */
static void test_root_has_its_own(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "root=/dev/vda rd.driver.export");

	fake_mkdir(f, "/sysroot/lib/modules/" KVER);
	export_modules(&in);
	CHECK(fake_log_find_prefix(f, "mount ", 0) < 0);
	CHECK(said("<4>rd.driver.export: the root has its own /lib/modules/" KVER
		   "; not exporting over it (rd.driver.export=force would)\n"));
	stack_init_finish(f, &in, test_cur_failed);

	f = image(&in, "root=/dev/vda rd.driver.export=force");
	fake_mkdir(f, "/sysroot/lib/modules/" KVER);
	export_modules(&in);
	CHECK(fake_log_find(f, "mount driver_export /sysroot/lib/modules tmpfs 0x6 mode=0755") >= 0);
	CHECK(said("<6>rd.driver.export=force: exporting over the root's own /lib/modules/" KVER
		   "\n"));
	CHECK(has(f, "/sysroot/lib/modules/" KVER "/kernel/fs/xfs/xfs.ko", "XFS MODULE\n"));
	stack_init_finish(f, &in, test_cur_failed);
}

/* Not asked, or asked off, or a value that means neither: nothing. */
static void test_not_asked(void)
{
	static const char *const lines[] = { "root=/dev/vda", "root=/dev/vda rd.driver.export=0",
					     "root=/dev/vda rd.driver.export=maybe" };

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		struct init in;
		struct fake_ops *f = image(&in, lines[i]);

		export_modules(&in);
		CHECK(f->log.n == 0);
		CHECK(!strstr(msgs.p, "<6>rd.driver.export:"));
		if (i == 2)
			CHECK(said("<4>ignoring rd.driver.export=maybe: not a boolean or force\n"));
		stack_init_finish(f, &in, test_cur_failed);
	}
}

/* A mount that fails, and an image without modules: a warning each. */
static void test_failures_warn(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "root=/dev/vda rd.driver.export");

	fake_mkdir(f, "/sysroot/lib/modules");
	fake_fail(f, "mount", "/sysroot/lib/modules", 12 /* ENOMEM */);
	export_modules(&in);
	CHECK(said("<4>rd.driver.export: cannot mount a tmpfs on /sysroot/lib/modules: "
		   "Cannot allocate memory\n"));
	CHECK(!exists(f, "/sysroot/lib/modules/" KVER));
	stack_init_finish(f, &in, test_cur_failed);

	f = image(&in, "root=/dev/vda rd.driver.export");
	snprintf(in.kver, sizeof(in.kver), "%s", "9.9.9");
	export_modules(&in);
	CHECK(said("<4>rd.driver.export: the image has no /lib/modules/9.9.9: "
		   "No such file or directory\n"));
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_export_usrmerged);
	RUN(test_absolute_link_stays_in_root);
	RUN(test_root_has_its_own);
	RUN(test_not_asked);
	RUN(test_failures_warn);
	buf_free(&msgs);
	return test_done();
}
