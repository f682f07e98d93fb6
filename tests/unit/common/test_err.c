// SPDX-License-Identifier: GPL-2.0-or-later
/* err.c: the message kept for the one report, and the negative errno
 * code that travels up with it (kmod's convention). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "test.h"

static void test_set_returns_einval(void)
{
	err_clear();
	CHECK(err_set("bad %s", "thing") == -EINVAL);
	CHECK_STR(err_msg(), "bad thing");
	CHECK(err_code() == -EINVAL);
}

static void test_errno_takes_either_sign(void)
{
	CHECK(err_errno(ENOENT, "open %s", "/x") == -ENOENT);
	CHECK_STR(err_msg(), "open /x: No such file or directory");
	CHECK(err_errno(-EACCES, "open %s", "/y") == -EACCES);
	CHECK_STR(err_msg(), "open /y: Permission denied");
	CHECK(err_code() == -EACCES);
	/* a call that failed without saying why: the text as before, a code
	 * that is still a failure */
	CHECK(err_errno(0, "short read") == -EIO);
	CHECK_STR(err_msg(), "short read: Success");
}

static void test_set_code_keeps_the_code(void)
{
	CHECK(err_set_code(-ETIMEDOUT, "no answer within %d seconds", 30) == -ETIMEDOUT);
	CHECK_STR(err_msg(), "no answer within 30 seconds");
	/* not a failure code: still one */
	CHECK(err_set_code(0, "odd") == -EINVAL);
}

static void test_wrap_returns_the_recorded_code(void)
{
	err_errno(ENOSPC, "write %s", "/out");
	CHECK(err_wrap("building %s", "img") == -ENOSPC);
	CHECK_STR(err_msg(), "building img: write /out: No space left on device");
	err_set("plain");
	CHECK(err_wrap("ctx") == -EINVAL);
	CHECK_STR(err_msg(), "ctx: plain");
}

static void test_clear(void)
{
	err_errno(EBUSY, "x");
	err_clear();
	CHECK_STR(err_msg(), "unknown error");
	CHECK(err_code() == -EINVAL);
}

static char last[4096];

static void keep(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)userdata;
	snprintf(last, sizeof(last), "%s", msg);
}

/* Issue 24: text from the network or a disk reaches the console and
 * /run/uniramfs/log through every log call: escaped in one place, the
 * log itself. ESC (a terminal's commands), CR (a line rewritten), LF (a
 * forged line), C1 controls (0x9b is CSI) and bytes that are not UTF-8
 * become \xNN; readable UTF-8 stays as it is. */
static void test_log_escapes_foreign_text(void)
{
	log_set_sink(keep, NULL);
	log_warn("root-path %s from DHCP", "/x\x1b[2J\r\nuniramfs: root mounted\xc2\x9b" "1m");
	CHECK_STR(last, "root-path /x\\x1b[2J\\x0d\\x0auniramfs: root mounted\\xc2\\x9b1m from DHCP");
	log_err("LABEL=%s", "Données-日本-😀 \x7f\x9b\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80 a\\b");
	CHECK_STR(last, "LABEL=Données-日本-😀 \\x7f\\x9b\\xff\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80 a\\b");
	/* a sequence cut short by the end, or by a control */
	log_info("%s", "end \xe6\x97");
	CHECK_STR(last, "end \\xe6\\x97");
	log_info("%s", "\xe6\x1b\x97");
	CHECK_STR(last, "\\xe6\\x1b\\x97");
	log_set_sink(NULL, NULL);
	{
		char out[16], twice[16];
		/* truncated at a whole escape, never half of one */
		CHECK(log_escape(out, 8, "ab\x1b\x1b") == 6 && !strcmp(out, "ab\\x1b"));
		CHECK(log_escape(out, sizeof(out), "\x1b\tz") == 9);
		/* escaping twice changes nothing: err.c's text is logged again */
		log_escape(twice, sizeof(twice), out);
		CHECK_STR(twice, out);
	}
	/* the one report (the generator prints it raw on stderr) too */
	err_set("entry %s", "a\x1b]0;pwned\x07");
	CHECK_STR(err_msg(), "entry a\\x1b]0;pwned\\x07");
}

int main(void)
{
	RUN(test_set_returns_einval);
	RUN(test_errno_takes_either_sign);
	RUN(test_set_code_keeps_the_code);
	RUN(test_wrap_returns_the_recorded_code);
	RUN(test_clear);
	RUN(test_log_escapes_foreign_text);
	return test_done();
}
