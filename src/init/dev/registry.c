// SPDX-License-Identifier: GPL-2.0-or-later
/* The device registry: probe, link, remember, tell the subscribers. */
#include "init/dev/registry.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "util.h"

void registry_init(struct registry *r, const struct sysops *ops)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
}

void registry_subscribe(struct registry *r, dev_subscriber_fn fn, void *arg)
{
	if (r->nsubs == REGISTRY_MAX_SUBSCRIBERS)
		abort(); /* a programming error, not an input */
	r->subs[r->nsubs].fn = fn;
	r->subs[r->nsubs].arg = arg;
	r->nsubs++;
}

static void publish(struct registry *r, enum dev_change what, const struct blockdev *bd)
{
	for (size_t i = 0; i < r->nsubs; i++)
		r->subs[i].fn(r->subs[i].arg, what, bd);
}

static long find(const struct registry *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return (long)i;
	return -1;
}

static void forget(struct registry *r, size_t i)
{
	struct blockdev gone = r->v[i];

	log_debug("block device %s went away", gone.devnode);
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(*r->v));
	r->n--;
	r->last_change_ms = r->ops->now_ms();
	if (gone.claim == DEV_FREE)
		publish(r, DEV_REMOVED, &gone);
	blockdev_clear(&gone);
}

/* "sda" for a partition's "/devices/.../block/sda/sda1". */
static char *parent_of(const struct uevent *ev)
{
	const char *last, *prev;

	if (!ev->devtype || strcmp(ev->devtype, "partition") || !ev->devpath)
		return NULL;
	if (!(last = strrchr(ev->devpath, '/')) || last == ev->devpath)
		return NULL;
	for (prev = last - 1; prev > ev->devpath && *prev != '/'; prev--)
		;
	return *prev == '/' ? xstrndup(prev + 1, (size_t)(last - prev - 1)) : NULL;
}

static void add_or_change(struct registry *r, const struct uevent *ev)
{
	struct blockdev bd = { 0 };
	char *parent;
	long i;

	bd.name = xstrdup(ev->devname);
	bd.devnode = xasprintf("/dev/%s", ev->devname);
	bd.major = ev->major;
	bd.minor = ev->minor;
	if (blockdev_empty(r->ops, bd.name))
		log_debug("%s: empty, not probed", bd.devnode);
	else if (blockdev_probe(r->ops, &bd) < 0)
		log_debug("%s: %s", bd.devnode, err_msg());
	if (blockdev_make_links(r->ops, &bd) < 0)
		log_warn("%s", err_msg());
	log_debug("block device %s (%u:%u)", bd.devnode, bd.major, bd.minor);
	bd.seen = r->scan_gen;
	r->last_change_ms = r->ops->now_ms();
	/* Seen before (coldplug and netlink both report it, or a change
	 * after a new filesystem): the newest probe wins. */
	i = find(r, bd.name);
	if (i >= 0) {
		bd.claim = r->v[i].claim; /* held or claimed stays so */
		blockdev_clear(&r->v[i]);
		r->v[i] = bd;
		if (bd.claim == DEV_FREE)
			publish(r, DEV_CHANGED, &r->v[i]);
		return;
	}
	if (r->hold) {
		parent = parent_of(ev);
		bd.claim = r->hold(r->hold_arg, &bd, parent);
		free(parent);
	}
	ARRAY_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = bd;
	if (bd.claim == DEV_FREE)
		publish(r, DEV_ADDED, &r->v[r->n - 1]);
}

void registry_release(struct registry *r, const char *name, bool claimed)
{
	long i = find(r, name);

	if (i < 0 || r->v[i].claim != DEV_HELD)
		return;
	r->v[i].claim = claimed ? DEV_CLAIMED : DEV_FREE;
	r->last_change_ms = r->ops->now_ms();
	if (!claimed)
		publish(r, DEV_ADDED, &r->v[i]);
}

void registry_claim(struct registry *r, const char *name)
{
	long i = find(r, name);

	if (i < 0 || r->v[i].claim == DEV_CLAIMED)
		return;
	if (r->v[i].claim == DEV_FREE)
		publish(r, DEV_REMOVED, &r->v[i]);
	r->v[i].claim = DEV_CLAIMED;
	r->last_change_ms = r->ops->now_ms();
}

void registry_ignore(struct registry *r, const char *name)
{
	strv_push(&r->ignored, name);
}

static bool ignored(const struct registry *r, const char *name)
{
	for (size_t i = 0; i < r->ignored.n; i++)
		if (!strcmp(r->ignored.v[i], name))
			return true;
	return false;
}

void registry_event(struct registry *r, const struct uevent *ev)
{
	long i;

	if (!ev->action || !ev->devname || ignored(r, ev->devname))
		return;
	if (!strcmp(ev->action, "remove")) {
		if ((i = find(r, ev->devname)) >= 0)
			forget(r, (size_t)i);
	} else if (!strcmp(ev->action, "add") || !strcmp(ev->action, "change")) {
		add_or_change(r, ev);
	}
}

void registry_scan_begin(struct registry *r)
{
	r->scan_gen++;
}

void registry_scan_end(struct registry *r)
{
	for (size_t i = r->n; i-- > 0;)
		if (r->v[i].seen != r->scan_gen)
			forget(r, i);
}

const struct blockdev *registry_get(const struct registry *r, const char *name)
{
	long i = name ? find(r, name) : -1;

	return i >= 0 ? &r->v[i] : NULL;
}

/* PARTUUID=U/PARTNROFF=N: the free partition N places from U's on its
 * disk, once both are known (either may come first). */
static const struct blockdev *match_offset(const struct registry *r, const char *partuuid, int off)
{
	char *anchor_spec = xasprintf("PARTUUID=%s", partuuid);
	const struct blockdev *found = NULL;

	for (size_t a = 0; !found && a < r->n; a++) {
		if (!blockdev_matches(&r->v[a], anchor_spec))
			continue;
		for (size_t i = 0; !found && i < r->n; i++)
			if (r->v[i].claim == DEV_FREE && blockdev_is_offset_of(&r->v[i], &r->v[a], off))
				found = &r->v[i];
	}
	free(anchor_spec);
	return found;
}

const struct blockdev *registry_match(const struct registry *r, const char *spec)
{
	char *partuuid;
	int off;

	if (blockdev_partnroff(spec, &partuuid, &off)) {
		const struct blockdev *found = match_offset(r, partuuid, off);
		free(partuuid);
		return found;
	}
	for (size_t i = 0; spec && i < r->n; i++)
		if (r->v[i].claim == DEV_FREE && (blockdev_matches(&r->v[i], spec) ||
						  blockdev_link_matches(r->ops, &r->v[i], spec)))
			return &r->v[i];
	return NULL;
}

const struct blockdev *registry_named(const struct registry *r, const struct blockdev *bd,
				      const char *spec)
{
	if (blockdev_matches(bd, spec))
		return bd;
	return blockdev_partnroff(spec, NULL, NULL) ? registry_match(r, spec) : NULL;
}

void registry_free(struct registry *r)
{
	for (size_t i = 0; i < r->n; i++)
		blockdev_clear(&r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
	strv_free(&r->ignored);
}
