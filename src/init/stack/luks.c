// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS1 and LUKS2: which headers to open, under which name, and when:
 * the jobs, their waits for key and header devices and the network.
 * With which key is luks_try.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/gptauto.h"
#include "init/stack/luks_measure.h"
#include "init/stack/luks_unlock.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"

static void luks_setup(struct stack_env *env)
{
	int r = crypttab_read(env->ops, LAYOUT_CRYPTTAB, &env->stack->crypttab);

	if (r < 0 && r != -ENOENT)
		log_warn("%s", err_msg());
	luks_crypttab_opts(env->stack);
	luks_header_setup(env);
}

static bool in_list(const struct strv *l, const char *uuid, size_t *at)
{
	for (size_t i = 0; i < l->n; i++) {
		if (stack_uuid_eq(l->v[i], uuid)) {
			if (at)
				*at = i;
			return true;
		}
	}
	return false;
}

static void unlock_free(void *data)
{
	struct unlock *u = data;

	free(u->devnode);
	free(u->uuid);
	free(u->name);
	free(u->key);
	luks_opts_free(&u->opts);
	free(u->keydev);
	free(u->keynode);
	free(u->keytype);
	luks_hdr_src_free(&u->hdr);
	free(u);
}

void luks_free_waiting(struct stack *s)
{
	for (size_t i = 0; i < s->nwaiting; i++)
		unlock_free(s->waiting[i]);
	free(s->waiting);
	s->waiting = NULL;
	s->nwaiting = s->capwaiting = 0;
	for (size_t i = 0; i < s->nnet_waiting; i++)
		unlock_free(s->net_waiting[i]);
	free(s->net_waiting);
	s->net_waiting = NULL;
	s->nnet_waiting = s->capnet_waiting = 0;
}


static const char *const luks_modules[] = { "dm_mod", "dm_crypt", "xts", "ecb", "essiv", "cbc",
					    NULL };

static enum job_result unlock_job(void *arg, void *data)
{
	struct stack_env *env = arg;
	struct unlock *u = data;
	const char *hdr = NULL;
	int r = -1;

	if (u->generic && stack_root_found(env)) {
		log_info("%s: LUKS UUID=%s left locked: the root is already there", u->devnode,
			 u->uuid);
		return JOB_DONE;
	}
	stack_load_modules(env, "luks", luks_modules);
	/* cryptsetup's lock directory; it warns on every open without it */
	env->ops->mkdir("/run/cryptsetup", 0700);
	if ((u->hdr.path || u->hdr.dev) && (hdr = luks_hdr_src_fetch(env, &u->hdr, u->devnode))) {
		free(u->opts.header);
		u->opts.header = xstrdup(hdr);
	}
	if (!(u->hdr.path || u->hdr.dev) || hdr)
		r = luks_unlock_run(env, u);
	luks_hdr_src_done(env, &u->hdr);
	if (r == 2)
		return JOB_DONE;
	if (r == 1) {
		log_info("unlocked %s as /dev/mapper/%s", u->devnode, u->name);
		luks_measure(env, &u->opts, u->name, u->uuid); /* tpm2-measure-pcr= */
	}
	if (r == 0 && !u->opts.keyscript) /* luks_keyscript_unlock said it */
		log_err("giving up on %s after %ld wrong passphrases", u->devnode,
			u->opts.tries >= 0 ? u->opts.tries : env->stack->tries);
	if (r <= 0 && u->opts.nofail) {
		log_warn("%s: nofail: the boot goes on without /dev/mapper/%s", u->devnode, u->name);
		return JOB_DONE;
	}
	if (r != 0) /* not opened otherwise: said, and the root's wait names it */
		return JOB_DONE;
	free(u->key);
	u->key = NULL; /* the retry asks */
	return JOB_FAILED;
}

/* A key on another device: the unlock waits for that device (queued
 * when it appears, or half way through rd.timeout to ask instead). */
static void key_found(struct unlock *u, const struct blockdev *kd)
{
	u->keynode = xstrdup(kd->devnode);
	u->keytype = kd->type ? xstrdup(kd->type) : NULL;
}

static bool key_waits(const struct unlock *u)
{
	return u->keydev && !u->keynode;
}

static void queue_or_wait(struct stack_env *env, struct unlock *u)
{
	struct stack *s = env->stack;
	const struct blockdev *kd = u->keydev ? registry_match(env->devs, u->keydev) : NULL;
	const struct blockdev *hd = u->hdr.dev ? registry_match(env->devs, u->hdr.dev) : NULL;

	if (kd)
		key_found(u, kd);
	if (hd)
		luks_hdr_src_seen(&u->hdr, hd);
	if (key_waits(u) || luks_hdr_src_waits(&u->hdr)) {
		if (key_waits(u))
			log_info("%s: waiting for the key's device %s", u->devnode, u->keydev);
		if (luks_hdr_src_waits(&u->hdr))
			log_info("%s: waiting for the LUKS header's device %s", u->devnode, u->hdr.dev);
		ARRAY_GROW(s->waiting, s->capwaiting, s->nwaiting + 1);
		s->waiting[s->nwaiting++] = u;
		return;
	}
	stack_queue(env, "unlock", unlock_job, u, unlock_free);
}

