// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.overlay (dracut's overlayfs module, TEST-21): the mounted root
 * becomes the read-only lower layer of an overlay whose upper layer is a
 * tmpfs or a device's filesystem (an existing one, a LUKS device made at
 * boot: overlaycrypt.c, a live medium's new partition: autooverlay.c),
 * so a kiosk, a classroom machine or a netbooted node writes without
 * changing its root. The places are
 * dracut's, which live systems and their scripts know: the root below at
 * /run/rootfsbase, a device above at /run/overlayfs-backing, a tmpfs
 * above at /run/initramfs/overlay, /run/overlayfs and /run/ovlwork
 * pointing at the upper and work directories (their places on a
 * device: overlaypersist.c). rd.overlay.readonly puts a device's upper
 * between the root and a tmpfs, as dracut's /run/overlayfs-r. All are
 * under /run, so they move with it through switch_root. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/init.h"
#include "init/stages/overlaypersist.h"
#include "init/stages/overlayspec.h"
#include "init/stages/overlayupper.h"
#include "init/stages/stages.h"
#include "log.h"

#define ROOT_BELOW "/run/rootfsbase"
#define BACKING "/run/overlayfs-backing"
#define TMPFS_UPPER "/run/initramfs/overlay"

static int make_dir(struct init *in, const char *path)
{
	int r = in->ops->mkdir(path, 0755);

	return r < 0 && r != -EEXIST ? err_errno(r, "rd.overlay: cannot create %s", path) : 0;
}

/* dracut's links to the upper and work directories; suffix "-r" for
 * rd.overlay.readonly's layer below. */
static void link_dirs(struct init *in, const char *up, const char *work, const char *suffix)
{
	char *lu = xasprintf("/run/overlayfs%s", suffix), *lw = xasprintf("/run/ovlwork%s", suffix);

	in->ops->unlink(lu);
	in->ops->unlink(lw);
	if (in->ops->symlink(up, lu) < 0 || in->ops->symlink(work, lw) < 0)
		log_warn("rd.overlay: cannot link %s and %s to %s", lu, lw, up);
	free(lu);
	free(lw);
}

/* The tmpfs upper's directories. */
static int tmpfs_dirs(struct init *in, char **up, char **work)
{
	int r;

	*up = xstrdup(TMPFS_UPPER "/overlayfs");
	*work = xstrdup(TMPFS_UPPER "/ovlwork");
	if ((r = make_dir(in, *up)) < 0 || (r = make_dir(in, *work)) < 0)
		return r;
	link_dirs(in, *up, *work, "");
	return 0;
}

/* devnode's filesystem of type on BACKING: 1; else 0, said, and the
 * caller falls back to a tmpfs, as dracut does. what: the option. */
static int mount_backing(struct init *in, const char *what, const char *devnode, const char *type)
{
	/* rd.overlay.readonly: the device is only read */
	unsigned long ro = in->opt.overlay_readonly ? MS_RDONLY : 0;
	int r;

	if ((r = make_dir(in, BACKING)) < 0)
		return r;
	if ((r = in->ops->mount(devnode, BACKING, type, MS_NOATIME | ro, NULL)) < 0) {
		log_warn("%s: cannot mount %s (%s): %s; the upper layer is a tmpfs "
			 "(changes will not persist)", what, devnode, type, strerror(-r));
		return 0;
	}
	log_info("rd.overlay: the upper layer is %s (%s) on " BACKING, devnode, type);
	return 1;
}

/* A device's filesystem, if it is there (or a live medium's partition
 * made now: autooverlay.c) and mounts: 1; else 0, said. */
static int upper_device(struct init *in, const char *spec)
{
	const struct blockdev *bd = registry_match(&in->devs, spec);
	char *what = xasprintf("rd.overlay=%s", spec), *made = NULL;
	int r = 0;

	if (!bd && autooverlay_make(in, spec, &made) == 1)
		r = mount_backing(in, what, made, "ext4");
	else if (!bd)
		log_warn("%s: no such device; the upper layer is a tmpfs "
			 "(changes will not persist)", what);
	else if (!bd->type)
		log_warn("%s: %s has no filesystem; the upper layer is a tmpfs "
			 "(changes will not persist)", what, bd->devnode);
	else
		r = mount_backing(in, what, bd->devnode, bd->type);
	free(made);
	free(what);
	return r;
}

/* The persistent layer's directories on BACKING (overlaypersist.c),
 * emptied first for rd.overlay.reset: 1 and *d; 0 when there is none
 * to use (said: the caller falls back to a tmpfs). */
