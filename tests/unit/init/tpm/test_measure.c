// SPDX-License-Identifier: GPL-2.0-or-later
/* A measurement as systemd makes it (src/init/tpm/measure.c): the banks
 * it chooses, tpm2-measure-bank='s words, the log's record, and the
 * kernel's digests and HMACs (core/khash.c; skipped where the host
 * kernel lends no AF_ALG hash). */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "init/core/khash.h"
#include "init/tpm/measure.h"
#include "test.h"

static struct tpm2_bank bank(uint16_t alg, int pcrs)
{
	struct tpm2_bank b = { .alg = alg, .nselect = 3 };

	for (int i = 0; i < pcrs; i++)
		b.select[i / 8] |= (uint8_t)(1u << (i % 8));
	return b;
}

static void test_choose(void)
{
	struct tpm2_banks all = { 4, { bank(TPM2_ALG_SHA1, 24), bank(TPM2_ALG_SHA256, 24),
				      bank(TPM2_ALG_SHA384, 16), bank(TPM2_ALG_SHA512, 24) } };
	bool none[4] = { false, false, false, false };
	bool stub[4] = { false, true, true, false };
	struct tpm2_banks out;

	/* nothing extended PCR 11 yet (no stub): every bank with 24 PCRs */
	CHECK(tpm2_choose_banks(&all, none, &out) == 3);
	CHECK(out.v[0].alg == TPM2_ALG_SHA1 && out.v[1].alg == TPM2_ALG_SHA256 &&
	      out.v[2].alg == TPM2_ALG_SHA512);
	/* the stub measured into sha256 (and a bank with 16 PCRs): only sha256 */
	CHECK(tpm2_choose_banks(&all, stub, &out) == 1);
	CHECK(out.v[0].alg == TPM2_ALG_SHA256);
	all.n = 1;
	all.v[0] = bank(TPM2_ALG_SHA1, 8);
	CHECK(tpm2_choose_banks(&all, none, &out) == 0);
}

static void test_unused(void)
{
	struct tpm2_digest d = { TPM2_ALG_SHA1, 20, { 0 } };

	CHECK(tpm2_pcr_unused(&d));
	memset(d.d, 0xff, 20);
	CHECK(tpm2_pcr_unused(&d));
	d.d[7] = 0;
	CHECK(!tpm2_pcr_unused(&d));
}

static void test_banks_words(void)
{
	struct tpm2_banks b;

	CHECK(tpm2_parse_banks("sha256", &b) == 1 && b.v[0].alg == TPM2_ALG_SHA256);
	CHECK(tpm2_parse_banks("SHA1:sha512", &b) == 2);
	CHECK(b.v[0].alg == TPM2_ALG_SHA1 && b.v[1].alg == TPM2_ALG_SHA512);
	CHECK(tpm2_parse_banks("sha256:sm3_256", &b) == -EINVAL);
	CHECK_STR(err_msg(), "tpm2-measure-bank=sha256:sm3_256: \"sm3_256\" is not a PCR bank (sha1, "
		  "sha256, sha384, sha512)");
	CHECK(tpm2_parse_banks("", &b) == -EINVAL);
	CHECK_STR(err_msg(), "tpm2-measure-bank=: \"\" is not a PCR bank (sha1, sha256, sha384, sha512)");
	CHECK(tpm2_parse_banks("sha256:", &b) == -EINVAL);
	CHECK(tpm2_parse_banks("sha2560", &b) == -EINVAL);
}

static void test_record(void)
{
	struct tpm2_measure m = { .pcr = 15, .data = "cryptsetup:r\"o\\t\x01:u", .event = "volume-key" };
	struct tpm2_digest d[2] = { { TPM2_ALG_SHA1, 20, { 0xab } }, { TPM2_ALG_SHA256, 32, { 1, 2 } } };
	const char *id = "0123456789abcdef0123456789abcdef";
	char buf[1024], small[64];
	int n = tpm2_log_record(buf, sizeof(buf), &m, d, 2, id, 1234567);

	CHECK(n > 0 && (size_t)n == strlen(buf));
	CHECK_STR(buf, "\x1e{\"pcr\":15,\"digests\":[{\"hashAlg\":\"sha1\",\"digest\":"
		  "\"ab00000000000000000000000000000000000000\"},{\"hashAlg\":\"sha256\",\"digest\":"
		  "\"0102000000000000000000000000000000000000000000000000000000000000\"}],"
		  "\"content_type\":\"systemd\",\"content\":{\"string\":\"cryptsetup:r\\\"o\\\\t\\u0001:u\","
		  "\"bootId\":\"0123456789abcdef0123456789abcdef\",\"timestamp\":1234567,"
		  "\"eventType\":\"volume-key\"}}\n");
	CHECK(tpm2_log_record(small, sizeof(small), &m, d, 2, id, 1) == -ENOSPC);
}

static void test_khash(void)
{
	/* RFC 4231's test case 2, and SHA-1 of "abc" (FIPS 180) */
	static const unsigned char hmac[] = { 0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04,
					      0x24, 0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08,
					      0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec,
					      0x38, 0x43 };
	static const unsigned char sha1[] = { 0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
					      0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d };
	const char *data = "what do ya want for nothing?";
	unsigned char out[KHASH_MAX];
	int r = khash_buf("sha256", "Jefe", 4, data, strlen(data), out, sizeof(out));

	if (r == -EAFNOSUPPORT)
		SKIP("no AF_ALG in this kernel");
	CHECK(r == 32 && !memcmp(out, hmac, 32));
	CHECK(khash_buf("sha1", NULL, 0, "abc", 3, out, sizeof(out)) == 20 && !memcmp(out, sha1, 20));
	CHECK(khash_buf("nosuchhash", NULL, 0, "abc", 3, out, sizeof(out)) == -ENOENT);
	CHECK_STR(err_msg(), "cannot compute nosuchhash: the kernel's nosuchhash: No such file or directory");
}

int main(void)
{
	RUN(test_choose);
	RUN(test_unused);
	RUN(test_banks_words);
	RUN(test_record);
	RUN(test_khash);
	return test_done();
}
