/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_INIT_H
#define UNIRAMFS_INIT_INIT_H

#include <stdbool.h>
#include <sys/types.h>

#include "init/dev/blockdev.h"
#include "init/dev/modload.h"
#include "init/core/ops.h"
#include "init/core/options.h"
#include "init/core/timing.h"
#include "init/dev/uevent.h"
#include "util.h"


/* A device whose modalias matched no module in the image. */
struct nodriver {
	char *modalias, *devpath;
};

struct init {
	const struct sysops *ops;
	const struct initops *xops;
	struct options opt;
	struct timing timing;
	struct modload *ml;
	int uevent_fd; /* -1 until stage 2 */
	char kver[256];

	struct blockdev *devs;
	size_t ndevs, capdevs;
	struct nodriver *nodrv;
	size_t nnodrv, capnodrv;
	struct pending *dq; /* drivers not loaded yet: driverq.c */
	size_t ndq, capdq;
	long root; /* index into devs, -1 until found */
	unsigned scan_gen; /* bumped by each rescan of sysfs (lost events) */
	struct stack *stack; /* LUKS, LVM, md: stack.c; NULL until stage 2 */
	/* ms spent waiting for a person (passphrase prompts): a deadline
	 * set before them moves on by as much. */
	long long stall_ms;
	/* When a block device last came, changed or went, a driver loaded
	 * or a layer's tool ran (ms, CLOCK_MONOTONIC): the resume wait
	 * counts its quiet time from here. */
	long long last_activity_ms;
	/* Resume, fsck, /usr, hooks: early.h. */
	bool fs_mounted;      /* a filesystem is on /sysroot: never resume after */
	bool resume_done;     /* resume= was dealt with (or cannot be any more) */
	bool resume_waiting;  /* wait_events(until_root) also waits for resume= */
	const char *want_usr; /* the /usr device being waited for, or NULL */

	char **init_argv; /* args for the real init (not argv[0]) */
	char **envp;      /* the kernel's, for the real init */
	char **tool_envp; /* PATH, HOME, TERM: for hooks, tools, the shell */
};

/* PATH for everything the init runs. */
#define TOOL_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

enum wait_end { WAIT_ROOT, WAIT_TIMEOUT, WAIT_CHILD, WAIT_ERROR };

/* The whole boot. Returns only when it did not hand over: after the
 * failure path gave up (the reboot returned: a test), or 0 if execve
 * "succeeded" in a test. argv/envp are those the kernel gave /init. */
int init_run(struct init *in, int argc, char **argv, char **envp);
void init_free(struct init *in);

/* stage_mounts.c */
int stage_mounts(struct init *in);
void stage_console(struct init *in);
/* devices.c: one uevent (coldplug or netlink) moves the boot forward. */
void handle_uevent(const struct uevent *ev, void *userdata);
/* Drop in->devs[i] (it went away); a root that goes is looked for again. */
void forget_device(struct init *in, size_t i);
/* The socket overflowed: what was lost is read back from sysfs, and a
 * device no longer there is forgotten. */
void rescan_devices(struct init *in);
/* driverq.c: drivers queue up, storage first; the wait loop loads
 * them one at a time until the root is there. */
void driverq_push(struct init *in, const struct uevent *ev);
/* Load the most urgent queued driver; false when the queue is empty. */
bool driverq_load_next(struct init *in);
/* Is a disk driver (the first class) still queued? */
bool driverq_urgent(const struct init *in);
/* Everything queued, e.g. keyboards before asking for a passphrase. */
void driverq_load_all(struct init *in);
void driverq_free(struct init *in);
/* stack.c: unlock, activate, assemble what a probed device holds. */
void stack_setup(struct init *in);
void stack_block(struct init *in, const struct blockdev *bd);
/* Wait for the root until deadline_ms; half way, start RAID arrays
 * still missing members (degraded). */
void stack_wait_root(struct init *in, long long deadline_ms);
/* Is spec a link in /dev the tools made to bd (mdadm's /dev/md/NAME)? */
bool stack_link_matches(struct init *in, const struct blockdev *bd, const char *spec);
/* After a timeout: name each rd.luks.uuid / rd.md.uuid never seen. */
void stack_report_missing(struct init *in);
void stack_free(struct init *in);
/* wait.c: handle every uevent waiting on the socket. */
void drain_uevents(struct init *in);
/* wait.c: the one poll() loop. deadline_ms is CLOCK_MONOTONIC in ms,
 * -1 for none. child > 0: also end when it exits. */
enum wait_end wait_events(struct init *in, long long deadline_ms, pid_t child,
			  bool until_root);
/* The ops clock: CLOCK_MONOTONIC in ms. */
static inline long long now_ms(const struct init *in)
{
	return in->ops->now_ms();
}
/* rootmount.c */
int mount_root(struct init *in);
/* switchroot.c: returns only on failure (or in a test, 0 after the fake
 * execve). */
int switch_root(struct init *in);
int write_state(struct init *in);
/* failure.c */
void report_devices(struct init *in);
/* Run a shell if allowed and present: 0 when it ran and exited, -1 if
 * there was none. */
int run_shell(struct init *in, const char *why);
/* Shell, then retry (returns 0), or wait and reboot (returns -1 only
 * when the reboot returned). */
int failure(struct init *in, bool can_retry);
void run_break(struct init *in, unsigned brk, const char *name);

#endif
