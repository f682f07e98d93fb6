/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_GEN_FEATURES_MEASURE_H
#define UNIRAMFS_GEN_FEATURES_MEASURE_H

#include "util.h"

/* A hostonly image for a host that systemd-stub measured (its
 * StubPcrKernelImage EFI variable is there: SYSROOT/sys/firmware/efi/
 * efivars/…): the modules the init's measurements need
 * (docs/measured-boot.md) into out: the host's loaded TPM drivers,
 * algif_hash, and crypto-sha512 for the sha384/sha512 banks. A generic
 * image has them anyway; a host booted otherwise gets none. */
void measure_plan_hostonly(const char *sysroot, struct strv *out);

#endif
