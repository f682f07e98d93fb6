// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading plugins (src/gen/plugins/plugin_read.c, plugin_check.c): the
 * directories under a fake sysroot and their override by name, and each
 * hostile file refused with the file, the line and what is wrong. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/plugins/plugin.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *root;

#define LIB "/usr/lib/uniramfs/plugins.d/"
#define ETC "/etc/uniramfs/plugins.d/"

static void reset(void)
{
	char *c = xasprintf("rm -rf %s && mkdir -p %s", root, root);
	CHECK(system(c) == 0);
	free(c);
}

/* Read the sysroot's plugins; the error message, or "" on success. */
static char *read_all(struct plugins *ps, const struct strv *extra)
{
	int r = plugins_read(ps, root, extra);
	return xstrdup(r < 0 ? err_msg() : "");
}

static void expect_error(const char *text, const char *msg)
{
	struct plugins ps = { 0 };
	char *got;

	reset();
	write_under(root, LIB "bad.conf", text);
	got = read_all(&ps, NULL);
	CHECK_STR(got, msg);
	free(got);
	plugins_free(&ps);
}

static void test_override_by_name(void)
{
	struct plugins ps = { 0 };
	struct strv extra = { 0 };
	char *got, *x = path_join(root, "../extra-zz.conf");

	reset();
	write_under(root, LIB "zfs.conf", "description = from the package\nprograms = zpool, zfs\n");
	write_under(root, ETC "zfs.conf", "# the admin's\nprograms = zpool\n");
	write_under(root, LIB "aa.conf", "modules = dm-multipath\nhooks = pre-mount:/usr/lib/aa/hook\n");
	write_under(root, ETC "README", "not a plugin\n");
	write_under(root, ETC ".hidden.conf", "nonsense\n");
	got = read_all(&ps, NULL);
	CHECK_STR(got, "");
	CHECK(ps.n == 2);
	if (ps.n == 2) {
		CHECK_STR(ps.v[0].name, "aa");
		CHECK_STR(ps.v[1].name, "zfs");
		CHECK_STR(ps.v[1].shown, ETC "zfs.conf");
		CHECK(ps.v[1].programs.v.n == 1 && ps.v[1].description == NULL);
		CHECK_STR(ps.v[1].programs.where.v[0], ETC "zfs.conf:2");
		CHECK_STR(ps.v[0].hooks.v.v[0], "pre-mount:/usr/lib/aa/hook");
	}
	plugins_free(&ps);
	free(got);
	/* a plugin = FILE of the config wins over both */
	write_under(root, "../extra-zz.conf", "files = /etc/zz\n");
	strv_push(&extra, x);
	free(x);
	x = path_join(root, "../zfs.conf");
	write_under(root, "../zfs.conf", "files = /etc/hostid\n");
	strv_push(&extra, x);
	got = read_all(&ps, &extra);
	CHECK_STR(got, "");
	CHECK(ps.n == 3);
	if (ps.n == 3) {
		CHECK_STR(ps.v[2].name, "zfs");
		CHECK_STR(ps.v[2].shown, x);
		CHECK(ps.v[2].programs.v.n == 0 && ps.v[2].files.v.n == 1);
		CHECK_STR(ps.v[1].name, "extra-zz");
	}
	plugins_free(&ps);
	free(got), free(x);
	strv_free(&extra);
}

