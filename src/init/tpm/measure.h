/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_TPM_MEASURE_H
#define UNIRAMFS_INIT_TPM_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"
#include "init/tpm/tpm2_msg.h"

#define TPM2_MEASURE_LOG "/run/log/systemd/tpm2-measure.log"

/* One measurement, as systemd-pcrextend and systemd-cryptsetup make
 * theirs: data hashed in each bank's hash (or, with a key, the HMAC of
 * data keyed by it), extended into pcr, and a record of it appended to
 * TPM2_MEASURE_LOG. */
struct tpm2_measure {
	unsigned pcr;
	const char *data;     /* measured (a string, without its NUL) */
	const void *key;      /* NULL: a plain digest */
	size_t keylen;
	const char *event;    /* the log's eventType: "phase", "volume-key" */
	const char *banks;    /* "sha256[:sha1…]": only these; NULL: systemd's choice */
};

/* Which of the TPM's banks systemd measures into (tpm2-util.c's
 * tpm2_get_good_pcr_banks): those with all 24 PCRs allocated whose pcr
 * the firmware or a stub has already extended (neither all zeros nor
 * all ones), or when there is none such, every one with 24 PCRs.
 * good[i] says whether v[i]'s pcr was extended. The count chosen into
 * out. */
size_t tpm2_choose_banks(const struct tpm2_banks *all, const bool *good, struct tpm2_banks *out);

/* Is a PCR's value one that nothing has extended (all 0x00 or 0xff)? */
bool tpm2_pcr_unused(const struct tpm2_digest *d);

/* The measurement through the TPM device (NULL: /dev/tpmrm0, then
 * /dev/tpm0), said in one info line: 0, -ENOENT (err set) with no TPM,
 * or another negative code (err set). */
int tpm2_measure(const struct sysops *ops, const char *dev, const struct tpm2_measure *m);

/* The log's record of it: RS, a JSON object, LF (RFC 7464), in the
 * fields systemd writes (pcr, digests, content_type, content with
 * string, bootId, timestamp, eventType). Its length, or -ENOSPC when
 * it does not fit size. boot_id: 32 hex digits. */
int tpm2_log_record(char *buf, size_t size, const struct tpm2_measure *m,
		    const struct tpm2_digest *d, size_t n, const char *boot_id,
		    unsigned long long usec);

#endif
