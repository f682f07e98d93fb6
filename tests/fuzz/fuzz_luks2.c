// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the LUKS2 header scan the generator and the init run
 * on a hostile device. The first bytes are a binary header, the rest a
 * JSON area: neither may read past what was given, the token mask
 * has only the bits luks2.h names (a TPM2 token's PIN bits only with a
 * TPM2 token), the subsystem field (the mark of rd.overlay.crypt='s
 * devices) is a terminated string of a header, and clevis's pins (the
 * JSON area's JWE headers, and the bytes as one header's base64) have
 * only the bits clevis_pins.h names. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clevis_pins.h"
#include "luks2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t hdr = luks2_hdr_size(data, size);
	char *json = malloc(size ? size : 1); /* its own copy: exactly size bytes */
	char sub[LUKS2_SUBSYSTEM_MAX];
	unsigned t;

	if (hdr && (hdr <= LUKS2_BIN_HDR || hdr > LUKS2_HDR_MAX))
		abort();
	/* the subsystem only of a header, and always a terminated string */
	if (luks2_subsystem(data, size, sub) ? !hdr || strlen(sub) >= LUKS2_SUBSYSTEM_MAX : sub[0])
		abort();
	memcpy(json, data, size);
	t = luks2_token_types(json, size);
	if (t & ~LUKS2_TOKEN_ALL)
		abort();
	/* how a TPM2 token opens is said only of a TPM2 token */
	if ((t & (LUKS2_TOKEN_TPM2_PIN | LUKS2_TOKEN_TPM2_NOPIN)) && !(t & LUKS2_TOKEN_TPM2))
		abort();
	if (clevis_luks2_pins(json, size) & ~CLEVIS_PIN_ALL)
		abort();
	if (clevis_jwe_pins(json, size) & ~CLEVIS_PIN_ALL)
		abort();
	free(json);
	return 0;
}
