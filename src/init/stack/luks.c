// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS1 and LUKS2: which headers to open, under which name, with which
 * key, and the passphrase prompt with its tries. cryptsetup does the
 * work; the passphrase reaches it through a pipe, never argv. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/driverq.h"
#include "init/dev/gptauto.h"
#include "init/remote/askpass.h"
#include "init/stack/luks_clevis.h"
#include "init/stack/luks_keyscript.h"
#include "init/stack/passcache.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"

/* cryptsetup's limit for a typed passphrase (DEFAULT_PASSPHRASE_SIZE_MAX):
 * one it made is never longer, so a longer answer is a typing error. */
#define MAX_PASSPHRASE 512

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

/* What an unlock job needs, its own copies: the registry's device may
 * change or go while it runs. */
struct unlock {
	char *devnode, *uuid, *name, *key; /* key NULL: ask */
	char *keydev;                      /* the device holding key; NULL: the image */
	char *keynode, *keytype;           /* keydev's node and filesystem, once seen */
	bool generic; /* no rd.luks.uuid/name, no crypttab entry: only while the root is to come */
	bool net_waited; /* parked for clevis's network once: key and tokens were tried */
	const struct crypttab_entry *ct; /* its crypttab line (the stack's, for the boot), or NULL */
	struct luks_opts opts;
	struct luks_hdr_src hdr; /* a detached header: where it is */
};

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

/* The job's unlock moves to the list (the job frees an empty one), to
 * be queued again when the network is up or at half time. */
static void park_for_net(struct stack *s, struct unlock *u)
{
	struct unlock *w = xmalloc(sizeof(*w));

	*w = *u;
	memset(u, 0, sizeof(*u));
	luks_opts_init(&u->opts);
	w->net_waited = true;
	ARRAY_GROW(s->net_waiting, s->capnet_waiting, s->nnet_waiting + 1);
	s->net_waiting[s->nnet_waiting++] = w;
}


static const char *const luks_modules[] = { "dm_mod", "dm_crypt", "xts", "ecb", "essiv", "cbc",
					    NULL };

/* cryptsetup open --type luks [OPTIONS] DEV NAME --key-file=X. keyfile:
 * X is a key file (its offset and size apply), not a typed passphrase. */
static int open_with(struct stack_env *env, const struct unlock *u, const char *keyarg, bool keyfile,
		     const void *input, size_t len)
{
	char *kf = xasprintf("--key-file=%s", keyarg), scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
	const char *argv[8 + LUKS_OPEN_ARGV];
	size_t n = 0;
	int st;

	argv[n++] = "cryptsetup";
	argv[n++] = "open";
	argv[n++] = "--type";
	argv[n++] = "luks";
	n += luks_opts_argv(&u->opts, LUKS_ARGV_SECRET | (keyfile ? LUKS_ARGV_KEYFILE : 0), argv + n,
			    scratch);
	argv[n++] = u->devnode;
	argv[n++] = u->name;
	argv[n++] = kf;
	argv[n] = NULL;
	st = tool_run(env, "cryptsetup", (char *const *)argv, input, len);
	free(kf);
	return st;
}

/* The key on its own device, through cryptsetup's stdin like a typed
 * passphrase: the device is unmounted before cryptsetup runs. */
static bool try_keydev(struct stack_env *env, const struct unlock *u)
{
	struct buf key = { 0 };
	int st = -1;

	if (!u->keynode)
		log_warn("the key's device %s for %s did not appear; asking for the passphrase",
			 u->keydev, u->devnode);
	else if (luks_key_read(env, u->keynode, u->keytype, u->keydev, u->key, &key) == 0)
		st = open_with(env, u, "-", true, key.p ? key.p : "", key.len);
	if (key.p)
		explicit_bzero(key.p, key.len);
	buf_free(&key);
	if (st > 0)
		log_warn("key file %s on %s does not unlock %s; asking for the passphrase", u->key,
			 u->keydev, u->devnode);
	return st == 0;
}

static bool try_keyfile(struct stack_env *env, const struct unlock *u)
{
	int st;

	if (u->keydev)
		return try_keydev(env, u);
	if (env->ops->access(u->key, R_OK) < 0) {
		log_warn("key file %s for %s is not in this image; asking for the passphrase",
			 u->key, u->devnode);
		return false;
	}
	st = open_with(env, u, u->key, true, NULL, 0);
	if (st == 0)
		return true;
	if (st > 0)
		log_warn("key file %s does not unlock %s; asking for the passphrase", u->key,
			 u->devnode);
	return false;
}

/* 1: unlocked; 0: all tries wrong; a negative code: cannot go on (no
 * console, cryptsetup failed otherwise). */
