/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_TPM_TPMWAIT_H
#define UNIRAMFS_INIT_TPM_TPMWAIT_H

#include <stdbool.h>

#include "init/core/ops.h"

struct loop;
struct driverq;

/* The TPM's driver is queued like any other (its modalias came with
 * coldplug): every queued driver is loaded now, then path is waited
 * for, its node coming through devtmpfs and its uevent waking the loop,
 * at most secs seconds (0: no end). Whether it is there. The wait a
 * LUKS2 TPM2 token and a measurement share. */
bool tpm_wait(const struct sysops *ops, struct loop *loop, struct driverq *drivers, const char *path,
	      long secs);

#endif
