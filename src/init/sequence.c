// SPDX-License-Identifier: GPL-2.0-or-later
/* The boot, stage by stage (docs/design.md, "The stages"). Everything it does
 * to the system goes through in->ops and in->xops. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/core/kmsg.h"
#include "init/boot_inputs.h"
#include "init/stackenv.h"
#include "init/init.h"
#include "init/netboot/netvirt_up.h"
#include "init/remote/plymouth.h"
#include "init/stages/overlayspec.h"
#include "init/stages/squashlazy.h"
#include "init/stages/stages.h"
#include "init/stages/xinitrd.h"
#include "layout.h"
#include "log.h"

/* netup's on_up (inside the loop: each only queues jobs or starts a
 * daemon): a network disk's login, the LUKS unlocks clevis waits with,
 * and SSH for the prompt. */
static void net_up(void *arg)
{
	struct init *in = arg;

	netblock_up(in);
	nvmf_up(in);
	luks_net_up(&in->stack_env);
	sshd_start(&in->ssh, in->ops, in->xops, &in->opt, in->tool_envp);
}

/* The module index with the command line's blacklist and parameters:
 * before the squashfs segment, whose modules load through it. */
static void modules_open(struct init *in)
{
	char *moddir = xasprintf("/lib/modules/%s", in->kver);
	const struct options *o = &in->opt;

	in->ml = modload_new(in->ops, moddir);
	if (!in->ml)
		log_err("cannot read the modules in %s: %s", moddir, err_msg());
	free(moddir);
	in->drivers.ml = in->ml;
	in->stack_env.ml = in->ml;
	if (!in->ml)
		return;
	for (size_t i = 0; i < o->blacklist.n; i++)
		modload_blacklist(in->ml, o->blacklist.v[i]);
	for (size_t i = 0; i < o->modparam_mod.n; i++)
		modload_add_param(in->ml, o->modparam_mod.v[i], o->modparam_arg.v[i]);
}

static void stage_modules(struct init *in)
{
	const struct options *o = &in->opt;
	struct loop_source src = { .ready = devevents_ready, .arg = &in->events };

	if (in->staged)
		return; /* a root DHCP named as a disk: done before its network */
	in->staged = true;

	/* The socket before the drivers: nothing a driver's load announces
	 * is missed (what the squashfs segment's loop made, coldplug finds). */
	in->events.fd = in->ops->uevent_open();
	if (in->events.fd < 0)
		log_err("cannot listen for device events: %s", err_msg());
	src.fd = in->events.fd;
	if (src.fd >= 0 && loop_add(&in->loop, &src) < 0)
		log_err("%s", err_msg());
	run_break(in, BRK_PRE_UDEV, "pre-udev");
	run_hooks(in, "pre-udev");
	for (size_t i = 0; in->ml && i < o->driver_pre.n; i++)
		if (modload_name(in->ml, o->driver_pre.v[i]) < 0)
			log_warn("rd.driver.pre=%s: %s", o->driver_pre.v[i], err_msg());
	in->drivers.want_net = in->net.wanted;
	if (devevents_coldplug(&in->events) < 0)
		log_err("coldplug: %s", err_msg());
	timing_mark(&in->timing, "coldplug");
	stage_plymouth(in);
	if (in->net.wanted) {
		in->events.net_changed = netup_scan;
		in->events.net_arg = &in->net;
		in->net.on_up = net_up;
		in->net.up_arg = in;
		netvirt_modules(&in->net, in->ml);
		if (netup_start(&in->net, &in->loop) < 0)
			log_err("%s", err_msg());
	}
	pcrphase_enter(in); /* before the first unlock, as systemd-pcrphase-initrd */
}

static bool net_ready(const struct init *in, const void *arg)
{
	(void)arg;
	return netup_settled(&in->net);
}

/* The network for the root: configured, or the failure report. 1 up,
 * 0 not (said why), < 0 the failure path gave up (a test). */
static int wait_net(struct init *in)
{
	long long deadline = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;
	int r;

	if (netup_settled(&in->net) && in->net.chosen >= 0 && !in->net.names_error)
		return 1;
	log_info("waiting for the network");
	r = boot_wait(in, deadline, net_ready, NULL);
	if (r < 0)
		return r;
	if (in->net.chosen >= 0 && in->net.names_error) {
		log_err("NFS: not mounted: %s", in->net.names_error);
		netup_report(&in->net);
		return 0;
	}
	if (in->net.chosen >= 0 && netup_settled(&in->net))
		return 1;
	if (in->net.chosen >= 0) {
		log_err("the root's server name was not resolved within %ld seconds", in->opt.timeout);
		netup_report(&in->net);
		return 0;
	}
	if (in->net.failed)
		log_err("the network did not come up: no interface got an address");
	else
		log_err("the network did not come up within %ld seconds", in->opt.timeout);
	netup_report(&in->net);
	return 0;
}

