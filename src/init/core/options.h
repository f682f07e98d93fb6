/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_OPTIONS_H
#define UNIRAMFS_INIT_OPTIONS_H

#include <stdbool.h>

#include "cmdline.h"
#include "util.h"

/* Break points, in boot order. Every distribution's spelling maps onto
 * one of these (docs/cmdline.md). */
enum brk {
	BRK_CMDLINE = 1 << 0,   /* after the API filesystems, before anything else */
	BRK_PRE_UDEV = 1 << 1,  /* before modules and devices */
	BRK_PRE_MOUNT = 1 << 2, /* root found, not mounted yet */
	BRK_PRE_PIVOT = 1 << 3, /* root and /usr mounted, before switch_root */
	BRK_MOUNT = 1 << 4,     /* root mounted, /usr not yet */
};

/* rd.emergency: what a failure does (dracut's spelling, and "shell").
 * Unset: the shell if the rules allow one (stages/rescue.c), else a
 * reboot after panic= seconds. */
enum emergency {
	EMERGENCY_UNSET,
	EMERGENCY_REBOOT,
	EMERGENCY_POWEROFF,
	EMERGENCY_HALT,
	EMERGENCY_SHELL,
};

#define DEFAULT_ROOT_TIMEOUT 30 /* seconds, see docs/cmdline.md */
#define DEFAULT_PANIC_WAIT 30
/* Past rd.timeout the root is waited for while devices still appear
 * (sequence.c): until they were quiet this long, at most this many
 * rd.timeouts more (docs/cmdline.md). */
#define ROOT_QUIET_MS 5000
#define ROOT_EXTEND_TIMES 3
/* Seconds the resume device is waited for once the root is there and
 * the devices have gone quiet (rd.resume.timeout=, docs/cmdline.md). */
#define DEFAULT_RESUME_TIMEOUT 3

/* What the init needs from the command line, every alias folded in. */
struct options {
	char *root, *rootfstype, *rootflags, *init;
	bool rw;
	bool gpt_auto;  /* [rd.]systemd.gpt_auto: no root= finds the root by type */
	char *usr, *usrfstype, *usrflags; /* mount.usr=, mount.usrfstype=, mount.usrflags= */
	char *overlay;  /* rd.overlay's value ("" for the bare word; NULL: not given) */
	char *overlay_crypt; /* rd.overlay.crypt=: a device made a LUKS upper layer at boot */
	bool overlay_reset;    /* rd.overlay.reset: empty the persistent upper layer first */
	bool overlay_readonly; /* rd.overlay.readonly: it is a read-only layer below a tmpfs */
	bool live;      /* root=live:SPEC or rd.live.image: root is a live medium */
	char *live_dir, *live_squashimg; /* rd.live.dir=, rd.live.squashimg= */
	char *live_sha256;               /* rd.live.sha256=: the digest a downloaded image must have */
	char *live_maxsize;              /* rd.live.maxsize=: the most a downloaded image may be */
	bool debian_live; /* boot=live (options_live.c): root= is live-media=, or a scan */
	char *live_media, *live_media_path; /* live-media=, live-media-path= */
	char *iso_scan; /* iso-scan/filename=: an ISO file on some filesystem holds the medium */
	bool live_ram;  /* rd.live.ram: the image is copied to /run before it is mounted */
	bool live_check; /* rd.live.check: checkisomd5 on an ISO medium first */
	int measure;    /* rd.uniramfs.measure: 1, 0; -1 unset (systemd-stub's variable decides) */
	char *live_fetch; /* boot=live fetch=URL: the image over HTTP */
	char *live_toram; /* boot=live toram=FILE: the file live-boot would copy ("": bare toram) */
	bool rootwait;
	long timeout;   /* seconds to wait for the root; -1: forever */
	char *resume;
	long resume_offset;
	long resume_timeout; /* rd.resume.timeout, seconds */
	bool noresume;

	bool quiet, debug;
	long loglevel; /* -1: not given */
	unsigned breaks;
	bool shell;    /* rd.shell: the emergency shell is allowed */
	bool shell_given; /* rd.shell or rd.shell=1 written (the image's line or the kernel's) */
	enum emergency emergency; /* rd.emergency */
	long panic;    /* seconds before the reboot after a failure; 0 forever */

	struct strv driver_pre, blacklist;
	/* rd.driver.export: the image's modules for a root without its own */
	enum driver_export { EXPORT_NO, EXPORT_YES, EXPORT_FORCE } driver_export;
	struct strv modparam_mod, modparam_arg; /* parallel: module, "param=value" */

	/* rd.luks.*, rd.lvm.*, rd.md.* are the layers' own (stack_parse). */
	struct strv disablehooks;
	char *fsck_mode, *fsck_repair;
	bool fstab, skipfsck;
	char *vconsole_keymap, *vconsole_font; /* [rd.]vconsole.keymap/font: what the boot asks for */
	bool ssh;      /* rd.ssh: dropbear for the passphrase, if the image has it */
	bool splash;   /* splash or rhgb: the Plymouth splash, unless plymouth is off */
	bool plymouth; /* plymouth.enable=, rd.plymouth= (default on) */
	long ssh_port; /* rd.ssh.port */

	struct strv init_args; /* words after "--" */
};

/* Fold c into o. Unknown keys are ignored; a value that does not parse
 * is named in a warning (log_warn) and the default kept. Never fails. */
void options_parse(struct options *o, const struct cmdline *c);
void options_free(struct options *o);

#endif
