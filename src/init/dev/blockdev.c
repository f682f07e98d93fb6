// SPDX-License-Identifier: GPL-2.0-or-later
/* Block devices: what libblkid says about them, the /dev/disk/by-* links
 * udev would make, and whether a root=/resume= spec names them. */
#include <blkid.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "init/dev/blockdev.h"
#include "err.h"
#include "log.h"
#include "util.h"

static char *lookup(blkid_probe pr, const char *key)
{
	const char *v;
	if (blkid_probe_lookup_value(pr, key, &v, NULL) < 0 || !*v)
		return NULL;
	return xstrdup(v);
}

/* A partition's disk and number, from sysfs alone: /sys/class/block/NAME
 * links into .../block/DISK/NAME, and NAME/partition holds the number. */
static void read_part_of(const struct sysops *ops, struct blockdev *bd)
{
	char *p = xasprintf("/sys/class/block/%s", bd->name), *real = ops->path(p);
	char *partfile = path_join(real, "partition"), *num = NULL, link[PATH_MAX], *slash, *end;
	ssize_t n = readlink(real, link, sizeof(link) - 1);
	unsigned long v;

	free(bd->disk);
	bd->disk = NULL;
	bd->partno = 0;
	if (n <= 0 || read_line(partfile, &num) < 0 || !isdigit((unsigned char)num[0]))
		goto out;
	errno = 0;
	v = strtoul(num, &end, 10);
	if (errno || *end || v == 0 || v > 65535)
		goto out;
	link[n] = '\0';
	if (!(slash = strrchr(link, '/')))
		goto out;
	*slash = '\0';
	slash = strrchr(link, '/');
	if (!*(slash ? slash + 1 : link))
		goto out;
	bd->disk = xstrdup(slash ? slash + 1 : link);
	bd->partno = (unsigned)v;
out:
	free(p);
	free(real);
	free(partfile);
	free(num);
}

/* libblkid finds a partition's GPT/MBR entry through sysfs and the whole
 * disk's block device. Where it cannot (no such pairing, or a test's
 * regular files), read the entry from the disk sysfs names. */
static void part_entry_from_disk(const struct sysops *ops, struct blockdev *bd)
{
	char *disk, *real;

	if (!bd->disk)
		return;
	disk = xasprintf("/dev/%s", bd->disk);
	for (char *c = disk; *c; c++)
		if (*c == '!') /* sysfs spells "cciss/c0d0" as "cciss!c0d0" */
			*c = '/';
	real = ops->path(disk);
	blkid_probe pr = blkid_new_probe_from_filename(real);
	free(real);
	if (!pr) {
		log_debug("%s: cannot probe the disk %s: %m", bd->name, disk);
		free(disk);
		return;
	}
	free(disk);
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_partlist ls = blkid_probe_get_partitions(pr);
	blkid_partition par = ls ? blkid_partlist_get_partition_by_partno(ls, (int)bd->partno) : NULL;
	if (par) {
		const char *u = blkid_partition_get_uuid(par), *l = blkid_partition_get_name(par);
		if (u && *u)
			bd->partuuid = xstrdup(u);
		const char *t = blkid_partition_get_type_string(par);
		if (l && *l)
			bd->partlabel = xstrdup(l);
		free(bd->parttype);
		bd->parttype = t && *t ? xstrdup(t) : NULL;
		bd->partflags = blkid_partition_get_flags(par);
	}
	blkid_free_probe(pr);
}

/* What root discovery reads of the entry (gptauto.h). */
static void part_entry_more(blkid_probe pr, struct blockdev *bd)
{
	char *v = lookup(pr, "PART_ENTRY_FLAGS");

	bd->parttype = lookup(pr, "PART_ENTRY_TYPE");
	bd->partflags = v ? strtoull(v, NULL, 16) : 0;
	free(v);
}

/* lvm and cryptsetup name their mappings; the kernel calls them dm-N. */
static void read_dm_name(const struct sysops *ops, struct blockdev *bd)
{
	char *p = xasprintf("/sys/class/block/%s/dm/name", bd->name), *real = ops->path(p);
	char *name = NULL;

	free(bd->dmname);
	bd->dmname = NULL;
	if (read_line(real, &name) == 0 && *name)
		bd->dmname = name;
	else
		free(name);
	free(p);
	free(real);
}

