// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS2 tokens before the passphrase: `cryptsetup open --token-only`
 * with the plugins the image holds (systemd's tpm2, fido2, pkcs11), and
 * systemd-cryptsetup's option spellings that map onto it. A TPM must be
 * there first: its driver loads from the queue and /dev/tpmrm0 is waited
 * for, a bounded time. A TPM2 token with a PIN asks for it (luks_pin.c).
 * Any failure falls back to the prompt. */
#include "init/stack/luks_token.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "err.h"
#include "init/dev/driverq.h"
#include "init/stack/luks_pin.h"
#include "init/stack/luks_sig.h"
#include "init/stack/stack.h"
#include "init/tpm/tpmwait.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"

#define TPM2_WAIT_ASKED_S 30       /* systemd's token-timeout default */

size_t luks_token_argv(const char **argv, char scratch[LUKS_SCRATCH][LUKS_ARG_MAX], const struct luks_opts *o,
		       const char *dev, const char *name)
{
	size_t n = 0;

	argv[n++] = "cryptsetup";
	argv[n++] = "open";
	argv[n++] = "--token-only";
	if (o->type) {
		argv[n++] = "--token-type";
		argv[n++] = o->type;
	}
	n += luks_opts_argv(o, false, argv + n, scratch);
	argv[n++] = dev;
	argv[n++] = name;
	argv[n] = NULL;
	return n;
}

int luks_header_tokens(struct stack_env *env, const char *dev)
{
	int fd = env->ops->open(dev, O_RDONLY | O_CLOEXEC, 0), r;

	if (fd < 0)
		return fd;
	r = luks2_fd_tokens(fd);
	close(fd);
	return r;
}

/* A bounded wait, said first when there is one (tpm/tpmwait.c). */
bool luks_tpm_wait(struct stack_env *env, const char *dev, const char *path, long secs)
{
	driverq_load_all(env->drivers);
	if (env->ops->access(path, F_OK) == 0)
		return true;
	if (secs)
		log_info("%s: waiting up to %ld s for the TPM2 device %s", dev, secs, path);
	else
		log_info("%s: waiting for the TPM2 device %s (token-timeout=0)", dev, path);
	return tpm_wait(env->ops, env->loop, NULL, path, secs);
}

/* cryptsetup with the plugin's environment: stdin /dev/null, or pin (len
 * bytes) with its stderr read into err then (luks_pin.c judges it). */
static int run_cryptsetup(struct stack_env *env, const char **argv, const char *dev,
			  bool tpm2, const char *tpm2_device, const char *pin, size_t len,
			  char *err, size_t size)
{
	char *path = tool_find(env, "cryptsetup");
	struct strv vars = { 0 };
	int st;

	if (!path) {
		log_err("cannot try the LUKS2 tokens of %s: cryptsetup is not in this image",
			dev);
		return -ENOENT;
	}
	for (char *const *e = env->tool_envp; e && *e; e++)
		strv_push(&vars, *e);
	/* systemd's plugin opens SYSTEMD_TPM2_DEVICE, by default /dev/tpmrm0 */
	if (tpm2_device)
		strv_push_owned(&vars, xasprintf("SYSTEMD_TPM2_DEVICE=device:%s", tpm2_device));
	/* its PCR signature only from LUKS_SIG_RUN (luks_sig.h) */
	if (tpm2)
		strv_push(&vars, "SYSTEMD_IN_INITRD=0");
	if (pin && env->xops->run_stderr)
		st = env->xops->run_stderr(path, (char *const *)argv, vars.v, pin, len, err, size);
	else
		st = env->xops->run ? env->xops->run(path, (char *const *)argv, vars.v, pin, len)
				    : err_set("no way to run programs");
	env->stack->last_run_ms = env->ops->now_ms();
	if (st < 0)
		log_err("cannot run %s: %s", path, err_msg());
	strv_free(&vars);
	free(path);
	return st;
}

struct pin_open {
	struct stack_env *env;
	const char **argv;
	const char *dev, *tpm2_device;
};

static int open_pin(void *ctx, const char *pin, size_t len, char *err, size_t size)
{
	struct pin_open *p = ctx;

	return run_cryptsetup(p->env, p->argv, p->dev, true, p->tpm2_device, pin, len, err, size);
}

static int try_tokens(struct stack_env *env, const char *dev, const char *name,
		      const struct luks_opts *o, bool *sig)
{
	const char *argv[LUKS_TOKEN_ARGV], *tpm = o->tpm2_device ? o->tpm2_device : TPM2_DEFAULT;
	char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
	/* tokens that are no TPM2 one */
	const unsigned other = LUKS2_TOKEN_FIDO2 | LUKS2_TOKEN_PKCS11 | LUKS2_TOKEN_OTHER;
	bool tpm2_only = o->type && !strcmp(o->type, LUKS_TOKEN_TPM2);
	bool want_tpm, tpm_there = false, pin, alone;
	int have, st = -1;

	if (o->off)
		return 0;
	if (env->ops->access(LAYOUT_TOKENS_FILE, F_OK) < 0) {
		if (o->type)
			log_warn("%s: %s asked for, but this image has no LUKS2 token plugins; "
				 "asking for the passphrase", dev, o->type);
		return 0;
	}
	/* a detached header holds the tokens */
	have = luks_header_tokens(env, o->header ? o->header : dev);
	if (have > 0) /* clevis's own token: no plugin opens it (luks_clevis.c) */
		have &= ~(int)LUKS2_TOKEN_CLEVIS;
	if (have <= 0) {
		if (have < 0 && have != -EINVAL)
			log_warn("%s: cannot read its LUKS header: %s", dev, strerror(-have));
		else if (o->type)
			log_warn("%s: %s asked for, but its header has no LUKS2 tokens", dev,
				 o->type);
		return 0;
	}
	want_tpm = o->type ? tpm2_only : (have & LUKS2_TOKEN_TPM2);
	if (want_tpm) {
		tpm_there = luks_tpm_wait(env, dev, tpm,
				     o->timeout_given ? o->timeout_s
				     : o->tpm2_asked  ? TPM2_WAIT_ASKED_S
						      : TPM2_WAIT_HEADER_S);
		if (!tpm_there && (o->type || !(have & other))) {
			log_warn("%s: no TPM2 device %s; asking for the passphrase", dev, tpm);
			return 0;
		}
	}
	/* a PIN only when a TPM2 token needs one and is there to take it;
	 * first, unasked, whatever opens alone (cryptsetup tries every
	 * token without a PIN before it reads one) */
	pin = tpm_there && (have & LUKS2_TOKEN_TPM2_PIN) && (!o->type || tpm2_only);
	alone = !pin || (have & LUKS2_TOKEN_TPM2_NOPIN) || (!tpm2_only && (have & other));
	if (tpm_there)
		*sig = luks_sig_stage(env->ops, dev, o->tpm2_signature) > 0;
	luks_token_argv(argv, scratch, o, dev, name);
	if (alone)
		st = run_cryptsetup(env, argv, dev, tpm_there, o->tpm2_device, NULL, 0, NULL, 0);
	if (st == 0) {
		log_info("%s: opened with its LUKS2 token%s%s", dev, o->type ? " " : "",
			 o->type ? o->type : "");
		return 1;
	}
	if (alone && st < 0)
		return 0; /* cryptsetup did not run (said): no PIN could help */
	if (pin && !o->headless) {
		struct pin_open p = { env, argv, dev, o->tpm2_device };
		long tries = o->tries >= 0 ? o->tries : env->stack->tries;
		if (!luks_pin_try(env, dev, tries, open_pin, &p))
			return 0;
		log_info("%s: opened with its LUKS2 token%s%s and a PIN", dev, o->type ? " " : "",
			 o->type ? o->type : "");
		return 2;
	}
	if (pin)
		log_warn("%s: its TPM2 token needs a PIN; not asking for it: headless", dev);
	else if (st > 0 && *sig)
		log_warn("%s: no LUKS2 token opened it (cryptsetup exit status %d), with the PCR "
			 "signature %s; asking for the passphrase", dev, st,
			 o->tpm2_signature ? o->tpm2_signature : LUKS_SIG_STUB);
	else if (st > 0)
		log_warn("%s: no LUKS2 token opened it (cryptsetup exit status %d); asking for the "
			 "passphrase", dev, st);
	return 0;
}

int luks_token_try(struct stack_env *env, const char *dev, const char *name,
		   const struct luks_opts *o)
{
	bool sig = false;
	int r = try_tokens(env, dev, name, o, &sig);

	if (sig)
		luks_sig_unstage(env->ops);
	return r;
}
