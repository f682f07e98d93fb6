// SPDX-License-Identifier: GPL-2.0-or-later
/* Root discovery's choice (Discoverable Partitions Specification): the
 * type GUIDs, the no-auto attribute, one disk or a refusal, the boot
 * disk the firmware names, and LoaderDevicePartUUID's efivarfs form. */
#include <errno.h>
#include <string.h>

#include "init/dev/gptauto.h"
#include "test.h"

#define ROOT "4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
#define USR "8484680c-9521-48c6-9c11-b0720656f69e"

static void test_types(void)
{
#if defined(__x86_64__)
	CHECK_STR(dps_arch(), "x86-64");
	CHECK_STR(dps_type(DPS_ROOT), ROOT);
	CHECK_STR(dps_type(DPS_USR), USR);
	CHECK(dps_kind("4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709") == DPS_ROOT);
	CHECK(dps_kind(USR) == DPS_USR);
	/* the ESP, Linux filesystem data, another architecture's root */
	CHECK(dps_kind("c12a7328-f81f-11d2-ba4b-00a0c93ec93b") == DPS_OTHER);
	CHECK(dps_kind("0fc63daf-8483-4772-8e79-3d69d8477de4") == DPS_OTHER);
	CHECK(dps_kind("b921b045-1df0-41c3-af44-4c6f280d3fae") == DPS_OTHER);
	CHECK(dps_kind(NULL) == DPS_OTHER);
	CHECK_STR(dps_mapper_name(DPS_ROOT), "root");
	CHECK_STR(dps_mapper_name(DPS_USR), "usr");
	CHECK(dps_mapper_name(DPS_OTHER) == NULL);
#else
	SKIP("the x86-64 table is what this test checks");
#endif
}

static void test_choose_one_disk(void)
{
	/* in the order the devices came: the lowest number wins on a disk */
	struct dps_part v[] = {
		{ "/dev/sda3", "8:0", 3, DPS_ROOT, 0 },
		{ "/dev/sda1", "8:0", 1, DPS_OTHER, 0 },
		{ "/dev/sda2", "8:0", 2, DPS_ROOT, DPS_FLAG_READ_ONLY },
		{ "/dev/sda4", "8:0", 4, DPS_USR, 0 },
	};
	int pick = -1;

	CHECK(dps_choose(v, 4, DPS_ROOT, NULL, &pick) == DPS_FOUND && pick == 2);
	CHECK(dps_choose(v, 4, DPS_ROOT, "8:0", &pick) == DPS_FOUND && pick == 2);
	CHECK(dps_choose(v, 4, DPS_USR, "8:0", &pick) == DPS_FOUND && pick == 3);
	/* another disk's /usr is not the root's */
	CHECK(dps_choose(v, 4, DPS_USR, "8:16", &pick) == DPS_NONE && pick == -1);
	CHECK(dps_choose(v, 0, DPS_ROOT, NULL, &pick) == DPS_NONE && pick == -1);
}

static void test_choose_no_auto(void)
{
	struct dps_part v[] = {
		{ "/dev/sda2", "8:0", 2, DPS_ROOT, DPS_FLAG_NO_AUTO },
		{ "/dev/sda3", "8:0", 3, DPS_ROOT, DPS_FLAG_NO_AUTO | DPS_FLAG_READ_ONLY },
	};
	int pick = -1;

	/* never taken; the first skipped one is named */
	CHECK(dps_choose(v, 2, DPS_ROOT, NULL, &pick) == DPS_NONE && pick == 0);
	v[1].flags = 0;
	CHECK(dps_choose(v, 2, DPS_ROOT, NULL, &pick) == DPS_FOUND && pick == 1);
}

static void test_choose_several_disks(void)
{
	struct dps_part v[] = {
		{ "/dev/vda2", "254:0", 2, DPS_ROOT, 0 },
		{ "/dev/vdb2", "254:16", 2, DPS_ROOT, 0 },
		{ "/dev/vdc2", "254:32", 2, DPS_ROOT, DPS_FLAG_NO_AUTO },
	};
	int pick = -1;

	CHECK(dps_choose(v, 3, DPS_ROOT, NULL, &pick) == DPS_SEVERAL && pick == 0);
	/* the firmware's boot disk decides */
	CHECK(dps_choose(v, 3, DPS_ROOT, "254:16", &pick) == DPS_FOUND && pick == 1);
	CHECK(dps_choose(v, 3, DPS_ROOT, "254:32", &pick) == DPS_NONE && pick == 2);
	/* a disk whose only root is no-auto does not compete */
	CHECK(dps_choose(v + 1, 2, DPS_ROOT, NULL, &pick) == DPS_FOUND && pick == 0);
}

/* efivarfs: 4 bytes of attributes, then UTF-16LE, NUL-ended. */
static size_t efivar(unsigned char *out, const char *s)
{
	size_t n = 4;

	memcpy(out, "\x06\x00\x00\x00", 4);
	for (; *s; s++) {
		out[n++] = (unsigned char)*s;
		out[n++] = 0;
	}
	out[n++] = 0;
	out[n++] = 0;
	return n;
}

static void test_loader_uuid(void)
{
	unsigned char buf[256];
	char out[37];
	size_t n;

	n = efivar(buf, "6A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9");
	CHECK(dps_loader_uuid(buf, n, out) == 0);
	CHECK_STR(out, "6a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9");
	/* no NUL at the end */
	CHECK(dps_loader_uuid(buf, n - 2, out) == 0);
	CHECK(dps_loader_uuid(buf, 3, out) == -EINVAL);
	n = efivar(buf, "6A1B2C3D-4E5F-4061-8273-94A5B6C7D8E");
	CHECK(dps_loader_uuid(buf, n, out) == -EINVAL);
	n = efivar(buf, "6A1B2C3D-4E5F-4061-8273-94A5B6C7D8E99");
	CHECK(dps_loader_uuid(buf, n, out) == -EINVAL);
	n = efivar(buf, "6A1B2C3D_4E5F-4061-8273-94A5B6C7D8E9");
	CHECK(dps_loader_uuid(buf, n, out) == -EINVAL);
	n = efivar(buf, "6A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9");
	buf[5] = 0x01; /* not ASCII */
	CHECK(dps_loader_uuid(buf, n, out) == -EINVAL);
}

int main(void)
{
	RUN(test_types);
	RUN(test_choose_one_disk);
	RUN(test_choose_no_auto);
	RUN(test_choose_several_disks);
	RUN(test_loader_uuid);
	return test_done();
}
