// SPDX-License-Identifier: GPL-2.0-or-later
/* Which block device a name stands for, for hostonly detection: the root
 * and /usr mounts of /proc/self/mountinfo, the swap of /proc/swaps and
 * /sys/power/resume, and /dev/NAME, /dev/mapper/NAME or a udev link, each
 * to "MAJ:MIN" by sysfs alone (the sysroot's /dev is not a devtmpfs in
 * tests and may not be one on the host either: containers, chroots). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/hostonly/hostonly_priv.h"
#include "log.h"

/* mountinfo and /proc/swaps escape space, tab, newline and backslash as
 * \ooo octal. */
static void unescape_octal(char *s)
{
	char *o = s;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

static void mount_set(struct mount *m, const char *majmin, const char *fstype, const char *source,
		      const char *opts)
{
	hostonly_mount_free(m);
	m->majmin = xstrdup(majmin);
	m->fstype = xstrdup(fstype);
	m->source = xstrdup(source);
	m->opts = xstrdup(opts ? opts : "");
}

void hostonly_mount_free(struct mount *m)
{
	free(m->majmin);
	free(m->fstype);
	free(m->source);
	free(m->opts);
	memset(m, 0, sizeof(*m));
}

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS". */
int hostonly_each_mount(const struct ctx *c, hostonly_mount_fn fn, void *arg)
{
	char *path = at_root(c, "/proc/self/mountinfo");
	char *data, *line, *next;
	int r = read_file(path, &data, NULL);

	if (r < 0) {
		err_errno(r, "cannot read %s", path);
		free(path);
		return err_code();
	}
	for (line = data; r == 0 && line && *line; line = next) {
		char *f[6], *fstype, *source, *opts, *p = line;
		struct mount m;
		size_t i;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		for (i = 0; i < ARRAY_SIZE(f) && p; i++)
			f[i] = strsep(&p, " ");
		while (p && strcmp(strsep(&p, " "), "-") != 0)
			;
		fstype = p ? strsep(&p, " ") : NULL;
		source = p ? strsep(&p, " ") : NULL;
		opts = p ? strsep(&p, " ") : NULL;
		/* the type names the module packed (fs-TYPE): one word, no path */
		if (i < ARRAY_SIZE(f) || !fstype || !*fstype || strpbrk(fstype, "/\t") || !source) {
			if (*line)
				log_warn("%s: skipping malformed line", path);
			continue;
		}
		unescape_octal(f[4]);
		unescape_octal(source);
		m = (struct mount){ .majmin = f[2], .fstype = fstype, .source = source,
				    .opts = opts ? opts : "" };
		r = fn(c, f[4], &m, arg);
	}
	free(data);
	free(path);
	return r;
}

struct root_usr {
	struct mount *root, *usr;
};

/* Later lines win: a mount stacked on / hides the one below it. */
static int root_usr(const struct ctx *c, const char *target, const struct mount *m, void *arg)
{
	struct root_usr *ru = arg;

	(void)c;
	if (strcmp(target, "/") == 0)
		mount_set(ru->root, m->majmin, m->fstype, m->source, m->opts);
	else if (strcmp(target, "/usr") == 0)
		mount_set(ru->usr, m->majmin, m->fstype, m->source, m->opts);
	return 0;
}

int hostonly_parse_mountinfo(const struct ctx *c, struct mount *root, struct mount *usr)
{
	struct root_usr ru = { root, usr };
	int r = hostonly_each_mount(c, root_usr, &ru);

	if (r == 0 && !root->majmin) {
		char *path = at_root(c, "/proc/self/mountinfo");

		r = err_set("no mount of \"/\" in %s", path);
		free(path);
	}
	return r;
}

/* /dev/NAME (or /dev/mapper/NAME, /dev/VG/LV...) of a mount or swap →
 * "MAJ:MIN", by sysfs alone: the sysroot's /dev is not a devtmpfs in tests
 * and may not be one on the host either (containers, chroots). */
static int find_dm_by_name(const struct ctx *c, const char *dmname, char **name)
{
	char *dirpath = at_root(c, "/sys/class/block");
	DIR *d = opendir(dirpath);
	struct dirent *de;

	if (!d) {
		err_errno(errno, "cannot open %s", dirpath);
		free(dirpath);
		return err_code();
	}
	while ((de = readdir(d))) {
		char *p, *line;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s/dm/name", dirpath, de->d_name);
		if (read_line(p, &line) == 0) {
			bool match = strcmp(line, dmname) == 0;
			free(line);
			if (match) {
				*name = xstrdup(de->d_name);
				free(p);
				break;
			}
		}
		free(p);
	}
	closedir(d);
	if (!de) {
		err_set("no device-mapper device named \"%s\" in %s", dmname, dirpath);
		free(dirpath);
		return err_code();
	}
	free(dirpath);
	return 0;
}

int hostonly_devnode_majmin(const struct ctx *c, const char *devnode, char **majmin)
{
	const char *rel = devnode + strlen("/dev/");
	char *name = NULL, *path;
	int r;

	if (!str_has_prefix(devnode, "/dev/") || !*rel)
		return err_set("%s is not a device node", devnode);
	if (str_has_prefix(rel, "mapper/")) {
		if (find_dm_by_name(c, rel + strlen("mapper/"), &name) < 0)
			return err_code();
	} else if (strchr(rel, '/')) {
		/* /dev/VG/LV, /dev/md/NAME, /dev/disk/by-*: udev symlinks in
		 * the sysroot's /dev are the only record of these names. */
		char *link = at_root(c, devnode), *real = NULL;
		r = hostonly_resolve_link(c, link, &real);
		if (r > 0)
			r = err_set("cannot find block device %s: no %s", devnode, link);
		free(link);
		if (r < 0)
			return r;
		name = xstrdup(strrchr(real, '/') + 1);
		free(real);
	} else {
		name = xstrdup(rel);
	}
	path = xasprintf("%s/sys/class/block/%s/dev", c->root, name);
	free(name);
	r = read_line(path, majmin);
	if (r < 0)
		err_errno(r, "cannot find block device %s: %s", devnode, path);
	free(path);
	return r < 0 ? -1 : 0;
}

/* A mount's device: btrfs (and other multi-device filesystems) report an
 * anonymous 0:N, the device is then the one named as the source. */
int hostonly_mount_device(const struct ctx *c, const struct mount *m, const char *what, char **majmin)
{
	if (!str_has_prefix(m->majmin, "0:")) {
		*majmin = xstrdup(m->majmin);
		return 0;
	}
	if (!str_has_prefix(m->source, "/dev/"))
		return err_set("%s is %s on \"%s\", not on a block device", what, m->fstype,
			       m->source);
	if (hostonly_devnode_majmin(c, m->source, majmin) < 0)
		return err_wrap("%s (%s)", what, m->fstype);
	return 0;
}

/* The kernel's configured resume device wins; else the first swap
 * partition, the one a hibernation would most likely have used. */
int hostonly_find_resume(const struct ctx *c, char **majmin)
{
	char *path = at_root(c, "/sys/power/resume"), *data, *line, *next;
	int r;

	*majmin = NULL;
	r = read_line(path, &line);
	free(path);
	if (r == 0 && *line && strcmp(line, "0:0") != 0) {
		*majmin = line;
		return 0;
	}
	if (r == 0)
		free(line);

	path = at_root(c, "/proc/swaps");
	r = read_file(path, &data, NULL);
	free(path);
	if (r < 0)
		return 0;
	/* "Filename Type Size Used Priority", a header line first. */
	line = strchr(data, '\n');
	for (line = line ? line + 1 : NULL; line && *line; line = next) {
		char *p = line, *file, *type;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		file = strsep(&p, " \t");
		while (p && *p && strchr(" \t", *p))
			p++;
		type = p ? strsep(&p, " \t") : NULL;
		if (!type || strcmp(type, "partition") != 0)
			continue;
		unescape_octal(file);
		/* Compressed RAM swap forgets its contents at power off. */
		if (str_has_prefix(file, "/dev/zram"))
			continue;
		r = hostonly_devnode_majmin(c, file, majmin);
		break;
	}
	free(data);
	return r < 0 ? -1 : 0;
}
