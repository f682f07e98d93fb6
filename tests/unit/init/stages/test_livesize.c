// SPDX-License-Identifier: GPL-2.0-or-later
/* The length a live image's header claims (src/init/stages/livesize.c):
 * an ISO's primary volume descriptor and a squashfs superblock, whole and
 * hostile: fields that disagree with themselves or cannot be, and
 * buffers too short to hold them. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "err.h"
#include "init/stages/livesize.h"
#include "test.h"

static unsigned char buf[LIVE_PROBE_LEN];

static void put32(unsigned char *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

/* An ISO's first 34 KiB: blocks of bs bytes in its volume. */
static void iso(uint32_t blocks, unsigned bs)
{
	unsigned char *d = buf + 32768;

	memset(buf, 0, sizeof(buf));
	d[0] = 1;
	memcpy(d + 1, "CD001", 5);
	d[6] = 1;
	put32(d + 80, blocks, false);
	put32(d + 84, blocks, true);
	d[128] = bs & 0xff;
	d[129] = bs >> 8;
	d[130] = bs >> 8;
	d[131] = bs & 0xff;
}

static void squash(unsigned major, uint64_t used)
{
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "hsqs", 4);
	buf[28] = (unsigned char)major;
	put32(buf + 40, (uint32_t)used, false);
	put32(buf + 44, (uint32_t)(used >> 32), false);
}

static void test_iso(void)
{
	const char *type;
	uint64_t size;

	iso(1648, 2048);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == 1);
	CHECK_STR(type, "iso9660");
	CHECK(size == 1648ULL * 2048);
	/* 4 GiB of 2 KiB blocks and more: no overflow */
	iso(0xffffffffu, 2048);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == 1);
	CHECK(size == 0xffffffffULL * 2048);
}

static void test_squashfs(void)
{
	const char *type;
	uint64_t size;

	squash(4, 123456789012ULL);
	CHECK(live_header_size(buf, 96, &type, &size) == 1);
	CHECK_STR(type, "squashfs");
	CHECK(size == 123456789012ULL);
}

static void test_neither(void)
{
	const char *type = "x";
	uint64_t size = 1;

	memset(buf, 0, sizeof(buf));
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == 0);
	CHECK(!type && size == 0);
	/* an ISO's signature past the bytes given is not read */
	iso(10, 2048);
	CHECK(live_header_size(buf, sizeof(buf) - 1, &type, &size) == 0);
	/* a squashfs magic in fewer bytes than its superblock */
	squash(4, 4096);
	CHECK(live_header_size(buf, 95, &type, &size) == 0);
	CHECK(live_header_size(buf, 0, &type, &size) == 0);
}

static void test_hostile(void)
{
	const char *type;
	uint64_t size;

	iso(1648, 2048);
	put32(buf + 32768 + 84, 1649, true);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "iso9660: its volume space size is 1648 little-endian but 1649 big-endian");
	iso(1648, 2048);
	buf[32768 + 131] = 0x01;
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "iso9660: its logical block size is 2048 little-endian but 2049 big-endian");
	iso(1648, 4096);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "iso9660: logical block size 4096 (512, 1024 or 2048)");
	iso(1648, 768);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "iso9660: logical block size 768 (512, 1024 or 2048)");
	iso(1648, 0);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "iso9660: logical block size 0 (512, 1024 or 2048)");
	squash(3, 4096);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "squashfs: version 3 (the kernel reads 4)");
	squash(4, 95);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "squashfs: bytes_used 95 is impossible");
	squash(4, UINT64_MAX);
	CHECK(live_header_size(buf, sizeof(buf), &type, &size) == -EINVAL);
	CHECK_STR(err_msg(), "squashfs: bytes_used 18446744073709551615 is impossible");
}

int main(void)
{
	RUN(test_iso);
	RUN(test_squashfs);
	RUN(test_neither);
	RUN(test_hostile);
	return test_done();
}
