// SPDX-License-Identifier: GPL-2.0-or-later
/* --kernel-tree (a kernel build directory instead of an installed
 * kernel) and --format gen_init_cpio (the list usr/gen_init_cpio reads):
 * the parsers on hostile text, and the binary on fake trees. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/image/format_gen_init_cpio.h"
#include "gen/read/imagefile.h"
#include "gen/modules/kernel_tree.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *uniramfs, *init_bin, *kver, *tmpdir;

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel);
	char *slash = strrchr(p, '/');
	FILE *f;
	*slash = '\0';
	mkdir_p(p, 0755);
	*slash = '/';
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	free(p);
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char *c = xasprintf(fmt, a, b);
	int r = system(c);
	free(c);
	return r;
}

static void test_release_parse(void)
{
	char *v = kernel_release_parse("6.1.0-mini\n", "R");
	CHECK_STR(v, "6.1.0-mini");
	free(v);
	CHECK(kernel_release_parse("", "R") == NULL);
	CHECK_STR(err_msg(), "R: empty kernel version");
	CHECK(kernel_release_parse("6.1\nmore\n", "R") == NULL);
	CHECK_STR(err_msg(), "R: more than one line");
	CHECK(kernel_release_parse("../../etc\n", "R") == NULL);
	CHECK_STR(err_msg(), "R: bad kernel version '../../etc'");
	CHECK(kernel_release_parse("..\n", "R") == NULL);
	CHECK_STR(err_msg(), "R: bad kernel version '..'");
	CHECK(kernel_release_parse("6.1 x\n", "R") == NULL);
	CHECK_STR(err_msg(), "R: bad kernel version '6.1 x'");
}

static void test_order_path(void)
{
	char *p;
	p = modules_order_path("drivers/block/virtio_blk.o", "W");
	CHECK_STR(p, "kernel/drivers/block/virtio_blk.ko");
	free(p);
	p = modules_order_path("drivers/block/virtio_blk.ko", "W");
	CHECK_STR(p, "kernel/drivers/block/virtio_blk.ko");
	free(p);
	p = modules_order_path("kernel/fs/ext4/ext4.ko", "W");
	CHECK_STR(p, "kernel/fs/ext4/ext4.ko");
	free(p);
	CHECK(modules_order_path("../../etc/shadow.ko", "W") == NULL);
	CHECK_STR(err_msg(), "W: bad module path '../../etc/shadow.ko'");
	CHECK(modules_order_path("fs/./x.ko", "W") == NULL);
	CHECK_STR(err_msg(), "W: bad module path 'fs/./x.ko'");
	CHECK(modules_order_path("/abs/x.ko", "W") == NULL);
	CHECK_STR(err_msg(), "W: bad module path '/abs/x.ko'");
	CHECK(modules_order_path("fs/x.c", "W") == NULL);
	CHECK_STR(err_msg(), "W: 'fs/x.c' is not a module (.ko or .o)");
	CHECK(modules_order_path("fs/.ko", "W") == NULL);
	CHECK_STR(err_msg(), "W: 'fs/.ko' is not a module (.ko or .o)");
}

static void test_list_lines(void)
{
	struct buf b = { 0 };
	struct cpio_entry e = { .name = "dev/console", .mode = 020600, .rdev_major = 5, .rdev_minor = 1 };
	CHECK(gen_init_cpio_line(&b, &e, NULL, "/c") == 0);
	e = (struct cpio_entry){ .name = "init", .mode = 0100755, .size = 3 };
	CHECK(gen_init_cpio_line(&b, &e, "abc", "/c") == 0);
	e = (struct cpio_entry){ .name = "lib", .mode = 0120777, .size = 7 };
	CHECK(gen_init_cpio_line(&b, &e, "usr/lib", "/c") == 0);
	e = (struct cpio_entry){ .name = "tmp", .mode = 041777 };
	CHECK(gen_init_cpio_line(&b, &e, NULL, "/c") == 0);
	e = (struct cpio_entry){ .name = "run/p", .mode = 010600, .uid = 1, .gid = 2 };
	CHECK(gen_init_cpio_line(&b, &e, NULL, "/c") == 0);
	e = (struct cpio_entry){ .name = "run/s", .mode = 0140755 };
	CHECK(gen_init_cpio_line(&b, &e, NULL, "/c") == 0);
	e = (struct cpio_entry){ .name = "dev/sda", .mode = 060660, .rdev_major = 8 };
	CHECK(gen_init_cpio_line(&b, &e, NULL, "/c") == 0);
	e = (struct cpio_entry){ .name = ".", .mode = 040755 };
	CHECK(gen_init_cpio_line(&b, &e, NULL, "/c") == 0);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "nod /dev/console 600 0 0 c 5 1\n"
		       "file /init /c/init 755 0 0\n"
		       "slink /lib usr/lib 777 0 0\n"
		       "dir /tmp 1777 0 0\n"
		       "pipe /run/p 600 1 2\n"
		       "sock /run/s 755 0 0\n"
		       "nod /dev/sda 660 0 0 b 8 0\n");
	buf_free(&b);

	b = (struct buf){ 0 };
	e = (struct cpio_entry){ .name = "etc/a b", .mode = 0100644 };
	CHECK(gen_init_cpio_line(&b, &e, "", "/c") < 0);
	CHECK_STR(err_msg(), "entry \"etc/a b\": its name has white space or a control character, "
			     "which a gen_init_cpio list cannot hold");
	e = (struct cpio_entry){ .name = "etc/${HOME}", .mode = 0100644 };
	CHECK(gen_init_cpio_line(&b, &e, "", "/c") < 0);
	CHECK_STR(err_msg(), "entry \"etc/${HOME}\": its name has \"${\", which gen_init_cpio would expand");
	e = (struct cpio_entry){ .name = "l", .mode = 0120777, .size = 4 };
	CHECK(gen_init_cpio_line(&b, &e, "a\nb ", "/c") < 0);
	CHECK_STR(err_msg(), "entry \"l\": its link target has white space or a control character, "
			     "which a gen_init_cpio list cannot hold");
	CHECK(b.len == 0);
	buf_free(&b);
}

/* A tree as `make` leaves it with CONFIG_MODULES off. */
static char *tree_without_modules(const char *name)
{
	char *t = path_join(tmpdir, name);
	put(t, "include/config/kernel.release", "6.1.0-mini\n");
	put(t, ".config", "CONFIG_64BIT=y\n# CONFIG_MODULES is not set\nCONFIG_EXT4_FS=y\n");
	put(t, "modules.builtin", "kernel/fs/ext4/ext4.ko\nkernel/drivers/block/virtio_blk.ko\n");
	return t;
}

