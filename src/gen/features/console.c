// SPDX-License-Identifier: GPL-2.0-or-later
/* The console the passphrase prompt is typed on. A keyboard that is not
 * the kernel's US layout types another passphrase than the one set, so
 * the host's layout goes into the image: compiled here by the host's
 * loadkeys into the binary form the init loads with ioctls, since
 * parsing keymap sources (includes, charsets, compose rules) is kbd's
 * job. The font is a PSF file, checked and stored uncompressed. */
#include "gen/features/console.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bkeymap.h"
#include "cmdline.h"
#include "err.h"
#include "gen/compress/compress.h"
#include "gen/elf/elf.h"
#include "gen/host/run_tool.h"
#include "gen/host/shell_assign.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"
#include "psf.h"
#include "util.h"

/* Where distributions keep them: Debian's console-data and
 * console-setup, kbd elsewhere (Fedora, Arch). */
static const char *const keymap_dirs[] = { "/usr/share/keymaps", "/usr/share/kbd/keymaps",
					   "/usr/lib/kbd/keymaps", "/lib/kbd/keymaps" };
static const char *const keymap_suffixes[] = { ".kmap.gz", ".kmap", ".map.gz", ".map" };
static const char *const font_dirs[] = { "/usr/share/consolefonts", "/usr/share/kbd/consolefonts",
					 "/usr/lib/kbd/consolefonts", "/lib/kbd/consolefonts" };
static const char *const font_suffixes[] = { ".psf.gz", ".psfu.gz", ".psf", ".psfu", "" };
static const char *const trans_dirs[] = { "/usr/share/consoletrans", "/usr/share/kbd/consoletrans",
					  "/usr/lib/kbd/consoletrans", "/lib/kbd/consoletrans" };
static const char *const map_suffixes[] = { ".trans", "_to_uni.trans", ".acm.gz", ".acm", ".gz", "" };
static const char *const unimap_suffixes[] = { ".uni", ".sfm.gz", ".sfm", ".uni.gz", ".gz", "" };

/* Debian's setupcon keeps the keymap it made from the XKB settings
 * (layout, variant, options) as cached_CHARMAP_BACKSPACE.kmap.gz. */
#define DEBIAN_CACHED_DIR "/etc/console-setup"
#define DEBIAN_CACHED_KEYMAP DEBIAN_CACHED_DIR "/cached_UTF-8_del.kmap.gz"
#define SEARCH_DEPTH 4
#define FONT_MAX (1 << 20)
#define MAP_MAX (256 << 10)

static void set(char **what, char **from, const char *value, const char *where)
{
	free(*what);
	free(*from);
	*what = xstrdup(value);
	*from = xstrdup(where);
}

static void from_cmdline(struct console_plan *cp, const char *text)
{
	static const char *const keys[] = { "vconsole.keymap", "rd.vconsole.keymap", "vconsole.font",
					    "rd.vconsole.font", "vconsole.font.map",
					    "rd.vconsole.font.map", "vconsole.font.unimap",
					    "rd.vconsole.font.unimap" };
	char **what[][2] = { { &cp->keymap, &cp->keymap_from }, { &cp->font, &cp->font_from },
			     { &cp->font_map, &cp->font_map_from },
			     { &cp->font_unimap, &cp->font_unimap_from } };
	struct cmdline c = { 0 };

	cmdline_parse(&c, text);
	/* the initrd's own rd. spelling wins over the system's */
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct cmdline_param *p = cmdline_last(&c, keys[i]);
		if (p && p->val && *p->val) {
			char *where = xasprintf("the baked command line's %s", keys[i]);
			set(what[i / 2][0], what[i / 2][1], p->val, where);
			free(where);
		}
	}
	cmdline_free(&c);
}

/* path inside the sysroot, its links followed there, as a host path;
 * NULL unless it is a regular file. */
static char *sysroot_file(const char *sysroot, const char *path)
{
	struct stat st;
	char *host = NULL;

	if (sysroot_path(sysroot, path, &host, &st) < 0) {
		err_clear();
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		free(host);
		host = NULL;
	}
	return host;
}

