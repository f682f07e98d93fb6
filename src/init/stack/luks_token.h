/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_TOKEN_H
#define UNIRAMFS_INIT_STACK_LUKS_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

struct init;

#define LUKS_TOKEN_TPM2 "systemd-tpm2"
#define LUKS_TOKEN_FIDO2 "systemd-fido2"
#define LUKS_TOKEN_PKCS11 "systemd-pkcs11"

/* LUKS2 tokens as systemd-cryptsetup's options (crypttab(5)) ask:
 * from rd.luks.options= and an /etc/crypttab line's fourth field. */
struct luks_token_opts {
	bool off;            /* rd.luks.tokens=0 */
	bool headless;       /* headless=: never ask for a passphrase */
	bool tpm2_asked;     /* tpm2-device= given: wait for the device */
	bool mixed;          /* two kinds asked for: let cryptsetup try any */
	const char *type;    /* --token-type (LUKS_TOKEN_*), NULL: any token */
	char *tpm2_device;   /* tpm2-device=PATH; NULL: auto (/dev/tpmrm0) */
	bool timeout_given;  /* token-timeout= was given */
	long timeout_s;      /* its value; 0: no bound */
};

void luks_token_opts_init(struct luks_token_opts *o);
/* dst = src (dst's own copy), then src2's options on top when not NULL. */
void luks_token_opts_merge(struct luks_token_opts *dst, const struct luks_token_opts *src,
			   const struct luks_token_opts *over);
void luks_token_opts_free(struct luks_token_opts *o);
/* A comma list of options (where: "rd.luks.options" or "/etc/crypttab
 * NAME", for the warnings): the token ones into o, "discard" into
 * *discard; others are left to their readers (luks, noauto, ...). */
void luks_options_parse(struct luks_token_opts *o, bool *discard, const char *list,
			const char *where);
/* rd.luks.options=[UUID=]OPTIONS: the OPTIONS (a UUID before them
 * applies them to every device, as discard always did). */
const char *luks_options_list(const char *v);
struct stack;
struct crypttab_entry;
/* A device's options: the command line's, then its crypttab line's (e
 * may be NULL) on top; *discard gains crypttab's discard. */
void luks_crypttab_tokens(const struct stack *s, const struct crypttab_entry *e,
			  struct luks_token_opts *out, bool *discard);
/* cryptsetup open --token-only [--token-type T] [--allow-discards] DEV
 * NAME into argv (room for LUKS_TOKEN_ARGV): its count. */
#define LUKS_TOKEN_ARGV 10
size_t luks_token_argv(const char **argv, const char *type, bool discard, const char *dev,
		       const char *name);
/* Before the prompt: the device's LUKS2 tokens, when the image has the
 * plugins and the header has tokens. True: unlocked as name. */
bool luks_token_try(struct init *in, const char *dev, const char *name, bool discard,
		    const struct luks_token_opts *o);

#endif
