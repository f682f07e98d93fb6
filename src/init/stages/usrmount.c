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
#include "log.h"

/* fstab escapes space, tab, newline and backslash as \ooo (getmntent). */
static char *unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n;) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			*o++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 4;
		} else {
			*o++ = s[i++];
		}
	}
	*o = '\0';
	return out;
}

/* The next blank-separated field of line at *p, unescaped; NULL at the
 * end of the line. */
static char *field(const char **p)
{
	const char *s = *p + strspn(*p, " \t"), *e;

	if (!*s || *s == '\n')
		return NULL;
	e = s + strcspn(s, " \t\n");
	*p = e;
	return unescape(s, (size_t)(e - s));
}

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

void fstab_entry_free(struct fstab_entry *e)
{
	free(e->spec);
	free(e->file);
	free(e->type);
	free(e->opts);
	memset(e, 0, sizeof(*e));
}

int fstab_find(const char *text, const char *mountpoint, struct fstab_entry *e)
{
	memset(e, 0, sizeof(*e));
	for (const char *line = text; line && *line;) {
		const char *p = line, *next = strchr(line, '\n');
		char *freq, *pass;

		line = next ? next + 1 : NULL;
		p += strspn(p, " \t");
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		e->spec = field(&p);
		e->file = field(&p);
		e->type = field(&p);
		e->opts = field(&p);
		freq = field(&p);
		pass = field(&p);
		e->passno = pass ? atoi(pass) : 0;
		free(freq);
		free(pass);
		if (e->spec && e->file && same_dir(e->file, mountpoint)) {
			if (!e->type)
				e->type = xstrdup("auto");
			if (!e->opts)
				e->opts = xstrdup("defaults");
			return 0;
		}
		fstab_entry_free(e);
	}
	return 1;
}

static bool has_opt(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, word, n))
			return true;
		p += len;
		p += *p == ',';
	}
	return false;
}

int mount_usr_entry(struct init *in, const struct fstab_entry *e)
{
	const struct blockdev *bd = registry_match(&in->devs, e->spec);
	unsigned long flags;
	char *data, *type;
	int r;

	if (!bd)
		return err_set("the /usr device %s (from %s) did not appear "
			       "within %ld seconds", e->spec, e->from, in->opt.timeout);
	type = xstrdup(strcmp(e->type, "auto") ? e->type : bd->type ? bd->type : "");
	if (!*type) {
		free(type);
		return err_set("cannot mount %s on /sysroot/usr: no filesystem found on it",
			       bd->devnode);
	}
	/* fstab's pass number 0 means "never check", as for fsck(8). */
	if (e->passno > 0 && (r = fsck_device(in, bd, type)) < 0) {
		free(type);
		return r;
	}
	mountopts_parse(e->opts, &flags, &data);
	r = in->ops->mount(bd->devnode, "/sysroot/usr", type, flags, data);
	if (r < 0)
		r = err_errno(r, "cannot mount %s (TYPE %s) on /sysroot/usr", bd->devnode, type);
	else
		log_info("mounted %s (%s, %s) on /sysroot/usr", bd->devnode, type,
			 flags & MS_RDONLY ? "ro" : "rw");
	in->fs_mounted = true;
	free(type);
	free(data);
	return r;
}

/* ro or rw as the root's when opts say neither (systemd's fstab-generator
 * does so for mount.usr=). */
static char *with_rw(const char *opts, bool rw)
{
	if (has_opt(opts, "ro") || has_opt(opts, "rw"))
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
	char *path, *text = NULL;
	int r;

	memset(e, 0, sizeof(*e));
	if (in->opt.usr)
		return cmdline_usr(in, e);
	if (!in->opt.fstab)
		return dps_usr(in, e);
	path = in->ops->path("/sysroot/etc/fstab");
	r = read_file(path, &text, NULL);
	free(path);
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
	if (has_opt(e->opts, "noauto")) {
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
