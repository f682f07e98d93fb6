// SPDX-License-Identifier: GPL-2.0-or-later
/* What the init needs to open LUKS and md layers: cryptsetup and mdadm
 * with their libraries, configs that work with no udev in the image, the
 * host's crypttab lines for the root's stack and the key files they or
 * --add-keys name. LVM is a plugin (plugins/lvm.conf, lvm-thin.conf):
 * only its udev-less lvm.conf is written here, generated as the other
 * configs are, when a plugin packs lvm. */
#include "gen/features/stack.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"

#define MAX_DEPTH 16

static const struct tool {
	const char *layer, *name, *what, *package;
} tools[] = {
	{ "dm-crypt", "cryptsetup", "LUKS", "cryptsetup-bin" },
	{ "md", "mdadm", "md RAID", "mdadm" },
	{ "dm-verity", "veritysetup", "dm-verity", "cryptsetup-bin" },
};

/* lvm without udev: it scans /dev itself, makes its /dev/mapper nodes
 * and /dev/VG/LV links, waits for no udev cookie, and starts no
 * monitoring daemon. Only activation runs here: no metadata backups.
 * The global section stays open for the checkers' paths (lvm_checkers). */
static const char lvm_conf_head[] =
	"# uniramfs: lvm in the initramfs, where no udev runs\n"
	"devices {\n"
	"\tobtain_device_list_from_udev = 0\n"
	"\texternal_device_info_source = \"none\"\n"
	"\tuse_devicesfile = 0\n"
	"}\n"
	"activation {\n"
	"\tudev_sync = 0\n"
	"\tudev_rules = 0\n"
	"\tmonitoring = 0\n"
	"}\n"
	"global {\n"
	"\tuse_lvmlockd = 0\n"
	"\tevent_activation = 0\n";
static const char lvm_conf_tail[] =
	"}\n"
	"backup {\n"
	"\tbackup = 0\n"
	"\tarchive = 0\n"
	"}\n";

/* No ARRAY lines: mdadm -I takes every array it finds. */
static const char mdadm_conf_generic[] =
	"# uniramfs: assemble every array found\n"
	"AUTO +all\n";

/* Down the slaves from one sysfs block directory, noting dm-crypt names. */
static void walk_crypt(struct stack_plan *sp, const char *dir, int depth)
{
	char *uuid = read_attr(dir, "dm/uuid"), *slaves;
	DIR *d;
	struct dirent *e;

	if (uuid && str_has_prefix(uuid, "CRYPT-") && !str_has_prefix(uuid, "CRYPT-VERITY-") &&
	    !str_has_prefix(uuid, "CRYPT-INTEGRITY-") && !str_has_prefix(uuid, "CRYPT-SUBDEV-")) {
		char *name = read_attr(dir, "dm/name");
		if (name && !strv_contains(&sp->crypt_names, name))
			strv_push(&sp->crypt_names, name);
		free(name);
		stack_note_luks_devs(sp, dir);
	}
	free(uuid);
	if (depth >= MAX_DEPTH)
		return;
	slaves = xasprintf("%s/slaves", dir);
	d = opendir(slaves);
	while (d && (e = readdir(d))) {
		char *link, real[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		link = xasprintf("%s/%s", slaves, e->d_name);
		if (realpath(link, real))
			walk_crypt(sp, real, depth + 1);
		free(link);
	}
	if (d)
		closedir(d);
	free(slaves);
}

static void walk_majmin(struct stack_plan *sp, const char *sysroot, const char *majmin)
{
	char *link = xasprintf("%s/sys/dev/block/%s", sysroot, majmin), real[PATH_MAX];

	if (realpath(link, real))
		walk_crypt(sp, real, 0);
	free(link);
}

/* Keyboards and the USB host controllers they hang off, as loaded now
 * (/sys/module/NAME): the passphrase is typed on one of them. */
static void note_keyboards(struct stack_plan *sp, const char *sysroot)
{
	static const char *const kbd[] = {
		"i8042", "atkbd", "usbhid", "hid_generic", "hid_apple", "hid_microsoft",
		"hid_logitech_dj", "hid_logitech_hidpp", "hid_lenovo", "hid_cherry",
		"hid_multitouch", "i2c_hid_acpi", "xhci_pci", "ehci_pci", "ohci_pci", "uhci_hcd",
		"hyperv_keyboard", "virtio_input",
	};

	for (size_t i = 0; i < ARRAY_SIZE(kbd); i++) {
		char *p = xasprintf("%s/sys/module/%s", sysroot, kbd[i]);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			strv_push(&sp->keyboard, kbd[i]);
		free(p);
	}
}

void stack_plan_hostonly(struct stack_plan *sp, const char *sysroot, const struct hostonly *h)
{
	sp->hostonly = true;
	for (size_t i = 0; i < h->stack.n; i++)
		strv_push(&sp->layers, h->stack.v[i]);
	if (h->root_dev)
		walk_majmin(sp, sysroot, h->root_dev);
	if (h->resume_dev)
		walk_majmin(sp, sysroot, h->resume_dev);
	if (strv_contains(&sp->layers, "dm-crypt")) {
		note_keyboards(sp, sysroot);
		stack_plan_tokens(sp, sysroot);
		stack_plan_ciphers(sp, sysroot);
		stack_token_modules(sp, sysroot, &sp->tpm);
		if (stack_clevis_wanted(sp))
			stack_clevis_modules(sp, sysroot);
	}
}

void stack_plan_modules(const struct stack_plan *sp, struct strv *out)
{
	/* cryptsetup's defaults (aes-xts-plain64; LUKS1's aes-cbc-essiv)
	 * need these templates; the table that names the real cipher is
	 * not in sysfs. aes and sha256 are built in on most kernels. */
	static const char *const cipher[] = { "crypto-xts", "crypto-ecb", "crypto-essiv",
					      "crypto-cbc" };

	if (!strv_contains(&sp->layers, "dm-crypt"))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(cipher); i++)
		strv_push(out, cipher[i]);
	for (size_t i = 0; i < sp->keyboard.n; i++)
		strv_push(out, sp->keyboard.v[i]);
	for (size_t i = 0; i < sp->tpm.n; i++)
		strv_push(out, sp->tpm.v[i]);
	for (size_t i = 0; i < sp->ciphers.n; i++)
		strv_push(out, sp->ciphers.v[i]);
	for (size_t i = 0; i < sp->nics.n; i++)
		strv_push(out, sp->nics.v[i]);
}

