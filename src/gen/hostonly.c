// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostonly detection: what this machine needs to reach its root, /usr and
 * resume devices. Everything is read through the sysroot prefix so a fake
 * /proc + /sys tree stands in for the host in tests.
 *
 * From the root mount (/proc/self/mountinfo) we go to the block device in
 * /sys/dev/block/MAJ:MIN, follow device-mapper and md layers down through
 * their slaves/, and from each leaf disk walk up the /sys/devices path,
 * collecting the driver modules and modalias strings of every device on
 * the way (disk, controller, bus bridges).
 */
#include "hostonly.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "log.h"

/* dm on dm on md on partition: more than this is a loop, not a stack. */
#define MAX_DEPTH 16

struct ctx {
	char *root; /* real path of the sysroot, no trailing '/' ("" for "/") */
	struct hostonly *h;
};

struct mount {
	char *majmin;
	char *fstype;
	char *source;
};

static void push_uniq(struct strv *s, const char *str)
{
	if (!strv_contains(s, str))
		strv_push(s, str);
}

static char *at_root(const struct ctx *c, const char *path)
{
	return xasprintf("%s%s", c->root, path);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

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

static void mount_set(struct mount *m, const char *majmin, const char *fstype, const char *source)
{
	free(m->majmin);
	free(m->fstype);
	free(m->source);
	m->majmin = xstrdup(majmin);
	m->fstype = xstrdup(fstype);
	m->source = xstrdup(source);
}

static void mount_free(struct mount *m)
{
	free(m->majmin);
	free(m->fstype);
	free(m->source);
	memset(m, 0, sizeof(*m));
}

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS".
 * Later lines win: a mount stacked on / hides the one below it. */
static int parse_mountinfo(const struct ctx *c, struct mount *root, struct mount *usr)
{
	char *path = at_root(c, "/proc/self/mountinfo");
	char *data, *line, *next;
	int r = read_file(path, &data, NULL);

	if (r < 0) {
		err_errno(r, "cannot read %s", path);
		free(path);
		return -1;
	}
	for (line = data; line && *line; line = next) {
		char *f[6], *fstype, *source, *p = line;
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
		if (i < ARRAY_SIZE(f) || !fstype || !source) {
			if (*line)
				log_warn("%s: skipping malformed line", path);
			continue;
		}
		unescape_octal(f[4]);
		unescape_octal(source);
		if (strcmp(f[4], "/") == 0)
			mount_set(root, f[2], fstype, source);
		else if (strcmp(f[4], "/usr") == 0)
			mount_set(usr, f[2], fstype, source);
	}
	free(data);
	if (!root->majmin) {
		err_set("no mount of \"/\" in %s", path);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* The real path of a sysfs link, which must stay inside the sysroot.
 * Returns 0, or 1 when there is no such file (callers decide whether that
 * matters), or -1: a link pointing nowhere is an error. */
static int resolve_link(const struct ctx *c, const char *path, char **out)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 1;
		return err_errno(errno, "cannot read %s", path);
	}
	real = realpath(path, NULL);
	if (!real) {
		if (errno == ENOENT && S_ISLNK(st.st_mode))
			return err_set("%s: dangling symlink", path);
		return err_errno(errno, "cannot resolve %s", path);
	}
	if (*c->root && !str_has_prefix(real, c->root)) {
		err_set("%s: points outside the sysroot, to %s", path, real);
		free(real);
		return -1;
	}
	*out = real;
	return 0;
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
		return -1;
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
		return -1;
	}
	free(dirpath);
	return 0;
}

