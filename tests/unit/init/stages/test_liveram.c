// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.live.ram (src/init/stages/liveram.c): the image copied whole into
 * /run, and one larger than the RAM left refused before a byte is
 * written, with the sizes; the medium let go afterwards. */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static const struct initops no_xops = { .reboot = fake_reboot };

static struct fake_ops *setup(struct init *in, const char *meminfo)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, "root=live:CDLABEL=LIVE rd.live.ram", &no_xops);
	fake_mkdir(f, "/run/initramfs/live/LiveOS");
	fake_write(f, "/proc/meminfo", meminfo);
	msgs_capture(LOG_INFO);
	return f;
}

static void test_copied(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "MemTotal: 8000000 kB\nMemAvailable: 4000000 kB\n");
	char *copy;

	fake_write(f, "/run/initramfs/live/LiveOS/squashfs.img", "hsqs and the rest");
	CHECK(live_ram_copy(&in, "/dev/sr0", "/run/initramfs/live/LiveOS/squashfs.img",
			    "/run/initramfs/squashed.img") == 0);
	copy = fake_read(f, "/run/initramfs/squashed.img");
	CHECK_STR(copy, "hsqs and the rest");
	free(copy);
	CHECK(said("<6>rd.live.ram: copying /run/initramfs/live/LiveOS/squashfs.img (1 MiB) from "
		   "/dev/sr0 to /run/initramfs/squashed.img"));
	CHECK(said("<6>rd.live.ram: /run/initramfs/squashed.img is in RAM"));
	/* never over a file already there (a link planted by a hook) */
	CHECK(live_ram_copy(&in, "/dev/sr0", "/run/initramfs/live/LiveOS/squashfs.img",
			    "/run/initramfs/squashed.img") < 0);
	CHECK_STR(err_msg(), "rd.live.ram: cannot create /run/initramfs/squashed.img: File exists");
	live_ram_release(&in, "/dev/sr0", "/run/initramfs/live");
	CHECK(fake_log_find(f, "umount /run/initramfs/live 0x0") >= 0);
	CHECK(said("<6>rd.live.ram: /dev/sr0 is no longer used: it may be removed"));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_too_big(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "MemTotal: 200000 kB\nMemAvailable: 1024 kB\n");
	const char *head = "rd.live.ram: /run/initramfs/live/LiveOS/squashfs.img on /dev/vda is 1 "
			   "MiB, but only 0 MiB of RAM is left for it (/run has ";
	const char *tail = " MiB free, MemAvailable is 1 MiB, 128 MiB kept for the boot): not copied";
	const char *m;

	fake_write(f, "/run/initramfs/live/LiveOS/squashfs.img", "hsqs");
	CHECK(live_ram_copy(&in, "/dev/vda", "/run/initramfs/live/LiveOS/squashfs.img",
			    "/run/initramfs/squashed.img") < 0);
	m = err_msg();
	/* /run's free space is the test machine's */
	CHECK(!strncmp(m, head, strlen(head)));
	CHECK(strlen(m) > strlen(tail) && !strcmp(m + strlen(m) - strlen(tail), tail));
	if (test_cur_failed)
		printf("# got: %s\n", m);
	CHECK(fake_log_count(f, "open /run/initramfs/squashed.img") == 0);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_copied);
	RUN(test_too_big);
	return test_done();
}
