// SPDX-License-Identifier: GPL-2.0-or-later
/* Detached LUKS headers (systemd-cryptsetup-generator's rd.luks.header=
 * and rd.luks.data=, crypttab's header=): where the header is (a file in
 * the image, a device, a file on a device's filesystem), and which device
 * is the data. The data holds no signature: it is named (rd.luks.data=,
 * the crypttab line's source), or it is the first device that shows
 * nothing to blkid, as booster takes it. */
#include "init/stack/luks_header.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "init/stack/stack.h"
#include "log.h"
#include "util.h"

/* "UUID" as rd.luks.* spells it (UUID=U, luks-U, U): U lowercase, or
 * NULL when it is not 32 hex digits. */
static char *uuid_of(const char *v, size_t n)
{
	size_t hex = 0;
	char *u;

	if (n > 5 && !strncasecmp(v, "UUID=", 5))
		v += 5, n -= 5;
	if (n > 5 && !strncmp(v, "luks-", 5))
		v += 5, n -= 5;
	for (size_t i = 0; i < n; i++) {
		if ((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f') ||
		    (v[i] >= 'A' && v[i] <= 'F'))
			hex++;
		else if (v[i] != '-')
			return NULL;
	}
	if (hex != 32)
		return NULL;
	u = xstrndup(v, n);
	for (char *c = u; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	return u;
}

static struct luks_detached *entry_for(struct stack *s, const char *uuid)
{
	struct luks_detached *d;

	for (size_t i = 0; i < s->ndetached; i++)
		if (s->detached[i].uuid && stack_uuid_eq(s->detached[i].uuid, uuid))
			return &s->detached[i];
	ARRAY_GROW(s->detached, s->capdetached, s->ndetached + 1);
	d = &s->detached[s->ndetached++];
	memset(d, 0, sizeof(*d));
	d->uuid = xstrdup(uuid);
	d->line = -1;
	return d;
}

void luks_header_parse(struct stack *s, const char *key, const char *v)
{
	bool hdr = !strcmp(key, "rd.luks.header");
	/* the UUID ends at the first '=' after its own "UUID=" */
	const char *eq = v ? strchr(!strncasecmp(v, "UUID=", 5) ? v + 5 : v, '=') : NULL;
	char *uuid = eq ? uuid_of(v, (size_t)(eq - v)) : NULL;
	const char *val = eq ? eq + 1 : NULL;
	struct luks_detached *d;

	if (!uuid || !*val || (hdr ? !luks_header_valid(val) : !blockdev_spec_valid(val))) {
		log_warn("ignoring %s=%s: expected %s=UUID=%s", key, v ? v : "", key,
			 hdr ? "/FILE, /dev/NODE or /FILE:DEVICE" : "DEVICE");
		free(uuid);
		return;
	}
	d = entry_for(s, uuid);
	free(uuid);
	free(hdr ? d->header : d->data);
	*(hdr ? &d->header : &d->data) = xstrdup(val);
}

/* at the same place in LUKS1 and LUKS2 */
int luks_header_file_uuid(struct stack_env *env, const char *path, char uuid[40])
{
	int fd = env->ops->open(path, O_RDONLY | O_CLOEXEC, 0);
	ssize_t n = -1;

	if (fd >= 0) {
		n = pread(fd, uuid, 40, 168);
		close(fd);
	}
	if (n != 40 || !uuid[0])
		return -EINVAL;
	uuid[39] = '\0';
	for (char *c = uuid; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || *c == '-'))
			return -EINVAL;
	return 0;
}

void luks_header_setup(struct stack_env *env)
{
	struct stack *s = env->stack;
	char huuid[40];

	for (size_t i = 0; i < s->ndetached; i++)
		if (!s->detached[i].header)
			log_warn("ignoring rd.luks.data=%s=%s: no rd.luks.header= for that UUID",
				 s->detached[i].uuid, s->detached[i].data);
	for (size_t i = 0; !s->crypttab_off && i < s->crypttab.n; i++) {
		const struct crypttab_entry *e = &s->crypttab.v[i];
		const char *hdr = s->ct_opts[i].header;
		bool in_image = hdr && hdr[0] == '/' && !luks_header_devpart(hdr) && strncmp(hdr, "/dev/", 5);
		char *uuid = uuid_of(e->device, strlen(e->device));
		struct luks_detached *d;
		if (!hdr) {
			free(uuid);
			continue;
		}
		/* the header's own UUID: the prompt names it, and a line's
		 * UUID= must be it */
		if (!in_image || luks_header_file_uuid(env, hdr, huuid) < 0)
			huuid[0] = '\0';
		if (uuid && huuid[0] && !stack_uuid_eq(uuid, huuid)) {
			log_warn("/etc/crypttab %s: its header %s holds LUKS UUID=%s, not %s; not "
				 "opening it", e->name, hdr, huuid, uuid);
			free(uuid);
			continue;
		}
		if (uuid) { /* the command line's rd.luks.header= for it wins */
			d = entry_for(s, uuid);
			if (!d->header)
				d->header = xstrdup(hdr);
		} else { /* the source names the data device itself */
			ARRAY_GROW(s->detached, s->capdetached, s->ndetached + 1);
			d = &s->detached[s->ndetached++];
			memset(d, 0, sizeof(*d));
			d->uuid = huuid[0] ? xstrdup(huuid) : NULL;
			d->header = xstrdup(hdr);
			d->data = xstrdup(e->device);
		}
		d->line = (long)i;
		free(uuid);
	}
}

bool luks_header_names(const struct stack *s, const char *uuid)
{
	for (size_t i = 0; uuid && i < s->ndetached; i++)
		if (s->detached[i].header && s->detached[i].uuid &&
		    stack_uuid_eq(s->detached[i].uuid, uuid))
			return true;
	return false;
}

/* bd is where an entry's header is, or another entry's named data. */
static bool taken(const struct stack *s, const struct blockdev *bd)
{
	for (size_t i = 0; i < s->ndetached; i++) {
		const struct luks_detached *d = &s->detached[i];
		const char *c = d->header ? luks_header_devpart(d->header) : NULL;
		if (d->data && blockdev_matches(bd, d->data))
			return true;
		if (c && blockdev_matches(bd, c + 1))
			return true;
		if (d->header && !c && blockdev_matches(bd, d->header))
			return true;
	}
	return false;
}

/* A disk whose first partition is there holds a partition table: not
 * the data of a header (blkid names no TYPE for either). */
static bool has_partitions(struct stack_env *env, const struct blockdev *bd)
{
	const char *fmt[] = { "/sys/class/block/%s/%s1", "/sys/class/block/%s/%sp1" };
	bool r = false;

	for (size_t i = 0; bd->name && i < 2 && !r; i++) {
		char *p = xasprintf(fmt[i], bd->name, bd->name);
		r = env->ops->access(p, F_OK) == 0;
		free(p);
	}
	return r;
}

/* Devices that are never a disk's data: the init's own loop devices
 * (its squashfs), RAM disks, optical drives, and what a layer made. */
static bool not_a_disk(const struct blockdev *bd)
{
	static const char *const skip[] = { "loop", "ram", "zram", "sr", "md", "dm-" };

	if (bd->dmname || !bd->name)
		return true;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(bd->name, skip[i], strlen(skip[i])))
			return true;
	return false;
}

