/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_LUKS2_H
#define UNIRAMFS_LUKS2_H

#include <stdbool.h>
#include <stddef.h>

/* Which LUKS2 tokens a header holds, read from its JSON area: for the
 * generator (pack the token plugins?) and the init (try them, wait for
 * a TPM?). Both read a hostile device: nothing here trusts a length. */
#define LUKS2_BIN_HDR 4096
#define LUKS2_HDR_MAX (4u << 20) /* cryptsetup's largest header (JSON 4 MiB - 4 KiB) */

#define LUKS2_TOKEN_TPM2 0x1u   /* "systemd-tpm2" */
#define LUKS2_TOKEN_FIDO2 0x2u  /* "systemd-fido2" */
#define LUKS2_TOKEN_PKCS11 0x4u /* "systemd-pkcs11" */
#define LUKS2_TOKEN_OTHER 0x8u  /* any other type (a keyring token, a vendor plugin) */
#define LUKS2_TOKEN_CLEVIS 0x10u /* "clevis": clevis luks bind's, no cryptsetup plugin opens it */
/* Besides LUKS2_TOKEN_TPM2, how its systemd-tpm2 tokens are opened: one
 * with "tpm2-pin": true (systemd-cryptenroll --tpm2-with-pin=yes) asks
 * for a PIN, one without opens alone. */
#define LUKS2_TOKEN_TPM2_PIN 0x20u
#define LUKS2_TOKEN_TPM2_NOPIN 0x40u
#define LUKS2_TOKEN_ALL 0x7fu

/* The header size its first LUKS2_BIN_HDR bytes give, or 0 when they are
 * not a LUKS2 header (LUKS1, no magic, a size out of range). */
size_t luks2_hdr_size(const unsigned char *bin, size_t len);
/* The LUKS2_TOKEN_* of each token in the JSON text (len bytes, or up to
 * a NUL): 0 when it has none or is not JSON as cryptsetup writes it. */
unsigned luks2_token_types(const char *json, size_t len);
/* The token types of the LUKS2 header at fd (pread), or -errno (-EINVAL:
 * not LUKS2). */
int luks2_fd_tokens(int fd);

/* The subsystem field (cryptsetup's --subsystem, 48 bytes at offset 208)
 * of a LUKS2 header's first len bytes, into out (LUKS2_SUBSYSTEM_MAX
 * bytes, always terminated): true, or false when they are not a LUKS2
 * header (luks2_hdr_size) or the field is not terminated. The init marks
 * the devices it formats for rd.overlay.crypt= with it. */
#define LUKS2_SUBSYSTEM_MAX 48
/* The mark of rd.overlay.crypt='s devices: made anew at each boot with a
 * key kept nowhere, so never opened, only formatted again. */
#define LUKS2_SUBSYSTEM_OVERLAY "uniramfs-overlay"
bool luks2_subsystem(const unsigned char *bin, size_t len, char out[LUKS2_SUBSYSTEM_MAX]);

#endif
