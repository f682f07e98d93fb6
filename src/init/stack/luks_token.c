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
#include "init/init.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"

#define TPM2_DEFAULT "/dev/tpmrm0" /* systemd's default: the kernel's resource manager */
#define TPM2_WAIT_ASKED_S 30       /* systemd's token-timeout default */
#define TPM2_WAIT_HEADER_S 5       /* only the header names a TPM: a short wait */

void luks_token_opts_init(struct luks_token_opts *o)
{
	memset(o, 0, sizeof(*o));
}

void luks_token_opts_free(struct luks_token_opts *o)
{
	free(o->tpm2_device);
	luks_token_opts_init(o);
}

static void set_type(struct luks_token_opts *o, const char *type)
{
	if (o->type && strcmp(o->type, type))
		o->mixed = true;
	o->type = o->mixed ? NULL : type;
}

void luks_token_opts_merge(struct luks_token_opts *dst, const struct luks_token_opts *src,
			   const struct luks_token_opts *over)
{
	*dst = *src;
	dst->tpm2_device = src->tpm2_device ? xstrdup(src->tpm2_device) : NULL;
	if (!over)
		return;
	dst->off |= over->off;
	dst->headless |= over->headless;
	dst->tpm2_asked |= over->tpm2_asked;
	dst->mixed |= over->mixed;
	if (over->type)
		set_type(dst, over->type);
	else if (over->mixed)
		dst->type = NULL;
	if (over->tpm2_device) {
		free(dst->tpm2_device);
		dst->tpm2_device = xstrdup(over->tpm2_device);
	}
	if (over->timeout_given) {
		dst->timeout_given = true;
		dst->timeout_s = over->timeout_s;
	}
}

/* token-timeout=: seconds, "Ns", "Nms" (rounded up) or "Nmin"; 0: wait as long as it takes */
static int parse_timeout(const char *v, long *out)
{
	char *end;
	long n;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || n > 86400)
		return -1;
	if (!strcmp(end, "ms"))
		n = (n + 999) / 1000;
	else if (!strcmp(end, "min"))
		n *= 60;
	else if (*end && strcmp(end, "s"))
		return -1;
	*out = n;
	return 0;
}

/* systemd-cryptsetup options this init does not act on: said by name,
 * so nobody thinks they took effect. */
static const char *const ignored[] = {
	"tpm2-pcrs", "tpm2-signature", "tpm2-measure-pcr", "tpm2-measure-bank", "tpm2-pcrlock",
	"fido2-cid", "fido2-rp", "try-empty-password", "password-echo", "keyfile-timeout",
};

static void one_option(struct luks_token_opts *o, bool *discard, const char *w, size_t len,
		       const char *where)
{
	char *word = xstrndup(w, len), *v = strchr(word, '=');
	bool b;

	if (v)
		*v++ = '\0';
	if (!strcmp(word, "discard") && !v) {
		*discard = true;
	} else if (!strcmp(word, "tpm2-device") && v) {
		if (!strcmp(v, "auto")) {
			free(o->tpm2_device);
			o->tpm2_device = NULL;
		} else if (!strncmp(v, "/dev/", 5) && !strstr(v, "/../") && v[5]) {
			free(o->tpm2_device);
			o->tpm2_device = xstrdup(v);
		} else {
			log_warn("%s: ignoring tpm2-device=%s: expected auto or a /dev path", where, v);
			goto out;
		}
		o->tpm2_asked = true;
		set_type(o, LUKS_TOKEN_TPM2);
	} else if (!strcmp(word, "fido2-device") && v) {
		if (strcmp(v, "auto"))
			log_warn("%s: fido2-device=%s: cryptsetup's plugin finds the key itself; "
				 "trying any FIDO2 token", where, v);
		set_type(o, LUKS_TOKEN_FIDO2);
	} else if (!strcmp(word, "pkcs11-uri") && v) {
		if (strcmp(v, "auto"))
			log_warn("%s: pkcs11-uri=%s: the token's own URI is used; trying any "
				 "PKCS#11 token", where, v);
		set_type(o, LUKS_TOKEN_PKCS11);
	} else if (!strcmp(word, "token-timeout")) {
		if (parse_timeout(v, &o->timeout_s) == 0)
			o->timeout_given = true;
		else
			log_warn("%s: ignoring token-timeout=%s: not a time in seconds", where,
				 v ? v : "");
	} else if (!strcmp(word, "headless")) {
		if (!v)
			o->headless = true;
		else if (cmdline_parse_bool(v, &b) < 0)
			log_warn("%s: ignoring headless=%s: not a boolean", where, v);
		else
			o->headless = b;
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
			if (!strcmp(word, ignored[i]))
				log_warn("%s: %s is not supported here; ignoring it", where,
					 ignored[i]);
	}
out:
	free(word);
}

void luks_options_parse(struct luks_token_opts *o, bool *discard, const char *list,
			const char *where)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len)
			one_option(o, discard, p, len, where);
		p = end ? end + 1 : NULL;
	}
}

