// SPDX-License-Identifier: GPL-2.0-or-later
/* A live medium's automatic overlay partition (src/init/stages/
 * autooverlay.c): where it goes (autooverlay_place: only in the free
 * space after the last partition, when that is the medium's, aligned to
 * MiB, leaving the last MiB for a backup GPT; every refusal says why),
 * then what the init runs over a fake sysfs: sfdisk, BLKPG, mkfs.ext4 on
 * the medium's own disk, or nothing at all, said. The partition made at
 * boot and used is booted in tests/boot/scenarios_liveovl.py (TEST-30
 * "autooverlay"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/overlayupper.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define MIB 2048ULL

static void test_place_after_medium(void)
{
	/* TEST-30's root.img: partition 1 at 2048, 652688 sectors, then free */
	struct part_extent parts[] = { { 1, 2048, 652688 } }, out;

	CHECK(autooverlay_place(parts, 1, 1, 370 * MIB, &out) == 0);
	CHECK(out.partno == 2);
	CHECK(out.start == 320 * MIB); /* 2048 + 652688 = 654736, up to the next MiB */
	CHECK(out.size == (370 - 1 - 320) * MIB);

	/* the medium last of three, numbers 1 and 3 used: 2 is the new one */
	struct part_extent three[] = { { 3, 2048, 2048 }, { 1, 4096, 4096 }, { 5, 8192, 100 } };
	CHECK(autooverlay_place(three, 3, 5, 64 * MIB, &out) == 0);
	CHECK(out.partno == 2 && out.start == 5 * MIB && out.size == 58 * MIB);
}

