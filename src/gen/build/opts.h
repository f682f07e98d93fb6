/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_BUILD_OPTS_H
#define UNIRAMFS_BUILD_OPTS_H

#include "gen/compress/compress.h"
#include "gen/features/plymouth.h"
#include "gen/features/rescue.h"
#include "gen/features/ssh.h"
#include "gen/image/format_gen_init_cpio.h"
#include "gen/image/microcode.h"
#include "gen/image/squash.h"
#include "gen/image/uki.h"
#include "util.h"

enum build_mode { MODE_GENERIC, MODE_HOSTONLY };

/* Everything `uniramfs build` takes, the build's input. Each field is
 * one config key and one flag of the same name (config.c's table fills
 * it); each enum belongs to the feature that reads it, and the folders
 * below the build get the fields they use, never this struct. */
struct build_opts {
	char *kver;
	char *output;
	enum build_mode mode;
	enum compression compress;
	int compress_level; /* -1: the compressor's default */
	struct strv add_modules;
	struct strv omit_modules;
	struct strv add_files; /* SRC[:DST] */
	struct strv add_binaries;
	struct strv add_hooks; /* STAGE:FILE, hooks run by the init at STAGE */
	struct strv add_keys; /* SRC[:DST], LUKS key files, mode 0600 */
	struct strv keyfile_pattern; /* globs: crypttab key files a hostonly image may pack */
	struct strv plugins;  /* plugin = FILE: host files read after the plugin directories */
	char *kmoddir;
	char *kernel_tree; /* a kernel build directory (kernel_tree.h) */
	enum output_format format;
	char *uki;         /* --uki FILE.efi (uki.h) */
	char *uki_stub;
	char *uki_kernel;
	char *uki_cmdline;
	char *uki_sign_key;  /* Secure Boot: sbsign's key and certificate (uki_sign.h) */
	char *uki_sign_cert;
	char *uki_ucode;     /* a microcode cpio: the .ucode section */
	char *uki_pcr_key;   /* signed PCR 11 policies: .pcrsig, .pcrpkey (uki_pcr.h) */
	char *uki_pcr_public_key;
	char *sysroot;
	char *cmdline;
	enum microcode_mode microcode;
	enum ssh_unlock ssh_unlock;
	enum ssh_hostkeys ssh_hostkeys;
	enum squashfs_mode squashfs;
	struct rescue_opts rescue; /* rescue_shell, rescue_password_hash, _account */
	char *init;
	struct strv configs; /* --config FILE (may repeat); replaces the default files */
	int verbose;
	int fallback; /* hostonly: also write a generic image beside it */
	int clevis;   /* pack clevis (generic; hostonly does for a clevis token) */
	int overlay_tools; /* pack plugins/overlay-tools.conf (overlaytools.h) */
	int live_https;    /* pack plugins/live-https.conf (livehttps.h) */
	enum plymouth_mode plymouth; /* pack plugins/plymouth.conf and the theme (plymouth.h) */
	char *plymouth_theme; /* the theme, instead of the host's */
	int kdump;         /* the crash kernel's image (build_kdump.c, docs/kdump.md) */
};

/* The defaults, before any config file or flag. */
void build_opts_init(struct build_opts *o);
/* Free every string and list (o may be reused after build_opts_init). */
void build_opts_free(struct build_opts *o);

#endif
