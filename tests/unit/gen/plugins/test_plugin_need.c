// SPDX-License-Identifier: GPL-2.0-or-later
/* A hostonly root that only a plugin can open (src/gen/plugins/plugin_need.c):
 * a root on dm-multipath with no plugin building its maps, or with the
 * plugin but no multipath on the host, fails the build with a message
 * saying what is missing; with both it passes, and other roots never
 * ask. The facts are those hostonly finds for an ext4 on an mpath-
 * map (hostonly.c: h->stack "multipath", h->modules dm_multipath). */
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/plugins/plugin.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

#define MPATH_PLUGIN "programs = multipath\nhostonly-if-module = dm_multipath\n" \
		     "claim-devices = sd*\nclaim-program = /usr/libexec/uniramfs/claim\n"

static char *root, *top;

static void fresh(void)
{
	char *c = xasprintf("rm -rf %s && mkdir -p %s", root, root);
	CHECK(system(c) == 0);
	free(c);
}

static void exe_under(const char *rel)
{
	char *p = path_join(root, rel);
	write_under(root, rel, "#!/bin/sh\n");
	CHECK(chmod(p, 0755) == 0);
	free(p);
}

/* hostonly's facts for an ext4 root on a multipath map (or on a plain
 * disk), the plugins of root selected: the check's message, or "". */
static char *check(bool on_mpath)
{
	struct plugins ps = { 0 };
	struct plugin_facts f = { 0 };
	struct hostonly h = { 0 };
	int r;

	strv_push(&h.fstypes, "ext4");
	if (on_mpath) {
		strv_push(&h.stack, "multipath");
		strv_push(&h.modules, "dm_multipath");
	}
	plugin_facts_hostonly(&f, &h);
	r = plugins_read(&ps, root, NULL);
	if (r == 0) {
		plugins_select(&ps, root, &f);
		r = plugins_check_needed(&ps, root, &f);
	}
	plugins_free(&ps);
	plugin_facts_free(&f);
	hostonly_free(&h);
	return xstrdup(r < 0 ? err_msg() : "");
}

static void test_no_plugin(void)
{
	char *got;

	fresh();
	exe_under("/usr/sbin/multipath");
	got = check(true);
	CHECK_STR(got, "hostonly: the root is on dm-multipath, but no plugin builds its maps at boot "
		       "(the image would mount one path of it): uniramfs's multipath plugin "
		       "(/usr/lib/uniramfs/plugins.d/multipath.conf) is missing or turned off; "
		       "reinstall uniramfs or add it with --plugin");
	free(got);
	/* turned off by the administrator: an empty file of its name */
	write_under(root, "/usr/lib/uniramfs/plugins.d/multipath.conf", MPATH_PLUGIN);
	write_under(root, "/etc/uniramfs/plugins.d/multipath.conf", "");
	got = check(true);
	CHECK(strstr(got, "no plugin builds its maps at boot") != NULL);
	free(got);
	/* a root on a plain disk never asks */
	got = check(false);
	CHECK_STR(got, "");
	free(got);
}

static void test_plugin_without_multipath(void)
{
	char *got;

	fresh();
	write_under(root, "/usr/lib/uniramfs/plugins.d/multipath.conf", MPATH_PLUGIN);
	got = check(true);
	CHECK_STR(got, "hostonly: the root is on dm-multipath, but /usr/lib/uniramfs/plugins.d/multipath.conf "
		       "cannot pack multipath: multipath-tools is not installed (apt install multipath-tools)");
	free(got);
	exe_under("/usr/sbin/multipath");
	got = check(true);
	CHECK_STR(got, "");
	free(got);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-need-XXXXXX";

	top = xstrdup(mkdtemp(tmpl));
	root = path_join(top, "sysroot");
	RUN(test_no_plugin);
	RUN(test_plugin_without_multipath);
	char *rm = xasprintf("rm -rf %s", top);
	if (system(rm) != 0)
		printf("# could not remove %s\n", top);
	free(rm), free(root), free(top);
	return test_done();
}
