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

/* A token object's members as the scan meets them: its type, and
 * whether "tpm2-pin" is the literal true (a string "true" is not). */
struct token_seen {
	unsigned type;
	bool pin;
};

static unsigned token_end(const struct token_seen *t)
{
	if (t->type != LUKS2_TOKEN_TPM2)
		return 0;
	return t->pin ? LUKS2_TOKEN_TPM2_PIN : LUKS2_TOKEN_TPM2_NOPIN;
}

static bool is_key(const char *key, size_t keylen, const char *name)
{
	return key && keylen == strlen(name) && !memcmp(key, name, keylen);
}

unsigned luks2_token_types(const char *j, size_t n)
{
	const char *key = NULL; /* the last key seen, its length, where its value starts */
	size_t keylen = 0, value = 0;
	int depth = 0, tokens = 0; /* depth of the tokens object's members; 0: outside */
	struct token_seen t = { 0 };
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
				value = k + 1;
			} else if (tokens && depth == tokens + 1 && is_key(key, keylen, "type")) {
				t.type = type_of(j + start, i - start);
				found |= t.type;
			}
		} else if (c == 't' && tokens && depth == tokens + 1 &&
			   is_key(key, keylen, "tpm2-pin")) {
			/* the value itself (only spaces before it) is the literal
			 * true, not the start of a longer word */
			bool first = true;
			for (size_t k = value; k < i && first; k++)
				first = is_space(j[k]);
			t.pin = first && n - i >= 4 && !memcmp(j + i, "true", 4) &&
				(n - i == 4 || !((j[i + 4] >= 'a' && j[i + 4] <= 'z') ||
						 (j[i + 4] >= '0' && j[i + 4] <= '9')));
			key = NULL;
			keylen = 0;
		} else if (c == '{') {
			depth++;
			if (depth == 2 && !tokens && is_key(key, keylen, "tokens"))
				tokens = 2;
			if (tokens && depth == tokens + 1)
				t = (struct token_seen){ 0 }; /* a token's own object */
			key = NULL;
			keylen = 0;
		} else if (c == '}') {
			if (depth == tokens)
				return found; /* the end of "tokens" */
			if (tokens && depth == tokens + 1)
				found |= token_end(&t);
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
