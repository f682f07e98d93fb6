/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STAGES_LIVESIZE_H
#define UNIRAMFS_INIT_STAGES_LIVESIZE_H

#include <stddef.h>
#include <stdint.h>

/* What a live image's own header says its length is: an ISO's primary
 * volume descriptor, a squashfs superblock. A copy cut short (a download
 * stopped, a stick pulled while writing) mounts, then fails with I/O
 * errors deep in the boot; compared with the file's or device's size
 * here, it is refused with what was found. The bytes are the medium's:
 * hostile. */

/* An ISO's primary volume descriptor is at 32 KiB and 2 KiB long. */
#define LIVE_PROBE_LEN (32768 + 2048)

/* buf holds the first len bytes of the image. 1 with *type ("iso9660",
 * "squashfs") and *size (the bytes its header claims); 0 when it is
 * neither (nothing to compare); -EINVAL with err set, naming the field,
 * when the header is one of them but impossible. */
int live_header_size(const unsigned char *buf, size_t len, const char **type, uint64_t *size);

#endif
