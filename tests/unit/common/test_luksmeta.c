// SPDX-License-Identifier: GPL-2.0-or-later
/* Clevis's pins from luksmeta's slots in a LUKS1 gap (src/common/luksmeta.c):
 * a device laid out as cryptsetup and luksmeta do, with JWEs clevis 19 made
 * (tests/unit/fixtures/clevis/), and hostile ones: no LUKS1, no luksmeta,
 * a slot inside the header or past the gap, a key area past the data, a
 * cut device, another program's slot, an unknown version. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clevis_pins.h"
#include "luksmeta.h"
#include "test.h"
#include "util.h"

/* 8 key slots of 32-byte keys with 1 stripe at sectors 8, 16, ... 64:
 * the key material ends at 64 * 512 + 512, the gap starts at 36864 and
 * the data at 128 sectors (65536): a gap of 28672 bytes. */
#define DEV_SIZE 65536
#define GAP 36864u
#define GAP_LEN 28672u

static const unsigned char clevis_uuid[16] = { 0xcb, 0x6e, 0x89, 0x04, 0x81, 0xff, 0x40, 0xda,
					       0xa8, 0x4a, 0x07, 0xab, 0x9a, 0xb5, 0x71, 0x5e };

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static unsigned char *luks1_dev(void)
{
	static const unsigned char magic[8] = { 'L', 'U', 'K', 'S', 0xba, 0xbe, 0, 1 };
	unsigned char *d = xmalloc(DEV_SIZE);

	memset(d, 0, DEV_SIZE);
	memcpy(d, magic, sizeof(magic));
	put32(d + 104, 128);
	put32(d + 108, 32);
	for (int i = 0; i < 8; i++) {
		put32(d + 208 + 48 * i + 40, 8 * (uint32_t)(i + 1));
		put32(d + 208 + 48 * i + 44, 1);
	}
	memcpy(d + GAP, "LUKSMETA", 8);
	put32(d + GAP + 8, 1);
	return d;
}

/* slot i: uuid, len bytes of data at off (from the gap's start) */
static void slot(unsigned char *d, int i, const unsigned char *uuid, uint32_t off,
		 const char *data, uint32_t len)
{
	unsigned char *s = d + GAP + 16 + 32 * i;

	memcpy(s, uuid, 16);
	put32(s + 16, off);
	put32(s + 20, len);
	if (data)
		memcpy(d + GAP + off, data, len);
}

static char *fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char path[512], *buf = xmalloc(8192);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/clevis/%s", src ? src : ".", name);
	f = fopen(path, "r");
	n = f ? fread(buf, 1, 8191, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	CHECK(n > 100);
	return buf;
}

static void test_real_jwes(void)
{
	unsigned char *d = luks1_dev();
	char *tpm2 = fixture("tpm2.jwe"), *sss = fixture("sss.jwe"), *tang = fixture("tang.jwe");
	char why[LUKSMETA_WHY];

	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == 0); /* initialised, no slot */
	slot(d, 1, clevis_uuid, 4096, tpm2, (uint32_t)strlen(tpm2));
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == (int)CLEVIS_PIN_TPM2);
	slot(d, 3, clevis_uuid, 8192, tang, (uint32_t)strlen(tang));
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == (int)(CLEVIS_PIN_TPM2 | CLEVIS_PIN_TANG));
	slot(d, 3, clevis_uuid, 12288, sss, (uint32_t)strlen(sss));
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) ==
	      (int)(CLEVIS_PIN_TPM2 | CLEVIS_PIN_TANG | CLEVIS_PIN_SSS));
	free(tpm2);
	free(sss);
	free(tang);
	free(d);
}

/* the same through a file, as the init reads the device */
static void test_fd(void)
{
	unsigned char *d = luks1_dev();
	char *tpm2 = fixture("tpm2.jwe"), path[] = "/tmp/test_luksmeta.XXXXXX", why[LUKSMETA_WHY];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	slot(d, 0, clevis_uuid, 4096, tpm2, (uint32_t)strlen(tpm2));
	CHECK(write(fd, d, DEV_SIZE) == DEV_SIZE);
	CHECK(luksmeta_fd_pins(fd, why) == (int)CLEVIS_PIN_TPM2);
	CHECK(ftruncate(fd, GAP + 4096 + 100) == 0); /* the JWE cut off: a binding, pins unknown */
	CHECK(luksmeta_fd_pins(fd, why) == (int)CLEVIS_PIN_OTHER);
	CHECK(ftruncate(fd, 300) == 0);
	CHECK(luksmeta_fd_pins(fd, why) == -EINVAL);
	close(fd);
	unlink(path);
	free(tpm2);
	free(d);
}

static void test_not_bound(void)
{
	static const unsigned char other[16] = { 1, 2, 3 };
	unsigned char *d = luks1_dev();
	char why[LUKSMETA_WHY];

	slot(d, 2, other, 4096, "not clevis", 10); /* another program's slot */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == 0);
	d[GAP] = 'l'; /* no luksmeta */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -ENOENT);
	d[GAP] = 'L';
	d[7] = 2; /* LUKS2, or anything else */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -EINVAL);
	d[7] = 1;
	CHECK(luksmeta_mem_pins(d, 100, why) == -EINVAL);     /* cut in its header */
	CHECK(luksmeta_mem_pins(d, GAP + 10, why) == -ENOENT); /* cut in the gap */
	free(d);
}

static void test_hostile(void)
{
	unsigned char *d = luks1_dev();
	char why[LUKSMETA_WHY];

	put32(d + GAP + 8, 7);
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -EBADMSG);
	CHECK_STR(why, "luksmeta version 7, not 1");
	put32(d + GAP + 8, 1);

	slot(d, 4, clevis_uuid, 100, NULL, 10); /* inside luksmeta's header */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -EBADMSG);
	CHECK_STR(why, "luksmeta slot 4: 10 bytes at 100, outside its gap of 28672");
	slot(d, 4, clevis_uuid, 28000, NULL, 1000); /* past the gap's end */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -EBADMSG);
	CHECK_STR(why, "luksmeta slot 4: 1000 bytes at 28000, outside its gap of 28672");
	slot(d, 4, clevis_uuid, 4096, NULL, 0xffffffffu); /* no overflow to wrap it in */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -EBADMSG);
	CHECK_STR(why, "luksmeta slot 4: 4294967295 bytes at 4096, outside its gap of 28672");
	slot(d, 4, clevis_uuid, 4096, "not a JWE at all", 16); /* a header that names no pin */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == (int)CLEVIS_PIN_OTHER);
	slot(d, 4, clevis_uuid, 4096, NULL, 0); /* empty */
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == (int)CLEVIS_PIN_OTHER);

	/* key material reaching the data, or numbers whose sum would wrap */
	put32(d + 104, 72);
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -ENOENT);
	CHECK_STR(why, "no room for luksmeta between the key material (36864) and the data (36864)");
	put32(d + 104, 128);
	put32(d + 108, 0xffffffffu);
	put32(d + 208 + 44, 0xffffffffu);
	put32(d + 208 + 40, 0xffffffffu);
	CHECK(luksmeta_mem_pins(d, DEV_SIZE, why) == -ENOENT);
	CHECK_STR(why, "no room for luksmeta between the key material (65536) and the data (65536)");
	free(d);
}

int main(void)
{
	RUN(test_real_jwes);
	RUN(test_fd);
	RUN(test_not_bound);
	RUN(test_hostile);
	return test_done();
}
