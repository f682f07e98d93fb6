// SPDX-License-Identifier: GPL-2.0-or-later
/* Where a live medium's automatic overlay partition goes
 * (src/init/stages/autooverlay.c, autooverlay_place): only in the free
 * space after the last partition, when that is the medium's, aligned to
 * MiB, leaving the last MiB for a backup GPT; every refusal says why.
 * The partition made at boot and used is booted in
 * tests/boot/scenarios_liveovl.py (TEST-30 "autooverlay"). */
#include <errno.h>

#include "err.h"
#include "init/stages/overlayupper.h"
#include "test.h"

#define MIB 2048ULL

static void test_place_after_medium(void)
{
	/* TEST-30's root.img: partition 1 at 2048, 652688 sectors, then free */
	struct part_extent parts[] = { { 1, 2048, 652688 } }, out;

	CHECK(autooverlay_place(parts, 1, 1, 370 * MIB, &out) == 0);
	CHECK(out.partno == 2);
	CHECK(out.start == 320 * MIB); /* 2048 + 652688 = 654736, up to the next MiB */
	CHECK(out.size == (370 - 1 - 320) * MIB);

	/* the medium last of three, numbers 1 and 3 used: 2 is the new one */
	struct part_extent three[] = { { 3, 2048, 2048 }, { 1, 4096, 4096 }, { 5, 8192, 100 } };
	CHECK(autooverlay_place(three, 3, 5, 64 * MIB, &out) == 0);
	CHECK(out.partno == 2 && out.start == 5 * MIB && out.size == 58 * MIB);
}

static void test_place_refused(void)
{
	struct part_extent medium_first[] = { { 1, 2048, 2048 }, { 2, 8192, 2048 } }, out;
	struct part_extent one[] = { { 1, 2048, 60 * MIB } };

	CHECK(autooverlay_place(medium_first, 2, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "partition 2 ends after the medium's (1): the free space is not after "
		  "the medium");
	CHECK(autooverlay_place(one, 1, 1, 64 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "only 2 MiB free after the medium (at least 16 needed)");
	CHECK(autooverlay_place(one, 1, 1, 61 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "only 0 MiB free after the medium (at least 16 needed)");
	CHECK(autooverlay_place(one, 1, 1, 0, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium ends past its disk's end");
	CHECK(autooverlay_place(one, 1, 4, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium is not a partition of its disk");
	CHECK(autooverlay_place(NULL, 0, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium is not a partition of its disk");
	/* a partition table that claims past the disk's end: no room */
	struct part_extent past[] = { { 1, 2048, ~0ULL / 4 } }, wrap[] = { { 1, ~0ULL - 10, 100 } };
	CHECK(autooverlay_place(past, 1, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium ends past its disk's end");
	CHECK(autooverlay_place(wrap, 1, 1, 1024 * MIB, &out) == -EINVAL);
	CHECK_STR(err_msg(), "the medium ends past its disk's end");
}

int main(void)
{
	RUN(test_place_after_medium);
	RUN(test_place_refused);
	return test_done();
}
