// SPDX-License-Identifier: GPL-2.0-or-later
/* Drivers wait in a queue instead of loading the moment their device is
 * seen, so the ones that lead to disks load first. Once the root (and
 * whatever else the boot waits for) is there, the disk drivers still
 * queued are loaded and the rest (IDE, USB hosts, input, platform) are
 * left to the real system's udev. On QEMU's default machine this skips
 * the IDE controller and its CD-ROM (ata_piix, sr_mod: 0.7 s under TCG)
 * when the root is on virtio. */
#include <stdlib.h>
#include <string.h>

#include "init/dev/driverq.h"
#include "err.h"
#include "log.h"
#include "util.h"

/* 0: controllers and devices that hold disks; 1: those that may, more
 * slowly (IDE, USB hosts, CD-ROMs); 2: the rest (input, platform...). */
static int priority(const struct driverq *q, const char *m)
{
	const char *bc = strstr(m, "bc");

	if (q->want_net && ((str_has_prefix(m, "pci:") && bc && !strncmp(bc, "bc02", 4)) ||
			    !strncmp(m, "virtio:d00000001v", 17)))
		return 0; /* network controllers, virtio-net */

	if (str_has_prefix(m, "pci:") && bc) {
		if (!strncmp(bc, "bc01sc01", 8)) /* IDE */
			return 1;
		if (!strncmp(bc, "bc01", 4)) /* mass storage: SCSI, SATA, NVMe, virtio-blk... */
			return 0;
		if (!strncmp(bc, "bc0Csc03", 8)) /* USB host controllers */
			return 1;
		return 2;
	}
	if (!strncmp(m, "virtio:d00000002v", 17) || !strncmp(m, "virtio:d00000008v", 17))
		return 0; /* virtio block and scsi */
	if (!strncmp(m, "scsi:t-0x00", 11) || !strncmp(m, "scsi:t-0x0e", 11))
		return 0; /* disks */
	if (str_has_prefix(m, "scsi:"))
		return 1;
	if (str_has_prefix(m, "usb:") && strstr(m, "ic08"))
		return 0; /* USB mass storage */
	if (str_has_prefix(m, "mmc:") || str_has_prefix(m, "nvme"))
		return 0;
	return 2;
}

void driverq_init(struct driverq *q, const struct sysops *ops)
{
	memset(q, 0, sizeof(*q));
	q->ops = ops;
}

void driverq_push(struct driverq *q, const char *modalias, const char *devpath)
{
	struct pending *p;

	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->v[i].modalias, modalias))
			return;
	ARRAY_GROW(q->v, q->cap, q->n + 1);
	p = &q->v[q->n++];
	p->modalias = xstrdup(modalias);
	p->devpath = xstrdup(devpath ? devpath : "?");
	p->prio = priority(q, modalias);
	p->seq = q->seq++;
}

static void remember_nodriver(struct driverq *q, const struct pending *p)
{
	for (size_t i = 0; i < q->nnodrv; i++)
		if (strcmp(q->nodrv[i].modalias, p->modalias) == 0)
			return;
	ARRAY_GROW(q->nodrv, q->capnodrv, q->nnodrv + 1);
	q->nodrv[q->nnodrv].modalias = xstrdup(p->modalias);
	q->nodrv[q->nnodrv].devpath = xstrdup(p->devpath);
	q->nnodrv++;
}

/* Is a before b in the order drivers load: by class, then as seen? */
static bool sooner(const struct pending *a, const struct pending *b)
{
	return a->prio < b->prio || (a->prio == b->prio && a->seq < b->seq);
}

/* Load the queued driver at index i and take it off the queue. */
static void load_at(struct driverq *q, size_t i)
{
	struct pending p = q->v[i];
	long long t0 = q->ops->now_ms();
	int n;

	q->v[i] = q->v[--q->n];
	n = q->ml ? modload_alias(q->ml, p.modalias) : 0;
	q->last_load_ms = q->ops->now_ms();
	/* A module's init may hold the init for long (virtio_pci probing 64
	 * functions on a starved host: 126 s). No device could be seen
	 * meanwhile, so that time is not the root's to lose: like udev's
	 * timeout, which is per event, the waits do not count it. */
	if (q->stall_ms)
		*q->stall_ms += q->last_load_ms - t0;
	if (n < 0)
		log_warn("%s", err_msg());
	else if (n == 0)
		remember_nodriver(q, &p);
	else
		log_debug("%s: %d module(s) for %s", p.devpath, n, p.modalias);
	free(p.modalias);
	free(p.devpath);
}

bool driverq_load_next(struct driverq *q)
{
	size_t best = 0;

	if (!q->n)
		return false;
	for (size_t i = 1; i < q->n; i++)
		if (sooner(&q->v[i], &q->v[best]))
			best = i;
	load_at(q, best);
	return true;
}

bool driverq_urgent(const struct driverq *q)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->v[i].prio == 0)
			return true;
	return false;
}

void driverq_load_all(struct driverq *q)
{
	while (driverq_load_next(q))
		;
}

/* A driver someone answering a question may need: keyboards and what
 * they hang off (USB hosts and devices, HID, PS/2, virtio-input, Xen's),
 * serial ports on cards (a console there), and with display the screen
 * the splash shows it on (display controllers, virtio-gpu). */
static bool for_question(const char *m, bool display)
{
	const char *bc = strstr(m, "bc");

	if (str_has_prefix(m, "pci:") && bc)
		return !strncmp(bc, "bc0Csc03", 8) || /* USB hosts */
		       !strncmp(bc, "bc09", 4) ||     /* input controllers */
		       !strncmp(bc, "bc07", 4) ||     /* serial ports */
		       (display && !strncmp(bc, "bc03", 4));
	return str_has_prefix(m, "usb:") || str_has_prefix(m, "hid:") || str_has_prefix(m, "serio:") ||
	       str_has_prefix(m, "acpi:PNP03") || /* i8042 keyboards */
	       str_has_prefix(m, "platform:i8042") || str_has_prefix(m, "xen:vkbd") ||
	       !strncmp(m, "virtio:d00000012v", 17) || /* virtio-input */
	       (display && !strncmp(m, "virtio:d00000010v", 17)); /* virtio-gpu */
}

void driverq_load_for_question(struct driverq *q, bool display)
{
	for (;;) {
		size_t best = q->n;

		for (size_t i = 0; i < q->n; i++)
			if (for_question(q->v[i].modalias, display) &&
			    (best == q->n || sooner(&q->v[i], &q->v[best])))
				best = i;
		if (best == q->n)
			return;
		load_at(q, best);
	}
}

bool driverq_has_work(void *arg, bool ending)
{
	struct driverq *q = arg;

	return ending ? driverq_urgent(q) : q->n > 0;
}

void driverq_step(void *arg)
{
	driverq_load_next(arg);
}

void driverq_free(struct driverq *q)
{
	if (q->n)
		log_debug("%zu device(s) left for the real system to load drivers for", q->n);
	for (size_t i = 0; i < q->n; i++) {
		free(q->v[i].modalias);
		free(q->v[i].devpath);
	}
	free(q->v);
	for (size_t i = 0; i < q->nnodrv; i++) {
		free(q->nodrv[i].modalias);
		free(q->nodrv[i].devpath);
	}
	free(q->nodrv);
	memset(q, 0, sizeof(*q));
}
