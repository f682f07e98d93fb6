// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd-cryptsetup's options (crypttab(5)), the one reader of them:
 * rd.luks.options= and the image's /etc/crypttab lines. Each is acted on
 * or named in a warning, so nobody thinks an option took effect that
 * did not. */
#include "init/stack/luks_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "err.h"
#include "init/dev/blockdev.h"
#include "init/stack/stack.h"
#include "init/tpm/tpm2_msg.h"
#include "log.h"
#include "util.h"

/* cryptsetup's default bound on a key file */
#define MAX_KEYFILE_SIZE (8 << 20)

void luks_opts_init(struct luks_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->keyfile_offset = o->keyfile_size = o->tries = o->key_slot = -1;
	o->measure_pcr = LUKS_MEASURE_UNSET;
}

void luks_opts_free(struct luks_opts *o)
{
	free(o->tpm2_device);
	free(o->tpm2_signature);
	free(o->header);
	free(o->keyscript);
	free(o->measure_bank);
	luks_opts_init(o);
}

static void set_type(struct luks_opts *o, const char *type)
{
	if (o->type && strcmp(o->type, type))
		o->mixed = true;
	o->type = o->mixed ? NULL : type;
}

void luks_opts_merge(struct luks_opts *dst, const struct luks_opts *src,
			   const struct luks_opts *over)
{
	*dst = *src;
	dst->tpm2_device = src->tpm2_device ? xstrdup(src->tpm2_device) : NULL;
	dst->tpm2_signature = src->tpm2_signature ? xstrdup(src->tpm2_signature) : NULL;
	dst->header = src->header ? xstrdup(src->header) : NULL;
	dst->keyscript = src->keyscript ? xstrdup(src->keyscript) : NULL;
	dst->measure_bank = src->measure_bank ? xstrdup(src->measure_bank) : NULL;
	if (!over)
		return;
	if (over->measure_pcr != LUKS_MEASURE_UNSET)
		dst->measure_pcr = over->measure_pcr;
	if (over->measure_bank) {
		free(dst->measure_bank);
		dst->measure_bank = xstrdup(over->measure_bank);
	}
	dst->discard |= over->discard;
	dst->no_read_wq |= over->no_read_wq;
	dst->no_write_wq |= over->no_write_wq;
	if (over->header) {
		free(dst->header);
		dst->header = xstrdup(over->header);
	}
	if (over->keyscript) {
		free(dst->keyscript);
		dst->keyscript = xstrdup(over->keyscript);
	}
	if (over->keyfile_offset >= 0)
		dst->keyfile_offset = over->keyfile_offset;
	if (over->keyfile_size >= 0)
		dst->keyfile_size = over->keyfile_size;
	if (over->tries >= 0)
		dst->tries = over->tries;
	if (over->key_slot >= 0)
		dst->key_slot = over->key_slot;
	dst->nofail |= over->nofail;
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
	if (over->tpm2_signature) {
		free(dst->tpm2_signature);
		dst->tpm2_signature = xstrdup(over->tpm2_signature);
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
		return -EINVAL;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || n > 86400)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		n = (n + 999) / 1000;
	else if (!strcmp(end, "min"))
		n *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*out = n;
	return 0;
}

/* Options that ask for nothing this init would do otherwise: it opens
 * LUKS (luks), and in the initramfs (Debian's initramfs, systemd's
 * x-initrd.attach); noearly and _netdev order the booted system's own
 * scripts and units, as x-systemd.* do (x-systemd.device-timeout
 * included: rd.timeout bounds the wait here). Every other option this
 * file does not act on is said by name, so nobody thinks it took
 * effect (readonly, plain, cipher=, ...). */
static const char *const as_is[] = {
	"luks", "initramfs", "x-initrd.attach", "noearly", "_netdev",
};

static bool number(const char *v, long min, long max, long *out)
{
	return v && cmdline_parse_int(v, min, max, out) == 0;
}

const char *luks_header_devpart(const char *spec)
{
	/* the first ':' followed by a device spec that is not a number:
	 * by-path names hold "0000:00:04.0" */
	for (const char *c = strchr(spec, ':'); c; c = strchr(c + 1, ':'))
		if (c[1] && (c[1] < '0' || c[1] > '9') && blockdev_spec_valid(c + 1))
			return c;
	return NULL;
}

bool luks_header_valid(const char *spec)
{
	const char *c = luks_header_devpart(spec);
	size_t n = c ? (size_t)(c - spec) : strlen(spec);

	return spec[0] == '/' && n > 1 && strlen(spec) <= LUKS_HEADER_MAX && !path_has_dotdot(spec);
}

