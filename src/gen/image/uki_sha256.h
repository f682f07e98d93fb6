/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_UKI_SHA256_H
#define UNIRAMFS_UKI_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 (FIPS 180-4), for the PCR policy digests and key fingerprints
 * of a UKI's .pcrsig (uki_pcr.h): a few short inputs per build, so a
 * plain implementation rather than a crypto library. */
struct uki_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t n;
};

void uki_sha256_init(struct uki_sha256 *c);
void uki_sha256_update(struct uki_sha256 *c, const void *data, size_t len);
void uki_sha256_final(struct uki_sha256 *c, uint8_t out[32]);
void uki_sha256(const void *data, size_t len, uint8_t out[32]);

#endif
