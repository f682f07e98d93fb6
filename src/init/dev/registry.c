// SPDX-License-Identifier: GPL-2.0-or-later
/* Each device the kernel reports, at coldplug or later, moves the boot
 * forward: a modalias queues its driver (driverq.c), a block device is
 * probed, gets its /dev/disk links and may be the root. */
#include <string.h>

#include "init/stages/early.h"
#include "err.h"
#include "init/init.h"
#include "log.h"

static void handle_block(struct init *in, const struct uevent *ev)
{
	struct blockdev bd = { 0 };
	size_t i;

	bd.name = xstrdup(ev->devname);
	bd.devnode = xasprintf("/dev/%s", ev->devname);
	bd.major = ev->major;
	bd.minor = ev->minor;
	if (blockdev_probe(in->ops, &bd) < 0)
		log_debug("%s: %s", bd.devnode, err_msg());
	if (blockdev_make_links(in->ops, &bd) < 0)
		log_warn("%s", err_msg());
	log_debug("block device %s (%u:%u)", bd.devnode, bd.major, bd.minor);

	/* Seen before (coldplug and netlink both report it, or a change
	 * after a new filesystem): the newest probe wins. */
	for (i = 0; i < in->ndevs; i++)
		if (strcmp(in->devs[i].name, bd.name) == 0)
			break;
	if (i < in->ndevs) {
		blockdev_clear(&in->devs[i]);
	} else {
		if (in->ndevs == in->capdevs) {
			in->capdevs = in->capdevs ? 2 * in->capdevs : 16;
			in->devs = xrealloc(in->devs, in->capdevs * sizeof(*in->devs));
		}
		in->ndevs++;
	}
	in->devs[i] = bd;
	in->devs[i].seen = in->scan_gen;
	in->last_activity_ms = now_ms(in);
	if (in->root < 0 && in->opt.root && (blockdev_matches(&in->devs[i], in->opt.root) ||
					      stack_link_matches(in, &in->devs[i], in->opt.root))) {
		in->root = (long)i;
		log_info("root=%s is %s", in->opt.root, bd.devnode);
	}
	resume_block(in, &in->devs[i]);
	stack_block(in, &in->devs[i]);
}

/* A device that went away is forgotten: were it the root, the root is
 * looked for again (a disk pulled and put back, a dm table reloaded). */
void forget_device(struct init *in, size_t i)
{
	log_debug("block device %s went away", in->devs[i].devnode);
	if (in->root == (long)i) {
		log_warn("root device %s went away; waiting for root=%s again",
			 in->devs[i].devnode, in->opt.root);
		in->root = -1;
	} else if (in->root > (long)i) {
		in->root--;
	}
	blockdev_clear(&in->devs[i]);
	memmove(&in->devs[i], &in->devs[i + 1], (in->ndevs - i - 1) * sizeof(*in->devs));
	in->ndevs--;
	in->last_activity_ms = now_ms(in);
}

static void handle_remove(struct init *in, const struct uevent *ev)
{
	if (!ev->subsystem || strcmp(ev->subsystem, "block") || !ev->devname)
		return;
	for (size_t i = 0; i < in->ndevs; i++) {
		if (!strcmp(in->devs[i].name, ev->devname)) {
			forget_device(in, i);
			return;
		}
	}
}

void handle_uevent(const struct uevent *ev, void *userdata)
{
	struct init *in = userdata;

	if (ev->action && !strcmp(ev->action, "remove")) {
		handle_remove(in, ev);
		return;
	}
	if (!ev->action || (strcmp(ev->action, "add") && strcmp(ev->action, "change")))
		return;
	if (ev->modalias && !strcmp(ev->action, "add"))
		driverq_push(in, ev);
	if (ev->subsystem && !strcmp(ev->subsystem, "block") && ev->devname)
		handle_block(in, ev);
}