static bool needed(const struct stack_plan *sp, const struct tool *t)
{
	return strv_contains(&sp->layers, t->layer);
}

static int add_tools(struct stack_plan *sp, struct image *img, const char *sysroot,
		     bool *have)
{
	struct elf_resolver *er = elf_resolver_new(sysroot);
	int r = 0;

	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(tools); i++) {
		const struct tool *t = &tools[i];
		char *path;

		have[i] = false;
		if (sp->hostonly && !needed(sp, t))
			continue;
		path = sysroot_find_tool(sysroot, t->name);
		if (!path) {
			if (sp->hostonly)
				r = err_set("the root is on %s but %s is not installed (apt install %s)",
					    t->what, t->name, t->package);
			continue;
		}
		r = elf_add_binary(er, img, path);
		if (r < 0)
			err_wrap("%s", t->name);
		have[i] = r == 0;
		free(path);
	}
	elf_resolver_free(er);
	return r;
}

static int add_key(struct stack_plan *sp, struct image *img, const char *src, const char *dst)
{
	if (access(src, R_OK) < 0)
		return err_errno(errno, "key file %s", src);
	if (image_add_file(img, dst, src, 0600, 0) < 0)
		return err_code();
	if (!strv_contains(&sp->keys, dst))
		strv_push(&sp->keys, dst);
	return 0;
}