struct conf_vars {
	const char *file;
	const char *const *names; /* NULL-terminated */
	char **values;            /* parallel to names */
};

static int take_var(void *arg, const struct shell_assign *a)
{
	struct conf_vars *cv = arg;

	for (size_t i = 0; a->name && !a->array && !a->append && cv->names[i]; i++) {
		if (strcmp(a->name, cv->names[i]))
			continue;
		if (a->expands)
			log_warn("%s:%u: %s: not expanding a shell expression; ignored", cv->file,
				 a->line, a->text);
		else if (a->words.n) {
			free(cv->values[i]);
			cv->values[i] = xstrdup(a->words.v[0]);
		}
	}
	return 0;
}

/* Read NAME=value lines of a shell-style file of the sysroot: 0 when it
 * is absent too. */
static int read_vars(const char *sysroot, struct conf_vars *cv)
{
	char *real = sysroot_file(sysroot, cv->file), *data = NULL;
	size_t len;
	int r;

	if (!real)
		return 0;
	r = read_file(real, &data, &len);
	free(real);
	if (r < 0)
		return err_errno(r, "%s", cv->file);
	r = shell_assignments(cv->file, data, take_var, cv);
	free(data);
	return r;
}

/* Debian's console-setup font: FONT= names files (the first is taken,
 * its directory and suffix dropped), else CODESET, FONTFACE and FONTSIZE
 * name one as setupcon does: "Lat15", "Fixed", "8x16" give Lat15-Fixed16,
 * "16x32" Terminus32x16. NULL when it names none (CODESET=guess goes by
 * the locale, which only setupcon knows). */
static char *console_setup_font(char *const v[4])
{
	static const char *const suffixes[] = { ".psf.gz", ".psfu.gz", ".psf", ".psfu" };
	const char *face = v[2], *size = v[3], *x;
	char *name;

	if (v[0] && *v[0]) {
		const char *first = v[0] + strspn(v[0], " "), *base;
		name = xstrndup(first, strcspn(first, " "));
		base = strrchr(name, '/');
		if (base)
			memmove(name, base + 1, strlen(base));
		for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
			size_t n = strlen(name), k = strlen(suffixes[i]);
			if (n > k && !strcmp(name + n - k, suffixes[i])) {
				name[n - k] = '\0';
				break;
			}
		}
		return name;
	}
	if (!v[1] || !*v[1] || !face || !*face || !size || !*size)
		return NULL;
	if (!strcmp(v[1], "guess")) {
		log_info("/etc/default/console-setup: CODESET=guess depends on the locale; "
			 "no font packed (set FONT= or CODESET=)");
		return NULL;
	}
	x = strchr(size, 'x');
	if (x && !strncmp(size, "8x", 2))
		return xasprintf("%s-%s%s", v[1], face, x + 1);
	if (x)
		return xasprintf("%s-%s%sx%.*s", v[1], face, x + 1, (int)(x - size), size);
	return xasprintf("%s-%s%s", v[1], face, size);
}

