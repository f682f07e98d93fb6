// SPDX-License-Identifier: GPL-2.0-or-later
/* The Plymouth splash's generator side (src/gen/features/plymouth*.c):
 * when it is asked for, which theme the host's files name (hostile text:
 * a bad name is an error naming it), and what an image with it holds. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/features/plymouth.h"
#include "gen/image/image.h"
#include "test.h"
#include "util.h"

static char *root;

static void put(const char *path, const char *text)
{
	char *p = path_join(root, path), *dir = xstrdup(p);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	CHECK(mkdir_p(dir, 0755) == 0);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(dir), free(p);
}

static void test_asked(void)
{
	CHECK(!plymouth_asked(NULL));
	CHECK(!plymouth_asked("quiet root=/dev/vda"));
	CHECK(plymouth_asked("quiet splash"));
	CHECK(plymouth_asked("rhgb"));
	CHECK(!plymouth_asked("splash plymouth.enable=0"));
	CHECK(!plymouth_asked("splash rd.plymouth=0"));
	CHECK(!plymouth_asked("splash rd.plymouth=no"));
	/* the last one counts */
	CHECK(plymouth_asked("splash rd.plymouth=0 rd.plymouth=1"));
	CHECK(!plymouth_asked("splashy"));
}

static void test_ini(void)
{
	const char *t = "# c\n[Plymouth Theme]\nName=X\n ModuleName = two-step \n[two-step]\n"
			"ImageDir=/usr/share/plymouth/themes/x\nModuleName=no\n";
	char *v = plymouth_ini_get(t, "Plymouth Theme", "ModuleName");

	CHECK_STR(v, "two-step");
	free(v);
	v = plymouth_ini_get(t, "two-step", "ImageDir");
	CHECK_STR(v, "/usr/share/plymouth/themes/x");
	free(v);
	CHECK(plymouth_ini_get(t, "two-step", "Image") == NULL); /* a prefix is not the key */
	CHECK(plymouth_ini_get(t, "Plymouth", "Name") == NULL);  /* nor of the section */
	CHECK(plymouth_ini_get("[Daemon\nTheme=x\n", "Daemon", "Theme") == NULL);
	CHECK(plymouth_ini_get("", "Daemon", "Theme") == NULL);
	v = plymouth_ini_get("[Daemon]\nTheme", "Daemon", "Theme"); /* no '=' */
	CHECK(v == NULL);
}

static void test_theme_choice(void)
{
	char *name = NULL;

	/* nothing installed: text, as plymouth-set-default-theme says */
	CHECK(plymouth_theme_name(root, NULL, &name) == 0);
	CHECK_STR(name, "text");
	free(name);
	/* Debian's defaults name emerald (desktop-base), not installed here */
	put("/usr/share/plymouth/plymouthd.defaults", "[Daemon]\nTheme=emerald\nShowDelay=0\n");
	put("/usr/share/plymouth/themes/spinner/spinner.plymouth", "[Plymouth Theme]\nModuleName=two-step\n");
	CHECK(plymouth_theme_name(root, NULL, &name) == 0);
	CHECK_STR(name, "text");
	free(name);
	put("/usr/share/plymouth/themes/emerald/emerald.plymouth", "[Plymouth Theme]\nModuleName=two-step\n");
	CHECK(plymouth_theme_name(root, NULL, &name) == 0);
	CHECK_STR(name, "emerald");
	free(name);
	/* the administrator's file wins */
	put("/etc/plymouth/plymouthd.conf", "[Daemon]\nTheme=spinner\n");
	CHECK(plymouth_theme_name(root, NULL, &name) == 0);
	CHECK_STR(name, "spinner");
	free(name);
	/* and the config's plymouth-theme wins over both */
	CHECK(plymouth_theme_name(root, "emerald", &name) == 0);
	CHECK_STR(name, "emerald");
	free(name);
}

/* Whether an image carries the splash. Its own root: a host that
 * installed plymouth and plymouth-themes without choosing a theme
 * (Debian's defaults name desktop-base's emerald) gets none unless a
 * command line asks; choosing one, as plymouth-set-default-theme does,
 * is enough, as initramfs-tools' and dracut's images then carry it. */
static void test_wanted(void)
{
	char *keep = root, tmpl[] = "/tmp/test_plymouth_wanted.XXXXXX", *d, *c;

	root = d = mkdtemp(tmpl);
	/* no plymouthd: never, whatever is asked */
	CHECK(!plymouth_wanted(PLYMOUTH_YES, "splash", root, true));
	put("/usr/sbin/plymouthd", "#!/bin/sh\n");
	{
		char *p = path_join(root, "/usr/sbin/plymouthd");
		CHECK(chmod(p, 0755) == 0);
		free(p);
	}
	put("/usr/share/plymouth/plymouthd.defaults", "[Daemon]\nTheme=emerald\n");
	put("/usr/share/plymouth/themes/spinfinity/spinfinity.plymouth", "[Plymouth Theme]\nModuleName=throbgress\n");
	CHECK(!plymouth_wanted(PLYMOUTH_AUTO, NULL, root, false));
	CHECK(!plymouth_wanted(PLYMOUTH_AUTO, "quiet", root, false));
	CHECK(plymouth_wanted(PLYMOUTH_AUTO, "quiet splash", root, false));
	CHECK(plymouth_wanted(PLYMOUTH_YES, NULL, root, false));
	/* the running command line counts for a hostonly image only */
	put("/proc/cmdline", "root=/dev/vda splash\n");
	CHECK(plymouth_wanted(PLYMOUTH_AUTO, NULL, root, true));
	CHECK(!plymouth_wanted(PLYMOUTH_AUTO, NULL, root, false));
	/* a theme chosen by the administrator */
	put("/etc/plymouth/plymouthd.conf", "[Daemon]\nTheme=spinfinity\n");
	CHECK(plymouth_wanted(PLYMOUTH_AUTO, NULL, root, false));
	/* plymouth = no wins over all of it */
	CHECK(!plymouth_wanted(PLYMOUTH_NO, "splash", root, true));
	/* a chosen theme that is not installed is not chosen */
	put("/etc/plymouth/plymouthd.conf", "[Daemon]\nTheme=solar\n");
	CHECK(!plymouth_wanted(PLYMOUTH_AUTO, NULL, root, false));
	/* a bad name wants it: the build then fails naming it */
	put("/etc/plymouth/plymouthd.conf", "[Daemon]\nTheme=../x\n");
	CHECK(plymouth_wanted(PLYMOUTH_AUTO, NULL, root, false));
	c = xasprintf("rm -rf %s", d);
	if (system(c) != 0)
		printf("# could not remove %s\n", d);
	free(c);
	root = keep;
}