static void header_device_seen(struct stack_env *env, const struct blockdev *bd);

void luks_any_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;

	header_device_seen(env, bd);
	for (size_t i = 0; i < s->nwaiting;) {
		struct unlock *u = s->waiting[i];
		bool key = key_waits(u) && blockdev_matches(bd, u->keydev);
		if (key)
			key_found(u, bd);
		if ((!luks_hdr_src_seen(&u->hdr, bd) && !key) || key_waits(u) ||
		    luks_hdr_src_waits(&u->hdr)) {
			i++;
			continue;
		}
		memmove(s->waiting + i, s->waiting + i + 1, (s->nwaiting - i - 1) * sizeof(*s->waiting));
		s->nwaiting--;
		stack_queue(env, "unlock", unlock_job, u, unlock_free);
	}
}

static bool queue_net_waiting(struct stack_env *env)
{
	struct stack *s = env->stack;
	bool did = s->nnet_waiting > 0;

	for (size_t i = 0; i < s->nnet_waiting; i++)
		stack_queue(env, "unlock", unlock_job, s->net_waiting[i], unlock_free);
	s->nnet_waiting = 0;
	return did;
}

void luks_net_up(struct stack_env *env)
{
	queue_net_waiting(env);
}

/* Half way: an unlock still waiting for its key's device asks instead;
 * one waiting for its header's device cannot open anything without it
 * and waits on (the root's timeout names it). */
static bool luks_half_time(struct stack_env *env)
{
	struct stack *s = env->stack;
	bool did = false;

	for (size_t i = 0; i < s->nwaiting;) {
		if (luks_hdr_src_waits(&s->waiting[i]->hdr)) {
			i++;
			continue;
		}
		stack_queue(env, "unlock", unlock_job, s->waiting[i], unlock_free);
		memmove(s->waiting + i, s->waiting + i + 1, (s->nwaiting - i - 1) * sizeof(*s->waiting));
		s->nwaiting--;
		did = true;
	}
	return queue_net_waiting(env) || did; /* the network's bound too */
}

static struct unlock *new_unlock(struct stack_env *env, const struct blockdev *bd,
				 const struct crypttab_entry *e, const char *uuid, const char *name)
{
	struct stack *s = env->stack;
	const struct luks_key *k = luks_key_for(s, bd, bd->uuid ? NULL : uuid);
	struct unlock *u = xcalloc(1, sizeof(*u));

	u->devnode = xstrdup(bd->devnode);
	u->uuid = xstrdup(uuid);
	if (name)
		u->name = xstrdup(name);
	else if (e)
		u->name = xstrdup(e->name);
	else
		u->name = xasprintf("luks-%s", uuid);
	u->ct = e;
	luks_opts_for(s, e, uuid, &u->opts);
	if (u->opts.header) { /* fetched when the unlock runs */
		luks_hdr_src_set(&u->hdr, u->opts.header);
		free(u->opts.header);
		u->opts.header = NULL;
	}
	if (k) {
		u->key = xstrdup(k->path);
		u->keydev = k->keydev ? xstrdup(k->keydev) : NULL;
	} else if (e && e->keyfile && !u->opts.keyscript) { /* else the keyscript's argument */
		/* crypttab's KEYFILE:KEYDEV (systemd's form) */
		const char *c = strchr(e->keyfile, ':');
		u->key = c ? xstrndup(e->keyfile, (size_t)(c - e->keyfile)) : xstrdup(e->keyfile);
		u->keydev = c && c[1] ? xstrdup(c + 1) : NULL;
	}
	return u;
}

/* Root discovery names a LUKS partition of the root or usr type as
 * systemd does, unless crypttab names it; the no-auto attribute keeps
 * the name from it (discovery does not take it). */
static const char *dps_name(const struct stack *s, const struct blockdev *bd,
			    const struct crypttab_entry *e)
{
	if (!s->dps || e || (bd->partflags & DPS_FLAG_NO_AUTO))
		return NULL;
	return dps_mapper_name(dps_kind(bd->parttype));
}

/* A device rd.overlay.crypt= formatted at an earlier boot: its key is
 * gone, so no passphrase can open it (stages/overlaycrypt.c). */
static bool overlay_crypt_made(struct stack_env *env, const struct blockdev *bd)
{
	unsigned char bin[LUKS2_BIN_HDR];
	char sub[LUKS2_SUBSYSTEM_MAX];
	int fd = env->ops->open(bd->devnode, O_RDONLY | O_CLOEXEC, 0);
	ssize_t got = fd < 0 ? -1 : pread(fd, bin, sizeof(bin), 0);

	if (fd >= 0)
		close(fd);
	return got > 0 && luks2_subsystem(bin, (size_t)got, sub) &&
	       !strcmp(sub, LUKS2_SUBSYSTEM_OVERLAY);
}