bool blockdev_empty(const struct sysops *ops, const char *name)
{
	char *p = xasprintf("/sys/class/block/%s/size", name), *real = ops->path(p), *size = NULL;
	bool empty = read_line(real, &size) == 0 && strcmp(str_trim(size), "0") == 0;

	free(size);
	free(real);
	free(p);
	return empty;
}

bool blockdev_read_only(const struct sysops *ops, const char *name)
{
	char *p = xasprintf("/sys/class/block/%s/ro", name), *real = ops->path(p), *ro = NULL;
	bool r = read_line(real, &ro) == 0 && strcmp(str_trim(ro), "1") == 0;

	free(ro);
	free(real);
	free(p);
	return r;
}

int blockdev_probe(const struct sysops *ops, struct blockdev *bd)
{
	char *real = ops->path(bd->devnode);
	blkid_probe pr = blkid_new_probe_from_filename(real);
	int r = pr ? 0 : -errno;

	free(real);
	if (bd->name && str_has_prefix(bd->name, "dm-"))
		read_dm_name(ops, bd);
	/* from sysfs, not the device: named even when it cannot be read */
	if (bd->name) {
		persistnames_free(&bd->names);
		if (persistname_get(ops, bd->name, &bd->names) < 0)
			log_debug("%s: not in sysfs, no by-id or by-path names", bd->devnode);
		read_part_of(ops, bd);
	}
	if (!pr)
		return err_errno(r, "cannot open %s for probing", bd->devnode);
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
						      BLKID_SUBLKS_LABEL);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	r = blkid_do_safeprobe(pr);
	if (r == -1) {
		blkid_free_probe(pr);
		return err_set("cannot probe %s", bd->devnode);
	}
	free(bd->type);
	free(bd->uuid);
	free(bd->label);
	free(bd->partuuid);
	free(bd->partlabel);
	free(bd->parttype);
	bd->type = bd->uuid = bd->label = bd->parttype = NULL;
	bd->partflags = 0;
	if (r == -2) {
		/* two filesystems' signatures: mounting either could be wrong */
		log_warn("%s: more than one filesystem signature, not using it", bd->devnode);
	} else {
		bd->type = lookup(pr, "TYPE");
		bd->uuid = lookup(pr, "UUID");
		bd->label = lookup(pr, "LABEL");
	}
	bd->partuuid = lookup(pr, "PART_ENTRY_UUID");
	bd->partlabel = lookup(pr, "PART_ENTRY_NAME");
	part_entry_more(pr, bd);
	blkid_free_probe(pr);
	if (!bd->partuuid && !bd->partlabel && bd->name)
		part_entry_from_disk(ops, bd);
	log_debug("%s: TYPE=%s UUID=%s LABEL=%s PARTUUID=%s PARTLABEL=%s", bd->devnode,
		  bd->type ? bd->type : "", bd->uuid ? bd->uuid : "",
		  bd->label ? bd->label : "", bd->partuuid ? bd->partuuid : "",
		  bd->partlabel ? bd->partlabel : "");
	return 0;
}

/* udev's ID_FS_LABEL_ENC and friends: libblkid's own encoder, which
 * writes '/', whitespace and other unsafe bytes as \xNN. */
static char *encode(const char *s)
{
	size_t n = strlen(s) * 4 + 1;
	char *out = xmalloc(n);
	if (blkid_encode_string(s, out, n) < 0) {
		free(out);
		return NULL;
	}
	return out;
}

static int mkdir_ok(const struct sysops *ops, const char *path)
{
	int r = ops->mkdir(path, 0755);

	if (r < 0 && r != -EEXIST)
		return err_errno(r, "cannot create %s", path);
	return 0;
}

/* /dev/disk/DIR/NAME -> ../../DEVNAME. A '/' in NAME (udev keeps one
 * from a serial) makes a directory, as udev does, and one more "../". */
