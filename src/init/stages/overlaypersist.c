// SPDX-License-Identifier: GPL-2.0-or-later
/* Where a persistent upper layer lives on its device, as dracut lays it
 * out, so a stick moved between a dracut and a uniramfs machine keeps
 * its changes: dmsquash-live looks for DIR/overlay-LABEL-UUID with
 * DIR/ovlwork beside it (DIR rd.live.dir, LABEL and UUID the live
 * medium's, as blkid gives them), which its autooverlay makes on a new
 * partition; the overlayfs module (rd.overlay=DEVICE over any root)
 * makes overlay and ovlwork at the device's top. The device's content
 * is hostile: every directory is opened below the mount point with
 * O_NOFOLLOW, so a link there cannot send the upper layer, or
 * rd.overlay.reset's removal, into the initramfs or elsewhere. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/overlaypersist.h"
#include "log.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define MAX_DEPTH 256 /* directories below an upper layer's top, for the reset */

bool overlay_persist_name_ok(const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f || strchr("/,:\\", *c))
			return false;
	return true;
}

/* rel's directories below at, one component at a time, made first when
 * make: the last one's fd, or -errno (-ENOENT: one is not there). */
static int walk(int at, const char *rel, bool make)
{
	char *copy = xstrdup(rel), *save = NULL;
	int fd = at, r = 0;

	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int next = -1;

		if (make && mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
			r = -errno;
		else if ((next = openat(fd, c, DIR_FLAGS)) < 0)
			r = -errno;
		if (fd != at)
			close(fd);
		if (r < 0) {
			fd = r;
			break;
		}
		fd = next;
	}
	free(copy);
	return fd;
}

/* Is rel a directory below at (1), absent (0), or refused (-errno, err
 * set)? make: made if absent. */
static int have(int at, const char *top, const char *rel, bool make)
{
	int fd = walk(at, rel, make);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (fd == -ENOENT && !make)
		return 0;
	if (fd == -ENOTDIR || fd == -ELOOP)
		return err_set("rd.overlay: %s/%s is not a directory (a link is never followed)",
			       top, rel);
	return err_errno(fd, "rd.overlay: cannot %s %s/%s", make ? "make" : "open", top, rel);
}

/* dmsquash-live's DIR/overlay-LABEL-UUID for a live root's medium, or
 * NULL (no live root, no medium device, or a name that cannot be one). */
static char *live_upper(struct init *in, char **work)
{
	const struct blockdev *m = root_dev(in);
	const char *dir = in->opt.live_dir ? in->opt.live_dir : "LiveOS";
	const char *label, *uuid;
	bool ok = true;

	if (!in->opt.live || !m)
		return NULL;
	label = m->label ? m->label : "";
	uuid = m->uuid ? m->uuid : "";
	dir += strspn(dir, "/");
	for (const char *c = dir; *c && ok; c += strcspn(c, "/"), c += strspn(c, "/")) {
		size_t n = strcspn(c, "/");
		char *part = xstrndup(c, n);
		ok = strcmp(part, ".") && strcmp(part, "..") && overlay_persist_name_ok(part);
		free(part);
	}
	if (!*dir || !ok || !overlay_persist_name_ok(label) || !overlay_persist_name_ok(uuid)) {
		log_warn("rd.overlay: rd.live.dir \"%s\" or the medium's label \"%s\" or UUID \"%s\" "
			 "cannot name a directory: using overlay and ovlwork", dir, label, uuid);
		return NULL;
	}
	*work = xasprintf("%s/ovlwork", dir);
	return xasprintf("%s/overlay-%s-%s", dir, label, uuid);
}

static void take(struct persist_dirs *d, const char *top, char *up, char *work, bool made)
{
	d->top = top;
	d->rel_up = up;
	d->rel_work = work;
	d->up = xasprintf("%s/%s", top, up);
	d->work = xasprintf("%s/%s", top, work);
	d->made = made;
}