static void test_place_refused(void)
{
	struct part_extent medium_first[] = { { 1, 2048, 2048 }, { 2, 8192, 2048 } }, out;
	struct part_extent one[] = { { 1, 2048, 60 * MIB } };

	CHECK(autooverlay_place(medium_first, 2, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "partition 2 ends after the medium's (1): the free space is not after "
		  "the medium");
	CHECK(autooverlay_place(one, 1, 1, 64 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "only 2 MiB free after the medium (at least 16 needed)");
	CHECK(autooverlay_place(one, 1, 1, 61 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "only 0 MiB free after the medium (at least 16 needed)");
	CHECK(autooverlay_place(one, 1, 1, 0, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium ends past its disk's end");
	CHECK(autooverlay_place(one, 1, 4, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium is not a partition of its disk");
	CHECK(autooverlay_place(NULL, 0, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium is not a partition of its disk");
	/* a partition table that claims past the disk's end: no room */
	struct part_extent past[] = { { 1, 2048, ~0ULL / 4 } }, wrap[] = { { 1, ~0ULL - 10, 100 } };
	CHECK(autooverlay_place(past, 1, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium ends past its disk's end");
	CHECK(autooverlay_place(wrap, 1, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium ends past its disk's end");
}

/* TEST-30's root.img: vda1 (the medium) 2048+652688, 368 MiB in all;
 * more: one more line of partitions (NAME START SIZE) */
static struct fake_ops *disk(struct init *in, const char *cmdline, bool tools, const char *ro,
			     const char *more)
{
	struct fake_ops *f = fake_ops_new();
	struct blockdev *m;

	stack_script_start(f);
	if (tools) {
		fake_tool(f, "/usr/sbin/sfdisk");
		fake_tool(f, "/usr/sbin/mkfs.ext4");
	}
	stack_init_start(in, f, cmdline, &stack_script_ops);
	msgs_capture(LOG_INFO);
	fake_write(f, "/dev/vda", "");
	fake_write(f, "/sys/class/block/vda/size", "753664\n");
	fake_write(f, "/sys/class/block/vda/ro", ro);
	fake_write(f, "/sys/class/block/vda/queue/logical_block_size", "512\n");
	fake_write(f, "/sys/class/block/vda/vda1/partition", "1\n");
	fake_write(f, "/sys/class/block/vda/vda1/start", "2048\n");
	fake_write(f, "/sys/class/block/vda/vda1/size", "652688\n");
	if (more) {
		char name[16];
		unsigned long long v[2];
		const char *attr[] = { "start", "size" };
		CHECK(sscanf(more, "%15s %llu %llu", name, &v[0], &v[1]) == 3);
		for (size_t i = 0; i < 3; i++) {
			char *p = xasprintf("/sys/class/block/vda/%s/%s", name,
					    i ? attr[i - 1] : "partition");
			char *val = i ? xasprintf("%llu\n", v[i - 1]) : xasprintf("%s\n", name + 3);
			fake_write(f, p, val);
			free(p);
			free(val);
		}
	}
	m = stack_device(in, "vda1", "ext4", NULL, "dracut");
	m->disk = xstrdup("vda");
	m->partno = 1;
	in->root = xstrdup("vda1");
	return f;
}

static void test_make(void)
{
	struct init in;
	struct fake_ops *f = disk(&in, "root=live:LABEL=dracut rd.overlay=LABEL=persist", true,
				  "0\n", NULL);
	char *node = NULL;
	int sf, pg, mk;

	CHECK(autooverlay_make(&in, "LABEL=persist", &node) == 1);
	CHECK_STR(node, "/dev/vda2");
	sf = fake_log_find(f, "run /usr/sbin/sfdisk sfdisk --quiet --no-reread --no-tell-kernel "
			   "--append /dev/vda <start=655360, size=96256, type=L\n>");
	pg = fake_log_find(f, "ioctl BLKPG op 1 partition 2 start 335544320 length 49283072");
	mk = fake_log_find(f, "run /usr/sbin/mkfs.ext4 mkfs.ext4 -q -F -L persist /dev/vda2");
	CHECK(sf >= 0 && pg > sf && mk > pg);
	CHECK(said("<5>rd.overlay=LABEL=persist: made /dev/vda2 in the free space after /dev/vda1 on "
		   "/dev/vda, an ext4 labelled persist\n"));
	free(node);
	stack_init_finish(f, &in, test_cur_failed);
}

/* Each case: nothing run, nothing made, why said (or, no live root or
 * no LABEL=, nothing to say: rd.overlay's own fallback says the rest). */
static void refused(const char *cmdline, const char *spec, bool tools, const char *ro,
		    const char *more, const char *msg)
{
	struct init in;
	struct fake_ops *f = disk(&in, cmdline, tools, ro, more);
	char *node = NULL;

	CHECK(autooverlay_make(&in, spec, &node) == 0 && !node);
	CHECK(fake_log_count(f, "run ") == 0 && fake_log_count(f, "ioctl BLKPG") == 0);
	CHECK(msg ? said(msg) : !msgs.len);
	if (test_cur_failed)
		printf("# %s / %s\n", cmdline, spec);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_make_refused(void)
{
	const char *live = "root=live:LABEL=dracut";

	/* partition 2 after the medium: its free space is not the medium's */
	refused(live, "LABEL=persist", true, "0\n", "vda2 700000 2048",
		"<4>rd.overlay=LABEL=persist: not made on /dev/vda after the medium /dev/vda1: "
		"partition 2 ends after the medium's (1): the free space is not after the medium\n");
	refused(live, "LABEL=persist", true, "1\n", NULL,
		"<4>rd.overlay=LABEL=persist: not made on /dev/vda after the medium /dev/vda1: it is "
		"read-only\n");
	refused(live, "LABEL=persist", false, "0\n", NULL,
		"<6>rd.overlay=LABEL=persist: the image has no sfdisk and mkfs.ext4 to make it "
		"(overlay-tools = yes)\n");
	refused(live, "LABEL=a/b", true, "0\n", NULL,
		"<4>rd.overlay=LABEL=a/b: not made: an ext4 label is 1 to 16 characters, no quotes or "
		"slashes\n");
	refused(live, "LABEL=persistent-overlay", true, "0\n", NULL,
		"<4>rd.overlay=LABEL=persistent-overlay: not made: an ext4 label is 1 to 16 "
		"characters, no quotes or slashes\n");
	/* not a live root, or not a label: nothing to make */
	refused("root=LABEL=dracut", "LABEL=persist", true, "0\n", NULL, NULL);
	refused(live, "UUID=1234", true, "0\n", NULL, NULL);
}

int main(void)
{
	RUN(test_place_after_medium);
	RUN(test_place_refused);
	RUN(test_make);
	RUN(test_make_refused);
	return test_done();
}
