// SPDX-License-Identifier: GPL-2.0-or-later
/* What a plugin puts in an image (src/gen/plugins/plugin_plan.c, and
 * its place in build.c): the conditions against a fake host, each kind
 * of file from a fake sysroot, the rows file, the messages of what is
 * missing; then `uniramfs build --plugin` read back, and a failed build
 * leaving the old image as it was. */
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/plugins/plugin.h"
#include "gen/read/imagefile.h"
#include "layout.h"
#include "lvm_row.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *root, *top, *uniramfs, *init_bin, *kver;

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

static bool on(const struct plugins *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->v[i].name, name))
			return ps->v[i].on;
	return false;
}

static void test_conditions(void)
{
	struct plugins ps = { 0 };
	struct plugin_facts generic = { 0 }, host = { .hostonly = true };
	struct hostonly h = { 0 };

	fresh();
	exe_under("/usr/sbin/zpool");
	write_under(root, "/usr/sbin/notexec", "");
	write_under(root, "/usr/lib/uniramfs/plugins.d/always.conf", "modules = a\n");
	write_under(root, "/usr/lib/uniramfs/plugins.d/zfs.conf",
		    "generic-if-program = zpool\nhostonly-if-fstype = zfs\nhostonly-if-blkid-type = zfs_member\n");
	write_under(root, "/usr/lib/uniramfs/plugins.d/mpath.conf",
		    "generic-if-program = multipath, /usr/sbin/notexec\nhostonly-if-module = dm-multipath\n");
	write_under(root, "/usr/lib/uniramfs/plugins.d/luksish.conf", "hostonly-if-blkid-type = crypto_LUKS\n");
	write_under(root, "/usr/lib/uniramfs/plugins.d/abs.conf", "generic-if-program = /usr/sbin/zpool\n");
	CHECK(plugins_read(&ps, root, NULL) == 0);
	plugins_select(&ps, root, &generic);
	CHECK(on(&ps, "always") && on(&ps, "zfs") && !on(&ps, "mpath") && on(&ps, "luksish") && on(&ps, "abs"));
	/* hostonly: a root on ext4 in LUKS, on a multipath map */
	strv_push(&h.fstypes, "ext4");
	strv_push(&h.stack, "dm-crypt");
	strv_push(&h.stack, "multipath");
	strv_push(&h.modules, "dm_multipath");
	plugin_facts_hostonly(&host, &h);
	plugins_select(&ps, root, &host);
	CHECK(on(&ps, "always") && !on(&ps, "zfs") && on(&ps, "mpath") && on(&ps, "luksish") && on(&ps, "abs"));
	plugin_facts_free(&host);
	hostonly_free(&h);
	/* a zfs root */
	memset(&host, 0, sizeof(host));
	memset(&h, 0, sizeof(h));
	host.hostonly = true;
	strv_push(&h.fstypes, "zfs");
	plugin_facts_hostonly(&host, &h);
	plugins_select(&ps, root, &host);
	CHECK(on(&ps, "zfs") && !on(&ps, "mpath") && !on(&ps, "luksish"));
	plugin_facts_free(&host);
	hostonly_free(&h);
	plugins_free(&ps);

	/* if-feature: only when uniramfs put that feature in, and then as
	 * the other conditions say */
	write_under(root, "/usr/lib/uniramfs/plugins.d/cl.conf", "if-feature = clevis\n");
	write_under(root, "/usr/lib/uniramfs/plugins.d/cl2.conf", "if-feature = clevis\ngeneric-if-program = none\n");
	CHECK(plugins_read(&ps, root, NULL) == 0);
	plugins_select(&ps, root, &generic);
	CHECK(!on(&ps, "cl") && !on(&ps, "cl2"));
	strv_push(&generic.features, "clevis");
	plugins_select(&ps, root, &generic);
	CHECK(on(&ps, "cl") && !on(&ps, "cl2"));
	plugin_facts_free(&generic);
	plugins_free(&ps);
}

/* Read, select all, add to a fresh image: the error message or "". */
static char *add(const char *text, struct image **img)
{
	struct plugins ps = { 0 };
	struct plugin_facts f = { 0 };
	int r;

	write_under(root, "/usr/lib/uniramfs/plugins.d/p.conf", text);
	*img = image_new();
	r = plugins_read(&ps, root, NULL);
	if (r == 0) {
		plugins_select(&ps, root, &f);
		r = plugins_add(&ps, *img, root, "6.1.0-test");
	}
	plugins_free(&ps);
	return xstrdup(r < 0 ? err_msg() : "");
}