static int place_link(const struct sysops *ops, const char *dir, const char *name,
		      const char *devname)
{
	char *link = xasprintf("/dev/disk/%s/%s", dir, name), *target, *slash;
	struct buf up = { 0 };
	int r = 0;

	buf_append(&up, "../../", 6);
	for (slash = strchr(link + strlen("/dev/disk/"), '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		r = mkdir_ok(ops, link);
		*slash = '/';
		if (r < 0)
			goto out;
		if (slash > link + strlen("/dev/disk/") + strlen(dir))
			buf_append(&up, "../", 3);
	}
	target = xasprintf("%s%s", up.p, devname);
	/* The newest device with a value wins, as with udev's default
	 * link priority. */
	if ((r = ops->unlink(link)) < 0 && r != -ENOENT)
		r = err_errno(r, "cannot replace %s", link);
	else if ((r = ops->symlink(target, link)) < 0)
		r = err_errno(r, "cannot link %s to %s", link, target);
	free(target);
out:
	buf_free(&up);
	free(link);
	return r;
}

/* A link named by a value udev encodes (a label, a UUID). */
static int make_link(const struct sysops *ops, const char *dir, const char *value,
		     const char *name)
{
	char *enc = encode(value);
	int r = 0;

	if (enc && *enc && strcmp(enc, ".") && strcmp(enc, ".."))
		r = place_link(ops, dir, enc, name);
	free(enc);
	return r;
}

/* libdevmapper makes the node itself when udev is not running; when it
 * is already there (a node or our link) it is left alone. */
static int make_mapper_link(const struct sysops *ops, const struct blockdev *bd)
{
	char *link, *target;
	int r = 0;

	if (strchr(bd->dmname, '/') || !strcmp(bd->dmname, ".") || !strcmp(bd->dmname, ".."))
		return 0;
	if ((r = mkdir_ok(ops, "/dev/mapper")) < 0)
		return r;
	link = xasprintf("/dev/mapper/%s", bd->dmname);
	target = xasprintf("../%s", bd->name);
	if ((r = ops->symlink(target, link)) < 0 && r != -EEXIST)
		r = err_errno(r, "cannot link %s to %s", link, target);
	else
		r = 0;
	free(link);
	free(target);
	return r;
}

int blockdev_make_links(const struct sysops *ops, const struct blockdev *bd)
{
	static const char *const dirs[] = { "by-uuid", "by-label", "by-partuuid", "by-partlabel" };
	const char *values[] = { bd->uuid, bd->label, bd->partuuid, bd->partlabel };
	int r = 0, e;

	const struct strv *names[] = { &bd->names.by_id, &bd->names.by_path };
	static const char *const namedirs[] = { "by-id", "by-path" };

	if (bd->dmname && bd->name)
		r = make_mapper_link(ops, bd);
	if (!bd->uuid && !bd->label && !bd->partuuid && !bd->partlabel && !bd->names.by_id.n &&
	    !bd->names.by_path.n)
		return r;
	if ((e = mkdir_ok(ops, "/dev/disk")) < 0)
		return e;
	/* every link is tried; the code is the last failure's */
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (values[i] && (e = make_link(ops, dirs[i], values[i], bd->name)) < 0)
			r = e;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		for (size_t j = 0; j < names[i]->n; j++)
			if ((e = place_link(ops, namedirs[i], names[i]->v[j], bd->name)) < 0)
				r = e;
	return r;
}

/* MAJ:MIN, or the kernel's name_to_dev_t hex form (new_decode_dev). */
static bool parse_devnum(const char *s, unsigned *maj, unsigned *min)
{
	char *end;
	unsigned long a, b;

	if (!*s || !isxdigit((unsigned char)*s))
		return false;
	if (strchr(s, ':')) {
		if (!isdigit((unsigned char)*s))
			return false;
		errno = 0;
		a = strtoul(s, &end, 10);
		if (errno || *end != ':' || !isdigit((unsigned char)end[1]))
			return false;
		b = strtoul(end + 1, &end, 10);
		if (errno || *end || a > 0xfff || b > 0xfffff)
			return false;
		*maj = (unsigned)a;
		*min = (unsigned)b;
		return true;
	}
	errno = 0;
	a = strtoul(s, &end, 16);
	if (errno || *end || a > 0xffffffffUL)
		return false;
	*maj = (unsigned)((a & 0xfff00) >> 8);
	*min = (unsigned)((a & 0xff) | ((a >> 12) & 0xfff00));
	return true;
}

static const char *value_of(const char *spec, const char *key)
{
	size_t n = strlen(key);
	if (strncasecmp(spec, key, n) != 0 || !spec[n])
		return NULL;
	return spec + n;
}

static bool eq_enc(const char *devval, const char *want, bool icase)
{
	if (!devval)
		return false;
	if (icase ? strcasecmp(devval, want) == 0 : strcmp(devval, want) == 0)
		return true;
	char *enc = encode(devval);
	bool r = enc && (icase ? strcasecmp(enc, want) == 0 : strcmp(enc, want) == 0);
	free(enc);
	return r;
}

struct form {
	const char *prefix;
	size_t field;  /* offsetof in struct blockdev */
	bool icase;
};

static const struct form forms[] = {
	{ "UUID=", offsetof(struct blockdev, uuid), true },
	{ "LABEL=", offsetof(struct blockdev, label), false },
	{ "PARTUUID=", offsetof(struct blockdev, partuuid), true },
	{ "PARTLABEL=", offsetof(struct blockdev, partlabel), false },
	/* dracut's spelling for a CD's volume id (Fedora's live ISOs) */
	{ "CDLABEL=", offsetof(struct blockdev, label), false },
	{ "/dev/disk/by-uuid/", offsetof(struct blockdev, uuid), true },
	{ "/dev/disk/by-label/", offsetof(struct blockdev, label), false },
	{ "/dev/disk/by-partuuid/", offsetof(struct blockdev, partuuid), true },
	{ "/dev/disk/by-partlabel/", offsetof(struct blockdev, partlabel), false },
};

/* Which of forms *spec is written in (a leading "block:" skipped), with
 * its value in *v; NULL for a device path or number. */
static const struct form *form_of(const char **spec, const char **v)
{
	if (str_has_prefix(*spec, "block:"))
		*spec += 6;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		*v = value_of(*spec, forms[i].prefix);
		if (*v)
			return &forms[i];
	}
	return NULL;
}

