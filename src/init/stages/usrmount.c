// SPDX-License-Identifier: GPL-2.0-or-later
/* A separate /usr: systemd requires the initrd to mount it (it runs from
 * /usr), so when mount.usr= or the root's /etc/fstab names one, or root
 * discovery finds a usr partition beside the root, it is mounted on
 * /sysroot/usr before switch_root, its device waited for and checked as
 * the root's was. rd.fstab=0 turns the fstab's off, as in dracut. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/mountopts.h"
#include "init/stages/stages.h"
#include "init/stages/xinitrd.h"
#include "log.h"

/* "/usr/" and "/usr" are the same mount point. */
static bool same_dir(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	while (na > 1 && a[na - 1] == '/')
		na--;
	while (nb > 1 && b[nb - 1] == '/')
		nb--;
	return na == nb && !strncmp(a, b, na);
}

int fstab_find(const char *text, const char *mountpoint, struct fstab_entry *e)
{
	struct fstab t;
	int r = 1;

	memset(e, 0, sizeof(*e));
	fstab_parse(text, strlen(text), "fstab", &t); /* stage_xinitrd says the warnings */
	for (size_t i = 0; r && i < t.n; i++) {
		if (same_dir(t.v[i].file, mountpoint)) {
			*e = t.v[i];
			memset(&t.v[i], 0, sizeof(t.v[i]));
			r = 0;
		}
	}
	fstab_free(&t);
	return r;
}

int mount_fstab_entry(struct init *in, const struct fstab_entry *e)
{
	const struct blockdev *bd = registry_match(&in->devs, e->spec);
	size_t n = strlen(e->file);
	unsigned long flags;
	char *data, *type, *target;
	int r;

	while (n > 1 && e->file[n - 1] == '/')
		n--;
	if (!bd)
		return err_set("the %.*s device %s (from %s) did not appear within %ld seconds",
			       (int)n, e->file, e->spec, e->from, in->opt.timeout);
	target = xasprintf("/sysroot%.*s", (int)n, e->file);
	type = xstrdup(strcmp(e->type, "auto") ? e->type : bd->type ? bd->type : "");
	if (!*type) {
		r = err_set("cannot mount %s on %s: no filesystem found on it", bd->devnode, target);
		goto out;
	}
	/* fstab's pass number 0 means "never check", as for fsck(8); the
	 * root's own device (a btrfs subvolume, a second mount of it) is
	 * mounted already and was checked before. */
	if (e->passno > 0 && !(in->root && !strcmp(in->root, bd->name)) &&
	    (r = fsck_device(in, bd, type)) < 0)
		goto out;
	modload_fs(in->ml, type);
	mountopts_parse(e->opts, &flags, &data);
	r = in->ops->mount(bd->devnode, target, type, flags, data);
	if (r < 0)
		r = err_errno(r, "cannot mount %s (TYPE %s) on %s", bd->devnode, type, target);
	else
		log_info("mounted %s (%s, %s) on %s", bd->devnode, type,
			 flags & MS_RDONLY ? "ro" : "rw", target);
	in->fs_mounted = true;
	free(data);
out:
	free(type);
	free(target);
	return r;
}

/* ro or rw as the root's when opts say neither (systemd's fstab-generator
 * does so for mount.usr=). */
static char *with_rw(const char *opts, bool rw)
{
	if (fstab_has_opt(opts, "ro") || fstab_has_opt(opts, "rw"))
		return xstrdup(opts);
	return xasprintf("%s%s%s", opts, *opts ? "," : "", rw ? "rw" : "ro");
}

/* mount.usr=, with mount.usrfstype= and mount.usrflags=. */
static int cmdline_usr(struct init *in, struct fstab_entry *e)
{
	const struct options *o = &in->opt;

	if (!blockdev_spec_valid(o->usr))
		return err_set("mount.usr=%s: not a device uniramfs understands", o->usr);
	e->spec = xstrdup(o->usr);
	e->file = xstrdup("/usr");
	e->type = xstrdup(o->usrfstype ? o->usrfstype : "auto");
	e->opts = with_rw(o->usrflags ? o->usrflags : "", o->rw);
	e->passno = 1;
	e->from = "mount.usr=";
	return 1;
}

/* Root discovery's usr partition on the root's disk. */
static int dps_usr(struct init *in, struct fstab_entry *e)
{
	bool ro = false;
	char *spec = in->dps_disk ? gptroot_usr(in, &ro) : NULL;

	if (!spec)
		return 0;
	e->spec = spec;
	e->file = xstrdup("/usr");
	e->type = xstrdup("auto");
	e->opts = xstrdup(ro || !in->opt.rw ? "ro" : "rw");
	e->passno = 1;
	e->from = "the usr partition type";
	return 1;
}

int usr_entry(struct init *in, struct fstab_entry *e)
{
	char *text = NULL;
	size_t len;
	int r;

	memset(e, 0, sizeof(*e));
	if (in->opt.usr)
		return cmdline_usr(in, e);
	if (!in->opt.fstab)
		return dps_usr(in, e);
	r = fstab_read(in->ops, "/sysroot", &text, &len);
	if (r < 0) {
		if (r != -ENOENT)
			log_warn("cannot read /sysroot/etc/fstab: %s", strerror(-r));
		return dps_usr(in, e);
	}
	r = fstab_find(text, "/usr", e);
	free(text);
	if (r > 0)
		return dps_usr(in, e);
	e->from = "/sysroot/etc/fstab";
	if (fstab_has_opt(e->opts, "noauto")) {
		log_info("/usr (%s) is noauto in /sysroot/etc/fstab, not mounting it", e->spec);
		fstab_entry_free(e);
		return 0;
	}
	if (!blockdev_spec_valid(e->spec)) {
		r = err_set("/usr is %s in /sysroot/etc/fstab: not a device uniramfs understands",
			    e->spec);
		fstab_entry_free(e);
		return r;
	}
	return 1;
}
