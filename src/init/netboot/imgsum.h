/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_IMGSUM_H
#define UNIRAMFS_INIT_NETBOOT_IMGSUM_H

#include <stddef.h>

#define SHA256_HEX 65 /* 64 digits and the NUL */

/* rd.live.sha256=HEX: 64 hexadecimal digits, either case, into hex
 * (lower case). 0 or -EINVAL (err set, naming the text). */
int imgsum_parse(const char *text, char hex[SHA256_HEX]);

/* The SHA-256 of everything fd reads, computed by the kernel (AF_ALG,
 * algif_hash: the caller loads it), into hex. Real system calls: run in
 * the download's child, never in PID 1's loop. 0 or a negative code (err
 * set: -EAFNOSUPPORT when the kernel has no AF_ALG hash). */
int imgsum_fd(int fd, char hex[SHA256_HEX]);

#endif
