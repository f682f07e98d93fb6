// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's module requests' command line (dev/modreq.c): what
 * kernel/module/kmod.c passes ("PATH -q -- NAME"), what a person types,
 * and names no module lookup should see. */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "init/dev/modreq.h"
#include "log.h"
#include "test.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

static int parse(int argc, char *const argv[], struct modreq *rq)
{
	err_clear();
	return modreq_parse(argc, argv, rq);
}

static void test_kernel_argv(void)
{
	char *const v[] = { "/usr/lib/uniramfs/modprobe", "-q", "--", "crypto-xts(serpent)", NULL };
	char *const w[] = { "/usr/lib/uniramfs/modprobe", "-q", "--", "crypto-authenc(hmac(sha256),cbc(aes))", NULL };
	char *const x[] = { "modprobe", "-q", "--", "net-pf-38", NULL };
	struct modreq rq;

	CHECK(parse(ARGC(v), v, &rq) == 0);
	CHECK_STR(rq.name, "crypto-xts(serpent)");
	CHECK(rq.quiet);
	CHECK(parse(ARGC(w), w, &rq) == 0);
	CHECK_STR(rq.name, "crypto-authenc(hmac(sha256),cbc(aes))");
	CHECK(parse(ARGC(x), x, &rq) == 0);
	CHECK_STR(rq.name, "net-pf-38");
}

static void test_by_hand(void)
{
	char *const v[] = { "modprobe", "serpent_generic", NULL };
	char *const w[] = { "modprobe", "--quiet", "fs-btrfs", NULL };
	char *const x[] = { "modprobe", "--", "char-major-10-234", NULL };
	struct modreq rq;

	CHECK(parse(ARGC(v), v, &rq) == 0);
	CHECK_STR(rq.name, "serpent_generic");
	CHECK(!rq.quiet);
	CHECK(parse(ARGC(w), w, &rq) == 0 && rq.quiet);
	CHECK_STR(rq.name, "fs-btrfs");
	CHECK(parse(ARGC(x), x, &rq) == 0 && !rq.quiet);
	CHECK_STR(rq.name, "char-major-10-234");
}

static void test_refused(void)
{
	char *const none[] = { "modprobe", "-q", "--", NULL };
	char *const bare[] = { "modprobe", NULL };
	char *const two[] = { "modprobe", "-q", "--", "a", "b", NULL };
	char *const opt[] = { "modprobe", "-r", "dm_crypt", NULL };
	char *const dash[] = { "modprobe", "--", "-r", NULL };
	char *const path[] = { "modprobe", "--", "../../tmp/evil", NULL };
	char *const glob[] = { "modprobe", "--", "crypto-*", NULL };
	char *const space[] = { "modprobe", "--", "a b", NULL };
	char *const ctl[] = { "modprobe", "--", "a\033[2Jb", NULL };
	char *const empty[] = { "modprobe", "--", "", NULL };
	char *const quiet_after[] = { "modprobe", "--", "-q", NULL };
	struct modreq rq;
	char longname[MODREQ_NAME_MAX + 2];

	CHECK(parse(ARGC(none), none, &rq) == -EINVAL);
	CHECK_STR(err_msg(), "no module name (usage: modprobe [-q] [--] NAME)");
	CHECK(parse(ARGC(bare), bare, &rq) == -EINVAL);
	CHECK(parse(ARGC(two), two, &rq) == -EINVAL);
	CHECK_STR(err_msg(), "more than one module name (\"a\", \"b\")");
	CHECK(parse(ARGC(opt), opt, &rq) == -EINVAL);
	CHECK_STR(err_msg(), "unknown option \"-r\" (only -q and -- are taken)");
	CHECK(parse(ARGC(dash), dash, &rq) == -EINVAL);
	CHECK_STR(err_msg(), "module name \"-r\" starts with '-'");
	CHECK(parse(ARGC(quiet_after), quiet_after, &rq) == -EINVAL);
	CHECK(parse(ARGC(path), path, &rq) == -EINVAL);
	CHECK_STR(err_msg(), "module name \"../../tmp/evil\" has a character modprobe does not "
			     "take (byte 2)");
	CHECK(parse(ARGC(glob), glob, &rq) == -EINVAL);
	CHECK(parse(ARGC(space), space, &rq) == -EINVAL);
	/* what the name holds is escaped in the message (err.c) */
	CHECK(parse(ARGC(ctl), ctl, &rq) == -EINVAL);
	CHECK(!strchr(err_msg(), '\033'));
	CHECK(parse(ARGC(empty), empty, &rq) == -EINVAL);
	CHECK_STR(err_msg(), "an empty module name");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	{
		char *const lv[] = { "modprobe", "--", longname, NULL };
		CHECK(parse(ARGC(lv), lv, &rq) == -EINVAL);
		CHECK_STR(err_msg(), "a module name of 256 bytes (at most 255)");
		longname[MODREQ_NAME_MAX] = '\0';
		CHECK(parse(ARGC(lv), lv, &rq) == 0);
	}
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_kernel_argv);
	RUN(test_by_hand);
	RUN(test_refused);
	return test_done();
}
