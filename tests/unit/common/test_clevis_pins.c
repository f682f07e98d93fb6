// SPDX-License-Identifier: GPL-2.0-or-later
/* Clevis's pins from a LUKS2 header (src/common/clevis_pins.c): real JWEs
 * clevis 19 made (tests/unit/fixtures/clevis/), sss shares followed, and
 * hostile headers: bad base64, no pin, text cut short, a dotted value
 * that is no JWE, nesting past the limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clevis_pins.h"
#include "test.h"
#include "util.h"

static char *fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char path[512], *buf = xmalloc(8192);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/clevis/%s", src ? src : ".", name);
	f = fopen(path, "r");
	n = f ? fread(buf, 1, 8191, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static void b64url(const char *in, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t n = strlen(in), o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)in[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)in[i + 2];
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		if (i + 1 < n)
			out[o++] = a[v >> 6 & 63];
		if (i + 2 < n)
			out[o++] = a[v & 63];
	}
	out[o] = '\0';
}

/* the pins of a header given as JSON text */
static unsigned pins_of(const char *json)
{
	char b[4096];

	b64url(json, b);
	return clevis_jwe_pins(b, strlen(b));
}

/* a LUKS2 JSON area with a clevis token whose JWE has this header */
static unsigned area_of(const char *b64)
{
	char *j = xasprintf("{\"keyslots\":{},\"tokens\":{\"0\":{\"type\":\"clevis\",\"keyslots\":[\"1\"],"
			    "\"jwe\":{\"ciphertext\":\"\",\"encrypted_key\":\"\",\"iv\":\"\","
			    "\"protected\":\"%s\",\"tag\":\"\"}}}}", b64);
	unsigned p;

	p = clevis_luks2_pins(j, strlen(j));
	free(j);
	return p;
}

static void test_real_jwes(void)
{
	static const struct {
		const char *file;
		unsigned pins;
	} cases[] = {
		{ "tpm2.jwe", CLEVIS_PIN_TPM2 },
		{ "tang.jwe", CLEVIS_PIN_TANG },
		{ "sss.jwe", CLEVIS_PIN_SSS | CLEVIS_PIN_TANG | CLEVIS_PIN_TPM2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *jwe = fixture(cases[i].file), *dot = strchr(jwe, '.');
		CHECK(dot != NULL);
		if (!dot)
			continue;
		*dot = '\0';
		CHECK(clevis_jwe_pins(jwe, strlen(jwe)) == cases[i].pins);
		CHECK(area_of(jwe) == cases[i].pins);
		free(jwe);
	}
}

static void test_made_headers(void)
{
	static char share[512], hdr[1024];

	CHECK(pins_of("{\"clevis\":{\"pin\":\"tpm2\",\"tpm2\":{\"key\":\"ecc\"}}}") == CLEVIS_PIN_TPM2);
	CHECK(pins_of("{\"clevis\":{\"pin\":\"null\"}}") == CLEVIS_PIN_OTHER);
	/* sss with a share of each kind; a share's own sss, nested */
	b64url("{\"clevis\":{\"pin\":\"tang\",\"tang\":{\"url\":\"http://10.0.2.100\"}}}", share);
	snprintf(hdr, sizeof(hdr), "{\"clevis\":{\"pin\":\"sss\",\"sss\":{\"t\":1,\"jwe\":[\"%s.k.iv.ct.tag\"]}}}",
		 share);
	CHECK(pins_of(hdr) == (CLEVIS_PIN_SSS | CLEVIS_PIN_TANG));
	/* a dotted value that is no JWE (an address) is nothing */
	CHECK(pins_of("{\"clevis\":{\"pin\":\"tang\",\"tang\":{\"url\":\"10.0.2.100\","
		      "\"x\":\"abcd.efgh\"}}}") == CLEVIS_PIN_TANG);
}

static void test_hostile(void)
{
	static char deep[5][4096], b[4200];

	/* not base64, empty, a header naming no pin, cut short: OTHER */
	CHECK(clevis_jwe_pins("e@J9", 4) == CLEVIS_PIN_OTHER);
	CHECK(clevis_jwe_pins("", 0) == CLEVIS_PIN_OTHER);
	CHECK(pins_of("{\"alg\":\"dir\"}") == CLEVIS_PIN_OTHER);
	CHECK(pins_of("{\"clevis\":{\"pin\":\"tpm2") == CLEVIS_PIN_OTHER);
	/* a "pin" of the wrong shape: its value a number, an object */
	CHECK(pins_of("{\"clevis\":{\"pin\":2}}") == CLEVIS_PIN_OTHER);
	/* sss in sss in sss ...: past CLEVIS_PINS_DEPTH the shares are not read */
	b64url("{\"clevis\":{\"pin\":\"tpm2\"}}", deep[0]);
	for (int i = 1; i < 5; i++) {
		strcpy(b, "{\"clevis\":{\"pin\":\"sss\",\"sss\":{\"jwe\":[\"");
		strcat(b, deep[i - 1]);
		strcat(b, ".a.b.c.d\"]}}}");
		b64url(b, deep[i]);
	}
	CHECK(clevis_jwe_pins(deep[3], strlen(deep[3])) == (CLEVIS_PIN_SSS | CLEVIS_PIN_TPM2));
	CHECK(clevis_jwe_pins(deep[4], strlen(deep[4])) == CLEVIS_PIN_SSS);
	/* a LUKS2 area: no clevis token, or one cut short */
	CHECK(clevis_luks2_pins("{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\"}}}", 100) == 0);
	CHECK(clevis_luks2_pins("{\"tokens\":{\"0\":{\"jwe\":{\"protected\":\"eyJ", 100) ==
	      CLEVIS_PIN_OTHER);
}

int main(void)
{
	RUN(test_real_jwes);
	RUN(test_made_headers);
	RUN(test_hostile);
	return test_done();
}
