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

/* Every event queued now, not a few a wakeup, though the wait could then
 * end as soon as its device came: with 256 SCSI LUNs, 16 a wakeup found
 * the root 0.45 s sooner, but the other disks' events must still be
 * read before the hand-over (their /dev/disk links), and read there they
 * cost 1.5-2.8 s on the instruction clock where the wait's own reading
 * took 0.5 s (bench/results/scaling.md). */
void devevents_ready(void *arg)
{
	static char buf[16384];
	struct devevents *d = arg;
	bool lost = false;

	for (;;) {
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
	}
	if (lost) {
		/* The kernel dropped messages: whatever they said (a device
		 * added, a driver wanted, a disk gone) is in sysfs now. */
		log_warn("uevent buffer overrun, some device events were lost; "
			 "reading the devices from sysfs again");
		rescan(d);
	}
}

void devevents_drain(struct devevents *d)
{
	devevents_ready(d);
}
