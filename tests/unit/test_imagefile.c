// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "compress.h"
#include "err.h"
#include "imagefile.h"
#include "test.h"
#include "util.h"

struct ent {
	const char *name;
	uint32_t mode;
	const char *data; /* file content or symlink target */
	unsigned major, minor;
	unsigned nlink, ino; /* 0: 1 and the entry's index */
};

/* One cpio archive (with trailer) of ents, appended to img compressed
 * with c. */
static void add_archive(struct buf *img, enum compression c, const struct ent *ents, size_t n)
{
	struct sink *mem = sink_mem_new();
	struct sink *z = compress_sink_new(c, mem, -1, 1);
	struct cpio_writer *w = cpio_writer_new(z);
	const void *d;
	size_t len;

	for (size_t i = 0; i < n; i++) {
		struct cpio_entry e = {
			.name = ents[i].name, .mode = ents[i].mode, .mtime = 1000,
			.nlink = ents[i].nlink ? ents[i].nlink : 1,
			.size = ents[i].data ? strlen(ents[i].data) : 0,
			.ino = ents[i].ino ? ents[i].ino : (uint32_t)i + 1,
			.rdev_major = ents[i].major, .rdev_minor = ents[i].minor,
		};
		CHECK(cpio_write(w, &e, ents[i].data) == 0);
	}
	CHECK(cpio_write_trailer(w) == 0);
	CHECK(sink_finish(z) == 0);
	d = sink_mem_data(mem, &len);
	buf_append(img, d, len);
	cpio_writer_free(w);
	sink_free(z);
	sink_free(mem);
}

static char *tmpdir(void)
{
	char *d = xstrdup("/tmp/uniramfs-test-image-XXXXXX");
	CHECK(mkdtemp(d) != NULL);
	return d;
}

static char *write_tmp(const char *dir, const char *name, const struct buf *b)
{
	char *p = path_join(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write_all(fd, b->p, b->len) == 0);
	close(fd);
	return p;
}

static void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
}

static int collect(unsigned seg, enum compression c, const struct cpio_entry *e,
		   const uint8_t *data, void *userdata)
{
	(void)data;
	buf_printf(userdata, "%u:%s:%s\n", seg, compression_name(c), e->name);
	return 0;
}

static const struct ent early[] = {
	{ "kernel", S_IFDIR | 0755, NULL, 0, 0, 0, 0 },
	{ "kernel/x86/microcode/GenuineIntel.bin", S_IFREG | 0644, "ucode", 0, 0, 0, 0 },
};
static const struct ent mainz[] = {
	{ "init", S_IFREG | 0755, "#!/bin/sh\n", 0, 0, 0, 0 },
	{ "dev/console", S_IFCHR | 0600, NULL, 5, 1, 0, 0 },
	{ "bin", S_IFLNK | 0777, "usr/bin", 0, 0, 0, 0 },
};
static const struct ent extra1[] = { { "etc/extra1", S_IFREG | 0644, "1", 0, 0, 0, 0 } };
static const struct ent extra2[] = { { "etc/extra2", S_IFREG | 0600, "22", 0, 0, 0, 0 } };

/* Early microcode (plain) + padding + zstd main + gzip segment holding
 * two archives with padding between: what initramfs-tools, dracut and
 * boot loaders concatenate. */
static void build_multi(struct buf *img)
{
	struct buf inner = { 0 };
	struct sink *mem = sink_mem_new(), *z;
	const void *d;
	size_t len;

	add_archive(img, COMP_NONE, early, ARRAY_SIZE(early));
	buf_append(img, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	add_archive(img, COMP_ZSTD, mainz, ARRAY_SIZE(mainz));
	buf_append(img, "\0\0\0", 3);
	add_archive(&inner, COMP_NONE, extra1, 1);
	buf_append(&inner, "\0\0\0\0", 4);
	add_archive(&inner, COMP_NONE, extra2, 1);
	z = compress_sink_new(COMP_GZIP, mem, -1, 0);
	CHECK(sink_write(z, inner.p, inner.len) == 0 && sink_finish(z) == 0);
	d = sink_mem_data(mem, &len);
	buf_append(img, d, len);
	sink_free(z);
	sink_free(mem);
	buf_free(&inner);
}

static void test_foreach_multi_segment(void)
{
	struct buf img = { 0 }, got = { 0 };

	build_multi(&img);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == 0);
	CHECK_STR(got.p, "1:none:kernel\n"
			 "1:none:kernel/x86/microcode/GenuineIntel.bin\n"
			 "2:zstd:init\n"
			 "2:zstd:dev/console\n"
			 "2:zstd:bin\n"
			 "3:gzip:etc/extra1\n"
			 "3:gzip:etc/extra2\n");
	buf_free(&got);
	buf_free(&img);
}

