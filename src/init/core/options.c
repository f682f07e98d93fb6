// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/options.h"
#include "init/core/options_live.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

static void set_str(char **dst, const char *val)
{
	free(*dst);
	*dst = val ? xstrdup(val) : NULL;
}

static void warn_value(const struct cmdline_param *p, const char *why)
{
	log_warn("ignoring %s=%s: %s", p->key, p->val ? p->val : "", why);
}

static void set_long(const struct cmdline_param *p, long min, long max, long *dst,
		     const char *why)
{
	long v;
	if (cmdline_parse_int(p->val, min, max, &v) < 0) {
		warn_value(p, why);
		return;
	}
	*dst = v;
}

/* A bare key means yes ("rd.shell"), a value must be a boolean. */
static void set_bool(const struct cmdline_param *p, bool *dst)
{
	bool v;
	if (!p->val) {
		*dst = true;
		return;
	}
	if (cmdline_parse_bool(p->val, &v) < 0) {
		warn_value(p, "not a boolean (use 1 or 0)");
		return;
	}
	*dst = v;
}

/* dracut 059's overlay-root module: a boolean that puts a tmpfs over a
 * read-only (NFS) root, what rd.overlay=1 does; a later rd.overlay
 * still decides. */
static void set_rootovl(struct options *o, const struct cmdline_param *p)
{
	bool on = true;

	if (p->val && cmdline_parse_bool(p->val, &on) < 0) {
		warn_value(p, "not a boolean (use 1 or 0)");
		return;
	}
	set_str(&o->overlay, on ? "" : "0");
}

/* dracut's rd.driver.export: bare or a boolean, or "force" to export
 * over the root's own modules of this kernel. */
static void set_export(struct options *o, const struct cmdline_param *p)
{
	bool v = true;

	if (p->val && !strcmp(p->val, "force")) {
		o->driver_export = EXPORT_FORCE;
		return;
	}
	if (p->val && cmdline_parse_bool(p->val, &v) < 0) {
		warn_value(p, "not a boolean or force");
		return;
	}
	o->driver_export = v ? EXPORT_YES : EXPORT_NO;
}

static void set_emergency(struct options *o, const struct cmdline_param *p)
{
	static const char *const names[] = { [EMERGENCY_REBOOT] = "reboot",
					     [EMERGENCY_POWEROFF] = "poweroff",
					     [EMERGENCY_HALT] = "halt",
					     [EMERGENCY_SHELL] = "shell" };

	for (size_t i = EMERGENCY_REBOOT; i < ARRAY_SIZE(names); i++) {
		if (p->val && !strcmp(p->val, names[i])) {
			o->emergency = (enum emergency)i;
			return;
		}
	}
	warn_value(p, "not reboot, poweroff, halt or shell");
}

static const struct {
	const char *name;
	unsigned brk;
} break_names[] = {
	/* dracut */
	{ "cmdline", BRK_CMDLINE },
	{ "pre-udev", BRK_PRE_UDEV },
	{ "pre-trigger", BRK_PRE_UDEV },
	{ "initqueue", BRK_PRE_MOUNT },
	{ "pre-mount", BRK_PRE_MOUNT },
	{ "mount", BRK_MOUNT },
	{ "pre-pivot", BRK_PRE_PIVOT },
	{ "cleanup", BRK_PRE_PIVOT },
	/* initramfs-tools */
	{ "top", BRK_CMDLINE },
	{ "modules", BRK_PRE_UDEV },
	{ "premount", BRK_PRE_MOUNT },
	{ "mountroot", BRK_PRE_MOUNT },
	{ "bottom", BRK_PRE_PIVOT },
	{ "init", BRK_PRE_PIVOT },
	/* mkinitcpio */
	{ "y", BRK_PRE_MOUNT },
	{ "postmount", BRK_MOUNT },
};

/* rd.break alone means "just before switch_root" (dracut); break alone
 * means "before mounting the root" (initramfs-tools, mkinitcpio). */
