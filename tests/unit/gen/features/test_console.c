// SPDX-License-Identifier: GPL-2.0-or-later
/* The console a passphrase is typed on (issue 14): which keymap and
 * font the generator packs, from where, and what it refuses. The keymap
 * is compiled by the host's loadkeys (kbd, installed by
 * tools/install-deps.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bkeymap.h"
#include "gen/features/console.h"
#include "err.h"
#include "gen/image/image.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *tmpdir;

/* keycode 44 is the key US keyboards label Z; a German one types y */
#define TEST_KEYMAP "keymaps 0-1\nkeycode 44 = +y +Y\nkeycode 21 = +z +Z\n"

static char *sysroot(const char *name)
{
	char *d = path_join(tmpdir, name);

	write_under(d, "usr/share/keymaps/i386/qwertz/xx-test.map", TEST_KEYMAP);
	return d;
}

/* A host tree with the test keymap, and the plan and image made for it. */
struct host {
	char *root;
	struct console_plan cp;
	struct image *img;
};

static void host_new(struct host *h, const char *name)
{
	h->root = sysroot(name);
	memset(&h->cp, 0, sizeof(h->cp));
	h->img = image_new();
}

static void host_free(struct host *h)
{
	console_plan_free(&h->cp);
	image_free(h->img);
	free(h->root);
}

struct found {
	uint16_t k44, k21;
	unsigned tables;
};

static int note(void *arg, unsigned table, unsigned key, uint16_t value)
{
	struct found *f = arg;

	if (key == 0)
		f->tables++;
	if (table == 0 && key == 44)
		f->k44 = value;
	if (table == 0 && key == 21)
		f->k21 = value;
	return 0;
}

static void test_keymap_from_vconsole_conf(void)
{
	struct host h;

	host_new(&h, "vc");
	write_under(h.root, "etc/vconsole.conf", "# the host's console\nKEYMAP=\"xx-test\"\nFONT=\n");
	CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
	CHECK_STR(h.cp.keymap, "xx-test");
	CHECK_STR(h.cp.keymap_from, "/etc/vconsole.conf");
	CHECK(h.cp.font == NULL);
	CHECK(console_plan_add(&h.cp, h.img, h.root) == 0);
	CHECK(image_has(h.img, LAYOUT_KEYMAP_FILE));
	CHECK(image_has(h.img, LAYOUT_VCONSOLE_FILE));
	CHECK(!image_has(h.img, LAYOUT_FONT_FILE));
	host_free(&h);
}

static void test_generic_keeps_us(void)
{
	struct host h;

	host_new(&h, "gen");
	write_under(h.root, "etc/vconsole.conf", "KEYMAP=xx-test\n");
	CHECK(console_plan_settings(&h.cp, h.root, "quiet", false) == 0);
	CHECK(h.cp.keymap == NULL);
	CHECK(console_plan_add(&h.cp, h.img, h.root) == 0);
	CHECK(!image_has(h.img, LAYOUT_KEYMAP_FILE));
	CHECK(!image_has(h.img, LAYOUT_VCONSOLE_FILE));
	host_free(&h);
}

static void test_cmdline_wins(void)
{
	struct host h;

	host_new(&h, "cl");
	write_under(h.root, "etc/vconsole.conf", "KEYMAP=us\n");
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.keymap=fr rd.vconsole.keymap=xx-test", true) == 0);
	CHECK_STR(h.cp.keymap, "xx-test");
	CHECK_STR(h.cp.keymap_from, "the baked command line's rd.vconsole.keymap");
	host_free(&h);
}

static void test_debian_keyboard(void)
{
	struct host h;

	host_new(&h, "deb");
	write_under(h.root, "etc/default/keyboard", "XKBMODEL=\"pc105\"\nXKBLAYOUT=\"xx-test,us\"\n");
	CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
	CHECK_STR(h.cp.keymap, "xx-test");
	CHECK_STR(h.cp.keymap_from, "/etc/default/keyboard");
	host_free(&h);

	/* a variant without setupcon's cached keymap: said, the layout packed */
	host_new(&h, "deb-variant");
	write_under(h.root, "etc/default/keyboard", "XKBLAYOUT=\"xx-test,us\"\nXKBVARIANT=\"nodeadkeys,\"\n");
	msgs_capture(LOG_INFO);
	CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
	CHECK_STR(h.cp.xkb_variant, "nodeadkeys");
	CHECK(console_plan_add(&h.cp, h.img, h.root) == 0);
	CHECK(strstr(msgs.p, "<4>XKBVARIANT=nodeadkeys (/etc/default/keyboard) is not applied: "
			     "console-setup saved no keymap in /etc/console-setup (setupcon "
			     "--save-only makes one), so the xx-test keymap is packed\n") != NULL);
	log_set_sink(NULL, NULL);
	host_free(&h);

	/* setupcon's keymap for another charmap: used, variant and all */
	host_new(&h, "deb-cached");
	write_under(h.root, "etc/default/keyboard", "XKBLAYOUT=\"xx-test\"\nXKBVARIANT=\"nodeadkeys\"\n");
	write_under(h.root, "etc/console-setup/cached_ISO-8859-15_del.kmap.gz", "");
	{
		char *cmd = xasprintf("printf '%s' | gzip -c > %s/etc/console-setup/"
				      "cached_ISO-8859-15_del.kmap.gz", TEST_KEYMAP, h.root);
		CHECK(run_capture(cmd, NULL) == 0);
		free(cmd);
	}
	msgs_capture(LOG_INFO);
	CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) == 0);
	CHECK(strstr(msgs.p, "cached_ISO-8859-15_del.kmap.gz") != NULL);
	CHECK(strstr(msgs.p, "XKBVARIANT") == NULL);
	CHECK(image_has(h.img, LAYOUT_KEYMAP_FILE));
	log_set_sink(NULL, NULL);
	host_free(&h);
}