/* The root on the network: the link, then the mount, each failure
 * through the failure path and tried again. 0 mounted, 1 DHCP's
 * root-path named a disk (the block path mounts it), < 0 gave up. */
static int net_root_mount(struct init *in)
{
	for (;;) {
		int r = wait_net(in);

		if (r < 0)
			return r;
		if (r > 0 && !net_root(in))
			return 1;
		if (r > 0) {
			timing_mark(&in->timing, "network");
			run_break(in, BRK_PRE_MOUNT, "pre-mount");
			run_hooks(in, "pre-mount");
			if (mount_net_root(in) == 0)
				return 0;
			log_err("%s", err_msg());
			netup_report(&in->net);
		}
		if ((r = failure(in, true)) < 0)
			return r;
	}
}

static bool spec_there(const struct init *in, const void *spec)
{
	return registry_match(&in->devs, spec) != NULL;
}

static bool never(const struct init *in, const void *arg)
{
	return (void)in, (void)arg, false;
}

/* Until ready, or the devices have been quiet for ROOT_QUIET_MS (no
 * driver left to load), as the root's wait decides they are all there,
 * never past end (-1: no end). 0, or < 0: the failure path gave up. */
static int wait_quiet(struct init *in, long long end,
		      bool (*ready)(const struct init *in, const void *arg), const void *arg)
{
	long long start = now_ms(in);
	int r;

	for (;;) {
		long long now = now_ms(in), last = last_activity(in), until;

		/* quiet since the wait began at the earliest: the clock counts
		 * from the kernel's start, which may be more than ROOT_QUIET_MS
		 * before /init, and nothing has happened yet then */
		if (last < start)
			last = start;
		if ((end >= 0 && now >= end) || ready(in, arg) ||
		    (!in->drivers.n && now - last >= ROOT_QUIET_MS))
			return 0;
		until = last + ROOT_QUIET_MS;
		if (until <= now)
			until = now + 100; /* quiet but for drivers still to load: let the loop load them */
		if ((r = boot_wait(in, end >= 0 && end < until ? end : until, ready, arg)) < 0)
			return r;
	}
}

/* rd.overlay=DEVICE: the upper layer's disk may come after the root's (a
 * USB stick, another controller), so it is waited for as dracut's udev
 * settle before its mount hook would; overlay.c then uses it or falls
 * back to a tmpfs. */
static int wait_overlay_device(struct init *in)
{
	struct overlay_spec s;
	struct strv w = { 0 };
	char *crypt;
	const char *dev;
	int r = 0;

	overlay_spec_parse(in->opt.overlay, &s, &w); /* stage_overlay says the warnings */
	crypt = overlay_crypt_device(in->opt.overlay_crypt, &w); /* rd.overlay.crypt='s first */
	strv_free(&w);
	dev = s.mode == OVERLAY_OFF ? NULL : crypt ? crypt : s.mode == OVERLAY_DEVICE ? s.device : NULL;
	if (dev && !spec_there(in, dev)) {
		log_info("waiting for the rd.overlay device %s", dev);
		r = wait_quiet(in, in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000,
			       spec_there, dev);
	}
	free(crypt);
	overlay_spec_free(&s);
	return r;
}

/* root= is a plugin's: its program mounts it once the devices are quiet
 * for ROOT_QUIET_MS (or rd.timeout passed), as the root's wait would
 * decide they are all there; each failure through the failure path and
 * tried again. 0 mounted, < 0 gave up. */
static int plugin_root(struct init *in, const struct plugin_row *pr)
{
	for (;;) {
		long long end = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;
		int r;

		if ((r = wait_quiet(in, end, never, NULL)) < 0)
			return r;
		timing_mark(&in->timing, "devices");
		run_break(in, BRK_PRE_MOUNT, "pre-mount");
		run_hooks(in, "pre-mount");
		if (mount_plugin_root(in, pr) == 0)
			return 0;
		log_err("%s", err_msg());
		if ((r = failure(in, true)) < 0)
			return r;
	}
}

/* After the root: the /usr its fstab names, its device waited for as
 * the root's was. 0 or a negative code (err set); *gave_up when that is
 * the failure path's, which gave up in the wait (a test). */
