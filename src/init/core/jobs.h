/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_CORE_JOBS_H
#define UNIRAMFS_INIT_CORE_JOBS_H

#include <stdbool.h>
#include <stddef.h>

/* Work that blocks (a passphrase prompt, cryptsetup, lvm, mdadm) is a
 * job: an event handler that finds it only queues it, and the boot runs
 * queued jobs between runs of the loop, one at a time. So no handler
 * ever prompts, waits or fails the boot from inside the loop. */
enum job_result {
	JOB_DONE,   /* finished, well or not (it said why) */
	JOB_FAILED, /* the boot cannot go on: the failure path, then the job again */
};

struct job {
	const char *what; /* for the log: "unlock /dev/vda2" */
	enum job_result (*run)(void *ctx, void *data);
	void (*free)(void *data); /* NULL: free(3) */
	void *data;               /* owned by the job */
	/* run's first argument: whatever the part that queued it works on
	 * (the init, the stack's environment), so a part below the init can
	 * queue jobs without knowing it */
	void *ctx;
};

struct jobq {
	struct job *v;
	size_t n, cap;
};

void jobq_push(struct jobq *q, const struct job *j);
/* Put a job back at the front (to run again after the failure path). */
void jobq_push_front(struct jobq *q, const struct job *j);
/* Take the oldest job; false when there is none. */
bool jobq_pop(struct jobq *q, struct job *out);
void job_free(struct job *j);
void jobq_free(struct jobq *q);

#endif
