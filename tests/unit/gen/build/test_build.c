// SPDX-License-Identifier: GPL-2.0-or-later
/* The generator as a user runs it: the binary, its exit status, its one
 * line of error, and the file it leaves behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gen/compress/compress.h"
#include "cpio.h"
#include "err.h"
#include "gen/read/imagefile.h"
#include "gen/image/output.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *uniramfs, *init_bin, *kver, *tmpdir;

static char *build_cmd(const char *extra)
{
	return xasprintf("%s build --config /dev/null -k %s --init %s --microcode none %s 2>&1", uniramfs, kver,
			 init_bin, extra);
}

static int count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
			n++;
	closedir(d);
	return n;
}

static void test_deterministic(void)
{
	char *a = path_join(tmpdir, "det-a"), *b = path_join(tmpdir, "det-b");
	char *o1 = xasprintf("-o %s --add-modules ext4 --compress zstd", a);
	char *o2 = xasprintf("-o %s --add-modules ext4 --compress zstd", b);
	char *c1 = build_cmd(o1), *c2 = build_cmd(o2);
	CHECK(run_capture(c1, NULL) == 0);
	CHECK(run_capture(c2, NULL) == 0);
	CHECK(same_file(a, b));
	free(a), free(b), free(o1), free(o2), free(c1), free(c2);
}

struct seen {
	int init, console, null, kver, ext4, release;
	char last[4096];
	char links[64][256]; /* symlinks met: nothing may be written below one */
	int nlinks, below_link, usr_modules, lib_link;
	int sorted, uid_nonzero, mtime_wrong;
};

static bool below_link(const struct seen *s, const char *name)
{
	for (int i = 0; i < s->nlinks; i++) {
		size_t n = strlen(s->links[i]);
		if (!strncmp(name, s->links[i], n) && name[n] == '/')
			return true;
	}
	return false;
}

static int collect(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *data, void *u)
{
	struct seen *s = u;
	(void)seg, (void)c, (void)data;
	if (strcmp(e->name, "init") == 0 && S_ISREG(e->mode) && (e->mode & 0111))
		s->init++;
	if (strcmp(e->name, "dev/console") == 0 && S_ISCHR(e->mode) && e->rdev_major == 5 && e->rdev_minor == 1)
		s->console++;
	if (strcmp(e->name, "dev/null") == 0 && S_ISCHR(e->mode) && e->rdev_major == 1 && e->rdev_minor == 3)
		s->null++;
	if (strcmp(e->name, "etc/uniramfs/kver") == 0 && e->size == strlen(kver) + 1 &&
	    memcmp(data, kver, strlen(kver)) == 0)
		s->kver++;
	/* systemd's in_initrd() looks for it */
	static const char release[] = "NAME=\"uniramfs\"\nID=uniramfs\n";
	if (strcmp(e->name, "etc/initrd-release") == 0 && S_ISREG(e->mode) &&
	    e->size > sizeof(release) && memcmp(data, release, sizeof(release) - 1) == 0)
		s->release++;
	if (strstr(e->name, "/ext4.ko")) {
		/* Secure Boot checks the appended signature: the module must
		 * be the host's file byte for byte. */
		char *host = xasprintf("/lib/modules/%s/kernel/fs/ext4/ext4.ko", kver), *d = NULL;
		size_t len = 0;
		static const char sig[] = "~Module signature appended~\n";
		if (read_file(host, &d, &len) == 0 && len == e->size && memcmp(d, data, len) == 0 &&
		    (len < sizeof(sig) || memcmp(d + len - (sizeof(sig) - 1), sig, sizeof(sig) - 1) != 0 ||
		     memcmp(data + len - (sizeof(sig) - 1), sig, sizeof(sig) - 1) == 0))
			s->ext4++;
		free(d);
		free(host);
	}
	if (below_link(s, e->name))
		s->below_link++;
	if (S_ISLNK(e->mode) && s->nlinks < 64)
		snprintf(s->links[s->nlinks++], sizeof(s->links[0]), "%s", e->name);
	if (S_ISLNK(e->mode) && strcmp(e->name, "lib") == 0 && e->size == 7 && memcmp(data, "usr/lib", 7) == 0)
		s->lib_link++;
	if (strncmp(e->name, "usr/lib/modules/", 16) == 0 && strstr(e->name, "/ext4.ko"))
		s->usr_modules++;
	if (strcmp(s->last, e->name) >= 0)
		s->sorted++;
	snprintf(s->last, sizeof(s->last), "%s", e->name);
	if (e->uid || e->gid)
		s->uid_nonzero++;
	if (e->mtime != 1234567)
		s->mtime_wrong++;
	return 0;
}

