// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs build --all` and the free-space check, as the kernel hooks
 * and the package's postinst run them: the binary, its exit status, its
 * messages, and what it leaves in /boot. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *uniramfs, *init_bin, *kver, *tmpdir;

static void mkdir_in(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	mkdir_p(p, 0755);
	free(p);
}

static bool exists(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	bool ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

/* A Debian-looking sysroot with the host's kernel, an older one, and a
 * module directory whose kernel was removed. Every kernel is built from
 * the host's modules (--kmoddir): what is tested is the choice of
 * kernels and where their images go, not the modules. */
static char *make_sysroot(const char *name)
{
	char *root = path_join(tmpdir, name);
	char *boot_real = xasprintf("boot/vmlinuz-%s", kver), *mod_real = xasprintf("lib/modules/%s", kver);
	write_under(root, "etc/debian_version", "12.0\n");
	write_under(root, boot_real, "kernel\n");
	mkdir_in(root, mod_real);
	write_under(root, "boot/vmlinuz-1.0.0-old", "kernel\n");
	mkdir_in(root, "lib/modules/1.0.0-old");
	mkdir_in(root, "lib/modules/2.0.0-removed");
	free(boot_real);
	free(mod_real);
	return root;
}

static char *all_cmd(const char *root, const char *extra)
{
	return xasprintf("%s build --all --config /dev/null --sysroot %s --kmoddir /lib/modules/%s --init %s "
			 "--microcode none --compress none %s 2>&1",
			 uniramfs, root, kver, init_bin, extra);
}

static void test_all_builds_every_installed_kernel(void)
{
	char *root = make_sysroot("all"), *cmd = all_cmd(root, ""), *out = NULL;
	char *img = xasprintf("boot/initrd.img-%s", kver);
	CHECK(run_capture(cmd, &out) == 0);
	CHECK(exists(root, img));
	CHECK(exists(root, "boot/initrd.img-1.0.0-old"));
	/* no kernel, no image */
	CHECK(!exists(root, "boot/initrd.img-2.0.0-removed"));
	/* oldest first */
	CHECK(strstr(out, "kernel 1.0.0-old") && strstr(out, "kernel 1.0.0-old") < strstr(out, kver));
	free(out);
	free(img);
	free(cmd);
	free(root);
}

static void test_all_one_failure_others_still_built(void)
{
	char *root = make_sysroot("fail"), *cmd = all_cmd(root, ""), *out = NULL, *expect;
	char *img = xasprintf("boot/initrd.img-%s", kver);
	char *blocked = path_join(root, "boot/initrd.img-1.0.0-old");
	mkdir(blocked, 0755);
	CHECK(run_capture(cmd, &out) == 1);
	expect = xasprintf("uniramfs: error: kernel 1.0.0-old: -o %s: is a directory (give the image's file name)\n",
			   blocked);
	CHECK(strstr(out, expect) != NULL);
	CHECK(strstr(out, "uniramfs: error: 1 of 2 kernels failed (their old images are unchanged): 1.0.0-old\n"));
	CHECK(exists(root, img));
	if (!strstr(out, expect))
		printf("# got: %s\n", out);
	free(expect);
	free(blocked);
	free(out);
	free(img);
	free(cmd);
	free(root);
}

/* The output without the build's seconds (", 0.72 s" in each wrote
 * line), which differ from run to run. */
static void strip_seconds(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		const char *end = r;
		if (r[0] == ',' && r[1] == ' ') {
			end = r + 2;
			while (*end >= '0' && *end <= '9')
				end++;
			if (*end == '.' && end[1] >= '0' && end[1] <= '9') {
				end++;
				while (*end >= '0' && *end <= '9')
					end++;
				if (strncmp(end, " s\n", 3) == 0) {
					r = end + 2;
					continue;
				}
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* Three kernels, the middle one failing: built on every CPU at once,
 * the messages come kernel by kernel in the order one CPU gives them,
 * the failure is that kernel's alone and the others' images are
 * written. One CPU (taskset) builds them one after another in the
 * generator's own process. */
static void test_all_parallel_output_as_sequential(void)
{
	char *root = make_sysroot("order"), *par = all_cmd(root, ""), *seq, *po = NULL, *so = NULL;
	char *img = xasprintf("boot/initrd.img-%s", kver), *blocked = path_join(root, "boot/initrd.img-1.0.0-old");
	char *older = path_join(root, "boot/initrd.img-0.9.0-older"), *host = xasprintf("kernel %s", kver);

	write_under(root, "boot/vmlinuz-0.9.0-older", "kernel\n");
	mkdir_in(root, "lib/modules/0.9.0-older");
	mkdir(blocked, 0755);
	seq = xasprintf("taskset -c 0 %s", par);
	CHECK(run_capture(par, &po) == 1);
	CHECK(exists(root, "boot/initrd.img-0.9.0-older") && exists(root, img));
	CHECK(unlink(older) == 0);
	CHECK(run_capture(seq, &so) == 1);
	CHECK(exists(root, "boot/initrd.img-0.9.0-older") && exists(root, img));
	strip_seconds(po);
	strip_seconds(so);
	CHECK_STR(po, so);
	CHECK(strstr(po, "kernel 0.9.0-older") < strstr(po, "kernel 1.0.0-old: -o"));
	/* a host kernel sorts after 1.0.0 */
	CHECK(strstr(po, "kernel 1.0.0-old: -o") < strstr(po, host));
	CHECK(strstr(po, "uniramfs: error: 1 of 3 kernels failed (their old images are unchanged): 1.0.0-old\n"));
	if (strcmp(po, so))
		printf("# every CPU:\n%s# one CPU:\n%s", po, so);
	free(po);
	free(so);
	free(seq);
	free(older);
	free(host);
	free(par);
	free(blocked);
	free(img);
	free(root);
}

static void test_all_refuses_output_and_kver(void)
{
	char *root = make_sysroot("refuse"), *c1 = all_cmd(root, "-o /tmp/x"), *c2 = all_cmd(root, "-k 1.0.0-old");
	char *o1 = NULL, *o2 = NULL;
	CHECK(run_capture(c1, &o1) == 1);
	CHECK_STR(o1, "uniramfs: error: --all writes each kernel's default image: output '/tmp/x' (a flag or a "
		      "config file) cannot be given with it\n");
	CHECK(run_capture(c2, &o2) == 1);
	CHECK_STR(o2, "uniramfs: error: --all builds every installed kernel: kver '1.0.0-old' (a flag or a config "
		      "file) cannot be given with it\n");
	CHECK(!exists(root, "boot/initrd.img-1.0.0-old"));
	free(o1);
	free(o2);
	free(c1);
	free(c2);
	free(root);
}

static void test_all_no_kernel_is_not_an_error(void)
{
	char *root = path_join(tmpdir, "empty"), *cmd, *out = NULL, *expect;
	mkdir_p(root, 0755);
	cmd = all_cmd(root, "");
	expect = xasprintf("uniramfs: no installed kernel under %s (lib/modules/KVER with boot/vmlinuz-KVER): "
			   "nothing to build\n", root);
	CHECK(run_capture(cmd, &out) == 0);
	CHECK_STR(out, expect);
	free(expect);
	free(out);
	free(cmd);
	free(root);
}

/* A sysroot's /boot that is a link leaving it is followed inside the
 * sysroot, as the sysroot's own programs would see it. */
static void test_all_boot_link_stays_in_sysroot(void)
{
	char *root = path_join(tmpdir, "linked"), *cmd, *out = NULL, *link, *vmlinuz, *mod, *img, *outside;
	mkdir_p(root, 0755);
	write_under(root, "etc/debian_version", "12.0\n");
	mod = xasprintf("lib/modules/%s", kver);
	vmlinuz = xasprintf("lib/modules/%s/vmlinuz", kver);
	write_under(root, vmlinuz, "kernel\n");
	mkdir_in(root, "outside");
	outside = path_join(tmpdir, "outside");
	mkdir_p(outside, 0755);
	link = path_join(root, "boot");
	CHECK(symlink("../outside", link) == 0);
	cmd = all_cmd(root, "");
	CHECK(run_capture(cmd, &out) == 0);
	img = xasprintf("outside/initrd.img-%s", kver);
	CHECK(exists(root, img));
	CHECK(!exists(tmpdir, img));
	free(img);
	free(outside);
	free(link);
	free(vmlinuz);
	free(mod);
	free(out);
	free(cmd);
	free(root);
}

static uint64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *one_cmd(const char *output, const char *compress)
{
	return xasprintf("%s build --config /dev/null -k %s --init %s --microcode none --add-modules ext4 "
			 "--compress %s -o %s 2>&1", uniramfs, kver, init_bin, compress, output);
}

/* /boot as a small filesystem holding the old image: the new one must
 * fit beside it, and when it does not the message says by how much and
 * the old image is untouched. The image is streamed into the
 * filesystem: the write meets ENOSPC halfway, and the size in the
 * message is the whole image's, compressed or not. */
static const char *check_small_boot(const char *compress)
{
	char *roomy = xasprintf("%s/roomy-%s.img", tmpdir, compress), *c0 = one_cmd(roomy, compress);
	char *boot = xasprintf("%s/smallboot-%s", tmpdir, compress), *img = path_join(boot, "initrd.img-test");
	char *c1, *c2, *opts;
	char *out = NULL, *expect, *old = NULL;
	struct statvfs sv;
	uint64_t size, need, avail;
	size_t oldlen;

	if (geteuid() != 0) {
		free(roomy), free(c0), free(boot), free(img);
		return "mounting a small tmpfs needs root";
	}
	CHECK(run_capture(c0, NULL) == 0);
	size = file_size(roomy);
	CHECK(size > 0);
	mkdir_p(boot, 0755);
	/* room for half the image: the old one (16 KiB) and not the new */
	opts = xasprintf("size=%llu", (unsigned long long)((size / 2 + 65536) / 4096 * 4096));
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", boot, "tmpfs", 0, opts) < 0) {
		free(opts);
		free(roomy), free(c0), free(boot), free(img);
		return "no mount namespace for a tmpfs";
	}
	free(opts);
	{
		char *fill = xcalloc(1, 16384);
		FILE *f = fopen(img, "w");
		fwrite(fill, 1, 16384, f);
		fclose(f);
		free(fill);
	}
	CHECK(statvfs(boot, &sv) == 0);
	need = (size + sv.f_frsize - 1) / sv.f_frsize * sv.f_frsize;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	c1 = one_cmd(img, compress);
	CHECK(run_capture(c1, &out) == 1);
	expect = xasprintf("uniramfs: error: not enough space in %s for %s: the new image needs %llu bytes, %llu are "
			   "free (the old image stays until the new one is complete): free %llu more bytes\n",
			   boot, img, (unsigned long long)need, (unsigned long long)avail,
			   (unsigned long long)(need - avail));
	/* the last line; a firmware warning may come before it */
	CHECK(strlen(out) >= strlen(expect));
	CHECK_STR(out + strlen(out) - strlen(expect), expect);
	CHECK(read_file(img, &old, &oldlen) == 0 && oldlen == 16384);
	CHECK(count_dir(boot) == 1);
	free(old);
	free(out);
	free(expect);
	/* with the room, the same build goes through */
	CHECK(mount(NULL, boot, NULL, MS_REMOUNT, "size=128m") == 0);
	c2 = one_cmd(img, compress);
	CHECK(run_capture(c2, NULL) == 0);
	CHECK(file_size(img) == size);
	umount(boot);
	free(c0);
	free(c1);
	free(c2);
	free(img);
	free(boot);
	free(roomy);
	return NULL;
}

static void test_free_space_checked_before_writing(void)
{
	const char *skip = check_small_boot("none");
	if (skip)
		SKIP(skip);
}

static void test_full_boot_zstd_says_compressed_size(void)
{
	const char *skip = check_small_boot("zstd");
	if (skip)
		SKIP(skip);
}

int main(void)
{
	const char *bd = getenv("UNIRAMFS_BUILDDIR");
	char tmpl[] = "/tmp/uniramfs-test-all-XXXXXX";
	DIR *d = opendir("/lib/modules");
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				kver = xstrdup(e->d_name);
		closedir(d);
	}
	if (!bd || !kver) {
		printf("1..0 # SKIP no build dir or no installed kernel\n");
		return 0;
	}
	uniramfs = path_join(bd, "uniramfs");
	init_bin = path_join(bd, "uniramfs-init");
	tmpdir = xstrdup(mkdtemp(tmpl));
	RUN(test_all_builds_every_installed_kernel);
	RUN(test_all_one_failure_others_still_built);
	RUN(test_all_parallel_output_as_sequential);
	RUN(test_all_refuses_output_and_kver);
	RUN(test_all_no_kernel_is_not_an_error);
	RUN(test_all_boot_link_stays_in_sysroot);
	RUN(test_free_space_checked_before_writing);
	RUN(test_full_boot_zstd_says_compressed_size);
	{
		char *rm = xasprintf("rm -rf %s", tmpdir);
		if (system(rm) != 0)
			printf("# could not remove %s\n", tmpdir);
		free(rm);
	}
	free(uniramfs);
	free(init_bin);
	free(kver);
	free(tmpdir);
	return test_done();
}