struct names {
	struct strv v;
};

static int collect(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *d, void *u)
{
	(void)seg, (void)c, (void)d;
	strv_push(&((struct names *)u)->v, e->name);
	return 0;
}

static char *build(const char *extra)
{
	return xasprintf("%s build --config /dev/null --init %s --microcode none %s 2>&1", uniramfs, init_bin,
			 extra);
}

static bool any_ko(const struct strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (strstr(v->v[i], ".ko"))
			return true;
	return false;
}

static void test_tree_without_modules(void)
{
	char *t = tree_without_modules("nomod"), *img = path_join(tmpdir, "nomod.img");
	char *o = xasprintf("--kernel-tree %s -o %s --add-modules ext4,virtio-blk", t, img);
	char *c = build(o), *out = NULL;
	struct names n = { 0 };
	CHECK(run_capture(c, NULL) == 0);
	CHECK(image_foreach(img, collect, &n) == 0);
	CHECK(strv_contains(&n.v, "usr/lib/modules/6.1.0-mini/modules.builtin"));
	CHECK(strv_contains(&n.v, "etc/uniramfs/kver"));
	CHECK(strv_contains(&n.v, "init"));
	CHECK(!strv_contains(&n.v, "usr/lib/modules/6.1.0-mini/modules.dep"));
	CHECK(!any_ko(&n.v));
	strv_free(&n.v);
	free(o), free(c);

	/* hostonly for a guest on such a kernel: its stack, no modules */
	o = xasprintf("--kernel-tree %s -o %s --hostonly --sysroot %s/tests/unit/fixtures/hostonly/virtio", t, img,
		      getenv("UNIRAMFS_SRCDIR"));
	c = build(o);
	CHECK(run_capture(c, NULL) == 0);
	CHECK(image_foreach(img, collect, &n) == 0);
	/* no host binaries here, so no usrmerge link: /lib is a directory */
	CHECK(strv_contains(&n.v, "lib/modules/6.1.0-mini/modules.builtin"));
	CHECK(!any_ko(&n.v));
	strv_free(&n.v);
	free(o), free(c);

	o = xasprintf("--kernel-tree %s -o %s --add-modules nvme", t, img);
	c = build(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: module 'nvme': kernel 6.1.0-mini has no module support "
		       "(CONFIG_MODULES is off) and it is not in its modules.builtin\n");
	free(o), free(c), free(out);

	o = xasprintf("--kernel-tree %s -k 6.1.0-other -o %s", t, img);
	c = build(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK(str_has_prefix(out, "uniramfs: error: --kernel-tree "));
	CHECK(strstr(out, " is kernel 6.1.0-mini, not the 6.1.0-other asked for\n"));
	free(o), free(c), free(out);

	o = xasprintf("--kernel-tree %s/none -o %s", t, img);
	c = build(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK(strstr(out, "/none: no kernel release (") && strstr(out, "was the kernel built?): No such file or directory\n"));
	free(o), free(c), free(out);
	free(t), free(img);
}

/* A tree with modules built (make modules, not installed): the host's
 * ext4 and its dependencies stand in for the build's .ko files. */
static void test_tree_with_modules(void)
{
	static const char *const mods[] = { "fs/ext4/ext4.ko", "fs/jbd2/jbd2.ko", "fs/mbcache.ko", "lib/crc16.ko" };
	char *t = path_join(tmpdir, "withmod"), *img = path_join(tmpdir, "withmod.img");
	char *o, *c, *out = NULL;
	struct names n = { 0 };
	struct buf order = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		char *src = xasprintf("/lib/modules/%s/kernel/%s", kver, mods[i]);
		char *dst = path_join(t, mods[i]);
		if (access(src, R_OK) < 0) {
			free(src), free(dst), free(t), free(img);
			SKIP("the host kernel has no plain ext4/jbd2/mbcache/crc16 modules");
		}
		put(t, mods[i], "");
		CHECK(sh("cp %s %s", src, dst) == 0);
		buf_printf(&order, "%.*s.o\n", (int)(strlen(mods[i]) - 3), mods[i]);
		free(src), free(dst);
	}
	put(t, "modules.order", order.p);
	put(t, "include/config/kernel.release", "6.1.0-tree\n");
	put(t, ".config", "CONFIG_MODULES=y\nCONFIG_EXT4_FS=m\n");
	put(t, "modules.builtin", "kernel/drivers/block/virtio_blk.ko\n");
	buf_free(&order);

	o = xasprintf("--kernel-tree %s -o %s --add-modules ext4", t, img);
	c = build(o);
	CHECK(run_capture(c, &out) == 0);
	CHECK(image_foreach(img, collect, &n) == 0);
	CHECK(strv_contains(&n.v, "usr/lib/modules/6.1.0-tree/kernel/fs/ext4/ext4.ko"));
	CHECK(strv_contains(&n.v, "usr/lib/modules/6.1.0-tree/kernel/fs/jbd2/jbd2.ko"));
	CHECK(strv_contains(&n.v, "usr/lib/modules/6.1.0-tree/kernel/lib/crc16.ko"));
	CHECK(strv_contains(&n.v, "usr/lib/modules/6.1.0-tree/modules.dep"));
	CHECK(strv_contains(&n.v, "usr/lib/modules/6.1.0-tree/modules.builtin"));
	strv_free(&n.v);
	/* the module itself, not the stage's link to it */
	{
		char *x = path_join(tmpdir, "withmod.x"), *ko, *src;
		CHECK(image_extract(img, x, 0) == 0);
		ko = path_join(x, "usr/lib/modules/6.1.0-tree/kernel/fs/ext4/ext4.ko");
		src = path_join(t, "fs/ext4/ext4.ko");
		struct stat st;
		CHECK(lstat(ko, &st) == 0 && S_ISREG(st.st_mode));
		CHECK(same_file(ko, src));
		free(x), free(ko), free(src);
	}
	free(o), free(c), free(out);

	/* a module the order names but the build did not make */
	put(t, "modules.order", "fs/ext4/ext4.o\ndrivers/gone/gone.o\n");
	o = xasprintf("--kernel-tree %s -o %s --add-modules ext4", t, img);
	c = build(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: modules.order:2 names drivers/gone/gone.ko, which is not built (run make modules)\n");
	free(o), free(c), free(out);

	put(t, "modules.order", "fs/ext4/ext4.o\n../../../etc/shadow.o\n");
	c = build(o = xasprintf("--kernel-tree %s -o %s", t, img));
	CHECK(run_capture(c, &out) == 1);
	CHECK(str_has_suffix(out, "/withmod: modules.order:2: bad module path '../../../etc/shadow.o'\n"));
	free(o), free(c), free(out);

	c = build(o = xasprintf("--kernel-tree %s --kmoddir /lib/modules/%s -o %s", t, kver, img));
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: --kernel-tree and --kmoddir both name the modules: give one\n");
	free(o), free(c), free(out);
	free(t), free(img);
}

static void test_list_format(void)
{
	char *t = tree_without_modules("listtree"), *list = path_join(tmpdir, "initramfs.list");
	char *o = xasprintf("--kernel-tree %s --format gen_init_cpio -o %s", t, list);
	char *c = build(o), *data = NULL, *want, *d, *init_copy, *out = NULL;
	size_t len;

	CHECK(run_capture(c, NULL) == 0);
	CHECK(read_file(list, &data, &len) == 0);
	d = xasprintf("%s.d", list);
	want = xasprintf("file /init %s/init 755 0 0\n", d);
	CHECK(data && strstr(data, want));
	CHECK(data && strstr(data, "nod /dev/console 600 0 0 c 5 1\n"));
	CHECK(data && strstr(data, "dir /tmp 1777 0 0\n"));
	init_copy = path_join(d, "init");
	CHECK(same_file(init_copy, init_bin));
	/* nodes live in the list only */
	{
		char *node = path_join(d, "dev/console");
		struct stat st;
		CHECK(lstat(node, &st) < 0);
		free(node);
	}
	/* a rebuild replaces the files, leaving nothing beside them */
	CHECK(run_capture(c, NULL) == 0);
	CHECK(same_file(init_copy, init_bin));
	{
		DIR *dir = opendir(tmpdir);
		struct dirent *e;
		int extra = 0;
		while ((e = readdir(dir)))
			if (str_has_prefix(e->d_name, "initramfs.list") && strcmp(e->d_name, "initramfs.list") &&
			    strcmp(e->d_name, "initramfs.list.d"))
				extra++;
		closedir(dir);
		CHECK(extra == 0);
	}
	free(o), free(c), free(data), free(want), free(init_copy);

	/* LIST.d a link elsewhere: refused, nothing written through it */
	{
		char *l2 = path_join(tmpdir, "linked.list"), *l2d = xasprintf("%s.d", l2);
		char *elsewhere = path_join(tmpdir, "elsewhere");
		mkdir(elsewhere, 0755);
		CHECK(symlink(elsewhere, l2d) == 0);
		c = build(o = xasprintf("--kernel-tree %s --format gen_init_cpio -o %s", t, l2));
		CHECK(run_capture(c, &out) == 1);
		want = xasprintf("uniramfs: error: %s: not a directory; refusing to replace it\n", l2d);
		CHECK_STR(out, want);
		CHECK(access(l2, F_OK) < 0);
		{
			DIR *dir = opendir(elsewhere);
			int n = 0;
			struct dirent *e;
			while ((e = readdir(dir)))
				n++;
			closedir(dir);
			CHECK(n == 2);
		}
		free(o), free(c), free(out), free(want), free(l2), free(l2d), free(elsewhere);
	}

	c = build(o = xasprintf("--kernel-tree %s --format gen_init_cpio", t));
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: --format gen_init_cpio needs -o LIST (the list, its files in LIST.d)\n");
	free(o), free(c), free(out);

	/* a name the format cannot carry */
	{
		char *src = path_join(tmpdir, "plain");
		put(tmpdir, "plain", "x\n");
		c = build(o = xasprintf("--kernel-tree %s --format gen_init_cpio -o %s --add-files '%s:/etc/a b'",
					t, list, src));
		CHECK(run_capture(c, &out) == 1);
		CHECK_STR(out, "uniramfs: error: entry \"etc/a b\": its name has white space or a control "
			       "character, which a gen_init_cpio list cannot hold\n");
		/* the previous list and its files stand */
		init_copy = path_join(d, "init");
		CHECK(same_file(init_copy, init_bin));
		free(o), free(c), free(out), free(src), free(init_copy);
	}
	free(d), free(t), free(list);
}

/* --uki end to end with a fake kernel: the sections in ukify's order,
 * the image inside, the same bytes twice; a bad stub is refused by name
 * and leaves no file. */
static void test_uki_build(void)
{
	char *t = tree_without_modules("ukitree"), *k = path_join(tmpdir, "vmlinuz-fake");
	char *u1 = path_join(tmpdir, "a.efi"), *u2 = path_join(tmpdir, "b.efi");
	const char *stub = "/usr/lib/systemd/boot/efi/linuxx64.efi.stub";
	char *o, *c, *out = NULL, *d = NULL, *want;
	size_t len;

	if (access(stub, R_OK) < 0) {
		free(t), free(k), free(u1), free(u2);
		SKIP("no systemd-boot-efi stub");
	}
	put(tmpdir, "vmlinuz-fake", "FAKE-KERNEL");
	c = build(o = xasprintf("--kernel-tree %s --uki %s --uki-kernel %s --uki-cmdline 'root=/dev/vda ro'", t, u1, k));
	CHECK(run_capture(c, NULL) == 0);
	free(o), free(c);
	c = build(o = xasprintf("--kernel-tree %s --uki %s --uki-kernel %s --uki-cmdline 'root=/dev/vda ro'", t, u2, k));
	CHECK(run_capture(c, NULL) == 0);
	CHECK(same_file(u1, u2));
	CHECK(read_file(u1, &d, &len) == 0);
	if (d) {
		char *osr = memmem(d, len, ".osrel\0\0", 8), *cl = memmem(d, len, ".cmdline", 8);
		char *un = memmem(d, len, ".uname\0\0", 8), *in = memmem(d, len, ".initrd\0", 8);
		char *li = memmem(d, len, ".linux\0\0", 8);
		CHECK(cl && un && in && li && (!osr || osr < cl) && cl < un && un < in && in < li);
		CHECK(memmem(d, len, "root=/dev/vda ro", 16) != NULL);
		CHECK(memmem(d, len, "6.1.0-mini", 10) != NULL);
		CHECK(len > 11 && memcmp(d + len - 512, "FAKE-KERNEL", 11) == 0);
	}
	free(o), free(c), free(d);
	{
		/* no temporary image left beside the UKI */
		DIR *dir = opendir(tmpdir);
		struct dirent *e;
		int extra = 0;
		while ((e = readdir(dir)))
			if (strstr(e->d_name, ".efi.initrd-"))
				extra++;
		closedir(dir);
		CHECK(extra == 0);
	}

	unlink(u2);
	c = build(o = xasprintf("--kernel-tree %s --uki %s --uki-kernel %s --uki-stub %s", t, u2, k, k));
	CHECK(run_capture(c, &out) == 1);
	want = xasprintf("uniramfs: error: %s: not a PE image (no MZ header)\n", k);
	CHECK_STR(out, want);
	CHECK(access(u2, F_OK) < 0);
	free(o), free(c), free(out), free(want);

	c = build(o = xasprintf("--kernel-tree %s --uki %s --format gen_init_cpio -o %s/l", t, u2, tmpdir));
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: --uki needs an image, not a --format gen_init_cpio list\n");
	free(o), free(c), free(out);
	free(t), free(k), free(u1), free(u2);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-ktree-XXXXXX";

	RUN(test_release_parse);
	RUN(test_order_path);
	RUN(test_list_lines);
	if (!find_binaries(&uniramfs, &init_bin, &kver))
		return test_done();
	tmpdir = xstrdup(mkdtemp(tmpl));
	RUN(test_tree_without_modules);
	RUN(test_tree_with_modules);
	RUN(test_list_format);
	RUN(test_uki_build);
	sh("rm -rf %s%s", tmpdir, "");
	free(tmpdir), free(uniramfs), free(init_bin), free(kver);
	return test_done();
}
