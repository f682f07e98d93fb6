// SPDX-License-Identifier: GPL-2.0-or-later
/* A PCR signature file's shape as the init checks it before systemd's
 * TPM2 plugin reads it (src/init/stack/luks_sig_json.c): the stub's
 * /.extra/tpm2-pcr-signature.json or tpm2-signature='s file, anyone's on
 * an unsigned ESP. Rules beyond "no crash": the offset given is within
 * the input; a text judged JSON (of the right shape or not) was read to
 * its end, so one more byte 'x' is a syntax error exactly there; one
 * judged a signature begins with '{' and ends with '}' (white space
 * aside), and without that last '}' is no longer one. A broken rule
 * traps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/stack/luks_sig_json.h"

static int is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t at = 0, at2 = 0, first = 0, last = size;
	enum luks_sig_json v = luks_sig_json_check(s, size, &at);
	char *more;

	if (at > size)
		__builtin_trap();
	if (v == LUKS_SIG_JSON_OK || v == LUKS_SIG_JSON_NOT_OBJECT || v == LUKS_SIG_JSON_NOT_BANK) {
		more = malloc(size + 1);
		if (!more)
			return 0;
		memcpy(more, data, size);
		more[size] = 'x';
		if (luks_sig_json_check(more, size + 1, &at2) != LUKS_SIG_JSON_SYNTAX || at2 != size)
			__builtin_trap();
		free(more);
	}
	if (v != LUKS_SIG_JSON_OK)
		return 0;
	while (first < size && is_space(data[first]))
		first++;
	while (last > first && is_space(data[last - 1]))
		last--;
	if (first >= last || data[first] != '{' || data[last - 1] != '}')
		__builtin_trap();
	if (luks_sig_json_check(s, last - 1, &at2) == LUKS_SIG_JSON_OK)
		__builtin_trap();
	return 0;
}