static void test_bad_names(void)
{
	struct host h;

	host_new(&h, "bad");
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.keymap=../../../etc/shadow", false) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) < 0);
	CHECK_STR(err_msg(), "keymap \"../../../etc/shadow\" (the baked command line's vconsole.keymap): "
		  "not a keymap name (letters, digits, _ . + - only)");
	console_plan_free(&h.cp);
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.keymap=nosuch", false) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) < 0);
	CHECK(strstr(err_msg(), "keymap \"nosuch\" (the baked command line's vconsole.keymap) not found in ") != NULL);
	console_plan_free(&h.cp);
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.font=nosuch", false) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) < 0);
	CHECK(strstr(err_msg(), "font \"nosuch\" (the baked command line's vconsole.font) not found in ") != NULL);
	console_plan_free(&h.cp);
	CHECK(!image_has(h.img, LAYOUT_VCONSOLE_FILE));
	host_free(&h);
}

/* A keymap file loadkeys cannot read fails the build, naming it. */
static void test_broken_keymap(void)
{
	struct host h;

	host_new(&h, "broken");
	write_under(h.root, "usr/share/keymaps/broken.map", "keycode 44 = = =\n");
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.keymap=broken", false) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) < 0);
	CHECK_STR(err_msg(), "loadkeys failed (exit status 1)");
	host_free(&h);
}

/* A font that is not PSF is refused; a PSF2 one is packed as it is. */
static void test_font(void)
{
	struct host h;
	unsigned char psf2[32 + 2 * 16] = { 0x72, 0xb5, 0x4a, 0x86, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0,
					    2, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0 };
	char *p;
	FILE *f;

	host_new(&h, "font");
	p = path_join(h.root, "usr/share/consolefonts/tiny.psf");
	write_under(h.root, "usr/share/consolefonts/notafont.psf", "hello\n");
	write_under(h.root, "usr/share/consolefonts/tiny.psf", "");
	f = fopen(p, "w");
	fwrite(psf2, 1, sizeof(psf2), f);
	fclose(f);
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.font=notafont", false) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) < 0);
	CHECK(strstr(err_msg(), "notafont.psf is not a PSF console font") != NULL);
	console_plan_free(&h.cp);
	CHECK(console_plan_settings(&h.cp, h.root, "vconsole.font=tiny", false) == 0);
	CHECK(console_plan_add(&h.cp, h.img, h.root) == 0);
	CHECK(image_has(h.img, LAYOUT_FONT_FILE));
	free(p);
	host_free(&h);
}

/* Debian's /etc/default/console-setup names the font: FONT= files, or
 * CODESET, FONTFACE and FONTSIZE as setupcon puts them together;
 * vconsole.conf's FONT wins. */
static void test_console_setup_font(void)
{
	static const struct {
		const char *conf, *font;
	} cases[] = {
		{ "CODESET=\"Lat15\"\nFONTFACE=\"Fixed\"\nFONTSIZE=\"8x16\"\n", "Lat15-Fixed16" },
		{ "CODESET=\"Lat15\"\nFONTFACE=\"Terminus\"\nFONTSIZE=\"16x32\"\n", "Lat15-Terminus32x16" },
		{ "CODESET=\"Uni2\"\nFONTFACE=\"VGA\"\nFONTSIZE=\"16\"\n", "Uni2-VGA16" },
		{ "FONT=\"/usr/share/consolefonts/Lat2-Fixed16.psf.gz other.psf\"\nCODESET=\"x\"\n",
		  "Lat2-Fixed16" },
		{ "CODESET=\"guess\"\nFONTFACE=\"Fixed\"\nFONTSIZE=\"8x16\"\n", NULL },
	};
	struct host h;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		host_new(&h, "cs");
		write_under(h.root, "etc/default/console-setup", cases[i].conf);
		CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
		if (cases[i].font) {
			CHECK_STR(h.cp.font, cases[i].font);
			CHECK_STR(h.cp.font_from, "/etc/default/console-setup");
		} else {
			CHECK(h.cp.font == NULL);
		}
		host_free(&h);
	}
	host_new(&h, "cs-vc");
	write_under(h.root, "etc/default/console-setup", cases[0].conf);
	write_under(h.root, "etc/vconsole.conf", "FONT=tiny\n");
	CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
	CHECK_STR(h.cp.font, "tiny");
	host_free(&h);
}

