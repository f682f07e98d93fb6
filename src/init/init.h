/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_INIT_H
#define UNIRAMFS_INIT_INIT_H

#include <stdbool.h>
#include <sys/types.h>

#include "init/core/jobs.h"
#include "init/core/loop.h"
#include "init/core/ops.h"
#include "init/core/options.h"
#include "init/core/timing.h"
#include "init/dev/driverq.h"
#include "init/dev/events.h"
#include "init/dev/modload.h"
#include "init/dev/registry.h"
#include "init/netboot/netup.h"
#include "init/remote/sshd.h"
#include "init/stack/stack.h"
#include "util.h"

/* The whole init: its effects (ops), the loop and what feeds it (the
 * device registry, the driver queue, the queued jobs), the layers, and
 * the state of the boot itself. */
struct init {
	const struct sysops *ops;
	const struct initops *xops;
	struct options opt;
	struct timing timing;

	struct loop loop;
	struct devevents events; /* the uevent source */
	struct registry devs;
	struct driverq drivers;
	struct modload *ml;
	struct jobq jobs;
	struct stack stack; /* LUKS, LVM, md */
	struct stack_env stack_env; /* what the stack sees of all this (init_setup fills it) */
	struct netup net;   /* only started when the boot needs the network */
	struct sshd ssh;    /* remote unlock, once the network is up */

	/* The boot's state. */
	char kver[256];
	char *root;          /* kernel name of the root= device, NULL until found */
	bool staged;         /* stage_modules ran: devices and the network are coming */
	bool root_netdev;    /* root= is the network disk's name (use_netroot_device) */
	char *dps_disk;      /* the disk root discovery took the root from ("sda") */
	bool fs_mounted;     /* a filesystem is on /sysroot: never resume after */
	bool resume_done;    /* resume= was dealt with (or cannot be any more) */
	/* x-initrd.mount entries mounted (stages/xinitrd.c): a retry after
	 * the failure path goes on from the next */
	size_t xinitrd_done;
	/* ms spent waiting for a person (passphrase prompts) or blocked in
	 * a driver's load (driverq.c): a deadline set before them moves on
	 * by as much. */
	long long stall_ms;
	char **init_argv;    /* args for the real init (not argv[0]) */
	char **envp;         /* the kernel's, for the real init */
	char **tool_envp;    /* PATH, HOME, TERM: for hooks, tools, the shell */
	char *keymap;        /* the keymap loaded (the prompt names it); NULL: the kernel's */
	/* /proc/sys/kernel/modprobe before the init set it (kmodhelper.c) */
	char modprobe_was[256];
	/* the root's btrfs device while its filesystem misses members (rootmount.c) */
	char btrfs_wait[64];
	bool modprobe_set;
	bool measured;       /* enter-initrd went into PCR 11 (pcrphase.c) */
	/* iso-scan/filename= (isoscan.c): the device the ISO file was found
	 * on ("" until then), the loop over it (open until the medium is
	 * mounted), and what each device searched had instead */
	struct {
		char found[64];
		int loopfd;
		struct strv tried;
	} isoscan;
};

/* The whole boot. Returns only when it did not hand over: a negative
 * code after the failure path gave up (the reboot returned: a test), or
 * 0 if execve "succeeded" in a test. argv/envp are those the kernel gave /init. */
int init_run(struct init *in, int argc, char **argv, char **envp);
/* Wire the loop, the registry and its subscribers (init_run does it;
 * a unit test driving one part calls it after setting ops and opt). */
void init_setup(struct init *in);
void init_free(struct init *in);
/* Run the queued jobs; a failed one goes through the failure path and
 * runs again. 0, or a negative code when the failure path gave up (a
 * test). */
int run_jobs(struct init *in);

/* rootwait.c: the one place the boot waits for devices: the loop until
 * ready(in, arg) or the deadline (-1: none), running the jobs the events
 * queue as they come. Time spent at a passphrase prompt or blocked in a
 * driver's load moves the deadline on. 1 ready, 0 not (timeout), < 0
 * the failure path gave up (a test). */
int boot_wait(struct init *in, long long deadline,
	      bool (*ready)(const struct init *in, const void *arg), const void *arg);
/* Every device event queued now handled, and the jobs it queued run.
 * A wait ends at once when what it waits for is there already (found at
 * coldplug), with the events that came since unread: before the
 * hand-over (the root's own fstab may name a disk by its /dev/disk
 * link) they are read. 0, or < 0 when the failure path gave up (a
 * test). */
int boot_settle(struct init *in);
/* When a block device, a driver load or a layer's tool last showed
 * that devices are still coming. */
long long last_activity(const struct init *in);

/* The wait for root= (and resume=) with its jobs: 1 the root is there,
 * 0 it did not come (said so), < 0 the failure path gave up (a test). */
int init_wait_root(struct init *in);

/* No root=: the root partition found by its type (stages/gptroot.c),
 * made root=, then init_wait_root; 0 also after a refusal (said). */
int gptroot_wait(struct init *in);
/* boot=live with no live-media=: the medium found by a look at the block
 * devices (stages/livescan.c), made root=, then init_wait_root; 0 when
 * none has the image by rd.timeout (said what was looked at). */
int livescan_wait(struct init *in);
/* boot=live with no root= yet: the scan is the root's wait. */
static inline bool livescan_wanted(const struct init *in)
{
	return in->opt.debian_live && !in->opt.root;
}

/* The root is on the network (NFS): it names itself, no device. */
static inline bool net_root(const struct init *in)
{
	return netroot_use(&in->net.root) == NETROOT_USE_MOUNT;
}

/* The ops clock: CLOCK_MONOTONIC in ms. */
static inline long long now_ms(const struct init *in)
{
	return in->ops->now_ms();
}

/* The root device, NULL until root= appeared (or after it went). */
static inline const struct blockdev *root_dev(const struct init *in)
{
	return registry_get(&in->devs, in->root);
}

#endif
