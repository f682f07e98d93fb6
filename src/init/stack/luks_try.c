// SPDX-License-Identifier: GPL-2.0-or-later
/* Opening one LUKS volume: each key in turn, then the prompt with its
 * tries. cryptsetup does the work; the passphrase reaches it through a
 * pipe, never argv. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/driverq.h"
#include "init/remote/askpass.h"
#include "init/remote/plymouth.h"
#include "init/stack/luks_clevis.h"
#include "init/stack/luks_keyscript.h"
#include "init/stack/luks_unlock.h"
#include "init/stack/passcache.h"
#include "log.h"

/* cryptsetup's limit for a typed passphrase (DEFAULT_PASSPHRASE_SIZE_MAX):
 * one it made is never longer, so a longer answer is a typing error. */
#define MAX_PASSPHRASE 512

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

	/* whoever types needs a keyboard (and the splash its screen) now;
	 * the other queued drivers load while the question waits */
	driverq_load_for_question(env->drivers, plymouth_wanted());
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

	char *msg;

	if (!passcache_each(env->xops, open_cached, &c))
		return false;
	msg = xasprintf("%s: opened with a passphrase typed earlier in this boot", u->devnode);
	log_info("%s", msg);
	/* an SSH login that typed it is still there: it learns that its
	 * answer opened this one too, not only the device it was asked for */
	askpass_tell(env->remote, msg);
	free(msg);
	return true;
}

int luks_unlock_run(struct stack_env *env, struct unlock *u)
{
	enum luks_clevis c;
	long long t0;
	int r, tok = 0;

	if (!u->net_waited && ((u->key && try_keyfile(env, u)) ||
			       (tok = luks_token_try(env, u->devnode, u->name, &u->opts)) > 0)) {
		r = 1;
		/* a token's PIN was typed: no automatic unlock (docs/unlock.md) */
		if (tok != 2)
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