static void test_image_contents(void)
{
	char *img = path_join(tmpdir, "contents");
	char *o = xasprintf("-o %s --add-modules ext4 --compress gzip --squashfs no", img);
	char *c = build_cmd(o);
	char *cmd = xasprintf("SOURCE_DATE_EPOCH=1234567 %s", c);
	struct seen s = { 0 };
	struct stat st;
	CHECK(run_capture(cmd, NULL) == 0);
	CHECK(stat(img, &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK(image_foreach(img, collect, &s) == 0);
	CHECK(s.init == 1 && s.console == 1 && s.null == 1 && s.kver == 1 && s.ext4 == 1 && s.release == 1);
	CHECK(s.sorted == 0 && s.below_link == 0);
	CHECK(s.uid_nonzero == 0);
	CHECK(s.mtime_wrong == 0);
	free(img), free(o), free(c), free(cmd);
}

/* A usrmerged host has lib -> usr/lib: a dynamic binary brings the link
 * in, and every entry goes in under its real path (usr/lib/modules/...),
 * never through a link the image holds, as the kernel would follow it. */
static void test_canonical_paths(void)
{
	char *img = path_join(tmpdir, "canonical");
	char *o = xasprintf("-o %s --add-modules ext4 --add-binaries sh --add-files /etc/hostname:/lib/x/hostname "
			    "--squashfs no", img);
	char *c = build_cmd(o);
	char target[16] = "";
	struct seen s = { 0 };
	ssize_t n = readlink("/lib", target, sizeof(target) - 1);

	if (n != 7 || memcmp(target, "usr/lib", 7) != 0)
		SKIP("host is not usrmerged (/lib -> usr/lib)");
	CHECK(run_capture(c, NULL) == 0);
	CHECK(image_foreach(img, collect, &s) == 0);
	CHECK(s.lib_link == 1);
	CHECK(s.ext4 == 1 && s.usr_modules == 1);
	CHECK(s.below_link == 0);
	CHECK(s.sorted == 0);
	free(img), free(o), free(c);
}

struct squash_seen {
	int sqfs_first, other_in_seg0, ext4_link, ext4_stored, isofs_link, loop_file, squashfs_file, sh_link;
	unsigned main_seg;
	char sqfs_dir[64];
};

static int squash_collect(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *data,
			  void *u)
{
	struct squash_seen *s = u;
	char *ext4 = xasprintf("/uniramfs.stored/usr/lib/modules/%s/kernel/fs/ext4/ext4.ko", kver);
	char *isofs = xasprintf("/uniramfs.sqfs.d/usr/lib/modules/%s/kernel/fs/isofs/isofs.ko", kver);

	/* segments count from 1 */
	if (seg == 1 && c == COMP_NONE && !strcmp(e->name, "uniramfs.sqfs") && S_ISREG(e->mode) &&
	    e->size > 4 && !memcmp(data, "hsqs", 4))
		s->sqfs_first++;
	else if (seg == 1 && !strcmp(e->name, ext4 + 1) && S_ISREG(e->mode))
		s->ext4_stored++;
	else if (seg == 1 && !str_has_prefix(e->name, "uniramfs.stored"))
		s->other_in_seg0++;
	if (seg > 1 && c == COMP_ZSTD)
		s->main_seg = seg;
	if (strstr(e->name, "/ext4.ko") && S_ISLNK(e->mode) && e->size == strlen(ext4) &&
	    !memcmp(data, ext4, e->size))
		s->ext4_link++;
	if (strstr(e->name, "/isofs.ko") && S_ISLNK(e->mode) && e->size == strlen(isofs) &&
	    !memcmp(data, isofs, e->size))
		s->isofs_link++;
	/* what mounts it stays a file */
	if (strstr(e->name, "/loop.ko") && S_ISREG(e->mode))
		s->loop_file++;
	if (strstr(e->name, "/squashfs.ko") && S_ISREG(e->mode))
		s->squashfs_file++;
	if (!strcmp(e->name, "usr/bin/dash") && S_ISLNK(e->mode) && e->size == strlen("/uniramfs.sqfs.d/usr/bin/dash"))
		s->sh_link++;
	free(ext4);
	free(isofs);
	return 0;
}

/* A generic image's programs and modules go into the squashfs segment:
 * the uncompressed segment holds it, the main one symlinks into its
 * mount, and inside it isofs.ko is the host's file byte for byte
 * (rdsquashfs reads it back). The common roots' modules (ext4 here) are
 * stored beside it uncompressed, linked to from the main segment, the
 * host's file byte for byte too. */
static void test_squashfs_segment(void)
{
	char *img = path_join(tmpdir, "squash.img"), *dir = path_join(tmpdir, "squash.d");
	char *o = xasprintf("-o %s --add-modules ext4,isofs --add-binaries dash --squashfs yes", img);
	char *c = build_cmd(o), *cmd = NULL, *out = NULL;
	struct squash_seen s = { 0 };

	if (system("command -v gensquashfs >/dev/null && command -v rdsquashfs >/dev/null") != 0)
		SKIP("no gensquashfs/rdsquashfs (squashfs-tools-ng)");
	CHECK(run_capture(c, NULL) == 0);
	CHECK(image_foreach(img, squash_collect, &s) == 0);
	CHECK(s.sqfs_first == 1 && s.other_in_seg0 == 0 && s.main_seg == 2);
	CHECK(s.ext4_link == 1 && s.ext4_stored == 1 && s.isofs_link == 1);
	CHECK(s.loop_file == 1 && s.squashfs_file == 1 && s.sh_link == 1);
	/* the squashfs as the kernel gets it, read back */
	cmd = xasprintf("mkdir -p %s && %s extract %s %s >/dev/null 2>&1 && rdsquashfs -q -c "
			"/usr/lib/modules/%s/kernel/fs/isofs/isofs.ko %s/uniramfs.sqfs | cmp - /lib/modules/%s/kernel/fs/isofs/isofs.ko"
			" && cmp %s/uniramfs.stored/usr/lib/modules/%s/kernel/fs/ext4/ext4.ko /lib/modules/%s/kernel/fs/ext4/ext4.ko",
			dir, uniramfs, img, dir, kver, dir, kver, dir, kver, kver);
	CHECK(run_capture(cmd, &out) == 0);
	free(img), free(dir), free(o), free(c), free(cmd), free(out);
}

/* squashfs = yes where it cannot be: the reason, and no image. */
static void test_squashfs_refused(void)
{
	char *img = path_join(tmpdir, "squash-none.img");
	char *o = xasprintf("-o %s --add-modules ext4 --compress none --squashfs yes", img);
	char *c = build_cmd(o), *out = NULL;

	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: squashfs = yes: the image is not compressed (compress = none)\n");
	CHECK(access(img, F_OK) < 0);
	free(o), free(c), free(out);
	out = NULL;

	/* the kernel's config says loop=m, but the image has no loop to
	 * mount the segment with (an image with no modules at all) */
	if (system("command -v gensquashfs >/dev/null") != 0)
		SKIP("no gensquashfs (squashfs-tools-ng)");
	o = xasprintf("-o %s --add-modules ext4 --omit-modules loop --squashfs yes", img);
	c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: squashfs = yes: the module loop is not in the image\n");
	CHECK(access(img, F_OK) < 0);
	free(img), free(o), free(c), free(out);
}

static void write_old(const char *path)
{
	FILE *f = fopen(path, "w");
	fputs("OLD IMAGE\n", f);
	fclose(f);
}

static bool is_old(const char *path)
{
	char *d = NULL;
	bool r = read_file(path, &d, NULL) == 0 && strcmp(d, "OLD IMAGE\n") == 0;
	free(d);
	return r;
}

static void test_failed_build_keeps_old_image(void)
{
	char *dir = path_join(tmpdir, "fail"), *img, *o, *c, *out = NULL;
	mkdir_p(dir, 0755);
	img = path_join(dir, "initrd.img");
	write_old(img);
	o = xasprintf("-o %s --add-modules no_such_module_xyz", img);
	c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	char *want = xasprintf("uniramfs: error: module 'no_such_module_xyz' not found for kernel %s\n", kver);
	CHECK_STR(out, want);
	CHECK(is_old(img));
	CHECK(count_dir(dir) == 1);
	free(dir), free(img), free(o), free(c), free(out), free(want);
}

static void test_killed_build_keeps_old_image(void)
{
	char *dir = path_join(tmpdir, "kill"), *img;
	pid_t pid;
	int st;
	if (!compression_built_in(COMP_XZ)) {
		free(dir);
		SKIP("xz is not built in");
	}
	mkdir_p(dir, 0755);
	img = path_join(dir, "initrd.img");
	write_old(img);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		char *o = xasprintf("-o %s --compress xz --compress-level 9", img);
		char *c = build_cmd(o);
		execl("/bin/sh", "sh", "-c", c + 0, (char *)NULL);
		_exit(127);
	}
	/* xz -9 over a generic image takes seconds: kill it mid-stream. */
	struct timespec ts = { 0, 600 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	CHECK(kill(-pid, SIGKILL) == 0);
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(is_old(img));
	CHECK(count_dir(dir) == 1);
	free(dir), free(img);
}

static void test_missing_kernel(void)
{
	char *out = NULL;
	char *c = xasprintf("%s build --config /dev/null -k 0.0-nonexistent -o %s/x 2>&1", uniramfs, tmpdir);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, "uniramfs: error: kernel version '0.0-nonexistent' not found: no module directory "
		       "/lib/modules/0.0-nonexistent\n");
	CHECK(strchr(out, '\n') == out + strlen(out) - 1);
	free(c), free(out);
}

static void test_missing_binary(void)
{
	char *out = NULL;
	char *o = xasprintf("-o %s/x --add-binaries no-such-binary-xyz", tmpdir);
	char *c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	/* warnings (missing firmware) may come first; the error is the one last line */
	const char *last = strstr(out, "uniramfs: error: ");
	CHECK_STR(last, "uniramfs: error: binary 'no-such-binary-xyz' not found in PATH\n");
	free(o), free(c), free(out);
}

/* Without its library a format is refused before any work, naming the
 * option that builds it in; runs in a build that leaves one out. */
static void test_compress_not_built_in(void)
{
	static const struct {
		enum compression c;
		const char *option;
	} opt[] = { { COMP_ZSTD, "zstd" }, { COMP_XZ, "xz" }, { COMP_LZ4, "lz4" }, { COMP_GZIP, "zlib" } };
	int tried = 0;
	for (size_t i = 0; i < ARRAY_SIZE(opt); i++) {
		const char *name = compression_name(opt[i].c);
		char *o, *c, *out = NULL, *want;
		if (compression_built_in(opt[i].c))
			continue;
		o = xasprintf("-o %s/nb.img --compress %s", tmpdir, name);
		c = build_cmd(o);
		want = xasprintf("uniramfs: error: --compress: compression \"%s\" is not built in (meson -D%s=enabled)\n",
				 name, opt[i].option);
		CHECK(run_capture(c, &out) == 1);
		CHECK_STR(out, want);
		free(o), free(c), free(out), free(want);
		tried++;
	}
	if (!tried)
		SKIP("every compression is built in (meson -Dxz=disabled tests this)");
}

static void test_flags_win_over_config(void)
{
	if (!compression_built_in(COMP_LZ4))
		SKIP("lz4 is not built in");
	char *conf = path_join(tmpdir, "flags.conf"), *img = path_join(tmpdir, "flags.img");
	FILE *f = fopen(conf, "w");
	fprintf(f, "compress = none\nkver = 0.0-wrong\n");
	fclose(f);
	char *c = xasprintf("%s build --config %s -k %s --init %s --microcode none -o %s --compress lz4 "
			    "--add-modules ext4 --squashfs no 2>&1", uniramfs, conf, kver, init_bin, img);
	char *d = NULL;
	size_t len;
	CHECK(run_capture(c, NULL) == 0);
	CHECK(read_file(img, &d, &len) == 0 && len > 4 && (uint8_t)d[0] == 0x02 && (uint8_t)d[1] == 0x21);
	free(d), free(c), free(conf), free(img);
}

static void test_bad_config_line(void)
{
	char *conf = path_join(tmpdir, "bad.conf"), *out = NULL;
	FILE *f = fopen(conf, "w");
	fprintf(f, "# ok\nadd-modules = ext4\nfrobnicate = yes\n");
	fclose(f);
	char *c = xasprintf("%s build --config %s 2>&1", uniramfs, conf);
	char *want = xasprintf("uniramfs: error: %s:3: unknown key 'frobnicate'\n", conf);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, want);
	free(c), free(conf), free(out), free(want);
}