static void test_ls_multi_segment(void)
{
	struct buf img = { 0 };
	char *dir = tmpdir(), *path, *text = NULL;
	size_t textlen;
	FILE *f;

	build_multi(&img);
	path = write_tmp(dir, "multi.img", &img);
	f = open_memstream(&text, &textlen);
	CHECK(image_ls(path, f) == 0);
	fclose(f);
	for (char *l = text, *nl; l && *l; l = nl + 1) {
		nl = strchr(l, '\n');
		printf("# %.*s\n", (int)(nl - l), l);
	}
	CHECK(strncmp(text, "segment 1: none, 2 entries, 400 bytes at offset 0\n"
			    "drwxr-xr-x          0 kernel\n"
			    "-rw-r--r--          5 kernel/x86/microcode/GenuineIntel.bin\n"
			    "segment 2: zstd, 3 entries, ",
		      strlen("segment 1: none, 2 entries, 400 bytes at offset 0\n"
			     "drwxr-xr-x          0 kernel\n"
			     "-rw-r--r--          5 kernel/x86/microcode/GenuineIntel.bin\n"
			     "segment 2: zstd, 3 entries, ")) == 0);
	CHECK(strstr(text, " at offset 524, unpacks to 512 bytes") != NULL);
	CHECK(strstr(text, "\n-rwxr-xr-x         10 init\n"
			   "crw-------    5,    1 dev/console\n"
			   "lrwxrwxrwx          7 bin -> usr/bin\n"
			   "segment 3: gzip, 2 entries, ") != NULL);
	CHECK(strstr(text, "\n-rw-------          2 etc/extra2\n3 segments, 7 entries\n") != NULL);
	free(text);
	free(path);
	rm_rf(dir);
	free(dir);
	buf_free(&img);
}

static void test_unreadable_segments(void)
{
	struct buf img = { 0 }, got = { 0 };

	add_archive(&img, COMP_NONE, early, ARRAY_SIZE(early));
	buf_append(&img, "BZh91AY&SY\x01\x02", 12);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == -1);
	CHECK_STR(err_msg(), "segment 2 at offset 512: bzip2 compression is not supported "
			     "(uniramfs reads zstd, xz, lz4, gzip and plain cpio)");
	img.len = 512;
	buf_append(&img, "\x5d\0\0\x80\0", 5);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == -1);
	CHECK(strstr(err_msg(), "lzma compression is not supported") != NULL);
	img.len = 512;
	buf_append(&img, "junk", 4);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == -1);
	CHECK_STR(err_msg(), "offset 512: neither a cpio archive nor a known compression "
			     "(starts with 6a 75 6e 6b)");
	CHECK(image_foreach_buf((const uint8_t *)"\0\0\0\0", 4, collect, NULL) == -1);
	CHECK_STR(err_msg(), "no cpio archive in the image (4 bytes, all zero)");
	/* a compressed segment whose content is not cpio */
	img.len = 0;
	{
		struct sink *mem = sink_mem_new(), *z = compress_sink_new(COMP_ZSTD, mem, -1, 1);
		const void *d;
		size_t len;
		CHECK(sink_write(z, "hello world", 11) == 0 && sink_finish(z) == 0);
		d = sink_mem_data(mem, &len);
		buf_append(&img, d, len);
		sink_free(z);
		sink_free(mem);
	}
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == -1);
	CHECK_STR(err_msg(), "segment 1 (zstd) at offset 0: archive at 0: cpio: truncated "
			     "header at offset 0");
	buf_free(&img);
	buf_free(&got);
}

static void test_ls_debian_initrd(void)
{
	glob_t g;
	char *text = NULL;
	size_t len;
	FILE *f;

	if (glob("/boot/initrd.img-*", 0, NULL, &g) != 0)
		SKIP("no /boot/initrd.img-* on this machine");
	f = open_memstream(&text, &len);
	if (image_ls(g.gl_pathv[0], f) != 0) {
		printf("# %s\n", err_msg());
		CHECK(0);
	}
	fclose(f);
	CHECK(text && strncmp(text, "segment 1: ", 11) == 0);
	CHECK(text && strstr(text, " init\n") != NULL);
	CHECK(text && strstr(text, "lib/modules/") != NULL);
	free(text);
	globfree(&g);
}

