// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/dev/events.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "err.h"
#include "log.h"

void devevents_init(struct devevents *d, const struct sysops *ops, struct registry *reg,
		    struct driverq *dq)
{
	d->ops = ops;
	d->fd = -1;
	d->reg = reg;
	d->dq = dq;
	d->net_changed = NULL;
}

void devevents_handle(struct devevents *d, const struct uevent *ev)
{
	if (!ev->action)
		return;
	if (ev->modalias && !strcmp(ev->action, "add"))
		driverq_push(d->dq, ev->modalias, ev->devpath);
	if (ev->subsystem && !strcmp(ev->subsystem, "block") && ev->devname)
		registry_event(d->reg, ev);
	if (ev->subsystem && !strcmp(ev->subsystem, "net") && d->net_changed)
		d->net_changed(d->net_arg);
}

static void coldplug_one(const struct uevent *ev, void *arg)
{
	devevents_handle(arg, ev);
}

int devevents_coldplug(struct devevents *d)
{
	return uevent_coldplug(d->ops, coldplug_one, d);
}

static void rescan(struct devevents *d)
{
	registry_scan_begin(d->reg);
	if (devevents_coldplug(d) < 0) {
		log_err("coldplug: %s", err_msg());
		return;
	}
	registry_scan_end(d->reg);
}

/* Events handled per wakeup of the loop. The loop asks whether its wait
 * is over between wakeups: with 256 SCSI LUNs queued at once, reading
 * them all probed every other disk (about 4 ms each on QEMU's
 * instruction clock) before the boot saw that the root had come
 * (bench/results/scaling.md). What is left is read by the next wait or
 * by devevents_drain before anything looks the other disks up. */
#define EVENTS_PER_WAKEUP 16

/* Up to max events (0: until the socket is empty). */
static void read_events(struct devevents *d, unsigned max)
{
	static char buf[16384];
	bool lost = false;

	for (unsigned handled = 0; !max || handled < max;) {
		struct uevent ev;
		ssize_t n = d->ops->recv(d->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0) {
			if (n == -ENOBUFS) {
				lost = true;
				continue;
			}
			break;
		}
		if (n == 0)
			break;
		buf[n] = '\0';
		if (uevent_parse(buf, (size_t)n, &ev) < 0)
			continue;
		devevents_handle(d, &ev);
		handled++;
	}
	if (lost) {
		/* The kernel dropped messages: whatever they said (a device
		 * added, a driver wanted, a disk gone) is in sysfs now. */
		log_warn("uevent buffer overrun, some device events were lost; "
			 "reading the devices from sysfs again");
		rescan(d);
	}
}

void devevents_ready(void *arg)
{
	read_events(arg, EVENTS_PER_WAKEUP);
}

void devevents_drain(struct devevents *d)
{
	read_events(d, 0);
}