static void luks_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;
	const struct crypttab_entry *e = NULL;
	struct unlock *u;
	size_t at;
	bool wanted, generic = false;

	if (s->luks_off || !bd->uuid)
		return;
	if (overlay_crypt_made(env, bd)) {
		log_info("%s: LUKS UUID=%s is a former rd.overlay.crypt= upper layer (its key is "
			 "gone), not opened", bd->devnode, bd->uuid);
		return;
	}
	if (luks_header_names(s, bd->uuid)) {
		log_info("%s: LUKS UUID=%s is a detached header, not opened by itself", bd->devnode,
			 bd->uuid);
		return;
	}
	/* a line with header= names a device with no LUKS signature */
	for (size_t i = 0; !s->crypttab_off && i < s->crypttab.n && !e; i++)
		if (!s->ct_opts[i].header && blockdev_matches(bd, s->crypttab.v[i].device))
			e = &s->crypttab.v[i];
	if (s->luks_uuids.n || s->name_uuids.n) {
		wanted = in_list(&s->luks_uuids, bd->uuid, NULL) ||
			 in_list(&s->name_uuids, bd->uuid, NULL);
	} else if (s->crypttab.n && !s->crypttab_off) {
		wanted = e != NULL;
	} else if (s->auto_off) {
		log_info("%s: LUKS UUID=%s left locked: rd.auto=0, and no rd.luks.uuid= or crypttab "
			 "line names it", bd->devnode, bd->uuid);
		return;
	} else {
		wanted = !stack_root_found(env); /* generic: only while the root is still to come */
		generic = true;
	}
	if (!wanted && stack_root_found(env) && !s->luks_uuids.n && !s->name_uuids.n && !e) {
		log_info("%s: LUKS UUID=%s left locked: the root is already there", bd->devnode,
			 bd->uuid);
		return;
	}
	if (!wanted) {
		log_info("%s: LUKS UUID=%s not asked for, left locked", bd->devnode, bd->uuid);
		return;
	}
	if (stack_once(s, "luks", bd->uuid))
		return;
	if (in_list(&s->name_uuids, bd->uuid, &at))
		u = new_unlock(env, bd, e, bd->uuid, s->name_names.v[at]);
	else
		u = new_unlock(env, bd, e, bd->uuid, dps_name(s, bd, e));
	u->generic = generic;
	queue_or_wait(env, u);
}

/* A device with no LUKS signature may be the data of a detached header
 * (luks_header.c says which); the prompt shows the header's UUID. */
static void header_device_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;
	const struct crypttab_entry *e;
	struct luks_detached *d;
	struct unlock *u;
	const char *name = NULL;
	char uuid[40];
	size_t at;

	if (bd->type && !strcmp(bd->type, "crypto_LUKS"))
		return;
	if (!(d = luks_header_data_of(env, bd)))
		return;
	e = d->line >= 0 ? &s->crypttab.v[d->line] : NULL;
	if (d->uuid)
		snprintf(uuid, sizeof(uuid), "%s", d->uuid);
	else if (!d->header || luks_header_file_uuid(env, d->header, uuid) < 0)
		snprintf(uuid, sizeof(uuid), "header %s", d->header);
	if (d->uuid && in_list(&s->name_uuids, d->uuid, &at))
		name = s->name_names.v[at]; /* the command line's name wins */
	u = new_unlock(env, bd, e, uuid, name);
	luks_hdr_src_set(&u->hdr, d->header); /* rd.luks.header= over the line's */
	log_info("%s: no signature: the data of LUKS UUID=%s, its header %s", bd->devnode, uuid,
		 d->header);
	queue_or_wait(env, u);
}

static void luks_report_missing(struct stack_env *env)
{
	const struct stack *s = env->stack;

	for (size_t i = 0; i < s->luks_uuids.n; i++)
		if (!luks_header_names(s, s->luks_uuids.v[i]) &&
		    !stack_seen_uuid(env, "crypto_LUKS", s->luks_uuids.v[i]))
			log_err("waited for LUKS device UUID=%s (rd.luks.uuid) which never appeared",
				s->luks_uuids.v[i]);
	for (size_t i = 0; i < s->name_uuids.n; i++)
		if (!strv_contains(&s->luks_uuids, s->name_uuids.v[i]) &&
		    !luks_header_names(s, s->name_uuids.v[i]) &&
		    !stack_seen_uuid(env, "crypto_LUKS", s->name_uuids.v[i]))
			log_err("waited for LUKS device UUID=%s (rd.luks.name) which never appeared",
				s->name_uuids.v[i]);
	luks_header_report(s);
	for (size_t i = 0; i < s->nwaiting; i++)
		if (luks_hdr_src_waits(&s->waiting[i]->hdr))
			log_err("waited for the LUKS header's device %s of %s which never appeared",
				s->waiting[i]->hdr.dev, s->waiting[i]->devnode);
}

const struct layer luks_layer = {
	.name = "luks",
	.blkid_type = "crypto_LUKS",
	.makes = "the unlocked device, /dev/mapper/NAME (a dm device)",
	.option = "rd.luks",
	.modules = luks_modules,
	.parse = luks_parse,
	.setup = luks_setup,
	.seen = luks_seen,
	.half_time = luks_half_time,
	.report_missing = luks_report_missing,
};
