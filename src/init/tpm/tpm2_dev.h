/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_TPM_TPM2_DEV_H
#define UNIRAMFS_INIT_TPM_TPM2_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "init/core/ops.h"
#include "init/tpm/tpm2_msg.h"

#define TPM2_RM_DEV "/dev/tpmrm0" /* the kernel's resource manager: systemd's default */
#define TPM2_RAW_DEV "/dev/tpm0"

/* The TPM 2.0 device: path if given, else /dev/tpmrm0, else /dev/tpm0.
 * Its fd, or -ENOENT when there is none (err set), or another negative
 * code (err set). */
int tpm2_dev_open(const struct sysops *ops, const char *path, const char **opened);

/* One command of len bytes and its answer into rsp (TPM2_RSP_MAX): the
 * answer's length, or a negative code (err set). The kernel's TPM
 * character devices take a whole command in one write and give a whole
 * answer in one read. */
ssize_t tpm2_dev_transact(int fd, const uint8_t *cmd, size_t len, uint8_t *rsp);

/* The active banks (GetCapability), the value of one PCR in one bank
 * (PCR_Read), and an extension of one PCR in each of n banks
 * (PCR_Extend): 0 or a negative code (err set). */
int tpm2_dev_banks(int fd, struct tpm2_banks *out);
int tpm2_dev_pcr_read(int fd, uint16_t alg, unsigned pcr, struct tpm2_digest *out);
int tpm2_dev_pcr_extend(int fd, unsigned pcr, const struct tpm2_digest *d, size_t n);

#endif
