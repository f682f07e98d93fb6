/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_CORE_KHASH_H
#define UNIRAMFS_INIT_CORE_KHASH_H

#include <stddef.h>

#define KHASH_MAX 64 /* the longest digest asked for: SHA-512's */

/* The kernel's hash alg ("sha256", "sha1", "sha384", "sha512") through
 * AF_ALG (algif_hash: the caller loads it), keyed as hmac(alg) when key
 * is not NULL. The socket to send(2) the data to, MSG_MORE on all but
 * the last, then khash_final; or a negative code (err set:
 * -EAFNOSUPPORT when the kernel has no AF_ALG hash, -ENOENT when it
 * has no such alg). Real system calls: the init's one hashing path, for
 * a downloaded image and for what is measured into the TPM. */
int khash_open(const char *alg, const void *key, size_t keylen);
/* The digest into out (size at least the alg's): its length, or a
 * negative code (err set). Closes op. */
int khash_final(int op, unsigned char *out, size_t size);
/* The two for len bytes at data. */
int khash_buf(const char *alg, const void *key, size_t keylen, const void *data, size_t len,
	      unsigned char *out, size_t size);

#endif
