// SPDX-License-Identifier: GPL-2.0-or-later
/* ELF dependency resolution against real installed binaries, with the
 * host's ldd as the oracle (only here, in the test), and against tiny
 * programs and sysroots built by the test itself. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log_capture.h"

#include <linux/elf.h> /* our elf.h shadows <elf.h> */

#include "gen/elf/elf.h"
#include "gen/elf/elf_parse.h"
#include "err.h"
#include "gen/image/image.h"
#include "log.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char tmp[] = "/tmp/test_elf.XXXXXX";

static bool have_cc(void)
{
	return system("cc --version >/dev/null 2>&1") == 0;
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
}

/* Every library path the host's ldd prints for bin (vdso excluded). */
static void ldd_paths(const char *bin, struct strv *out)
{
	char *cmd = xasprintf("ldd %s 2>/dev/null", bin), line[4096];
	FILE *f = popen(cmd, "r");

	free(cmd);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "=> ");
		p = p ? p + 3 : line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue;
		p[strcspn(p, " \t\n(")] = '\0';
		strv_push(out, p);
	}
	pclose(f);
}

/* path as the host names it is in the image the way image_add_host_path
 * puts it there: every symlink met on the way, and the real file. */
static bool has_host_path(const struct image *img, const char *path)
{
	char *cur = path_normalize(path);
	bool ok = true;

	for (int hops = 0; ok && hops < 40; hops++) {
		char *slash = cur, target[PATH_MAX];
		bool link = false;
		while (slash && !link) {
			struct stat st;
			slash = strchr(slash + 1, '/');
			if (slash)
				*slash = '\0';
			if (lstat(cur, &st) < 0) {
				ok = false;
				break;
			}
			link = S_ISLNK(st.st_mode);
			if (!link && slash)
				*slash = '/';
		}
		if (!ok)
			break;
		if (!link) {
			ok = image_has(img, cur);
			break;
		}
		ok = image_has(img, cur);
		ssize_t n = readlink(cur, target, sizeof(target) - 1);
		if (n <= 0) {
			ok = false;
			break;
		}
		target[n] = '\0';
		*strrchr(cur, '/') = '\0';
		char *next = target[0] == '/' ? xasprintf("%s/%s", target, slash ? slash + 1 : "")
					      : xasprintf("%s/%s/%s", cur, target, slash ? slash + 1 : "");
		free(cur);
		cur = path_normalize(next);
		free(next);
	}
	free(cur);
	return ok;
}

static void check_against_ldd(const char *cmd)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new();
	struct strv libs = { 0 };
	char *which = xasprintf("command -v %s >/dev/null", cmd);
	bool present = system(which) == 0;

	free(which);
	if (present) {
		char *bin = NULL;
		const char *dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };
		for (size_t i = 0; i < ARRAY_SIZE(dirs) && !bin; i++) {
			char *p = xasprintf("%s/%s", dirs[i], cmd);
			if (access(p, X_OK) == 0)
				bin = p;
			else
				free(p);
		}
		CHECK(bin);
		CHECK(elf_add_binary(r, img, cmd) == 0);
		if (bin) {
			ldd_paths(bin, &libs);
			CHECK(libs.n > 0);
			for (size_t i = 0; i < libs.n; i++) {
				if (!has_host_path(img, libs.v[i])) {
					printf("# %s: ldd says %s, not in the image\n", cmd, libs.v[i]);
					CHECK(0);
				}
			}
		}
		free(bin);
	} else {
		printf("# %s not installed\n", cmd);
		CHECK(0);
	}
	strv_free(&libs);
	image_free(img);
	elf_resolver_free(r);
}

static void test_bin_sh(void)
{
	struct elf_resolver *r = elf_resolver_new("/");
	struct image *img = image_new();
	struct strv libs = { 0 };
	struct stat st;

	CHECK(elf_add_binary(r, img, "/bin/sh") == 0);
	CHECK(has_host_path(img, "/bin/sh"));
	/* A usrmerge host has /bin and /lib64 as links: they come along. */
	if (lstat("/bin", &st) == 0 && S_ISLNK(st.st_mode))
		CHECK(image_has(img, "/bin"));
	if (lstat("/lib64", &st) == 0 && S_ISLNK(st.st_mode))
		CHECK(image_has(img, "/lib64"));
	ldd_paths("/bin/sh", &libs);
	CHECK(libs.n >= 2);
	for (size_t i = 0; i < libs.n; i++)
		CHECK(has_host_path(img, libs.v[i]));
	CHECK(has_host_path(img, "/lib64/ld-linux-x86-64.so.2"));
	strv_free(&libs);
	image_free(img);
	elf_resolver_free(r);
}

static void test_ls(void)
{
	check_against_ldd("ls");
}

static void test_cryptsetup(void)
{
	check_against_ldd("cryptsetup");
}

static void test_lvm(void)
{
	check_against_ldd("lvm");
}

static void test_mdadm_e2fsck(void)
{
	check_against_ldd("mdadm");
	check_against_ldd("e2fsck");
}

static void test_static_busybox(void)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new(), *alone = image_new();

	if (access("/bin/busybox", X_OK) < 0)
		SKIP("busybox-static not installed");
	CHECK(elf_add_binary(r, img, "/bin/busybox") == 0);
	CHECK(image_add_host_path(alone, "", "/bin/busybox", NULL) == 0);
	/* Just the file (and the links on its way), nothing else. */
	CHECK(image_count(img) == image_count(alone));
	CHECK(has_host_path(img, "/bin/busybox"));
	image_free(img);
	image_free(alone);
	elf_resolver_free(r);
}

