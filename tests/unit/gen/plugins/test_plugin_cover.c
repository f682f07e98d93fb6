// SPDX-License-Identifier: GPL-2.0-or-later
/* What the API does not cover (src/gen/plugins/plugin_cover.c): a fake
 * sysroot's initramfs-tools hooks and dracut modules, those uniramfs
 * answers itself, those a plugin replaces, those not in use, and the
 * one notice naming the rest. */
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/plugins/plugin.h"
#include "log.h"
#include "log_capture.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *root;

static void host(void)
{
	char *c = xasprintf("rm -rf %s && mkdir -p %s", root, root);
	CHECK(system(c) == 0);
	free(c);
	static const char *const hooks[] = { "cryptroot", "lvm2", "zz-busybox", "btrfs", "zfs", "cryptgnupg" };
	static const char *const mods[] = { "01systemd-initrd", "90crypt", "90multipath", "90zfs", "99base",
					    "95virtiofs", "01fips", "99new" };
	for (size_t i = 0; i < ARRAY_SIZE(hooks); i++) {
		char *p = xasprintf("/usr/share/initramfs-tools/hooks/%s", hooks[i]);
		write_under(root, p, "#!/bin/sh\n");
		free(p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		char *p = xasprintf("/usr/lib/dracut/modules.d/%s/module-setup.sh", mods[i]);
		write_under(root, p, "check() { return 0; }\n");
		free(p);
	}
	write_under(root, "/usr/share/initramfs-tools/hooks/.placeholder", "");
}

static void test_uncovered(void)
{
	struct plugins ps = { 0 };
	struct plugin_facts ext4 = { .hostonly = true }, btrfs = { .hostonly = true };
	char *text = NULL;

	strv_push(&ext4.fstypes, "ext4");
	strv_push(&btrfs.fstypes, "btrfs");
	host();
	msgs_capture(LOG_NOTICE);
	/* no multipath program: dracut's 90multipath is not in use; an ext4
	 * root needs no btrfs hook; 01fips is opt-in; 99new is unknown */
	CHECK(plugins_uncovered(&ps, root, &ext4, &text) == 0);
	CHECK_STR(text, "initramfs-tools:cryptgnupg initramfs-tools:zfs dracut:90zfs dracut:99new");
	CHECK(said("<5>hostonly: 4 initramfs hooks of this host have no uniramfs counterpart (built in, or a "
		   "plugin's replaces; docs/plugins.md): initramfs-tools:cryptgnupg initramfs-tools:zfs "
		   "dracut:90zfs dracut:99new"));
	free(text);
	CHECK(plugins_uncovered(&ps, root, &btrfs, &text) == 0);
	CHECK_STR(text, "initramfs-tools:btrfs initramfs-tools:cryptgnupg initramfs-tools:zfs dracut:90zfs dracut:99new");
	free(text);
	/* with multipath installed, it is */
	write_under(root, "/usr/sbin/multipath", "");
	{
		char *p = path_join(root, "/usr/sbin/multipath");
		CHECK(chmod(p, 0755) == 0);
		free(p);
	}
	CHECK(plugins_uncovered(&ps, root, &ext4, &text) == 0);
	CHECK_STR(text, "initramfs-tools:cryptgnupg initramfs-tools:zfs dracut:90multipath dracut:90zfs dracut:99new");
	free(text);
	plugin_facts_free(&ext4);
	plugin_facts_free(&btrfs);
	msgs_clear();
}

static void test_replaced_by_plugin(void)
{
	struct plugin_facts f = { .hostonly = true };
	struct plugins ps = { 0 };
	char *text = NULL;

	host();
	write_under(root, "/usr/lib/uniramfs/plugins.d/zfs.conf", "replaces = initramfs-tools:zfs dracut:90zfs\n");
	write_under(root, "/etc/uniramfs/plugins.d/mine.conf", "replaces = initramfs-tools:btrfs,"
							       "initramfs-tools:cryptgnupg, dracut:99new\n");
	CHECK(plugins_read(&ps, root, NULL) == 0);
	msgs_capture(LOG_NOTICE);
	CHECK(plugins_uncovered(&ps, root, &f, &text) == 0);
	CHECK(text == NULL);
	CHECK(msgs.len == 0);
	plugins_free(&ps);
	msgs_clear();
}

/* LVM's hooks: covered by uniramfs's own plugin (the tree's plugins/),
 * named when the host has lvm and that plugin is turned off. */
static void test_lvm_by_own_plugin(void)
{
	struct plugin_facts f = { .hostonly = true };
	struct plugins ps = { 0 };
	char *own = path_join(getenv("UNIRAMFS_SRCDIR"), "plugins"), *text = NULL;

	host();
	write_under(root, "/usr/lib/dracut/modules.d/90lvm/module-setup.sh", "check() { return 0; }\n");
	write_under(root, "/usr/sbin/lvm", "");
	{
		char *p = path_join(root, "/usr/sbin/lvm");
		CHECK(chmod(p, 0755) == 0);
		free(p);
	}
	CHECK(plugins_read_all(&ps, own, root, NULL) == 0);
	CHECK(plugins_uncovered(&ps, root, &f, &text) == 0);
	CHECK(text && !strstr(text, "lvm"));
	free(text);
	plugins_free(&ps);
	write_under(root, "/etc/uniramfs/plugins.d/lvm.conf", "");
	CHECK(plugins_read_all(&ps, own, root, NULL) == 0);
	CHECK(plugins_uncovered(&ps, root, &f, &text) == 0);
	CHECK(text && strstr(text, "initramfs-tools:lvm2") && strstr(text, "dracut:90lvm"));
	free(text);
	plugins_free(&ps);
	free(own);
	msgs_clear();
}

static void test_no_generators(void)
{
	struct plugin_facts f = { .hostonly = true };
	char *text = (char *)"x";
	char *c = xasprintf("rm -rf %s && mkdir -p %s", root, root);

	CHECK(system(c) == 0);
	free(c);
	CHECK(plugins_uncovered(NULL, root, &f, &text) == 0);
	CHECK(text == NULL);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-cover-XXXXXX";
	char *top = xstrdup(mkdtemp(tmpl));

	root = path_join(top, "sysroot");
	RUN(test_uncovered);
	RUN(test_replaced_by_plugin);
	RUN(test_lvm_by_own_plugin);
	RUN(test_no_generators);
	char *rm = xasprintf("rm -rf %s", top);
	if (system(rm) != 0)
		printf("# could not remove %s\n", top);
	free(rm), free(root), free(top);
	return test_done();
}