static int stage_usr(struct init *in, bool *gave_up)
{
	struct fstab_entry e;
	long long deadline;
	int r = usr_entry(in, &e);

	if (r <= 0)
		return r;
	if (!registry_match(&in->devs, e.spec)) {
		deadline = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;
		log_info("waiting for the /usr device %s", e.spec);
		r = boot_wait(in, deadline, spec_there, e.spec);
		if (r < 0) {
			fstab_entry_free(&e);
			*gave_up = true;
			return r;
		}
	}
	r = mount_fstab_entry(in, &e);
	fstab_entry_free(&e);
	return r;
}

/* Then the root's x-initrd.mount entries, each device waited for as the
 * root's was; a retry after the failure path goes on from the one that
 * failed. */
static int stage_xinitrd(struct init *in, bool *gave_up)
{
	struct fstab t;
	int r = 0;

	xinitrd_entries(in, &t);
	for (size_t i = in->xinitrd_done; r == 0 && i < t.n; i++) {
		const struct fstab_entry *e = &t.v[i];
		if (xinitrd_wait_for(in, e)) {
			log_info("waiting for the %s device %s", e->file, e->spec);
			r = boot_wait(in, in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000,
				      spec_there, e->spec);
			if (r < 0) {
				*gave_up = true;
				break;
			}
		}
		if ((r = xinitrd_mount(in, e)) == 0)
			in->xinitrd_done = i + 1;
	}
	fstab_free(&t);
	return r;
}

void init_setup(struct init *in)
{
	struct loop_source drivers = { .fd = -1, .has_work = driverq_has_work,
				       .step = driverq_step, .arg = &in->drivers };

	loop_init(&in->loop, in->ops);
	registry_init(&in->devs, in->ops);
	driverq_init(&in->drivers, in->ops);
	in->drivers.stall_ms = &in->stall_ms;
	devevents_init(&in->events, in->ops, &in->devs, &in->drivers);
	stack_init(&in->stack);
	stack_env_init(in);
	/* in this order: the root is known before a layer asks whether it
	 * is still to come */
	registry_subscribe(&in->devs, root_seen, in);
	registry_subscribe(&in->devs, resume_seen, in);
	registry_subscribe(&in->devs, stack_seen, &in->stack_env);
	registry_subscribe(&in->devs, isoscan_seen, in);
	loop_add(&in->loop, &drivers);
}

int init_run(struct init *in, int argc, char **argv, char **envp)
{
	const struct plugin_row *pr;
	bool gave_up = false;
	int r;

	/* first: every table copied from here on mounts it when wanted */
	squash_prepare(in);
	init_setup(in);
	timing_start(&in->timing);
	kmsg_setup();
	boot_make_env(in, envp);
	in->stack_env.tool_envp = in->tool_envp;

	if (stage_mounts(in) < 0) {
		log_err("%s", err_msg());
		return failure(in, false);
	}
	kmsg_attach(in->ops->open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC, 0));
	stage_console(in);
	boot_read_cmdline(in, argc, argv);
	if (boot_check_kver(in) < 0) {
		stage_vconsole(in);
		log_err("%s", err_msg());
		return failure(in, false);
	}
	modules_open(in);
	squash_lazy_set_modload(in->ml);
	stage_vconsole(in);
	in->stack_env.keymap = in->keymap;
	timing_mark(&in->timing, "setup");
	run_break(in, BRK_CMDLINE, "cmdline");
	run_hooks(in, "cmdline");
	/* the image's crypttab and plugin rows: before root= is judged,
	 * since a plugin's root handler may claim it */
	stack_setup(&in->stack_env);
	ibft_boot(in);
	if (net_root(in)) {
		stage_modules(in);
		if ((r = net_root_mount(in)) < 0)
			return r;
		if (r == 0)
			goto mounted;
	}
	use_netroot_device(in);
	if (!livescan_wanted(in) && !gptroot_wanted(in) && !in->opt.root) {
		log_err("no root= on the kernel command line: nothing to mount");
		return failure(in, false);
	}
	if (in->opt.root && (pr = plugin_rows_root(&in->stack.plugins, in->opt.root))) {
		stage_modules(in);
		if ((r = plugin_root(in, pr)) < 0)
			return r;
		goto mounted;
	}
	if (in->opt.root && !strcmp(in->opt.root, "ibft")) { /* ibftboot.c said why */
		log_err("root=ibft: the firmware's iSCSI boot table gave no target to boot from");
		return failure(in, false);
	}
	if (in->opt.root && !blockdev_spec_valid(in->opt.root)) {
		log_err("root=%s is not a device uniramfs understands "
			"(use /dev/NAME, UUID=, LABEL=, PARTUUID=[/PARTNROFF=N], PARTLABEL=, "
			"/dev/disk/by-id/... (WWID=), /dev/disk/by-path/... (HWPATH=) or MAJ:MIN)",
			in->opt.root);
		return failure(in, false);
	}

	isoscan_wanted(in); /* before the devices it looks on come */
	stage_modules(in);
	for (;;) {
		r = livescan_wanted(in) ? livescan_wait(in)
			: in->opt.root ? init_wait_root(in) : gptroot_wait(in);
		if (r < 0)
			return r;
		if (r == 0) {
			plymouth_quit(); /* the report is for the console */
			report_devices(in);
			if ((r = failure(in, true)) == 0)
				continue;
			return r;
		}
		timing_mark(&in->timing, "devices");
		run_break(in, BRK_PRE_MOUNT, "pre-mount");
		run_hooks(in, "pre-mount");
		if (!in->root)
			continue; /* it went away while the break shell ran */
		if (fsck_root(in) == 0 && mount_root(in) == 0)
			break;
		log_err("%s", err_msg());
		if ((r = failure(in, true)) < 0)
			return r;
	}
	/* a local root with ip= or rd.neednet: the network is waited for
	 * (hooks may need it) but its failure does not stop the boot */
	if (in->net.wanted && !netup_settled(&in->net)) {
		long long deadline = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;
		if ((r = boot_wait(in, deadline, net_ready, NULL)) < 0)
			return r;
		if (in->net.chosen < 0)
			log_warn("the network did not come up; the root is local, going on");
	}
