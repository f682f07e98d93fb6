/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directories of a persistent upper layer on a device's filesystem
 * (overlaypersist.c), for the overlay stage (overlay.c). */
#ifndef UNIRAMFS_INIT_OVERLAYPERSIST_H
#define UNIRAMFS_INIT_OVERLAYPERSIST_H

#include <stdbool.h>

struct init;

struct persist_dirs {
	const char *top;       /* the mount point (the caller's) */
	char *rel_up, *rel_work; /* below top: "LiveOS/overlay-L-U", "LiveOS/ovlwork" */
	char *up, *work;       /* top/rel_up, top/rel_work */
	bool made;             /* made now (the first boot) rather than found */
};

/* The upper and work directories on the filesystem mounted at top:
 * dracut's dmsquash-live layout for a live root (DIR/overlay-LABEL-UUID
 * and DIR/ovlwork, DIR rd.live.dir, LABEL and UUID the medium's) when
 * it is there or nothing else is, else dracut's overlayfs one (overlay
 * and ovlwork at the top). Nothing on the device is followed through a
 * link. make: create what is missing (false: read-only, find only).
 * 1 and *d; 0 when make is false and there is none; -errno (err set)
 * when the device's content is refused (a link, not a directory). */
int overlay_persist_dirs(struct init *in, const char *top, bool make, struct persist_dirs *d);
void overlay_persist_free(struct persist_dirs *d);

/* Empty d's two directories (rd.overlay.reset): what is inside them,
 * never the directories themselves nor anything else on the device,
 * never following a link nor crossing into another mount. 0 or -errno
 * (err set). */
int overlay_persist_reset(struct init *in, const struct persist_dirs *d);

/* Can text be a path component in overlayfs's mount options? No '/',
 * ',', ':', '\\' nor control characters (the medium's label is hostile). */
bool overlay_persist_name_ok(const char *text);

#endif
