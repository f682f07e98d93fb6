// SPDX-License-Identifier: GPL-2.0-or-later
/* Debian live-boot's words folded into the live root's options: boot=live,
 * the medium (live-media=, or a scan), its directory (live-media-path=,
 * hostile: it must stay below the medium), and the words uniramfs does
 * not act on, said by name. */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "init/core/options.h"
#include "init/core/options_live.h"
#include "log.h"
#include "test.h"

static struct buf warnings;

static void sink(int level, const char *msg, void *userdata)
{
	(void)userdata;
	if (level <= LOG_WARNING)
		buf_printf(&warnings, "%s\n", msg);
}

static void parse(struct options *o, const char *text)
{
	struct cmdline c = { 0 };

	buf_free(&warnings);
	cmdline_parse(&c, text);
	options_parse(o, &c);
	cmdline_free(&c);
}

/* A Debian live image's own line: a scan for live/filesystem.squashfs,
 * a tmpfs above it, and live-config's words left to live-config. */
static void test_debian_line(void)
{
	struct options o;

	parse(&o, "boot=live components quiet splash hostname=kiosk username=user "
		  "live-config.timezone=UTC nopersistence locales=de_CH.UTF-8");
	CHECK(o.debian_live && o.live);
	CHECK(o.root == NULL);
	CHECK_STR(o.live_dir, "live");
	CHECK_STR(o.live_squashimg, "filesystem.squashfs");
	CHECK_STR(o.overlay, "");
	CHECK(o.quiet);
	CHECK(o.modparam_mod.n == 0); /* live-config.timezone is no module's */
	CHECK(warnings.len == 0);
	options_free(&o);
}

/* live-media= names the medium (root=, which live-boot ignores, goes);
 * live-media-path= its directory; live-media-timeout= the wait. */
static void test_medium_named(void)
{
	struct options o;

	parse(&o, "root=/dev/sda1 boot=live live-media=LABEL=DEBIAN_LIVE live-media-path=/debian/live/ "
		  "live-media-timeout=7");
	CHECK_STR(o.root, "LABEL=DEBIAN_LIVE");
	CHECK_STR(o.live_dir, "debian/live");
	CHECK(o.timeout == 7);
	options_free(&o);

	/* rd.live.dir wins over live-media-path, as the more specific word */
	parse(&o, "boot=live bootfrom=/dev/sr0 rd.live.dir=LiveOS rd.live.squashimg=squashfs.img");
	CHECK_STR(o.root, "/dev/sr0");
	CHECK_STR(o.live_dir, "LiveOS");
	CHECK_STR(o.live_squashimg, "squashfs.img");
	options_free(&o);

	parse(&o, "boot=live live-media=removable-usb");
	CHECK(o.root == NULL);
	CHECK_STR(warnings.p, "live-media=removable-usb: every block device is looked at, "
		  "not only removable ones\n");
	options_free(&o);

	/* without boot=live, live-boot's words change nothing */
	parse(&o, "root=/dev/vda live-media=/dev/sr0 live-media-path=x");
	CHECK(!o.live && !o.debian_live);
	CHECK_STR(o.root, "/dev/vda");
	CHECK(o.live_dir == NULL);
	options_free(&o);

	/* fetch=: the image over HTTP wins over live-media= */
	parse(&o, "boot=live fetch=http://10.0.2.100/live/filesystem.squashfs live-media=/dev/sr0");
	CHECK_STR(o.root, "http://10.0.2.100/live/filesystem.squashfs");
	CHECK(o.live);
	options_free(&o);

	/* initramfs-tools' boot=nfs is not a live boot */
	parse(&o, "boot=nfs root=/dev/nfs");
	CHECK(!o.live && !o.debian_live);
	options_free(&o);
}

