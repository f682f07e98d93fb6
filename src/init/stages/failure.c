// SPDX-License-Identifier: GPL-2.0-or-later
/* When the boot cannot go on: say what was seen, offer a shell, or wait
 * and reboot. The messages are an interface (docs/messages.md): boot
 * tests and users rely on their exact text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/remote/plymouth.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

#define MAX_NODRIVER_LINES 64

/* Could this device lead to a disk? A generic image on a VM has dozens
 * of ACPI, platform and bridge devices without a driver; the failure
 * report shows the ones that can explain a missing root. */
static bool storage_like(const char *a)
{
	static const char *const names[] = { "ahci", "sata", "sdhci", "mmc", "nvme", "ufs",
					     "xhci", "ehci", "ohci", "dwc", "scsi", "ide" };

	if (str_has_prefix(a, "pci:")) {
		const char *bc = strstr(a, "bc");
		return bc && (str_has_prefix(bc, "bc01") || str_has_prefix(bc, "bc0Csc03") ||
			      str_has_prefix(bc, "bc0Csc04") || str_has_prefix(bc, "bc08sc05"));
	}
	if (str_has_prefix(a, "virtio:") || str_has_prefix(a, "scsi:") ||
	    str_has_prefix(a, "mmc:") || str_has_prefix(a, "vmbus:") ||
	    str_has_prefix(a, "xen:vbd") || str_has_prefix(a, "ccw:"))
		return true;
	if (str_has_prefix(a, "usb:"))
		return strstr(a, "ic08") != NULL;
	if (str_has_prefix(a, "platform:") || str_has_prefix(a, "of:") ||
	    str_has_prefix(a, "acpi:")) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			if (strcasestr(a, names[i]))
				return true;
	}
	return false;
}

static void report_nodriver(struct init *in)
{
	size_t shown = 0, other = 0;

	const struct driverq *q = &in->drivers;

	for (size_t i = 0; i < q->nnodrv; i++) {
		const struct nodriver *d = &q->nodrv[i];
		if (!storage_like(d->modalias)) {
			other++;
			continue;
		}
		if (!shown)
			log_err("devices with no driver in this image:");
		if (++shown <= MAX_NODRIVER_LINES)
			log_err("  %s (%s)", d->modalias, d->devpath);
	}
	if (shown > MAX_NODRIVER_LINES)
		log_err("  ... and %zu more", shown - MAX_NODRIVER_LINES);
	if (!other)
		return;
	log_notice("%zu other devices have no driver in this image (not storage; rd.debug lists them)",
		   other);
	for (size_t i = 0; i < q->nnodrv; i++)
		if (!storage_like(q->nodrv[i].modalias))
			log_debug("  %s (%s)", q->nodrv[i].modalias, q->nodrv[i].devpath);
}

/* The value of KEY= in the hostonly record, printable bytes only (it
 * goes to the console), or NULL. */
static char *record_value(const char *rec, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = rec; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, klen) || l[klen] != '=')
			continue;
		char *v = xstrndup(l + klen + 1, strcspn(l + klen + 1, "\n"));
		for (char *c = v; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		if (*v)
			return v;
		free(v);
		return NULL;
	}
	return NULL;
}

/* A hostonly image on other hardware is the likeliest reason for a
 * missing root: say so, and which image boots anywhere. */
static void report_hostonly(struct init *in)
{
	char *path = in->ops->path(LAYOUT_HOSTONLY_FILE), *rec = NULL, *drivers, *fallback;
	size_t len;

	if (read_file(path, &rec, &len) < 0) {
		free(path);
		return;
	}
	drivers = record_value(rec, "drivers");
	fallback = record_value(rec, "fallback");
	log_err("this is a hostonly image, made for a machine whose root is reached through %s;"
		" this machine's hardware may differ", drivers ? drivers : "(no drivers recorded)");
	if (fallback)
		log_err("boot the generic image made beside it instead: %s", fallback);
	else
		log_err("a generic image (uniramfs build --generic) boots on any hardware");
	free(drivers);
	free(fallback);
	free(rec);
	free(path);
}

