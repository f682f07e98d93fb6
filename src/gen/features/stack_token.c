// SPDX-License-Identifier: GPL-2.0-or-later
/* cryptsetup's LUKS2 token plugins (systemd's tpm2, fido2, pkcs11) with
 * the libraries they dlopen(), which no DT_NEEDED names: libtss2-* and
 * the tcti for /dev/tpmrm0, libfido2, p11-kit. Generic: whenever the host
 * has them. Hostonly: when a LUKS2 header under the root has a token (or
 * cannot be read to say it has none). */
#include "gen/features/stack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"
#include "clevis_pins.h"
#include "luks2.h"
#include "luksmeta.h"

#define PLUGIN_PREFIX "libcryptsetup-token-"

/* What each plugin dlopen()s (systemd 252-256's tpm2-util.c,
 * libfido2-util.c, pkcs11-util.c), and the package that has it. */
static const struct dl {
	const char *plugin, *lib, *package;
} dlopened[] = {
	{ "systemd-tpm2", "libtss2-esys.so.0", "libtss2-esys-3.0.2-0" },
	{ "systemd-tpm2", "libtss2-rc.so.0", "libtss2-rc0" },
	{ "systemd-tpm2", "libtss2-mu.so.0", "libtss2-mu0" },
	{ "systemd-tpm2", "libtss2-tcti-device.so.0", "libtss2-tcti-device0" },
	{ "systemd-fido2", "libfido2.so.1", "libfido2-1" },
	{ "systemd-pkcs11", "libp11-kit.so.0", "libp11-kit0" },
};

/* The TPM drivers a hostonly image takes when the host has them loaded. */
static const char *const tpm_drivers[] = { "tpm_tis", "tpm_crb", "tpm_tis_spi", "tpm_tis_i2c",
					   "tpm_tis_i2c_cr50", "tpm_ftpm_tee", "tpm_infineon" };

/* dir inside the sysroot, opened there (sysroot_path); NULL if none. */
static DIR *open_dir(const char *sysroot, const char *dir)
{
	char *host = NULL;
	struct stat st;
	DIR *d = sysroot_path(sysroot, dir, &host, &st) == 0 ? opendir(host) : (err_clear(), NULL);

	free(host);
	return d;
}

static bool has_plugin(const char *sysroot, const char *dir)
{
	DIR *d = open_dir(sysroot, dir);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d)))
		found = str_has_prefix(e->d_name, PLUGIN_PREFIX);
	if (d)
		closedir(d);
	return found;
}

char *stack_token_dir(const char *sysroot)
{
	static const char *const fixed[] = { "/usr/lib64/cryptsetup", "/usr/lib/cryptsetup" };
	char *found = NULL;
	DIR *d = open_dir(sysroot, "/usr/lib");
	struct dirent *e;

	/* Debian's multiarch dirs: /usr/lib/x86_64-linux-gnu/cryptsetup */
	while (d && !found && (e = readdir(d))) {
		char *p;
		if (!strstr(e->d_name, "-linux-"))
			continue;
		p = xasprintf("/usr/lib/%s/cryptsetup", e->d_name);
		if (has_plugin(sysroot, p))
			found = p;
		else
			free(p);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; !found && i < ARRAY_SIZE(fixed); i++)
		if (has_plugin(sysroot, fixed[i]))
			found = xstrdup(fixed[i]);
	return found;
}

/* The LUKS devices under the root's dm-crypt layers (their slaves). */
void stack_note_luks_devs(struct stack_plan *sp, const char *dmdir)
{
	char *slaves = xasprintf("%s/slaves", dmdir);
	DIR *d = opendir(slaves);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !strv_contains(&sp->luks_devs, e->d_name))
			strv_push(&sp->luks_devs, e->d_name);
	if (d)
		closedir(d);
	free(slaves);
}

void stack_plan_tokens(struct stack_plan *sp, const char *sysroot)
{
	sp->tokens = 0;
	sp->clevis_pins = 0;
	for (size_t i = 0; i < sp->luks_devs.n; i++) {
		char *p = xasprintf("%s/dev/%s", sysroot, sp->luks_devs.v[i]);
		int fd = open(p, O_RDONLY | O_CLOEXEC), t = fd < 0 ? -errno : luks2_fd_tokens(fd);
		if (t > 0 && ((unsigned)t & LUKS2_TOKEN_CLEVIS)) {
			int c = clevis_fd_pins(fd);
			sp->clevis_pins |= c > 0 ? (unsigned)c : CLEVIS_PIN_OTHER;
		} else if (t == -EINVAL) { /* LUKS1: clevis's bindings are in luksmeta's slots */
			char why[LUKSMETA_WHY];
			int c = luksmeta_fd_pins(fd, why);
			if (c > 0) {
				sp->tokens |= LUKS2_TOKEN_CLEVIS;
				sp->clevis_pins |= (unsigned)c;
			}
		}
		if (fd >= 0)
			close(fd);
		if (t >= 0) {
			sp->tokens |= (unsigned)t;
		} else if (t != -EINVAL) { /* EINVAL: LUKS1, no tokens */
			log_notice("cannot read the LUKS header of /dev/%s (%s): packing the LUKS2 "
				   "token plugins in case it has tokens", sp->luks_devs.v[i],
				   strerror(-t));
			sp->tokens = ~0u;
		}
		free(p);
	}
}

