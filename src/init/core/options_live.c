// SPDX-License-Identifier: GPL-2.0-or-later
/* Debian's live images boot with live-boot's words (boot=live components
 * quiet splash ...). uniramfs plays live-boot's part: it finds the medium,
 * mounts live/filesystem.squashfs below a tmpfs and switches to it. The
 * words live-config reads (components, hostname=, username=, locales= ...)
 * are the root's, from /proc/cmdline: they are left alone here. Those
 * live-boot acts on and uniramfs does not are said by name, never taken
 * silently (docs/cmdline.md, "Debian live"). */
#include <stdlib.h>
#include <string.h>

#include "init/core/options_live.h"
#include "log.h"
#include "util.h"

#define LIVE_PATH_MAX 255

static const struct {
	const char *key, *why;
} live_unsupported[] = {
	{ "persistence", "uniramfs keeps no live-boot persistence: changes go to a tmpfs and "
			 "are gone at the next boot" },
	{ "findiso", "uniramfs does not look for a live ISO file on a filesystem" },
	{ "fromiso", "uniramfs does not look for a live ISO file on a filesystem" },
	{ "httpfs", "uniramfs fetches no boot=live image over the network" },
	{ "live-media-offset", "uniramfs reads a live medium from its start only" },
	{ "live-media-encryption", "uniramfs opens no encrypted live image" },
	{ "verify-checksums", "uniramfs does not check a live medium's md5sums" },
	{ "live-boot.verify-checksums", "uniramfs does not check a live medium's md5sums" },
};

char *live_media_path(const char *val, const char **why)
{
	size_t len;

	while (val && *val == '/')
		val++;
	len = val ? strlen(val) : 0;
	while (len && val[len - 1] == '/')
		len--;
	if (!len) {
		*why = "not a directory below the medium's top";
		return NULL;
	}
	if (len > LIVE_PATH_MAX) {
		*why = "longer than 255 bytes";
		return NULL;
	}
	/* the directory is the medium's: no component may climb out of it */
	if (path_has_dotdot(val)) {
		*why = "it goes up (..) out of the medium";
		return NULL;
	}
	return xstrndup(val, len);
}

bool live_word(struct options *o, const struct cmdline_param *p)
{
	const char *k = p->key, *why;
	char *dir;

	if (!strcmp(k, "boot") && p->val && !strcmp(p->val, "live")) {
		o->debian_live = true;
	} else if (!strcmp(k, "live-media") || !strcmp(k, "bootfrom")) {
		free(o->live_media);
		o->live_media = p->val && *p->val ? xstrdup(p->val) : NULL;
	} else if (!strcmp(k, "fetch")) {
		free(o->live_fetch);
		o->live_fetch = p->val && *p->val ? xstrdup(p->val) : NULL;
	} else if (!strcmp(k, "toram")) {
		/* live-boot copies the medium (toram=FILE: that one file of
		 * it) to RAM; here it turns rd.live.ram on (live_fold), with
		 * its memory check */
		free(o->live_toram);
		o->live_toram = xstrdup(p->val ? p->val : "");
	} else if (!strcmp(k, "live-media-path")) {
		if (!(dir = live_media_path(p->val, &why))) {
			log_warn("ignoring %s=%s: %s", k, p->val ? p->val : "", why);
			return true;
		}
		free(o->live_media_path);
		o->live_media_path = dir;
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(live_unsupported); i++) {
			if (strcmp(k, live_unsupported[i].key))
				continue;
			log_warn("ignoring %s%s%s: %s", k, p->val ? "=" : "", p->val ? p->val : "",
				 live_unsupported[i].why);
			return true;
		}
		return false;
	}
	return true;
}

/* toram=FILE names the file live-boot would copy; uniramfs copies the
 * one image it mounts, so another name is said, not followed. */
static void toram_fold(struct options *o)
{
	const char *v = o->live_toram;

	if (!v)
		return;
	if (*v && strcmp(v, o->live_squashimg))
		log_warn("toram=%s: uniramfs copies only the live image %s/%s to RAM, not %s", v,
			 o->live_dir, o->live_squashimg, v);
	o->live_ram = true;
	log_info("boot=live toram: the live image is copied to RAM as rd.live.ram copies it");
}

void live_fold(struct options *o)
{
	if (!o->debian_live) {
		if (o->live_toram)
			log_warn("ignoring toram%s%s: live-boot's word, only with boot=live (here "
				 "rd.live.ram)", *o->live_toram ? "=" : "", o->live_toram);
		return;
	}
	o->live = true;
	/* live-boot reads no root=; "removable" and "removable-usb" narrow its
	 * scan to removable disks, which uniramfs does not: every disk is looked at */
	free(o->root);
	o->root = NULL;
	if (o->live_fetch)
		o->root = xstrdup(o->live_fetch); /* a network root: net/netroot.c reads it too */
	else if (o->live_media && strcmp(o->live_media, "removable") &&
	    strcmp(o->live_media, "removable-usb"))
		o->root = xstrdup(o->live_media);
	else if (o->live_media)
		log_warn("live-media=%s: every block device is looked at, not only removable "
			 "ones", o->live_media);
	if (!o->live_dir)
		o->live_dir = xstrdup(o->live_media_path ? o->live_media_path : "live");
	if (!o->live_squashimg)
		o->live_squashimg = xstrdup("filesystem.squashfs");
	toram_fold(o);
}
