// SPDX-License-Identifier: GPL-2.0-or-later
/* The keymap and font the image was made with, loaded on the virtual
 * console before anything can ask for a passphrase: a German keyboard
 * on the kernel's US keymap types z for y, and the passphrase is wrong.
 * No loadkeys or setfont: the generator compiled the keymap
 * (common/bkeymap.h), and both go in with the kernel's own ioctls. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bkeymap.h"
#include "init/init.h"
#include "init/stack/stack.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"
#include "psf.h"

/* KD_FONT_OP_SET takes every glyph in a 32-line cell. */
#define FONT_CELL_LINES 32

struct vconsole_conf {
	char *keymap, *font, *font_map, *font_unimap;
};

static void read_conf(struct init *in, struct vconsole_conf *vc)
{
	char *p = in->ops->path(LAYOUT_VCONSOLE_FILE), *data = NULL, *save = NULL;
	size_t len;

	if (read_file(p, &data, &len) == 0) {
		for (char *l = strtok_r(data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (!strncmp(l, "KEYMAP=", 7) && l[7])
				vc->keymap = xstrdup(l + 7);
			else if (!strncmp(l, "FONT=", 5) && l[5])
				vc->font = xstrdup(l + 5);
			else if (!strncmp(l, "FONT_MAP=", 9) && l[9])
				vc->font_map = xstrdup(l + 9);
			else if (!strncmp(l, "FONT_UNIMAP=", 12) && l[12])
				vc->font_unimap = xstrdup(l + 12);
		}
	}
	free(data);
	free(p);
}

static int read_image_file(struct init *in, const char *path, char **data, size_t *len)
{
	char *p = in->ops->path(path);
	int r = read_file(p, data, len);

	free(p);
	return r;
}

struct keyload {
	struct init *in;
	int fd;
};

static int set_key(void *arg, unsigned table, unsigned key, uint16_t value)
{
	struct keyload *kl = arg;
	struct kbentry e = { .kb_table = (unsigned char)table, .kb_index = (unsigned char)key,
			     .kb_value = value };

	return kl->in->ops->ioctl(kl->fd, KDSKBENT, &e);
}

static int load_keymap(struct init *in, int fd, const char *name)
{
	struct keyload kl = { in, fd };
	char *data = NULL;
	size_t len = 0;
	int r = read_image_file(in, LAYOUT_KEYMAP_FILE, &data, &len);

	if (r == 0) {
		r = bkeymap_walk((const uint8_t *)data, len, set_key, &kl);
		if (r == -EINVAL)
			log_warn("keymap %s: %s is not a binary keymap; keeping the kernel's", name,
				 LAYOUT_KEYMAP_FILE);
	}
	/* The generator compiles keymaps for Unicode (loadkeys -u): in the
	 * kernel's other modes (vt.default_utf8=0 gives K_XLATE) a key
	 * beyond Latin-1 would type nothing. */
	if (r == 0)
		r = in->ops->ioctl(fd, KDSKBMODE, (void *)(unsigned long)K_UNICODE);
	if (r < 0 && r != -EINVAL)
		log_warn("cannot load keymap %s: %s", name, strerror(-r));
	free(data);
	return r;
}

struct unimap {
	struct unipair *v;
	size_t n, cap;
};

static int add_pair(void *arg, unsigned glyph, uint32_t codepoint)
{
	struct unimap *m = arg;

	if (codepoint > 0xffff) /* the console maps the BMP only */
		return 0;
	ARRAY_GROW(m->v, m->cap, m->n + 1);
	m->v[m->n++] = (struct unipair){ .unicode = (unsigned short)codepoint,
					 .fontpos = (unsigned short)glyph };
	return 0;
}

/* The glyphs, then the font's Unicode table (without it the console
 * keeps mapping characters as for the kernel's font). */
static int set_font(struct init *in, int fd, const struct psf *f)
{
	size_t row = (f->width + 7) / 8, cell = row * FONT_CELL_LINES;
	unsigned char *cells = xcalloc(f->glyphs, cell);
	struct console_font_op op = { .op = KD_FONT_OP_SET, .width = f->width,
				      .height = f->height, .charcount = f->glyphs, .data = cells };
	struct unimap m = { 0 };
	int r;

	for (unsigned g = 0; g < f->glyphs; g++)
		memcpy(cells + g * cell, f->glyph_data + g * f->glyph_bytes, f->glyph_bytes);
	r = in->ops->ioctl(fd, KDFONTOP, &op);
	if (r == 0 && f->table)
		r = psf_unicode_walk(f, add_pair, &m);
	if (r == 0 && m.n) {
		struct unimapinit clear = { 0 };
		struct unimapdesc desc = { .entry_ct = (unsigned short)m.n, .entries = m.v };
		if (m.n > 0xffff)
			desc.entry_ct = 0xffff;
		r = in->ops->ioctl(fd, PIO_UNIMAPCLR, &clear);
		if (r == 0)
			r = in->ops->ioctl(fd, PIO_UNIMAP, &desc);
	}
	free(m.v);
	free(cells);
	return r;
}

static int load_font(struct init *in, int fd, const char *name)
{
	char *data = NULL;
	size_t len = 0;
	struct psf f;
	int r = read_image_file(in, LAYOUT_FONT_FILE, &data, &len);

	if (r == 0 && psf_parse((const uint8_t *)data, len, &f) < 0) {
		log_warn("font %s: %s is not a PSF font; keeping the kernel's", name, LAYOUT_FONT_FILE);
		r = -EINVAL;
	} else if (r == 0) {
		r = set_font(in, fd, &f);
		if (r < 0)
			log_warn("cannot load font %s: %s", name, strerror(-r));
	} else {
		log_warn("cannot load font %s: %s", name, strerror(-r));
	}
	free(data);
	return r;
}

/* What the boot's command line asks for against what the image holds:
 * the image's unless the line names another. The kernel's own "us"
 * needs nothing packed. */
static const char *choose(const char *what, const char *asked, const char *packed)
{
	if (!asked || (packed && !strcmp(asked, packed)))
		return packed;
	if (!strcmp(what, "keymap") && !strcmp(asked, "us")) {
		log_info("keymap us (rd.vconsole.keymap): keeping the kernel's");
		return NULL;
	}
	if (packed)
		log_warn("rd.vconsole.%s=%s: not in this image, which has %s; loading %s", what, asked,
			 packed, packed);
	else
		log_warn("rd.vconsole.%s=%s: not in this image (build it with vconsole.%s=%s)", what,
			 asked, what, asked);
	return packed;
}

/* FONT_MAP's console map and FONT_UNIMAP's Unicode map (which replaces
 * the font's own table, as systemd-vconsole-setup gives them): kbd's
 * setfont reads its formats, so the image carries it. */
static void load_maps(struct init *in, const char *map, const char *unimap)
{
	char *argv[8];
	size_t n = 0;
	int st;

	argv[n++] = (char *)"setfont";
	argv[n++] = (char *)"-C";
	argv[n++] = (char *)"/dev/tty0";
	if (map) {
		argv[n++] = (char *)"-m";
		argv[n++] = (char *)LAYOUT_FONT_MAP_FILE;
	}
	if (unimap) {
		argv[n++] = (char *)"-u";
		argv[n++] = (char *)LAYOUT_FONT_UNIMAP_FILE;
	}
	argv[n] = NULL;
	st = tool_run(&in->stack_env, "setfont", argv, NULL, 0);
	if (st == 0)
		log_info("console: font map %s, unimap %s", map ? map : "-", unimap ? unimap : "-");
	else if (st > 0)
		log_warn("setfont could not load font map %s, unimap %s (exit status %d)",
			 map ? map : "-", unimap ? unimap : "-", st);
}

void stage_vconsole(struct init *in)
{
	struct vconsole_conf vc = { 0 };
	const char *keymap, *font;
	bool font_ok = false;
	int fd;

	read_conf(in, &vc);
	keymap = choose("keymap", in->opt.vconsole_keymap, vc.keymap);
	font = choose("font", in->opt.vconsole_font, vc.font);
	if (!keymap && !font && !vc.font_map && !vc.font_unimap)
		goto out;
	/* the keymap is the keyboard's, one for every virtual console;
	 * /dev/console may be a serial line, tty0 is the VT in front */
	fd = in->ops->open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
	if (fd < 0) {
		log_info("no virtual console (/dev/tty0: %s): keymap %s and font %s not loaded",
			 strerror(-fd), keymap ? keymap : "-", font ? font : "-");
		goto out;
	}
	if (keymap && load_keymap(in, fd, keymap) == 0)
		in->keymap = xstrdup(keymap);
	if (font)
		font_ok = load_font(in, fd, font) == 0;
	close(fd);
	if (vc.font_map || vc.font_unimap)
		load_maps(in, vc.font_map, vc.font_unimap);
	if (in->keymap || font_ok)
		log_info("console: keymap %s, font %s", in->keymap ? in->keymap : "the kernel's",
			 font_ok ? font : "the kernel's");
out:
	free(vc.keymap);
	free(vc.font);
	free(vc.font_map);
	free(vc.font_unimap);
}