const char *luks_options_list(const char *v)
{
	const char *eq = strchr(v, '=');
	size_t hex = 0;

	if (!eq)
		return v;
	for (const char *c = v; c < eq; c++) {
		if ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F'))
			hex++;
		else if (*c != '-')
			return v; /* "tpm2-device=auto": an option, no UUID */
	}
	return hex == 32 ? eq + 1 : v;
}

void luks_crypttab_tokens(const struct stack *s, const struct crypttab_entry *e,
			  struct luks_token_opts *out, bool *discard)
{
	struct luks_token_opts line;
	char *where;

	if (!e) {
		luks_token_opts_merge(out, &s->tokens, NULL);
		return;
	}
	luks_token_opts_init(&line);
	where = xasprintf("/etc/crypttab %s", e->name);
	luks_options_parse(&line, discard, e->options, where);
	luks_token_opts_merge(out, &s->tokens, &line);
	luks_token_opts_free(&line);
	free(where);
}

size_t luks_token_argv(const char **argv, const char *type, bool discard, const char *dev,
		       const char *name)
{
	size_t n = 0;

	argv[n++] = "cryptsetup";
	argv[n++] = "open";
	argv[n++] = "--token-only";
	if (type) {
		argv[n++] = "--token-type";
		argv[n++] = type;
	}
	if (discard)
		argv[n++] = "--allow-discards";
	argv[n++] = dev;
	argv[n++] = name;
	argv[n] = NULL;
	return n;
}

/* The header's token types, or -errno (-EINVAL: LUKS1, not LUKS2). */
static int header_tokens(struct init *in, const char *dev)
{
	int fd = in->ops->open(dev, O_RDONLY | O_CLOEXEC, 0), r;

	if (fd < 0)
		return -errno;
	r = luks2_fd_tokens(fd);
	close(fd);
	return r;
}

struct tpm_wait {
	struct init *in;
	const char *path;
};

static bool tpm_there(void *arg)
{
	const struct tpm_wait *w = arg;

	return w->in->ops->access(w->path, F_OK) == 0;
}

/* The TPM's driver is queued like any other (its modalias came with
 * coldplug); its node comes through devtmpfs, its uevent wakes the loop. */
static bool wait_tpm(struct init *in, const char *dev, const char *path, long secs)
{
	struct tpm_wait w = { in, path };

	driverq_load_all(&in->drivers);
	if (tpm_there(&w))
		return true;
	if (secs)
		log_info("%s: waiting up to %ld s for the TPM2 device %s", dev, secs, path);
	else
		log_info("%s: waiting for the TPM2 device %s (token-timeout=0)", dev, path);
	loop_run(&in->loop, secs ? now_ms(in) + secs * 1000 : -1, tpm_there, &w, 0);
	return tpm_there(&w);
}

static int run_cryptsetup(struct init *in, const char **argv, const char *dev,
			  const char *tpm2_device)
{
	char *path = tool_find(in, "cryptsetup");
	struct strv env = { 0 };
	int st;

	if (!path) {
		log_err("cannot try the LUKS2 tokens of %s: cryptsetup is not in this image",
			dev);
		return -1;
	}
	for (char **e = in->tool_envp; e && *e; e++)
		strv_push(&env, *e);
	/* systemd's plugin opens SYSTEMD_TPM2_DEVICE, by default /dev/tpmrm0 */
	if (tpm2_device)
		strv_push_owned(&env, xasprintf("SYSTEMD_TPM2_DEVICE=device:%s", tpm2_device));
	st = in->xops->run ? in->xops->run(path, (char *const *)argv, env.v, NULL, 0)
			   : err_set("no way to run programs");
	in->stack.last_run_ms = now_ms(in);
	if (st < 0)
		log_err("cannot run %s: %s", path, err_msg());
	strv_free(&env);
	free(path);
	return st;
}

bool luks_token_try(struct init *in, const char *dev, const char *name, bool discard,
		    const struct luks_token_opts *o)
{
	const char *argv[LUKS_TOKEN_ARGV], *tpm = o->tpm2_device ? o->tpm2_device : TPM2_DEFAULT;
	int have, st;
	bool want_tpm;

	if (o->off)
		return false;
	if (in->ops->access(LAYOUT_TOKENS_FILE, F_OK) < 0) {
		if (o->type)
			log_warn("%s: %s asked for, but this image has no LUKS2 token plugins; "
				 "asking for the passphrase", dev, o->type);
		return false;
	}
	have = header_tokens(in, dev);
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
	    !wait_tpm(in, dev, tpm,
		      o->timeout_given ? o->timeout_s
					: o->tpm2_asked ? TPM2_WAIT_ASKED_S : TPM2_WAIT_HEADER_S) &&
	    (o->type || !(have & ~LUKS2_TOKEN_TPM2))) {
		log_warn("%s: no TPM2 device %s; asking for the passphrase", dev, tpm);
		return false;
	}
	luks_token_argv(argv, o->type, discard, dev, name);
	st = run_cryptsetup(in, argv, dev, o->tpm2_device);
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
