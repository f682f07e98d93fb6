// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: a TPM's answer as src/init/tpm/tpm2_msg.c parses
 * it from /dev/tpmrm0, a hostile device. The first byte picks the
 * command answered (GetCapability, PCR_Read of each bank, PCR_Extend),
 * the rest is the answer. Rules beyond "no crash": a parse that
 * succeeds consumed exactly the answer's length (its header says it),
 * counts no more banks than TPM2_BANKS_MAX, selects no more than
 * TPM2_SELECT_MAX bytes of PCRs, and gives a digest only of the bank's
 * size; one that fails says why. A broken rule traps. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/tpm/tpm2_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t algs[] = { TPM2_ALG_SHA1, TPM2_ALG_SHA256, TPM2_ALG_SHA384,
					 TPM2_ALG_SHA512, 0x0012 };
	uint8_t *buf;
	size_t len;
	int r;

	if (size < 1 || size > TPM2_RSP_MAX + 1)
		return 0;
	len = size - 1;
	/* exactly len bytes: a read past them is ASan's to see */
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	err_clear();
	if (data[0] % 3 == 0) {
		struct tpm2_banks b;

		r = tpm2_rsp_get_pcrs(buf, len, &b);
		if (r == 0 && b.n > TPM2_BANKS_MAX)
			abort();
		for (size_t i = 0; r == 0 && i < b.n; i++)
			if (b.v[i].nselect > TPM2_SELECT_MAX)
				abort();
		if (r < 0 && b.n)
			abort();
	} else if (data[0] % 3 == 1) {
		uint16_t alg = algs[(data[0] / 3) % 5];
		struct tpm2_digest d;

		r = tpm2_rsp_pcr_read(buf, len, alg, &d);
		if (r == 0 && d.len && d.len != tpm2_alg_size(alg))
			abort();
		if (r < 0 && d.len)
			abort();
	} else {
		r = tpm2_rsp_pcr_extend(buf, len);
	}
	if (r == 0 && (len < 10 || ((size_t)buf[2] << 24 | (size_t)buf[3] << 16 | (size_t)buf[4] << 8 | buf[5]) != len))
		abort();
	if (r < 0 && !err_msg()[0])
		abort();
	free(buf);
	return 0;
}