static int devnode_to_majmin(const struct ctx *c, const char *devnode, char **majmin)
{
	const char *rel = devnode + strlen("/dev/");
	char *name = NULL, *path;
	int r;

	if (!str_has_prefix(devnode, "/dev/") || !*rel)
		return err_set("%s is not a device node", devnode);
	if (str_has_prefix(rel, "mapper/")) {
		if (find_dm_by_name(c, rel + strlen("mapper/"), &name) < 0)
			return -1;
	} else if (strchr(rel, '/')) {
		/* /dev/VG/LV, /dev/md/NAME, /dev/disk/by-*: udev symlinks in
		 * the sysroot's /dev are the only record of these names. */
		char *link = at_root(c, devnode), *real = NULL;
		r = resolve_link(c, link, &real);
		if (r > 0)
			err_set("cannot find block device %s: no %s", devnode, link);
		free(link);
		if (r != 0)
			return -1;
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
static int mount_device(const struct ctx *c, const struct mount *m, const char *what,
			char **majmin)
{
	if (!str_has_prefix(m->majmin, "0:")) {
		*majmin = xstrdup(m->majmin);
		return 0;
	}
	if (!str_has_prefix(m->source, "/dev/"))
		return err_set("%s is %s on \"%s\", not on a block device", what, m->fstype,
			       m->source);
	if (devnode_to_majmin(c, m->source, majmin) < 0)
		return err_wrap("%s (%s)", what, m->fstype);
	return 0;
}

/* One device on the way up: its driver's module (built-in drivers have no
 * module link, so nothing to pack) and its modalias. */
static int check_device_level(const struct ctx *c, const char *dir)
{
	char *path = xasprintf("%s/driver", dir), *line, *real = NULL;
	int r = resolve_link(c, path, &real);

	free(path);
	if (r < 0)
		return -1;
	if (r == 0) {
		char target[PATH_MAX];
		char *modlink = xasprintf("%s/module", real);
		ssize_t n = readlink(modlink, target, sizeof(target) - 1);

		if (n > 0) {
			const char *slash;
			target[n] = '\0';
			slash = strrchr(target, '/');
			push_uniq(&c->h->modules, slash ? slash + 1 : target);
		}
		free(modlink);
		free(real);
	}
	path = xasprintf("%s/modalias", dir);
	if (read_line(path, &line) == 0) {
		if (*line)
			push_uniq(&c->h->modaliases, line);
		free(line);
	}
	free(path);
	return 0;
}

/* From a device directory up to /sys/devices: the disk's own driver (sd,
 * virtio_blk, nvme), then its controller and every bus above it. */
static int walk_up(const struct ctx *c, const char *dir)
{
	char *top = xasprintf("%s/sys/devices", c->root);
	char *p = xstrdup(dir);
	size_t toplen = strlen(top);
	int r = 0;

	while (strlen(p) > toplen && str_has_prefix(p, top) && p[toplen] == '/') {
		r = check_device_level(c, p);
		if (r < 0)
			break;
		*strrchr(p, '/') = '\0';
	}
	free(p);
	free(top);
	return r;
}

/*
 * What a device-mapper layer is, from the uuid its creator gave it
 * (cryptsetup: CRYPT-TYPE-..., lvm2: LVM-<vg><lv>[-layer], multipath:
 * mpath-...). The table is not in sysfs, so LVM's targets beyond linear
 * are guessed from the names lvm2 gives its hidden sub-volumes.
 */
static void dm_layer(const struct ctx *c, const char *disk)
{
	static const struct {
		const char *name_part, *module;
	} lvm_subvols[] = {
		{ "_rimage_", "dm_raid" }, { "_rmeta_", "dm_raid" },
		{ "_mimage_", "dm_mirror" },
		{ "_cdata", "dm_cache" }, { "_cmeta", "dm_cache" }, { "_corig", "dm_cache" },
		{ "_tdata", "dm_thin_pool" }, { "_tmeta", "dm_thin_pool" },
	};
	struct hostonly *h = c->h;
	char *uuid = read_attr(disk, "dm/uuid");
	char *name = read_attr(disk, "dm/name");

	push_uniq(&h->modules, "dm_mod");
	if (!uuid)
		goto out;
	if (str_has_prefix(uuid, "CRYPT-VERITY-")) {
		push_uniq(&h->stack, "dm-verity");
		push_uniq(&h->modules, "dm_verity");
	} else if (str_has_prefix(uuid, "CRYPT-INTEGRITY-") ||
		   str_has_prefix(uuid, "CRYPT-SUBDEV-")) {
		push_uniq(&h->stack, "dm-integrity");
		push_uniq(&h->modules, "dm_integrity");
	} else if (str_has_prefix(uuid, "CRYPT-")) {
		push_uniq(&h->stack, "dm-crypt");
		push_uniq(&h->modules, "dm_crypt");
	} else if (str_has_prefix(uuid, "LVM-")) {
		push_uniq(&h->stack, "lvm");
		if (str_has_suffix(uuid, "-tpool") || str_has_suffix(uuid, "-pool"))
			push_uniq(&h->modules, "dm_thin_pool");
		if (str_has_suffix(uuid, "-real") || str_has_suffix(uuid, "-cow"))
			push_uniq(&h->modules, "dm_snapshot");
		for (size_t i = 0; name && i < ARRAY_SIZE(lvm_subvols); i++)
			if (strstr(name, lvm_subvols[i].name_part))
				push_uniq(&h->modules, lvm_subvols[i].module);
	} else if (str_has_prefix(uuid, "mpath-")) {
		push_uniq(&h->stack, "multipath");
		push_uniq(&h->modules, "dm_multipath");
	}
out:
	free(uuid);
	free(name);
}

static void md_layer(const struct ctx *c, const char *disk)
{
	static const char *const plain[] = { "raid0", "raid1", "raid10", "linear", "multipath" };
	struct hostonly *h = c->h;
	char *level = read_attr(disk, "md/level");

	push_uniq(&h->stack, "md");
	push_uniq(&h->modules, "md_mod");
	if (!level)
		return;
	if (!strcmp(level, "raid4") || !strcmp(level, "raid5") || !strcmp(level, "raid6"))
		push_uniq(&h->modules, "raid456");
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (!strcmp(level, plain[i]))
			push_uniq(&h->modules, level);
	free(level);
}

static int walk_block(const struct ctx *c, const char *dir, int depth);

/* Byte order, not the locale's: results must not depend on LANG. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int walk_slaves(const struct ctx *c, const char *disk, int depth)
{
	char *dirpath = xasprintf("%s/slaves", disk);
	struct dirent **ents = NULL;
	int n = scandir(dirpath, &ents, NULL, by_name), r = 0;

	for (int i = 0; i < n; i++) {
		if (r == 0 && ents[i]->d_name[0] != '.') {
			char *link = xasprintf("%s/%s", dirpath, ents[i]->d_name), *real = NULL;
			/* slaves/ lists only what exists: absent is odd but harmless */
			r = resolve_link(c, link, &real);
			if (r > 0)
				r = 0;
			else if (r == 0)
				r = walk_block(c, real, depth + 1);
			free(real);
			free(link);
		}
		free(ents[i]);
	}
	free(ents);
	free(dirpath);
	return r;
}