void report_devices(struct init *in)
{
	if (!in->devs.n) {
		log_err("no block devices were seen");
	} else {
		size_t idle_loops = 0;
		log_err("block devices seen:");
		for (size_t i = 0; i < in->devs.n; i++) {
			const struct blockdev *bd = &in->devs.v[i];
			struct buf b = { 0 };
			/* the loop module makes eight (the squashfs segment
			 * loads it): one line for those with nothing on them */
			if (str_has_prefix(bd->name, "loop") && !bd->type && !bd->partuuid) {
				idle_loops++;
				continue;
			}
			buf_printf(&b, "  %s", bd->devnode);
			if (bd->type)
				buf_printf(&b, " TYPE=%s", bd->type);
			if (bd->uuid)
				buf_printf(&b, " UUID=%s", bd->uuid);
			if (bd->label)
				buf_printf(&b, " LABEL=%s", bd->label);
			if (bd->partuuid)
				buf_printf(&b, " PARTUUID=%s", bd->partuuid);
			if (bd->partlabel)
				buf_printf(&b, " PARTLABEL=%s", bd->partlabel);
			if (!bd->type && !bd->uuid && !bd->partuuid)
				buf_printf(&b, " (no signature)");
			if (bd->claim != DEV_FREE)
				buf_printf(&b, " (%s by a plugin's claim row: not a root candidate)",
					   bd->claim == DEV_HELD ? "held" : "claimed");
			log_err("%s", b.p);
			buf_free(&b);
		}
		if (idle_loops)
			log_err("  and %zu loop device%s with nothing on %s", idle_loops, idle_loops == 1 ? "" : "s",
				idle_loops == 1 ? "it" : "them");
	}
	isoscan_report(in);
	report_nodriver(in);
	report_hostonly(in);
}

/* A shell, or a busybox that is one when called "sh". */
static const char *find_shell(struct init *in, const char **argv0)
{
	static const char *const shells[] = { "/bin/sh", "/usr/bin/sh", "/bin/busybox",
					      "/usr/bin/busybox", "/sbin/busybox" };

	for (size_t i = 0; i < ARRAY_SIZE(shells); i++) {
		if (in->ops->access(shells[i], X_OK) == 0) {
			*argv0 = str_has_suffix(shells[i], "/busybox") ? "sh" : shells[i];
			return shells[i];
		}
	}
	return NULL;
}

/* Run a shell if the rules allow it and the image has one: 0 when it
 * ran and exited, < 0 (-EPERM not allowed, -EACCES wrong passwords,
 * -ENOENT none, or spawn's code) if it did not. */
static int run_shell(struct init *in, const char *why, bool at_break)
{
	const char *sh, *argv0 = NULL;
	char *argv[2];
	pid_t pid;
	int r = rescue_wanted(in, at_break);

	if (r < 0)
		return r;
	sh = find_shell(in, &argv0);
	if (!sh) {
		log_err("no shell in this image (it was built with rescue_shell = no, or on a host without busybox)");
		return -ENOENT;
	}
	r = rescue_authorized(in);
	if (r < 0)
		return r;
	log_err("starting %s (%s); exit it to continue", sh, why);
	argv[0] = (char *)argv0;
	argv[1] = NULL;
	pid = in->xops->spawn(sh, argv, in->tool_envp);
	if (pid < 0) {
		log_err("cannot start %s: %s", sh, err_msg());
		return pid;
	}
	loop_run(&in->loop, -1, NULL, NULL, pid);
	return 0;
}

void run_break(struct init *in, unsigned brk, const char *name)
{
	if (!(in->opt.breaks & brk))
		return;
	if (run_shell(in, name, true) < 0)
		log_warn("break point %s: no shell, going on", name);
}

int failure(struct init *in, bool can_retry)
{
	long wait = in->opt.panic;
	int r;

	plymouth_quit(); /* what went wrong is said on the console, not behind the splash */

	if (run_shell(in, "emergency shell", false) == 0) {
		if (can_retry) {
			log_notice("shell exited, trying again");
			return 0;
		}
		wait = -1;
	}
	if (in->opt.emergency == EMERGENCY_POWEROFF || in->opt.emergency == EMERGENCY_HALT)
		wait = -1; /* asked for: at once */
	if (wait > 0) {
		log_err("rebooting in %ld seconds", wait);
		loop_run(&in->loop, now_ms(in) + wait * 1000, NULL, NULL, 0);
	} else if (wait == 0) {
		log_err("panic=0: waiting forever");
		for (;;)
			loop_run(&in->loop, -1, NULL, NULL, 0);
	}
	sshd_stop(&in->ssh, in->ops, in->xops);
	in->ops->sync();
	if (in->opt.emergency == EMERGENCY_POWEROFF) {
		log_err("powering off now");
		r = in->xops->reboot(RB_POWER_OFF);
	} else if (in->opt.emergency == EMERGENCY_HALT) {
		log_err("halting now");
		r = in->xops->reboot(RB_HALT_SYSTEM);
	} else {
		log_err("rebooting now");
		r = in->xops->reboot(RB_AUTOBOOT);
	}
	return r < 0 ? r : -EIO;
}
