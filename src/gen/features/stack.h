/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_STACK_H
#define UNIRAMFS_STACK_H

#include <stdbool.h>

#include "gen/hostonly/hostonly.h"
#include "gen/image/image.h"
#include "gen/plugins/plugin.h"
#include "util.h"

/* The LUKS and md layers an image must open (LVM's lvm.conf too): the tools, their
 * udev-less configs and the keys (docs/design.md, "Layers as a table"). */
struct stack_plan {
	bool hostonly;
	struct strv layers;      /* hostonly's stack: "dm-crypt", "lvm", "md", ... */
	struct strv crypt_names; /* dm names of the dm-crypt layers under root and resume */
	bool lvm;                /* a plugin packs lvm: its udev-less lvm.conf goes in */
	bool thin_check;         /* a plugin packs thin_check: lvm.conf names it */
	bool cache_check;        /* a plugin packs cache_check: lvm.conf names it */
	struct strv keys;        /* key files in the image, for the notice */
	struct strv keyboard;    /* the host's loaded keyboard drivers (a prompt needs them) */
	struct strv luks_devs;   /* hostonly: kernel names of the LUKS devices under them */
	unsigned tokens;         /* hostonly: LUKS2_TOKEN_* in their headers (~0: unknown) */
	unsigned clevis_pins;    /* hostonly: CLEVIS_PIN_* of their clevis tokens */
	struct strv tpm;         /* hostonly: the host's TPM drivers, for a TPM2 token */
	struct strv ciphers;     /* hostonly: "crypto-NAME" of the ciphers their headers name */
	bool clevis;             /* clevis = yes: pack clevis (stack_clevis.c) */
	bool clevis_on;          /* stack_clevis_decide: the feature "clevis" is in the image */
	struct strv nics;        /* hostonly, a clevis token: the host's NIC drivers */
	/* keyfile-pattern: globs of the crypttab key files the image may
	 * pack (the owner's choice; not owned) */
	const struct strv *keyfile_pattern;
};

/* Remember what hostonly found (call before hostonly_free). */
void stack_plan_hostonly(struct stack_plan *sp, const char *sysroot, const struct hostonly *h);
/* Module names or aliases the layers need beyond what sysfs shows
 * (the cipher templates dm-crypt asks the kernel for at open time, and
 * with LUKS the host's loaded keyboard drivers, for the prompt). */
void stack_plan_modules(const struct stack_plan *sp, struct strv *out);
/* Add the tools with their libraries, /etc/lvm/lvm.conf (sp->lvm),
 * /etc/mdadm/mdadm.conf, /etc/crypttab and the key files (add_keys:
 * SRC[:DST], mode 0600). Generic: every tool the host has. Hostonly:
 * exactly the layers' tools; a missing one fails naming its package. */
int stack_plan_add(struct stack_plan *sp, struct image *img, const char *sysroot,
		   const struct strv *add_keys);
/* The lines of SYSROOT/etc/crypttab that name the stack's dm-crypt
 * layers, appended to out, and the key files and headers they name. 0
 * (also when there is no crypttab) or -errno (err_* set), also when a
 * key file matches no glob of sp->keyfile_pattern: the message names
 * the line and the setting that packs it. */
int stack_plan_crypttab(const struct stack_plan *sp, const char *sysroot, struct buf *out,
			struct strv *keyfiles);
/* Hostonly: the detached header files the host's own /proc/cmdline
 * names (rd.luks.header=U=/FILE) appended to headers, packed where the
 * init will look for them; a /dev/ or FILE:DEVICE one is read at boot. */
int stack_plan_cmdline_headers(const char *sysroot, struct strv *headers);
void stack_plan_free(struct stack_plan *sp);

/* stack_keyscript.c: the keyscript= programs of these crypttab lines
 * (stack_plan_crypttab's out), with their interpreters or libraries.
 * A missing one fails naming its line. */
int stack_add_keyscripts(struct image *img, const char *sysroot, const char *lines);

/* stack_token.c: cryptsetup's LUKS2 token plugins. */
/* The host's plugin directory (without sysroot), or NULL. */
char *stack_token_dir(const char *sysroot);
/* Note the slaves of a dm-crypt device's sysfs dir as LUKS devices. */
void stack_note_luks_devs(struct stack_plan *sp, const char *dmdir);
/* stack_cipher.c: the ciphers the headers of sp->luks_devs name, as
 * module aliases into sp->ciphers; from one LUKS2 JSON area (tests). */
void stack_plan_ciphers(struct stack_plan *sp, const char *sysroot);
void stack_ciphers_json(const char *json, size_t len, struct strv *out);
/* Read their headers' tokens into sp->tokens, clevis's pins into
 * sp->clevis_pins; a LUKS1 header's clevis binding in luksmeta's slots
 * counts as a clevis token. */
void stack_plan_tokens(struct stack_plan *sp, const char *sysroot);
/* The host's loaded TPM drivers, when a header has a TPM2 token or a
 * clevis binding with the tpm2 pin. */
void stack_token_modules(const struct stack_plan *sp, const char *sysroot, struct strv *out);
/* The TPM drivers the host has loaded (SYSROOT/sys/module/NAME), into out. */
void stack_tpm_drivers(const char *sysroot, struct strv *out);
/* The plugins, their dlopen()ed libraries and LAYOUT_TOKENS_FILE. */
int stack_add_tokens(struct stack_plan *sp, struct image *img, const char *sysroot);

/* stack_clevis.c: clevis and what `clevis luks unlock` runs. */
/* clevis = yes, or hostonly with a clevis token in a root's header. */
bool stack_clevis_wanted(const struct stack_plan *sp);
/* With clevis: its tpm2 pin too (the feature "clevis-tpm2",
 * plugins/clevis-tpm2.conf): generic, clevis = yes (a LUKS1 binding is
 * not read), or a hostonly root whose binding uses tpm2 or cannot be read. */
bool stack_clevis_tpm2_wanted(const struct stack_plan *sp);
/* The host's NIC drivers into sp->nics (Tang is reached through one). */
void stack_clevis_modules(struct stack_plan *sp, const char *sysroot);
/* Wanted, and the host has every program of the plugins of if-feature =
 * clevis (plugins/clevis.conf): sp->clevis_on, the feature then given to
 * plugins_select. A program missing: an error with clevis = yes, a
 * warning for hostonly's token (clevis is then left out). */
int stack_clevis_decide(struct stack_plan *sp, const struct plugins *ps, const char *sysroot);
/* With clevis_on: curl's timeouts for clevis's Tang requests (the
 * programs are the plugin's). */
int stack_add_clevis(struct stack_plan *sp, struct image *img, const char *sysroot);

#endif
