// SPDX-License-Identifier: GPL-2.0-or-later
/* The TPM 2.0 commands as bytes and the answers' parsers
 * (src/init/tpm/tpm2_msg.c): what swtpm answers, and answers that are
 * short, long, of another tag, length or code, or that count past
 * their bounds, each refused by name. */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "init/tpm/tpm2_msg.h"
#include "test.h"

/* GetCapability(PCRS) as swtpm answers it: sha1, sha256, sha384 and
 * sha512, each with PCRs 0-23. */
static const uint8_t caps[] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x00, /* header, 43 bytes */
	0x00,                                                       /* moreData */
	0x00, 0x00, 0x00, 0x05,                                     /* TPM_CAP_PCRS */
	0x00, 0x00, 0x00, 0x04,                                     /* 4 banks */
	0x00, 0x04, 0x03, 0xff, 0xff, 0xff,
	0x00, 0x0b, 0x03, 0xff, 0xff, 0xff,
	0x00, 0x0c, 0x03, 0xff, 0xff, 0xff,
	0x00, 0x0d, 0x03, 0x00, 0x00, 0x00, /* sha512 allocated with no PCR */
};

static void test_commands(void)
{
	static const uint8_t want_caps[] = { 0x80, 0x01, 0, 0, 0, 22, 0, 0, 0x01, 0x7a, 0, 0, 0, 5,
					     0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t want_read[] = { 0x80, 0x01, 0, 0, 0, 20, 0, 0, 0x01, 0x7e, 0, 0, 0, 1,
					     0x00, 0x0b, 3, 0x00, 0x08, 0x00 };
	uint8_t buf[TPM2_CMD_MAX];
	struct tpm2_digest d[2] = { { .alg = TPM2_ALG_SHA1, .len = 20 }, { .alg = TPM2_ALG_SHA256, .len = 32 } };
	size_t n;

	CHECK(tpm2_cmd_get_pcrs(buf) == sizeof(want_caps));
	CHECK(!memcmp(buf, want_caps, sizeof(want_caps)));
	CHECK(tpm2_cmd_pcr_read(buf, TPM2_ALG_SHA256, 11) == sizeof(want_read));
	CHECK(!memcmp(buf, want_read, sizeof(want_read)));
	memset(d[0].d, 0x11, 20);
	memset(d[1].d, 0x22, 32);
	n = tpm2_cmd_pcr_extend(buf, 11, d, 2);
	/* header, handle, auth size, the 9-byte password session, count, 2+20, 2+32 */
	CHECK(n == 10 + 4 + 4 + 9 + 4 + 22 + 34);
	CHECK(buf[0] == 0x80 && buf[1] == 0x02 && buf[5] == n && buf[9] == 0x82);
	CHECK(buf[13] == 11 && buf[17] == 9);
	CHECK(buf[18] == 0x40 && buf[21] == 0x09); /* TPM_RS_PW */
	CHECK(buf[30] == 2 && buf[32] == 0x04 && buf[33] == 0x11 && buf[52] == 0x11);
	CHECK(buf[53] == 0x00 && buf[54] == 0x0b && buf[55] == 0x22 && buf[n - 1] == 0x22);
}

static void test_caps(void)
{
	struct tpm2_banks b;

	CHECK(tpm2_rsp_get_pcrs(caps, sizeof(caps), &b) == 0);
	CHECK(b.n == 4);
	CHECK(b.v[0].alg == TPM2_ALG_SHA1 && b.v[1].alg == TPM2_ALG_SHA256);
	CHECK(tpm2_bank_has24(&b.v[0]) && tpm2_bank_has24(&b.v[2]));
	CHECK(!tpm2_bank_has24(&b.v[3]));
	CHECK_STR(tpm2_alg_name(b.v[2].alg), "sha384");
	CHECK(tpm2_alg_size(TPM2_ALG_SHA512) == 64);
	CHECK(tpm2_alg_name(0x0012) == NULL); /* SM3 */
}

static void expect(int r, int code, const char *msg)
{
	CHECK(r == code);
	CHECK_STR(err_msg(), msg);
}

static void test_caps_malformed(void)
{
	uint8_t m[sizeof(caps) + 1];
	struct tpm2_banks b;

	expect(tpm2_rsp_get_pcrs(caps, 6, &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability ends at byte 6, before its header");
	expect(tpm2_rsp_get_pcrs(caps, sizeof(caps) - 1, &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability says it is 43 bytes long, but it is 42");
	memcpy(m, caps, sizeof(caps));
	m[5] = sizeof(caps) + 1;
	m[sizeof(caps)] = 0;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps) + 1, &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability has 1 bytes after its end");
	CHECK(b.n == 0); /* a refused answer gives no bank */
	memcpy(m, caps, sizeof(caps));
	m[1] = 0x02;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps), &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability has the tag 0x8002, not 0x8001");
	memcpy(m, caps, sizeof(caps));
	m[14] = 6;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps), &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability is capability 6, not the PCRs' (5)");
	memcpy(m, caps, sizeof(caps));
	m[18] = 17;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps), &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability counts 17 banks (at most 16)");
	CHECK(b.n == 0);
	memcpy(m, caps, sizeof(caps));
	m[18] = 5;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps), &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability ends at byte 43, before its bank's hash");
	memcpy(m, caps, sizeof(caps));
	m[39] = 200;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps), &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability selects 200 bytes of PCRs (at most 32)");
	memcpy(m, caps, sizeof(caps));
	m[39] = 5;
	expect(tpm2_rsp_get_pcrs(m, sizeof(caps), &b), -EPROTO,
	       "the TPM's answer to TPM2_GetCapability ends at byte 43, before its bank's PCR selection");
}

