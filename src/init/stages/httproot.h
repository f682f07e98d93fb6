/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STAGES_HTTPROOT_H
#define UNIRAMFS_INIT_STAGES_HTTPROOT_H

#include "init/init.h"

/* Where a downloaded live image is kept: /run's tmpfs, which the root
 * keeps (the loop device under / holds it). */
#define HTTPROOT_IMAGE "/run/initramfs/livenet.img"
/* The CA bundle an https:// download trusts (the generator packs the
 * host's there). */
#define HTTPROOT_CA_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* httptls.c: url (https://…) into path with the image's curl, at most
 * max bytes, failing when the server is silent for stall_ms; first the
 * clock is checked (a certificate cannot be validated at 1970). 0 or a
 * negative code (err set, naming url). */
int httptls_fetch(struct init *in, const char *url, const char *path, unsigned long long max,
		  long stall_ms);

#endif