static void test_every_key(void)
{
	struct plugins ps = { 0 };
	char *got;

	reset();
	write_under(root, LIB "zfs.conf",
		    "description = \"ZFS root\"   # a comment\n"
		    "replaces = initramfs-tools:zfs dracut:90zfs\n"
		    "generic_if_program = zpool\n"
		    "hostonly-if-fstype = zfs\nhostonly-if-blkid-type = zfs_member\nhostonly-if-module = zfs\n"
		    "programs = zpool, /usr/sbin/zfs\nmodules = zfs spl\nfirmware = a/b.bin\n"
		    "files = /etc/hostid\noptional-files = /etc/zfs/zpool.cache\n"
		    "hooks = pre-mount:/usr/share/zfs/hook\n"
		    "layer-blkid-type = zfs_member\nlayer-program = /usr/lib/zfs/open\n"
		    "layer-modules = zfs\nlayer-options = rd.zfs.force, zfs_force\n"
		    "root-prefix = ZFS= zfs:\nroot-program = /usr/lib/zfs/mount-root\nroot-modules = zfs\n"
		    "claim-devices = sd* nvme?n*\nclaim-program = /usr/lib/zfs/claim\n"
		    "claim-modules = dm_multipath\nclaim-options = rd.multipath\n");
	got = read_all(&ps, NULL);
	CHECK_STR(got, "");
	CHECK(ps.n == 1);
	if (ps.n == 1) {
		const struct plugin *p = &ps.v[0];
		CHECK_STR(p->description, "ZFS root");
		CHECK(p->replaces.v.n == 2 && p->modules.v.n == 2 && p->root_prefixes.v.n == 2);
		CHECK_STR(p->if_program.v.v[0], "zpool");
		CHECK_STR(p->layer_program.v.v[0], "/usr/lib/zfs/open");
		CHECK_STR(p->layer_options.v.v[1], "zfs_force");
		CHECK_STR(p->root_prefixes.where.v[1], LIB "zfs.conf:17");
		CHECK(p->claim_globs.v.n == 2);
		CHECK_STR(p->claim_globs.v.v[1], "nvme?n*");
		CHECK_STR(p->claim_program.v.v[0], "/usr/lib/zfs/claim");
		CHECK_STR(p->claim_options.v.v[0], "rd.multipath");
	}
	plugins_free(&ps);
	free(got);
}

static void test_hostile_values(void)
{
	expect_error("programs = zpool\nfoo = bar\n", LIB "bad.conf:2: unknown key 'foo' in a plugin (see docs/plugins.md)");
	expect_error("files = /usr/../../etc/shadow\n",
		     LIB "bad.conf:1: bad path '/usr/../../etc/shadow' for files (absolute, inside the sysroot: no '..')");
	expect_error("files = etc/shadow\n",
		     LIB "bad.conf:1: bad path 'etc/shadow' for files (absolute, inside the sysroot: no '..')");
	expect_error("programs = ../../bin/sh\n",
		     LIB "bad.conf:1: bad program '../../bin/sh' for programs (a name, or an absolute path without '..')");
	expect_error("firmware = ../../etc/shadow\n",
		     LIB "bad.conf:1: bad firmware name '../../etc/shadow' (relative to /lib/firmware, no '..')");
	expect_error("modules = zfs;reboot\n",
		     LIB "bad.conf:1: bad value 'zfs;reboot' for modules (letters, digits and ._-+:=@ only)");
	expect_error("hooks = pre-boot:/x\n",
		     LIB "bad.conf:1: unknown hook stage 'pre-boot' (use cmdline, pre-udev, pre-mount, mount or pre-pivot)");
	expect_error("hooks = /x\n", LIB "bad.conf:1: bad hook '/x' (expected STAGE:/PATH)");
	expect_error("replaces = mkinitcpio:zfs\n",
		     LIB "bad.conf:1: bad value 'mkinitcpio:zfs' for replaces (expected initramfs-tools:HOOK or dracut:MODULE)");
	expect_error("description = a\ndescription = b\n", LIB "bad.conf:2: description given twice");
	expect_error("layer-blkid-type = zfs_member\nlayer-program = /a\nlayer-program = /b\n",
		     LIB "bad.conf:3: layer-program given twice (first at " LIB "bad.conf:2)");
	expect_error("programs =\n", LIB "bad.conf:1: empty value for programs");
	expect_error("just words\n", LIB "bad.conf:1: expected 'key = value', got 'just words'");
	/* the keys LVM, clevis and SSH unlock brought (docs/plugins.md) */
	expect_error("if-feature = tpm\n",
		     LIB "bad.conf:1: unknown feature 'tpm' for if-feature (clevis, clevis-tpm2, ssh-unlock, overlay-tools, live-https, "
		     "plymouth or kdump)");
	expect_error("optional-programs = ../x\n",
		     LIB "bad.conf:1: bad program '../x' for optional-programs (a name, or an absolute path "
		     "without '..')");
	expect_error("layer-blkid-type = x\nlayer-program = x\nlayer-run = -ay {rd.x}\n",
		     LIB "bad.conf:3: layer-run names {rd.x}, which is neither {device} nor one of its "
		     "layer-options");
	expect_error("layer-blkid-type = x\nlayer-program = x\nlayer-run = a;reboot\n",
		     LIB "bad.conf:3: bad value 'a;reboot' for layer-run (words of letters, digits and "
		     "._-+:=@/, or {device} or {OPTION}; at most 64 words)");
	expect_error("layer-blkid-type = x\nlayer-program = x\nlayer-switch = rd.x rd.y\n",
		     LIB "bad.conf:3: bad value 'rd.x rd.y' for layer-switch (letters, digits and ._-+:=@ only)");
	expect_error("layer-blkid-type = x\nlayer-program = x\nlayer-time-limit = 0\n",
		     LIB "bad.conf:3: bad value '0' for layer-time-limit (seconds, 1 to 3600)");
	expect_error("root-prefix = X=\nroot-program = x\nroot-time-limit = 3601\n",
		     LIB "bad.conf:3: bad value '3601' for root-time-limit (seconds, 1 to 3600)");
	expect_error("layer-switch = rd.x\n", LIB "bad.conf:1: a layer row needs layer-blkid-type");
}