static int from_host(struct console_plan *cp, const char *sysroot)
{
	static const char *const vconsole[] = { "KEYMAP", "FONT", "FONT_MAP", "FONT_UNIMAP", NULL };
	static const char *const keyboard[] = { "XKBLAYOUT", "XKBVARIANT", NULL };
	char *v[4] = { 0 }, *xkb[2] = { 0 }, *layout;
	struct conf_vars vc = { "/etc/vconsole.conf", vconsole, v };
	struct conf_vars kb = { "/etc/default/keyboard", keyboard, xkb };
	int r = read_vars(sysroot, &vc);

	if (r == 0 && v[0] && *v[0] && !cp->keymap)
		set(&cp->keymap, &cp->keymap_from, v[0], "/etc/vconsole.conf");
	if (r == 0 && v[1] && *v[1] && !cp->font)
		set(&cp->font, &cp->font_from, v[1], "/etc/vconsole.conf");
	if (r == 0 && v[2] && *v[2] && !cp->font_map)
		set(&cp->font_map, &cp->font_map_from, v[2], "/etc/vconsole.conf");
	if (r == 0 && v[3] && *v[3] && !cp->font_unimap)
		set(&cp->font_unimap, &cp->font_unimap_from, v[3], "/etc/vconsole.conf");
	if (r == 0 && !cp->font) {
		static const char *const setup[] = { "FONT", "CODESET", "FONTFACE", "FONTSIZE", NULL };
		char *cs[4] = { 0 }, *font;
		struct conf_vars csv = { "/etc/default/console-setup", setup, cs };
		r = read_vars(sysroot, &csv);
		font = r == 0 ? console_setup_font(cs) : NULL;
		if (font)
			set(&cp->font, &cp->font_from, font, "/etc/default/console-setup");
		free(font);
		for (size_t i = 0; i < 4; i++)
			free(cs[i]);
	}
	if (r == 0 && !cp->keymap)
		r = read_vars(sysroot, &kb);
	layout = xkb[0];
	if (r == 0 && layout && *layout && !cp->keymap) {
		/* "de,us": the first is the one typed at boot; variants go with
		 * the layouts, in order */
		layout[strcspn(layout, ",")] = '\0';
		set(&cp->keymap, &cp->keymap_from, layout, "/etc/default/keyboard");
		if (xkb[1] && (xkb[1][strcspn(xkb[1], ",")] = '\0', *xkb[1])) {
			free(cp->xkb_variant);
			cp->xkb_variant = xstrdup(xkb[1]);
		}
	}
	for (size_t i = 0; i < 4; i++)
		free(v[i]);
	free(xkb[0]);
	free(xkb[1]);
	return r;
}

int console_plan_settings(struct console_plan *cp, const char *sysroot, const char *cmdline,
			  bool hostonly)
{
	if (cmdline)
		from_cmdline(cp, cmdline);
	return hostonly ? from_host(cp, sysroot) : 0;
}

/* A keymap or font name as vconsole.conf gives it: a file name without
 * a directory, so a setting cannot reach outside the search dirs. */
static int check_name(const char *what, const char *name, const char *from)
{
	if (!*name || name[0] == '.' || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
						      "0123456789_.+-") != strlen(name))
		return err_set("%s \"%s\" (%s): not a %s name (letters, digits, _ . + - only)", what,
			       name, from, what);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Depth-first in name order, so the same tree always gives the same
 * file; directories found by lstat, so a link cannot lead the search
 * out of the tree. Returns the path below sysroot or NULL. */
