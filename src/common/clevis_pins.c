// SPDX-License-Identifier: GPL-2.0-or-later
/* Clevis's pins in a LUKS2 header: the "protected" member of a clevis
 * token's JWE is base64url of a JSON header whose "clevis" object names
 * its pin; an sss pin's header holds its shares as compact JWEs
 * ("HEADER.KEY.IV.TEXT.TAG"), whose first part is a header again. Like
 * luks2.c, not a JSON parser: a scan of strings and the key before each,
 * safe on anything. */
#include "clevis_pins.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luks2.h"

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-' || c == '+')
		return 62;
	if (c == '_' || c == '/')
		return 63;
	return -1;
}

/* base64url (or base64) of n bytes into out (room for n * 3 / 4 + 1):
 * the decoded length, or -1 for a character of neither alphabet. */
static long b64_decode(const char *s, size_t n, char *out)
{
	unsigned acc = 0;
	int bits = 0;
	long o = 0;

	while (n && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int v = b64_value(s[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)(acc >> bits & 0xff);
		}
	}
	return o;
}

static unsigned pin_of(const char *s, size_t n)
{
	static const struct {
		const char *name;
		unsigned bit;
	} known[] = { { "tang", CLEVIS_PIN_TANG }, { "tpm2", CLEVIS_PIN_TPM2 }, { "sss", CLEVIS_PIN_SSS } };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].name) == n && !memcmp(known[i].name, s, n))
			return known[i].bit;
	return CLEVIS_PIN_OTHER;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static unsigned jwe_pins(const char *b64, size_t n, int depth, bool share);

/* A string value that may be a compact JWE: its first part a header. */
static unsigned share_pins(const char *s, size_t n, int depth)
{
	const char *dot = memchr(s, '.', n);

	if (!dot || dot - s < 4)
		return 0;
	for (const char *p = s; p < dot; p++)
		if (b64_value(*p) < 0)
			return 0; /* not a JWE: some other text with a dot */
	return jwe_pins(s, (size_t)(dot - s), depth, true);
}

/* Every string of json (n bytes, or up to a NUL): after the key "pin",
 * a pin's name; after "protected" (luks2_area: a LUKS2 JSON area), a
 * header; any other value with a dot, perhaps an sss share. */
static unsigned scan(const char *j, size_t n, int depth, bool luks2_area)
{
	const char *key = NULL;
	size_t keylen = 0;
	unsigned found = 0;

	for (size_t i = 0; i < n && j[i]; i++) {
		size_t start, k;
		if (j[i] != '"')
			continue;
		start = ++i;
		while (i < n && j[i] && j[i] != '"')
			i += j[i] == '\\' ? 2 : 1;
		if (i >= n || !j[i])
			return found | CLEVIS_PIN_OTHER; /* cut short */
		for (k = i + 1; k < n && is_space(j[k]); k++)
			;
		if (k < n && j[k] == ':') {
			key = j + start;
			keylen = i - start;
			i = k;
			continue;
		}
		if (luks2_area) {
			if (keylen == 9 && !memcmp(key, "protected", 9))
				found |= jwe_pins(j + start, i - start, depth, false);
		} else if (keylen == 3 && !memcmp(key, "pin", 3)) {
			found |= pin_of(j + start, i - start);
		} else {
			found |= share_pins(j + start, i - start, depth);
		}
		key = NULL;
		keylen = 0;
	}
	return found;
}

/* share: a string that only looks like a JWE (an address "10.0.2.1"),
 * which counts for nothing unless its header names a pin */
static unsigned jwe_pins(const char *b64, size_t n, int depth, bool share)
{
	char *hdr;
	long len;
	unsigned found;

	if (depth >= CLEVIS_PINS_DEPTH)
		return share ? 0 : CLEVIS_PIN_OTHER;
	hdr = malloc(n / 4 * 3 + 4);
	if (!hdr)
		return CLEVIS_PIN_OTHER;
	len = b64_decode(b64, n, hdr);
	found = len <= 0 ? 0 : scan(hdr, (size_t)len, depth + 1, false);
	free(hdr);
	if (share)
		return found & ~CLEVIS_PIN_OTHER ? found : 0;
	/* a header that names no pin is no binding clevis could open */
	return found ? found : CLEVIS_PIN_OTHER;
}

unsigned clevis_jwe_pins(const char *b64, size_t n)
{
	return jwe_pins(b64, n, 0, false);
}

unsigned clevis_luks2_pins(const char *json, size_t n)
{
	return scan(json, n, 0, true);
}

int clevis_fd_pins(int fd)
{
	unsigned char bin[LUKS2_BIN_HDR];
	ssize_t got = pread(fd, bin, sizeof(bin), 0);
	size_t size;
	char *json;
	unsigned p;

	if (got < 0)
		return -errno;
	size = luks2_hdr_size(bin, (size_t)got);
	if (!size)
		return -EINVAL;
	json = malloc(size - LUKS2_BIN_HDR);
	if (!json)
		return -ENOMEM;
	got = pread(fd, json, size - LUKS2_BIN_HDR, LUKS2_BIN_HDR);
	if (got < 0) {
		int e = errno;
		free(json);
		return -e;
	}
	p = clevis_luks2_pins(json, (size_t)got);
	free(json);
	return (int)p;
}
