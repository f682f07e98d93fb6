// SPDX-License-Identifier: GPL-2.0-or-later
/* A hostonly image's modules for the init's measurements
 * (src/gen/features/measure.c): none on a host systemd-stub did not
 * measure, the loaded TPM drivers and AF_ALG's hashes on one it did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/features/measure.h"
#include "test.h"

#define VAR "StubPcrKernelImage-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

static void mk(const char *root, const char *rel)
{
	char p[256];

	for (const char *c = rel; (c = strchr(c + 1, '/'));) {
		snprintf(p, sizeof(p), "%s%.*s", root, (int)(c - rel), rel);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s%s", root, rel);
	mkdir(p, 0755);
}

static void test_plan(void)
{
	char dir[] = "/tmp/uniramfs-measure.XXXXXX", var[256];
	struct strv out = { 0 };
	FILE *f;

	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	mk(dir, "/sys/module/tpm_crb");
	mk(dir, "/sys/firmware/efi/efivars");
	/* not measured by the stub: nothing, though the host has a TPM */
	measure_plan_hostonly(dir, &out);
	CHECK(out.n == 0);
	snprintf(var, sizeof(var), "%s/sys/firmware/efi/efivars/%s", dir, VAR);
	f = fopen(var, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	measure_plan_hostonly(dir, &out);
	CHECK(out.n == 3);
	CHECK(out.n == 3 && !strcmp(out.v[0], "tpm_crb") && !strcmp(out.v[1], "algif_hash") &&
	      !strcmp(out.v[2], "crypto-sha512"));
	strv_free(&out);
	unlink(var);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	RUN(test_plan);
	return test_done();
}