static void test_half_rows(void)
{
	expect_error("layer-program = /usr/lib/x/open\n", LIB "bad.conf:1: a layer row needs layer-blkid-type");
	expect_error("\nlayer-blkid-type = x_member\n",
		     LIB "bad.conf:2: layer-blkid-type needs layer-program (the program that opens it)");
	expect_error("root-modules = zfs\n", LIB "bad.conf:1: a root handler needs root-prefix");
	expect_error("root-prefix = ZFS=\n", LIB "bad.conf:1: root-prefix needs root-program (the program that mounts it)");
	expect_error("claim-options = rd.multipath\n", LIB "bad.conf:1: a claim row needs claim-devices");
	expect_error("claim-devices = sd*\n",
		     LIB "bad.conf:1: claim-devices needs claim-program (the program that claims them)");
	expect_error("claim-devices = sd[ab]\n",
		     LIB "bad.conf:1: bad value 'sd[ab]' for claim-devices (a kernel device name, letters, "
		     "digits, _- and the wildcards *?)");
	expect_error("claim-devices = ../sda\n",
		     LIB "bad.conf:1: bad value '../sda' for claim-devices (a kernel device name, letters, "
		     "digits, _- and the wildcards *?)");
}

static void test_huge(void)
{
	struct buf b = { 0 };
	char *line = xmalloc(PLUGIN_MAX_LINE + 2);

	memset(line, 'a', PLUGIN_MAX_LINE + 1);
	line[PLUGIN_MAX_LINE + 1] = '\0';
	buf_printf(&b, "description = x\ndescription%s = y\n", line);
	expect_error(b.p, LIB "bad.conf:2: line longer than 4096 bytes");
	buf_free(&b);
	for (unsigned i = 0; i <= PLUGIN_MAX_ITEMS; i++)
		buf_printf(&b, "modules = m%u\n", i);
	expect_error(b.p, LIB "bad.conf:257: more than 256 values in one plugin");
	buf_free(&b);
	for (unsigned i = 0; b.len <= PLUGIN_MAX_BYTES; i++)
		buf_printf(&b, "# filler line %u\n", i);
	expect_error(b.p, "plugin " LIB "bad.conf: larger than 65536 bytes");
	buf_free(&b);
	free(line);
}

static void test_not_a_text_file(void)
{
	struct plugins ps = { 0 };
	char *got, *p;
	int fd;

	reset();
	write_under(root, LIB "x.conf", "");
	p = path_join(root, LIB "nul.conf");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "a = b\nc\0d = e\n", 14) == 14);
	close(fd);
	got = read_all(&ps, NULL);
	CHECK_STR(got, LIB "nul.conf:2: NUL byte (is this a text file?)");
	free(got), free(p);
	plugins_free(&ps);
	/* a FIFO would block a plain read forever */
	reset();
	write_under(root, LIB "x.conf", "");
	p = path_join(root, LIB "fifo.conf");
	CHECK(mkfifo(p, 0644) == 0);
	got = read_all(&ps, NULL);
	CHECK_STR(got, "plugin " LIB "fifo.conf: not a regular file");
	free(got), free(p);
	plugins_free(&ps);
}

