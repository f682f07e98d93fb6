// SPDX-License-Identifier: GPL-2.0-or-later
/* One table of keys serves both the config files and the command line,
 * so a key and its flag can never drift apart. */
#include "gen/config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/host/keyval.h"

/* T_FLAG_AUTO: auto, yes or no in a file; a bare flag (--plymouth) is yes */
enum key_type { T_STR, T_LIST, T_MODE, T_COMPRESS, T_LEVEL, T_MICROCODE, T_FLAG_MODE, T_YESNO, T_FORMAT, T_AUTO, T_FLAG_AUTO };

struct key {
	const char *name;
	enum key_type type;
	size_t off;
	const char *help;
	int flag_value; /* T_FLAG_MODE: the mode the flag sets */
};

#define F(field) offsetof(struct build_opts, field)

static const struct key keys[] = {
	{ "kver", T_STR, F(kver), "kernel version (default: the running kernel)", 0 },
	{ "output", T_STR, F(output), "image path (default: /boot/initrd.img-KVER on Debian, /boot/initramfs-KVER.img elsewhere)", 0 },
	{ "mode", T_MODE, F(mode), "generic or hostonly (default: generic)", 0 },
	{ "generic", T_FLAG_MODE, F(mode), "same as mode = generic", MODE_GENERIC },
	{ "hostonly", T_FLAG_MODE, F(mode), "same as mode = hostonly", MODE_HOSTONLY },
	{ "compress", T_COMPRESS, F(compress), "zstd, xz, lz4, gzip or none (default: zstd)", 0 },
	{ "compress-level", T_LEVEL, F(compress_level), "compressor level (default: the compressor's own; zstd 6, its squashfs segment 3)", 0 },
	{ "add-modules", T_LIST, F(add_modules), "modules or aliases to add, comma-separated", 0 },
	{ "omit-modules", T_LIST, F(omit_modules), "modules never to include, comma-separated", 0 },
	{ "add-files", T_LIST, F(add_files), "host files to add, SRC[:DST], comma-separated", 0 },
	{ "add-binaries", T_LIST, F(add_binaries), "programs to add with their libraries, comma-separated", 0 },
	{ "add-hook", T_LIST, F(add_hooks), "hooks to add, STAGE:FILE (STAGE: cmdline, pre-udev, pre-mount, mount, pre-pivot), comma-separated", 0 },
	{ "add-keys", T_LIST, F(add_keys), "LUKS key files to add (mode 0600), SRC[:DST], comma-separated", 0 },
	{ "keyfile-pattern", T_LIST, F(keyfile_pattern), "globs of the root's crypttab key files a hostonly image may pack, comma-separated (without one, such a key file fails the build: anyone who can read the image has it)", 0 },
	{ "plugin", T_LIST, F(plugins), "plugin files to read after SYSROOT's plugin directories, comma-separated (docs/plugins.md)", 0 },
	{ "kmoddir", T_STR, F(kmoddir), "module directory (default: SYSROOT/lib/modules/KVER)", 0 },
	{ "kernel-tree", T_STR, F(kernel_tree), "a kernel build directory: its version, modules.builtin and built modules (instead of -k and --kmoddir)", 0 },
	{ "format", T_FORMAT, F(format), "cpio, or gen_init_cpio: the list the kernel's usr/gen_init_cpio reads, files in OUTPUT.d (default: cpio)", 0 },
	{ "uki", T_STR, F(uki), "also write a unified kernel image (EFI binary: stub, kernel, this image, command line)", 0 },
	{ "uki-stub", T_STR, F(uki_stub), "the UKI's EFI stub (default: " UKI_DEFAULT_STUB ")", 0 },
	{ "uki-kernel", T_STR, F(uki_kernel), "the UKI's kernel (default: SYSROOT/boot/vmlinuz-KVER, else SYSROOT/lib/modules/KVER/vmlinuz as Fedora and Arch place it, or the --kernel-tree's bzImage)", 0 },
	{ "uki-cmdline", T_STR, F(uki_cmdline), "the UKI's kernel command line (its .cmdline section)", 0 },
	{ "uki-ucode", T_STR, F(uki_ucode), "a microcode cpio for the UKI's .ucode section, which systemd-stub 256 and later load before the image", 0 },
	{ "uki-pcr-key", T_STR, F(uki_pcr_key), "sign the UKI's expected PCR 11 values with this RSA PEM key (.pcrsig; with uki-pcr-public-key)", 0 },
	{ "uki-pcr-public-key", T_STR, F(uki_pcr_public_key), "the public half of uki-pcr-key, the UKI's .pcrpkey", 0 },
	{ "uki-sign-key", T_STR, F(uki_sign_key), "sign the UKI for Secure Boot with this PEM key (sbsign; with uki-sign-cert)", 0 },
	{ "uki-sign-cert", T_STR, F(uki_sign_cert), "the PEM certificate of uki-sign-key, put in the UKI's signature", 0 },
	{ "sysroot", T_STR, F(sysroot), "root of the host to inspect (default: /)", 0 },
	{ "cmdline", T_STR, F(cmdline), "default kernel command line baked into the image", 0 },
	{ "microcode", T_MICROCODE, F(microcode), "auto or none: early microcode segment (default: auto)", 0 },
	{ "init", T_STR, F(init), "the /init program to pack (default: uniramfs-init; another architecture's for a --sysroot of it)", 0 },
	{ "ssh-unlock", T_AUTO, F(ssh_unlock), "auto, yes or no: dropbear to type the LUKS passphrase over SSH (default: auto, hostonly images when dropbear and an authorized_keys are there)", 0 },
	{ "ssh-hostkeys", T_AUTO, F(ssh_hostkeys), "auto, yes or no: a hostonly image with SSH unlock packs this machine's host keys (yes: anyone who can read the image has them) or lets dropbear make new ones at each boot (no); auto fails that build until one is chosen", 0 },
	{ "squashfs", T_AUTO, F(squashfs), "auto, yes or no: programs, libraries and modules in a squashfs the init mounts when first wanted, so a boot decompresses only what it reads (default: auto, generic images when the kernel has squashfs and loop)", 0 },
	{ "rescue-shell", T_AUTO, F(rescue.shell), "auto, yes or no: busybox for the emergency shell and rd.break (default: auto, when the host has busybox)", 0 },
	{ "rescue-password-hash", T_STR, F(rescue.password_hash), "a crypt(3) hash (mkpasswd) the rescue shell asks the password of", 0 },
	{ "rescue-password-account", T_STR, F(rescue.password_account), "the rescue shell asks this account's password: its hash from SYSROOT/etc/shadow", 0 },
	{ "fallback", T_YESNO, F(fallback), "with hostonly: also write a generic image beside it, OUTPUT-fallback", 0 },
	{ "clevis", T_YESNO, F(clevis), "pack clevis for a root bound with clevis: Tang, tpm2, sss (hostonly does when the root has a clevis binding)", 0 },
	{ "overlay-tools", T_YESNO, F(overlay_tools), "pack cryptsetup, mkfs.ext4 and sfdisk for rd.overlay.crypt= and a live medium's automatic overlay partition (also when the baked command line, or a hostonly image's running one, has rd.overlay.crypt= or a live root with rd.overlay=LABEL=)", 0 },
	{ "live-https", T_YESNO, F(live_https), "pack curl and the CA bundle for root=live:https:// (also when the baked command line, or a hostonly image's running one, has such a root=)", 0 },
	{ "plymouth", T_FLAG_AUTO, F(plymouth), "auto, yes or no: the Plymouth splash: plymouthd, the host's theme, the DRM drivers (needs plymouth installed; default: auto, when the host's plymouth configuration names an installed theme, or the baked command line, or a hostonly image's running one, has splash)", 0 },
	{ "plymouth-theme", T_STR, F(plymouth_theme), "the Plymouth theme to pack, instead of the one the host's plymouthd.conf or plymouthd.defaults names", 0 },
	{ "kdump", T_YESNO, F(kdump), "make the crash kernel's image (kexec -p): hostonly, with makedumpfile, which saves /proc/vmcore below the root's /var/crash and reboots; no rescue shell, fsck, microcode, squashfs, splash or SSH (docs/kdump.md; default output /var/lib/kdump/initrd.img-KVER on Debian, /boot/initramfs-KVERkdump.img elsewhere)", 0 },
	{ "verbose", T_YESNO, F(verbose), "more messages", 0 },
};

