// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.live.sha256=: what is a digest and what is refused by name; the
 * kernel's SHA-256 of a file (skipped where the host kernel has no
 * AF_ALG hash: the boot test live-http-test31 checks it in the guest). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "err.h"
#include "init/netboot/imgsum.h"

#define ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static void test_parse(void)
{
	char hex[SHA256_HEX];

	CHECK(imgsum_parse(ABC, hex) == 0);
	CHECK_STR(hex, ABC);
	CHECK(imgsum_parse("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", hex) == 0);
	CHECK_STR(hex, ABC);
	err_clear();
	CHECK(imgsum_parse(ABC "0", hex) == -EINVAL);
	CHECK_STR(err_msg(), "rd.live.sha256=" ABC "0: not a SHA-256 (64 hexadecimal digits)");
	CHECK(imgsum_parse("ba7816", hex) == -EINVAL);
	CHECK_STR(err_msg(), "rd.live.sha256=ba7816: not a SHA-256 (64 hexadecimal digits)");
	CHECK(imgsum_parse("ga7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", hex) == -EINVAL);
	CHECK(imgsum_parse("", hex) == -EINVAL);
}

static void test_file(void)
{
	char path[] = "/tmp/test_imgsum.XXXXXX", hex[SHA256_HEX];
	int fd = mkstemp(path), r;

	unlink(path);
	CHECK(write(fd, "abc", 3) == 3);
	lseek(fd, 0, SEEK_SET);
	err_clear();
	r = imgsum_fd(fd, hex);
	close(fd);
	if (r == -EAFNOSUPPORT)
		SKIP("no AF_ALG in this kernel");
	CHECK(r == 0);
	CHECK_STR(hex, ABC);
}

int main(void)
{
	RUN(test_parse);
	RUN(test_file);
	return test_done();
}
