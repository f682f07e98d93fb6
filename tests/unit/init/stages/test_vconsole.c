// SPDX-License-Identifier: GPL-2.0-or-later
/* The init's side of the console (issue 14): the image's keymap goes in
 * key by key with KDSKBENT and its font with KDFONTOP and the font's
 * Unicode table; what the command line asks for against what is packed;
 * a missing VT or a damaged file keeps the kernel's and says so. */
#include <linux/kd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bkeymap.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static void put_bytes(struct fake_ops *f, const char *path, const void *data, size_t len)
{
	char *p = fake_path(f, path);
	FILE *fp;

	fake_write(f, path, "");
	fp = fopen(p, "w");
	fwrite(data, 1, len, fp);
	fclose(fp);
	free(p);
}

/* Keymaps 0 and 1 (plain and shift) with key 44 typing y and Y. */
static void put_keymap(struct fake_ops *f)
{
	static uint8_t map[BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES + 2 * BKEYMAP_KEYS * 2];
	uint16_t y = 0x0b79, Y = 0x0b59;

	memset(map, 0, sizeof(map));
	memcpy(map, BKEYMAP_MAGIC, BKEYMAP_MAGIC_LEN);
	map[BKEYMAP_MAGIC_LEN + 0] = 1;
	map[BKEYMAP_MAGIC_LEN + 1] = 1;
	memcpy(map + BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES + 44 * 2, &y, 2);
	memcpy(map + BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES + BKEYMAP_KEYS * 2 + 44 * 2, &Y, 2);
	put_bytes(f, LAYOUT_KEYMAP_FILE, map, sizeof(map));
}

/* A PSF2 font of 2 glyphs 8x16 whose table maps glyph 0 to 'A' and
 * U+00C4, glyph 1 to a sequence only. */
static void put_font(struct fake_ops *f)
{
	uint8_t psf[32 + 2 * 16 + 16] = { 0x72, 0xb5, 0x4a, 0x86, 0, 0, 0, 0, 32, 0, 0, 0, 1, 0, 0, 0,
					  2, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0 };
	const uint8_t table[] = { 'A', 0xc3, 0x84, 0xff, 0xfe, 'a', 'b', 0xff };

	memcpy(psf + 32 + 32, table, sizeof(table));
	put_bytes(f, LAYOUT_FONT_FILE, psf, 32 + 32 + sizeof(table));
}

static struct fake_ops *setup(struct init *in, const char *cmdline, const char *conf)
{
	struct fake_ops *f = fake_ops_new();
	struct cmdline c = { 0 };

	msgs_capture(LOG_DEBUG);
	memset(in, 0, sizeof(*in));
	in->ops = &f->ops;
	/* setfont runs through the stack's tool runner: what it reads of the init */
	in->stack_env = (struct stack_env){ .ops = in->ops, .stack = &in->stack };
	cmdline_parse(&c, cmdline);
	options_parse(&in->opt, &c);
	cmdline_free(&c);
	fake_write(f, "/dev/tty0", "");
	if (conf)
		fake_write(f, LAYOUT_VCONSOLE_FILE, conf);
	return f;
}

static void finish(struct fake_ops *f, struct init *in);
static struct fake_ops *cur;
static int run_status;

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	stack_log_run(cur, path, argv, envp, input, len);
	return run_status;
}

static const struct initops run_initops = { .run = x_run };

/* FONT_MAP and FONT_UNIMAP: the packed setfont, after the font, on the
 * VT in front; its failure is said and the boot goes on. */
static void test_font_maps_through_setfont(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "quiet", "FONT=tiny\nFONT_MAP=iso02\nFONT_UNIMAP=iso02\n");

	cur = f;
	run_status = 0;
	in.xops = in.stack_env.xops = &run_initops;
	put_font(f);
	fake_tool(f, "/usr/bin/setfont");
	stage_vconsole(&in);
	CHECK(fake_log_find(f, "run /usr/bin/setfont setfont -C /dev/tty0 -m " LAYOUT_FONT_MAP_FILE
			       " -u " LAYOUT_FONT_UNIMAP_FILE) > fake_log_find(f, "ioctl KDFONTOP"));
	CHECK(said("<6>console: font map iso02, unimap iso02\n"));
	finish(f, &in);

	f = setup(&in, "quiet", "FONT_MAP=iso02\n");
	cur = f;
	run_status = 1;
	in.xops = in.stack_env.xops = &run_initops;
	fake_tool(f, "/usr/bin/setfont");
	stage_vconsole(&in);
	CHECK(fake_log_find(f, "run /usr/bin/setfont setfont -C /dev/tty0 -m " LAYOUT_FONT_MAP_FILE)
	      >= 0);
	CHECK(said("<4>setfont could not load font map iso02, unimap - (exit status 1)\n"));
	finish(f, &in);
}