/* A tag's value in one pair of matching quotes (root=UUID="..." or
 * LABEL='...') is what is inside, as systemd's tag_to_udev_node and
 * booster read it: the kernel strips quotes only around a whole value.
 * NULL when v is not quoted so. */
static char *unquoted(const struct form *form, const char *v)
{
	size_t n = strlen(v);

	if (form->prefix[0] != '/' && n >= 2 && (v[0] == '"' || v[0] == '\'') &&
	    v[n - 1] == v[0])
		return xstrndup(v + 1, n - 2);
	return NULL;
}

/* udev's persistent names and booster's spellings of them (WWID=,
 * HWPATH=): 0 for by-id, 1 for by-path, the name in *v, whether booster's
 * spelling in *booster (NULL: not asked); -1 if neither. */
static int persist_form(const char *spec, const char **v, bool *booster)
{
	static const char *const prefixes[2][2] = { { "/dev/disk/by-id/", "WWID=" },
						    { "/dev/disk/by-path/", "HWPATH=" } };

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (str_has_prefix(spec, prefixes[i][j])) {
				*v = spec + strlen(prefixes[i][j]);
				if (booster)
					*booster = j == 1;
				return i;
			}
	return -1;
}

bool blockdev_partnroff(const char *spec, char **partuuid, int *off)
{
	const struct form *form;
	const char *v, *sep, *num;
	char *end;
	long n;

	if (!spec || !(form = form_of(&spec, &v)) || strcmp(form->prefix, "PARTUUID=") ||
	    !(sep = strstr(v, "/PARTNROFF=")) || sep == v || memchr(v, '/', (size_t)(sep - v)))
		return false;
	num = sep + strlen("/PARTNROFF=");
	if (!isdigit((unsigned char)num[num[0] == '-']))
		return false;
	errno = 0;
	n = strtol(num, &end, 10);
	if (errno || *end || n < -65535 || n > 65535)
		return false;
	if (partuuid)
		*partuuid = xstrndup(v, (size_t)(sep - v));
	if (off)
		*off = (int)n;
	return true;
}