static void test_theme_hostile(void)
{
	char *name = NULL;

	put("/etc/plymouth/plymouthd.conf", "[Daemon]\nTheme=../../../etc\n");
	CHECK(plymouth_theme_name(root, NULL, &name) < 0);
	CHECK_STR(err_msg(), "/etc/plymouth/plymouthd.conf: bad Theme '../../../etc' "
			     "(a theme's name: letters, digits, ._-)");
	CHECK(name == NULL);
	CHECK(plymouth_theme_name(root, "a/b", &name) < 0);
	CHECK_STR(err_msg(), "plymouth-theme 'a/b' is not a theme's name (letters, digits, ._-)");
	CHECK(plymouth_theme_name(root, "solar", &name) < 0);
	CHECK_STR(err_msg(), "plymouth-theme solar: /usr/share/plymouth/themes/solar/solar.plymouth "
			     "is not installed");
	put("/etc/plymouth/plymouthd.conf", "[Daemon]\nTheme=spinner\n");
	/* a theme file whose module or paths are not plain */
	put("/usr/share/plymouth/themes/spinner/spinner.plymouth", "[Plymouth Theme]\nModuleName=../x\n");
	{
		struct image *img = image_new();
		CHECK(plymouth_plan_add(img, root, NULL) < 0);
		CHECK(strstr(err_msg(), "no renderers/drm.so") != NULL);
		image_free(img);
	}
}

static void link_to(const char *path, const char *target)
{
	char *p = path_join(root, path), *dir = xstrdup(p);

	*strrchr(dir, '/') = '\0';
	CHECK(mkdir_p(dir, 0755) == 0);
	CHECK(symlink(target, p) == 0);
	free(dir), free(p);
}

/* Hostonly: the module of each display's bound driver, once; a card
 * without a driver or with one built in (no module link) adds nothing,
 * nor does a connector's entry (card0-HDMI-A-1: not a card). */
static void test_host_drm(void)
{
	struct strv mods = { 0 };
	char *sysfs = path_join(root, "/sys");

	link_to("/sys/class/drm/card0/device/driver/module", "../../../../module/amdgpu");
	link_to("/sys/class/drm/card1/device/driver/module", "../../../../module/i915");
	link_to("/sys/class/drm/card2/device/driver/module", "../../../../module/amdgpu");
	put("/sys/class/drm/card3/device/vendor", "0x1234\n"); /* no driver bound */
	link_to("/sys/class/drm/card0-HDMI-A-1/device/driver/module", "../../../../module/nvidia");
	plymouth_host_drm(sysfs, &mods);
	CHECK(mods.n == 2);
	if (mods.n == 2) {
		CHECK_STR(mods.v[0], "amdgpu");
		CHECK_STR(mods.v[1], "i915");
	}
	strv_free(&mods);
	plymouth_host_drm("/nonexistent", &mods);
	CHECK(mods.n == 0);
	free(sysfs);
}

/* The host's own plymouth, when installed: the image holds the daemon's
 * configuration naming the theme, the theme and its module. */
static void test_host(void)
{
	struct image *img;
	char *name = NULL;

	if (access("/usr/sbin/plymouthd", X_OK) != 0)
		SKIP("plymouth is not installed on this host");
	img = image_new();
	CHECK(plymouth_theme_name("/", "spinfinity", &name) == 0);
	CHECK(plymouth_plan_add(img, "/", "spinfinity") == 0);
	CHECK(image_has(img, "/etc/plymouth/plymouthd.conf"));
	CHECK(image_has(img, "/usr/share/plymouth/themes/spinfinity/spinfinity.plymouth"));
	CHECK(image_has(img, "/usr/share/plymouth/themes/text/text.plymouth"));
	CHECK(image_has(img, "/usr/share/plymouth/themes/details/details.plymouth"));
	free(name);
	image_free(img);
}

int main(void)
{
	char tmpl[] = "/tmp/test_plymouth.XXXXXX";

	root = mkdtemp(tmpl);
	RUN(test_asked);
	RUN(test_ini);
	RUN(test_theme_choice);
	RUN(test_wanted);
	RUN(test_theme_hostile);
	RUN(test_host_drm);
	RUN(test_host);
	{
		char *c = xasprintf("rm -rf %s", root);
		if (system(c) != 0)
			printf("# could not remove %s\n", root);
		free(c);
	}
	return test_done();
}
