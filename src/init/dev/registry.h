/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_REGISTRY_H
#define UNIRAMFS_INIT_DEV_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"
#include "init/dev/blockdev.h"
#include "init/dev/uevent.h"
#include "util.h"

/* The block devices the init knows, each probed (blkid) and given its
 * /dev/disk links once per add or change. Whoever cares (the root
 * matcher, resume, the stacking layers) subscribes and is told of each
 * device that appeared, changed or went; the registry calls no one by
 * name. A subscriber gets a device valid only during the call. */
enum dev_change { DEV_ADDED, DEV_CHANGED, DEV_REMOVED };

typedef void (*dev_subscriber_fn)(void *arg, enum dev_change what, const struct blockdev *bd);

/* Asked of each new device before any subscriber hears of it (a
 * plugin's claim row: a multipath path is no root candidate). parent:
 * the disk of a partition, else NULL. DEV_HELD keeps it from the
 * subscribers until registry_release, DEV_CLAIMED for good. */
typedef enum dev_claim (*dev_hold_fn)(void *arg, const struct blockdev *bd, const char *parent);

#define REGISTRY_MAX_SUBSCRIBERS 8

struct registry {
	const struct sysops *ops;
	struct blockdev *v; /* in the order they came */
	size_t n, cap;
	struct {
		dev_subscriber_fn fn;
		void *arg;
	} subs[REGISTRY_MAX_SUBSCRIBERS];
	size_t nsubs;
	unsigned scan_gen;         /* bumped by each rescan of sysfs */
	long long last_change_ms;  /* ops clock: when a device last came, changed or went */
	struct strv ignored;       /* registry_ignore's names */
	dev_hold_fn hold;          /* NULL: every device is published at once */
	void *hold_arg;
};

void registry_init(struct registry *r, const struct sysops *ops);
/* In the order subscribed. */
void registry_subscribe(struct registry *r, dev_subscriber_fn fn, void *arg);
/* A device the init made for itself (the squashfs segment's loop):
 * never probed, never told to the subscribers. */
void registry_ignore(struct registry *r, const char *name);
/* A block uevent (add, change, remove) or a coldplugged device. */
void registry_event(struct registry *r, const struct uevent *ev);
/* A rescan of sysfs: begin, then every device there through
 * registry_event, then end forgets (publishes as removed) the ones it
 * did not see. */
void registry_scan_begin(struct registry *r);
void registry_scan_end(struct registry *r);
/* The answer to a held device (and its held partitions): claimed, it
 * stays hidden; else the subscribers are told of it now. */
void registry_release(struct registry *r, const char *name, bool claimed);
/* A device published earlier is claimed after all (a second path came
 * after the first): the subscribers are told it went. */
void registry_claim(struct registry *r, const char *name);
/* By kernel name ("vda1"), or NULL. */
const struct blockdev *registry_get(const struct registry *r, const char *name);
/* The first device not held nor claimed that a spec (root=, resume=, fstab) names: blockdev_matches,
 * or a link in /dev a tool made (mdadm's /dev/md/NAME), or for
 * PARTUUID=U/PARTNROFF=N the partition N places from U's on the same
 * disk (blockdev_partnroff). NULL if none. */
const struct blockdev *registry_match(const struct registry *r, const char *spec);
/* A subscriber's question, when bd came or changed: which device does
 * spec name now? bd if it matches; for PARTUUID=U/PARTNROFF=N the
 * neighbour, whichever of the two came last; else NULL. */
const struct blockdev *registry_named(const struct registry *r, const struct blockdev *bd,
				      const char *spec);
void registry_free(struct registry *r);

#endif