static void one_option(struct luks_opts *o, const char *w, size_t len, const char *where)
{
	char *word = xstrndup(w, len), *v = strchr(word, '=');
	bool b;

	if (v)
		*v++ = '\0';
	if (!strcmp(word, "discard") && !v) {
		o->discard = true;
	} else if (!strcmp(word, "no-read-workqueue") && !v) {
		o->no_read_wq = true;
	} else if (!strcmp(word, "no-write-workqueue") && !v) {
		o->no_write_wq = true;
	} else if (!strcmp(word, "header")) {
		/* a file in the image, a device, or a file on a device's
		 * filesystem (crypttab(5)'s PATH:DEVICE) */
		if (!v || !luks_header_valid(v)) {
			log_warn("%s: ignoring header=%s: expected /FILE (in the image), /dev/NODE or "
				 "/FILE:DEVICE", where, v ? v : "");
		} else {
			free(o->header);
			o->header = xstrdup(v);
		}
	} else if (!strcmp(word, "keyscript")) {
		/* Debian's: a path, or a name under /lib/cryptsetup/scripts */
		if (!v || !*v || path_has_dotdot(v) || strlen(v) > LUKS_HEADER_MAX) {
			log_warn("%s: ignoring keyscript=%s: expected a program in the image (/PATH or "
				 "a name in /lib/cryptsetup/scripts)", where, v ? v : "");
		} else {
			free(o->keyscript);
			o->keyscript = xstrdup(v);
		}
	} else if (!strcmp(word, "keyfile-offset")) {
		if (!number(v, 0, __LONG_MAX__, &o->keyfile_offset))
			log_warn("%s: ignoring keyfile-offset=%s: not a number of bytes", where,
				 v ? v : "");
	} else if (!strcmp(word, "keyfile-size")) {
		if (!number(v, 1, MAX_KEYFILE_SIZE, &o->keyfile_size))
			log_warn("%s: ignoring keyfile-size=%s: not a number of bytes from 1 to %d",
				 where, v ? v : "", MAX_KEYFILE_SIZE);
	} else if (!strcmp(word, "tries")) {
		if (!number(v, 0, 100, &o->tries))
			log_warn("%s: ignoring tries=%s: not a number from 0 to 100", where,
				 v ? v : "");
	} else if (!strcmp(word, "key-slot") || !strcmp(word, "keyslot")) {
		/* LUKS2 has 32 slots, LUKS1 8: cryptsetup names one past them */
		if (!number(v, 0, 31, &o->key_slot))
			log_warn("%s: ignoring %s=%s: not a key slot number from 0 to 31", where,
				 word, v ? v : "");
	} else if (!strcmp(word, "nofail") && !v) {
		o->nofail = true;
	} else if (!strcmp(word, "timeout")) {
		/* systemd-cryptsetup's bound on the prompt: 0 is none, as
		 * here; another is said, since the prompt here waits on */
		long t;
		if (!v || parse_timeout(v, &t) < 0 || t)
			log_warn("%s: timeout=%s: the passphrase prompt waits with no time limit "
				 "here; ignoring it", where, v ? v : "");
	} else if (!strcmp(word, "tpm2-device") && v) {
		if (!strcmp(v, "auto")) {
			free(o->tpm2_device);
			o->tpm2_device = NULL;
		} else if (!strncmp(v, "/dev/", 5) && !path_has_dotdot(v) && v[5]) {
			free(o->tpm2_device);
			o->tpm2_device = xstrdup(v);
		} else {
			log_warn("%s: ignoring tpm2-device=%s: expected auto or a /dev path", where, v);
			goto out;
		}
		o->tpm2_asked = true;
		set_type(o, LUKS_TOKEN_TPM2);
	} else if (!strcmp(word, "tpm2-signature") && v) {
		/* a file in the image (luks_sig.c copies it for the plugin) */
		if (v[0] == '/' && v[1] && !path_has_dotdot(v)) {
			free(o->tpm2_signature);
			o->tpm2_signature = xstrdup(v);
		} else {
			log_warn("%s: ignoring tpm2-signature=%s: expected an absolute path with no ..",
				 where, v);
		}
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
	} else if (!strcmp(word, "tpm2-measure-pcr")) {
		/* systemd-cryptsetup's: a PCR 0-23, else a boolean (yes: PCR 15) */
		long pcr;
		if (number(v, 0, 23, &pcr))
			o->measure_pcr = (int)pcr;
		else if (v && cmdline_parse_bool(v, &b) == 0)
			o->measure_pcr = b ? 15 : LUKS_MEASURE_NO;
		else
			log_warn("%s: ignoring tpm2-measure-pcr=%s: not a boolean or a PCR number 0-23",
				 where, v ? v : "");
	} else if (!strcmp(word, "tpm2-measure-bank")) {
		struct tpm2_banks banks;
		if (tpm2_parse_banks(v ? v : "", &banks) < 0) {
			log_warn("%s: ignoring %s", where, err_msg());
		} else {
			free(o->measure_bank);
			o->measure_bank = xstrdup(v);
		}
	} else if (!strcmp(word, "headless")) {
		if (!v)
			o->headless = true;
		else if (cmdline_parse_bool(v, &b) < 0)
			log_warn("%s: ignoring headless=%s: not a boolean", where, v);
		else
			o->headless = b;
	} else {
		bool known = str_has_prefix(word, "x-systemd.");
		for (size_t i = 0; i < ARRAY_SIZE(as_is) && !known; i++)
			known = !strcmp(word, as_is[i]);
		if (!known)
			log_warn("%s: %s is not supported here; ignoring it", where, word);
	}
out:
	free(word);
}