/*
 * A multipath-capable NVMe namespace (CONFIG_NVME_MULTIPATH) is a disk of
 * the virtual nvme-subsystem device, not of a controller; the subsystem
 * links to its controllers by name ("nvme0" -> .../nvme/nvme0), and their
 * drivers are the ones we need.
 */
static int walk_nvme_subsystem(const struct ctx *c, const char *disk)
{
	char *top = xasprintf("%s/sys/devices/virtual/nvme-subsystem/", c->root);
	char *subsys = xstrdup(disk), *link, *real;
	struct dirent **ents = NULL;
	int n = 0, r = 0;

	if (!str_has_prefix(disk, top))
		goto out;
	*strrchr(subsys, '/') = '\0';
	n = scandir(subsys, &ents, NULL, by_name);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		if (r == 0 && str_has_prefix(name, "nvme") && name[4] &&
		    strspn(name + 4, "0123456789") == strlen(name + 4)) {
			link = xasprintf("%s/%s", subsys, name);
			real = NULL;
			r = resolve_link(c, link, &real);
			if (r > 0)
				r = 0;
			else if (r == 0)
				r = walk_up(c, real);
			free(real);
			free(link);
		}
		free(ents[i]);
	}
	free(ents);
out:
	free(subsys);
	free(top);
	return r;
}

