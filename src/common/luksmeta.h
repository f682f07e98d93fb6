/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_LUKSMETA_H
#define UNIRAMFS_LUKSMETA_H

#include <stddef.h>

/* Clevis's bindings on a LUKS1 device: LUKS1 has no tokens, so `clevis
 * luks bind` keeps each JWE in a slot of luksmeta's, a small header at
 * the start of the gap between the last key material and the data, whose
 * slots give an offset into the gap and a length. Read to tell which pins
 * a binding uses, as clevis_pins.h does for a LUKS2 header. A hostile
 * device: every offset and length is checked against the gap. */
#define LUKS1_PHDR 592          /* the binary header: 8 key slots of 48 bytes at 208 */
#define LUKSMETA_HDR 272        /* magic, version, checksum, 8 slots of 32 bytes */
#define LUKSMETA_JWE_MAX (1u << 20) /* a longer JWE is no clevis binding of ours to read */
#define LUKSMETA_WHY 128

/* The CLEVIS_PIN_* of the clevis slots of the LUKS1 device whose first
 * n bytes are dev; 0 when its luksmeta header has no clevis slot; -EINVAL
 * when dev is no LUKS1 header; -ENOENT when its gap has no luksmeta
 * header; -EBADMSG when the header or a clevis slot is not as luksmeta
 * writes it, said in why (LUKSMETA_WHY bytes, terminated). A clevis slot
 * whose JWE is past n bytes: CLEVIS_PIN_OTHER. */
int luksmeta_mem_pins(const unsigned char *dev, size_t n, char *why);
/* The same for the device at fd (pread), or -errno. */
int luksmeta_fd_pins(int fd, char *why);

#endif
