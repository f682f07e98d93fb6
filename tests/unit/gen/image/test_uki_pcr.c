// SPDX-License-Identifier: GPL-2.0-or-later
/* The UKI's signed PCR policies without tools: SHA-256 on the FIPS
 * vectors, the PolicyPCR digest on a value systemd-measure signed (with a
 * TPM computing the policy), the JSON, and systemd-measure's output
 * parsed strictly, bad lines quoted. */
#include <stdint.h>

#include "err.h"
#include "gen/image/uki_pcr.h"
#include "gen/image/uki_sha256.h"
#include "test.h"
#include "util.h"

static char *hexs(const uint8_t *d, size_t n)
{
	char *s = xcalloc(1, 2 * n + 1);
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", d[i]);
	return s;
}

static void check_sha(const void *d, size_t n, const char *want)
{
	uint8_t out[32];
	char *h;
	uki_sha256(d, n, out);
	CHECK_STR(h = hexs(out, 32), want);
	free(h);
}

static void test_sha256(void)
{
	static uint8_t big[256 * 300];
	struct uki_sha256 c;
	uint8_t out[32];
	char *h;

	check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)i;
	check_sha(big, sizeof(big), "f8b0585eb91f58c007a5634362c9f90d8543822c113f702523bc7b73408a9392");
	/* the same in uneven pieces */
	uki_sha256_init(&c);
	for (size_t off = 0, k = 1; off < sizeof(big); off += k, k = k * 3 % 1000 + 1)
		uki_sha256_update(&c, big + off, off + k > sizeof(big) ? sizeof(big) - off : k);
	uki_sha256_final(&c, out);
	CHECK_STR(h = hexs(out, 32), "f8b0585eb91f58c007a5634362c9f90d8543822c113f702523bc7b73408a9392");
	free(h);
}

/* systemd 252's `systemd-measure sign --phase=enter-initrd` over a UKI of
 * two sections (.linux "kern\n", .cmdline "cmd\n"), its policy computed
 * by swtpm: PCR 11 972ae582..., policy 447c4b1b... */
static void test_policy(void)
{
	uint8_t v[32], pol[32];
	char *h;
	CHECK(uki_pcr_parse_values("11:sha256=972ae5827a2b959645fcb65ab8d7f855cf66f40fe1c4b823757b208673eca465\n",
				   75, 1, (uint8_t(*)[32])v) == 0);
	uki_pcr_policy(v, pol);
	CHECK_STR(h = hexs(pol, 32), "447c4b1b433bd12f86d5670b673de654320540f0c91f423fdd2d06ef5a771c19");
	free(h);
}

static void test_json(void)
{
	uint8_t pkfp[32], pol[2][32];
	struct buf sigs[2] = { { 0 } }, out = { 0 };

	memset(pkfp, 0xab, sizeof(pkfp));
	memset(pol[0], 0x01, 32);
	memset(pol[1], 0xf0, 32);
	buf_append(&sigs[0], "\x00\x01\x02\x03", 4); /* one byte over: "==" */
	buf_append(&sigs[1], "\xff\xfe\xfd\xfc\xfb", 5); /* two over: "=" */
	uki_pcr_json(&out, pkfp, (const uint8_t(*)[32])pol, sigs, 2);
	buf_append(&out, "", 1);
	CHECK_STR(out.p, "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"abababababababababababababababababababababababababababababababab\","
			 "\"pol\":\"0101010101010101010101010101010101010101010101010101010101010101\",\"sig\":\"AAECAw==\"},"
			 "{\"pcrs\":[11],\"pkfp\":\"abababababababababababababababababababababababababababababababab\","
			 "\"pol\":\"f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0\",\"sig\":\"//79/Ps=\"}]}");
	buf_free(&out);
	buf_free(&sigs[0]);
	buf_append(&sigs[0], "abc", 3); /* no padding */
	uki_pcr_json(&out, pkfp, (const uint8_t(*)[32])pol, sigs, 1);
	buf_append(&out, "", 1);
	CHECK(strstr(out.p, "\"sig\":\"YWJj\"}]}") != NULL);
	buf_free(&out);
	buf_free(&sigs[0]);
	buf_free(&sigs[1]);
}