static int persist_layer(struct init *in, struct persist_dirs *d)
{
	bool ro = in->opt.overlay_readonly;
	int r = overlay_persist_dirs(in, BACKING, !ro, d);

	if (r == 0) {
		log_warn("rd.overlay.readonly: no upper layer on " BACKING " to read; the upper "
			 "layer is a tmpfs");
		return 0;
	}
	if (r < 0) {
		log_warn("%s; the upper layer is a tmpfs (changes will not persist)", err_msg());
		return 0;
	}
	log_info("rd.overlay: %s %s and %s on " BACKING, d->made ? "made" : "found", d->rel_up,
		 d->rel_work);
	if (in->opt.overlay_reset && ro)
		log_warn("rd.overlay.reset: not emptying %s: rd.overlay.readonly", d->up);
	else if (in->opt.overlay_reset && !d->made) {
		if (overlay_persist_reset(in, d) < 0) {
			log_warn("rd.overlay.reset: %s; the upper layer is a tmpfs (changes will not "
				 "persist)", err_msg());
			overlay_persist_free(d);
			return 0;
		}
		log_notice("rd.overlay.reset: emptied %s and %s", d->up, d->work);
	}
	return 1;
}

/* rd.overlay.crypt=: a new LUKS device with an ext4 (overlaycrypt.c) */
static int upper_crypt(struct init *in, const char *spec)
{
	char *what = xasprintf("rd.overlay.crypt=%s", spec), *made = NULL;
	int r = 0;

	if (overlay_crypt_make(in, spec, &made) == 1)
		r = mount_backing(in, what, made, "ext4");
	free(made);
	free(what);
	return r;
}

static int upper_tmpfs(struct init *in, const char *opts)
{
	char *data;
	int r;

	if ((r = make_dir(in, "/run/initramfs")) < 0 || (r = make_dir(in, TMPFS_UPPER)) < 0)
		return r;
	if (!opts) {
		log_info("rd.overlay: the upper layer is a tmpfs (changes will not persist)");
		return 0;
	}
	/* a tmpfs of its own only for a size: else /run's serves */
	data = xasprintf("mode=0755,%s", opts);
	r = in->ops->mount("tmpfs", TMPFS_UPPER, "tmpfs", MS_NOSUID | MS_NODEV, data);
	if (r < 0)
		log_warn("rd.overlay: cannot mount a tmpfs with %s: %s; using /run's", opts,
			 strerror(-r));
	else
		log_info("rd.overlay: the upper layer is a tmpfs with %s (changes will not persist)",
			 opts);
	free(data);
	return 0;
}

int stage_overlay(struct init *in)
{
	struct overlay_spec s;
	struct persist_dirs pd = { 0 };
	struct strv w = { 0 };
	char *up = NULL, *work = NULL, *data = NULL, *lower = NULL, *crypt;
	int r, dev = 0;

	overlay_spec_parse(in->opt.overlay, &s, &w);
	crypt = overlay_crypt_device(in->opt.overlay_crypt, &w);
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	strv_free(&w);
	r = 0;
	if (s.mode == OVERLAY_OFF)
		goto out;
	if (in->ml && (r = modload_name(in->ml, "overlay")) < 0)
		goto out;
	if ((r = make_dir(in, ROOT_BELOW)) < 0)
		goto out;
	if ((r = in->ops->mount("/sysroot", ROOT_BELOW, NULL, MS_MOVE, NULL)) < 0) {
		r = err_errno(r, "rd.overlay: cannot move the root from /sysroot to " ROOT_BELOW);
		goto out;
	}
	if (crypt)
		dev = upper_crypt(in, crypt);
	else if (s.mode == OVERLAY_DEVICE)
		dev = upper_device(in, s.device);
	if (dev > 0)
		dev = persist_layer(in, &pd);
	if (dev < 0) {
		r = dev;
		goto back;
	}
	if (dev && !in->opt.overlay_readonly) {
		up = xstrdup(pd.up);
		work = xstrdup(pd.work);
		link_dirs(in, up, work, "");
		lower = xstrdup(ROOT_BELOW);
	} else if ((r = upper_tmpfs(in, s.tmpfs_opts)) == 0 && (r = tmpfs_dirs(in, &up, &work)) == 0) {
		/* rd.overlay.readonly: the device's layer between the root and
		 * the tmpfs, as dracut's /run/overlayfs-r */
		if (dev) {
			link_dirs(in, pd.up, pd.work, "-r");
			log_info("rd.overlay.readonly: %s is a read-only layer below the tmpfs", pd.up);
		}
		lower = dev ? xasprintf("%s:" ROOT_BELOW, pd.up) : xstrdup(ROOT_BELOW);
	}
	if (r < 0)
		goto back;
	data = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower, up, work);
	if ((r = in->ops->mount("LiveOS_rootfs", "/sysroot", "overlay", 0, data)) < 0) {
		r = err_errno(r, "rd.overlay: cannot mount the overlay on /sysroot (%s)", data);
		goto back;
	}
	log_info("rd.overlay: / is an overlay over the root, writes go to %s", up);
	goto out;
back:
	/* the root as it was, so the failure can still be reported over it */
	if (in->ops->mount(ROOT_BELOW, "/sysroot", NULL, MS_MOVE, NULL) < 0)
		log_warn("rd.overlay: cannot move the root back to /sysroot");
out:
	free(up);
	free(work);
	free(data);
	free(lower);
	free(crypt);
	overlay_persist_free(&pd);
	overlay_spec_free(&s);
	return r;
}