/* The error is the one last line; warnings may come first. */
static const char *error_line(const char *out)
{
	const char *e = strstr(out, "uniramfs: error: ");
	return e ? e : out;
}

static int collect_full(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *data,
			void *u)
{
	struct seen *s = u;
	(void)seg, (void)c;
	/* one file, at its real path, with the first content */
	if (strcmp(e->name, "opt/real/f") == 0 && e->size == 2 && data[0] == 'A')
		s->init++;
	if (strcmp(e->name, "opt/alias") == 0 && S_ISLNK(e->mode))
		s->console++;
	return 0;
}

/* Links the image holds are followed for what is added below them: a
 * loop is an error, and two files meeting at one real path merge or
 * conflict as two adds of that path would. */
static void test_image_links_resolved(void)
{
	char *dir = path_join(tmpdir, "links"), *cmd, *o, *c, *out = NULL;
	cmd = xasprintf("mkdir -p %s/loop %s/d && ln -s l2 %s/loop/l && ln -s l %s/loop/l2 && "
			"ln -s real %s/d/alias && mkdir %s/d/real && echo A > %s/a && echo B > %s/b",
			dir, dir, dir, dir, dir, dir, dir, dir);
	CHECK(system(cmd) == 0);
	o = xasprintf("-o %s/l.img --add-files %s/loop:/opt --add-files %s/a:/opt/l/f", tmpdir, dir, dir);
	c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(error_line(out), "uniramfs: error: /opt/l/f: too many levels of symbolic links in the image\n");
	free(o), free(c), free(out);
	o = xasprintf("-o %s/l.img --add-files %s/d:/opt --add-files %s/a:/opt/alias/f --add-files %s/b:/opt/real/f",
		      tmpdir, dir, dir, dir);
	c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(error_line(out), "uniramfs: error: /opt/real/f: added twice with different contents\n");
	free(o), free(c), free(out);
	o = xasprintf("-o %s/l.img --add-files %s/d:/opt --add-files %s/a:/opt/alias/f --add-files %s/a:/opt/real/f",
		      tmpdir, dir, dir, dir);
	c = build_cmd(o);
	CHECK(run_capture(c, &out) == 0);
	struct seen sn = { 0 };
	char *img = xasprintf("%s/l.img", tmpdir);
	CHECK(image_foreach(img, collect, &sn) == 0);
	CHECK(sn.below_link == 0);
	sn.init = sn.console = 0;
	CHECK(image_foreach(img, collect_full, &sn) == 0);
	CHECK(sn.init == 1 && sn.console == 1);
	free(img), free(o), free(c), free(out);
	free(dir), free(cmd);
}