void stack_token_modules(const struct stack_plan *sp, const char *sysroot, struct strv *out)
{
	if ((sp->tokens & LUKS2_TOKEN_TPM2) || (sp->clevis_pins & CLEVIS_PIN_TPM2))
		stack_tpm_drivers(sysroot, out);
}

void stack_tpm_drivers(const char *sysroot, struct strv *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(tpm_drivers); i++) {
		char *p = xasprintf("%s/sys/module/%s", sysroot, tpm_drivers[i]);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			strv_push(out, tpm_drivers[i]);
		free(p);
	}
}

static char *find_lib(const char *sysroot, const char *libdir, const char *name)
{
	const char *dirs[] = { libdir, "/usr/lib64", "/usr/lib", "/lib64", "/lib" };

	return sysroot_find(sysroot, dirs, ARRAY_SIZE(dirs), name, R_OK);
}

/* Each plugin, then what it dlopen()s; a plugin whose libraries are
 * missing is still packed (cryptsetup skips a token it cannot run). */
static int add_plugins(struct image *img, const char *sysroot, const char *dir, size_t *n)
{
	struct elf_resolver *er = elf_resolver_new(sysroot);
	char *libdir = xstrdup(dir);
	DIR *d = open_dir(sysroot, dir);
	struct dirent *e;
	int r = 0;

	*strrchr(libdir, '/') = '\0';
	while (d && r == 0 && (e = readdir(d))) {
		const char *type = e->d_name + strlen(PLUGIN_PREFIX);
		char *p;
		size_t tl;
		if (!str_has_prefix(e->d_name, PLUGIN_PREFIX) || !strstr(type, ".so"))
			continue;
		tl = (size_t)(strstr(type, ".so") - type);
		p = xasprintf("%s/%s", dir, e->d_name);
		r = elf_add_binary(er, img, p);
		if (r < 0)
			err_wrap("LUKS2 token plugin");
		free(p);
		(*n)++;
		for (size_t i = 0; r == 0 && i < ARRAY_SIZE(dlopened); i++) {
			char *lib;
			if (strlen(dlopened[i].plugin) != tl || strncmp(dlopened[i].plugin, type, tl))
				continue;
			lib = find_lib(sysroot, libdir, dlopened[i].lib);
			if (!lib) {
				log_info("LUKS2 token %s: %s is not installed (apt install %s); that token "
					 "cannot open a device", dlopened[i].plugin, dlopened[i].lib,
					 dlopened[i].package);
				continue;
			}
			r = elf_add_binary(er, img, lib);
			if (r < 0)
				err_wrap("LUKS2 token %s", dlopened[i].plugin);
			free(lib);
		}
	}
	if (d)
		closedir(d);
	free(libdir);
	elf_resolver_free(er);
	return r;
}

int stack_add_tokens(struct stack_plan *sp, struct image *img, const char *sysroot)
{
	/* a clevis token is clevis's to open (stack_clevis.c), no plugin's */
	unsigned plugged = sp->tokens & ~LUKS2_TOKEN_CLEVIS;
	char *dir = stack_token_dir(sysroot), *rec;
	size_t n = 0;
	int r;

	if (!dir) {
		if (sp->hostonly && plugged && sp->tokens != ~0u)
			log_warn("the root's LUKS2 header has tokens but cryptsetup's token plugins are "
				 "not installed (Debian: systemd, or systemd-cryptsetup from trixie on): "
				 "the init will ask for the passphrase");
		return 0;
	}
	if (sp->hostonly && !plugged) {
		log_info("no LUKS2 tokens for cryptsetup's plugins on the root's LUKS devices: token "
			 "plugins not packed");
		free(dir);
		return 0;
	}
	r = add_plugins(img, sysroot, dir, &n);
	rec = xasprintf("dir=%s\n", dir);
	if (r == 0)
		r = image_add_data(img, LAYOUT_TOKENS_FILE, rec, strlen(rec), 0644);
	if (r == 0)
		log_info("LUKS2 token plugins: %zu from %s", n, dir);
	free(rec);
	free(dir);
	return r;
}