static void test_packs_from_sysroot(void)
{
	struct image *img;
	char *got;

	if (access("/bin/busybox", X_OK))
		SKIP("no static busybox on this host (apt install busybox-static)");
	fresh();
	{
		char *c = xasprintf("mkdir -p %s/usr/bin %s/usr/lib/x && cp /bin/busybox %s/usr/bin/busybox && "
				    "cp /bin/busybox %s/usr/lib/x/open && cp /bin/busybox %s/usr/lib/x/mount-root",
				    root, root, root, root, root);
		CHECK(system(c) == 0);
		free(c);
	}
	write_under(root, "/etc/x.conf", "setting\n");
	write_under(root, "/usr/lib/firmware/x/fw.bin", "fw");
	write_under(root, "/usr/share/x/hook", "#!/bin/sh\necho hi\n");
	{
		char *lib = path_join(root, "/lib");
		CHECK(symlink("usr/lib", lib) == 0);
		free(lib);
	}
	got = add("programs = busybox\nfiles = /etc/x.conf\noptional-files = /etc/absent\nfirmware = x/fw.bin\n"
		  "hooks = pre-mount:/usr/share/x/hook\nlayer-blkid-type = x_member\nlayer-program = /usr/lib/x/open\n"
		  "layer-modules = x\nroot-prefix = X=\nroot-program = /usr/lib/x/mount-root\n",
		  &img);
	CHECK_STR(got, "");
	CHECK(image_has(img, "/usr/bin/busybox"));
	CHECK(image_has(img, "/etc/x.conf"));
	CHECK(!image_has(img, "/etc/absent"));
	CHECK(image_has(img, "/usr/lib/firmware/x/fw.bin"));
	CHECK(image_has(img, LAYOUT_HOOKS_DIR "/pre-mount/hook"));
	CHECK(image_has(img, "/usr/lib/x/open") && image_has(img, "/usr/lib/x/mount-root"));
	CHECK(image_has(img, LAYOUT_PLUGIN_ROWS_FILE));
	image_free(img);
	free(got);
}

