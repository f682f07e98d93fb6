/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_UKI_PCR_H
#define UNIRAMFS_UKI_PCR_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* `--uki-pcr-key KEY --uki-pcr-public-key PUB`: the UKI's .pcrsig, the
 * expected PCR 11 values of its boot phases signed with KEY, in the JSON
 * systemd-measure writes, and .pcrpkey, PUB itself. A disk enrolled with
 * `systemd-cryptenroll --tpm2-public-key=PUB` unlocks on any UKI whose
 * .pcrsig KEY signed.
 *
 * The PCR values are systemd-measure's (`calculate`: the stub measures
 * each section it knows, name then contents, into PCR 11, and
 * systemd-pcrphase the phase words after it). The signing is ours, since
 * Debian 12's `systemd-measure sign` (systemd 252) asks a TPM to compute
 * the policy, which a build host need not have: the policy is TPM2's
 * PolicyPCR digest for PCR 11 of the sha256 bank, and its signature
 * RSASSA-PKCS1-v1_5 over the digest's SHA-256 (`openssl dgst -sha256
 * -sign`), which is what 252's TPM-computed policy and signature are. The
 * key's fingerprint ("pkfp") is the SHA-256 of its DER RSAPublicKey, as
 * 252 has it (openssl pkey gives the SubjectPublicKeyInfo around it). RSA keys only, as 252's unlock side. */

/* The phases signed for, ukify's default (systemd-measure's own). */
#define UKI_PCR_NPHASES 4
extern const char *const uki_pcr_phases[UKI_PCR_NPHASES];

/* One section the stub measures: systemd-measure's option for it
 * ("linux", "osrel", "cmdline", "initrd", "pcrpkey", "ucode") and its
 * contents. */
struct uki_measured {
	const char *opt;
	const void *data;
	size_t len;
};

/* Before any work: -errno + err_* naming the option for a key that is
 * not a readable regular PEM-sized file; both go together, with --uki. */
int uki_pcr_check(const char *uki, const char *key, const char *pub);

/* systemd-measure calculate's text: n lines "11:sha256=" and 64 hex
 * digits, into values. -EINVAL + err_* quoting the first bad line (or
 * saying how many there were). */
int uki_pcr_parse_values(const char *text, size_t len, size_t n, uint8_t values[][32]);

/* The DER RSAPublicKey inside a DER SubjectPublicKeyInfo (what `openssl
 * pkey -outform DER` writes), whose SHA-256 is the key's "pkfp". -EINVAL
 * + err_* for another kind of key, or bytes that are not one. */
int uki_pcr_spki_rsa(const uint8_t *spki, size_t len, const uint8_t **rsa, size_t *rsa_len);

/* TPM2_PolicyPCR's digest, from a zero policy, for PCR 11 of the
 * sha256 bank holding value. */
void uki_pcr_policy(const uint8_t value[32], uint8_t pol[32]);

/* The .pcrsig JSON for n phases: {"sha256":[{"pcrs":[11],"pkfp":HEX,
 * "pol":HEX,"sig":BASE64},...]}, as `systemd-measure sign --json=short`. */
void uki_pcr_json(struct buf *out, const uint8_t pkfp[32], const uint8_t pol[][32], const struct buf *sigs,
		  size_t n);

/* The .pcrsig for the n measured sections s, signed with key, whose
 * public half is pub (checked: a key that is not pub's is an error).
 * -errno + err_* naming the tool or key that failed. */
int uki_pcr_sign(const struct uki_measured *s, size_t n, const char *key, const char *pub, struct buf *pcrsig);

#endif
