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

#include "err.h"
#include "init/init.h"
#include "log.h"

struct pending {
	char *modalias, *devpath;
	int prio;
	unsigned long seq;
};

/* 0: controllers and devices that hold disks; 1: those that may, more
 * slowly (IDE, USB hosts, CD-ROMs); 2: the rest (input, platform...). */
static int priority(const char *m)
{
	const char *bc = strstr(m, "bc");

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

void driverq_push(struct init *in, const struct uevent *ev)
{
	static unsigned long seq;
	struct pending *p;

	for (size_t i = 0; i < in->ndq; i++)
		if (!strcmp(in->dq[i].modalias, ev->modalias))
			return;
	if (in->ndq == in->capdq) {
		in->capdq = in->capdq ? 2 * in->capdq : 32;
		in->dq = xrealloc(in->dq, in->capdq * sizeof(*in->dq));
	}
	p = &in->dq[in->ndq++];
	p->modalias = xstrdup(ev->modalias);
	p->devpath = xstrdup(ev->devpath ? ev->devpath : "?");
	p->prio = priority(ev->modalias);
	p->seq = seq++;
}

static void remember_nodriver(struct init *in, const struct pending *p)
{
	for (size_t i = 0; i < in->nnodrv; i++)
		if (strcmp(in->nodrv[i].modalias, p->modalias) == 0)
			return;
	if (in->nnodrv == in->capnodrv) {
		in->capnodrv = in->capnodrv ? 2 * in->capnodrv : 16;
		in->nodrv = xrealloc(in->nodrv, in->capnodrv * sizeof(*in->nodrv));
	}
	in->nodrv[in->nnodrv].modalias = xstrdup(p->modalias);
	in->nodrv[in->nnodrv].devpath = xstrdup(p->devpath);
	in->nnodrv++;
}

bool driverq_load_next(struct init *in)
{
	struct pending p;
	size_t best = 0;
	int n;

	if (!in->ndq)
		return false;
	for (size_t i = 1; i < in->ndq; i++)
		if (in->dq[i].prio < in->dq[best].prio ||
		    (in->dq[i].prio == in->dq[best].prio && in->dq[i].seq < in->dq[best].seq))
			best = i;
	p = in->dq[best];
	in->dq[best] = in->dq[--in->ndq];
	n = in->ml ? modload_alias(in->ml, p.modalias) : 0;
	in->last_activity_ms = now_ms(in);
	if (n < 0)
		log_warn("%s", err_msg());
	else if (n == 0)
		remember_nodriver(in, &p);
	else
		log_debug("%s: %d module(s) for %s", p.devpath, n, p.modalias);
	free(p.modalias);
	free(p.devpath);
	return true;
}

bool driverq_urgent(const struct init *in)
{
	for (size_t i = 0; i < in->ndq; i++)
		if (in->dq[i].prio == 0)
			return true;
	return false;
}

void driverq_load_all(struct init *in)
{
	while (driverq_load_next(in))
		;
}

void driverq_free(struct init *in)
{
	if (in->ndq)
		log_debug("%zu device(s) left for the real system to load drivers for", in->ndq);
	for (size_t i = 0; i < in->ndq; i++) {
		free(in->dq[i].modalias);
		free(in->dq[i].devpath);
	}
	free(in->dq);
	in->dq = NULL;
	in->ndq = in->capdq = 0;
}
