// SPDX-License-Identifier: GPL-2.0-or-later
/* err.c: the message kept for the one report, and the negative errno
 * code that travels up with it (kmod's convention). */
#include <errno.h>

#include "err.h"
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

int main(void)
{
	RUN(test_set_returns_einval);
	RUN(test_errno_takes_either_sign);
	RUN(test_set_code_keeps_the_code);
	RUN(test_wrap_returns_the_recorded_code);
	RUN(test_clear);
	return test_done();
}