void luks_options_parse(struct luks_opts *o, const char *list, const char *where)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len)
			one_option(o, p, len, where);
		p = end ? end + 1 : NULL;
	}
}

const char *luks_options_split(const char *v, char **uuid)
{
	const char *eq = strchr(v, '=');
	size_t hex = 0;

	*uuid = NULL;
	if (!eq)
		return v;
	for (const char *c = v; c < eq; c++) {
		if ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F'))
			hex++;
		else if (*c != '-')
			return v; /* "tpm2-device=auto": an option, no UUID */
	}
	if (hex != 32)
		return v;
	*uuid = xstrndup(v, (size_t)(eq - v));
	return eq + 1;
}

struct luks_opts *luks_uuid_opts(struct stack *s, const char *uuid)
{
	struct luks_uuid_opts *u;

	for (size_t i = 0; i < s->nuuid_opts; i++)
		if (stack_uuid_eq(s->uuid_opts[i].uuid, uuid))
			return &s->uuid_opts[i].opts;
	ARRAY_GROW(s->uuid_opts, s->capuuid_opts, s->nuuid_opts + 1);
	u = &s->uuid_opts[s->nuuid_opts++];
	u->uuid = xstrdup(uuid);
	luks_opts_init(&u->opts);
	return &u->opts;
}

void luks_uuid_opts_free(struct stack *s)
{
	for (size_t i = 0; i < s->nuuid_opts; i++) {
		free(s->uuid_opts[i].uuid);
		luks_opts_free(&s->uuid_opts[i].opts);
	}
	free(s->uuid_opts);
	s->uuid_opts = NULL;
	s->nuuid_opts = s->capuuid_opts = 0;
}

void luks_crypttab_opts(struct stack *s)
{
	char *where;

	s->ct_opts = xcalloc(s->crypttab.n ? s->crypttab.n : 1, sizeof(*s->ct_opts));
	for (size_t i = 0; i < s->crypttab.n; i++) {
		luks_opts_init(&s->ct_opts[i]);
		where = xasprintf("/etc/crypttab %s", s->crypttab.v[i].name);
		luks_options_parse(&s->ct_opts[i], s->crypttab.v[i].options, where);
		free(where);
	}
}

void luks_crypttab_opts_free(struct stack *s)
{
	for (size_t i = 0; s->ct_opts && i < s->crypttab.n; i++)
		luks_opts_free(&s->ct_opts[i]);
	free(s->ct_opts);
	s->ct_opts = NULL;
}

void luks_opts_for(const struct stack *s, const struct crypttab_entry *e, const char *uuid,
		   struct luks_opts *out)
{
	const struct luks_opts *cmd = &s->opts, *line = NULL;

	for (size_t i = 0; uuid && i < s->nuuid_opts; i++)
		if (stack_uuid_eq(s->uuid_opts[i].uuid, uuid))
			cmd = &s->uuid_opts[i].opts;
	/* the line's options as read once at setup: each warning said once */
	if (e && s->ct_opts && e >= s->crypttab.v && e < s->crypttab.v + s->crypttab.n)
		line = &s->ct_opts[e - s->crypttab.v];
	luks_opts_merge(out, cmd, line);
	out->off |= s->tokens_off;
	out->discard |= s->allow_discards;
}


size_t luks_opts_argv(const struct luks_opts *o, unsigned how, const char **argv,
		      char scratch[LUKS_SCRATCH][LUKS_ARG_MAX])
{
	size_t n = 0;

	if (o->discard)
		argv[n++] = "--allow-discards";
	if (o->no_read_wq)
		argv[n++] = "--perf-no_read_workqueue";
	if (o->no_write_wq)
		argv[n++] = "--perf-no_write_workqueue";
	if (o->header) {
		snprintf(scratch[0], sizeof(scratch[0]), "--header=%s", o->header);
		argv[n++] = scratch[0];
	}
	if ((how & LUKS_ARGV_KEYFILE) && o->keyfile_offset >= 0) {
		snprintf(scratch[1], sizeof(scratch[1]), "--keyfile-offset=%ld", o->keyfile_offset);
		argv[n++] = scratch[1];
	}
	if ((how & LUKS_ARGV_KEYFILE) && o->keyfile_size >= 0) {
		snprintf(scratch[2], sizeof(scratch[2]), "--keyfile-size=%ld", o->keyfile_size);
		argv[n++] = scratch[2];
	}
	/* the volume key to measure is read back from dm's table
	 * (luks_measure.c): not into the kernel keyring then */
	if (o->measure_pcr >= 0)
		argv[n++] = "--disable-keyring";
	if ((how & LUKS_ARGV_SECRET) && o->key_slot >= 0) {
		snprintf(scratch[3], sizeof(scratch[3]), "--key-slot=%ld", o->key_slot);
		argv[n++] = scratch[3];
	}
	return n;
}
