// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs extract` against crafted images: what it makes, and what it
 * refuses, with both ways of resolving paths (openat2 and the walk). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "err.h"
#include "gen/read/extract_path.h"
#include "image_helpers.h"
#include "gen/read/imagefile.h"
#include "log.h"
#include "test.h"
#include "util.h"

static struct buf logged;

static void log_to_buf(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)userdata;
	buf_printf(&logged, "%s\n", msg);
}

/* Extract ents (one xz archive after an early plain one) into dir/out;
 * returns what image_extract returned. */
static int extract_ents(const char *dir, const struct ent *ents, size_t n, unsigned flags)
{
	static const struct ent early[] = {
		{ "kernel/x86/microcode/GenuineIntel.bin", S_IFREG | 0644, "ucode", 0, 0, 0, 0, 0, 0 },
	};
	struct buf img = { 0 };
	char *path, *out = path_join(dir, "out");
	int r;

	add_archive(&img, COMP_NONE, early, ARRAY_SIZE(early));
	add_archive(&img, COMP_XZ, ents, n);
	path = write_tmp(dir, "test.img", &img);
	logged.len = 0;
	log_set_sink(log_to_buf, NULL);
	r = image_extract(path, out, flags);
	log_set_sink(NULL, NULL);
	if (r != 0)
		printf("# %s\n", err_msg());
	free(path);
	free(out);
	buf_free(&img);
	return r;
}

