// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.overlay=: off, a tmpfs upper layer (with tmpfs's size options), or
 * a device's filesystem as a persistent one. */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "init/stages/overlayspec.h"

/* tmpfs's own spelling of a size or count: digits, then k, m, g or %
 * (size only). Checked here so that a typo is named rather than left to
 * the kernel's "bad value" on a mount that then falls back. */
static bool tmpfs_number(const char *key, const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (n == 0 || n > 19)
		return false;
	if (!v[n])
		return true;
	if (v[n + 1])
		return false;
	return strchr("kKmMgG", v[n]) || (v[n] == '%' && !strcmp(key, "size"));
}

static char *tmpfs_options(const char *list, struct strv *w)
{
	struct buf b = { 0 };
	char *copy = xstrdup(list), *save = NULL;

	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(o, '=');
		size_t klen = eq ? (size_t)(eq - o) : strlen(o);
		bool known = eq && ((klen == 4 && !strncmp(o, "size", 4)) ||
				    (klen == 9 && !strncmp(o, "nr_blocks", 9)) ||
				    (klen == 9 && !strncmp(o, "nr_inodes", 9)));

		if (!known) {
			strv_push_owned(w, xasprintf("rd.overlay: ignoring the tmpfs option \"%s\" "
						     "(only size=, nr_blocks= and nr_inodes=)", o));
			continue;
		}
		*eq = '\0';
		if (!tmpfs_number(o, eq + 1)) {
			strv_push_owned(w, xasprintf("rd.overlay: ignoring %s=%s: not a number "
						     "(with k, m or g)", o, eq + 1));
			continue;
		}
		buf_printf(&b, "%s%s=%s", b.len ? "," : "", o, eq + 1);
	}
	free(copy);
	return b.p;
}

static bool device_spec(const char *v)
{
	static const char *const prefixes[] = { "LABEL=", "UUID=", "PARTLABEL=", "PARTUUID=",
						"/dev/" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(v, prefixes[i], strlen(prefixes[i])) && v[strlen(prefixes[i])])
			return true;
	return false;
}

void overlay_spec_parse(const char *value, struct overlay_spec *s, struct strv *w)
{
	bool on;

	memset(s, 0, sizeof(*s));
	if (!value)
		return;
	s->mode = OVERLAY_TMPFS;
	if (!*value || cmdline_parse_bool(value, &on) == 0) {
		if (*value && !on)
			s->mode = OVERLAY_OFF;
		return;
	}
	if (!strncmp(value, "tmpfs:", 6)) {
		s->tmpfs_opts = tmpfs_options(value + 6, w);
		return;
	}
	if (device_spec(value)) {
		s->mode = OVERLAY_DEVICE;
		s->device = xstrdup(value);
		return;
	}
	strv_push_owned(w, xasprintf("rd.overlay=%s: not a device (LABEL=, UUID=, PARTLABEL=, "
				     "PARTUUID=, /dev/...) nor tmpfs:OPTIONS: the upper layer is a tmpfs",
				     value));
}

char *overlay_crypt_device(const char *value, struct strv *w)
{
	const char *comma;
	char *dev;

	if (!value)
		return NULL;
	comma = strchr(value, ',');
	dev = comma ? xstrndup(value, (size_t)(comma - value)) : xstrdup(value);
	if (!device_spec(dev)) {
		strv_push_owned(w, xasprintf("rd.overlay.crypt=%s: not a device (LABEL=, UUID=, "
					     "PARTLABEL=, PARTUUID=, /dev/...): no encrypted upper layer",
					     value));
		free(dev);
		return NULL;
	}
	/* dracut's mapname=, fstype=, mkfs=, timeout=: the mapping is always
	 * overlay-crypt, the filesystem ext4, made anew, the wait rd.timeout */
	if (comma)
		strv_push_owned(w, xasprintf("rd.overlay.crypt=%s: ignoring \"%s\" (only the device "
					     "is read)", value, comma + 1));
	return dev;
}

void overlay_spec_free(struct overlay_spec *s)
{
	free(s->device);
	free(s->tmpfs_opts);
	memset(s, 0, sizeof(*s));
}
