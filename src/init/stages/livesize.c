// SPDX-License-Identifier: GPL-2.0-or-later
/* The length a live image's header claims (livesize.h). ECMA-119 8.4:
 * the primary volume descriptor in sector 16, its volume space size (a
 * 32-bit count of logical blocks) at byte 80 and its logical block size
 * at byte 128, each written little-endian then big-endian. squashfs 4:
 * "hsqs", the major version at byte 28 and bytes_used (little-endian 64
 * bits) at byte 40. */
#include "init/stages/livesize.h"

#include <string.h>

#include "err.h"

#define ISO_PVD 32768

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static int iso9660(const unsigned char *d, const char **type, uint64_t *size)
{
	uint32_t blocks = le32(d + 80), bs = (uint32_t)d[128] | (uint32_t)d[129] << 8;

	*type = "iso9660";
	if (blocks != be32(d + 84))
		return err_set("iso9660: its volume space size is %u little-endian but %u big-endian",
			       blocks, be32(d + 84));
	if (bs != ((uint32_t)d[131] | (uint32_t)d[130] << 8))
		return err_set("iso9660: its logical block size is %u little-endian but %u "
			       "big-endian", bs, (uint32_t)d[131] | (uint32_t)d[130] << 8);
	/* ECMA-119 6.1.2: a power of two, at least 512, at most the sector */
	if (bs < 512 || bs > 2048 || (bs & (bs - 1)))
		return err_set("iso9660: logical block size %u (512, 1024 or 2048)", bs);
	*size = (uint64_t)blocks * bs;
	return 1;
}

static int squashfs(const unsigned char *d, const char **type, uint64_t *size)
{
	unsigned major = (unsigned)d[28] | (unsigned)d[29] << 8;
	uint64_t used = (uint64_t)le32(d + 40) | (uint64_t)le32(d + 44) << 32;

	*type = "squashfs";
	if (major != 4)
		return err_set("squashfs: version %u (the kernel reads 4)", major);
	/* bytes_used counts the superblock's own 96 bytes */
	if (used < 96 || used > (uint64_t)1 << 50)
		return err_set("squashfs: bytes_used %llu is impossible", (unsigned long long)used);
	*size = used;
	return 1;
}

int live_header_size(const unsigned char *buf, size_t len, const char **type, uint64_t *size)
{
	*type = NULL;
	*size = 0;
	if (len >= 96 && !memcmp(buf, "hsqs", 4))
		return squashfs(buf, type, size);
	if (len >= ISO_PVD + 2048 && buf[ISO_PVD] == 1 && !memcmp(buf + ISO_PVD + 1, "CD001", 5))
		return iso9660(buf + ISO_PVD, type, size);
	return 0;
}
