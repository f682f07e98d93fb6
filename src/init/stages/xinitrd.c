// SPDX-License-Identifier: GPL-2.0-or-later
/* The root's fstab entries with x-initrd.mount: systemd's initrd mounts
 * them below /sysroot before switch_root (fstab-generator makes each a
 * sysroot-*.mount required by initrd-fs.target), so the root's systemd
 * finds them mounted. /usr is usrmount.c's, mounted with or without the
 * option (systemd's rule). Each device is waited for and checked as the
 * root's was; a failure stops the boot naming the line, unless the line
 * says nofail. */
#include "init/stages/xinitrd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/mountopts.h"
#include "log.h"

#define FSTAB "/sysroot/etc/fstab"

static size_t depth(const char *p)
{
	size_t n = 0;

	for (; *p; p++)
		n += p[0] == '/' && p[1] && p[1] != '/';
	return n;
}

/* "/", "/usr" (usrmount.c's), swap and "none" are not ours. */
static bool is_root_or_usr(const char *file)
{
	size_t n = strlen(file);

	while (n > 1 && file[n - 1] == '/')
		n--;
	return (n == 1 && file[0] == '/') || (n == 4 && !strncmp(file, "/usr", 4));
}

/* The entries to mount, parents first (a stable sort by depth keeps the
 * fstab's order otherwise). */
static void select_entries(struct fstab *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct fstab_entry *e = &t->v[i];
		bool take = fstab_has_opt(e->opts, "x-initrd.mount") && e->file[0] == '/' &&
			    !is_root_or_usr(e->file) && strcmp(e->type, "swap");

		if (take && fstab_has_opt(e->opts, "noauto")) {
			log_info("%s line %d: %s is noauto, not mounting it", FSTAB, e->lineno,
				 e->file);
			take = false;
		}
		if (take)
			t->v[k++] = *e;
		else
			fstab_entry_free(e);
	}
	t->n = k;
	for (size_t i = 1; i < t->n; i++)
		for (size_t j = i; j > 0 && depth(t->v[j - 1].file) > depth(t->v[j].file); j--) {
			struct fstab_entry x = t->v[j];
			t->v[j] = t->v[j - 1];
			t->v[j - 1] = x;
		}
}

/* The mount point below /sysroot, made if missing; no component may be
 * a link, which mount(2) would follow in the initramfs's tree. */
static int make_target(struct init *in, const struct fstab_entry *e, char **target)
{
	struct buf p = { 0 };
	int r = 0;

	if (path_has_dotdot(e->file))
		return err_set("the mount point %s has a \"..\" in it", e->file);
	buf_printf(&p, "/sysroot");
	for (const char *s = e->file; *s && r == 0;) {
		size_t n;
		char *real;
		struct stat st;

		s += strspn(s, "/");
		if (!(n = strcspn(s, "/")))
			break;
		buf_printf(&p, "/%.*s", (int)n, s);
		s += n;
		real = in->ops->path(p.p);
		if (lstat(real, &st) == 0 && S_ISLNK(st.st_mode))
			r = err_set("%s is a symbolic link in the root: not mounting over it", p.p);
		else if (lstat(real, &st) < 0 && (r = in->ops->mkdir(p.p, 0755)) < 0 &&
			 r != -EEXIST)
			r = err_errno(r, "cannot create %s", p.p);
		else
			r = 0;
		free(real);
	}
	if (r < 0)
		buf_free(&p);
	else
		*target = p.p;
	return r;
}

/* A filesystem with no device (tmpfs, ramfs): a source that is no path
 * and no server, with its type given. */
static bool virtual_fs(const struct fstab_entry *e)
{
	return strcmp(e->type, "auto") && !strchr(e->spec, '/') && !strchr(e->spec, ':') &&
	       !strchr(e->spec, '=');
}

static int mount_virtual(struct init *in, const struct fstab_entry *e, const char *target)
{
	unsigned long flags;
	char *data;
	int r;

	mountopts_parse(e->opts, &flags, &data);
	r = in->ops->mount(e->spec, target, e->type, flags, data);
	free(data);
	if (r < 0)
		return err_errno(r, "cannot mount %s (TYPE %s) on %s", e->spec, e->type, target);
	log_info("mounted %s (%s) on %s", e->spec, e->type, target);
	return 0;
}

static bool spec_there(const struct init *in, const char *spec)
{
	return registry_match(&in->devs, spec) != NULL;
}

bool xinitrd_wait_for(const struct init *in, const struct fstab_entry *e)
{
	/* nofail: systemd's initrd does not wait for it either */
	return !virtual_fs(e) && blockdev_spec_valid(e->spec) && !path_has_dotdot(e->file) &&
	       !spec_there(in, e->spec) && !fstab_has_opt(e->opts, "nofail");
}

/* 0, or < 0 with err set to what went wrong (the caller names the line). */
static int mount_one(struct init *in, const struct fstab_entry *e)
{
	char *target = NULL;
	int r;

	if (!virtual_fs(e) && !blockdev_spec_valid(e->spec))
		return err_set("%s is not a device uniramfs understands", e->spec);
	if (!virtual_fs(e) && !spec_there(in, e->spec) && fstab_has_opt(e->opts, "nofail")) {
		log_info(FSTAB " line %d: %s is not there and the line says nofail: "
			 "not mounting %s", e->lineno, e->spec, e->file);
		return 0;
	}
	if ((r = make_target(in, e, &target)) < 0)
		return r;
	r = virtual_fs(e) ? mount_virtual(in, e, target) : mount_fstab_entry(in, e);
	free(target);
	return r;
}

int xinitrd_mount(struct init *in, const struct fstab_entry *e)
{
	char *why;
	int r;

	if ((r = mount_one(in, e)) == 0)
		return 0;
	why = xstrdup(err_msg());
	if (fstab_has_opt(e->opts, "nofail")) {
		log_warn("%s; going on without %s (" FSTAB " line %d says nofail)", why, e->file,
			 e->lineno);
		r = 0;
	} else {
		r = err_set_code(r, "%s; the root's " FSTAB " line %d: \"%s\" asks for it in the "
				 "initramfs (x-initrd.mount)", why, e->lineno, e->line);
	}
	free(why);
	return r;
}

void xinitrd_entries(struct init *in, struct fstab *t)
{
	char *text = NULL;
	size_t len;
	int r;

	memset(t, 0, sizeof(*t));
	if (!in->opt.fstab)
		return;
	if ((r = fstab_read(in->ops, "/sysroot", &text, &len)) < 0) {
		if (r != -ENOENT)
			log_warn("cannot read " FSTAB ": %s; not mounting its x-initrd.mount entries",
				 strerror(-r));
		return;
	}
	fstab_parse(text, len, FSTAB, t);
	free(text);
	if (!in->xinitrd_done)
		for (size_t i = 0; i < t->warnings.n; i++)
			log_warn("%s", t->warnings.v[i]);
	select_entries(t);
}
