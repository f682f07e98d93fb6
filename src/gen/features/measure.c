// SPDX-License-Identifier: GPL-2.0-or-later
/* What a hostonly image needs for the init's measurements (measure.h).
 * The init measures the boot phases on a boot systemd-stub measured
 * (src/init/stages/pcrphase.c); a host booted so will boot its next
 * image so too, and the init then needs the TPM's driver and the
 * kernel's hashes through AF_ALG. Any other host is left as it was:
 * loading a TPM driver at every boot for nothing costs time. */
#include "gen/features/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gen/features/stack.h"
#include "log.h"

#define STUB_VAR "/sys/firmware/efi/efivars/StubPcrKernelImage-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

void measure_plan_hostonly(const char *sysroot, struct strv *out)
{
	char *p = xasprintf("%s%s", sysroot, STUB_VAR);
	bool measured = access(p, F_OK) == 0;

	free(p);
	if (!measured)
		return;
	log_info("hostonly: systemd-stub measured this boot: packing the TPM driver and AF_ALG's "
		 "hashes for the init's measurements");
	stack_tpm_drivers(sysroot, out);
	strv_push(out, "algif_hash");
	strv_push(out, "crypto-sha512"); /* sha384 too */
}
