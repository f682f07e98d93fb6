/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_OPTS_H
#define UNIRAMFS_INIT_STACK_LUKS_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#define LUKS_TOKEN_TPM2 "systemd-tpm2"
#define LUKS_TOKEN_FIDO2 "systemd-fido2"
#define LUKS_TOKEN_PKCS11 "systemd-pkcs11"

/* How to open a LUKS device, in systemd-cryptsetup's option spellings
 * (crypttab(5)): from rd.luks.options= and an /etc/crypttab line's
 * fourth field, the line's on top. */
struct luks_opts {
	/* the LUKS2 tokens (luks_token.c) */
	bool off;            /* rd.luks.tokens=0 */
	bool headless;       /* headless=: never ask for a passphrase */
	bool tpm2_asked;     /* tpm2-device= given: wait for the device */
	bool mixed;          /* two kinds asked for: let cryptsetup try any */
	const char *type;    /* --token-type (LUKS_TOKEN_*), NULL: any token */
	char *tpm2_device;   /* tpm2-device=PATH; NULL: auto (/dev/tpmrm0) */
	char *tpm2_signature; /* tpm2-signature=PATH; NULL: the stub's (luks_sig.h) */
	bool timeout_given;  /* token-timeout= was given */
	long timeout_s;      /* its value; 0: no bound */
	/* cryptsetup open's own */
	bool discard;        /* discard: --allow-discards */
	bool no_read_wq, no_write_wq; /* --perf-no_read_workqueue, --perf-no_write_workqueue */
	char *header;        /* header=PATH: a detached header in the image */
	char *keyscript;     /* keyscript=: a path, or a name in /lib/cryptsetup/scripts */
	long keyfile_offset; /* keyfile-offset=, -1: not given */
	long keyfile_size;   /* keyfile-size=, -1: not given */
	long tries;          /* tries=, 0: rd.luks.tries */
	long key_slot;       /* key-slot= (keyslot=): --key-slot, -1: any slot */
	bool nofail;         /* nofail: giving up on it does not stop the boot */
	/* tpm2-measure-pcr=: the PCR the volume key is measured into
	 * (luks_measure.c); LUKS_MEASURE_NO: none; LUKS_MEASURE_UNSET: not
	 * given (none) */
	int measure_pcr;
	char *measure_bank;  /* tpm2-measure-bank=: "sha256[:sha1…]"; NULL: systemd's choice */
};
#define LUKS_MEASURE_NO (-1)
#define LUKS_MEASURE_UNSET (-2)

void luks_opts_init(struct luks_opts *o);
/* A header= or rd.luks.header= value: /FILE (in the image), /dev/NODE
 * or /FILE:DEVICE, no ".." anywhere. */
bool luks_header_valid(const char *spec);
/* The ':' before DEVICE in /FILE:DEVICE, or NULL. */
const char *luks_header_devpart(const char *spec);
/* dst = src (dst's own copy), then over's options on top when not NULL. */
void luks_opts_merge(struct luks_opts *dst, const struct luks_opts *src,
		     const struct luks_opts *over);
void luks_opts_free(struct luks_opts *o);
/* A comma list of options (where: "rd.luks.options" or "/etc/crypttab
 * NAME", for the warnings) into o; the ones other readers take (luks,
 * noauto, ...) are left alone, the ones not acted on are named. */
void luks_options_parse(struct luks_opts *o, const char *list, const char *where);
/* rd.luks.options=[UUID=]OPTIONS: the OPTIONS, and in *uuid the UUID
 * before them (yours to free) or NULL. */
const char *luks_options_split(const char *v, char **uuid);
/* One device's rd.luks.options=UUID=OPTS. */
struct luks_uuid_opts {
	char *uuid;
	struct luks_opts opts;
};
struct stack;
struct crypttab_entry;
/* Where rd.luks.options=UUID=... options for uuid go: made on first use. */
struct luks_opts *luks_uuid_opts(struct stack *s, const char *uuid);
void luks_uuid_opts_free(struct stack *s);
/* A device's options: the command line's for its uuid (may be NULL) or,
 * when it has none of its own, those for every device, as
 * systemd-cryptsetup reads rd.luks.options=; then its crypttab line's
 * (e may be NULL) on top. */
/* Each line of the stack's crypttab read into s->ct_opts, once: its
 * warnings said once per line however often the line is looked at. */
void luks_crypttab_opts(struct stack *s);
void luks_crypttab_opts_free(struct stack *s);
void luks_opts_for(const struct stack *s, const struct crypttab_entry *e, const char *uuid,
		   struct luks_opts *out);
/* cryptsetup open's options from o into argv (room for LUKS_OPEN_ARGV
 * more, strings kept in scratch): their count. how: LUKS_ARGV_SECRET
 * when a passphrase or key is given (key-slot= applies: not to a token,
 * which names its own slot), LUKS_ARGV_KEYFILE too for a key file
 * (keyfile-offset/-size apply, not to a typed passphrase). */
#define LUKS_ARGV_KEYFILE 1u
#define LUKS_ARGV_SECRET 2u
#define LUKS_OPEN_ARGV 8
#define LUKS_SCRATCH 4
#define LUKS_HEADER_MAX 255 /* longest header= path */
#define LUKS_ARG_MAX (LUKS_HEADER_MAX + 16)
size_t luks_opts_argv(const struct luks_opts *o, unsigned how, const char **argv,
		      char scratch[LUKS_SCRATCH][LUKS_ARG_MAX]);

#endif
