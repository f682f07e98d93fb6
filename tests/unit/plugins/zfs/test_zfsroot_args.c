// SPDX-License-Identifier: GPL-2.0-or-later
/* The ZFS root program's input (src/plugins/zfs/zfsroot_args.c): $1 as
 * the init hands it after root=ZFS= or root=zfs:, the command line's
 * force and rw, a pool's bootfs; all hostile text. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "zfsroot.h"

static void test_dataset_and_pool(void)
{
	struct zfsroot_args a;
	char why[256] = "";

	CHECK(zfsroot_parse("rpool/ROOT/debian", "quiet", &a, why, sizeof(why)) == 0);
	CHECK(!a.autodetect);
	CHECK_STR(a.dataset, "rpool/ROOT/debian");
	CHECK_STR(a.pool, "rpool");
	CHECK(!a.force && !a.rw);
	/* a pool's own root dataset */
	CHECK(zfsroot_parse("tank", NULL, &a, why, sizeof(why)) == 0);
	CHECK_STR(a.pool, "tank");
	CHECK_STR(a.dataset, "tank");
	CHECK(zfsroot_parse("p_1/a.b:c-d", NULL, &a, why, sizeof(why)) == 0);
}

static void test_auto(void)
{
	struct zfsroot_args a;
	char why[256] = "";

	CHECK(zfsroot_parse("AUTO", "rw", &a, why, sizeof(why)) == 0);
	CHECK(a.autodetect);
	CHECK_STR(a.dataset, "");
	CHECK(a.rw);
}

static void test_bad_specs_say_why(void)
{
	struct zfsroot_args a;
	char why[256];

	CHECK(zfsroot_parse("", NULL, &a, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "no dataset after the prefix (root=ZFS=pool/dataset or root=zfs:AUTO)");
	CHECK(zfsroot_parse("rpool/ROOT@snap", NULL, &a, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "'rpool/ROOT@snap': a snapshot or bookmark is not a root (name a dataset)");
	CHECK(zfsroot_parse("rpool/../etc", NULL, &a, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "'rpool/../etc' is not a dataset name (pool/dataset: letters, digits, "
		       "\"_-.:\", components split by '/')");
	static const char *const bad[] = { "/rpool", "rpool/", "rpool//x", "rpool/.", "1pool",
					   "rp ool", "rpool/a;b", "rpool/x\n", "-o", "rpool/$(x)" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(zfsroot_parse(bad[i], NULL, &a, why, sizeof(why)) == -EINVAL);
	char huge[300];
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	CHECK(zfsroot_parse(huge, NULL, &a, why, sizeof(why)) == -EINVAL);
	CHECK(strlen(why) < sizeof(why));
}

static void test_force_spellings(void)
{
	struct zfsroot_args a;
	char why[64];

	static const char *const on[] = { "rd.zfs.force", "rd.zfs.force=1", "zfs_force=1",
					  "zfs_force=yes", "x zfs.force=on y", "zfsforce" };
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		CHECK(zfsroot_parse("rpool", on[i], &a, why, sizeof(why)) == 0);
		CHECK(a.force);
	}
	static const char *const off[] = { "rd.zfs.force=0", "zfs_force=no", "rd.zfs.forcex",
					   "zfs_force=1 zfs_force=0", "rd.zfs" };
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		CHECK(zfsroot_parse("rpool", off[i], &a, why, sizeof(why)) == 0);
		CHECK(!a.force);
	}
	CHECK(zfsroot_parse("rpool", "rw ro", &a, why, sizeof(why)) == 0);
	CHECK(!a.rw);
}

static void test_bootfs(void)
{
	char out[ZFSROOT_NAME_MAX];

	CHECK(zfsroot_bootfs("data\t-\nrpool\trpool/ROOT/debian\n", out, sizeof(out)) == 0);
	CHECK_STR(out, "rpool/ROOT/debian");
	CHECK(zfsroot_bootfs("data\t-\n", out, sizeof(out)) == -ENOENT);
	CHECK(zfsroot_bootfs("", out, sizeof(out)) == -ENOENT);
	/* a pool's property is the pool's text: a bad one is passed over */
	CHECK(zfsroot_bootfs("evil\t../x\ngood\tgood/root", out, sizeof(out)) == 0);
	CHECK_STR(out, "good/root");
	CHECK(zfsroot_bootfs("notab\n", out, sizeof(out)) == -ENOENT);
}

int main(void)
{
	RUN(test_dataset_and_pool);
	RUN(test_auto);
	RUN(test_bad_specs_say_why);
	RUN(test_force_spellings);
	RUN(test_bootfs);
	return test_done();
}