bool blockdev_is_offset_of(const struct blockdev *bd, const struct blockdev *anchor, int off)
{
	return bd->disk && anchor->disk && anchor->partno && !strcmp(bd->disk, anchor->disk) &&
	       (long)anchor->partno + off == (long)bd->partno;
}

bool blockdev_spec_valid(const char *spec)
{
	const struct form *form;
	const char *v;
	unsigned maj, min;
	int which;

	if (!spec)
		return false;
	form = form_of(&spec, &v);
	if (form) {
		if (form->prefix[0] == '/')
			return !strchr(v, '/'); /* a link name has '/' as \x2f */
		if (strstr(v, "/PARTNROFF="))
			return blockdev_partnroff(spec, NULL, NULL);
		char *u = unquoted(form, v);
		bool ok = !u || *u;
		free(u);
		return ok;
	}
	if ((which = persist_form(spec, &v, NULL)) >= 0)
		return persistname_valid(v);
	if (str_has_prefix(spec, "/dev/disk/"))
		return false; /* by-diskseq and the like: we make no such links */
	if (str_has_prefix(spec, "/dev/"))
		return spec[5] != '\0';
	return parse_devnum(spec, &maj, &min);
}

/* lvm names the mapping of VG/LV "VG-LV", doubling each '-' in either
 * part so the one single '-' is the separator. */
static bool matches_vg_lv(const char *dmname, const char *vglv)
{
	const char *slash = strchr(vglv, '/'), *d = dmname;

	if (!slash || slash == vglv || !slash[1] || strchr(slash + 1, '/'))
		return false;
	for (const char *c = vglv; *c; c++) {
		if (*c == '/') {
			if (*d++ != '-')
				return false;
			continue;
		}
		if (*d++ != *c)
			return false;
		if (*c == '-' && *d++ != '-')
			return false;
	}
	return *d == '\0';
}

bool blockdev_matches(const struct blockdev *bd, const char *spec)
{
	const struct form *form;
	const char *v;
	unsigned maj, min;
	int which;
	bool booster;

	if (!blockdev_spec_valid(spec))
		return false;
	form = form_of(&spec, &v);
	if (form) {
		const char *devval = *(char *const *)((const char *)bd + form->field);
		char *u = unquoted(form, v);
		bool r = eq_enc(devval, u ? u : v, form->icase);
		free(u);
		return r;
	}
	if ((which = persist_form(spec, &v, &booster)) >= 0)
		return strv_contains(which ? &bd->names.by_path : &bd->names.by_id, v) ||
		       (booster && strv_contains(which ? &bd->names.booster_hwpath :
							 &bd->names.booster_wwid, v));
	if (str_has_prefix(spec, "/dev/")) {
		if (bd->devnode && strcmp(bd->devnode, spec) == 0)
			return true;
		if (bd->dmname && str_has_prefix(spec, "/dev/mapper/"))
			return strcmp(bd->dmname, spec + 12) == 0;
		if (bd->dmname && matches_vg_lv(bd->dmname, spec + 5))
			return true;
		return bd->name && strcmp(bd->name, spec + 5) == 0;
	}
	return parse_devnum(spec, &maj, &min) && maj == bd->major && min == bd->minor;
}

bool blockdev_link_matches(const struct sysops *ops, const struct blockdev *bd, const char *spec)
{
	char *a, *b, ra[PATH_MAX], rb[PATH_MAX];
	bool r;

	if (!str_has_prefix(spec, "/dev/") || !bd->devnode || !strcmp(spec, bd->devnode))
		return false;
	a = ops->path(spec);
	b = ops->path(bd->devnode);
	r = realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
	free(a);
	free(b);
	return r;
}

void blockdev_clear(struct blockdev *bd)
{
	free(bd->name);
	free(bd->devnode);
	free(bd->type);
	free(bd->uuid);
	free(bd->label);
	free(bd->partuuid);
	free(bd->partlabel);
	free(bd->parttype);
	free(bd->dmname);
	free(bd->disk);
	persistnames_free(&bd->names);
	memset(bd, 0, sizeof(*bd));
}