static void test_media_path_hostile(void)
{
	struct options o;
	const char *why = NULL;
	char *d, longer[300];

	parse(&o, "boot=live live-media-path=../../etc live-media-path=/// live-media-path=a/../b "
		  "live-media-path");
	CHECK_STR(o.live_dir, "live");
	CHECK_STR(warnings.p, "ignoring live-media-path=../../etc: it goes up (..) out of the medium\n"
		  "ignoring live-media-path=///: not a directory below the medium's top\n"
		  "ignoring live-media-path=a/../b: it goes up (..) out of the medium\n"
		  "ignoring live-media-path=: not a directory below the medium's top\n");
	options_free(&o);

	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	CHECK(live_media_path(longer, &why) == NULL);
	CHECK_STR(why, "longer than 255 bytes");
	/* names that merely start with dots are a directory's own */
	CHECK_STR((d = live_media_path("/..live/.x/", &why)), "..live/.x");
	free(d);
	CHECK(live_media_path("x/..", &why) == NULL);
	CHECK_STR(why, "it goes up (..) out of the medium");
	CHECK_STR((d = live_media_path("x/..y", &why)), "x/..y");
	free(d);
}

static void test_unsupported_said(void)
{
	struct options o;

	parse(&o, "boot=live toram persistence findiso=/live.iso live-boot.verify-checksums");
	CHECK_STR(warnings.p,
		  "ignoring persistence: uniramfs keeps no live-boot persistence: changes go to a "
		  "tmpfs and are gone at the next boot\n"
		  "ignoring findiso=/live.iso: uniramfs does not look for a live ISO file on a "
		  "filesystem\n"
		  "ignoring live-boot.verify-checksums: uniramfs does not check a live medium's "
		  "md5sums\n");
	CHECK(o.modparam_mod.n == 0);
	options_free(&o);
}

/* toram (live-boot): rd.live.ram's copy of the image, with its memory
 * check; toram=FILE naming another file is said, the image still copied;
 * without boot=live it is live-boot's word and not taken. */
static void test_toram(void)
{
	struct options o;

	parse(&o, "boot=live toram");
	CHECK(o.live_ram);
	CHECK(warnings.len == 0);
	options_free(&o);

	parse(&o, "boot=live toram=filesystem.squashfs");
	CHECK(o.live_ram);
	CHECK(warnings.len == 0);
	options_free(&o);

	/* the name compared with rd.live.squashimg=, wherever it stands */
	parse(&o, "boot=live toram=root.sq rd.live.squashimg=root.sq");
	CHECK(o.live_ram);
	CHECK(warnings.len == 0);
	options_free(&o);

	parse(&o, "boot=live toram=");
	CHECK(o.live_ram);
	CHECK(warnings.len == 0);
	options_free(&o);

	/* hostile or foreign names: said with the text, never a path used */
	parse(&o, "boot=live live-media-path=debian toram=../../etc/shadow");
	CHECK(o.live_ram);
	CHECK_STR(warnings.p, "toram=../../etc/shadow: uniramfs copies only the live image "
		  "debian/filesystem.squashfs to RAM, not ../../etc/shadow\n");
	CHECK_STR(o.live_squashimg, "filesystem.squashfs");
	options_free(&o);

	parse(&o, "boot=live toram=filesystem.squashfs toram=other.module");
	CHECK(o.live_ram);
	CHECK_STR(warnings.p, "toram=other.module: uniramfs copies only the live image "
		  "live/filesystem.squashfs to RAM, not other.module\n");
	options_free(&o);

	parse(&o, "root=live:LABEL=X toram");
	CHECK(!o.live_ram);
	CHECK_STR(warnings.p, "ignoring toram: live-boot's word, only with boot=live (here "
		  "rd.live.ram)\n");
	options_free(&o);

	parse(&o, "root=/dev/vda toram=x.squashfs");
	CHECK(!o.live_ram);
	CHECK_STR(warnings.p, "ignoring toram=x.squashfs: live-boot's word, only with boot=live "
		  "(here rd.live.ram)\n");
	options_free(&o);
}

int main(void)
{
	log_init("test", LOG_DEBUG);
	log_set_sink(sink, NULL);
	RUN(test_debian_line);
	RUN(test_medium_named);
	RUN(test_media_path_hostile);
	RUN(test_unsupported_said);
	RUN(test_toram);
	buf_free(&warnings);
	return test_done();
}
