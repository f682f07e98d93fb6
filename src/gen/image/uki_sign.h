/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_UKI_SIGN_H
#define UNIRAMFS_UKI_SIGN_H

#include <stddef.h>

/* `--uki-sign-key KEY --uki-sign-cert CERT`: the UKI signed for Secure
 * Boot by sbsign (sbsigntool), an Authenticode signature in the PE's
 * certificate table. The key and certificate are the user's files and
 * are only ever read, by sbsign: we check that each names a readable
 * regular file of sane size (a FIFO would hang sbsign, a device would be
 * read without end) and hand sbsign the paths. */

/* path, given to option opt, names a readable regular file of 1 byte to
 * 1 MiB: -errno + err_* naming both otherwise. */
int uki_key_file_check(const char *opt, const char *path);

/* Before the build's work: -errno + err_* naming the option and path
 * for a key or certificate that is missing, unreadable, not a regular
 * file, empty or larger than 1 MiB; the two go together, and with --uki. */
int uki_sign_check(const char *uki, const char *key, const char *cert);

/* Sign the len bytes of uki with sbsign into outfd, an empty file of
 * ours not yet named (output.h): the unsigned UKI goes to sbsign through
 * a memfd, the signed one comes back through /dev/fd/OUTFD, so nothing
 * is named until the caller commits. -errno + err_* naming sbsign. */
int uki_sign(const void *uki, size_t len, int outfd, const char *key, const char *cert);

#endif