static void set_break(struct options *o, const struct cmdline_param *p, unsigned bare)
{
	struct strv names = { 0 };

	if (!p->val || !*p->val) {
		o->breaks |= bare;
		return;
	}
	strv_split(&names, p->val, ",");
	for (size_t i = 0; i < names.n; i++) {
		size_t k;
		for (k = 0; k < ARRAY_SIZE(break_names); k++)
			if (strcmp(names.v[i], break_names[k].name) == 0)
				break;
		if (k == ARRAY_SIZE(break_names)) {
			log_warn("ignoring %s=%s: unknown break point '%s'", p->key, p->val,
				 names.v[i]);
			continue;
		}
		o->breaks |= break_names[k].brk;
	}
	strv_free(&names);
}

static void add_list(struct strv *dst, const struct cmdline_param *p)
{
	if (p->val)
		strv_split(dst, p->val, ",");
}

/* Dotted keys whose prefix is not a module: they belong to us, to
 * systemd, udev or another part of the boot. */
static const char *const not_modules[] = {
	"rd", "fsck", "systemd", "udev", "net", "plymouth", "vconsole", "locale",
	"luks", "lvm", "mount", "swap", "resume", "root", "dracut", "initramfs",
	"live-config", "live-boot",
};

static void add_modparam(struct options *o, const struct cmdline_param *p)
{
	const char *dot = strchr(p->key, '.');
	char *mod;

	if (!dot || dot == p->key || !dot[1])
		return;
	for (const char *c = p->key; c < dot; c++)
		if (!(*c == '_' || *c == '-' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			return;
	mod = xstrndup(p->key, (size_t)(dot - p->key));
	for (size_t i = 0; i < ARRAY_SIZE(not_modules); i++) {
		if (strcmp(mod, not_modules[i]) == 0) {
			free(mod);
			return;
		}
	}
	/* modprobe treats - and _ alike in module names. */
	for (char *c = mod; *c; c++)
		if (*c == '-')
			*c = '_';
	strv_push_owned(&o->modparam_mod, mod);
	if (p->val)
		strv_push_owned(&o->modparam_arg, xasprintf("%s=%s", dot + 1, p->val));
	else
		strv_push(&o->modparam_arg, dot + 1);
}

/* Options other initramfs generators and systemd take that this init
 * does not act on: said by name, never taken silently. */
static const struct {
	const char *key, *why;
} unsupported[] = {
	/* the team driver passes no traffic until teamd, a daemon with
	 * its own JSON configuration, drives it over generic netlink: bond=
	 * has the same modes */
	{ "team", "uniramfs sets up no team interface (it needs teamd): use bond=" },
};

static bool warn_unsupported(const struct cmdline_param *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(unsupported); i++) {
		if (strcmp(p->key, unsupported[i].key))
			continue;
		log_warn("ignoring %s%s%s: %s", p->key, p->val ? "=" : "", p->val ? p->val : "",
			 unsupported[i].why);
		return true;
	}
	return false;
}

static void one(struct options *o, const struct cmdline_param *p, long *rd_timeout,
		long *rd_retry, long *rootdelay)
{
	const char *k = p->key;

	if (!strcmp(k, "root")) {
		/* dracut's live medium: the device that holds the root's image */
		bool live = p->val && !strncmp(p->val, "live:", 5);
		/* dracut's livenet takes root=http://… as root=live:http://… */
		o->live = o->live || live || (p->val && (str_has_prefix(p->val, "http://") ||
							 str_has_prefix(p->val, "https://")));
		set_str(&o->root, live ? p->val + 5 : p->val);
	} else if (!strcmp(k, "rd.live.image"))
		set_bool(p, &o->live);
	else if (!strcmp(k, "rd.live.dir"))
		set_str(&o->live_dir, p->val);
	else if (!strcmp(k, "rd.live.squashimg"))
		set_str(&o->live_squashimg, p->val);
	else if (!strcmp(k, "rd.live.sha256"))
		set_str(&o->live_sha256, p->val);
	else if (!strcmp(k, "rd.live.maxsize"))
		set_str(&o->live_maxsize, p->val);
	else if (!strcmp(k, "iso-scan/filename"))
		set_str(&o->iso_scan, p->val);
	else if (!strcmp(k, "rd.live.ram"))
		set_bool(p, &o->live_ram);
	else if (!strcmp(k, "rd.live.check"))
		set_bool(p, &o->live_check);
	else if (!strcmp(k, "rd.uniramfs.measure")) {
		bool v = true;
		if (p->val && cmdline_parse_bool(p->val, &v) < 0)
			warn_value(p, "not a boolean (use 1 or 0)");
		else
			o->measure = v;
	}
	else if (!strcmp(k, "rootfstype"))
		set_str(&o->rootfstype, p->val);
	else if (!strcmp(k, "rootflags"))
		set_str(&o->rootflags, p->val);
	else if (!strcmp(k, "init"))
		set_str(&o->init, p->val);
	else if (!strcmp(k, "rd.systemd.gpt_auto") || !strcmp(k, "systemd.gpt_auto"))
		set_bool(p, &o->gpt_auto);
	else if (!strcmp(k, "mount.usr"))
		set_str(&o->usr, p->val);
	else if (!strcmp(k, "mount.usrfstype"))
		set_str(&o->usrfstype, p->val);
	else if (!strcmp(k, "mount.usrflags"))
		set_str(&o->usrflags, p->val);
	else if (!strcmp(k, "rd.overlay") || !strcmp(k, "rd.live.overlay.overlayfs") ||
		 (!strcmp(k, "rd.live.overlay") && p->val)) /* dracut's older spelling */
		set_str(&o->overlay, p->val ? p->val : "");
	else if (!strcmp(k, "rd.overlay.crypt"))
		set_str(&o->overlay_crypt, p->val);
	else if (!strcmp(k, "rootovl"))
		set_rootovl(o, p);
	else if (!strcmp(k, "rd.overlay.reset") || !strcmp(k, "rd.live.overlay.reset"))
		set_bool(p, &o->overlay_reset);
	else if (!strcmp(k, "rd.overlay.readonly") || !strcmp(k, "rd.live.overlay.readonly"))
		set_bool(p, &o->overlay_readonly);
	else if (!strcmp(k, "ro") && !p->val)
		o->rw = false;
	else if (!strcmp(k, "rw") && !p->val)
		o->rw = true;
	else if (!strcmp(k, "rootwait"))
		o->rootwait = true;
	else if (!strcmp(k, "rootdelay") || !strcmp(k, "live-media-timeout"))
		set_long(p, 0, 86400, rootdelay, "not a number of seconds");
	else if (!strcmp(k, "rd.timeout"))
		set_long(p, 0, 86400, rd_timeout, "not a number of seconds");
	else if (!strcmp(k, "rd.retry"))
		set_long(p, 0, 86400, rd_retry, "not a number of seconds");
	else if (!strcmp(k, "resume"))
		set_str(&o->resume, p->val);
	else if (!strcmp(k, "resume_offset"))
		set_long(p, 0, __LONG_MAX__, &o->resume_offset, "not a number");
	else if (!strcmp(k, "rd.resume.timeout"))
		set_long(p, 0, 86400, &o->resume_timeout, "not a number of seconds");
	else if (!strcmp(k, "noresume"))
		o->noresume = true;
	else if (!strcmp(k, "quiet"))
		o->quiet = true;
	else if (!strcmp(k, "loglevel"))
		set_long(p, 0, 7, &o->loglevel, "not a log level 0-7");
	else if (!strcmp(k, "rd.debug") || !strcmp(k, "debug"))
		o->debug = true;
	else if (!strcmp(k, "rd.break"))
		set_break(o, p, BRK_PRE_PIVOT);
	else if (!strcmp(k, "break"))
		set_break(o, p, BRK_PRE_MOUNT);
	else if (!strcmp(k, "rd.shell")) {
		set_bool(p, &o->shell);
		o->shell_given = o->shell;
	} else if (!strcmp(k, "rd.emergency"))
		set_emergency(o, p);
	else if (!strcmp(k, "panic"))
		set_long(p, -86400, 86400, &o->panic, "not a number of seconds");
	else if (!strcmp(k, "rd.driver.pre") || !strcmp(k, "earlymodules") ||
		 !strcmp(k, "rd.modules_force_load"))
		add_list(&o->driver_pre, p);
	else if (!strcmp(k, "rd.driver.export"))
		set_export(o, p);
	else if (!strcmp(k, "rd.driver.blacklist") || !strcmp(k, "modprobe.blacklist") ||
		 !strcmp(k, "blacklist"))
		add_list(&o->blacklist, p);
	else if (!strcmp(k, "disablehooks"))
		add_list(&o->disablehooks, p);
	else if (!strcmp(k, "fsck.mode"))
		set_str(&o->fsck_mode, p->val);
	else if (!strcmp(k, "fsck.repair"))
		set_str(&o->fsck_repair, p->val);
	else if (!strcmp(k, "rd.fstab"))
		set_bool(p, &o->fstab);
	else if (!strcmp(k, "rd.skipfsck"))
		set_bool(p, &o->skipfsck);
	else if (!strcmp(k, "rd.vconsole.keymap") || !strcmp(k, "vconsole.keymap"))
		set_str(&o->vconsole_keymap, p->val);
	else if (!strcmp(k, "rd.vconsole.font") || !strcmp(k, "vconsole.font"))
		set_str(&o->vconsole_font, p->val);
	else if (!strcmp(k, "rd.ssh"))
		set_bool(p, &o->ssh);
	else if (!strcmp(k, "splash") || !strcmp(k, "rhgb"))
		o->splash = true;
	else if (!strcmp(k, "plymouth.enable") || !strcmp(k, "rd.plymouth"))
		set_bool(p, &o->plymouth);
	else if (!strcmp(k, "rd.ssh.port"))
		set_long(p, 1, 65535, &o->ssh_port, "not a port number 1-65535");
	else if (warn_unsupported(p) || live_word(o, p))
		;
	else if (strchr(k, '.'))
		add_modparam(o, p);
}

void options_parse(struct options *o, const struct cmdline *c)
{
	long rd_timeout = -2, rd_retry = -2, rootdelay = -2;

	memset(o, 0, sizeof(*o));
	o->loglevel = -1;
	o->shell = true;
	o->fstab = true;
	o->gpt_auto = true;
	o->measure = -1;
	o->ssh = true;
	o->plymouth = true;
	o->ssh_port = 22;
	o->panic = DEFAULT_PANIC_WAIT;
	o->resume_timeout = DEFAULT_RESUME_TIMEOUT;
	for (size_t i = 0; i < c->n; i++)
		one(o, &c->p[i], &rd_timeout, &rd_retry, &rootdelay);

	/* How long to wait for the root: rootwait is forever; otherwise
	 * the first of rd.timeout, rd.retry, rootdelay; 0 is forever. */
	if (rd_timeout == -2)
		rd_timeout = rd_retry;
	if (rd_timeout == -2)
		rd_timeout = rootdelay;
	o->timeout = rd_timeout == -2 ? DEFAULT_ROOT_TIMEOUT : rd_timeout;
	if (o->rootwait || o->timeout == 0)
		o->timeout = -1;
	for (size_t i = 0; i < c->init_args.n; i++)
		strv_push(&o->init_args, c->init_args.v[i]);
	live_fold(o);
	/* a live root is written to, as dracut's live systems are: a tmpfs
	 * above its image unless rd.overlay says otherwise; rd.overlay.crypt=
	 * alone asks for an overlay too, as in dracut */
	if ((o->live || o->overlay_crypt) && !o->overlay)
		o->overlay = xstrdup("");
}

void options_free(struct options *o)
{
	char **strs[] = { &o->root, &o->rootfstype, &o->rootflags, &o->init, &o->resume,
			  &o->fsck_mode, &o->fsck_repair, &o->vconsole_keymap, &o->vconsole_font,
			  &o->usr, &o->usrfstype, &o->usrflags, &o->overlay, &o->overlay_crypt,
			  &o->live_dir, &o->live_squashimg, &o->live_sha256, &o->live_maxsize,
			  &o->live_media, &o->live_media_path, &o->iso_scan, &o->live_fetch,
			  &o->live_toram };
	struct strv *lists[] = { &o->driver_pre, &o->blacklist, &o->modparam_mod,
				 &o->modparam_arg, &o->disablehooks, &o->init_args };

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		strv_free(lists[i]);
	memset(o, 0, sizeof(*o));
}
