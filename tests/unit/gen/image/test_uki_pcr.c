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

int main(void)
{
	RUN(test_sha256);
	RUN(test_policy);
	RUN(test_json);
	RUN(test_parse_hostile);
	return test_done();
}