#define H64 "972ae5827a2b959645fcb65ab8d7f855cf66f40fe1c4b823757b208673eca465"

static void test_parse_hostile(void)
{
	uint8_t v[4][32];
	const char *two = "11:sha256=" H64 "\n11:sha256=" H64 "\n";

	CHECK(uki_pcr_parse_values(two, strlen(two), 2, v) == 0);
	CHECK(v[1][0] == 0x97 && v[1][31] == 0x65);
	CHECK(uki_pcr_parse_values(two, strlen(two) - 1, 2, v) == 0); /* no last newline */
	CHECK(uki_pcr_parse_values(two, strlen(two), 3, v) < 0);
	CHECK_STR(err_msg(), "systemd-measure: 2 PCR values, expected 3");
	CHECK(uki_pcr_parse_values(two, strlen(two), 1, v) < 0);
	CHECK_STR(err_msg(), "systemd-measure: more than 1 PCR values");
	CHECK(uki_pcr_parse_values("", 0, 1, v) < 0);
	CHECK_STR(err_msg(), "systemd-measure: 0 PCR values, expected 1");
	CHECK(uki_pcr_parse_values("12:sha256=" H64, 74, 1, v) < 0);
	CHECK_STR(err_msg(), "systemd-measure: unexpected line '12:sha256=" H64
			     "' (expected 11:sha256= and 64 hex digits)");
	CHECK(uki_pcr_parse_values("11:sha256=972AE5", 16, 1, v) < 0);
	CHECK_STR(err_msg(), "systemd-measure: unexpected line '11:sha256=972AE5' (expected 11:sha256= and 64 hex "
			     "digits)");
	{
		/* upper case and non-hex: refused, not misread */
		char t[] = "11:sha256=" H64;
		t[10] = 'A';
		CHECK(uki_pcr_parse_values(t, strlen(t), 1, v) < 0);
		t[10] = 'g';
		CHECK(uki_pcr_parse_values(t, strlen(t), 1, v) < 0);
		t[10] = '\0';
		CHECK(uki_pcr_parse_values(t, sizeof(t) - 1, 1, v) < 0);
	}
	CHECK(uki_pcr_parse_values("\n", 1, 1, v) < 0);
	CHECK_STR(err_msg(), "systemd-measure: unexpected line '' (expected 11:sha256= and 64 hex digits)");
	{
		/* a long line is quoted to 100 bytes */
		char t[300];
		memset(t, 'x', sizeof(t));
		CHECK(uki_pcr_parse_values(t, sizeof(t), 1, v) < 0);
		CHECK(strlen(err_msg()) == strlen("systemd-measure: unexpected line '' (expected 11:sha256= and 64 hex "
						  "digits)") + 100);
	}
}

/* `openssl pkey -pubout -outform DER` of a 1024-bit RSA key; its
 * RSAPublicKey (`openssl rsa -RSAPublicKey_out`) hashes to 9e446598... */
