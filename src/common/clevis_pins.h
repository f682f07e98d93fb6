/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CLEVIS_PINS_H
#define UNIRAMFS_CLEVIS_PINS_H

#include <stddef.h>

/* Which clevis pins a LUKS2 header's bindings use, read from each clevis
 * token's JWE protected header ({"clevis":{"pin":"tpm2",...}}), an sss
 * pin's shares (compact JWEs, each with its own header) followed a few
 * levels deep: for the generator (pack the tpm2 pin's tools?) and the
 * init (wait for the network? for a TPM?). A hostile header: nothing
 * here trusts a length, and what is not understood is CLEVIS_PIN_OTHER. */
#define CLEVIS_PIN_TANG 0x1u
#define CLEVIS_PIN_TPM2 0x2u
#define CLEVIS_PIN_SSS 0x4u
#define CLEVIS_PIN_OTHER 0x8u /* null, a pin of its own, or an undecodable header */
#define CLEVIS_PIN_ALL 0xfu
#define CLEVIS_PINS_DEPTH 4 /* sss inside sss inside sss: deeper is OTHER */

/* The pins of one JWE protected header, base64url text of n bytes. */
unsigned clevis_jwe_pins(const char *b64, size_t n);
/* The pins of every "protected" header in a LUKS2 JSON area (len bytes,
 * or up to a NUL): only clevis's tokens have one. 0: none. */
unsigned clevis_luks2_pins(const char *json, size_t n);
/* The same for the LUKS2 header at fd, or -errno (-EINVAL: not LUKS2). */
int clevis_fd_pins(int fd);

#endif
