/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_DRIVERQ_H
#define UNIRAMFS_INIT_DEV_DRIVERQ_H

#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"
#include "init/dev/modload.h"

/* Drivers wait in a queue instead of loading the moment their device is
 * seen, so the ones that lead to disks load first; the loop loads them
 * one at a time as its idle work. */
struct pending {
	char *modalias, *devpath;
	int prio;
	unsigned long seq;
};

/* A device whose modalias matched no module in the image. */
struct nodriver {
	char *modalias, *devpath;
};

struct driverq {
	const struct sysops *ops;
	struct modload *ml; /* not owned; NULL: nothing can load */
	struct pending *v;
	size_t n, cap;
	unsigned long seq;
	struct nodriver *nodrv; /* for the failure report */
	size_t nnodrv, capnodrv;
	long long last_load_ms; /* ops clock */
	/* The ms each load spent in the kernel are added here (NULL: not
	 * counted): the boot's waits move their deadlines on by them, as
	 * by the time a person spends at a prompt. */
	long long *stall_ms;
	/* The boot needs the network: NIC drivers count as disk drivers
	 * (set before coldplug). */
	bool want_net;
};

void driverq_init(struct driverq *q, const struct sysops *ops);
void driverq_push(struct driverq *q, const char *modalias, const char *devpath);
/* Load the most urgent queued driver; false when the queue is empty. */
bool driverq_load_next(struct driverq *q);
/* Is a disk driver (the first class) still queued? */
bool driverq_urgent(const struct driverq *q);
/* Everything queued (a TPM may be behind any of them). */
void driverq_load_all(struct driverq *q);
/* What a question needs before it is asked: the drivers of keyboards,
 * of what they hang off and of serial ports, with display those of the
 * screen too (the splash starts on what is there at the first question);
 * the rest stays for the loop's idle work while the question waits.
 * Loading IDE and the rest first held the question back by 0.4 s under
 * TCG (bench/results/question.md). */
void driverq_load_for_question(struct driverq *q, bool display);
/* As the loop's idle work: everything while waiting, only disk drivers
 * once the wait is over (the rest is left to the real system). */
bool driverq_has_work(void *q, bool ending);
void driverq_step(void *q);
void driverq_free(struct driverq *q);

#endif
