/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_EVENTS_H
#define UNIRAMFS_INIT_DEV_EVENTS_H

#include "init/core/ops.h"
#include "init/dev/driverq.h"
#include "init/dev/registry.h"
#include "init/dev/uevent.h"

/* The kernel's device events, from coldplug or the uevent socket (a
 * loop source): a modalias queues its driver, a block device goes to
 * the registry. */
struct devevents {
	const struct sysops *ops;
	int fd; /* the uevent socket, -1 when it could not be opened */
	struct registry *reg;
	struct driverq *dq;
	/* An interface came, went or was renamed (the net subsystem):
	 * NULL until the boot brings the network up. */
	void (*net_changed)(void *arg);
	void *net_arg;
};

void devevents_init(struct devevents *d, const struct sysops *ops, struct registry *reg,
		    struct driverq *dq);
/* One event. */
void devevents_handle(struct devevents *d, const struct uevent *ev);
/* Every device that exists already. 0 or a negative code (err set). */
int devevents_coldplug(struct devevents *d);
/* The socket is readable (a loop source): handle every event waiting.
 * When the kernel dropped some (ENOBUFS), sysfs is read again and a
 * device no longer there is forgotten. */
void devevents_ready(void *d);
/* The same outside the loop: a wait whose device was there already
 * (found at coldplug) ends without polling the socket, so what came
 * since is read before a hook may look a device up by its /dev/disk
 * link, and before the hand-over. */
void devevents_drain(struct devevents *d);

#endif
