/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CONFIG_H
#define UNIRAMFS_CONFIG_H

#include <stdbool.h>

#include "gen/compress/compress.h"
#include "util.h"

enum build_mode { MODE_GENERIC, MODE_HOSTONLY };
enum microcode_mode { MICROCODE_AUTO, MICROCODE_NONE };
/* auto, yes, no: one parser (config.c's T_AUTO) for all of these */
enum ssh_unlock { SSH_AUTO, SSH_YES, SSH_NO }; /* ssh.h */
/* auto: a hostonly image with SSH unlock fails until the owner chooses */
enum ssh_hostkeys { SSH_HOSTKEYS_AUTO, SSH_HOSTKEYS_YES, SSH_HOSTKEYS_NO }; /* ssh.h */
enum squashfs_mode { SQUASHFS_AUTO, SQUASHFS_YES, SQUASHFS_NO }; /* squash.h */
enum rescue_shell { RESCUE_SHELL_AUTO, RESCUE_SHELL_YES, RESCUE_SHELL_NO }; /* rescue.h */
#define UKI_DEFAULT_STUB "/usr/lib/systemd/boot/efi/linuxx64.efi.stub"

enum output_format { FORMAT_CPIO, FORMAT_GEN_INIT_CPIO };

/* Everything `uniramfs build` takes. Each field is one config key and
 * one flag of the same name (see config.c's table). */
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
	#define UKI_DEFAULT_STUB "/usr/lib/systemd/boot/efi/linuxx64.efi.stub"

	enum output_format format;
	char *uki;         /* --uki FILE.efi (uki.h) */
	char *uki_stub;
	char *uki_kernel;
	char *uki_cmdline;
	char *sysroot;
	char *cmdline;
	enum microcode_mode microcode;
	enum ssh_unlock ssh_unlock;
	enum ssh_hostkeys ssh_hostkeys;
	enum squashfs_mode squashfs;
	enum rescue_shell rescue_shell;
	char *rescue_password_hash;    /* a crypt(3) hash for the rescue shell */
	char *rescue_password_account; /* or this account's hash from SYSROOT/etc/shadow */
	char *init;
	struct strv configs; /* --config FILE (may repeat); replaces the default files */
	int verbose;
	int fallback; /* hostonly: also write a generic image beside it */
	int clevis;   /* pack clevis (generic; hostonly does for a clevis token) */
};

void build_opts_init(struct build_opts *o);
void build_opts_free(struct build_opts *o);

/* Set one key. where names the origin for messages ("FILE:LINE" or
 * "--flag"). A list key appends. -errno + err_* on an unknown key or a bad
 * value, naming where, the key and the text. */
int config_set(struct build_opts *o, const char *key, const char *value, const char *where);
/* Parse "key = value" lines from data (modified in place); name is
 * used in messages as NAME:LINE. */
int config_parse(struct build_opts *o, const char *name, char *data);
/* Parse one "key = value" file. A missing file is an error only when
 * must_exist. */
int config_load_file(struct build_opts *o, const char *path, bool must_exist);
/* The default files: SYSCONFDIR/uniramfs.conf, then
 * SYSCONFDIR/uniramfs.conf.d/\*.conf sorted by name. */
int config_load_defaults(struct build_opts *o, const char *sysconfdir);
/* Is key a known key (for flags)? Returns its canonical name or NULL. */
const char *config_key_name(const char *key);
/* Does the key take a value? (false for flags like --generic) */
bool config_key_is_bool(const char *key);
/* One line per key for --help. */
void config_print_keys(void);

#endif