/* FONT_MAP and FONT_UNIMAP: the files found, uncompressed, and kbd's
 * setfont with its libraries (copied into the sysroot as ldd lists
 * them); without setfont the build says what to install. */
static void test_font_maps(void)
{
	struct host h;
	char *cmd, *text;

	host_new(&h, "maps");
	write_under(h.root, "etc/vconsole.conf", "FONT_MAP=xx\nFONT_UNIMAP=yy\n");
	write_under(h.root, "usr/share/consoletrans/xx.trans", "0x41 0x42\n");
	cmd = xasprintf("printf '0x41 U+0041\\n' | gzip -c > %s/usr/share/consoletrans/yy.sfm.gz",
			h.root);
	CHECK(run_capture(cmd, NULL) == 0);
	free(cmd);
	CHECK(console_plan_settings(&h.cp, h.root, NULL, true) == 0);
	CHECK_STR(h.cp.font_map, "xx");
	CHECK_STR(h.cp.font_unimap_from, "/etc/vconsole.conf");
	CHECK(console_plan_add(&h.cp, h.img, h.root) < 0);
	text = xasprintf("FONT_MAP/FONT_UNIMAP: setfont not found in %s/usr/bin: install kbd", h.root);
	CHECK_STR(err_msg(), text);
	free(text);
	image_free(h.img);
	h.img = image_new();
	cmd = xasprintf("cd %s && for f in /usr/bin/setfont $(ldd /usr/bin/setfont | "
			"grep -o '/[^ ]*'); do mkdir -p .$(dirname $f) && cp -L $f .$f; done",
			h.root);
	CHECK(run_capture(cmd, NULL) == 0);
	free(cmd);
	CHECK(console_plan_add(&h.cp, h.img, h.root) == 0);
	CHECK(image_has(h.img, LAYOUT_FONT_MAP_FILE) && image_has(h.img, LAYOUT_FONT_UNIMAP_FILE));
	CHECK(image_has(h.img, "/usr/bin/setfont"));
	host_free(&h);
}

/* What loadkeys made is what the init will load: key 44 types y. */
static void test_bkeymap_content(void)
{
	char *root = sysroot("content"), *map = path_join(root, "usr/share/keymaps/i386/qwertz/xx-test.map");
	char *cmd = xasprintf("loadkeys -q -u -b %s > %s/out.bmap", map, root);
	char *out = path_join(root, "out.bmap"), *data = NULL;
	struct found f = { 0 };
	size_t len = 0;

	CHECK(run_capture(cmd, NULL) == 0);
	CHECK(read_file(out, &data, &len) == 0);
	CHECK(bkeymap_walk((const uint8_t *)data, len, note, &f) == 0);
	CHECK(f.tables == 2);
	CHECK((f.k44 & 0xff) == 'y');
	CHECK((f.k21 & 0xff) == 'z');
	CHECK(bkeymap_check((const uint8_t *)data, len - 1) < 0);
	data[7] = 2; /* a flag that is neither 0 nor 1 */
	CHECK(bkeymap_check((const uint8_t *)data, len) < 0);
	CHECK(bkeymap_check((const uint8_t *)"bkeymap", 7) < 0);
	free(data);
	free(out);
	free(cmd);
	free(map);
	free(root);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-console-XXXXXX";

	tmpdir = mkdtemp(tmpl);
	if (!tmpdir || run_capture("command -v loadkeys", NULL) != 0) {
		printf("Bail out! no loadkeys (kbd): tools/install-deps.sh installs it\n");
		return 1;
	}
	test_run("keymap from vconsole.conf", test_keymap_from_vconsole_conf);
	test_run("generic keeps the US layout", test_generic_keeps_us);
	test_run("the baked command line wins", test_cmdline_wins);
	test_run("Debian's /etc/default/keyboard", test_debian_keyboard);
	test_run("bad and missing names", test_bad_names);
	test_run("a keymap loadkeys cannot read", test_broken_keymap);
	test_run("fonts", test_font);
	test_run("font maps and setfont", test_font_maps);
	test_run("Debian's console-setup font", test_console_setup_font);
	test_run("the binary keymap", test_bkeymap_content);
	char *rm = xasprintf("rm -rf %s", tmpdir);
	run_capture(rm, NULL);
	free(rm);
	return test_done();
}
