/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rd.overlay=: what dracut's overlayfs module reads (TEST-21), as one
 * value. Pure: the stage (overlay.c) acts on it. */
#ifndef UNIRAMFS_INIT_OVERLAYSPEC_H
#define UNIRAMFS_INIT_OVERLAYSPEC_H

#include "util.h"

enum overlay_mode { OVERLAY_OFF, OVERLAY_TMPFS, OVERLAY_DEVICE };

struct overlay_spec {
	enum overlay_mode mode;
	char *device;     /* OVERLAY_DEVICE: LABEL=, UUID=, PARTLABEL=, PARTUUID=, /dev/... */
	char *tmpfs_opts; /* OVERLAY_TMPFS: "size=32M,nr_inodes=100000", or NULL */
};

/* value: rd.overlay's, NULL when not given, "" for the bare word.
 * Never fails: what cannot be used is said in warnings (each naming the
 * text) and left out, as dracut falls back rather than stops a boot. */
void overlay_spec_parse(const char *value, struct overlay_spec *s, struct strv *warnings);
void overlay_spec_free(struct overlay_spec *s);
/* rd.overlay.crypt=DEVICE[,OPTIONS]: the device spec (to free), or NULL
 * when value is NULL or names no device (said in warnings, as above). */
char *overlay_crypt_device(const char *value, struct strv *warnings);

#endif