static int add_keys(struct stack_plan *sp, struct image *img, const struct strv *keys)
{
	for (size_t i = 0; keys && i < keys->n; i++) {
		char *spec = xstrdup(keys->v[i]), *colon = strchr(spec, ':');
		const char *dst = spec;
		int r;

		if (colon) {
			*colon = '\0';
			dst = colon + 1;
		}
		if (!*spec || !*dst || *dst != '/')
			r = err_set("--add-keys: bad entry '%s' (expected SRC[:/DST])", keys->v[i]);
		else
			r = add_key(sp, img, spec, dst);
		free(spec);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A key file goes into the image only when the owner said so: the
 * image is copied to /boot or an ESP, readable by anyone with the disk. */
static int key_chosen(const struct stack_plan *sp, const char *sysroot, const char *line, const char *key)
{
	char *path = path_normalize(key);
	bool ok = false;

	for (size_t i = 0; sp->keyfile_pattern && i < sp->keyfile_pattern->n && !ok; i++)
		ok = fnmatch(sp->keyfile_pattern->v[i], path, FNM_PATHNAME) == 0;
	if (!ok)
		err_set("%s/etc/crypttab line '%s' needs the key file %s in the image, which a hostonly image packs "
			"only when the owner sets keyfile-pattern = %s (or a glob matching it; anyone who can read the "
			"image then has the key): nothing is written",
			strcmp(sysroot, "/") ? sysroot : "", line, path, path);
	free(path);
	return ok ? 0 : err_code();
}

int stack_plan_crypttab(const struct stack_plan *sp, const char *sysroot, struct buf *out,
			struct strv *keyfiles)
{
	char *data = NULL, *save = NULL;
	size_t len;
	int r = sysroot_read(sysroot, "/etc/crypttab", &data, &len);

	if (r < 0)
		return r == -ENOENT ? 0 : r;
	for (char *line = strtok_r(data, "\n", &save); r == 0 && line; line = strtok_r(NULL, "\n", &save)) {
		char *copy = xstrdup(line), *fs = NULL, *f[4] = { 0 };
		size_t n = 0;
		for (char *w = strtok_r(copy, " \t", &fs); w && n < 4; w = strtok_r(NULL, " \t", &fs))
			f[n++] = w;
		if (n >= 2 && f[0][0] != '#' && strv_contains(&sp->crypt_names, f[0])) {
			buf_printf(out, "%s\n", line);
			/* a path in the root; not a key device, not "none" or "-",
			 * not KEYFILE:KEYDEV (read from that device at boot) */
			if (f[2] && f[2][0] == '/' && !str_has_prefix(f[2], "/dev/") && !strchr(f[2], ':')) {
				r = key_chosen(sp, sysroot, line, f[2]);
				strv_push(keyfiles, f[2]);
			}
			/* a detached header goes in beside the keys */
			for (char *o = f[3], *end; o && *o; o = end ? end + 1 : NULL) {
				end = strchr(o, ',');
				if (end)
					*end = '\0';
				if (str_has_prefix(o, "header=/") && !str_has_prefix(o, "header=/dev/") &&
				    !strchr(o, ':'))
					strv_push(keyfiles, o + 7);
			}
		}
		free(copy);
	}
	free(data);
	return r;
}

int stack_plan_cmdline_headers(const char *sysroot, struct strv *headers)
{
	char *data = NULL, *save = NULL;
	size_t len;
	int r = sysroot_read(sysroot, "/proc/cmdline", &data, &len);

	if (r < 0)
		return r == -ENOENT ? 0 : r;
	for (char *w = strtok_r(data, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		const char *v = w + strlen("rd.luks.header="), *path;
		if (!str_has_prefix(w, "rd.luks.header="))
			continue;
		if (!strncasecmp(v, "UUID=", 5))
			v += 5;
		path = strchr(v, '=');
		/* a file of the host, not a device and not a file on one */
		if (!path || path[1] != '/' || str_has_prefix(path + 1, "/dev/") || strchr(path, ':') ||
		    strv_contains(headers, path + 1))
			continue;
		char *src = NULL;
		struct stat st;
		if (sysroot_path(sysroot, path + 1, &src, &st) == 0 && S_ISREG(st.st_mode))
			strv_push(headers, path + 1);
		else
			log_warn("hostonly: this machine's command line has %s, but %s is no file here; "
				 "not packing it", w, path + 1);
		free(src);
		err_clear();
	}
	free(data);
	return 0;
}

/* The host's crypttab lines for the dm-crypt layers of the root (and
 * resume) stack, and their key files. None: the init asks for every
 * LUKS device it finds. */
static int add_crypttab(struct stack_plan *sp, struct image *img, const char *sysroot)
{
	struct buf out = { 0 };
	struct strv keyfiles = { 0 };
	int r = stack_plan_crypttab(sp, sysroot, &out, &keyfiles);

	/* the header the running kernel's rd.luks.header= names, where the
	 * next boot will look for it (docs/cmdline.md) */
	if (r == 0)
		r = stack_plan_cmdline_headers(sysroot, &keyfiles);
	for (size_t i = 0; r == 0 && i < keyfiles.n; i++) {
		/* as the init will open it: "/../k" is "/k" */
		char *src = NULL, *dst = path_normalize(keyfiles.v[i]);
		struct stat st;
		r = sysroot_path(sysroot, keyfiles.v[i], &src, &st);
		if (r == 0 && !S_ISREG(st.st_mode))
			r = err_set("%s: not a regular file", src);
		if (r == 0)
			r = add_key(sp, img, src, dst);
		if (r < 0)
			err_wrap("%s/etc/crypttab: key file %s", sysroot, keyfiles.v[i]);
		free(src);
		free(dst);
	}
	if (r == 0 && out.len)
		r = stack_add_keyscripts(img, sysroot, out.p);
	if (r == 0 && out.len)
		r = image_add_data(img, "/etc/crypttab", out.p, out.len, 0600);
	buf_free(&out);
	strv_free(&keyfiles);
	return r;
}

static int add_mdadm_conf(struct stack_plan *sp, struct image *img, const char *sysroot)
{
	static const char *const confs[] = { "/etc/mdadm/mdadm.conf", "/etc/mdadm.conf" };

	for (size_t i = 0; sp->hostonly && i < ARRAY_SIZE(confs); i++) {
		char *p = NULL;
		struct stat st;
		bool ok = sysroot_path(sysroot, confs[i], &p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0;
		int r = ok ? image_add_file(img, "/etc/mdadm/mdadm.conf", p, 0644, 0) : 0;
		free(p);
		if (ok)
			return r;
	}
	return image_add_data(img, "/etc/mdadm/mdadm.conf", mdadm_conf_generic,
			      strlen(mdadm_conf_generic), 0644);
}

/* mdmon keeps the metadata of an array whose metadata lives outside md
 * (Intel IMSM, SNIA DDF: firmware RAID) up to date: mdadm -I starts it
 * as it assembles such an array, and without it the first write to the
 * array waits for ever. mdadm's package ships it beside mdadm. */
static int add_mdmon(struct image *img, const char *sysroot)
{
	char *path = sysroot_find_tool(sysroot, "mdmon");
	struct elf_resolver *er;
	int r;

	if (!path)
		return 0;
	er = elf_resolver_new(sysroot);
	r = elf_add_binary(er, img, path);
	if (r < 0)
		err_wrap("mdmon");
	elf_resolver_free(er);
	free(path);
	return r;
}

/* lvm runs thin_check before it activates a thin pool and cache_check
 * before a cache volume, by the paths global/thin_check_executable and
 * cache_check_executable name, and refuses the volume when that path is
 * no program. Its built-in default is where Debian puts them; the image's
 * lvm.conf names where the plugins packed them (lvm-thin.conf,
 * lvm-cache.conf), so a host with them in /usr/local/sbin, say, boots
 * too. One not packed keeps lvm's default, and lvm's refusal names it. */
static void lvm_checkers(const struct stack_plan *sp, const char *sysroot, struct buf *b)
{
	const struct {
		bool packed;
		const char *name, *key;
	} c[] = {
		{ sp->thin_check, "thin_check", "thin_check_executable" },
		{ sp->cache_check, "cache_check", "cache_check_executable" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		char *path = c[i].packed ? sysroot_find_tool(sysroot, c[i].name) : NULL;
		if (path)
			buf_printf(b, "\t%s = \"%s\"\n", c[i].key, path);
		free(path);
	}
}

static int add_lvm_conf(const struct stack_plan *sp, struct image *img, const char *sysroot)
{
	struct buf b = { 0 };
	int r;

	buf_printf(&b, "%s", lvm_conf_head);
	lvm_checkers(sp, sysroot, &b);
	buf_printf(&b, "%s", lvm_conf_tail);
	r = image_add_data(img, "/etc/lvm/lvm.conf", b.p, b.len, 0644);
	buf_free(&b);
	return r;
}

int stack_plan_add(struct stack_plan *sp, struct image *img, const char *sysroot,
		   const struct strv *keys)
{
	bool have[ARRAY_SIZE(tools)];
	int r = add_tools(sp, img, sysroot, have);

	if (r == 0 && sp->lvm)
		r = add_lvm_conf(sp, img, sysroot);
	if (r == 0 && have[1])
		r = add_mdadm_conf(sp, img, sysroot);
	if (r == 0 && have[1])
		r = add_mdmon(img, sysroot);
	if (r == 0 && sp->hostonly && have[0])
		r = add_crypttab(sp, img, sysroot);
	if (r == 0 && have[0])
		r = stack_add_tokens(sp, img, sysroot);
	if (r == 0)
		r = stack_add_clevis(sp, img, sysroot);
	if (r == 0)
		r = add_keys(sp, img, keys);
	if (r == 0 && sp->keys.n) {
		struct buf b = { 0 };
		for (size_t i = 0; i < sp->keys.n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", sp->keys.v[i]);
		log_notice("this image holds key material (%s): keep it private", b.p);
		buf_free(&b);
	}
	return r;
}

void stack_plan_free(struct stack_plan *sp)
{
	strv_free(&sp->layers);
	strv_free(&sp->crypt_names);
	strv_free(&sp->keys);
	strv_free(&sp->keyboard);
	strv_free(&sp->luks_devs);
	strv_free(&sp->tpm);
	strv_free(&sp->ciphers);
	strv_free(&sp->nics);
	memset(sp, 0, sizeof(*sp));
}