static const struct key *find_key(const char *name)
{
	char canon[64];
	size_t n = strlen(name);
	if (n >= sizeof(canon))
		return NULL;
	/* add_modules and add-modules are the same key */
	for (size_t i = 0; i <= n; i++)
		canon[i] = name[i] == '_' ? '-' : name[i];
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].name, canon) == 0)
			return &keys[i];
	return NULL;
}

const char *config_key_name(const char *key)
{
	const struct key *k = find_key(key);
	return k ? k->name : NULL;
}

bool config_key_is_bool(const char *key)
{
	const struct key *k = find_key(key);
	return k && (k->type == T_FLAG_MODE || k->type == T_YESNO || k->type == T_FLAG_AUTO);
}

int config_set(struct build_opts *o, const char *key, const char *value, const char *where)
{
	const struct key *k = find_key(key);
	void *p;

	if (!k)
		return err_set("%s: unknown key '%s'", where, key);
	p = (char *)o + k->off;
	switch (k->type) {
	case T_STR:
		if (!*value)
			return err_set("%s: empty value for %s", where, k->name);
		free(*(char **)p);
		*(char **)p = xstrdup(value);
		return 0;
	case T_LIST:
		strv_split(p, value, ",");
		return 0;
	case T_MODE:
		if (strcmp(value, "generic") == 0)
			o->mode = MODE_GENERIC;
		else if (strcmp(value, "hostonly") == 0)
			o->mode = MODE_HOSTONLY;
		else
			return err_set("%s: bad value '%s' for %s (expected generic or hostonly)", where, value, k->name);
		return 0;
	case T_FLAG_MODE:
		if (value && *value && strcmp(value, "yes") != 0 && strcmp(value, "1") != 0 && strcmp(value, "true") != 0)
			return err_set("%s: bad value '%s' for %s (expected yes)", where, value, k->name);
		o->mode = (enum build_mode)k->flag_value;
		return 0;
	case T_COMPRESS: {
		enum compression c;
		if (compression_from_name(value, &c) < 0 || c > COMP_GZIP)
			return err_set("%s: bad value '%s' for %s (expected zstd, xz, lz4, gzip or none)", where, value, k->name);
		/* before the build, not after it */
		if (compression_check_built_in(c) < 0)
			return err_wrap("%s", where);
		o->compress = c;
		return 0;
	}
	case T_LEVEL: {
		char *end;
		long l;
		errno = 0;
		l = strtol(value, &end, 10);
		if (errno || end == value || *end || l < 0 || l > 22)
			return err_set("%s: bad value '%s' for %s (expected a number 0-22)", where, value, k->name);
		o->compress_level = (int)l;
		return 0;
	}
	case T_MICROCODE:
		if (strcmp(value, "auto") == 0)
			o->microcode = MICROCODE_AUTO;
		else if (strcmp(value, "none") == 0)
			o->microcode = MICROCODE_NONE;
		else
			return err_set("%s: bad value '%s' for %s (expected auto or none)", where, value, k->name);
		return 0;
	case T_AUTO: {
		_Static_assert(SSH_AUTO == 0 && SSH_YES == 1 && SSH_NO == 2 && SQUASHFS_AUTO == 0 &&
				       SQUASHFS_YES == 1 && SQUASHFS_NO == 2 && RESCUE_SHELL_AUTO == 0 &&
				       RESCUE_SHELL_YES == 1 && RESCUE_SHELL_NO == 2 &&
				       sizeof(enum rescue_shell) == sizeof(int) && SSH_HOSTKEYS_AUTO == 0 &&
				       SSH_HOSTKEYS_YES == 1 && SSH_HOSTKEYS_NO == 2 &&
				       sizeof(enum ssh_hostkeys) == sizeof(int) &&
				       sizeof(enum ssh_unlock) == sizeof(int) &&
				       sizeof(enum squashfs_mode) == sizeof(int),
			       "T_AUTO fields are auto/yes/no ints");
		int *v = (int *)((char *)o + k->off);
		if (strcmp(value, "auto") == 0)
			*v = 0;
		else if (strcmp(value, "yes") == 0)
			*v = 1;
		else if (strcmp(value, "no") == 0)
			*v = 2;
		else
			return err_set("%s: bad value '%s' for %s (expected auto, yes or no)", where, value, k->name);
		return 0;
	}
	case T_FORMAT:
		if (strcmp(value, "cpio") == 0)
			o->format = FORMAT_CPIO;
		else if (strcmp(value, "gen_init_cpio") == 0)
			o->format = FORMAT_GEN_INIT_CPIO;
		else
			return err_set("%s: bad value '%s' for %s (expected cpio or gen_init_cpio)", where, value, k->name);
		return 0;
	case T_FLAG_AUTO: {
		_Static_assert(PLYMOUTH_AUTO == 0 && PLYMOUTH_YES == 1 && PLYMOUTH_NO == 2 &&
				       sizeof(enum plymouth_mode) == sizeof(int),
			       "T_FLAG_AUTO fields are auto/yes/no ints");
		int *v = (int *)((char *)o + k->off);
		if (!value || !*value || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
			*v = 1;
		else if (strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
			*v = 2;
		else if (strcmp(value, "auto") == 0)
			*v = 0;
		else
			return err_set("%s: bad value '%s' for %s (expected auto, yes or no)", where, value, k->name);
		return 0;
	}
	case T_YESNO: {
		/* a count: -v -v is more verbose than -v */
		int *n = (int *)((char *)o + k->off);
		if (!value || !*value || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
			(*n)++;
		else if (strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
			*n = 0;
		else
			return err_set("%s: bad value '%s' for %s (expected yes or no)", where, value, k->name);
		return 0;
	}
	}
	return err_set("%s: unhandled key '%s'", where, key);
}

static int set_cb(void *ctx, const char *key, const char *value, const char *where)
{
	return config_set(ctx, key, value, where);
}

int config_parse(struct build_opts *o, const char *name, char *data)
{
	return keyval_parse(data, name, 0, set_cb, o);
}

int config_load_file(struct build_opts *o, const char *path, bool must_exist)
{
	char *data;
	size_t len;
	int r = read_file(path, &data, &len);

	if (r == -ENOENT && !must_exist)
		return 0;
	if (r < 0)
		return err_errno(r, "config %s", path);
	/* the parser sees a C string: what follows a NUL would be lost */
	r = keyval_check_text(data, len, path);
	if (r == 0)
		r = config_parse(o, path, data);
	free(data);
	return r;
}

static int conf_filter(const struct dirent *d)
{
	return d->d_name[0] != '.' && str_has_suffix(d->d_name, ".conf");
}

int config_load_defaults(struct build_opts *o, const char *sysconfdir)
{
	char *main_conf = path_join(sysconfdir, "uniramfs.conf");
	char *dir = path_join(sysconfdir, "uniramfs.conf.d");
	struct dirent **list = NULL;
	int n, r;

	r = config_load_file(o, main_conf, false);
	free(main_conf);
	if (r < 0) {
		free(dir);
		return r;
	}
	n = scandir(dir, &list, conf_filter, alphasort);
	if (n < 0) {
		int e = errno;
		free(dir);
		return e == ENOENT || e == ENOTDIR ? 0 : err_errno(e, "config directory %s", sysconfdir);
	}
	for (int i = 0; i < n; i++) {
		char *p = path_join(dir, list[i]->d_name);
		if (r == 0)
			r = config_load_file(o, p, true);
		free(p);
		free(list[i]);
	}
	free(list);
	free(dir);
	return r;
}

void config_print_keys(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		printf("  %-16s %s\n", keys[i].name, keys[i].help);
}
