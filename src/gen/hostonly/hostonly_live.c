// SPDX-License-Identifier: GPL-2.0-or-later
/* A live root (issue 28): / is an overlay (or dracut's dm snapshot) over
 * an image on a medium, no block device of its own, so the root's sysfs
 * walk finds nothing to pack. What a hostonly image needs to reach it
 * again is the medium: its disk's drivers (sr_mod and the controller of
 * a CD, usb-storage and the USB host of a stick), its filesystem
 * (iso9660, vfat, ext4 ...), then loop, the image's filesystem (squashfs,
 * erofs, ext4) and overlay; the disk an iso-scan ISO file or an
 * rd.overlay= upper layer is on; for an image fetched over the network
 * (root=live:http(s)://, boot=live fetch=) the NICs instead.
 *
 * The host's own /proc/cmdline says whether the root is live, as the
 * network roots' addresses say what they are. The medium is where the
 * initramfs that booted it left it mounted (dracut and uniramfs:
 * /run/initramfs/live; live-boot: /run/live/medium), or when rd.live.ram
 * or toram let it go, the device the line names (LABEL=, CDLABEL=,
 * UUID=, PARTUUID=, PARTLABEL=, /dev/...) through the sysroot's
 * /dev/disk links, with its filesystem from udev's record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "err.h"
#include "gen/hostonly/hostonly_priv.h"
#include "log.h"

/* The initramfs's mount points a live root leaves below it, the medium's
 * first (dracut/uniramfs, live-boot) in the order the medium is chosen
 * from; a trailing '/' takes every mount below. */
static const char *const places[] = {
	"/run/initramfs/live", "/run/live/medium", "/run/initramfs/isoscan", "/run/live/findiso",
	"/run/initramfs/squashfs", "/run/rootfsbase", "/run/live/rootfs/",
	"/run/overlayfs-backing", "/run/live/persistence/",
};
#define MEDIUM_PLACES 4 /* places[0..3] hold a medium or the disk of its ISO */

#define LOOP_MAJOR "7:"

struct live_line {
	char *said; /* how the line makes the root live, for messages */
	char *spec; /* the medium it names (root=live:SPEC, live-media=), or NULL */
	bool net;   /* the image comes over the network */
};

struct live_mounts {
	struct strv target, majmin, fstype;
	struct hostonly_walk *walk; /* the disks hostonly.c walks */
};

static void walk_push(struct hostonly_walk *w, const char *majmin, const char *what)
{
	strv_push(&w->majmin, majmin);
	strv_push_owned(&w->what, xstrdup(what));
}

static void push_uniq(struct strv *s, const char *str)
{
	if (!strv_contains(s, str))
		strv_push(s, str);
}

static bool is_url(const char *s)
{
	return str_has_prefix(s, "http://") || str_has_prefix(s, "https://");
}

/* 1 live (l filled), 0 not (or no /proc/cmdline to say). */
static int read_line_of(const struct ctx *c, struct live_line *l)
{
	char *path = at_root(c, "/proc/cmdline"), *data = NULL;
	const struct cmdline_param *root, *p;
	struct cmdline cl = { 0 };
	int r = 0;

	memset(l, 0, sizeof(*l));
	if (read_file(path, &data, NULL) < 0) {
		free(path);
		return 0;
	}
	free(path);
	cmdline_parse(&cl, data);
	free(data);
	root = cmdline_last(&cl, "root");
	if (root && root->val && str_has_prefix(root->val, "live:")) {
		l->said = xasprintf("root=%s", root->val);
		l->spec = *(root->val + 5) ? xstrdup(root->val + 5) : NULL;
		r = 1;
	} else if (cmdline_has(&cl, "rd.live.image")) {
		l->said = xasprintf("rd.live.image%s%s", root && root->val ? " root=" : "",
				    root && root->val ? root->val : "");
		l->spec = root && root->val && *root->val ? xstrdup(root->val) : NULL;
		r = 1;
	} else if ((p = cmdline_last(&cl, "boot")) && p->val && !strcmp(p->val, "live")) {
		const struct cmdline_param *media = cmdline_last(&cl, "live-media");
		const struct cmdline_param *fetch = cmdline_last(&cl, "fetch");

		l->said = xstrdup("boot=live");
		if (fetch && fetch->val && *fetch->val)
			l->spec = xstrdup(fetch->val);
		else if (media && media->val && *media->val && strcmp(media->val, "removable") &&
			 strcmp(media->val, "removable-usb"))
			l->spec = xstrdup(media->val);
		r = 1;
	}
	if (l->spec && is_url(l->spec))
		l->net = true;
	cmdline_free(&cl);
	return r;
}