static void test_missing(void)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new();

	CHECK(elf_add_binary(r, img, "uniramfs-no-such-tool") < 0);
	CHECK_STR(err_msg(), "binary 'uniramfs-no-such-tool' not found in PATH");
	CHECK(elf_add_binary(r, img, "/nonexistent/tool") < 0);
	CHECK_STR(err_msg(), "binary '/nonexistent/tool' not found");
	CHECK(elf_add_binary(r, img, "bin/ls") < 0);
	CHECK_STR(err_msg(), "binary 'bin/ls': not an absolute path");
	CHECK(image_count(img) == 0);
	image_free(img);
	elf_resolver_free(r);
}

static void test_shared_once(void)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new(), *ls = image_new(), *cp = image_new();
	size_t n;

	CHECK(elf_add_binary(r, ls, "ls") == 0);
	CHECK(elf_add_binary(r, cp, "cp") == 0);
	CHECK(elf_add_binary(r, img, "ls") == 0);
	n = image_count(img);
	CHECK(n == image_count(ls));
	CHECK(elf_add_binary(r, img, "ls") == 0);
	CHECK(image_count(img) == n);
	/* cp brings only what ls did not: its own file and libacl & co;
	 * libc, ld.so and libselinux are counted once. */
	CHECK(elf_add_binary(r, img, "cp") == 0);
	CHECK(image_count(img) > n);
	CHECK(image_count(img) < image_count(ls) + image_count(cp));
	CHECK(has_host_path(img, "/lib64/ld-linux-x86-64.so.2"));
	image_free(img);
	image_free(ls);
	image_free(cp);
	elf_resolver_free(r);
}

/* A program that needs libfoo through RUNPATH $ORIGIN/../lib, on the
 * host (libc from the host). */
static void test_runpath_origin(void)
{
	struct elf_resolver *r;
	struct image *img;
	char *bin, *lib;

	if (!have_cc())
		SKIP("no C compiler");
	CHECK(run_shf("mkdir -p %s/o/bin %s/o/lib && cd %s/o && "
		 "echo 'int foo(void) { return 42; }' > foo.c && "
		 "echo 'int foo(void); int main(void) { return foo() != 42; }' > main.c && "
		 "cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o lib/libfoo.so.1 foo.c && "
		 "cc -o bin/prog main.c lib/libfoo.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' && "
		 "./bin/prog", tmp, tmp, tmp) == 0);
	r = elf_resolver_new("");
	img = image_new();
	bin = xasprintf("%s/o/bin/prog", tmp);
	lib = xasprintf("%s/o/lib/libfoo.so.1", tmp);
	CHECK(elf_add_binary(r, img, bin) == 0);
	CHECK(image_has(img, bin));
	CHECK(image_has(img, lib));
	CHECK(has_host_path(img, "/lib/x86_64-linux-gnu/libc.so.6") ||
	      has_host_path(img, "/lib64/libc.so.6"));
	free(bin);
	free(lib);
	image_free(img);
	elf_resolver_free(r);
}

/* A sysroot built here: usrmerge links, a libc and ld.so copied in, an
 * ld.so.conf with a relative include, an i386-tagged libfoo that must be
 * skipped, RPATH inherited by a library and RUNPATH not. */
static void make_sysroot(const char *root)
{
	char libc[PATH_MAX], ldso[PATH_MAX];

	if (!realpath("/lib/x86_64-linux-gnu/libc.so.6", libc) ||
	    !realpath("/lib64/ld-linux-x86-64.so.2", ldso))
		abort();
	CHECK(run_shf("set -e; mkdir -p %s; cd %s; mkdir -p usr/bin usr/lib64 usr/lib/x86_64-linux-gnu usr/lib/bar "
		 "opt/foo/lib etc/ld.so.conf.d src; ln -s usr/bin bin; ln -s usr/lib lib; "
		 "ln -s usr/lib64 lib64; cp %s usr/lib/x86_64-linux-gnu/libc.so.6; "
		 "cp %s usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; "
		 "ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 usr/lib64/; "
		 "echo 'include ld.so.conf.d/*.conf' > etc/ld.so.conf; "
		 "echo '/opt/foo/lib # i386 only' > etc/ld.so.conf.d/foo.conf; "
		 "cd src; echo 'int foo(void) { return 42; }' > foo.c; "
		 "echo 'int baz(void) { return 1; }' > baz.c; "
		 "echo 'int baz(void); int bar(void) { return baz(); }' > bar.c; "
		 "echo 'int foo(void); int main(void) { return foo(); }' > main.c; "
		 "echo 'int bar(void); int main(void) { return bar(); }' > mainbar.c; "
		 "L=../usr/lib/x86_64-linux-gnu; "
		 "cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o $L/libfoo.so.1.0 foo.c; "
		 "ln -s libfoo.so.1.0 $L/libfoo.so.1; "
		 /* the same library tagged EM_386, earlier in the search */
		 "cp $L/libfoo.so.1.0 ../opt/foo/lib/libfoo.so.1; "
		 "printf '\\003\\000' | dd of=../opt/foo/lib/libfoo.so.1 bs=1 seek=18 conv=notrunc 2>/dev/null; "
		 "cc -shared -fPIC -Wl,-soname,libbaz.so.1 -o ../usr/lib/bar/libbaz.so.1 baz.c; "
		 "cc -shared -fPIC -Wl,-soname,libbar.so.1 -o ../usr/lib/bar/libbar.so.1 bar.c "
		 "../usr/lib/bar/libbaz.so.1; "
		 "cc -o ../usr/bin/prog main.c $L/libfoo.so.1; "
		 "cc -o ../usr/bin/prog2 main.c $L/libfoo.so.1; "
		 "cc -o ../usr/bin/withrpath mainbar.c ../usr/lib/bar/libbar.so.1 "
		 "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib/bar',-rpath-link,../usr/lib/bar; "
		 "cc -o ../usr/bin/withrunpath mainbar.c ../usr/lib/bar/libbar.so.1 "
		 "-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib/bar',-rpath-link,../usr/lib/bar; "
		 /* $LIB and ${PLATFORM} in a search path */
		 "mkdir -p ../opt/lib/x86_64-linux-gnu ../opt/x86_64; "
		 "cc -shared -fPIC -Wl,-soname,libqux.so.1 -o ../opt/lib/x86_64-linux-gnu/libqux.so.1 foo.c; "
		 "cc -shared -fPIC -Wl,-soname,libquux.so.1 -o ../opt/x86_64/libquux.so.1 baz.c; "
		 "cc -o ../usr/bin/withdst main.c -Wl,--no-as-needed "
		 "../opt/lib/x86_64-linux-gnu/libqux.so.1 ../opt/x86_64/libquux.so.1 "
		 "-Wl,-rpath,'/opt/$LIB:/opt/${PLATFORM}'; "
		 /* an ld.so living in /usr/lib64 (Fedora): $LIB is lib64 */
		 "cp %s ../usr/lib64/ld-fedora.so.2; mkdir -p ../opt/lib64; "
		 "cp ../opt/lib/x86_64-linux-gnu/libqux.so.1 ../opt/lib64/; "
		 "cc -o ../usr/bin/withlib64 main.c ../opt/lib64/libqux.so.1 "
		 "-Wl,--dynamic-linker=/usr/lib64/ld-fedora.so.2,-rpath,'/opt/$LIB'",
		 root, root, libc, ldso, ldso) == 0);
}

