/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_UKI_H
#define UNIRAMFS_UKI_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* `uniramfs build --uki FILE.efi`: a unified kernel image, systemd's EFI
 * stub (linuxx64.efi.stub) with the kernel, our image, the command line,
 * os-release and the kernel version as PE sections, the way ukify lays
 * them out: after the stub's last section, each at a page-aligned
 * address (the stub finds them by name), .linux last; build_uki.c adds
 * .pcrpkey, .ucode and .pcrsig when asked (uki_pcr.h). Written by this
 * small PE writer rather than objcopy, so the file depends on its
 * inputs alone (the stub's own time stamp is kept). The stub's COFF
 * symbol table (not loaded, deprecated for images) is dropped, and so is
 * a signature: adding sections would break it anyway. */
#define UKI_DEFAULT_STUB "/usr/lib/systemd/boot/efi/linuxx64.efi.stub"

struct uki_section {
	const char *name; /* ".linux": at most 8 bytes */
	const void *data;
	size_t len;
};

/* Append the UKI to out. -errno + err_* naming the stub for a stub that is
 * not a PE32+ image, one whose headers have no room for the sections, or
 * whose fields point outside it. */
int uki_assemble(struct buf *out, const char *stub_name, const uint8_t *stub, size_t stub_len,
		 const struct uki_section *s, size_t n);

#endif