int overlay_persist_dirs(struct init *in, const char *top, bool make, struct persist_dirs *d)
{
	char *lwork = NULL, *lup = live_upper(in, &lwork);
	int fd = in->ops->open(top, DIR_FLAGS, 0), r;

	memset(d, 0, sizeof(*d));
	if (fd < 0) {
		r = err_errno(fd, "rd.overlay: cannot open %s", top);
		goto out;
	}
	/* found: dracut's live layout first (what dmsquash-live reads),
	 * then the overlayfs module's (and uniramfs's before this) */
	if (lup && (r = have(fd, top, lup, false)) != 0) {
		if (r > 0 && (r = have(fd, top, lwork, make)) > 0) {
			take(d, top, lup, lwork, false);
			lup = lwork = NULL;
		}
		goto out;
	}
	if ((r = have(fd, top, "overlay", false)) != 0) {
		if (r > 0 && (r = have(fd, top, "ovlwork", make)) > 0)
			take(d, top, xstrdup("overlay"), xstrdup("ovlwork"), false);
		goto out;
	}
	r = 0;
	if (!make)
		goto out;
	/* made: the layout dracut would look for on this device */
	if (lup) {
		if ((r = have(fd, top, lup, true)) > 0 && (r = have(fd, top, lwork, true)) > 0) {
			take(d, top, lup, lwork, true);
			lup = lwork = NULL;
		}
	} else if ((r = have(fd, top, "overlay", true)) > 0 &&
		   (r = have(fd, top, "ovlwork", true)) > 0)
		take(d, top, xstrdup("overlay"), xstrdup("ovlwork"), true);
out:
	if (fd >= 0)
		close(fd);
	free(lup);
	free(lwork);
	return r;
}

void overlay_persist_free(struct persist_dirs *d)
{
	free(d->rel_up);
	free(d->rel_work);
	free(d->up);
	free(d->work);
	memset(d, 0, sizeof(*d));
}

static int empty_dir(int dfd, dev_t dev, const char *what, int depth);

static int remove_entry(int dfd, const char *name, dev_t dev, const char *what, int depth)
{
	struct stat st;
	int sub, r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno(-errno, "cannot read %s in %s", name, what);
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) < 0 ? err_errno(-errno, "cannot remove %s in %s", name,
							      what) : 0;
	if (st.st_dev != dev)
		return err_set("%s in %s is another filesystem's mount point", name, what);
	if (depth >= MAX_DEPTH)
		return err_set("%s holds directories more than %d deep", what, MAX_DEPTH);
	if ((sub = openat(dfd, name, DIR_FLAGS)) < 0)
		return err_errno(-errno, "cannot open %s in %s", name, what);
	r = empty_dir(sub, dev, what, depth + 1);
	close(sub);
	if (r == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		r = err_errno(-errno, "cannot remove %s in %s", name, what);
	return r;
}

/* Everything in dfd; passes until one removes nothing, as readdir may
 * skip entries of a directory that changes under it. */
static int empty_dir(int dfd, dev_t dev, const char *what, int depth)
{
	int fd = dup(dfd), r = 0;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	bool removed = true;

	if (!dir) {
		r = err_errno(-errno, "cannot read %s", what);
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (removed && r == 0) {
		struct dirent *e;

		removed = false;
		rewinddir(dir);
		while (r == 0 && (e = readdir(dir))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			r = remove_entry(dfd, e->d_name, dev, what, depth);
			removed = true;
		}
	}
	closedir(dir);
	return r;
}

int overlay_persist_reset(struct init *in, const struct persist_dirs *d)
{
	const char *rel[] = { d->rel_up, d->rel_work };
	int top = in->ops->open(d->top, DIR_FLAGS, 0), r = 0;
	struct stat st;

	if (top < 0)
		return err_errno(top, "cannot open %s", d->top);
	for (size_t i = 0; i < 2 && r == 0; i++) {
		char *what = xasprintf("%s/%s", d->top, rel[i]);
		int fd = walk(top, rel[i], false);

		if (fd < 0)
			r = err_errno(fd, "cannot open %s", what);
		else if (fstat(fd, &st) < 0)
			r = err_errno(-errno, "cannot read %s", what);
		else
			r = empty_dir(fd, st.st_dev, what, 0);
		if (fd >= 0)
			close(fd);
		free(what);
	}
	close(top);
	return r;
}
