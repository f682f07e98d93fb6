// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS2 tokens before the passphrase: `cryptsetup open --token-only`
 * with the plugins the image holds (systemd's tpm2, fido2, pkcs11), and
 * systemd-cryptsetup's option spellings that map onto it. A TPM must be
 * there first: its driver loads from the queue and /dev/tpmrm0 is waited
 * for, a bounded time. Any failure falls back to the prompt. */
#include "init/stack/luks_token.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "err.h"
#include "init/core/loop.h"
#include "init/dev/driverq.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"

#define TPM2_DEFAULT "/dev/tpmrm0" /* systemd's default: the kernel's resource manager */
#define TPM2_WAIT_ASKED_S 30       /* systemd's token-timeout default */
#define TPM2_WAIT_HEADER_S 5       /* only the header names a TPM: a short wait */

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

struct tpm_wait {
	struct stack_env *env;
	const char *path;
};

static bool tpm_there(void *arg)
{
	const struct tpm_wait *w = arg;

	return w->env->ops->access(w->path, F_OK) == 0;
}

/* The TPM's driver is queued like any other (its modalias came with
 * coldplug); its node comes through devtmpfs, its uevent wakes the loop. */
static bool wait_tpm(struct stack_env *env, const char *dev, const char *path, long secs)
{
	struct tpm_wait w = { env, path };

	driverq_load_all(env->drivers);
	if (tpm_there(&w))
		return true;
	if (secs)
		log_info("%s: waiting up to %ld s for the TPM2 device %s", dev, secs, path);
	else
		log_info("%s: waiting for the TPM2 device %s (token-timeout=0)", dev, path);
	loop_run(env->loop, secs ? env->ops->now_ms() + secs * 1000 : -1, tpm_there, &w, 0);
	return tpm_there(&w);
}

static int run_cryptsetup(struct stack_env *env, const char **argv, const char *dev,
			  const char *tpm2_device)
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
	st = env->xops->run ? env->xops->run(path, (char *const *)argv, vars.v, NULL, 0)
			    : err_set("no way to run programs");
	env->stack->last_run_ms = env->ops->now_ms();
	if (st < 0)
		log_err("cannot run %s: %s", path, err_msg());
	strv_free(&vars);
	free(path);
	return st;
}

bool luks_token_try(struct stack_env *env, const char *dev, const char *name,
		    const struct luks_opts *o)
{
	const char *argv[LUKS_TOKEN_ARGV], *tpm = o->tpm2_device ? o->tpm2_device : TPM2_DEFAULT;
	char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
	int have, st;
	bool want_tpm;

	if (o->off)
		return false;
	if (env->ops->access(LAYOUT_TOKENS_FILE, F_OK) < 0) {
		if (o->type)
			log_warn("%s: %s asked for, but this image has no LUKS2 token plugins; "
				 "asking for the passphrase", dev, o->type);
		return false;
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
		return false;
	}
	want_tpm = o->type ? !strcmp(o->type, LUKS_TOKEN_TPM2) : (have & LUKS2_TOKEN_TPM2);
	if (want_tpm &&
	    !wait_tpm(env, dev, tpm,
		      o->timeout_given ? o->timeout_s
					: o->tpm2_asked ? TPM2_WAIT_ASKED_S : TPM2_WAIT_HEADER_S) &&
	    (o->type || !(have & ~LUKS2_TOKEN_TPM2))) {
		log_warn("%s: no TPM2 device %s; asking for the passphrase", dev, tpm);
		return false;
	}
	luks_token_argv(argv, scratch, o, dev, name);
	st = run_cryptsetup(env, argv, dev, o->tpm2_device);
	if (st == 0) {
		log_info("%s: opened with its LUKS2 token%s%s", dev, o->type ? " " : "",
			 o->type ? o->type : "");
		return true;
	}
	if (st > 0)
		log_warn("%s: no LUKS2 token opened it (cryptsetup exit status %d); asking for the "
			 "passphrase", dev, st);
	return false;
}
