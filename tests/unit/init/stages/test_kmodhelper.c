// SPDX-License-Identifier: GPL-2.0-or-later
/* Who answers the kernel's request_module (stages/kmodhelper.c): the
 * image's modprobe link while the init runs, the value the kernel had
 * (its default, /sbin/modprobe) again before switch_root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static const struct initops no_xops = { .reboot = fake_reboot };

/* The image's link to /init, made relative: the fake root is a
 * directory of the host. */
static void image_link(struct fake_ops *f)
{
	char *init;

	fake_write(f, "/init", "#!/bin/true\n");
	init = fake_path(f, "/init");
	chmod(init, 0755);
	free(init);
	fake_symlink(f, "../../../init", LAYOUT_MODPROBE);
}

static char *sysctl(struct fake_ops *f)
{
	return fake_read(f, LAYOUT_MODPROBE_SYSCTL);
}

static void test_set_then_restore(void)
{
	struct init in;
	struct fake_ops *f = fake_ops_new();
	char *s;

	stack_init_start(&in, f, "root=/dev/vda", &no_xops);
	image_link(f);
	fake_write(f, LAYOUT_MODPROBE_SYSCTL, "/sbin/modprobe\n");
	kmod_helper_set(&in);
	CHECK_STR(s = sysctl(f), LAYOUT_MODPROBE "\n");
	free(s);
	CHECK(in.modprobe_set);
	kmod_helper_restore(&in);
	CHECK_STR(s = sysctl(f), "/sbin/modprobe\n");
	free(s);
	CHECK(!in.modprobe_set);
	/* twice is once: a second restore writes nothing */
	fake_write(f, LAYOUT_MODPROBE_SYSCTL, "/usr/bin/other\n");
	kmod_helper_restore(&in);
	CHECK_STR(s = sysctl(f), "/usr/bin/other\n");
	free(s);
	stack_init_finish(f, &in, test_cur_failed);
}

/* A kernel built with another CONFIG_MODPROBE_PATH gets that back. */
static void test_restore_gives_back_what_was_there(void)
{
	struct init in;
	struct fake_ops *f = fake_ops_new();
	char *s;

	stack_init_start(&in, f, "root=/dev/vda", &no_xops);
	image_link(f);
	fake_write(f, LAYOUT_MODPROBE_SYSCTL, "/usr/sbin/modprobe\n");
	kmod_helper_set(&in);
	kmod_helper_restore(&in);
	CHECK_STR(s = sysctl(f), "/usr/sbin/modprobe\n");
	free(s);
	stack_init_finish(f, &in, test_cur_failed);
}

/* An image without the link (--init of another program) leaves the
 * kernel's value alone, and so does a kernel without the sysctl. */
static void test_no_link_no_change(void)
{
	struct init in;
	struct fake_ops *f = fake_ops_new();
	char *s;

	stack_init_start(&in, f, "root=/dev/vda", &no_xops);
	fake_write(f, LAYOUT_MODPROBE_SYSCTL, "/sbin/modprobe\n");
	kmod_helper_set(&in);
	CHECK_STR(s = sysctl(f), "/sbin/modprobe\n");
	free(s);
	CHECK(!in.modprobe_set);
	kmod_helper_restore(&in);
	CHECK_STR(s = sysctl(f), "/sbin/modprobe\n");
	free(s);
	stack_init_finish(f, &in, test_cur_failed);

	f = fake_ops_new();
	stack_init_start(&in, f, "root=/dev/vda", &no_xops);
	image_link(f);
	kmod_helper_set(&in);
	CHECK(!in.modprobe_set);
	CHECK(!(s = sysctl(f)));
	free(s);
	stack_init_finish(f, &in, test_cur_failed);
}

/* A write the kernel refuses is said, and the boot goes on. */
static void test_write_refused(void)
{
	struct init in;
	struct fake_ops *f = fake_ops_new();

	stack_init_start(&in, f, "root=/dev/vda", &no_xops);
	image_link(f);
	fake_write(f, LAYOUT_MODPROBE_SYSCTL, "/sbin/modprobe\n");
	fake_fail(f, "open", LAYOUT_MODPROBE_SYSCTL, EACCES);
	msgs_capture(LOG_WARNING);
	kmod_helper_set(&in);
	CHECK(!in.modprobe_set);
	CHECK(said("cannot set " LAYOUT_MODPROBE_SYSCTL ": Permission denied; modules the kernel "
		   "asks for will not load"));
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_set_then_restore);
	RUN(test_restore_gives_back_what_was_there);
	RUN(test_no_link_no_change);
	RUN(test_write_refused);
	buf_free(&msgs);
	return test_done();
}
