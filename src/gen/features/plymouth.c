// SPDX-License-Identifier: GPL-2.0-or-later
/* The theme's part of the Plymouth splash (plymouth.h), as Debian's
 * initramfs-tools hook packs it: the theme's directory and its ImageDir,
 * its splash module, the text and details modules plymouthd falls back
 * to, both renderers, and for a theme that draws text the label plugin
 * (pango, cairo, fontconfig through its libraries) with fontconfig's
 * configuration and the DejaVu and Cantarell fonts the stock themes name. */
#include "gen/features/plymouth.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "log.h"
#include "util.h"

#define THEMES "/usr/share/plymouth/themes"

/* Where plymouth's modules are: its multiarch directory on Debian,
 * lib64 or lib elsewhere; the first with the drm renderer. */
static char *plugin_dir(const char *sysroot)
{
	static const char *const pats[] = { "/usr/lib/*/plymouth", "/usr/lib64/plymouth", "/usr/lib/plymouth" };
	char *found = NULL;

	for (size_t i = 0; !found && i < sizeof(pats) / sizeof(pats[0]); i++) {
		char *pat = path_join(sysroot, pats[i]);
		glob_t g;
		if (glob(pat, 0, NULL, &g) == 0) {
			for (size_t k = 0; !found && k < g.gl_pathc; k++) {
				char *drm = path_join(g.gl_pathv[k], "renderers/drm.so");
				if (access(drm, R_OK) == 0)
					found = xstrdup(g.gl_pathv[k] + strlen(sysroot) - (strcmp(sysroot, "/") == 0));
				free(drm);
			}
			globfree(&g);
		}
		free(pat);
	}
	return found;
}

/* Every regular file of dir (a theme's: flat), at the same place. */
static int add_dir_files(struct image *img, const char *sysroot, const char *dir)
{
	char *host = NULL;
	struct stat st;
	DIR *d;
	struct dirent *e;
	int r = sysroot_path(sysroot, dir, &host, &st);

	if (r < 0)
		return r;
	if (!S_ISDIR(st.st_mode)) {
		free(host);
		return err_set("plymouth: %s is not a directory", dir);
	}
	d = opendir(host);
	if (!d) {
		r = err_errno(errno, "%s", host);
		free(host);
		return r;
	}
	while (r == 0 && (e = readdir(d))) {
		char *p, *h = NULL;
		if (e->d_name[0] == '.')
			continue;
		p = path_join(dir, e->d_name);
		if (sysroot_path(sysroot, p, &h, &st) == 0 && S_ISREG(st.st_mode))
			r = image_add_host_path(img, sysroot, p, NULL);
		free(h);
		free(p);
	}
	closedir(d);
	free(host);
	return r;
}

static int add_optional(struct image *img, const char *sysroot, const char *path)
{
	char *host = NULL;
	struct stat st;
	int r = sysroot_path(sysroot, path, &host, &st);

	free(host);
	if (r < 0 || !S_ISREG(st.st_mode))
		return 0;
	return image_add_host_path(img, sysroot, path, NULL);
}

/* A path from a theme file: absolute, no "..". */
static int theme_path_ok(const char *theme, const char *key, const char *v)
{
	if (v[0] != '/' || path_has_dotdot(v) || strlen(v) > 256)
		return err_set("plymouth theme %s: bad %s '%s' (an absolute path without '..')", theme, key, v);
	return 0;
}

static int add_text_support(struct image *img, const char *sysroot, struct elf_resolver *er, const char *pdir)
{
	static const char *const fonts[] = {
		"/etc/fonts/fonts.conf",
		"/etc/fonts/conf.d/60-latin.conf",
		"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
		"/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
		"/usr/share/fonts/opentype/cantarell/Cantarell-Regular.otf",
		"/usr/share/fonts/opentype/cantarell/Cantarell-Light.otf",
	};
	char *label = path_join(pdir, "label.so");
	char *host = NULL;
	struct stat st;
	int r = 0;

	if (sysroot_path(sysroot, label, &host, &st) == 0)
		r = elf_add_binary(er, img, label);
	else
		log_notice("plymouth: %s is missing: the splash shows no text (prompts without their words)", label);
	free(host);
	free(label);
	for (size_t i = 0; r == 0 && i < sizeof(fonts) / sizeof(fonts[0]); i++)
		r = add_optional(img, sysroot, fonts[i]);
	return r;
}

/* plymouthd reads /etc/plymouth/plymouthd.conf first: ours names the
 * theme packed, whatever the host's files say of an uninstalled one,
 * with the host's ShowDelay and DeviceTimeout. */