static int walk_block(const struct ctx *c, const char *dir, int depth)
{
	char *disk = xstrdup(dir), *part = xasprintf("%s/partition", dir);
	struct stat st;
	int r;

	if (depth > MAX_DEPTH) {
		free(part);
		free(disk);
		return err_set("%s: block devices stacked more than %d deep", dir, MAX_DEPTH);
	}
	/* A partition's layers and slaves belong to the disk above it. */
	if (stat(part, &st) == 0)
		*strrchr(disk, '/') = '\0';
	free(part);

	part = xasprintf("%s/dm", disk);
	if (is_dir(part))
		dm_layer(c, disk);
	free(part);
	part = xasprintf("%s/md", disk);
	if (is_dir(part))
		md_layer(c, disk);
	free(part);

	r = walk_slaves(c, disk, depth);
	if (r == 0)
		r = walk_nvme_subsystem(c, disk);
	if (r == 0)
		r = walk_up(c, disk);
	free(disk);
	return r;
}

static int walk_majmin(const struct ctx *c, const char *majmin)
{
	char *link = xasprintf("%s/sys/dev/block/%s", c->root, majmin), *real = NULL;
	int r = resolve_link(c, link, &real);

	if (r > 0)
		r = err_set("no block device %s in sysfs: no %s", majmin, link);
	if (r == 0)
		r = walk_block(c, real, 0);
	free(real);
	free(link);
	return r;
}

static bool device_exists(const struct ctx *c, const char *majmin)
{
	char *link = xasprintf("%s/sys/dev/block/%s", c->root, majmin);
	struct stat st;
	bool r = lstat(link, &st) == 0;
	free(link);
	return r;
}

/* The kernel's configured resume device wins; else the first swap
 * partition, the one a hibernation would most likely have used. */
static int find_resume(const struct ctx *c, char **majmin)
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
		r = devnode_to_majmin(c, file, majmin);
		break;
	}
	free(data);
	return r < 0 ? -1 : 0;
}

static int detect(struct ctx *c)
{
	struct hostonly *h = c->h;
	struct mount root = { 0 }, usr = { 0 };
	char *usrdev = NULL;
	int r;

	r = parse_mountinfo(c, &root, &usr);
	if (r == 0)
		r = mount_device(c, &root, "the root filesystem", &h->root_dev);
	if (r == 0) {
		push_uniq(&h->fstypes, root.fstype);
		r = walk_majmin(c, h->root_dev);
	}
	if (r == 0 && usr.majmin) {
		r = mount_device(c, &usr, "/usr", &usrdev);
		if (r == 0) {
			push_uniq(&h->fstypes, usr.fstype);
			r = walk_majmin(c, usrdev);
		}
	}
	if (r == 0)
		r = find_resume(c, &h->resume_dev);
	if (r == 0 && h->resume_dev && !device_exists(c, h->resume_dev)) {
		/* resume=MAJ:MIN is taken as given by the kernel, device or
		 * not: a stale one must not stop the image being built. */
		log_warn("resume device %s is not in %s/sys/dev/block, ignoring it",
			 h->resume_dev, c->root);
		free(h->resume_dev);
		h->resume_dev = NULL;
	}
	if (r == 0 && h->resume_dev)
		r = walk_majmin(c, h->resume_dev);
	free(usrdev);
	mount_free(&root);
	mount_free(&usr);
	return r;
}

int hostonly_detect(const char *sysroot, struct hostonly *h)
{
	struct ctx c = { .h = h };
	size_t n;
	int r;

	memset(h, 0, sizeof(*h));
	c.root = realpath(sysroot, NULL);
	if (!c.root)
		return err_errno(errno, "sysroot %s", sysroot);
	n = strlen(c.root);
	if (n == 1)
		c.root[0] = '\0';
	r = detect(&c);
	free(c.root);
	if (r < 0) {
		hostonly_free(h);
		return -1;
	}
	strv_sort_uniq(&h->modules);
	strv_sort_uniq(&h->modaliases);
	return 0;
}

void hostonly_free(struct hostonly *h)
{
	strv_free(&h->modules);
	strv_free(&h->modaliases);
	strv_free(&h->fstypes);
	strv_free(&h->stack);
	free(h->root_dev);
	free(h->resume_dev);
	memset(h, 0, sizeof(*h));
}
