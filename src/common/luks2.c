// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS2 headers: the binary part's size field and the "tokens" object of
 * the JSON area. Not a JSON parser: a scan that tracks depth, strings and
 * the last key, enough for {"tokens":{"0":{"type":"systemd-tpm2",...}}}
 * as cryptsetup writes it, and safe on anything else. */
#include "luks2.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const unsigned char magic[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };

size_t luks2_hdr_size(const unsigned char *b, size_t len)
{
	uint64_t size = 0;

	if (len < LUKS2_BIN_HDR || memcmp(b, magic, sizeof(magic)) || b[6] != 0 || b[7] != 2)
		return 0;
	for (int i = 0; i < 8; i++) /* big-endian at offset 8 */
		size = size << 8 | b[8 + i];
	if (size <= LUKS2_BIN_HDR || size > LUKS2_HDR_MAX)
		return 0;
	return (size_t)size;
}

static unsigned type_of(const char *s, size_t n)
{
	static const struct {
		const char *name;
		unsigned bit;
	} known[] = {
		{ "systemd-tpm2", LUKS2_TOKEN_TPM2 },
		{ "systemd-fido2", LUKS2_TOKEN_FIDO2 },
		{ "systemd-pkcs11", LUKS2_TOKEN_PKCS11 },
		{ "clevis", LUKS2_TOKEN_CLEVIS },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].name) == n && !memcmp(known[i].name, s, n))
			return known[i].bit;
	return LUKS2_TOKEN_OTHER;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

unsigned luks2_token_types(const char *j, size_t n)
{
	const char *key = NULL; /* the last key seen, and its length */
	size_t keylen = 0;
	int depth = 0, tokens = 0; /* depth of the tokens object's members; 0: outside */
	unsigned found = 0;

	for (size_t i = 0; i < n && j[i]; i++) {
		char c = j[i];
		if (c == '"') {
			size_t start = ++i, k;
			while (i < n && j[i] && j[i] != '"')
				i += j[i] == '\\' ? 2 : 1;
			if (i >= n || !j[i])
				return 0; /* cut short */
			for (k = i + 1; k < n && is_space(j[k]); k++)
				;
			if (k < n && j[k] == ':') {
				key = j + start;
				keylen = i - start;
				i = k;
			} else if (tokens && depth == tokens + 1 && keylen == 4 &&
				   !memcmp(key, "type", 4)) {
				found |= type_of(j + start, i - start);
			}
		} else if (c == '{') {
			depth++;
			if (depth == 2 && !tokens && keylen == 6 && !memcmp(key, "tokens", 6))
				tokens = 2;
			key = NULL;
			keylen = 0;
		} else if (c == '}') {
			if (depth == tokens)
				return found; /* the end of "tokens" */
			if (--depth < 0)
				return 0;
		}
	}
	return tokens ? 0 : found; /* an unclosed tokens object proves nothing */
}

int luks2_fd_tokens(int fd)
{
	unsigned char bin[LUKS2_BIN_HDR];
	ssize_t got = pread(fd, bin, sizeof(bin), 0);
	size_t size, jlen;
	char *json;
	unsigned t;

	if (got < 0)
		return -errno;
	size = luks2_hdr_size(bin, (size_t)got);
	if (!size)
		return -EINVAL;
	jlen = size - LUKS2_BIN_HDR;
	json = malloc(jlen);
	if (!json)
		return -ENOMEM;
	got = pread(fd, json, jlen, LUKS2_BIN_HDR);
	if (got < 0) {
		int e = errno;
		free(json);
		return -e;
	}
	t = luks2_token_types(json, (size_t)got);
	free(json);
	return (int)t;
}

bool luks2_subsystem(const unsigned char *bin, size_t len, char out[LUKS2_SUBSYSTEM_MAX])
{
	const unsigned char *f = bin + 208;

	out[0] = '\0';
	if (!luks2_hdr_size(bin, len) || !memchr(f, '\0', LUKS2_SUBSYSTEM_MAX))
		return false;
	memcpy(out, f, LUKS2_SUBSYSTEM_MAX);
	return true;
}