static void test_ls_dracut_image(void)
{
	char *dir = tmpdir(), *img = path_join(dir, "dracut.img"), *cmd, *text = NULL;
	glob_t g;
	size_t len;
	FILE *f;

	if (access("/usr/bin/dracut", X_OK) != 0 || glob("/lib/modules/*", 0, NULL, &g) != 0) {
		rm_rf(dir);
		free(dir);
		free(img);
		SKIP("dracut or /lib/modules/* missing");
	}
	cmd = xasprintf("dracut --quiet --no-kernel --no-hostonly -m base --zstd --force %s %s "
			">/dev/null 2>&1", img, strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	if (system(cmd) != 0) {
		rm_rf(dir);
		free(dir);
		free(img);
		free(cmd);
		SKIP("dracut failed to build an image here");
	}
	free(cmd);
	f = open_memstream(&text, &len);
	CHECK(image_ls(img, f) == 0);
	fclose(f);
	CHECK(text && strstr(text, "segment 1: zstd") != NULL);
	CHECK(text && (strstr(text, " init -> ") || strstr(text, " init\n")));
	CHECK(text && strstr(text, " usr/lib/dracut/") != NULL);
	free(text);
	rm_rf(dir);
	free(dir);
	free(img);
}

static void test_extract_reproduces_tree(void)
{
	static const struct ent ents[] = {
		{ ".", S_IFDIR | 0755, NULL, 0, 0, 0, 0 },
		{ "etc", S_IFDIR | 0750, NULL, 0, 0, 0, 0 },
		{ "etc/hello", S_IFREG | 0640, "hello\n", 0, 0, 0, 0 },
		{ "etc/link", S_IFLNK | 0777, "hello", 0, 0, 0, 0 },
		{ "./usr/bin/tool", S_IFREG | 04755, "#!", 0, 0, 0, 0 },
		{ "/abs/file", S_IFREG | 0600, "abs", 0, 0, 0, 0 },
		{ "ro", S_IFDIR | 0555, NULL, 0, 0, 0, 0 },
		{ "ro/inside", S_IFREG | 0444, "x", 0, 0, 0, 0 },
		{ "run/fifo", S_IFIFO | 0600, NULL, 0, 0, 0, 0 },
		{ "dev/null", S_IFCHR | 0666, NULL, 1, 3, 0, 0 },
		{ "etc/hello", S_IFREG | 0644, "replaced", 0, 0, 0, 0 },
		/* a hard link pair as GNU cpio writes it: data with the last name */
		{ "bin/busybox", S_IFREG | 0755, NULL, 0, 0, 2, 100 },
		{ "bin/sh", S_IFREG | 0755, "BB", 0, 0, 2, 100 },
	};
	struct stat st2;
	struct buf img = { 0 }, data = { 0 };
	char *dir = tmpdir(), *path, *out = path_join(dir, "out"), *p;
	struct stat st;
	char target[64];
	char *content;
	size_t len;

	add_archive(&img, COMP_NONE, early, ARRAY_SIZE(early));
	add_archive(&img, COMP_XZ, ents, ARRAY_SIZE(ents));
	path = write_tmp(dir, "good.img", &img);
	if (image_extract(path, out) != 0)
		printf("# %s\n", err_msg());
#define AT(rel) (free(p), p = path_join(out, rel))
	p = NULL;
	CHECK(lstat(AT("kernel/x86/microcode/GenuineIntel.bin"), &st) == 0 && st.st_size == 5);
	CHECK(lstat(AT("etc"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750);
	CHECK(lstat(AT("etc/hello"), &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(st.st_mtime == 1000);
	CHECK(read_file(p, &content, &len) == 0 && len == 8 && memcmp(content, "replaced", 8) == 0);
	free(content);
	CHECK(lstat(AT("etc/link"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(readlink(p, target, sizeof(target)) == 5 && memcmp(target, "hello", 5) == 0);
	CHECK(lstat(AT("usr/bin/tool"), &st) == 0 && (st.st_mode & 07777) == 04755);
	CHECK(lstat(AT("abs/file"), &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK(lstat(AT("ro"), &st) == 0 && (st.st_mode & 07777) == 0555);
	CHECK(lstat(AT("ro/inside"), &st) == 0 && st.st_size == 1);
	CHECK(lstat(AT("run/fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(lstat(AT("bin/sh"), &st) == 0 && st.st_nlink == 2 && st.st_size == 2);
	CHECK(lstat(AT("bin/busybox"), &st2) == 0 && st2.st_ino == st.st_ino);
	if (geteuid() == 0)
		CHECK(lstat(AT("dev/null"), &st) == 0 && S_ISCHR(st.st_mode) &&
		      major(st.st_rdev) == 1 && minor(st.st_rdev) == 3);
	free(p);
#undef AT
	free(path);
	free(out);
	rm_rf(dir);
	free(dir);
	buf_free(&img);
	buf_free(&data);
}

/* Crafted archives: each must be refused with its message, and nothing
 * may appear outside the target. */
static void test_extract_refuses_escapes(void)
{
	char *dir = tmpdir();
	char *outside = path_join(dir, "outside");
	char *victim = path_join(dir, "victim");
	struct ent evil_dir[] = {
		{ "evil", S_IFLNK | 0777, outside, 0, 0, 0, 0 },
		{ "evil/passwd", S_IFREG | 0644, "pwned", 0, 0, 0, 0 },
	};
	struct ent evil_file[] = {
		{ "f", S_IFLNK | 0777, victim, 0, 0, 0, 0 },
		{ "f", S_IFREG | 0644, "pwned", 0, 0, 0, 0 },
	};
	struct ent evil_mkdir[] = {
		{ "d", S_IFLNK | 0777, outside, 0, 0, 0, 0 },
		{ "d", S_IFDIR | 0755, NULL, 0, 0, 0, 0 },
	};
	static const struct ent dotdot1[] = { { "../x", S_IFREG | 0644, "pwned", 0, 0, 0, 0 } };
	static const struct ent dotdot2[] = { { "a/../../x", S_IFREG | 0644, "pwned", 0, 0, 0, 0 } };
	static const struct ent dotdot3[] = { { "/../x", S_IFREG | 0644, "pwned", 0, 0, 0, 0 } };
	static const struct ent dotdot4[] = { { "ok/..", S_IFDIR | 0755, NULL, 0, 0, 0, 0 } };
	const struct {
		const struct ent *ents;
		size_t n;
		const char *msg;
	} cases[] = {
		{ dotdot1, 1, "refusing entry \"../x\": it has a \"..\" component" },
		{ dotdot2, 1, "refusing entry \"a/../../x\": it has a \"..\" component" },
		{ dotdot3, 1, "refusing entry \"/../x\": it has a \"..\" component" },
		{ dotdot4, 1, "refusing entry \"ok/..\": it has a \"..\" component" },
		{ evil_dir, 2, "refusing entry \"evil/passwd\": would write through the symlink \"evil\"" },
		{ evil_file, 2, "refusing entry \"f\": would write through the symlink \"f\"" },
		{ evil_mkdir, 2, "refusing entry \"d\": would write through the symlink \"d\"" },
	};

	CHECK(mkdir(outside, 0755) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct buf img = { 0 };
		char *name = xasprintf("evil%zu.img", i);
		char *sub = xasprintf("out%zu", i);
		char *out = path_join(dir, sub), *path, *want, *x;
		struct stat st;

		add_archive(&img, i % 2 ? COMP_ZSTD : COMP_NONE, cases[i].ents, cases[i].n);
		path = write_tmp(dir, name, &img);
		want = xasprintf("%s: %s", path, cases[i].msg);
		CHECK(image_extract(path, out) == -1);
		CHECK_STR(err_msg(), want);
		x = path_join(dir, "x");
		CHECK(lstat(x, &st) == -1);
		free(x);
		x = path_join(outside, "passwd");
		CHECK(lstat(x, &st) == -1);
		free(x);
		CHECK(lstat(victim, &st) == -1);
		free(want);
		free(path);
		free(out);
		free(sub);
		free(name);
		buf_free(&img);
	}
	rm_rf(dir);
	free(outside);
	free(victim);
	free(dir);
}

int main(void)
{
	RUN(test_foreach_multi_segment);
	RUN(test_ls_multi_segment);
	RUN(test_unreadable_segments);
	RUN(test_ls_debian_initrd);
	RUN(test_ls_dracut_image);
	RUN(test_extract_reproduces_tree);
	RUN(test_extract_refuses_escapes);
	return test_done();
}