static char *search(const char *sysroot, const char *dir, const char *name,
		    const char *const *suffixes, size_t nsuffixes, int depth)
{
	char *real = NULL, *found = NULL;
	struct dirent **ents = NULL;
	struct stat dst;
	int n = sysroot_path(sysroot, dir, &real, &dst) == 0 ? scandir(real, &ents, NULL, by_name) : (err_clear(), 0);

	for (size_t s = 0; s < nsuffixes && !found; s++) {
		char *want = xasprintf("%s%s", name, suffixes[s]);
		for (int i = 0; i < n && !found; i++)
			if (!strcmp(ents[i]->d_name, want))
				found = path_join(dir, want);
		free(want);
	}
	for (int i = 0; i < n && !found && depth > 0; i++) {
		char *sub = path_join(real, ents[i]->d_name);
		struct stat st;
		if (ents[i]->d_name[0] != '.' && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *subdir = path_join(dir, ents[i]->d_name);
			found = search(sysroot, subdir, name, suffixes, nsuffixes, depth - 1);
			free(subdir);
		}
		free(sub);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	free(real);
	return found;
}

static char *find_in(const char *sysroot, const char *const *dirs, size_t ndirs, const char *name,
		     const char *const *suffixes, size_t nsuffixes)
{
	char *found = NULL, *real = NULL;

	for (size_t i = 0; i < ndirs && !found; i++)
		found = search(sysroot, dirs[i], name, suffixes, nsuffixes, SEARCH_DEPTH);
	if (found)
		real = sysroot_file(sysroot, found);
	free(found);
	return real;
}

static int compile_keymap(const char *path, struct buf *out)
{
	/* -u: the console is in Unicode mode (the kernel's default) */
	const char *argv[] = { "loadkeys", "-q", "-u", "-b", path, NULL };
	int r = run_tool_capture(argv, "kbd", BKEYMAP_MAX_LEN, out);

	if (r == 0 && bkeymap_check((const uint8_t *)out->p, out->len) < 0)
		r = err_set("loadkeys -b %s wrote no binary keymap", path);
	return r;
}

static int any_codepoint(void *arg, unsigned glyph, uint32_t codepoint)
{
	(void)arg;
	(void)glyph;
	(void)codepoint;
	return 0;
}

/* A PSF font within the kernel's limits, its Unicode table whole. */
static int load_font(const char *path, struct buf *out)
{
	struct psf f;
	int r = decompress_file(path, out);

	if (r == 0 && (out->len > FONT_MAX || psf_parse((const uint8_t *)out->p, out->len, &f) < 0 ||
		       psf_unicode_walk(&f, any_codepoint, NULL) < 0))
		r = err_set("%s is not a PSF console font", path);
	return r;
}

/* setfont checks a map as it loads it: here only that it is one file of
 * a sane size, uncompressed. */
static int load_map(const char *path, struct buf *out)
{
	int r = decompress_file(path, out);

	if (r == 0 && (out->len == 0 || out->len > MAP_MAX))
		r = err_set("%s: not a console map (empty, or over %d KiB)", path, MAP_MAX >> 10);
	return r;
}

/* A keymap or a font: where it is looked for, and how the file found
 * becomes what the image holds. */
struct console_file {
	const char *what;
	const char *const *dirs, *const *suffixes;
	size_t ndirs, nsuffixes;
	const char *dst, *package;
	int (*load)(const char *path, struct buf *out);
};

static const struct console_file keymap_file = {
	"keymap", keymap_dirs, keymap_suffixes, ARRAY_SIZE(keymap_dirs), ARRAY_SIZE(keymap_suffixes),
	LAYOUT_KEYMAP_FILE, "console-data or kbd's keymaps", compile_keymap,
};
static const struct console_file font_file = {
	"font", font_dirs, font_suffixes, ARRAY_SIZE(font_dirs), ARRAY_SIZE(font_suffixes),
	LAYOUT_FONT_FILE, "console-data or kbd's fonts", load_font,
};
static const struct console_file map_file = {
	"font map", trans_dirs, map_suffixes, ARRAY_SIZE(trans_dirs), ARRAY_SIZE(map_suffixes),
	LAYOUT_FONT_MAP_FILE, "console-data or kbd's consoletrans", load_map,
};
static const struct console_file unimap_file = {
	"font unimap", trans_dirs, unimap_suffixes, ARRAY_SIZE(trans_dirs), ARRAY_SIZE(unimap_suffixes),
	LAYOUT_FONT_UNIMAP_FILE, "console-data or kbd's consoletrans", load_map,
};

/* kbd's setfont, with its libraries, for the maps. */
static int add_setfont(struct image *img, const char *sysroot)
{
	char *sf = sysroot_find_tool(sysroot, "setfont");
	struct elf_resolver *er;
	int r;

	if (!sf)
		return err_set("FONT_MAP/FONT_UNIMAP: setfont not found in %s%s: install kbd",
			       strcmp(sysroot, "/") ? sysroot : "", "/usr/bin");
	er = elf_resolver_new(sysroot);
	r = elf_add_binary(er, img, sf);
	elf_resolver_free(er);
	free(sf);
	return r;
}

/* path: a file already chosen (Debian's cached keymap), else NULL. */
static int add_file(const struct console_file *k, const char *name, const char *from, char *path,
		    struct image *img, const char *sysroot)
{
	struct buf data = { 0 };
	int r = check_name(k->what, name, from);

	if (r == 0 && !path)
		path = find_in(sysroot, k->dirs, k->ndirs, name, k->suffixes, k->nsuffixes);
	if (r == 0 && !path)
		r = err_set("%s \"%s\" (%s) not found in %s%s or %s: install %s", k->what, name, from,
			    strcmp(sysroot, "/") ? sysroot : "", k->dirs[0], k->dirs[1], k->package);
	if (r == 0)
		r = k->load(path, &data);
	if (r == 0)
		r = image_add_data(img, k->dst, data.p, data.len, 0644);
	if (r == 0)
		log_info("%s %s (%s) from %s", k->what, name, from, path);
	free(path);
	buf_free(&data);
	return r;
}

static int is_cached_keymap(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return !strncmp(d->d_name, "cached_", 7) && n > 15 && !strcmp(d->d_name + n - 8, ".kmap.gz");
}

/* setupcon's keymap for /etc/default/keyboard: the UTF-8 one, else the
 * first of another charmap (by name, so the same tree gives the same
 * file); NULL when setupcon never saved one. */
static char *cached_keymap(const char *sysroot)
{
	char *found = sysroot_file(sysroot, DEBIAN_CACHED_KEYMAP), *dir = NULL;
	struct dirent **ents = NULL;
	struct stat st;
	int n;

	if (found)
		return found;
	n = sysroot_path(sysroot, DEBIAN_CACHED_DIR, &dir, &st) == 0 ? scandir(dir, &ents, is_cached_keymap, by_name)
								       : (err_clear(), 0);
	for (int i = 0; i < n; i++) {
		if (!found) {
			char *rel = path_join(DEBIAN_CACHED_DIR, ents[i]->d_name);
			found = sysroot_file(sysroot, rel);
			free(rel);
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return found;
}

int console_plan_add(const struct console_plan *cp, struct image *img, const char *sysroot)
{
	/* what the image's vconsole.conf says, under vconsole.conf's own keys */
	const struct {
		const struct console_file *k;
		const char *name, *from, *key;
	} fonts[] = {
		{ &font_file, cp->font, cp->font_from, "FONT" },
		{ &map_file, cp->font_map, cp->font_map_from, "FONT_MAP" },
		{ &unimap_file, cp->font_unimap, cp->font_unimap_from, "FONT_UNIMAP" },
	};
	struct buf conf = { 0 };
	int r = 0;

	if (!cp->keymap && !cp->font && !cp->font_map && !cp->font_unimap)
		return 0;
	if (cp->keymap) {
		char *cached = NULL;
		if (!strcmp(cp->keymap_from, "/etc/default/keyboard"))
			cached = cached_keymap(sysroot);
		if (!cached && cp->xkb_variant)
			log_warn("XKBVARIANT=%s (/etc/default/keyboard) is not applied: console-setup "
				 "saved no keymap in %s (setupcon --save-only makes one), so the %s "
				 "keymap is packed", cp->xkb_variant, DEBIAN_CACHED_DIR, cp->keymap);
		r = add_file(&keymap_file, cp->keymap, cp->keymap_from, cached, img, sysroot);
		if (r == 0)
			buf_printf(&conf, "KEYMAP=%s\n", cp->keymap);
	}
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(fonts); i++) {
		if (!fonts[i].name)
			continue;
		r = add_file(fonts[i].k, fonts[i].name, fonts[i].from, NULL, img, sysroot);
		if (r == 0)
			buf_printf(&conf, "%s=%s\n", fonts[i].key, fonts[i].name);
	}
	if (r == 0 && (cp->font_map || cp->font_unimap))
		r = add_setfont(img, sysroot);
	if (r == 0)
		r = image_add_data(img, LAYOUT_VCONSOLE_FILE, conf.p, conf.len, 0644);
	buf_free(&conf);
	return r;
}

void console_plan_free(struct console_plan *cp)
{
	free(cp->keymap);
	free(cp->keymap_from);
	free(cp->font);
	free(cp->font_from);
	free(cp->font_map);
	free(cp->font_map_from);
	free(cp->font_unimap);
	free(cp->font_unimap_from);
	free(cp->xkb_variant);
	memset(cp, 0, sizeof(*cp));
}
