// SPDX-License-Identifier: GPL-2.0-or-later
/* The boot phases in PCR 11, as systemd-pcrphase-initrd.service measures
 * them in systemd's initrd: "enter-initrd" once the TPM's driver is
 * there and before any LUKS volume is opened, "leave-initrd" just before
 * switch_root. A policy sealed to PCR 11 with both strings ("only in the
 * initrd") then unseals in the initrd and no more once the root runs.
 *
 * When: systemd measures only a boot through systemd-stub, which leaves
 * StubPcrKernelImage in efivarfs once it has measured the UKI into
 * PCR 11 (systemd 252's ConditionPathExists, 255's
 * ConditionSecurity=measured-uki): a boot that measured nothing before
 * has no PCR 11 worth extending. rd.uniramfs.measure=1 or =0 decides
 * instead. With no TPM nothing is measured, as systemd's --graceful. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "init/tpm/measure.h"
#include "init/tpm/tpm2_dev.h"
#include "init/tpm/tpmwait.h"
#include "log.h"

#define EFI_DIR "/sys/firmware/efi"
#define EFIVARS EFI_DIR "/efivars"
#define STUB_VAR EFIVARS "/StubPcrKernelImage-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
#define PCR_KERNEL_BOOT 11
#define TPM_WAIT_S 5 /* the stub measured into a TPM: its driver loads at once */

/* Did systemd-stub measure the UKI? efivarfs is mounted for the look
 * only: the real system mounts its own. */
static bool stub_measured(struct init *in)
{
	char *p = in->ops->path(EFI_DIR);
	bool efi = access(p, F_OK) == 0, there;
	int r;

	free(p);
	if (!efi)
		return false;
	modload_fs(in->ml, "efivarfs");
	r = in->ops->mount("efivarfs", EFIVARS, "efivarfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
			   NULL);
	there = in->ops->access(STUB_VAR, F_OK) == 0;
	if (r == 0)
		in->ops->umount(EFIVARS, 0);
	return there;
}

static void measure_phase(struct init *in, const char *phase)
{
	struct tpm2_measure m = { .pcr = PCR_KERNEL_BOOT, .data = phase, .event = "phase" };
	int r = tpm2_measure(in->ops, NULL, &m);

	if (r < 0)
		log_warn("PCR %d: %s not measured: %s", PCR_KERNEL_BOOT, phase, err_msg());
	else
		in->measured = true;
}

void pcrphase_enter(struct init *in)
{
	bool want = in->opt.measure >= 0 ? in->opt.measure : stub_measured(in);

	if (!want)
		return;
	/* the digests are the kernel's, through AF_ALG */
	if (in->ml && modload_name(in->ml, "algif_hash") < 0)
		log_debug("algif_hash: %s", err_msg());
	if (!tpm_wait(in->ops, &in->loop, &in->drivers, TPM2_RM_DEV, TPM_WAIT_S) &&
	    in->ops->access(TPM2_RAW_DEV, F_OK) < 0) {
		log_info("no TPM2 device: the boot phases are not measured into PCR %d", PCR_KERNEL_BOOT);
		return;
	}
	measure_phase(in, "enter-initrd");
}

void pcrphase_leave(struct init *in)
{
	if (in->measured)
		measure_phase(in, "leave-initrd");
}