struct luks_detached *luks_header_data_of(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;
	bool blind = !bd->type && !not_a_disk(bd) && !taken(s, bd);

	if (s->luks_off)
		return NULL;
	for (size_t i = 0; i < s->ndetached; i++) {
		struct luks_detached *d = &s->detached[i];
		if (d->done || !d->header || (d->line >= 0 && s->crypttab_off && !d->data))
			continue;
		if (d->data ? !blockdev_matches(bd, d->data) : !blind || has_partitions(env, bd))
			continue;
		d->done = true;
		return d;
	}
	return NULL;
}

void luks_header_report(const struct stack *s)
{
	for (size_t i = 0; i < s->ndetached; i++) {
		const struct luks_detached *d = &s->detached[i];
		if (d->done || !d->header)
			continue;
		if (d->data)
			log_err("waited for the data device %s of LUKS UUID=%s (header %s) which "
				"never appeared", d->data, d->uuid ? d->uuid : "?", d->header);
		else
			log_err("waited for the data device of LUKS UUID=%s (header %s): no device "
				"without a signature appeared; name it with rd.luks.data=%s=DEVICE",
				d->uuid, d->header, d->uuid);
	}
}

void luks_header_free(struct stack *s)
{
	for (size_t i = 0; i < s->ndetached; i++) {
		free(s->detached[i].uuid);
		free(s->detached[i].header);
		free(s->detached[i].data);
	}
	free(s->detached);
	s->detached = NULL;
	s->ndetached = s->capdetached = 0;
}

void luks_hdr_src_set(struct luks_hdr_src *h, const char *spec)
{
	const char *c = luks_header_devpart(spec);

	luks_hdr_src_free(h);
	if (c) {
		h->path = xstrndup(spec, (size_t)(c - spec));
		h->dev = xstrdup(c + 1);
	} else if (!strncmp(spec, "/dev/", 5)) {
		h->dev = xstrdup(spec);
	} else {
		h->path = xstrdup(spec);
	}
}

bool luks_hdr_src_waits(const struct luks_hdr_src *h)
{
	return h->dev && !h->node;
}

bool luks_hdr_src_seen(struct luks_hdr_src *h, const struct blockdev *bd)
{
	if (!luks_hdr_src_waits(h) || !blockdev_matches(bd, h->dev))
		return false;
	h->node = xstrdup(bd->devnode);
	h->type = bd->type ? xstrdup(bd->type) : NULL;
	return true;
}

const char *luks_hdr_src_fetch(struct stack_env *env, struct luks_hdr_src *h, const char *devnode)
{
	static unsigned n;
	int fd, r;

	if (!h->dev) {
		if (env->ops->access(h->path, R_OK) == 0)
			return h->path;
		log_err("the LUKS header %s for %s is not in this image", h->path, devnode);
		return NULL;
	}
	if (!h->node) {
		log_err("the LUKS header's device %s for %s did not appear", h->dev, devnode);
		return NULL;
	}
	if (!h->path)
		return h->node;
	/* cryptsetup reads the header while it opens, and the prompt may
	 * wait long: a copy in /run, not the device kept mounted */
	free(h->copy);
	h->copy = xasprintf("/run/uniramfs/luks-header.%u", n++);
	env->ops->mkdir("/run/uniramfs", 0755);
	fd = env->ops->open(h->copy, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	r = fd < 0 ? fd : luks_header_copy(env, h->node, h->type, h->dev, h->path, fd);
	if (fd < 0)
		log_err("cannot write %s: %s", h->copy, strerror(-fd));
	else
		close(fd);
	if (r < 0) {
		log_err("no LUKS header for %s: %s on %s could not be read", devnode, h->path, h->dev);
		luks_hdr_src_done(env, h);
		return NULL;
	}
	return h->copy;
}

void luks_hdr_src_done(struct stack_env *env, struct luks_hdr_src *h)
{
	if (h->copy)
		env->ops->unlink(h->copy);
	free(h->copy);
	h->copy = NULL;
}

void luks_hdr_src_free(struct luks_hdr_src *h)
{
	free(h->path);
	free(h->dev);
	free(h->node);
	free(h->type);
	free(h->copy);
	memset(h, 0, sizeof(*h));
}