/* Two sources for one destination: the error names it (it once read the
 * name after freeing it). */
static void test_conflicting_destinations(void)
{
	char *key = path_join(tmpdir, "conflict.key"), *out = NULL;
	FILE *f = fopen(key, "w");
	fputs("secret\n", f);
	fclose(f);
	char *o1 = xasprintf("-o %s/conflict.img --add-keys %s:/init", tmpdir, key);
	char *o2 = xasprintf("-o %s/conflict.img --add-keys %s:/etc/k --add-files /etc/hostname:/etc/k", tmpdir, key);
	char *c1 = build_cmd(o1), *c2 = build_cmd(o2);
	CHECK(run_capture(c1, &out) == 1);
	CHECK_STR(error_line(out), "uniramfs: error: /init: added twice with different contents\n");
	free(out);
	CHECK(run_capture(c2, &out) == 1);
	CHECK_STR(error_line(out), "uniramfs: error: /etc/k: added twice with different contents\n");
	free(out), free(key), free(o1), free(o2), free(c1), free(c2);
}

/* A file cannot be the root: it was dropped without a word. */
static void test_add_file_as_root(void)
{
	char *out = NULL, *o = xasprintf("-o %s/root.img --add-files /etc/hostname:/", tmpdir), *c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(error_line(out), "uniramfs: error: --add-files: '/etc/hostname:/': a file cannot be the image's "
				   "root (name the file: /etc/hostname:/DIR/NAME)\n");
	free(out), free(o), free(c);
}

