// SPDX-License-Identifier: GPL-2.0-or-later
/* Which partition the Discoverable Partitions Specification makes the
 * root (or /usr): the type GUIDs of this architecture, the attributes,
 * the firmware's word on the boot disk. No I/O here. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "init/dev/gptauto.h"

/* The specification's table, for the architectures Linux distributions
 * build this init for. */
static const struct {
	const char *arch, *root, *usr;
} types = {
#if defined(__x86_64__)
	"x86-64", "4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "8484680c-9521-48c6-9c11-b0720656f69e",
#elif defined(__i386__)
	"x86", "44479540-f297-41b2-9af7-d131d5f0458a", "75250d76-8cc6-458e-bd66-bd47cc81a812",
#elif defined(__aarch64__)
	"arm64", "b921b045-1df0-41c3-af44-4c6f280d3fae", "b0e01050-ee5f-4390-949a-9101b17104e9",
#elif defined(__arm__)
	"arm", "69dad710-2ce4-4e3c-b16c-21a1d49abed3", "7d0359a3-02b3-4f0a-865c-654403e70625",
#elif defined(__riscv) && __riscv_xlen == 64
	"riscv64", "72ec70a6-cf74-40e6-bd49-4bda08e8f224", "beaec34b-8442-439b-a40b-984381ed097d",
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	"ppc64-le", "c31c45e6-3f39-412e-80fb-4809c4980599", "ee2b9983-21e8-4153-86d9-b6901a54d1ce",
#elif defined(__s390x__)
	"s390x", "5eead9a9-fe09-4a1e-a1d7-520d00531306", "8a4f5770-50aa-4ed3-874a-99b710db6fea",
#elif defined(__loongarch64)
	"loongarch64", "77055800-792c-4f94-b39a-98c91b762bb6", "e611c702-575c-4cbe-9a46-434fa0bf7e3f",
#else
	NULL, NULL, NULL,
#endif
};

const char *dps_arch(void)
{
	return types.arch;
}

const char *dps_type(enum dps_kind kind)
{
	return kind == DPS_ROOT ? types.root : kind == DPS_USR ? types.usr : NULL;
}

enum dps_kind dps_kind(const char *parttype)
{
	if (!parttype || !types.arch)
		return DPS_OTHER;
	if (!strcasecmp(parttype, types.root))
		return DPS_ROOT;
	if (!strcasecmp(parttype, types.usr))
		return DPS_USR;
	return DPS_OTHER;
}

const char *dps_mapper_name(enum dps_kind kind)
{
	return kind == DPS_ROOT ? "root" : kind == DPS_USR ? "usr" : NULL;
}

enum dps_result dps_choose(const struct dps_part *v, size_t n, enum dps_kind kind,
			   const char *disk, int *pick)
{
	int best = -1, skipped = -1;
	bool several = false;

	for (size_t i = 0; i < n; i++) {
		if (v[i].kind != kind || !v[i].disk || (disk && strcmp(v[i].disk, disk)))
			continue;
		if (v[i].flags & DPS_FLAG_NO_AUTO) {
			if (skipped < 0)
				skipped = (int)i;
			continue;
		}
		if (best < 0)
			best = (int)i;
		else if (strcmp(v[best].disk, v[i].disk))
			several = true;
		else if (v[i].partno < v[best].partno)
			best = (int)i;
	}
	if (several) {
		/* the first in the order given, not the lowest of one disk */
		for (size_t i = 0; i < n; i++)
			if (v[i].kind == kind && v[i].disk && !(v[i].flags & DPS_FLAG_NO_AUTO) &&
			    (!disk || !strcmp(v[i].disk, disk))) {
				*pick = (int)i;
				break;
			}
		return DPS_SEVERAL;
	}
	*pick = best >= 0 ? best : skipped;
	return best >= 0 ? DPS_FOUND : DPS_NONE;
}

int dps_loader_uuid(const unsigned char *data, size_t n, char out[37])
{
	size_t k = 0;

	/* 4 bytes of the variable's attributes first (efivarfs's format) */
	for (size_t i = 4; i + 1 < n; i += 2) {
		unsigned c = data[i] | (unsigned)data[i + 1] << 8;

		if (!c)
			break;
		if (k == 36 || c > 0x7f)
			return -EINVAL;
		out[k++] = (char)tolower((int)c);
	}
	out[k] = '\0';
	if (k != 36)
		return -EINVAL;
	for (size_t i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? out[i] != '-' : !isxdigit((unsigned char)out[i]))
			return -EINVAL;
	return 0;
}