static const uint8_t spki[] = {
	0x30, 0x81, 0x9f, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
	0x03, 0x81, 0x8d, 0x00, 0x30, 0x81, 0x89, 0x02, 0x81, 0x81, 0x00, 0x9e, 0x52, 0xe6, 0xde, 0xda, 0x77, 0xb6,
	0xab, 0x29, 0x41, 0x91, 0xad, 0x74, 0xd5, 0x78, 0x71, 0x8d, 0xbb, 0xd0, 0x1b, 0x83, 0x86, 0xcd, 0xfb, 0x1c,
	0xa4, 0x2c, 0xf6, 0xb0, 0x24, 0x6b, 0xc0, 0x4e, 0xbf, 0x2d, 0x1f, 0x6a, 0x2e, 0xa4, 0x44, 0x06, 0x85, 0x20,
	0xcf, 0xe4, 0xe6, 0x99, 0x0a, 0xf2, 0x55, 0x3f, 0x3a, 0x42, 0x9f, 0x9c, 0xaa, 0xc0, 0x0c, 0x1e, 0xaa, 0x55,
	0x9f, 0x6d, 0x03, 0x02, 0xb9, 0x2d, 0x24, 0x06, 0xe8, 0xd8, 0x21, 0x10, 0x15, 0xda, 0x04, 0x62, 0xf9, 0x38,
	0x86, 0x41, 0xa5, 0x87, 0x8d, 0x50, 0x36, 0xd6, 0xc4, 0xa1, 0xda, 0x9d, 0x6f, 0x1e, 0x20, 0xbf, 0xee, 0x9d,
	0x2f, 0x67, 0x21, 0x9f, 0xe6, 0x4e, 0xff, 0xd5, 0x1a, 0x05, 0x84, 0x04, 0x83, 0x10, 0x27, 0x8e, 0x87, 0x49,
	0xc9, 0x53, 0x1e, 0x73, 0xbc, 0xf6, 0x7f, 0x60, 0x63, 0x58, 0xba, 0x28, 0xb3, 0x02, 0x03, 0x01, 0x00, 0x01,
};

static void test_spki(void)
{
	/* an EC P-256 key's header: another algorithm */
	static const uint8_t ec[] = { 0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
				      0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42 };
	const char *bad = "not a DER public key (SubjectPublicKeyInfo)";
	uint8_t d[sizeof(spki) + 1], h[32];
	const uint8_t *rsa = NULL;
	size_t len = 0;
	char *hx;

	CHECK(uki_pcr_spki_rsa(spki, sizeof(spki), &rsa, &len) == 0);
	CHECK(rsa == spki + 22 && len == sizeof(spki) - 22);
	uki_sha256(rsa, len, h);
	CHECK_STR(hx = hexs(h, 32), "9e446598d8a822b7af06a5c195f54ae5ad9254ae3ce7e67ba21ff39fda131f9d");
	free(hx);

	CHECK(uki_pcr_spki_rsa(ec, sizeof(ec), &rsa, &len) < 0);
	CHECK_STR(err_msg(), bad); /* its length says more than there is */
	{
		uint8_t e[0x5b] = { 0 };
		memcpy(e, ec, sizeof(ec));
		CHECK(uki_pcr_spki_rsa(e, sizeof(e), &rsa, &len) < 0);
		CHECK_STR(err_msg(), "not an RSA public key (systemd 252 signs PCR policies with RSA only)");
	}
	for (size_t n = 0; n < sizeof(spki); n++) {
		/* every truncation */
		CHECK(uki_pcr_spki_rsa(spki, n, &rsa, &len) < 0);
	}
	memcpy(d, spki, sizeof(spki));
	d[sizeof(spki)] = 0;
	CHECK(uki_pcr_spki_rsa(d, sizeof(d), &rsa, &len) < 0); /* a byte after it */
	CHECK_STR(err_msg(), bad);
	d[21] = 1; /* unused bits in the BIT STRING */
	CHECK(uki_pcr_spki_rsa(d, sizeof(spki), &rsa, &len) < 0);
	CHECK_STR(err_msg(), bad);
	memcpy(d, spki, sizeof(spki));
	d[1] = 0x85; /* a 5-byte length */
	CHECK(uki_pcr_spki_rsa(d, sizeof(spki), &rsa, &len) < 0);
	CHECK_STR(err_msg(), bad);
	memcpy(d, spki, sizeof(spki));
	d[20] = 0x8c; /* the BIT STRING one byte short of the end */
	CHECK(uki_pcr_spki_rsa(d, sizeof(spki), &rsa, &len) < 0);
	memcpy(d, spki, sizeof(spki));
	d[22] = 0x31; /* not a SEQUENCE inside */
	CHECK(uki_pcr_spki_rsa(d, sizeof(spki), &rsa, &len) < 0);
	CHECK(uki_pcr_spki_rsa(NULL, 0, &rsa, &len) < 0);
}

int main(void)
{
	RUN(test_sha256);
	RUN(test_policy);
	RUN(test_json);
	RUN(test_parse_hostile);
	RUN(test_spki);
	return test_done();
}