static void test_missing(void)
{
	struct image *img;
	char *got;
	static const char *const cases[][2] = {
		{ "programs = zpool\n", "/usr/lib/uniramfs/plugins.d/p.conf:1: program zpool not found in %s" },
		{ "\nfiles = /etc\n", "/usr/lib/uniramfs/plugins.d/p.conf:2: /etc is not a regular file" },
		{ "files = /dev/sda\n", "/usr/lib/uniramfs/plugins.d/p.conf:1: /dev/sda is not a regular file" },
		{ "firmware = y.bin\n", "/usr/lib/uniramfs/plugins.d/p.conf:1: firmware y.bin not found in %s/lib/firmware" },
		{ "hooks = mount:/etc/none\n", "/usr/lib/uniramfs/plugins.d/p.conf:1: %s/etc/none: No such file or directory" },
	};

	fresh();
	write_under(root, "/etc/x", "");
	{
		char *c = xasprintf("mkdir -p %s/dev && mknod %s/dev/sda b 8 0 2>/dev/null || mkfifo %s/dev/sda", root,
				    root, root);
		CHECK(system(c) == 0);
		free(c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *want = xasprintf(cases[i][1], root);
		got = add(cases[i][0], &img);
		CHECK_STR(got, want);
		image_free(img);
		free(got), free(want);
	}
}

/* uniramfs's own LVM plugins (the tree's plugins/): generic when the
 * host has lvm, hostonly for a root on LVM, the row the init reads
 * (lvm_row.h, which test_stack drives), off by an empty file of the
 * same name in /etc. */
static void test_own_lvm_plugin(void)
{
	char *own = path_join(getenv("UNIRAMFS_SRCDIR"), "plugins");
	struct plugins ps = { 0 };
	struct plugin_facts generic = { 0 }, host = { 0 };
	struct hostonly h = { 0 };
	struct buf rows = { 0 };
	struct image *img;

	if (access("/bin/busybox", X_OK))
		SKIP("no static busybox on this host (apt install busybox-static)");
	fresh();
	{
		char *c = xasprintf("mkdir -p %s/usr/sbin && cp /bin/busybox %s/usr/sbin/lvm", root, root);
		CHECK(system(c) == 0);
		free(c);
	}
	CHECK(plugins_read_all(&ps, own, root, NULL) == 0);
	plugins_select(&ps, root, &generic);
	CHECK(on(&ps, "lvm") && !on(&ps, "lvm-thin"));
	CHECK(plugins_pack_program(&ps, "lvm") && !plugins_pack_program(&ps, "thin_check"));
	img = image_new();
	CHECK(plugins_add(&ps, img, root, "6.1.0-test") == 0);
	CHECK(image_has(img, "/usr/sbin/lvm") && image_has(img, LAYOUT_PLUGIN_ROWS_FILE));
	image_free(img);
	plugins_rows(&ps, root, &rows);
	CHECK_STR(rows.p, LVM_ROW);
	buf_free(&rows);
	/* hostonly: a root on LVM takes it, one on a plain disk does not */
	strv_push(&h.fstypes, "ext4");
	strv_push(&h.stack, "lvm");
	plugin_facts_hostonly(&host, &h);
	plugins_select(&ps, root, &host);
	CHECK(on(&ps, "lvm") && !on(&ps, "lvm-thin"));
	plugin_facts_free(&host);
	hostonly_free(&h);
	memset(&h, 0, sizeof(h));
	strv_push(&h.fstypes, "ext4");
	strv_push(&h.modules, "dm_thin_pool");
	plugin_facts_hostonly(&host, &h);
	plugins_select(&ps, root, &host);
	CHECK(!on(&ps, "lvm") && on(&ps, "lvm-thin"));
	plugin_facts_free(&host);
	hostonly_free(&h);
	plugins_free(&ps);
	/* the administrator turns it off by name */
	write_under(root, "/etc/uniramfs/plugins.d/lvm.conf", "");
	CHECK(plugins_read_all(&ps, own, root, NULL) == 0);
	plugins_select(&ps, root, &generic);
	CHECK(!plugins_pack_program(&ps, "lvm"));
	plugins_rows(&ps, root, &rows);
	CHECK(rows.len == 0);
	plugins_free(&ps);
	free(own);
}

struct seen {
	bool tool, hook, conf;
	char rows[2048];
};

static int collect(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *data, void *u)
{
	struct seen *s = u;

	(void)seg, (void)c;
	if (!strcmp(e->name, "usr/bin/true") && (e->mode & 0111))
		s->tool = true;
	if (!strcmp(e->name, "usr/lib/uniramfs/hooks/pre-pivot/note") && (e->mode & 0777) == 0755)
		s->hook = true;
	if (str_has_suffix(e->name, "/plugin-test.data") && e->size == 5 && !memcmp(data, "data\n", 5))
		s->conf = true;
	if (!strcmp(e->name, "etc/uniramfs/plugin-rows"))
		snprintf(s->rows, sizeof(s->rows), "%.*s", (int)e->size, (const char *)data);
	return 0;
}

static void test_build_reads_back(void)
{
	char *img = path_join(top, "plugin.img"), *conf = path_join(top, "demo.conf");
	char *bad = path_join(top, "bad.conf"), *hook = path_join(top, "note"), *data = path_join(top, "plugin-test.data");
	char *text = xasprintf("programs = true\nhooks = pre-pivot:%s\nfiles = %s\n"
			       "root-prefix = DEMO=\nroot-program = /usr/bin/true\n"
			       "claim-devices = sd*\nclaim-program = /usr/bin/true\nclaim-options = rd.demo\n",
			       hook, data);
	char *c = xasprintf("%s build --config /dev/null -k %s --init %s --microcode none --squashfs no "
			    "--rescue-shell no -o %s --plugin %s 2>&1", uniramfs, kver, init_bin, img, conf);
	char *cbad = xasprintf("%s build --config /dev/null -k %s --init %s --microcode none --squashfs no "
			       "--rescue-shell no -o %s --plugin %s 2>&1", uniramfs, kver, init_bin, img, bad);
	char *copy = path_join(top, "plugin.img.before"), *out = NULL;
	struct seen s = { 0 };

	write_under("/", hook, "#!/bin/sh\necho note\n");
	write_under("/", data, "data\n");
	write_under("/", conf, text);
	CHECK(run_capture(c, &out) == 0);
	free(out);
	CHECK(image_foreach(img, collect, &s) == 0);
	CHECK(s.tool && s.hook && s.conf);
	/* uniramfs's own plugins (build/plugins) add their rows when the
	 * host has their programs (lvm): demo's are lines of them */
	CHECK(strstr(s.rows, "root\tdemo\tDEMO=\t/usr/bin/true\t-\t-\n"
			     "claim\tdemo\tsd*\t/usr/bin/true\t-\trd.demo\n"));
	/* a bad plugin: the error names it, the image stays as it was */
	write_under("/", bad, "programs = true\nlayer-blkid-type = crypto_LUKS\nlayer-program = /usr/bin/true\n");
	{
		char *cp = xasprintf("cp %s %s", img, copy);
		CHECK(system(cp) == 0);
		free(cp);
	}
	CHECK(run_capture(cbad, &out) == 1);
	{
		char *want = xasprintf("uniramfs: error: %s:2: layer-blkid-type crypto_LUKS is the init's own layer\n", bad);
		CHECK_STR(out, want);
		free(want);
	}
	CHECK(same_file(img, copy));
	free(out), free(img), free(conf), free(bad), free(hook), free(data), free(text), free(c), free(cbad), free(copy);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-plan-XXXXXX";

	top = xstrdup(mkdtemp(tmpl));
	root = path_join(top, "sysroot");
	RUN(test_conditions);
	RUN(test_packs_from_sysroot);
	RUN(test_missing);
	RUN(test_own_lvm_plugin);
	if (find_binaries(&uniramfs, &init_bin, &kver)) {
		RUN(test_build_reads_back);
		free(uniramfs), free(init_bin), free(kver);
	} else {
		printf("ok %d - test_build_reads_back # SKIP no build dir or no installed kernel\n", ++test_n);
	}
	char *rm = xasprintf("rm -rf %s", top);
	if (system(rm) != 0)
		printf("# could not remove %s\n", top);
	free(rm), free(root), free(top);
	return test_done();
}
