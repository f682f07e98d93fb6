// SPDX-License-Identifier: GPL-2.0-or-later
/* A live medium checked before it is used (src/init/stages/livecheck.c):
 * rd.live.check's two runs of checkisomd5 and each answer they give, and
 * an ISO device shorter than its volume descriptor says. */
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

#define TOOL "/usr/bin/checkisomd5"

static struct fake_ops *setup(struct init *in, const char *cmdline, bool tool)
{
	struct fake_ops *f = fake_ops_new();

	stack_script_start(f);
	stack_init_start(in, f, cmdline, &stack_script_ops);
	if (tool)
		fake_tool(f, TOOL);
	msgs_capture(LOG_INFO);
	return f;
}

static int check(struct init *in, int s1, int s2)
{
	const struct blockdev *bd = stack_device(in, "sr0", "iso9660", NULL, "LIVE");

	stack_script.statuses[0] = s1;
	stack_script.statuses[1] = s2;
	return live_check_md5(in, bd);
}

static void test_not_asked(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE", true);

	CHECK(check(&in, 0, 0) == 0);
	CHECK(fake_log_count(f, "run") == 0);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_matches(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE rd.live.check", true);

	CHECK(check(&in, 0, 0) == 0);
	CHECK(fake_log_find(f, "run " TOOL " checkisomd5 --md5sumonly /dev/sr0") >= 0);
	CHECK(fake_log_find(f, "run " TOOL " checkisomd5 /dev/sr0") >= 0);
	CHECK(said("<6>rd.live.check: checking /dev/sr0 (iso9660) against its implanted MD5 sum"));
	CHECK(said("<6>rd.live.check: /dev/sr0: the MD5 sum matches"));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_no_sum(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE rd.live.check=1", true);

	CHECK(check(&in, 1, 0) == 0);
	CHECK(fake_log_count(f, "run") == 1);
	CHECK(said("<4>rd.live.check: /dev/sr0 (iso9660) carries no checksum (implantisomd5 "
		   "writes one): not checked"));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_damaged(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE rd.live.check", true);

	CHECK(check(&in, 0, 1) < 0);
	CHECK_STR(err_msg(), "rd.live.check: /dev/sr0 (iso9660, LABEL=LIVE) does not match the MD5 "
		  "sum implanted in it: the medium is damaged; not booting from it");
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_aborted(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE rd.live.check", true);

	CHECK(check(&in, 0, 2) < 0);
	CHECK_STR(err_msg(), "rd.live.check: checkisomd5 /dev/sr0 ended with status 2 (2: aborted); "
		  "not booting from an unchecked medium");
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_no_tool(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE rd.live.check", false);

	CHECK(check(&in, 0, 0) < 0);
	CHECK_STR(err_msg(), "rd.live.check: this image has no checkisomd5 to check /dev/sr0 with "
		  "(install isomd5sum and make the image again)");
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_not_an_iso(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=M rd.live.check", true);
	const struct blockdev *bd = stack_device(&in, "vda", "ext4", NULL, "M");

	CHECK(live_check_md5(&in, bd) == 0);
	CHECK(fake_log_count(f, "run") == 0);
	CHECK(said("<6>rd.live.check: /dev/vda is ext4, not an ISO: nothing to check"));
	stack_init_finish(f, &in, test_cur_failed);
}

/* A disc whose volume descriptor says 100 blocks, on a device of 20
 * sectors: refused before it is mounted. */
static void test_device_cut_short(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=LIVE", true);
	const struct blockdev *bd = stack_device(&in, "sr0", "iso9660", NULL, "LIVE");
	char *p = fake_path(f, "/dev/sr0");
	FILE *fp;

	fake_write(f, "/dev/sr0", "");
	fp = fopen(p, "r+b");
	fseek(fp, 32768, SEEK_SET);
	fwrite("\001CD001\001", 1, 7, fp);
	fseek(fp, 32768 + 80, SEEK_SET);
	fwrite("\x64\0\0\0\0\0\0\x64", 1, 8, fp);
	fseek(fp, 32768 + 128, SEEK_SET);
	fwrite("\x00\x08\x08\x00", 1, 4, fp);
	fseek(fp, 34815, SEEK_SET);
	fputc(0, fp);
	fclose(fp);
	free(p);
	fake_write(f, "/sys/class/block/sr0/size", "80\n");
	CHECK(live_check_medium(&in, bd) < 0);
	CHECK_STR(err_msg(), "root=live:CDLABEL=LIVE: /dev/sr0 is truncated: 40960 bytes, but its "
		  "iso9660 header says 204800");
	/* whole: nothing to say */
	fake_write(f, "/sys/class/block/sr0/size", "400\n");
	CHECK(live_check_medium(&in, bd) == 0);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_not_asked);
	RUN(test_matches);
	RUN(test_no_sum);
	RUN(test_damaged);
	RUN(test_aborted);
	RUN(test_no_tool);
	RUN(test_not_an_iso);
	RUN(test_device_cut_short);
	return test_done();
}