static void test_sysroot(void)
{
	char *root;
	struct elf_resolver *r;
	struct image *img;

	if (!have_cc())
		SKIP("no C compiler");
	if (access("/lib/x86_64-linux-gnu/libc.so.6", R_OK) < 0)
		SKIP("not a Debian-style x86_64 host");
	root = xasprintf("%s/root", tmp);
	make_sysroot(root);
	r = elf_resolver_new(root);
	img = image_new();

	CHECK(elf_add_binary(r, img, "prog") == 0);
	/* /usr/bin/prog; /lib64 link, ld.so link and file; /lib link,
	 * libfoo.so.1 link, libfoo.so.1.0; libc.so.6 (which needs ld.so:
	 * already loaded). */
	CHECK(image_has(img, "/usr/bin/prog"));
	CHECK(image_has(img, "/lib64"));
	CHECK(image_has(img, "/usr/lib64/ld-linux-x86-64.so.2"));
	CHECK(image_has(img, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
	CHECK(image_has(img, "/lib"));
	CHECK(image_has(img, "/usr/lib/x86_64-linux-gnu/libfoo.so.1"));
	CHECK(image_has(img, "/usr/lib/x86_64-linux-gnu/libfoo.so.1.0"));
	CHECK(image_has(img, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(!image_has(img, "/opt/foo/lib/libfoo.so.1"));
	CHECK(image_count(img) == 8);
	/* A second program needing the same libraries adds only itself. */
	CHECK(elf_add_binary(r, img, "/bin/prog2") == 0);
	CHECK(image_has(img, "/bin"));
	CHECK(image_has(img, "/usr/bin/prog2"));
	CHECK(image_count(img) == 10);
	CHECK(elf_add_binary(r, img, "prog2") == 0);
	CHECK(image_count(img) == 10);

	/* libbar needs libbaz and says nothing of where: the executable's
	 * RPATH covers it, a RUNPATH (by ld.so's rules) does not. */
	CHECK(elf_add_binary(r, img, "withrpath") == 0);
	CHECK(image_has(img, "/usr/lib/bar/libbar.so.1"));
	CHECK(image_has(img, "/usr/lib/bar/libbaz.so.1"));
	CHECK(elf_add_binary(r, img, "withrunpath") < 0);
	CHECK_STR(err_msg(), "/usr/lib/bar/libbar.so.1: library 'libbaz.so.1' not found");

	CHECK(elf_add_binary(r, img, "withdst") == 0);
	CHECK(image_has(img, "/opt/lib/x86_64-linux-gnu/libqux.so.1"));
	CHECK(image_has(img, "/opt/x86_64/libquux.so.1"));
	CHECK(elf_add_binary(r, img, "withlib64") == 0);
	CHECK(image_has(img, "/usr/lib64/ld-fedora.so.2"));
	CHECK(image_has(img, "/opt/lib64/libqux.so.1"));

	/* With the i386 copy gone too, nothing is left to satisfy libfoo. */
	CHECK(run_shf("rm %s/usr/lib/x86_64-linux-gnu/libfoo.so.1", root) == 0);
	elf_resolver_free(r);
	r = elf_resolver_new(root);
	CHECK(elf_add_binary(r, img, "prog") < 0);
	CHECK_STR(err_msg(), "/usr/bin/prog: library 'libfoo.so.1' not found");

	image_free(img);
	elf_resolver_free(r);
	free(root);
}

/* A musl userland (Debian's musl-gcc): its loader, /lib/ld-musl-x86_64.so.1
 * a link to its libc.so, is also libc.so; the library path is
 * /etc/ld-musl-x86_64.path, or musl's own when there is none; a RUNPATH
 * serves the libraries its object loaded, as RPATH does. A copy of
 * libfoo where glibc's rules would look first must not be taken. */
static void test_musl(void)
{
	char *root, libc[PATH_MAX];
	struct elf_resolver *r;
	struct image *img;

	if (system("musl-gcc --version >/dev/null 2>&1") != 0 ||
	    !realpath("/lib/ld-musl-x86_64.so.1", libc))
		SKIP("no musl-gcc");
	root = xasprintf("%s/musl", tmp);
	CHECK(run_shf("set -e; mkdir -p %s; cd %s; "
		 "mkdir -p lib/x86_64-linux-musl usr/lib/x86_64-linux-gnu usr/local/lib opt/musl/lib "
		 "usr/bin usr/lib/bar etc src; cp %s lib/x86_64-linux-musl/libc.so; "
		 "ln -s x86_64-linux-musl/libc.so lib/ld-musl-x86_64.so.1; "
		 "printf '/lib/x86_64-linux-musl\\nrelative/lib:/opt/musl/lib\\n' > etc/ld-musl-x86_64.path; "
		 "cd src; echo 'int foo(void) { return 42; }' > foo.c; "
		 "echo 'int baz(void) { return 1; }' > baz.c; "
		 "echo 'int baz(void); int bar(void) { return baz(); }' > bar.c; "
		 "echo 'int foo(void); int main(void) { return foo(); }' > main.c; "
		 "echo 'int bar(void); int main(void) { return bar(); }' > mainbar.c; "
		 "musl-gcc -shared -fPIC -Wl,-soname,libfoo.so.1 -o ../opt/musl/lib/libfoo.so.1 foo.c; "
		 "cp ../opt/musl/lib/libfoo.so.1 ../usr/lib/x86_64-linux-gnu/; "
		 "musl-gcc -o ../usr/bin/prog main.c ../opt/musl/lib/libfoo.so.1; "
		 "musl-gcc -shared -fPIC -Wl,-soname,libbaz.so.1 -o ../usr/lib/bar/libbaz.so.1 baz.c; "
		 "musl-gcc -shared -fPIC -Wl,-soname,libbar.so.1 -o ../usr/lib/bar/libbar.so.1 bar.c "
		 "../usr/lib/bar/libbaz.so.1; "
		 "musl-gcc -o ../usr/bin/withrunpath mainbar.c ../usr/lib/bar/libbar.so.1 "
		 "-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib/bar',-rpath-link,../usr/lib/bar; "
		 "musl-gcc -o ../usr/bin/withlib mainbar.c ../usr/lib/bar/libbar.so.1 "
		 "-Wl,--enable-new-dtags,-rpath,'/usr/$LIB/bar',-rpath-link,../usr/lib/bar",
		 root, root, libc) == 0);
	r = elf_resolver_new(root);
	img = image_new();

	/* prog, the loader's link and file (libc.so: the loader itself),
	 * the path file, libfoo from the directory it names */
	CHECK(elf_add_binary(r, img, "prog") == 0);
	CHECK(image_has(img, "/usr/bin/prog"));
	CHECK(image_has(img, "/lib/ld-musl-x86_64.so.1"));
	CHECK(image_has(img, "/lib/x86_64-linux-musl/libc.so"));
	CHECK(image_has(img, "/etc/ld-musl-x86_64.path"));
	CHECK(image_has(img, "/opt/musl/lib/libfoo.so.1"));
	CHECK(!image_has(img, "/usr/lib/x86_64-linux-gnu/libfoo.so.1"));
	CHECK(image_count(img) == 5);

	/* musl gives libbar's need the executable's RUNPATH; glibc does not
	 * (test_sysroot's withrunpath) */
	CHECK(elf_add_binary(r, img, "withrunpath") == 0);
	CHECK(image_has(img, "/usr/lib/bar/libbar.so.1"));
	CHECK(image_has(img, "/usr/lib/bar/libbaz.so.1"));
	/* musl expands $ORIGIN only: a list with $LIB is dropped whole */
	CHECK(elf_add_binary(r, img, "withlib") < 0);
	CHECK_STR(err_msg(), "/usr/bin/withlib: library 'libbar.so.1' not found");
	elf_resolver_free(r);
	image_free(img);

	/* No path file: musl's own /lib:/usr/local/lib:/usr/lib, which
	 * glibc's default does not have /usr/local/lib in. */
	CHECK(run_shf("set -e; cd %s; rm etc/ld-musl-x86_64.path; mv opt/musl/lib/libfoo.so.1 usr/local/lib/",
		      root) == 0);
	r = elf_resolver_new(root);
	img = image_new();
	CHECK(elf_add_binary(r, img, "prog") == 0);
	CHECK(image_has(img, "/usr/local/lib/libfoo.so.1"));
	CHECK(!image_has(img, "/usr/lib/x86_64-linux-gnu/libfoo.so.1"));
	CHECK(!image_has(img, "/etc/ld-musl-x86_64.path"));
	elf_resolver_free(r);
	image_free(img);

	/* The first file musl opens is the one it loads: an i386-tagged one
	 * first in its path fails the build, it is not skipped. */
	CHECK(run_shf("set -e; cd %s; cp usr/local/lib/libfoo.so.1 lib/; "
		      "printf '\\003\\000' | dd of=lib/libfoo.so.1 bs=1 seek=18 conv=notrunc 2>/dev/null",
		      root) == 0);
	r = elf_resolver_new(root);
	img = image_new();
	CHECK(elf_add_binary(r, img, "prog") < 0);
	CHECK_STR(err_msg(), "/usr/bin/prog: library 'libfoo.so.1' not found");
	elf_resolver_free(r);
	image_free(img);

	/* A path file that is not a regular file fails, naming it. */
	CHECK(run_shf("mkdir %s/etc/ld-musl-x86_64.path", root) == 0);
	r = elf_resolver_new(root);
	img = image_new();
	CHECK(elf_add_binary(r, img, "prog") < 0);
	char *want = xasprintf("/usr/bin/prog: the library path of its loader /lib/ld-musl-x86_64.so.1: "
			       "musl's library path: %s/etc/ld-musl-x86_64.path: not a regular file", root);
	CHECK_STR(err_msg(), want);
	free(want);
	elf_resolver_free(r);
	image_free(img);
	free(root);
}

static void test_script(void)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new();
	char *s1 = xasprintf("%s/script.sh", tmp), *s2 = xasprintf("%s/envscript", tmp);
	char *s3 = xasprintf("%s/data.txt", tmp), *s4 = xasprintf("%s/bad", tmp);

	write_text(s1, "#!/bin/sh -e\necho hi\n");
	write_text(s2, "#!/usr/bin/env -S ls -l\n");
	write_text(s3, "just text\n");
	write_text(s4, "#!sh\n");
	CHECK(elf_add_binary(r, img, s1) == 0);
	CHECK(image_has(img, s1));
	CHECK(has_host_path(img, "/bin/sh"));
	CHECK(has_host_path(img, "/lib64/ld-linux-x86-64.so.2"));
	CHECK(elf_add_binary(r, img, s2) == 0);
	CHECK(has_host_path(img, "/usr/bin/env"));
	CHECK(has_host_path(img, "/usr/bin/ls"));
	size_t n = image_count(img);
	CHECK(elf_add_binary(r, img, s3) == 0);
	CHECK(image_count(img) == n + 1);
	CHECK(elf_add_binary(r, img, s4) < 0);
	char *want = xasprintf("%s: bad interpreter line '#!sh'", s4);
	CHECK_STR(err_msg(), want);
	free(want);
	write_text(s4, "#!/nonexistent/interp -x\n");
	CHECK(elf_add_binary(r, img, s4) < 0);
	want = xasprintf("%s: interpreter '/nonexistent/interp' not found", s4);
	CHECK_STR(err_msg(), want);
	free(want);
	free(s1);
	free(s2);
	free(s3);
	free(s4);
	image_free(img);
	elf_resolver_free(r);
}

#define NOTE_JSON                                                                            \
	"[{\\\"feature\\\":\\\"zlib\\\",\\\"description\\\":\\\"compression\\\","                    \
	"\\\"priority\\\":\\\"required\\\",\\\"soname\\\":[\\\"libz.so.1\\\"]},"                     \
	"{\\\"soname\\\":[\\\"libuniramfs-nosuch.so.9\\\"],\\\"priority\\\":\\\"recommended\\\"},"   \
	"{\\\"soname\\\":[\\\"libbz2.so.1.0\\\"],\\\"priority\\\":\\\"suggested\\\"}]"

static void test_dlopen_note(void)
{
	struct elf_resolver *r;
	struct image *img;
	struct elf_file f;
	char *src, *bin;

	if (!have_cc())
		SKIP("no C compiler");
	src = xasprintf("%s/note.c", tmp);
	bin = xasprintf("%s/note", tmp);
	FILE *fp = fopen(src, "w");
	CHECK(fp);
	if (!fp)
		return;
	fprintf(fp, "#include <stdint.h>\n"
		    "#define J \"%s\"\n"
		    "__attribute__((used, section(\".note.dlopen\"))) _Alignas(4) static const struct {\n"
		    "	struct { uint32_t n_namesz, n_descsz, n_type; } nhdr;\n"
		    "	char name[4];\n"
		    "	_Alignas(4) char json[sizeof(J)];\n"
		    "} note = { { 4, sizeof(J), 0x407c0c0a }, \"FDO\", J };\n"
		    "int main(void) { return 0; }\n", NOTE_JSON);
	fclose(fp);
	CHECK(run_shf("cc -o %s %s", bin, src) == 0);

	CHECK(elf_parse_path(bin, &f) == 1);
	CHECK(f.n_dlopen == 3);
	if (f.n_dlopen == 3) {
		CHECK_STR(f.dlopen[0].sonames.v[0], "libz.so.1");
		CHECK(f.dlopen[0].priority == ELF_DLOPEN_REQUIRED);
		CHECK(f.dlopen[1].priority == ELF_DLOPEN_RECOMMENDED);
		CHECK(f.dlopen[2].priority == ELF_DLOPEN_SUGGESTED);
	}
	elf_file_free(&f);

	r = elf_resolver_new("");
	img = image_new();
	CHECK(elf_add_binary(r, img, bin) == 0);
	CHECK(has_host_path(img, "/lib/x86_64-linux-gnu/libz.so.1"));
	if (access("/lib/x86_64-linux-gnu/libbz2.so.1.0", R_OK) == 0)
		CHECK(!image_has(img, "/lib/x86_64-linux-gnu/libbz2.so.1.0"));
	image_free(img);
	elf_resolver_free(r);
	free(src);
	free(bin);
}

static void test_dlopen_json(void)
{
	static const char *const bad[] = {
		"", "[", "{}", "[{]", "[{\"soname\":\"x\"}]", "[{\"soname\":[1]}]", "[1,]",
		"[{\"soname\":[\"a\"]}] x", "[{\"priority\":\"required\",\"soname\":[\"a\\q\"]}]",
		"[{\"soname\":[\"a\"],\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]",
		"[{\"soname\":[\"\\u12\"]}]", "[{\"soname\":[\"a\"", "[{\"soname\":[\"a\"],}]",
	};
	struct elf_file f = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (elf_parse_dlopen_json(bad[i], strlen(bad[i]), &f) >= 0)
			printf("# accepted: %s\n", bad[i]);
		CHECK(f.n_dlopen == 0);
	}
	const char *ok = " [ {\"feature\":\"x\", \"extra\": {\"a\": [true, null, -1.5e3]},"
			 " \"soname\": [\"libA.so.2\", \"lib\\u0042.so.1\"]}, {\"soname\": []} ] ";
	CHECK(elf_parse_dlopen_json(ok, strlen(ok), &f) == 0);
	CHECK(f.n_dlopen == 1);
	if (f.n_dlopen == 1) {
		CHECK(f.dlopen[0].priority == ELF_DLOPEN_RECOMMENDED);
		CHECK(f.dlopen[0].sonames.n == 2);
		CHECK_STR(f.dlopen[0].sonames.v[1], "libB.so.1");
	}
	elf_file_free(&f);
}

/* A minimal ELF of either class and byte order, built byte by byte:
 * one PT_LOAD at vaddr 0x10000 covering the file, PT_INTERP, PT_DYNAMIC
 * (two DT_NEEDED, DT_RUNPATH) and a PT_NOTE with a dlopen note. */
static void put(unsigned char *p, size_t off, uint64_t v, size_t size, bool be)
{
	for (size_t i = 0; i < size; i++)
		p[off + (be ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

#define PUT(p, off, T, f, v)                                                                 \
	(is64 ? put(p, (off) + offsetof(Elf64_##T, f), v, sizeof(((Elf64_##T *)0)->f), be)     \
	      : put(p, (off) + offsetof(Elf32_##T, f), v, sizeof(((Elf32_##T *)0)->f), be))

static void build_elf(unsigned char *p, bool is64, bool be, uint64_t needed2, uint64_t strtab)
{
	static const char strs[] = "\0libfoo.so.1\0libbar.so.2\0$ORIGIN/../lib";
	static const char json[] = "[{\"soname\":[\"libz.so.1\"],\"priority\":\"required\"}]";
	size_t ehsz = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t dsz = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	const uint32_t types[] = { PT_LOAD, PT_INTERP, PT_DYNAMIC, PT_NOTE };
	const uint64_t offs[] = { 0, 0x200, 0x400, 0x500 }, sizes[] = { 0x600, 13, 6 * dsz, 0x80 };
	const uint64_t dyn[][2] = { { DT_NEEDED, 1 }, { DT_NEEDED, needed2 }, { 29 /* RUNPATH */, 25 },
				    { DT_STRTAB, strtab }, { DT_STRSZ, sizeof(strs) }, { DT_NULL, 0 } };

	memset(p, 0, 0x600);
	memcpy(p, ELFMAG, SELFMAG);
	p[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	p[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
	p[EI_VERSION] = EV_CURRENT;
	PUT(p, 0, Ehdr, e_type, ET_DYN);
	PUT(p, 0, Ehdr, e_machine, EM_PPC64);
	PUT(p, 0, Ehdr, e_phoff, ehsz);
	PUT(p, 0, Ehdr, e_ehsize, ehsz);
	PUT(p, 0, Ehdr, e_phentsize, phsz);
	PUT(p, 0, Ehdr, e_phnum, 4);
	for (size_t i = 0; i < 4; i++) {
		size_t ph = ehsz + i * phsz;
		PUT(p, ph, Phdr, p_type, types[i]);
		PUT(p, ph, Phdr, p_offset, offs[i]);
		PUT(p, ph, Phdr, p_vaddr, 0x10000 + offs[i]);
		PUT(p, ph, Phdr, p_filesz, sizes[i]);
		PUT(p, ph, Phdr, p_memsz, sizes[i]);
		PUT(p, ph, Phdr, p_align, 4);
	}
	memcpy(p + 0x200, "/lib/ld64.so", 13);
	memcpy(p + 0x300, strs, sizeof(strs));
	for (size_t i = 0; i < 6; i++) {
		PUT(p, 0x400 + i * dsz, Dyn, d_tag, dyn[i][0]);
		PUT(p, 0x400 + i * dsz, Dyn, d_un, dyn[i][1]);
	}
	put(p, 0x500, 4, 4, be);
	put(p, 0x504, sizeof(json), 4, be);
	put(p, 0x508, 0x407c0c0a, 4, be);
	memcpy(p + 0x50c, "FDO", 4);
	memcpy(p + 0x510, json, sizeof(json));
}

static void test_classes_and_byte_orders(void)
{
	static unsigned char p[0x600];
	struct elf_file f;

	for (int k = 0; k < 4; k++) {
		bool is64 = k & 1, be = k & 2;
		build_elf(p, is64, be, 13, 0x10300);
		CHECK(elf_parse(p, sizeof(p), "built", &f) == 1);
		CHECK(f.cls == (is64 ? ELFCLASS64 : ELFCLASS32));
		CHECK(f.data == (be ? ELFDATA2MSB : ELFDATA2LSB));
		CHECK(f.machine == EM_PPC64);
		CHECK_STR(f.interp, "/lib/ld64.so");
		CHECK(f.needed.n == 2);
		if (f.needed.n == 2) {
			CHECK_STR(f.needed.v[0], "libfoo.so.1");
			CHECK_STR(f.needed.v[1], "libbar.so.2");
		}
		CHECK_STR(f.runpath, "$ORIGIN/../lib");
		CHECK(!f.rpath);
		CHECK(f.n_dlopen == 1);
		if (f.n_dlopen == 1)
			CHECK_STR(f.dlopen[0].sonames.v[0], "libz.so.1");
		elf_file_free(&f);

		/* Each damage is named. */
		build_elf(p, is64, be, 1000, 0x10300);
		CHECK(elf_parse(p, sizeof(p), "built", &f) < 0);
		CHECK_STR(err_msg(), "built: malformed ELF: dynamic string offset 1000 out of range");
		build_elf(p, is64, be, 13, 0x90000);
		CHECK(elf_parse(p, sizeof(p), "built", &f) < 0);
		CHECK_STR(err_msg(), "built: malformed ELF: dynamic string table not in any loaded segment");
		build_elf(p, is64, be, 13, 0x10300);
		CHECK(elf_parse(p, 0x580, "built", &f) < 0);
		CHECK_STR(err_msg(), "built: malformed ELF: segment 0 beyond end of file");
		/* A string table running off its segment is cut at the segment. */
		build_elf(p, is64, be, 13, 0x105f8);
		memcpy(p + 0x5f8, "abcdefgh", 8);
		CHECK(elf_parse(p, sizeof(p), "built", &f) < 0);
		CHECK_STR(err_msg(), "built: malformed ELF: dynamic string offset 1 out of range");
	}
}

/* Copy /bin/ls into tmp with `len` bytes at `off` replaced. */
static char *patched_ls(const char *name, size_t off, const void *bytes, size_t len, size_t trunc)
{
	char *data, *path = xasprintf("%s/%s", tmp, name);
	size_t n;
	int fd;

	if (read_file("/bin/ls", &data, &n) < 0)
		abort();
	if (off + len <= n)
		memcpy(data + off, bytes, len);
	if (trunc && trunc < n)
		n = trunc;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write_all(fd, data, n) < 0)
		abort();
	close(fd);
	free(data);
	return path;
}

static void expect_malformed(const char *path, const char *what)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new();
	char *want = xasprintf("%s: malformed ELF: %s", path, what);

	CHECK(elf_add_binary(r, img, path) < 0);
	CHECK_STR(err_msg(), want);
	free(want);
	image_free(img);
	elf_resolver_free(r);
}

static void test_malformed(void)
{
	struct elf_file f;
	char *data, *p;
	size_t n;
	uint64_t big = 0x7fffffffffff0000ull;
	uint16_t many = 0xfff0;

	p = patched_ls("trunc", 0, "", 0, 40);
	expect_malformed(p, "truncated header");
	free(p);
	p = patched_ls("phoff", 32, &big, 8, 0); /* e_phoff */
	expect_malformed(p, "program headers out of range");
	free(p);
	p = patched_ls("phnum", 56, &many, 2, 0); /* e_phnum */
	expect_malformed(p, "program headers out of range");
	free(p);
	p = patched_ls("class", 4, "\x07", 1, 0);
	expect_malformed(p, "unknown class 7");
	free(p);

	/* Cut at half: segments now reach past the end of the file. */
	CHECK(read_file("/bin/ls", &data, &n) == 0);
	CHECK(elf_parse(data, n / 2, "half", &f) < 0);
	CHECK(str_has_prefix(err_msg(), "half: malformed ELF: segment "));
	CHECK(elf_parse(data, n, "ls", &f) == 1);
	CHECK(f.interp && f.needed.n > 0);
	elf_file_free(&f);

	/* Random damage in the headers and the dynamic section must give
	 * an answer (ELF, not ELF, or an error), never a crash: ASan and
	 * the bounds checks are what this exercises. */
	char *copy = xmalloc(n);
	unsigned seed = 12345;
	for (int i = 0; i < 3000; i++) {
		memcpy(copy, data, n);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245 + 12345;
			size_t at = (seed >> 8) % (i % 2 ? 4096 : n);
			copy[at] = (char)(seed >> 20);
		}
		int rc = elf_parse(copy, n, "fuzz", &f);
		CHECK(rc <= 1); /* a negative code, not ELF (0) or ELF (1) */
		if (rc == 1)
			elf_file_free(&f);
	}
	free(copy);
	free(data);

	CHECK(elf_parse("\177ELF", 4, "tiny", &f) < 0);
	CHECK_STR(err_msg(), "tiny: malformed ELF: truncated header");
	CHECK(elf_parse("#!/bin/sh\n", 10, "script", &f) == 0);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_timing(void)
{
	static const char *const bins[] = { "cryptsetup", "lvm", "mdadm", "busybox", "e2fsck" };
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new();
	double t0 = now_ms(), t1;

	for (size_t i = 0; i < ARRAY_SIZE(bins); i++)
		CHECK(elf_add_binary(r, img, bins[i]) == 0);
	t1 = now_ms();
	printf("# resolved %zu binaries in %.2f ms: %zu image entries\n", ARRAY_SIZE(bins),
	       t1 - t0, image_count(img));
	/* Generous bound: a few ms expected, a loaded CI box is slower. */
	CHECK(t1 - t0 < 500);
	image_free(img);
	elf_resolver_free(r);
}

/* bin with stub standing in for libfoo.so.1: the real foo and bar are
 * packed, and the log says why. */
static void real_library_packed(const char *bin, const char *stub, const char *foo,
				const char *bar, const char *why)
{
	struct elf_resolver *r = elf_resolver_new("");
	struct image *img = image_new();

	msgs_capture(LOG_INFO);
	elf_resolver_stand_in(r, "libfoo.so.1", stub);
	CHECK(elf_add_binary(r, img, bin) == 0);
	CHECK(image_has(img, foo) && image_has(img, bar));
	CHECK(strstr(msgs.p, why) != NULL);
	log_set_sink(NULL, NULL);
	image_free(img);
	elf_resolver_free(r);
}

/* elf_resolver_stand_in: prog needs libfoo.so.1, which needs libbar.so.1;
 * a stand-in libfoo.so.1 that needs nothing is packed at libfoo's name
 * and libbar stays out (nbd-client and GnuTLS, src/notls/). A stand-in
 * that is no ELF file, or a name the image already has, gives the real
 * library and its needs, as without one. */
static void test_stand_in(void)
{
	struct elf_resolver *r;
	struct image *img;
	char *bin, *foo, *bar, *stub, *text;

	if (!have_cc())
		SKIP("no C compiler");
	CHECK(run_shf("mkdir -p %s/s/bin %s/s/lib %s/s/stub && cd %s/s && "
		 "echo 'int bar(void) { return 41; }' > bar.c && "
		 "echo 'int bar(void); int foo(void) { return bar() + 1; }' > foo.c && "
		 "echo 'int foo(void) { return 42; }' > stub.c && "
		 "echo 'int foo(void); int main(void) { return foo() != 42; }' > main.c && "
		 "cc -shared -fPIC -Wl,-soname,libbar.so.1 -o lib/libbar.so.1 bar.c && "
		 "cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o lib/libfoo.so.1 foo.c lib/libbar.so.1 "
		 "-Wl,--enable-new-dtags,-rpath,'$ORIGIN' && "
		 "cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o stub/foo-stub.so stub.c && "
		 "cc -o bin/prog main.c lib/libfoo.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' && "
		 "echo 'int other(void) { return 42; }' > short.c && "
		 "cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o stub/short-stub.so short.c && "
		 "./bin/prog && echo text > stub/not-elf", tmp, tmp, tmp, tmp) == 0);
	bin = xasprintf("%s/s/bin/prog", tmp);
	foo = xasprintf("%s/s/lib/libfoo.so.1", tmp);
	bar = xasprintf("%s/s/lib/libbar.so.1", tmp);
	stub = xasprintf("%s/s/stub/foo-stub.so", tmp);
	text = xasprintf("%s/s/stub/not-elf", tmp);

	r = elf_resolver_new("");
	img = image_new();
	elf_resolver_stand_in(r, "libfoo.so.1", stub);
	CHECK(elf_add_binary(r, img, bin) == 0);
	CHECK(image_has(img, foo));
	CHECK(!image_has(img, bar));
	CHECK(!image_has(img, stub));
	image_free(img);
	elf_resolver_free(r);

	r = elf_resolver_new("");
	img = image_new();
	elf_resolver_stand_in(r, "libfoo.so.1", text);
	CHECK(elf_add_binary(r, img, bin) == 0);
	CHECK(image_has(img, foo));
	CHECK(image_has(img, bar));
	image_free(img);
	elf_resolver_free(r);

	r = elf_resolver_new("");
	img = image_new();
	CHECK(image_add_file(img, foo, foo, 0, 0) == 0);
	elf_resolver_stand_in(r, "libfoo.so.1", stub);
	CHECK(elf_add_binary(r, img, bin) == 0);
	CHECK(image_has(img, bar));
	image_free(img);
	elf_resolver_free(r);

	/* a binary asking a symbol version the stand-in does not define */
	CHECK(run_shf("cd %s/s && echo 'V1 { global: foo; local: *; };' > v.map && "
		 "cc -shared -fPIC -Wl,-soname,libfoo.so.1,--version-script=v.map -o lib/libfoo.so.1 "
		 "foo.c lib/libbar.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN' && "
		 "cc -o bin/vprog main.c lib/libfoo.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'",
		 tmp) == 0);
	{
		char *vbin = xasprintf("%s/s/bin/vprog", tmp);
		struct elf_symbols vs;
		CHECK(elf_symbols_path(vbin, &vs) == 1 && strv_contains(&vs.need_versions, "libfoo.so.1:V1"));
		elf_symbols_free(&vs);
		CHECK(elf_symbols_path(foo, &vs) == 1 && strv_contains(&vs.versions, "V1"));
		elf_symbols_free(&vs);
		real_library_packed(vbin, stub, foo, bar, "bin/vprog imports V1, which the stand-in ");
		free(vbin);
	}

	/* a stand-in without foo, which prog calls: the real library */
	free(stub);
	stub = xasprintf("%s/s/stub/short-stub.so", tmp);
	real_library_packed(bin, stub, foo, bar, "bin/prog imports foo, which the stand-in ");
	free(bin);
	free(foo);
	free(bar);
	free(stub);
	free(text);
}

/* The dynamic symbols, with either hash table telling their number. */
static void test_symbols(void)
{
	static const char *const styles[] = { "gnu", "sysv" };

	if (!have_cc())
		SKIP("no C compiler");
	for (size_t i = 0; i < 2; i++) {
		struct elf_symbols s;
		char *lib = xasprintf("%s/sym-%s.so", tmp, styles[i]);
		CHECK(run_shf("cd %s && echo 'int bar(void); int foo(void) { return bar() + 1; } "
			 "static int hidden(void) { return 0; } int (*keep)(void) = hidden;' > sym.c && "
			 "cc -shared -fPIC -Wl,--hash-style=%s -o %s sym.c",
			 tmp, styles[i], lib) == 0);
		CHECK(elf_symbols_path(lib, &s) == 1);
		CHECK(strv_contains(&s.defined, "foo") && strv_contains(&s.defined, "keep") && !strv_contains(&s.defined, "hidden"));
		CHECK(strv_contains(&s.undefined, "bar") && !strv_contains(&s.undefined, "foo"));
		elf_symbols_free(&s);
		free(lib);
	}
}

int main(void)
{
	log_init("test_elf", LOG_WARNING);
	if (!mkdtemp(tmp))
		return 1;
	RUN(test_bin_sh);
	RUN(test_ls);
	RUN(test_cryptsetup);
	RUN(test_lvm);
	RUN(test_mdadm_e2fsck);
	RUN(test_static_busybox);
	RUN(test_missing);
	RUN(test_shared_once);
	RUN(test_runpath_origin);
	RUN(test_stand_in);
	RUN(test_symbols);
	RUN(test_sysroot);
	RUN(test_musl);
	RUN(test_script);
	RUN(test_dlopen_note);
	RUN(test_dlopen_json);
	RUN(test_classes_and_byte_orders);
	RUN(test_malformed);
	RUN(test_timing);
	run_shf("rm -rf %s", tmp);
	return test_done();
}