static int ask(struct stack_env *env, const struct unlock *u)
{
	/* a layout other than the kernel's US one is named: typing for
	 * another explains a wrong passphrase */
	char *prompt = env->keymap ? xasprintf("Passphrase for %s (%s, keymap %s): ", u->devnode,
					       u->uuid, env->keymap)
				   : xasprintf("Passphrase for %s (%s): ", u->devnode, u->uuid);
	char pass[MAX_PASSPHRASE + 2]; /* one more: to see that it was longer */
	/* the UUID is the disk's own text, and the prompt goes to the
	 * console and SSH clients without the log: escaped as the log is */
	size_t plen = strlen(prompt) * 4 + 1;
	char *raw = prompt;

	prompt = xmalloc(plen);
	log_escape(prompt, plen, raw);
	free(raw);
	/* crypttab's tries= wins; 0 asks until it is right, as systemd does */
	long tries = u->opts.tries >= 0 ? u->opts.tries : env->stack->tries;
	int r = 0;

	/* whoever types needs a keyboard: every queued driver loads now */
	driverq_load_all(env->drivers);
	for (long t = 0; tries == 0 || t < tries; t++) {
		ssize_t n = env->xops->read_secret
				    ? env->xops->read_secret(prompt, pass, sizeof(pass), env->loop,
							     env->remote)
				    : err_set("no console");
		int st;
		if (n < 0) {
			log_err("cannot read a passphrase for %s: %s", u->devnode, err_msg());
			r = (int)n;
			break;
		}
		if (n > MAX_PASSPHRASE) {
			explicit_bzero(pass, sizeof(pass));
			log_err("the passphrase for %s is longer than %d characters, the most "
				"cryptsetup takes typed; not trying it", u->devnode, MAX_PASSPHRASE);
			askpass_tell(env->remote, "passphrase too long");
			continue;
		}
		st = open_with(env, u, "-", false, pass, (size_t)n);
		if (st == 0 && passcache_add(env->xops, pass, (size_t)n) < 0)
			log_warn("%s; the root's own crypttab volumes will ask again", err_msg());
		explicit_bzero(pass, sizeof(pass));
		if (st == 0) {
			askpass_tell(env->remote, "unlocked");
			r = 1;
			break;
		}
		if (st != 2) { /* 2: no key slot opened with it */
			if (st > 0)
				log_err("cryptsetup could not open %s (exit status %d)", u->devnode, st);
			r = st < 0 ? st : -EIO;
			break;
		}
		log_err("wrong passphrase for %s", u->devnode);
		askpass_tell(env->remote, "wrong passphrase"); /* SSH logins too */
	}
	free(prompt);
	return r;
}

struct cached_try {
	struct stack_env *env;
	const struct unlock *u;
};

/* a keyscript's output, as a key file is given */
static int open_keyfile(void *ctx, const void *key, size_t len)
{
	struct cached_try *c = ctx;

	return open_with(c->env, c->u, "-", true, key, len);
}

static bool open_cached(void *ctx, const char *pass, size_t len)
{
	struct cached_try *c = ctx;

	return open_with(c->env, c->u, "-", false, pass, len) == 0;
}

/* A passphrase typed for another volume in this boot, tried before
 * asking (systemd-cryptsetup's accept_cached): one typing opens every
 * volume that shares it. A wrong one costs a key derivation, no try. */
static bool try_cached(struct stack_env *env, const struct unlock *u)
{
	struct cached_try c = { env, u };

	if (!passcache_each(env->xops, open_cached, &c))
		return false;
	log_info("%s: opened with a passphrase typed earlier in this boot", u->devnode);
	return true;
}

/* 1: unlocked; 0: every try wrong; negative: not opened otherwise
 * (said); 2: parked for the network. */
static int unlock_run(struct stack_env *env, struct unlock *u)
{
	enum luks_clevis c;
	long long t0;
	int r;

	if (!u->net_waited && ((u->key && try_keyfile(env, u)) ||
			       luks_token_try(env, u->devnode, u->name, &u->opts))) {
		r = 1;
		env->stack->auto_unlocked = true;
	} else if ((c = luks_clevis_try(env, u->devnode, u->name, &u->opts,
					u->net_waited || env->stack->half_time_done)) ==
		   LUKS_CLEVIS_WAIT) {
		luks_hdr_src_done(env, &u->hdr); /* fetched again when it runs again */
		park_for_net(env->stack, u);
		return 2;
	} else if (c == LUKS_CLEVIS_OPENED) {
		r = 1;
		env->stack->auto_unlocked = true;
	} else if (u->opts.keyscript) {
		struct cached_try c = { env, u };
		struct luks_keyscript ks = { u->opts.keyscript, u->name, u->devnode,
			u->ct && u->ct->keyfield ? u->ct->keyfield : "none", u->ct ? u->ct->options : "",
			u->opts.tries >= 0 ? u->opts.tries : env->stack->tries };
		r = luks_keyscript_unlock(env, &ks, open_keyfile, &c);
		/* it may have asked a person; nobody can tell (docs/unlock.md) */
		if (r == 1)
			env->stack->auto_unlocked = true;
	} else if (try_cached(env, u)) {
		r = 1;
	} else if (u->opts.headless) {
		log_err("%s: not asking for its passphrase: headless", u->devnode);
		r = -1;
	} else {
		t0 = env->ops->now_ms();
		r = ask(env, u);
		/* A person typing does not count against rd.timeout. */
		*env->stall_ms += env->ops->now_ms() - t0;
	}
	return r;
}

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
		r = unlock_run(env, u);
	luks_hdr_src_done(env, &u->hdr);
	if (r == 2)
		return JOB_DONE;
	if (r == 1)
		log_info("unlocked %s as /dev/mapper/%s", u->devnode, u->name);
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

static void luks_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;
	const struct crypttab_entry *e = NULL;
	struct unlock *u;
	size_t at;
	bool wanted, generic = false;

	if (s->luks_off || !bd->uuid)
		return;
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