static void test_links_stay_inside(void)
{
	struct plugins ps = { 0 };
	char *got, *p;

	/* an absolute link, and one climbing out: both land in the sysroot */
	reset();
	write_under(root, "/etc/passwd", "modules = from-the-sysroot\n");
	p = path_join(root, LIB "up.conf");
	write_under(root, LIB "x.conf", "");
	CHECK(symlink("../../../../../../../../../../etc/passwd", p) == 0);
	free(p);
	p = path_join(root, ETC "abs.conf");
	write_under(root, ETC "x.conf", "");
	CHECK(symlink("/etc/passwd", p) == 0);
	free(p);
	got = read_all(&ps, NULL);
	CHECK_STR(got, "");
	CHECK(ps.n == 3);
	for (size_t i = 0; i < ps.n; i++)
		if (strcmp(ps.v[i].name, "x"))
			CHECK(ps.v[i].modules.v.n == 1 && !strcmp(ps.v[i].modules.v.v[0], "from-the-sysroot"));
	plugins_free(&ps);
	free(got);
	/* a loop of links is an error naming the plugin */
	reset();
	write_under(root, LIB "x.conf", "");
	p = path_join(root, LIB "loop.conf");
	CHECK(symlink("loop.conf", p) == 0);
	free(p);
	got = read_all(&ps, NULL);
	CHECK(str_has_prefix(got, "plugin " LIB "loop.conf: "));
	CHECK(strstr(got, "oo many levels of symbolic links") != NULL);
	plugins_free(&ps);
	free(got);
}

static void test_conflicts(void)
{
	struct plugins ps = { 0 };
	char *got;

	reset();
	write_under(root, LIB "a.conf", "layer-blkid-type = zfs_member\nlayer-program = /a\n");
	write_under(root, ETC "b.conf", "\nlayer-blkid-type = other, zfs_member\nlayer-program = /b\n");
	got = read_all(&ps, NULL);
	CHECK_STR(got, ETC "b.conf:2: layer-blkid-type zfs_member is claimed by " LIB "a.conf:1 too");
	plugins_free(&ps);
	free(got);
	reset();
	write_under(root, LIB "a.conf", "root-prefix = ZFS=\nroot-program = /a\n");
	write_under(root, LIB "b.conf", "root-prefix = ZFS=pool\nroot-program = /b\n");
	got = read_all(&ps, NULL);
	CHECK_STR(got, LIB "b.conf:1: root-prefix ZFS=pool overlaps ZFS= of " LIB "a.conf:1");
	plugins_free(&ps);
	free(got);
	expect_error("layer-blkid-type = crypto_LUKS\nlayer-program = /a\n",
		     LIB "bad.conf:1: layer-blkid-type crypto_LUKS is the init's own layer");
	expect_error("root-prefix = UUID=\nroot-program = /a\n",
		     LIB "bad.conf:1: root-prefix UUID= overlaps the init's own root=UUID=");
	expect_error("root-prefix = /dev/zvol\nroot-program = /a\n",
		     LIB "bad.conf:1: root-prefix /dev/zvol overlaps the init's own root=/");
	expect_error("root-prefix = HWPATH=\nroot-program = /a\n",
		     LIB "bad.conf:1: root-prefix HWPATH= overlaps the init's own root=HWPATH=");
}

static void test_no_directories(void)
{
	struct plugins ps = { 0 };
	char *got;

	reset();
	got = read_all(&ps, NULL);
	CHECK_STR(got, "");
	CHECK(ps.n == 0);
	free(got);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-plugins-XXXXXX";
	char *top = xstrdup(mkdtemp(tmpl));

	root = path_join(top, "sysroot");
	RUN(test_override_by_name);
	RUN(test_every_key);
	RUN(test_hostile_values);
	RUN(test_half_rows);
	RUN(test_huge);
	RUN(test_not_a_text_file);
	RUN(test_links_stay_inside);
	RUN(test_conflicts);
	RUN(test_no_directories);
	char *rm = xasprintf("rm -rf %s", top);
	if (system(rm) != 0)
		printf("# could not remove %s\n", top);
	free(rm), free(root), free(top);
	return test_done();
}