static void line_free(struct live_line *l)
{
	free(l->said);
	free(l->spec);
}

bool hostonly_live_root(const struct ctx *c)
{
	struct live_line l;
	int r = read_line_of(c, &l);

	line_free(&l);
	return r == 1;
}

static bool at_place(const char *target, const char *place)
{
	size_t n = strlen(place);

	if (place[n - 1] == '/')
		return str_has_prefix(target, place) && target[n];
	return !strcmp(target, place);
}

static int collect(const struct ctx *c, const char *target, const struct mount *m, void *arg)
{
	struct live_mounts *lm = arg;

	(void)c;
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		if (!at_place(target, places[i]))
			continue;
		strv_push(&lm->target, target);
		strv_push(&lm->majmin, m->majmin);
		strv_push(&lm->fstype, m->fstype);
		break;
	}
	return 0;
}

/* One of the live mounts: its filesystem, and a loop device's module or
 * a disk's drivers; the first disk at a medium's place is the medium. */
static void add_mount(const struct ctx *c, const struct live_mounts *lm, size_t i, bool medium)
{
	struct hostonly *h = c->h;
	const char *majmin = lm->majmin.v[i];

	push_uniq(&h->fstypes, lm->fstype.v[i]);
	if (str_has_prefix(majmin, LOOP_MAJOR)) {
		push_uniq(&h->modules, "loop");
		return;
	}
	if (str_has_prefix(majmin, "0:"))
		return; /* no block device: a tmpfs, a network filesystem */
	walk_push(lm->walk, majmin, lm->target.v[i]);
	if (medium && !h->root_dev) {
		h->root_dev = xstrdup(majmin);
		log_info("hostonly: the live medium is %s (%s) on %s", majmin, lm->fstype.v[i],
			 lm->target.v[i]);
	}
}

/* udev's encoding of a label in /dev/disk/by-label (blkid_encode_string):
 * letters, digits, "#+-.:=@_" and UTF-8 kept, every other byte (a '/', a
 * space) as \xHH, so the name stays one file in that directory. NULL:
 * it is no file name at all. */
static char *udev_name(const char *v)
{
	struct buf b = { 0 };

	if (!*v || !strcmp(v, ".") || !strcmp(v, ".."))
		return NULL;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    strchr("#+-.:=@_", *p) || *p >= 0x80)
			buf_printf(&b, "%c", *p);
		else
			buf_printf(&b, "\\x%02x", *p);
	}
	return b.p;
}

/* SPEC as the sysroot's /dev path of the medium, or NULL (err set). */
static char *spec_path(const char *spec)
{
	static const struct {
		const char *prefix, *dir;
	} links[] = {
		{ "CDLABEL=", "by-label" }, { "LABEL=", "by-label" }, { "UUID=", "by-uuid" },
		{ "PARTUUID=", "by-partuuid" }, { "PARTLABEL=", "by-partlabel" },
	};
	char *name, *path = NULL;

	if (str_has_prefix(spec, "/dev/")) {
		if (strstr(spec, "/../") || str_has_suffix(spec, "/.."))
			err_set("%s goes up (..) out of /dev", spec);
		else
			path = xstrdup(spec);
		return path;
	}
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		if (!str_has_prefix(spec, links[i].prefix))
			continue;
		if (!(name = udev_name(spec + strlen(links[i].prefix)))) {
			err_set("%s names no device", spec);
			return NULL;
		}
		path = xasprintf("/dev/disk/%s/%s", links[i].dir, name);
		free(name);
		return path;
	}
	err_set("%s is no device name hostonly can look up (LABEL=, CDLABEL=, UUID=, PARTUUID=, "
		"PARTLABEL= or /dev/...)", spec);
	return NULL;
}

