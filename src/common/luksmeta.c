// SPDX-License-Identifier: GPL-2.0-or-later
/* luksmeta's slots in a LUKS1 gap, for clevis's pins. The gap starts at
 * the end of the furthest key material (each slot's offset in sectors
 * plus key bytes times stripes, rounded to a sector), aligned to 4 KiB,
 * and ends where the data starts, aligned down; luksmeta's header is at
 * its start, all numbers big-endian. Its checksums are left to luksmeta,
 * which clevis runs to unlock: this only says what to wait for, and
 * refuses what luksmeta would refuse (a slot inside the header or longer
 * than the gap), so a device clevis cannot open is not waited on. */
#include "luksmeta.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clevis_pins.h"

#define SECTOR 512u
#define ALIGN 4096u
#define NSLOTS 8

static const unsigned char luks1_magic[8] = { 'L', 'U', 'K', 'S', 0xba, 0xbe, 0, 1 };
static const unsigned char lm_magic[8] = { 'L', 'U', 'K', 'S', 'M', 'E', 'T', 'A' };
/* clevis's slots: CLEVIS_UUID of clevis-luks-common-functions */
static const unsigned char clevis_uuid[16] = { 0xcb, 0x6e, 0x89, 0x04, 0x81, 0xff, 0x40, 0xda,
					       0xa8, 0x4a, 0x07, 0xab, 0x9a, 0xb5, 0x71, 0x5e };

/* reads n bytes at off into buf: 0, or -errno (-ENODATA: past the end) */
typedef int (*reader)(void *ctx, void *buf, size_t n, uint64_t off);

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* [*start, *end) of the gap after phdr's key material, or -EINVAL */
static int gap_of(const unsigned char *phdr, uint64_t *start, uint64_t *end, char *why)
{
	uint64_t data = (uint64_t)be32(phdr + 104) * SECTOR, key = be32(phdr + 108), hole = 0;

	if (memcmp(phdr, luks1_magic, sizeof(luks1_magic)))
		return -EINVAL;
	for (int i = 0; i < NSLOTS; i++) {
		const unsigned char *ks = phdr + 208 + 48 * i;
		uint64_t area = (key * be32(ks + 44) + SECTOR - 1) / SECTOR * SECTOR;
		uint64_t e = (uint64_t)be32(ks + 40) * SECTOR + area;
		if (area > data || e > data) { /* also past what a sum could overflow */
			hole = data;
			break;
		}
		if (e > hole)
			hole = (e + ALIGN - 1) / ALIGN * ALIGN;
	}
	if (!hole || hole >= data || (data - hole) / ALIGN * ALIGN < LUKSMETA_HDR) {
		snprintf(why, LUKSMETA_WHY, "no room for luksmeta between the key material "
			 "(%llu) and the data (%llu)", (unsigned long long)hole, (unsigned long long)data);
		return -ENOENT;
	}
	*start = hole;
	*end = hole + (data - hole) / ALIGN * ALIGN;
	return 0;
}

/* the pins of one slot's JWE: its text up to the first dot is the header */
static unsigned jwe_pins(const char *jwe, size_t n)
{
	const char *dot = memchr(jwe, '.', n);

	return clevis_jwe_pins(jwe, dot ? (size_t)(dot - jwe) : n);
}

static int pins(reader rd, void *ctx, char *why)
{
	unsigned char phdr[LUKS1_PHDR], lm[LUKSMETA_HDR];
	uint64_t start, end;
	unsigned found = 0;
	int r, slots = 0;

	why[0] = '\0';
	r = rd(ctx, phdr, sizeof(phdr), 0);
	if (r < 0)
		return r == -ENODATA ? -EINVAL : r;
	r = gap_of(phdr, &start, &end, why);
	if (r < 0)
		return r;
	r = rd(ctx, lm, sizeof(lm), start);
	if (r < 0)
		return r == -ENODATA ? -ENOENT : r;
	if (memcmp(lm, lm_magic, sizeof(lm_magic)))
		return -ENOENT;
	if (be32(lm + 8) != 1) {
		snprintf(why, LUKSMETA_WHY, "luksmeta version %u, not 1", be32(lm + 8));
		return -EBADMSG;
	}
	for (int i = 0; i < NSLOTS; i++) {
		const unsigned char *s = lm + 16 + 32 * i;
		uint32_t off = be32(s + 16), len = be32(s + 20);
		bool used = false;
		char *jwe;
		for (int k = 0; k < 16; k++)
			used |= s[k] != 0;
		if (!used)
			continue;
		if (off <= LUKSMETA_HDR || off > end - start || len > end - start - off) {
			snprintf(why, LUKSMETA_WHY, "luksmeta slot %d: %u bytes at %u, outside its "
				 "gap of %llu", i, len, off, (unsigned long long)(end - start));
			return -EBADMSG;
		}
		if (memcmp(s, clevis_uuid, sizeof(clevis_uuid)))
			continue; /* another program's */
		slots++;
		if (!len || len > LUKSMETA_JWE_MAX) {
			found |= CLEVIS_PIN_OTHER;
			continue;
		}
		jwe = malloc(len);
		if (!jwe)
			return -ENOMEM;
		r = rd(ctx, jwe, len, start + off);
		if (r == 0)
			found |= jwe_pins(jwe, len);
		else if (r == -ENODATA)
			found |= CLEVIS_PIN_OTHER;
		free(jwe);
		if (r < 0 && r != -ENODATA)
			return r;
	}
	return slots ? (int)found : 0;
}

struct mem {
	const unsigned char *p;
	size_t n;
};

static int mem_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct mem *m = ctx;

	if (off > m->n || n > m->n - off)
		return -ENODATA;
	memcpy(buf, m->p + off, n);
	return 0;
}

int luksmeta_mem_pins(const unsigned char *dev, size_t n, char *why)
{
	struct mem m = { dev, n };

	return pins(mem_read, &m, why);
}

static int fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	int fd = *(int *)ctx;
	size_t got = 0;

	if (off > INT64_MAX - n)
		return -ENODATA;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENODATA;
		got += (size_t)r;
	}
	return 0;
}

int luksmeta_fd_pins(int fd, char *why)
{
	return pins(fd_read, &fd, why);
}