static const struct ent tree[] = {
	{ ".", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
	{ "etc", S_IFDIR | 0750, NULL, 0, 0, 0, 0, 0, 0 },
	{ "etc/hello", S_IFREG | 0640, "hello\n", 0, 0, 0, 0, 0, 0 },
	{ "etc/link", S_IFLNK | 0777, "hello", 0, 0, 0, 0, 0, 0 },
	{ "./usr/bin/tool", S_IFREG | 04755, "#!", 0, 0, 0, 0, 1234, 5678 },
	{ "usr/bin/sgid", S_IFREG | 02711, "#!", 0, 0, 0, 0, 0, 0 },
	{ "/abs/file", S_IFREG | 0600, "abs", 0, 0, 0, 0, 0, 0 },
	{ "ro", S_IFDIR | 0555, NULL, 0, 0, 0, 0, 0, 0 },
	{ "ro/inside", S_IFREG | 0444, "x", 0, 0, 0, 0, 0, 0 },
	{ "tmp", S_IFDIR | 01777, NULL, 0, 0, 0, 0, 0, 0 },
	{ "run/fifo", S_IFIFO | 0600, NULL, 0, 0, 0, 0, 0, 0 },
	{ "dev/null", S_IFCHR | 0666, NULL, 1, 3, 0, 0, 0, 0 },
	{ "dev/sda", S_IFBLK | 0660, NULL, 8, 0, 0, 0, 0, 0 },
	{ "etc/hello", S_IFREG | 0644, "replaced", 0, 0, 0, 0, 0, 0 },
	/* a hard link pair as GNU cpio writes it: data with the last name */
	{ "bin/busybox", S_IFREG | 0755, NULL, 0, 0, 2, 100, 0, 0 },
	{ "bin/sh", S_IFREG | 0755, "BB", 0, 0, 2, 100, 0, 0 },
};

static void check_common_tree(const char *out)
{
	struct stat st, st2;
	char target[64], *p = NULL, *content = NULL;
	size_t len;

#define AT(rel) (free(p), p = path_join(out, rel))
	CHECK(lstat(AT("kernel/x86/microcode/GenuineIntel.bin"), &st) == 0 && st.st_size == 5);
	CHECK(lstat(AT("etc"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750);
	CHECK(lstat(AT("etc/hello"), &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(st.st_mtime == 1000);
	CHECK(read_file(p, &content, &len) == 0 && len == 8 && memcmp(content, "replaced", 8) == 0);
	free(content);
	CHECK(lstat(AT("etc/link"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(readlink(p, target, sizeof(target)) == 5 && memcmp(target, "hello", 5) == 0);
	CHECK(lstat(AT("abs/file"), &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK(lstat(AT("ro"), &st) == 0 && (st.st_mode & 07777) == 0555);
	CHECK(lstat(AT("ro/inside"), &st) == 0 && st.st_size == 1);
	CHECK(lstat(AT("tmp"), &st) == 0 && (st.st_mode & 07777) == 01777);
	CHECK(lstat(AT("run/fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(lstat(AT("bin/sh"), &st) == 0 && st.st_nlink == 2 && st.st_size == 2);
	CHECK(lstat(AT("bin/busybox"), &st2) == 0 && st2.st_ino == st.st_ino);
	free(p);
#undef AT
}

/* By default: no device nodes (each named), no set-id bits, no chown. */
static void test_extract_reproduces_tree(void)
{
	char *dir = tmpdir(), *out = path_join(dir, "out");
	struct stat st;
	char *p;

	CHECK(extract_ents(dir, tree, ARRAY_SIZE(tree), 0) == 0);
	check_common_tree(out);
	CHECK(!exists(out, "dev/null"));
	CHECK(!exists(out, "dev/sda"));
	CHECK_STR(logged.p, "entry \"dev/null\": character device 1:3 skipped (--preserve makes "
			    "device nodes)\n"
			    "entry \"dev/sda\": block device 8:0 skipped (--preserve makes device "
			    "nodes)\n");
	p = path_join(out, "usr/bin/tool");
	CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 0755 && st.st_uid == geteuid());
	free(p);
	p = path_join(out, "usr/bin/sgid");
	CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 0711);
	free(p);
	rm_rf(dir);
	free(out);
	free(dir);
}

static void test_extract_preserve(void)
{
	char *dir = tmpdir(), *out = path_join(dir, "out");
	struct stat st;
	char *p;

	if (geteuid() != 0) {
		rm_rf(dir);
		free(out);
		free(dir);
		SKIP("--preserve makes nodes and chowns: needs root");
	}
	CHECK(extract_ents(dir, tree, ARRAY_SIZE(tree), EXTRACT_PRESERVE) == 0);
	check_common_tree(out);
	CHECK(logged.len == 0);
	p = path_join(out, "usr/bin/tool");
	CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 04755);
	CHECK(st.st_uid == 1234 && st.st_gid == 5678);
	free(p);
	p = path_join(out, "usr/bin/sgid");
	CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 02711);
	free(p);
	p = path_join(out, "dev/null");
	CHECK(lstat(p, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	      minor(st.st_rdev) == 3 && (st.st_mode & 07777) == 0666);
	free(p);
	p = path_join(out, "dev/sda");
	CHECK(lstat(p, &st) == 0 && S_ISBLK(st.st_mode) && major(st.st_rdev) == 8);
	free(p);
	rm_rf(dir);
	free(out);
	free(dir);
}

/* Real images put entries below symlinks (lib -> usr/lib): followed, but
 * as if the target were "/", whether absolute or climbing above it. */
static void check_follows_symlinks_inside(bool walk)
{
	char *dir = tmpdir(), *out = path_join(dir, "out");
	char *outside = path_join(dir, "outside"), *abs_in, *p;
	char *content = NULL;
	size_t len;
	struct ent ents[] = {
		{ "usr", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "usr/lib", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "lib", S_IFLNK | 0777, "usr/lib", 0, 0, 0, 0, 0, 0 },
		{ "lib/modules", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "lib/modules/m.ko", S_IFREG | 0644, "ko", 0, 0, 0, 0, 0, 0 },
		{ outside + 1, S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "abs", S_IFLNK | 0777, outside, 0, 0, 0, 0, 0, 0 },
		{ "abs/passwd", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 },
		{ "up", S_IFLNK | 0777, "../../../../../..", 0, 0, 0, 0, 0, 0 },
		{ "up/x", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 },
		{ "usr/up2", S_IFLNK | 0777, "../../../usr", 0, 0, 0, 0, 0, 0 },
		{ "usr/up2/y", S_IFREG | 0644, "y", 0, 0, 0, 0, 0, 0 },
		{ "chain", S_IFLNK | 0777, "usr/up2/lib/../../usr/./lib/", 0, 0, 0, 0, 0, 0 },
		{ "chain/modules/z", S_IFREG | 0644, "z", 0, 0, 0, 0, 0, 0 },
	};

	extract_path_force_walk(walk);
	CHECK(mkdir(outside, 0755) == 0);
	CHECK(extract_ents(dir, ents, ARRAY_SIZE(ents), 0) == 0);
	p = path_join(out, "usr/lib/modules/m.ko");
	CHECK(read_file(p, &content, &len) == 0 && len == 2 && memcmp(content, "ko", 2) == 0);
	free(content);
	free(p);
	abs_in = path_join(out, outside + 1);
	CHECK(exists(abs_in, "passwd"));
	CHECK(!exists(outside, "passwd"));
	CHECK(exists(out, "x"));
	CHECK(!exists(dir, "x"));
	CHECK(exists(out, "usr/y"));
	CHECK(exists(out, "usr/lib/modules/z"));
	extract_path_force_walk(false);
	rm_rf(dir);
	free(abs_in);
	free(outside);
	free(out);
	free(dir);
}

static void test_extract_follows_symlinks_inside_openat2(void)
{
	check_follows_symlinks_inside(false);
}

static void test_extract_follows_symlinks_inside_walk(void)
{
	check_follows_symlinks_inside(true);
}

/* Crafted archives: each must be refused with its message, and nothing
 * may appear outside the target. */
static void check_refuses_escapes(bool walk)
{
	char *dir = tmpdir();
	char *outside = path_join(dir, "outside");
	char *victim = path_join(dir, "victim");
	struct ent evil_dir[] = {
		{ "evil", S_IFLNK | 0777, outside, 0, 0, 0, 0, 0, 0 },
		{ "evil/passwd", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 },
	};
	struct ent evil_file[] = {
		{ "f", S_IFLNK | 0777, victim, 0, 0, 0, 0, 0, 0 },
		{ "f", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 },
	};
	struct ent evil_mkdir[] = {
		{ "d", S_IFLNK | 0777, outside, 0, 0, 0, 0, 0, 0 },
		{ "d", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
	};
	static const struct ent loop[] = {
		{ "loop", S_IFLNK | 0777, "loop", 0, 0, 0, 0, 0, 0 },
		{ "loop/z", S_IFREG | 0644, "z", 0, 0, 0, 0, 0, 0 },
	};
	static const struct ent dangling[] = {
		{ "usr", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "lib", S_IFLNK | 0777, "/usr/lib", 0, 0, 0, 0, 0, 0 },
		{ "lib/modules", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
	};
	static const struct ent notdir[] = {
		{ "file", S_IFREG | 0644, "f", 0, 0, 0, 0, 0, 0 },
		{ "file/x", S_IFREG | 0644, "x", 0, 0, 0, 0, 0, 0 },
	};
	static const struct ent dotdot1[] = { { "../x", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 } };
	static const struct ent dotdot2[] = { { "a/../../x", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 } };
	static const struct ent dotdot3[] = { { "/../x", S_IFREG | 0644, "pwned", 0, 0, 0, 0, 0, 0 } };
	static const struct ent dotdot4[] = { { "ok/..", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 } };
	const struct {
		const struct ent *ents;
		size_t n;
		const char *msg;
	} cases[] = {
		{ dotdot1, 1, "refusing entry \"../x\": it has a \"..\" component" },
		{ dotdot2, 1, "refusing entry \"a/../../x\": it has a \"..\" component" },
		{ dotdot3, 1, "refusing entry \"/../x\": it has a \"..\" component" },
		{ dotdot4, 1, "refusing entry \"ok/..\": it has a \"..\" component" },
		{ evil_dir, 2, "refusing entry \"evil/passwd\": the symlink \"evil\" leads to no "
			       "directory inside the target" },
		{ evil_file, 2, "refusing entry \"f\": would write through the symlink \"f\"" },
		{ evil_mkdir, 2, "refusing entry \"d\": would write through the symlink \"d\"" },
		{ loop, 2, "refusing entry \"loop/z\": the symlink \"loop\" leads to no directory "
			   "inside the target" },
		{ dangling, 3, "refusing entry \"lib/modules\": the symlink \"lib\" leads to no "
			       "directory inside the target" },
		{ notdir, 2, "entry \"file/x\": directory file: Not a directory" },
	};

	extract_path_force_walk(walk);
	CHECK(mkdir(outside, 0755) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct buf img = { 0 };
		char *name = xasprintf("evil%zu.img", i);
		char *sub = xasprintf("out%zu", i);
		char *out = path_join(dir, sub), *path, *want;

		add_archive(&img, i % 2 ? COMP_ZSTD : COMP_NONE, cases[i].ents, cases[i].n);
		path = write_tmp(dir, name, &img);
		want = xasprintf("%s: %s", path, cases[i].msg);
		CHECK(image_extract(path, out, 0) < 0);
		CHECK_STR(err_msg(), want);
		CHECK(!exists(dir, "x"));
		CHECK(!exists(outside, "passwd"));
		CHECK(!exists(dir, "victim"));
		free(want);
		free(path);
		free(out);
		free(sub);
		free(name);
		buf_free(&img);
	}
	extract_path_force_walk(false);
	rm_rf(dir);
	free(outside);
	free(victim);
	free(dir);
}

static void test_extract_refuses_escapes_openat2(void)
{
	check_refuses_escapes(false);
}

static void test_extract_refuses_escapes_walk(void)
{
	check_refuses_escapes(true);
}

/* "a" is made as a file with two names, then replaced by a device (or a
 * FIFO); the second name "b" carries the data. Linking "b" to what "a"
 * is now would write the data into the device (or hang on the FIFO). */
static void check_hardlink_to_special(uint32_t type, unsigned flags)
{
	const struct ent ents[] = {
		{ "a", S_IFREG | 0644, NULL, 0, 0, 2, 5, 0, 0 },
		{ "a", type | 0666, NULL, 1, 3, 0, 0, 0, 0 },
		{ "b", S_IFREG | 0644, "data", 0, 0, 2, 5, 0, 0 },
	};
	char *dir = tmpdir(), *out = path_join(dir, "out"), *want;

	CHECK(extract_ents(dir, ents, ARRAY_SIZE(ents), flags) < 0);
	want = xasprintf("%s/test.img: refusing entry \"b\": \"a\", the name it is a hard link "
			 "to, was replaced by another entry", dir);
	CHECK_STR(err_msg(), want);
	CHECK(!exists(out, "b"));
	free(want);
	rm_rf(dir);
	free(out);
	free(dir);
}

static void test_extract_hardlink_to_device(void)
{
	if (geteuid() != 0)
		SKIP("making a device node needs root");
	check_hardlink_to_special(S_IFCHR, EXTRACT_PRESERVE);
}

static void test_extract_hardlink_to_fifo(void)
{
	check_hardlink_to_special(S_IFIFO, 0);
}

/* Without --preserve the device is skipped: "a" stays the file, "b" is
 * its second name. */
static void test_extract_hardlink_device_skipped(void)
{
	const struct ent ents[] = {
		{ "a", S_IFREG | 0644, NULL, 0, 0, 2, 5, 0, 0 },
		{ "a", S_IFCHR | 0666, NULL, 1, 3, 0, 0, 0, 0 },
		{ "b", S_IFREG | 0644, "data", 0, 0, 2, 5, 0, 0 },
	};
	char *dir = tmpdir(), *out = path_join(dir, "out"), *a = path_join(out, "a");
	struct stat st;
	char *content = NULL;
	size_t len;

	CHECK(extract_ents(dir, ents, ARRAY_SIZE(ents), 0) == 0);
	CHECK(lstat(a, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 2);
	CHECK(read_file(a, &content, &len) == 0 && len == 4 && memcmp(content, "data", 4) == 0);
	free(content);
	rm_rf(dir);
	free(a);
	free(out);
	free(dir);
}

/* Thousands of hard-linked files, looked up in a hash table: each
 * second name is linked to its own first one. */
static void test_extract_many_hardlinks(void)
{
	enum { N = 3000 };
	struct ent *ents = xcalloc(2 * N, sizeof(*ents));
	char *dir = tmpdir(), *out = path_join(dir, "out");
	bool ok = true;

	for (unsigned i = 0; i < N; i++) {
		ents[2 * i] = (struct ent){ xasprintf("f%u", i), S_IFREG | 0644, NULL, 0, 0, 2,
					    i + 10, 0, 0 };
		ents[2 * i + 1] = (struct ent){ xasprintf("g%u", i), S_IFREG | 0644,
						xasprintf("%u", i), 0, 0, 2, i + 10, 0, 0 };
	}
	CHECK(extract_ents(dir, ents, 2 * N, 0) == 0);
	for (unsigned i = 0; i < N && ok; i++) {
		char *f = xasprintf("%s/f%u", out, i), *g = xasprintf("%s/g%u", out, i);
		struct stat a, b;
		ok = lstat(f, &a) == 0 && lstat(g, &b) == 0 && a.st_ino == b.st_ino &&
		     a.st_nlink == 2 && a.st_size == (off_t)strlen(ents[2 * i + 1].data);
		free(f);
		free(g);
	}
	CHECK(ok);
	for (unsigned i = 0; i < 2 * N; i++) {
		free((char *)ents[i].name);
		free((char *)ents[i].data);
	}
	free(ents);
	rm_rf(dir);
	free(out);
	free(dir);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names keep every byte: " sp " is not "sp", "a " does not overwrite
 * "a"; only '/' separates and empty or "." components name nothing. */
static void test_extract_keeps_names(void)
{
	static const struct ent ents[] = {
		{ " sp ", S_IFREG | 0644, "1", 0, 0, 0, 0, 0, 0 },
		{ "a", S_IFREG | 0644, "2", 0, 0, 0, 0, 0, 0 },
		{ "a ", S_IFREG | 0644, "3", 0, 0, 0, 0, 0, 0 },
		{ "\ttab", S_IFREG | 0644, "4", 0, 0, 0, 0, 0, 0 },
		{ "d", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "d//f", S_IFREG | 0644, "5", 0, 0, 0, 0, 0, 0 },
		{ "d/./g/", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "d/ /", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
		{ "nl\nname", S_IFREG | 0644, "6", 0, 0, 0, 0, 0, 0 },
	};
	char *dir = tmpdir(), *out = path_join(dir, "out");
	struct strv names = { 0 };
	struct buf got = { 0 };
	char *content = NULL, *p;
	size_t len;
	DIR *d;
	struct dirent *de;

	CHECK(extract_ents(dir, ents, ARRAY_SIZE(ents), 0) == 0);
	d = opendir(out);
	CHECK(d != NULL);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "kernel"))
			strv_push(&names, de->d_name);
	if (d)
		closedir(d);
	qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n; i++)
		buf_printf(&got, "[%s]", names.v[i]);
	CHECK_STR(got.p, "[\ttab][ sp ][a][a ][d][nl\nname]");
	p = path_join(out, "a");
	CHECK(read_file(p, &content, &len) == 0 && len == 1 && content[0] == '2');
	free(content);
	free(p);
	CHECK(exists(out, "d/f") && exists(out, "d/g") && exists(out, "d/ "));
	strv_free(&names);
	buf_free(&got);
	rm_rf(dir);
	free(out);
	free(dir);
}

int main(void)
{
	RUN(test_extract_reproduces_tree);
	RUN(test_extract_preserve);
	RUN(test_extract_follows_symlinks_inside_openat2);
	RUN(test_extract_follows_symlinks_inside_walk);
	RUN(test_extract_refuses_escapes_openat2);
	RUN(test_extract_refuses_escapes_walk);
	RUN(test_extract_hardlink_to_device);
	RUN(test_extract_hardlink_to_fifo);
	RUN(test_extract_hardlink_device_skipped);
	RUN(test_extract_many_hardlinks);
	RUN(test_extract_keeps_names);
	return test_done();
}