/* -o is checked before any work: the error is all there is to read. */
static void test_output_checked_first(void)
{
	char *out = NULL, *o = xasprintf("-o %s", tmpdir), *c = build_cmd(o);
	char *want = xasprintf("uniramfs: error: -o %s: is a directory (give the image's file name)\n", tmpdir);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, want);
	free(out), free(o), free(c), free(want);
	o = xasprintf("-o %s/no-such-dir/x.img", tmpdir);
	c = build_cmd(o);
	want = xasprintf("uniramfs: error: -o %s/no-such-dir/x.img: output directory %s/no-such-dir: "
			 "No such file or directory\n", tmpdir, tmpdir);
	CHECK(run_capture(c, &out) == 1);
	CHECK_STR(out, want);
	free(out), free(o), free(c), free(want);
}

static size_t count_lines(const char *out, const char *needle)
{
	size_t n = 0;
	for (const char *p = out; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A generic build names firmware for hardware nobody has: one summary
 * line, -v lists the files; a hostonly build names each. */
static void test_missing_firmware_summary(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *o = xasprintf("-o %s/fw.img", tmpdir), *c = build_cmd(o), *out = NULL, *vout = NULL, *hout = NULL;
	char *v = xasprintf("%s -v", c);
	char *h = xasprintf("%s build --config /dev/null -k %s --init %s -o %s/fw-h.img --hostonly "
			    "--sysroot %s/tests/unit/fixtures/hostonly/virtio --kmoddir /lib/modules/%s "
			    "--add-modules ums-eneub6250 2>&1", uniramfs, kver, init_bin, tmpdir, src, kver);
	size_t n;
	CHECK(run_capture(v, &vout) == 0);
	n = count_lines(vout, "uniramfs: warning: firmware ");
	if (n == 0) {
		free(o), free(c), free(v), free(h), free(vout);
		SKIP("this kernel's generic set misses no firmware");
	}
	char *want = xasprintf("uniramfs: warning: %zu firmware file%s not found, -v lists %s\n", n,
			       n == 1 ? "" : "s", n == 1 ? "it" : "them");
	CHECK(run_capture(c, &out) == 0);
	CHECK(strstr(out, want) != NULL);
	CHECK(count_lines(out, "uniramfs: warning: firmware ") == 0);
	CHECK(strstr(vout, "not found, -v lists") == NULL);
	CHECK(run_capture(h, &hout) == 0);
	CHECK(count_lines(hout, "uniramfs: warning: firmware ene-ub6250/") > 0);
	CHECK(strstr(hout, "not found, -v lists") == NULL);
	free(o), free(c), free(v), free(h), free(out), free(vout), free(hout), free(want);
}

/* A resume device from initramfs-tools' RESUME= that the host lacks is
 * baked in as written, and said at build time. */
static void test_hostonly_resume_not_on_host(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *root = path_join(tmpdir, "resume-root"), *out = NULL;
	char *cp = xasprintf("cp -a %s/tests/unit/fixtures/hostonly/virtio %s && mkdir -p "
			     "%s/etc/initramfs-tools/conf.d && echo RESUME=UUID=0000-dead > "
			     "%s/etc/initramfs-tools/conf.d/resume", src, root, root, root);
	char *c = xasprintf("%s build --config /dev/null -k %s --init %s -o %s/resume.img --hostonly "
			    "--sysroot %s --kmoddir /lib/modules/%s 2>&1", uniramfs, kver, init_bin, tmpdir, root, kver);
	char *want = xasprintf("uniramfs: warning: resume device UUID=0000-dead (from "
			       "%s/etc/initramfs-tools/conf.d/resume) is not on this host: no "
			       "%s/dev/disk/by-uuid/0000-dead\n", root, root);
	CHECK(system(cp) == 0);
	CHECK(run_capture(c, &out) == 0);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		printf("# got: %s", out);
	free(root), free(out), free(cp), free(c), free(want);
}

/* A hostonly build whose root's crypttab needs a key file packs it only
 * with keyfile-pattern (issue 24, item 8): without it the build fails
 * naming the line and the setting, and the old image stays; with it
 * the build says where the image is readable. */
static void test_keyfile_needs_the_setting(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *root = path_join(tmpdir, "keyfile-root"), *dir = path_join(tmpdir, "keyfile"), *img, *c, *o;
	char *out = NULL, *want, *cp;

	if (access("/bin/busybox", X_OK) < 0)
		SKIP("no /bin/busybox (busybox-static)");
	cp = xasprintf("cp -a %s/tests/unit/fixtures/hostonly/luks %s && mkdir -p %s/usr/sbin %s/etc/keys && "
		       "cp /bin/busybox %s/usr/sbin/cryptsetup && cp /bin/busybox %s/usr/sbin/lvm && "
		       "echo 'luks-3f1a7c2e UUID=3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718 /etc/keys/root.key luks' "
		       "> %s/etc/crypttab && echo secret > %s/etc/keys/root.key",
		       src, root, root, root, root, root, root, root);
	CHECK(system(cp) == 0);
	mkdir_p(dir, 0755);
	img = path_join(dir, "initrd.img");
	write_old(img);
	o = xasprintf("-o %s --hostonly --sysroot %s --kmoddir /lib/modules/%s", img, root, kver);
	c = build_cmd(o);
	CHECK(run_capture(c, &out) == 1);
	want = xasprintf("uniramfs: error: %s/etc/crypttab line 'luks-3f1a7c2e UUID=3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718 "
			 "/etc/keys/root.key luks' needs the key file /etc/keys/root.key in the image, which a hostonly "
			 "image packs only when the owner sets keyfile-pattern = /etc/keys/root.key (or a glob matching "
			 "it; anyone who can read the image then has the key): nothing is written\n", root);
	CHECK_STR(error_line(out), want);
	CHECK(is_old(img));
	CHECK(count_dir(dir) == 1);
	free(want), free(c), free(out), out = NULL;
	/* a glob that does not match is no choice either */
	c = xasprintf("%s --keyfile-pattern '/etc/other/*'", o);
	want = build_cmd(c);
	CHECK(run_capture(want, &out) == 1 && is_old(img));
	free(want), free(c), free(out), out = NULL;
	c = xasprintf("%s --keyfile-pattern '/etc/keys/*.key'", o);
	free(o);
	o = build_cmd(c);
	free(c);
	c = o;
	o = NULL;
	CHECK(run_capture(c, &out) == 0);
	want = xasprintf("uniramfs: %s holds LUKS key material: the image in %s is readable by anyone with the disk "
			 "unless %s is encrypted, and so is every copy of it (an ESP, a backup); docs/unlock.md says "
			 "what it exposes\n", img, dir, dir);
	CHECK(out && strstr(out, want));
	if (!out || !strstr(out, want))
		printf("# got: %s", out ? out : "");
	CHECK(!is_old(img));
	free(want), free(c), free(out), free(o), free(img), free(cp), free(dir), free(root);
}

struct names {
	struct strv v;
};

static int collect_names(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *data,
			 void *u)
{
	(void)seg, (void)c, (void)data;
	const char *slash = strrchr(e->name, '/');
	strv_push(&((struct names *)u)->v, slash ? slash + 1 : e->name);
	return 0;
}

/* A fixture sysroot describes a virtio guest: the image must hold its
 * drivers and filesystem and nothing for other buses; with no
 * /proc/cpuinfo there, microcode=auto quietly goes without. */
static void test_hostonly_fixture(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *img = path_join(tmpdir, "hostonly.img");
	char *c = xasprintf("%s build --config /dev/null -k %s --init %s -o %s --hostonly "
			    "--sysroot %s/tests/unit/fixtures/hostonly/virtio --kmoddir /lib/modules/%s 2>&1",
			    uniramfs, kver, init_bin, img, src, kver);
	struct names n = { 0 };
	CHECK(run_capture(c, NULL) == 0);
	CHECK(image_foreach(img, collect_names, &n) == 0);
	CHECK(strv_contains(&n.v, "virtio_blk.ko"));
	CHECK(strv_contains(&n.v, "virtio_pci.ko"));
	CHECK(strv_contains(&n.v, "ext4.ko"));
	CHECK(strv_contains(&n.v, "jbd2.ko"));
	CHECK(!strv_contains(&n.v, "nvme.ko"));
	CHECK(!strv_contains(&n.v, "ahci.ko"));
	CHECK(!strv_contains(&n.v, "GenuineIntel.bin"));
	strv_free(&n.v);
	free(c), free(img);
}

/* --kdump (docs/kdump.md): the fixture's machine with makedumpfile, the
 * kdump plugin's hook, and a busybox and e2fsck the image leaves out. */
static void test_kdump(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR"), *bld = getenv("UNIRAMFS_BUILDDIR");
	char *root = path_join(tmpdir, "kdump-root"), *img = path_join(tmpdir, "kdump.img");
	char *prog = xasprintf("%s/src/plugins/kdump/uniramfs-kdump", bld), *out = NULL, *c, *x, *line = NULL;
	struct names n = { 0 };
	size_t len;

	if (access("/usr/bin/makedumpfile", X_OK) != 0 || access("/bin/busybox", X_OK) != 0 ||
	    access("/sbin/e2fsck", X_OK) != 0)
		SKIP("makedumpfile, busybox or e2fsck not installed");
	/* the host's programs at their paths in the sysroot, with their libraries */
	CHECK(run_shf("cp -a %s/tests/unit/fixtures/hostonly/virtio %s && for b in /usr/bin/makedumpfile %s "
		      "/bin/busybox /sbin/e2fsck; do for f in $b $(ldd $b 2>/dev/null | grep -o '/[^ ]*'); do "
		      "mkdir -p %s$(dirname $f) && cp -L $f %s$f || exit 1; done; done",
		      src, root, prog, root, root) == 0);
	c = xasprintf("%s build --config /dev/null -k %s --init %s -o %s --kdump --sysroot %s --kmoddir "
		      "/lib/modules/%s 2>&1", uniramfs, kver, init_bin, img, root, kver);
	CHECK(run_capture(c, &out) == 0);
	CHECK(out && strstr(out, ", kdump, "));
	free(out), free(c);
	CHECK(image_foreach(img, collect_names, &n) == 0);
	CHECK(strv_contains(&n.v, "makedumpfile"));
	CHECK(strv_contains(&n.v, "uniramfs-kdump"));
	CHECK(strv_contains(&n.v, "liblzo2.so.2"));
	CHECK(strv_contains(&n.v, "virtio_blk.ko"));
	CHECK(strv_contains(&n.v, "ext4.ko"));
	/* hostonly; no rescue shell, checker, shutdown program or squashfs */
	CHECK(!strv_contains(&n.v, "ahci.ko"));
	CHECK(!strv_contains(&n.v, "busybox"));
	CHECK(!strv_contains(&n.v, "e2fsck"));
	CHECK(!strv_contains(&n.v, "shutdown"));
	CHECK(!strv_contains(&n.v, "uniramfs.sqfs"));
	strv_free(&n.v);
	x = path_join(tmpdir, "kdump-x");
	CHECK(run_shf("%s extract %s %s >/dev/null", uniramfs, img, x) == 0);
	c = path_join(x, "usr/lib/uniramfs/hooks/pre-pivot/uniramfs-kdump");
	CHECK(access(c, X_OK) == 0);
	free(c);
	/* a swap's hibernation image is never the crash kernel's */
	c = path_join(x, "etc/uniramfs/cmdline");
	CHECK(read_file(c, &line, &len) == 0);
	CHECK_STR(line, "noresume\n");
	free(line), free(c), free(x);

	/* the plugin's program missing is said with the plugin's line */
	CHECK(run_shf("rm %s/usr/bin/makedumpfile", root) == 0);
	c = xasprintf("%s build --config /dev/null -k %s --init %s -o %s --kdump --sysroot %s --kmoddir "
		      "/lib/modules/%s 2>&1", uniramfs, kver, init_bin, img, root, kver);
	CHECK(run_capture(c, &out) != 0);
	x = xasprintf("uniramfs: error: --kdump: makedumpfile is not installed (%s/plugins/kdump.conf:12); "
		      "apt install makedumpfile\n", bld);
	CHECK_STR(out, x);
	free(x), free(out), free(c);

	/* one kernel's image, for kexec: never --all, --uki or a list */
	c = xasprintf("%s build --config /dev/null --kdump --all 2>&1", uniramfs);
	CHECK(run_capture(c, &out) != 0);
	CHECK_STR(out, "uniramfs: error: --kdump makes one kernel's crash image (-k KVER), not --all\n");
	free(out), free(c);
	c = xasprintf("%s build --config /dev/null -k %s --kdump --uki %s/k.efi 2>&1", uniramfs, kver, tmpdir);
	CHECK(run_capture(c, &out) != 0);
	CHECK_STR(out, "uniramfs: error: --kdump makes an image for kexec -p, not a --uki (kexec loads a kernel and "
		       "an image)\n");
	free(out), free(c);
	free(root), free(img), free(prog);
}

/* A hostonly image records what it was made for; --fallback writes a
 * generic image beside it first, and the record names it. */
static void test_hostonly_fallback(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *img = path_join(tmpdir, "ho.img"), *fb = path_join(tmpdir, "ho-fallback.img");
	char *c = xasprintf("%s build --config /dev/null -k %s --init %s -o %s --hostonly --fallback "
			    "--sysroot %s/tests/unit/fixtures/hostonly/virtio --kmoddir /lib/modules/%s 2>&1",
			    uniramfs, kver, init_bin, img, src, kver);
	char *out = NULL, *x = path_join(tmpdir, "ho-x"), *rec = NULL, *want;
	struct names n = { 0 };
	size_t len;

	CHECK(run_capture(c, NULL) == 0);
	CHECK(access(fb, F_OK) == 0);
	CHECK(image_foreach(fb, collect_names, &n) == 0);
	CHECK(strv_contains(&n.v, "ahci.ko")); /* generic: every controller */
	CHECK(!strv_contains(&n.v, "hostonly"));
	strv_free(&n.v);
	free(c);
	c = xasprintf("%s extract %s %s >/dev/null 2>&1", uniramfs, img, x);
	CHECK(run_capture(c, NULL) == 0);
	free(c);
	c = path_join(x, "etc/uniramfs/hostonly");
	CHECK(read_file(c, &rec, &len) == 0);
	want = xasprintf("fstype=ext4\ndrivers=virtio_blk,virtio_pci\nfallback=%s\n", fb);
	CHECK(rec && strstr(rec, want));
	free(want), free(rec), free(c);

	/* a generic image needs none */
	c = xasprintf("%s build --config /dev/null -k %s --init %s -o %s/g.img --generic --fallback 2>&1",
		      uniramfs, kver, init_bin, tmpdir);
	CHECK(run_capture(c, &out) != 0);
	CHECK(out && strstr(out, "--fallback goes with --hostonly (a generic image needs no fallback)"));
	free(out), free(c), free(x), free(fb), free(img);
}

/* The image's sink: what it is given reaches the file, in order, in
 * pieces smaller and larger than its buffer. */
static void test_output_sink_writes_everything(void)
{
	char *path = path_join(tmpdir, "sink.out"), *got = NULL;
	uint8_t *data = xmalloc(400000);
	struct output out = { .fd = -1, .dirfd = -1 };
	struct sink *s;
	size_t len = 0;

	for (size_t i = 0; i < 400000; i++)
		data[i] = (uint8_t)(i * 7 + i / 251);
	out.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(out.fd >= 0);
	s = output_sink_new(&out);
	CHECK(sink_write(s, data, 3) == 0);
	CHECK(sink_write(s, data + 3, 300000) == 0);
	CHECK(sink_write(s, data + 300003, 99997) == 0);
	CHECK(sink_finish(s) == 0);
	CHECK(output_sink_total(s) == 400000);
	sink_free(s);
	close(out.fd);
	CHECK(read_file(path, &got, &len) == 0 && len == 400000 && memcmp(got, data, len) == 0);
	free(got), free(data), free(path);
}

/* A full filesystem (/dev/full: every write is ENOSPC) does not stop the
 * stream: the sink goes on counting, so the build learns the image's
 * whole size for its message, and the finish says -ENOSPC. */
static void test_output_sink_counts_past_full_disk(void)
{
	struct output out = { .fd = -1, .dirfd = -1 };
	uint8_t *data = xcalloc(1, 300000);
	struct sink *s;

	out.fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (out.fd < 0) {
		free(data);
		SKIP("no /dev/full");
	}
	s = output_sink_new(&out);
	CHECK(sink_write(s, data, 200000) == 0);
	CHECK(sink_write(s, data, 300000) == 0);
	CHECK(sink_write(s, data, 5) == 0);
	CHECK(sink_finish(s) == -ENOSPC);
	CHECK(output_sink_total(s) == 500005);
	sink_free(s);
	close(out.fd);
	free(data);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-build-XXXXXX";

	if (!find_binaries(&uniramfs, &init_bin, &kver)) {
		printf("1..0 # SKIP no build dir or no installed kernel\n");
		return 0;
	}
	tmpdir = xstrdup(mkdtemp(tmpl));
	RUN(test_deterministic);
	RUN(test_image_contents);
	RUN(test_canonical_paths);
	RUN(test_failed_build_keeps_old_image);
	RUN(test_killed_build_keeps_old_image);
	RUN(test_missing_kernel);
	RUN(test_missing_binary);
	RUN(test_flags_win_over_config);
	RUN(test_squashfs_segment);
	RUN(test_squashfs_refused);
	RUN(test_compress_not_built_in);
	RUN(test_bad_config_line);
	RUN(test_hostonly_fixture);
	RUN(test_hostonly_fallback);
	RUN(test_image_links_resolved);
	RUN(test_conflicting_destinations);
	RUN(test_add_file_as_root);
	RUN(test_output_checked_first);
	RUN(test_missing_firmware_summary);
	RUN(test_hostonly_resume_not_on_host);
	RUN(test_keyfile_needs_the_setting);
	RUN(test_kdump);
	RUN(test_output_sink_writes_everything);
	RUN(test_output_sink_counts_past_full_disk);
	char *rm = xasprintf("rm -rf %s", tmpdir);
	if (system(rm) != 0)
		printf("# could not remove %s\n", tmpdir);
	free(rm);
	return test_done();
}
