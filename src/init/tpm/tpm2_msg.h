/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_TPM_TPM2_MSG_H
#define UNIRAMFS_INIT_TPM_TPM2_MSG_H

#include <stddef.h>
#include <stdint.h>

/* The three TPM 2.0 commands a measurement needs, as bytes (TCG TPM 2.0
 * Library, Part 3): GetCapability(TPM_CAP_PCRS) for the active banks,
 * PCR_Read of one PCR in one bank, PCR_Extend with the empty password
 * session. The answers come from a device: hostile, every length, tag
 * and code checked. */

#define TPM2_ALG_SHA1 0x0004
#define TPM2_ALG_SHA256 0x000b
#define TPM2_ALG_SHA384 0x000c
#define TPM2_ALG_SHA512 0x000d

#define TPM2_BANKS_MAX 16    /* HASH_COUNT: more than any TPM has */
#define TPM2_SELECT_MAX 32   /* 256 PCRs: more than any TPM has */
#define TPM2_DIGEST_MAX 64   /* SHA-512 */
#define TPM2_CMD_MAX 1024    /* the longest command built here */
#define TPM2_RSP_MAX 4096    /* TPM_PT_MAX_RESPONSE_SIZE of real TPMs */

struct tpm2_bank {
	uint16_t alg;
	uint8_t nselect;                  /* sizeofSelect */
	uint8_t select[TPM2_SELECT_MAX];  /* the PCRs allocated in it, a bit each */
};

struct tpm2_banks {
	size_t n;
	struct tpm2_bank v[TPM2_BANKS_MAX];
};

struct tpm2_digest {
	uint16_t alg;
	size_t len;
	uint8_t d[TPM2_DIGEST_MAX];
};

/* The kernel's name of a bank's hash ("sha256") and its digest length,
 * or NULL / 0 for one this init cannot compute (SM3). */
const char *tpm2_alg_name(uint16_t alg);
size_t tpm2_alg_size(uint16_t alg);

/* Each builds its command into buf (TPM2_CMD_MAX): its length. */
size_t tpm2_cmd_get_pcrs(uint8_t *buf);
size_t tpm2_cmd_pcr_read(uint8_t *buf, uint16_t alg, unsigned pcr);
/* n digests (at most TPM2_BANKS_MAX), each of its alg's size. */
size_t tpm2_cmd_pcr_extend(uint8_t *buf, unsigned pcr, const struct tpm2_digest *d, size_t n);

/* Each parses an answer of len bytes to its command: 0, or -EPROTO
 * (err set, naming the command and what was wrong: a short or long
 * answer, a wrong tag or length, a count past its bound), or -EIO
 * (err set) when the TPM answered with an error code. */
int tpm2_rsp_get_pcrs(const uint8_t *rsp, size_t len, struct tpm2_banks *out);
/* The PCR's value in *out (alg as asked; len 0: the bank has no such
 * PCR). */
int tpm2_rsp_pcr_read(const uint8_t *rsp, size_t len, uint16_t alg, struct tpm2_digest *out);
int tpm2_rsp_pcr_extend(const uint8_t *rsp, size_t len);

/* tpm2-measure-bank='s words ("sha256:sha1") as TPM algs into out: their count, or
 * -EINVAL (err set, naming the word) for a name that is not a bank
 * this init can compute. */
int tpm2_parse_banks(const char *text, struct tpm2_banks *out);

/* Does the bank allocate all of PCRs 0-23 (a PC client TPM's, which
 * systemd asks of a bank before it uses it)? */
int tpm2_bank_has24(const struct tpm2_bank *b);

#endif