static void finish(struct fake_ops *f, struct init *in)
{
	if (test_cur_failed) {
		fake_log_dump(f);
		printf("# messages:\n%s", msgs.p);
	}
	free(in->keymap);
	options_free(&in->opt);
	fake_ops_free(f);
}

static void test_keymap_and_font_loaded(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "quiet", "KEYMAP=de\nFONT=tiny\n");

	put_keymap(f);
	put_font(f);
	stage_vconsole(&in);
	CHECK(fake_log_find(f, "open /dev/tty0") >= 0);
	CHECK(fake_log_count(f, "ioctl KDSKBENT ") == 2 * BKEYMAP_KEYS);
	CHECK(fake_log_find(f, "ioctl KDSKBENT 0 44 0x0b79") >= 0);
	CHECK(fake_log_find(f, "ioctl KDSKBENT 1 44 0x0b59") >= 0);
	CHECK(fake_log_find(f, "ioctl KDSKBMODE K_UNICODE") > fake_log_find(f, "ioctl KDSKBENT 1 44"));
	CHECK(fake_log_find(f, "ioctl KDFONTOP 0 8x16 2") >= 0); /* KD_FONT_OP_SET */
	CHECK(fake_log_find(f, "ioctl PIO_UNIMAPCLR") >= 0);
	CHECK(fake_log_find(f, "ioctl PIO_UNIMAP 2") >= 0); /* 'A' and U+00C4, not the sequence */
	CHECK_STR(in.keymap, "de");
	CHECK(said("<6>console: keymap de, font tiny\n"));
	finish(f, &in);
}

static void test_nothing_packed_nothing_done(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "quiet", NULL);

	stage_vconsole(&in);
	CHECK(fake_log_find(f, "open /dev/tty0") < 0);
	CHECK(fake_log_count(f, "ioctl") == 0);
	CHECK(in.keymap == NULL);
	finish(f, &in);
}

static void test_cmdline_asks_for_another(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.vconsole.keymap=fr", "KEYMAP=de\n");

	put_keymap(f);
	stage_vconsole(&in);
	CHECK(said("<4>rd.vconsole.keymap=fr: not in this image, which has de; loading de\n"));
	CHECK_STR(in.keymap, "de");
	finish(f, &in);

	f = setup(&in, "vconsole.keymap=us", "KEYMAP=de\n");
	put_keymap(f);
	stage_vconsole(&in);
	CHECK(said("<6>keymap us (rd.vconsole.keymap): keeping the kernel's\n"));
	CHECK(fake_log_count(f, "ioctl") == 0);
	CHECK(in.keymap == NULL);
	finish(f, &in);

	f = setup(&in, "rd.vconsole.keymap=fr", NULL);
	stage_vconsole(&in);
	CHECK(said("<4>rd.vconsole.keymap=fr: not in this image (build it with vconsole.keymap=fr)\n"));
	CHECK(fake_log_count(f, "ioctl") == 0);
	finish(f, &in);
}

static void test_no_vt(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "quiet", "KEYMAP=de\n");

	put_keymap(f);
	fake_fail(f, "open", "/dev/tty0", ENXIO);
	stage_vconsole(&in);
	CHECK(said("<6>no virtual console (/dev/tty0: No such device or address): keymap de and font - "
		   "not loaded\n"));
	CHECK(in.keymap == NULL);
	finish(f, &in);
}

static void test_damaged_files(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "quiet", "KEYMAP=de\nFONT=tiny\n");

	fake_write(f, LAYOUT_KEYMAP_FILE, "bkeymap but short");
	fake_write(f, LAYOUT_FONT_FILE, "not a font");
	stage_vconsole(&in);
	CHECK(said("<4>keymap de: " LAYOUT_KEYMAP_FILE " is not a binary keymap; keeping the kernel's\n"));
	CHECK(said("<4>font tiny: " LAYOUT_FONT_FILE " is not a PSF font; keeping the kernel's\n"));
	CHECK(fake_log_count(f, "ioctl") == 0);
	CHECK(in.keymap == NULL);
	finish(f, &in);

	f = setup(&in, "quiet", "KEYMAP=de\n");
	put_keymap(f);
	fake_fail(f, "ioctl", "*", EPERM);
	stage_vconsole(&in);
	CHECK(said("<4>cannot load keymap de: Operation not permitted\n"));
	CHECK(fake_log_count(f, "ioctl") == 1); /* the first refusal stops it */
	CHECK(in.keymap == NULL);
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	test_run("keymap and font loaded", test_keymap_and_font_loaded);
	test_run("nothing packed, nothing done", test_nothing_packed_nothing_done);
	test_run("the command line asks for another", test_cmdline_asks_for_another);
	test_run("no virtual console", test_no_vt);
	test_run("damaged files and refused ioctls", test_damaged_files);
	test_run("font maps through setfont", test_font_maps_through_setfont);
	buf_free(&msgs);
	return test_done();
}
