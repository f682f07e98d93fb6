// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: systemd-measure calculate's text as the UKI's PCR
 * signing reads it (uki_pcr_parse_values). Whatever it accepts must be
 * exactly the four lines it stands for, written back the same, and the
 * policy and JSON made from the values must be well formed. The same
 * bytes as a DER public key (uki_pcr_spki_rsa, over openssl pkey's
 * output of the user's key): an RSAPublicKey found lies inside, a
 * SEQUENCE, at the end. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/image/uki_pcr.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t values[UKI_PCR_NPHASES][32], pol[UKI_PCR_NPHASES][32];
	struct buf back = { 0 }, json = { 0 }, sigs[UKI_PCR_NPHASES] = { { 0 } };
	const uint8_t *rsa = NULL;
	size_t rsa_len = 0;

	if (uki_pcr_spki_rsa(data, size, &rsa, &rsa_len) == 0 &&
	    (rsa < data || rsa_len < 2 || rsa + rsa_len != data + size || rsa[0] != 0x30))
		abort();

	if (uki_pcr_parse_values((const char *)data, size, UKI_PCR_NPHASES, values) == 0) {
		for (size_t i = 0; i < UKI_PCR_NPHASES; i++) {
			buf_printf(&back, "11:sha256=");
			for (size_t j = 0; j < 32; j++)
				buf_printf(&back, "%02x", values[i][j]);
			buf_printf(&back, "\n");
			uki_pcr_policy(values[i], pol[i]);
			buf_append(&sigs[i], data, size < 7 * i ? size : 7 * i);
		}
		/* the same text, the last newline optional */
		if (!(back.len == size || back.len == size + 1) || memcmp(back.p, data, size) != 0)
			abort();
		uki_pcr_json(&json, values[0], (const uint8_t(*)[32])pol, sigs, UKI_PCR_NPHASES);
		buf_append(&json, "", 1);
		if (strncmp(json.p, "{\"sha256\":[{\"pcrs\":[11],", 24) != 0 || strcmp(json.p + json.len - 5, "\"}]}") != 0 ||
		    strchr(json.p, '\n'))
			abort();
	}
	buf_free(&back);
	buf_free(&json);
	for (size_t i = 0; i < UKI_PCR_NPHASES; i++)
		buf_free(&sigs[i]);
	return 0;
}