/* The medium's filesystem from udev's record of it (E:ID_FS_TYPE=), or
 * NULL when the host has none. */
static char *udev_fstype(const struct ctx *c, const char *majmin)
{
	char *path = xasprintf("%s/run/udev/data/b%s", c->root, majmin), *data = NULL, *p, *e;
	char *type = NULL;

	if (read_file(path, &data, NULL) == 0 &&
	    (p = strstr(data, "E:ID_FS_TYPE=")) && (p == data || p[-1] == '\n')) {
		p += strlen("E:ID_FS_TYPE=");
		e = p + strcspn(p, "\n");
		if (e > p && e - p < 32 && strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
					      (size_t)(e - p))
			type = xstrndup(p, (size_t)(e - p));
	}
	free(data);
	free(path);
	return type;
}

/* The medium is not mounted (rd.live.ram, toram): the device the line
 * names. */
static int medium_by_spec(const struct ctx *c, const struct live_line *l, struct hostonly_walk *w)
{
	struct hostonly *h = c->h;
	char *path, *majmin = NULL, *type;
	int r;

	if (!l->spec)
		return err_set("the root is a live image (%s), but its medium is mounted at none of "
			       "%s, %s and the command line names none (root=live:SPEC, "
			       "live-media=): hostonly cannot tell which disk to pack the drivers "
			       "of; build a generic image", l->said, places[0], places[1]);
	if (!(path = spec_path(l->spec)))
		return err_wrap("the root is a live image (%s), its medium not mounted", l->said);
	r = hostonly_devnode_majmin(c, path, &majmin);
	if (r < 0) {
		r = err_wrap("the root is a live image (%s), but its medium is mounted at none of "
			     "%s, %s, and %s is not found", l->said, places[0], places[1], path);
		free(path);
		return r;
	}
	walk_push(w, majmin, path);
	type = udev_fstype(c, majmin);
	if (type)
		push_uniq(&h->fstypes, type);
	else
		log_warn("hostonly: the live medium %s (%s) has no filesystem in udev's record: "
			 "add its module with --add-modules", path, majmin);
	log_info("hostonly: the live medium is %s (%s, %s), as %s names it; it is not mounted",
		 majmin, type ? type : "?", path, l->said);
	h->root_dev = majmin;
	free(type);
	free(path);
	return 0;
}

int hostonly_live(const struct ctx *c, const struct mount *root, struct hostonly_walk *walk)
{
	struct hostonly *h = c->h;
	struct live_mounts lm = { .walk = walk };
	struct live_line l;
	int r;

	if (read_line_of(c, &l) != 1)
		return err_set("the root is not a live image");
	r = hostonly_each_mount(c, collect, &lm);
	/* the medium first, so the record names it (and its filesystem) */
	for (size_t p = 0; r == 0 && p < ARRAY_SIZE(places); p++) {
		if (p == MEDIUM_PLACES && l.net)
			r = hostonly_walk_nics(c, l.said);
		else if (p == MEDIUM_PLACES && !h->root_dev)
			r = medium_by_spec(c, &l, walk);
		for (size_t i = 0; r == 0 && i < lm.target.n; i++)
			if (at_place(lm.target.v[i], places[p]))
				add_mount(c, &lm, i, p < MEDIUM_PLACES);
	}
	if (r == 0) {
		/* whatever put / together on this host (dracut's dm snapshot
		 * too), uniramfs puts an overlay over the image, which is on a
		 * loop device: a squashfs when it was copied to RAM or fetched */
		if (strcmp(root->fstype, "overlay"))
			log_info("hostonly: / is %s here; the image's live root is an overlay",
				 root->fstype);
		push_uniq(&h->modules, "loop");
		push_uniq(&h->fstypes, "squashfs");
		push_uniq(&h->fstypes, "overlay");
	}
	strv_free(&lm.target);
	strv_free(&lm.majmin);
	strv_free(&lm.fstype);
	line_free(&l);
	return r;
}