mounted:
	/* before the mount hooks, as dracut's mount hook 01, and before /usr,
	 * which would otherwise be hidden below the overlay */
	if ((r = wait_overlay_device(in)) < 0)
		return r;
	if (stage_overlay(in) < 0) {
		log_err("%s", err_msg());
		if ((r = failure(in, true)) < 0)
			return r;
	}
	run_break(in, BRK_MOUNT, "mount");
	run_hooks(in, "mount");
	while ((r = stage_usr(in, &gave_up)) < 0) {
		if (gave_up)
			return r;
		log_err("%s", err_msg());
		if ((r = failure(in, true)) < 0)
			return r;
	}
	while ((r = stage_xinitrd(in, &gave_up)) < 0) {
		if (gave_up)
			return r;
		log_err("%s", err_msg());
		if ((r = failure(in, true)) < 0)
			return r;
	}
	timing_mark(&in->timing, "mount");
	/* A wait whose device was found at coldplug never polled the
	 * socket: other disks' events may still be queued, and the root's
	 * fstab may name them by their /dev/disk links (its udev may not
	 * have made them yet). */
	if ((r = boot_settle(in)) < 0)
		return r;
	timing_mark(&in->timing, "settle");
	run_break(in, BRK_PRE_PIVOT, "pre-pivot");
	run_hooks(in, "pre-pivot");
	export_modules(in); /* as dracut's pre-pivot hook does, after the others */
	sshd_stop(&in->ssh, in->ops, in->xops); /* before the network goes: its logins end cleanly */
	/* rd.neednet=1 keeps the network for the root too, as dracut does */
	netup_stop(&in->net, netroot_use(&in->net.root) != NETROOT_USE_NONE || in->net.cmd.neednet);
	pcrphase_leave(in);
	plymouth_newroot("/sysroot"); /* the root's plymouth-quit ends it */
	if (switch_root(in) == 0)
		return 0;
	log_err("%s", err_msg());
	return failure(in, false);
}

void init_free(struct init *in)
{
	jobq_free(&in->jobs);
	isoscan_done(in);
	stack_free(&in->stack);
	netup_free(&in->net);
	askpass_close(&in->ssh.ask);
	driverq_free(&in->drivers);
	registry_free(&in->devs);
	options_free(&in->opt);
	timing_free(&in->timing);
	if (in->ml)
		modload_free(in->ml);
	if (in->events.fd >= 0)
		close(in->events.fd);
	free(in->root);
	free(in->dps_disk);
	free(in->keymap);
	for (char **e = in->envp; e && *e; e++)
		free(*e);
	free(in->envp);
	for (char **e = in->tool_envp; e && *e; e++)
		free(*e);
	free(in->tool_envp);
	kmsg_free();
	memset(in, 0, sizeof(*in));
}