static void test_error_code(void)
{
	static const uint8_t refused[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x09, 0x07 };
	struct tpm2_banks b;
	struct tpm2_digest d;

	expect(tpm2_rsp_get_pcrs(refused, sizeof(refused), &b), -EIO,
	       "the TPM refused TPM2_GetCapability: response code 0x907");
	expect(tpm2_rsp_pcr_read(refused, sizeof(refused), TPM2_ALG_SHA256, &d), -EIO,
	       "the TPM refused TPM2_PCR_Read: response code 0x907");
	expect(tpm2_rsp_pcr_extend(refused, sizeof(refused)), -EIO,
	       "the TPM refused TPM2_PCR_Extend: response code 0x907");
}

static const uint8_t read_ok[] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x3e, 0x00, 0x00, 0x00, 0x00, /* header, 62 bytes */
	0x00, 0x00, 0x00, 0x07,                                     /* update counter */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x0b, 0x03, 0x00, 0x08, 0x00, /* sha256, PCR 11 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x20,                         /* one 32-byte digest */
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xbb,
};

static void test_pcr_read(void)
{
	static const uint8_t none[] = { 0x80, 0x01, 0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0,
					0, 0, 0, 0 };
	uint8_t m[sizeof(read_ok)];
	struct tpm2_digest d;

	CHECK(tpm2_rsp_pcr_read(read_ok, sizeof(read_ok), TPM2_ALG_SHA256, &d) == 0);
	CHECK(d.len == 32 && d.d[0] == 0xaa && d.d[31] == 0xbb && d.alg == TPM2_ALG_SHA256);
	/* the bank has no such PCR: an empty selection, no digest */
	CHECK(tpm2_rsp_pcr_read(none, sizeof(none), TPM2_ALG_SHA256, &d) == 0);
	CHECK(d.len == 0);
	expect(tpm2_rsp_pcr_read(read_ok, sizeof(read_ok), TPM2_ALG_SHA1, &d), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Read is not of the bank asked for (0x0004)");
	memcpy(m, read_ok, sizeof(m));
	m[29] = 0x14;
	expect(tpm2_rsp_pcr_read(m, sizeof(m), TPM2_ALG_SHA256, &d), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Read has a 20-byte digest for a 32-byte hash");
	memcpy(m, read_ok, sizeof(m));
	m[19] = 0x0c;
	expect(tpm2_rsp_pcr_read(m, sizeof(m), TPM2_ALG_SHA256, &d), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Read is not of the bank asked for (0x000b)");
	memcpy(m, read_ok, sizeof(m));
	m[27] = 2;
	expect(tpm2_rsp_pcr_read(m, sizeof(m), TPM2_ALG_SHA256, &d), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Read has 2 digests for the one PCR asked for");
	memcpy(m, read_ok, sizeof(m));
	m[5] = 0x3d;
	expect(tpm2_rsp_pcr_read(m, sizeof(m) - 1, TPM2_ALG_SHA256, &d), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Read ends at byte 61, before its digest");
	CHECK(d.len == 0);
}

static void test_extend(void)
{
	static const uint8_t ok[] = { 0x80, 0x02, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0x01, 0, 0 };
	static const uint8_t params[] = { 0x80, 0x02, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 4,
					  0, 0, 0x01, 0, 0 };
	static const uint8_t nonce[] = { 0x80, 0x02, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0,
					 0, 9, 0x01, 0, 0 };
	static const uint8_t cut[] = { 0x80, 0x02, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

	CHECK(tpm2_rsp_pcr_extend(ok, sizeof(ok)) == 0);
	expect(tpm2_rsp_pcr_extend(params, sizeof(params)), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Extend has 4 bytes of parameters (it has none)");
	expect(tpm2_rsp_pcr_extend(nonce, sizeof(nonce)), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Extend ends at byte 19, before its session's nonce");
	expect(tpm2_rsp_pcr_extend(cut, sizeof(cut)), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Extend ends at byte 17, before its session's HMAC");
	expect(tpm2_rsp_pcr_extend(ok, 0), -EPROTO,
	       "the TPM's answer to TPM2_PCR_Extend ends at byte 0, before its header");
}

int main(void)
{
	RUN(test_commands);
	RUN(test_caps);
	RUN(test_caps_malformed);
	RUN(test_error_code);
	RUN(test_pcr_read);
	RUN(test_extend);
	return test_done();
}