static int add_config(struct image *img, const char *sysroot, const char *theme)
{
	static const char *const files[] = { "/etc/plymouth/plymouthd.conf",
					     "/usr/share/plymouth/plymouthd.defaults" };
	static const char *const keys[] = { "ShowDelay", "DeviceTimeout" };
	struct buf b = { 0 };
	int r;

	buf_printf(&b, "# written by uniramfs: the theme it packed\n[Daemon]\nTheme=%s\n", theme);
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < 2; i++) {
			char *data = NULL, *v;
			size_t len;
			if (sysroot_read(sysroot, files[i], &data, &len) < 0)
				continue;
			v = plymouth_ini_get(data, "Daemon", keys[k]);
			free(data);
			/* a number (seconds, may have a fraction): nothing else */
			if (v && *v && strlen(v) < 16 && strspn(v, "0123456789.") == strlen(v)) {
				buf_printf(&b, "%s=%s\n", keys[k], v);
				free(v);
				break;
			}
			free(v);
		}
	}
	r = image_add_data(img, "/etc/plymouth/plymouthd.conf", b.p, b.len, 0644);
	buf_free(&b);
	return r;
}

int plymouth_plan_add(struct image *img, const char *sysroot, const char *theme_opt)
{
	char *theme = NULL, *file, *data = NULL, *module = NULL, *imgdir = NULL, *script = NULL, *pdir;
	struct elf_resolver *er;
	size_t len;
	int r = plymouth_theme_name(sysroot, theme_opt, &theme);

	if (r < 0)
		return r;
	pdir = plugin_dir(sysroot);
	if (!pdir) {
		free(theme);
		return err_set("plymouth: no renderers/drm.so under /usr/lib/*/plymouth, /usr/lib64/plymouth "
			       "or /usr/lib/plymouth (apt install plymouth)");
	}
	file = xasprintf(THEMES "/%s/%s.plymouth", theme, theme);
	r = sysroot_read(sysroot, file, &data, &len);
	if (r == 0) {
		module = plymouth_ini_get(data, "Plymouth Theme", "ModuleName");
		if (!module || !*module || strlen(module) > 64 ||
		    strspn(module, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(module))
			r = err_set("%s: bad ModuleName '%s' (a module's name: a-z, 0-9, -_)", file,
				    module ? module : "");
	}
	if (r == 0) {
		imgdir = plymouth_ini_get(data, module, "ImageDir");
		script = plymouth_ini_get(data, module, "ScriptFile");
		if (imgdir && *imgdir)
			r = theme_path_ok(theme, "ImageDir", imgdir);
		if (r == 0 && script && *script)
			r = theme_path_ok(theme, "ScriptFile", script);
	}
	er = elf_resolver_new(sysroot);
	if (r == 0) {
		char *dir = xasprintf(THEMES "/%s", theme);
		r = add_dir_files(img, sysroot, dir);
		if (r == 0 && imgdir && *imgdir && strcmp(imgdir, dir) != 0)
			r = add_dir_files(img, sysroot, imgdir);
		if (r == 0 && script && *script)
			r = image_add_host_path(img, sysroot, script, NULL);
		free(dir);
	}
	/* the fallbacks plymouthd takes when the theme cannot show */
	for (size_t i = 0; r == 0 && i < 2; i++) {
		char *dir = xasprintf(THEMES "/%s", i ? "details" : "text");
		if (strcmp(dir + strlen(THEMES "/"), theme) != 0)
			r = add_dir_files(img, sysroot, dir);
		free(dir);
	}
	static const char *const mods[] = { "text.so", "details.so", "renderers/drm.so", "renderers/frame-buffer.so" };
	for (size_t i = 0; r == 0 && i < sizeof(mods) / sizeof(mods[0]) + 1; i++) {
		char *so = i < 4 ? path_join(pdir, mods[i]) : xasprintf("%s/%s.so", pdir, module);
		r = elf_add_binary(er, img, so);
		free(so);
	}
	if (r == 0 && strcmp(module, "text") && strcmp(module, "details") && strcmp(module, "tribar"))
		r = add_text_support(img, sysroot, er, pdir);
	if (r == 0)
		r = add_optional(img, sysroot, "/usr/share/plymouth/debian-logo.png");
	if (r == 0)
		r = add_config(img, sysroot, theme);
	if (r == 0)
		log_info("plymouth: theme %s (module %s), from %s", theme, module, pdir);
	elf_resolver_free(er);
	free(theme);
	free(file);
	free(data);
	free(module);
	free(imgdir);
	free(script);
	free(pdir);
	return r;
}

void plymouth_host_drm(const char *sysfs, struct strv *mods)
{
	char *pat = xasprintf("%s/class/drm/card[0-9]*", sysfs);
	glob_t g;

	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *card = strrchr(g.gl_pathv[i], '/') + 5; /* past "/card" */
			char *link, target[512];
			ssize_t n;
			/* card0, not a connector's card0-HDMI-A-1 */
			if (strspn(card, "0123456789") != strlen(card))
				continue;
			link = xasprintf("%s/device/driver/module", g.gl_pathv[i]);
			n = readlink(link, target, sizeof(target) - 1);
			free(link);
			if (n <= 0)
				continue; /* built in, or not a device's */
			target[n] = '\0';
			const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
			if (*base && !strv_contains(mods, base))
				strv_push(mods, base);
		}
		globfree(&g);
	}
	free(pat);
}
