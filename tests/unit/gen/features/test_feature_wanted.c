// SPDX-License-Identifier: GPL-2.0-or-later
/* The one rule of src/gen/features/feature_wanted.c: the setting, the
 * baked command line, and a hostonly image's own /proc/cmdline, which a
 * generic image never reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/features/feature_wanted.h"
#include "test.h"

static bool asks_x(const char *line)
{
	return line && strstr(line, "x=1");
}

static void test_wanted(void)
{
	char dir[] = "/tmp/uniramfs-feature.XXXXXX", path[64];
	FILE *f;

	CHECK(feature_wanted(true, NULL, "/nonexistent", false, asks_x));
	CHECK(!feature_wanted(false, NULL, "/nonexistent", true, asks_x));
	CHECK(feature_wanted(false, "quiet x=1", "/nonexistent", false, asks_x));
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/cmdline", dir);
	f = fopen(path, "w");
	CHECK(f && fputs("BOOT_IMAGE=/vmlinuz x=1 quiet\n", f) >= 0);
	if (f)
		fclose(f);
	CHECK(feature_wanted(false, NULL, dir, true, asks_x));
	CHECK(feature_wanted(false, "quiet", dir, true, asks_x));
	CHECK(!feature_wanted(false, NULL, dir, false, asks_x)); /* generic: this machine's is not read */
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	RUN(test_wanted);
	return test_done();
}
