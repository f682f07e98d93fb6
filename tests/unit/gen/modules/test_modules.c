// SPDX-License-Identifier: GPL-2.0-or-later
/* Module selection against the installed Debian kernel's real modules,
 * and against small fixture trees built with the real depmod. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpio.h"
#include "gen/compress/compress.h"
#include "err.h"
#include "gen/image/image.h"
#include "log.h"
#include "gen/modules/modules.h"
#include "gen/modules/modules_priv.h"
#include "util.h"
#include "test.h"

static char kver[256];
static char kmoddir[512];

static bool find_kernel(void)
{
	DIR *d = opendir("/lib/modules");
	struct dirent *de;
	bool ok = false;

	while (d && !ok && (de = readdir(d))) {
		char p[600];
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/lib/modules/%s/modules.dep", de->d_name);
		if (access(p, R_OK) == 0) {
			snprintf(kver, sizeof(kver), "%s", de->d_name);
			snprintf(kmoddir, sizeof(kmoddir), "/lib/modules/%s", kver);
			ok = true;
		}
	}
	if (d)
		closedir(d);
	return ok;
}

/* Warnings land here so tests can assert them. */
static struct strv warnings;

static void capture(int level, const char *msg, void *data)
{
	(void)data;
	if (level <= LOG_WARNING)
		strv_push(&warnings, msg);
}

static int run(const char *cmd)
{
	int r = system(cmd);
	if (r != 0)
		printf("# command failed (%d): %s\n", r, cmd);
	return r;
}

static char *mktmp(void)
{
	char *t = xstrdup("/tmp/test_modules.XXXXXX");
	if (!mkdtemp(t)) {
		free(t);
		return NULL;
	}
	return t;
}

static void rmtree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	run(cmd);
	free(cmd);
}

/* The line of modules.dep (host) for relpath, NULL if none. */
static char *dep_line(const char *dir, const char *relpath)
{
	char *path = xasprintf("%s/modules.dep", dir), *data, *r = NULL;
	size_t len, rl = strlen(relpath);

	if (read_file(path, &data, &len) == 0) {
		for (char *l = data; l && *l;) {
			char *nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			if (strncmp(l, relpath, rl) == 0 && l[rl] == ':') {
				r = xstrdup(l + rl + 1);
				break;
			}
			l = nl ? nl + 1 : NULL;
		}
		free(data);
	}
	free(path);
	return r;
}

/* Write the image as cpio into memory (caller frees the sink). */
static struct sink *image_cpio(struct image *img)
{
	struct sink *s = sink_mem_new();
	struct cpio_writer *w = cpio_writer_new(s);
	int r = image_write_cpio(img, w, 0);
	if (r == 0)
		r = cpio_write_trailer(w);
	if (r < 0)
		printf("# image_write_cpio: %s\n", err_msg());
	cpio_writer_free(w);
	return s;
}

/* The contents of one file in the written image, NULL if absent. */
static char *cpio_file(struct sink *s, const char *name, size_t *len)
{
	size_t n;
	const void *buf = sink_mem_data(s, &n);
	struct cpio_reader rd;
	struct cpio_entry e;
	const uint8_t *data;
	char *r = NULL;

	cpio_reader_init(&rd, buf, n);
	while (cpio_read_next(&rd, &e, &data) == 1) {
		if (strcmp(e.name, name) == 0 && S_ISREG(e.mode)) {
			r = xmalloc(e.size + 1);
			memcpy(r, data, e.size);
			r[e.size] = '\0';
			*len = e.size;
			break;
		}
	}
	cpio_reader_free(&rd);
	return r;
}

static int unpack(struct sink *s, const char *dir)
{
	size_t n;
	const void *buf = sink_mem_data(s, &n);
	struct cpio_reader rd;
	struct cpio_entry e;
	const uint8_t *data;
	int r, bad = 0;

	cpio_reader_init(&rd, buf, n);
	while ((r = cpio_read_next(&rd, &e, &data)) == 1) {
		char *p = xasprintf("%s/%s", dir, e.name);
		if (S_ISDIR(e.mode)) {
			bad |= mkdir_p(p, 0755) < 0;
		} else if (S_ISREG(e.mode)) {
			int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			bad |= fd < 0 || write_all(fd, data, e.size) < 0;
			if (fd >= 0)
				close(fd);
		}
		free(p);
	}
	cpio_reader_free(&rd);
	return r < 0 || bad ? -1 : 0;
}

static bool same_file(const char *a, const char *b)
{
	char *da = NULL, *db = NULL;
	size_t la = 0, lb = 0;
	bool r = read_file(a, &da, &la) == 0 && read_file(b, &db, &lb) == 0 && la == lb &&
		 memcmp(da, db, la) == 0;
	if (!r)
		printf("# %s and %s differ\n", a, b);
	free(da);
	free(db);
	return r;
}

static struct modules *open_host(void)
{
	struct modules *m = NULL;
	if (modules_open(&m, "/", kmoddir, kver, "") < 0)
		printf("# modules_open: %s\n", err_msg());
	return m;
}

static void test_open_without_indexes(void)
{
	struct modules *m = NULL;
	char *tmp = mktmp(), *want;

	CHECK(modules_open(&m, "/", tmp, "1.2.3", "") < 0);
	CHECK(m == NULL);
	want = xasprintf("%s: cannot load the module indexes (was depmod run?): %s", tmp,
			 strerror(ENOENT));
	CHECK_STR(err_msg(), want);
	free(want);
	rmtree(tmp);
	free(tmp);
}

static void test_ext4_brings_deps(void)
{
	struct modules *m;
	struct image *img;
	char *deps, *save, *tok;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	CHECK(m != NULL);
	if (!m)
		return;
	CHECK(modules_add(m, "ext4", true) == 0);
	struct mod *ext4 = modules_find(m, "ext4");
	CHECK(ext4 != NULL);
	if (!ext4)
		goto out;
	img = image_new();
	CHECK(modules_emit(m, img, NULL) == 0);
	char *dst = xasprintf("/lib/modules/%s/%s", kver, ext4->relpath);
	CHECK(image_has(img, dst));
	free(dst);
	deps = dep_line(kmoddir, ext4->relpath);
	CHECK(deps != NULL && *deps);
	for (tok = strtok_r(deps, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *rel = xstrndup(tok, ko_strip_len(tok));
		char *p = xasprintf("/lib/modules/%s/%s", kver, rel);
		char *name = modname_from_path(tok);
		if (!image_has(img, p))
			printf("# missing %s\n", p);
		CHECK(image_has(img, p));
		CHECK(modules_find(m, name) != NULL);
		free(rel);
		free(p);
		free(name);
	}
	CHECK(modules_find(m, "jbd2") != NULL);
	/* Dependencies come before what needs them. */
	CHECK(m->mods[m->n - 1] == ext4 || modules_find(m, "crc32c_generic"));
	free(deps);
	image_free(img);
out:
	modules_free(m);
}

static void test_alias_resolves(void)
{
	struct modules *m;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	if (!m)
		return;
	CHECK(modules_add(m, "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", true) == 0);
	CHECK(modules_find(m, "ahci") != NULL);
	CHECK(modules_add(m, "fs-vfat", true) == 0);
	CHECK(modules_find(m, "vfat") != NULL);
	CHECK(modules_find(m, "fat") != NULL);
	/* "-" and "_" are one. */
	CHECK(modules_add(m, "dm-crypt", true) == 0);
	CHECK(modules_find(m, "dm_crypt") != NULL);
	CHECK(modules_find(m, "dm_mod") != NULL);
	/* A modalias no driver claims is no error unless required. */
	CHECK(modules_add(m, "pci:v0000FFFFd0000FFFFsv00000000sd00000000bc00sc00i00", false) == 0);
	modules_free(m);
}

static void test_builtin_skipped(void)
{
	char *path, *data, *name = NULL;
	size_t len;
	struct modules *m;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	path = xasprintf("%s/modules.builtin", kmoddir);
	if (read_file(path, &data, &len) < 0 || !len) {
		free(path);
		SKIP("no modules.builtin");
	}
	*strchrnul(data, '\n') = '\0';
	name = modname_from_path(data);
	free(data);
	free(path);
	m = open_host();
	if (m) {
		printf("# builtin: %s\n", name);
		err_clear();
		CHECK(modules_add(m, name, true) == 0);
		CHECK(modules_count(m) == 0);
		modules_free(m);
	}
	free(name);
}

static void test_softdep_followed(void)
{
	char *path, *data, *save, *line;
	char mod[128] = "", target[128] = "";
	size_t len;
	struct modules *m;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	path = xasprintf("%s/modules.softdep", kmoddir);
	if (read_file(path, &data, &len) < 0) {
		free(path);
		SKIP("no modules.softdep");
	}
	free(path);
	m = open_host();
	if (!m) {
		free(data);
		return;
	}
	/* The first "softdep M pre: T" whose T is a real module. */
	for (line = strtok_r(data, "\n", &save); line && !target[0]; line = strtok_r(NULL, "\n", &save)) {
		struct kmod_list *l = NULL, *it;
		if (sscanf(line, "softdep %127s pre: %127s", mod, target) != 2) {
			target[0] = '\0';
			continue;
		}
		kmod_module_new_from_lookup(m->ctx, target, &l);
		target[0] = '\0';
		kmod_list_foreach(it, l) {
			struct kmod_module *km = kmod_module_get_module(it);
			if (!target[0] && kmod_module_get_path(km))
				snprintf(target, sizeof(target), "%s", kmod_module_get_name(km));
			kmod_module_unref(km);
		}
		kmod_module_unref_list(l);
	}
	free(data);
	if (!target[0]) {
		modules_free(m);
		SKIP("no softdep with a loadable target");
	}
	printf("# softdep %s pre: %s\n", mod, target);
	CHECK(modules_add(m, mod, true) == 0);
	CHECK(modules_find(m, mod) != NULL);
	CHECK(modules_find(m, target) != NULL);
	modules_free(m);
}

static void test_missing_required(void)
{
	struct modules *m;
	char *want;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	if (!m)
		return;
	CHECK(modules_add(m, "no_such_module_xyz", false) == 0);
	CHECK(modules_add(m, "no-such-module-xyz", true) < 0);
	want = xasprintf("module 'no-such-module-xyz' not found for kernel %s", kver);
	CHECK_STR(err_msg(), want);
	free(want);
	CHECK(modules_count(m) == 0);
	modules_free(m);
}

static void test_omit(void)
{
	struct modules *m;
	struct strv omit = { 0 };

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	if (!m)
		return;
	strv_push(&omit, "jbd2");
	strv_push(&omit, "fs-vfat");     /* an alias omits its module */
	strv_push(&omit, "dm-crypt");    /* either spelling */
	modules_omit(m, &omit);
	strv_free(&omit);
	strv_free(&warnings);
	CHECK(modules_add(m, "ext4", true) == 0);
	CHECK(modules_find(m, "ext4") != NULL);
	CHECK(modules_find(m, "mbcache") != NULL);
	CHECK(modules_find(m, "jbd2") == NULL);
	CHECK(warnings.n == 1);
	if (warnings.n)
		CHECK_STR(warnings.v[0], "module ext4 needs jbd2, which is omitted");
	CHECK(modules_add(m, "vfat", true) == 0);
	CHECK(modules_find(m, "vfat") == NULL);
	CHECK(modules_add(m, "dm_crypt", true) == 0);
	CHECK(modules_find(m, "dm_crypt") == NULL);
	strv_free(&warnings);
	modules_free(m);
}

/* A kmoddir holding ext4 and its dependencies compressed three ways,
 * indexed by the real depmod. */
static char *make_compressed_fixture(const char *tmp, struct strv *rels)
{
	char *dir = xasprintf("%s/lib/modules/%s", tmp, kver);
	char *deps = dep_line(kmoddir, "kernel/fs/ext4/ext4.ko");
	/* Debian's kmod is built without zlib: its depmod cannot read a
	 * .ko.gz, so gzip joins only where kmod can. */
	static const char *const tools[] = { "xz", "zstd -q --rm", "gzip" };
	size_t ntools = system("kmod --version | grep -q +ZLIB") == 0 ? 3 : 2;
	char *save, *tok;
	size_t i = 0;
	bool ok = deps != NULL;

	strv_push(rels, "kernel/fs/ext4/ext4.ko");
	for (tok = deps ? strtok_r(deps, " ", &save) : NULL; tok; tok = strtok_r(NULL, " ", &save))
		strv_push(rels, tok);
	free(deps);
	for (size_t k = 0; ok && k < rels->n; k++) {
		char *cmd = xasprintf("mkdir -p \"$(dirname '%s/%s')\" && cp '%s/%s' '%s/%s' && %s '%s/%s'",
				      dir, rels->v[k], kmoddir, rels->v[k], dir, rels->v[k],
				      tools[i++ % ntools], dir, rels->v[k]);
		ok = run(cmd) == 0;
		free(cmd);
	}
	if (ok) {
		char *cmd = xasprintf("cp '%s/modules.order' '%s/modules.builtin' '%s/modules.builtin.modinfo' '%s/' && "
				      "depmod -b '%s' '%s'", kmoddir, kmoddir, kmoddir, dir, tmp, kver);
		ok = run(cmd) == 0;
		free(cmd);
	}
	if (!ok) {
		free(dir);
		return NULL;
	}
	return dir;
}

static void test_compressed_decompressed(void)
{
	if (!compression_built_in(COMP_XZ) || !compression_built_in(COMP_ZSTD))
		SKIP("compressed modules need xz and zstd built in");
	struct strv rels = { 0 };
	struct modules *m = NULL;
	struct image *img;
	struct sink *s;
	char *tmp, *dir;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	tmp = dep_line(kmoddir, "kernel/fs/ext4/ext4.ko");
	if (!tmp)
		SKIP("this kernel has no loadable kernel/fs/ext4/ext4.ko");
	free(tmp);
	tmp = mktmp();
	dir = make_compressed_fixture(tmp, &rels);
	CHECK(dir != NULL);
	if (!dir)
		goto out;
	CHECK(modules_open(&m, "/", dir, kver, "") == 0);
	if (!m)
		goto out;
	CHECK(modules_add(m, "ext4", true) == 0);
	CHECK(modules_count(m) == rels.n);
	img = image_new();
	CHECK(modules_emit(m, img, NULL) == 0);
	s = image_cpio(img);
	for (size_t k = 0; k < rels.n; k++) {
		char *name = xasprintf("lib/modules/%s/%s", kver, rels.v[k]);
		char *orig = xasprintf("%s/%s", kmoddir, rels.v[k]), *want = NULL, *got;
		size_t gl = 0, wl = 0;

		got = cpio_file(s, name, &gl);
		CHECK(got != NULL);
		CHECK(read_file(orig, &want, &wl) == 0);
		CHECK(got && want && gl == wl && memcmp(got, want, gl) == 0);
		free(got);
		free(want);
		free(name);
		free(orig);
	}
	/* modules.dep speaks of .ko, as the files are now. */
	{
		char *name = xasprintf("lib/modules/%s/modules.dep", kver), *dep;
		size_t len;
		dep = cpio_file(s, name, &len);
		CHECK(dep != NULL);
		CHECK(dep && strstr(dep, "kernel/fs/ext4/ext4.ko:") != NULL);
		CHECK(dep && strstr(dep, ".ko.") == NULL);
		free(dep);
		free(name);
	}
	sink_free(s);
	image_free(img);
	modules_free(m);
out:
	strv_free(&rels);
	if (tmp)
		rmtree(tmp);
	free(tmp);
	free(dir);
}

/* Our filtered indexes must be what depmod writes for the same subset:
 * unpack the image twice, run depmod on one copy, compare. */
static void check_against_depmod(struct modules *m)
{
	static const char *const files[] = { "modules.dep", "modules.alias", "modules.softdep",
					     "modules.order", "modules.symbols", "modules.devname" };
	struct image *img = image_new();
	struct sink *s;
	char *tmp, *a, *b, *cmd;

	CHECK(modules_emit(m, img, NULL) == 0);
	s = image_cpio(img);
	tmp = mktmp();
	a = xasprintf("%s/ours", tmp);
	b = xasprintf("%s/depmod", tmp);
	CHECK(unpack(s, a) == 0);
	CHECK(unpack(s, b) == 0);
	cmd = xasprintf("depmod -b '%s' '%s'", b, kver);
	CHECK(run(cmd) == 0);
	free(cmd);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *pa = xasprintf("%s/lib/modules/%s/%s", a, kver, files[i]);
		char *pb = xasprintf("%s/lib/modules/%s/%s", b, kver, files[i]);
		CHECK(same_file(pa, pb));
		free(pa);
		free(pb);
	}
	if (!test_cur_failed)
		rmtree(tmp);
	free(tmp);
	free(a);
	free(b);
	sink_free(s);
	image_free(img);
}

static void test_index_matches_depmod(void)
{
	static const char *const subset[] = { "ext4", "ahci", "dm-crypt", "usb-storage", "vfat",
					      "nvme", "btrfs", "sr_mod", "raid456", "fuse" };
	struct modules *m;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	if (!m)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(subset); i++)
		CHECK(modules_add(m, subset[i], false) == 0);
	CHECK(modules_count(m) > 10);
	check_against_depmod(m);
	modules_free(m);
}

static void test_generic_index_matches_depmod(void)
{
	struct modules *m;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	if (!m)
		return;
	CHECK(modules_add_generic(m) == 0);
	check_against_depmod(m);
	modules_free(m);
}

static int write_text(const char *path, const char *text)
{
	char *dir = xstrdup(path);
	int fd, r;

	*strrchr(dir, '/') = '\0';
	mkdir_p(dir, 0755);
	free(dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	r = write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

static void test_firmware(void)
{
	struct modules *m = NULL;
	struct image *img;
	struct sink *s;
	char *tmp, *fw, *got;
	size_t len;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	tmp = mktmp();
	/* e100 names e100/d102e_ucode.bin, d101s_ucode.bin, d101m_ucode.bin */
	char *d1 = xasprintf("%s/fw1", tmp), *d2 = xasprintf("%s/fw2", tmp);
	char *p1 = xasprintf("%s/e100/d102e_ucode.bin", d1);
	char *p2 = xasprintf("%s/e100/d101s_ucode.bin.xz", d2);
	char *shadow = xasprintf("%s/e100/d102e_ucode.bin", d2);
	CHECK(write_text(p1, "first dir wins") == 0);
	CHECK(write_text(shadow, "hidden") == 0);
	CHECK(write_text(p2, "pretend xz") == 0);
	fw = xasprintf("%s:%s", d1, d2);
	CHECK(modules_open(&m, "/", kmoddir, kver, fw) == 0);
	if (!m || modules_add(m, "e100", false) < 0 || !modules_find(m, "e100")) {
		modules_free(m);
		rmtree(tmp);
		free(tmp), free(d1), free(d2), free(p1), free(p2), free(shadow), free(fw);
		SKIP("this kernel has no e100 module");
	}
	img = image_new();
	strv_free(&warnings);
	CHECK(modules_emit(m, img, NULL) == 0);
	CHECK(warnings.n == 1);
	if (warnings.n)
		CHECK_STR(warnings.v[0], "firmware e100/d101m_ucode.bin for module e100 not found");
	CHECK(image_has(img, "/lib/firmware/e100/d102e_ucode.bin"));
	CHECK(image_has(img, "/lib/firmware/e100/d101s_ucode.bin.xz"));
	s = image_cpio(img);
	got = cpio_file(s, "lib/firmware/e100/d102e_ucode.bin", &len);
	CHECK_STR(got, "first dir wins");
	free(got);
	sink_free(s);
	strv_free(&warnings);
	image_free(img);
	modules_free(m);
	rmtree(tmp);
	free(tmp), free(d1), free(d2), free(p1), free(p2), free(shadow), free(fw);
}

/* MODULE_FIRMWARE("brcm/brcmfmac*-sdio.*.bin"): every match is taken. */
static void test_firmware_wildcard(void)
{
	struct modules *m = NULL;
	struct image *img;
	char *tmp, *fw, *p;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	tmp = mktmp();
	fw = xasprintf("%s/fw", tmp);
	p = xasprintf("%s/brcm/brcmfmac4330-sdio.Acme,board.bin", fw);
	CHECK(write_text(p, "bin") == 0);
	free(p);
	p = xasprintf("%s/brcm/brcmfmac4330-sdio.Acme,board.txt.xz", fw);
	CHECK(write_text(p, "txt") == 0);
	free(p);
	p = xasprintf("%s/brcm/unrelated.bin", fw);
	CHECK(write_text(p, "no") == 0);
	free(p);
	CHECK(modules_open(&m, "/", kmoddir, kver, fw) == 0);
	if (!m || modules_add(m, "brcmfmac", false) < 0 || !modules_find(m, "brcmfmac")) {
		modules_free(m);
		rmtree(tmp);
		free(tmp), free(fw);
		SKIP("this kernel has no brcmfmac module");
	}
	img = image_new();
	CHECK(modules_emit(m, img, NULL) == 0);
	CHECK(image_has(img, "/lib/firmware/brcm/brcmfmac4330-sdio.Acme,board.bin"));
	CHECK(image_has(img, "/lib/firmware/brcm/brcmfmac4330-sdio.Acme,board.txt.xz"));
	CHECK(!image_has(img, "/lib/firmware/brcm/unrelated.bin"));
	strv_free(&warnings);
	image_free(img);
	modules_free(m);
	rmtree(tmp);
	free(tmp);
	free(fw);
}

/* An ELF object with a .modinfo holding the given NUL-separated
 * strings and an empty symbol table: all libkmod and depmod read of a
 * module here. */
static int write_modinfo_ko(const char *path, const char *modinfo, size_t mlen)
{
	static const char shstr[] = "\0.modinfo\0.shstrtab\0.symtab\0.strtab";
	unsigned char f[4096] = { 0 };
	size_t sym = (64 + mlen + sizeof(shstr) + 7) & ~(size_t)7, str = sym + 24, shoff = (str + 1 + 7) & ~(size_t)7;
	uint64_t sh[5][8] = { { 0 } };
	int fd, r;

	if (shoff + sizeof(sh) > sizeof(f))
		return -1;
	memcpy(f, "\x7f" "ELF\2\1\1", 7);
	*(uint16_t *)(f + 16) = 1;  /* ET_REL */
	*(uint16_t *)(f + 18) = 62; /* x86-64 */
	*(uint32_t *)(f + 20) = 1;
	*(uint64_t *)(f + 40) = shoff;
	*(uint16_t *)(f + 52) = 64;
	*(uint16_t *)(f + 58) = 64;
	*(uint16_t *)(f + 60) = 5;
	*(uint16_t *)(f + 62) = 2;
	memcpy(f + 64, modinfo, mlen);
	memcpy(f + 64 + mlen, shstr, sizeof(shstr));
	/* name|type, flags, addr, offset, size, link|info, addralign, entsize */
	sh[1][0] = 1 | (uint64_t)1 << 32, sh[1][1] = 2, sh[1][3] = 64, sh[1][4] = mlen, sh[1][6] = 1;
	sh[2][0] = 10 | (uint64_t)3 << 32, sh[2][3] = 64 + mlen, sh[2][4] = sizeof(shstr), sh[2][6] = 1;
	sh[3][0] = 20 | (uint64_t)2 << 32, sh[3][3] = sym, sh[3][4] = 24, sh[3][5] = 4 | (uint64_t)1 << 32,
	sh[3][6] = 8, sh[3][7] = 24;
	sh[4][0] = 28 | (uint64_t)3 << 32, sh[4][3] = str, sh[4][4] = 1, sh[4][6] = 1;
	memcpy(f + shoff, sh, sizeof(sh));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	r = write_all(fd, f, shoff + sizeof(sh));
	close(fd);
	return r;
}

/* A module in a sysroot names firmware outside the firmware directory:
 * by "..", by an absolute name, and through a link in the sysroot's
 * /lib/firmware that points at a host file. None of them is packed; the
 * names are refused with a warning naming the module, escaped (issue
 * 24, item 2). A link inside the sysroot still resolves inside it. */
static void test_firmware_stays_in_sysroot(void)
{
	char *tmp, *root, *secret, *ko, *cmd, *link, *modinfo, *abs_name, *got;
	struct modules *m = NULL;
	struct image *img;
	struct sink *s;
	size_t len;
	int n;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	tmp = mktmp();
	root = xasprintf("%s/root", tmp);
	secret = xasprintf("%s/outside/secret", tmp);
	CHECK(write_text(secret, "host secret") == 0);
	link = xasprintf("%s/lib/firmware/vendor/real.bin", root);
	CHECK(write_text(link, "sysroot firmware") == 0);
	free(link);
	link = xasprintf("%s/lib/firmware/good.bin", root);
	CHECK(symlink(secret, link) == 0);
	free(link);
	link = xasprintf("%s/lib/firmware/real.bin", root);
	CHECK(symlink("/lib/firmware/vendor/real.bin", link) == 0);
	free(link);
	abs_name = xstrdup(secret);
	n = asprintf(&modinfo, "license=GPL%cfirmware=../../../outside/secret%cfirmware=%s%cfirmware=\x1b[2Jx/../../y%c"
			       "firmware=good.bin%cfirmware=real.bin%cname=evil%c",
		     0, 0, abs_name, 0, 0, 0, 0, 0);
	CHECK(n > 0);
	ko = xasprintf("%s/lib/modules/%s/kernel/x/evil.ko", root, kver);
	CHECK(write_text(ko, "") == 0);
	CHECK(write_modinfo_ko(ko, modinfo, (size_t)n) == 0);
	/* libkmod refuses a tree whose builtin index is empty */
	cmd = xasprintf("%s/lib/modules/%s/modules.builtin", root, kver);
	CHECK(write_text(cmd, "kernel/y/builtin.ko\n") == 0);
	free(cmd);
	cmd = xasprintf("depmod -b '%s' '%s' 2>/dev/null", root, kver);
	CHECK(run(cmd) == 0);
	free(cmd);
	cmd = xasprintf("%s/lib/modules/%s", root, kver);
	CHECK(modules_open(&m, root, cmd, kver, "/lib/firmware") == 0);
	free(cmd);
	CHECK(m && modules_add(m, "evil", true) == 0);
	img = image_new();
	strv_free(&warnings);
	CHECK(m && modules_emit(m, img, NULL) == 0);
	if (test_cur_failed)
		printf("# %s\n", err_msg());
	CHECK(strv_contains(&warnings, "module evil: firmware name '../../../outside/secret' refused: absolute or "
				       "with a '..' component, not packed"));
	cmd = xasprintf("module evil: firmware name '%s' refused: absolute or with a '..' component, not packed",
			abs_name);
	CHECK(strv_contains(&warnings, cmd));
	free(cmd);
	CHECK(strv_contains(&warnings, "module evil: firmware name '\\x1b[2Jx/../../y' refused: absolute or with a "
				       "'..' component, not packed"));
	CHECK(strv_contains(&warnings, "firmware good.bin for module evil not found"));
	CHECK(warnings.n == 4);
	CHECK(!image_has(img, "/lib/firmware/good.bin"));
	CHECK(image_has(img, "/lib/firmware/real.bin"));
	s = image_cpio(img);
	CHECK(!cpio_file(s, "outside/secret", &len));
	got = cpio_file(s, "lib/firmware/real.bin", &len);
	CHECK_STR(got, "sysroot firmware");
	free(got);
	sink_free(s);
	image_free(img);
	modules_free(m);
	strv_free(&warnings);
	if (!test_cur_failed)
		rmtree(tmp);
	free(modinfo), free(abs_name), free(ko), free(secret), free(root), free(tmp);
}

/* A sysroot whose one module, fwmod, is the given bytes compressed
 * with tool (xz, zstd) and names acme/fw.bin, which its firmware
 * directory holds; indexed by the real depmod. The module's host path
 * into *ko. */
static char *make_fw_module_root(const char *tmp, const char *tool, const char *sfx, char **ko)
{
	static const char modinfo[] = "license=GPL\0firmware=acme/fw.bin\0name=fwmod\0";
	char *root = xasprintf("%s/root", tmp), *p, *cmd;
	bool ok;

	p = xasprintf("%s/lib/firmware/acme/fw.bin", root);
	ok = write_text(p, "acme firmware") == 0;
	free(p);
	p = xasprintf("%s/lib/modules/%s/modules.builtin", root, kver);
	ok = ok && write_text(p, "kernel/y/builtin.ko\n") == 0;
	free(p);
	p = xasprintf("%s/lib/modules/%s/kernel/x/fwmod.ko", root, kver);
	ok = ok && write_text(p, "") == 0 && write_modinfo_ko(p, modinfo, sizeof(modinfo) - 1) == 0;
	cmd = xasprintf("cp '%s' '%s.plain' && %s '%s' && depmod -b '%s' '%s' 2>/dev/null", p, p, tool, p, root, kver);
	ok = ok && run(cmd) == 0;
	free(cmd);
	*ko = xasprintf("%s%s", p, sfx);
	free(p);
	if (!ok) {
		free(root);
		free(*ko);
		*ko = NULL;
		return NULL;
	}
	return root;
}

static struct modules *open_root(const char *root)
{
	struct modules *m = NULL;
	char *dir = xasprintf("%s/lib/modules/%s", root, kver);

	if (modules_open(&m, root, dir, kver, "/lib/firmware") < 0 || modules_add(m, "fwmod", true) < 0)
		printf("# %s\n", err_msg());
	free(dir);
	return m;
}

/* A compressed module is read once (modules_read.c): its firmware is
 * found from the modinfo of the decompressed copy, and the image holds
 * that copy, the module's plain bytes. */
static void test_compressed_read_once(void)
{
	static const char *const tools[][2] = { { "xz", ".xz" }, { "zstd -q --rm", ".zst" } };

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	if (!compression_built_in(COMP_XZ) || !compression_built_in(COMP_ZSTD))
		SKIP("compressed modules need xz and zstd built in");
	for (size_t t = 0; t < ARRAY_SIZE(tools); t++) {
		char *tmp = mktmp(), *ko = NULL, *root = make_fw_module_root(tmp, tools[t][0], tools[t][1], &ko);
		char *name = xasprintf("lib/modules/%s/kernel/x/fwmod.ko", kver), *plain = NULL, *got, *orig;
		struct modules *m = root ? open_root(root) : NULL;
		struct image *img = image_new();
		size_t gl = 0, pl = 0;
		struct sink *s;

		CHECK(m != NULL);
		if (!m)
			goto next;
		strv_free(&warnings);
		CHECK(modules_emit(m, img, NULL) == 0);
		CHECK(warnings.n == 0);
		s = image_cpio(img);
		got = cpio_file(s, "lib/firmware/acme/fw.bin", &gl);
		CHECK_STR(got, "acme firmware");
		free(got);
		got = cpio_file(s, name, &gl);
		orig = xasprintf("%s/lib/modules/%s/kernel/x/fwmod.ko.plain", root, kver);
		CHECK(read_file(orig, &plain, &pl) == 0);
		CHECK(got && plain && gl == pl && memcmp(got, plain, pl) == 0);
		free(orig);
		free(got);
		free(plain);
		sink_free(s);
	next:
		image_free(img);
		modules_free(m);
		rmtree(tmp);
		free(name), free(ko), free(root), free(tmp);
	}
}

/* A compressed module that does not decompress, that decompresses past
 * the bound, or to something libkmod cannot read: each an error naming
 * the file. */
static void test_compressed_hostile(void)
{
	char *tmp, *ko = NULL, *root, *want;
	struct modules *m;
	struct image *img;
	uint64_t limit = decompress_get_limit();

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	if (!compression_built_in(COMP_XZ))
		SKIP("needs xz built in");
	tmp = mktmp();
	root = make_fw_module_root(tmp, "xz", ".xz", &ko);
	CHECK(root != NULL);
	if (!root)
		goto out;

	/* past the bound (1 MiB here; it is 2 GiB) */
	{
		char *cmd = xasprintf("head -c 3M /dev/zero > '%s.big' && xz -c '%s.big' > '%s'", ko, ko, ko);
		CHECK(run(cmd) == 0);
		free(cmd);
	}
	decompress_set_limit(1 << 20);
	m = open_root(root);
	img = image_new();
	CHECK(m && modules_emit(m, img, NULL) < 0);
	want = xasprintf("%s: xz: decompressed data larger than 1 MiB, refusing", ko);
	CHECK_STR(err_msg(), want);
	free(want);
	decompress_set_limit(limit);

	/* within it, but not an ELF object: libkmod reads the copy */
	img = (image_free(img), image_new());
	CHECK(m && modules_emit(m, img, NULL) < 0);
	want = xasprintf("%s: cannot read modinfo: %s", ko, strerror(ENOEXEC));
	CHECK_STR(err_msg(), want);
	free(want);
	modules_free(m);

	/* not xz at all */
	CHECK(write_text(ko, "not xz, only named so") == 0);
	m = open_root(root);
	img = (image_free(img), image_new());
	CHECK(m && modules_emit(m, img, NULL) < 0);
	want = xasprintf("%s: xz: not an xz stream", ko);
	CHECK_STR(err_msg(), want);
	free(want);
	image_free(img);
	modules_free(m);
out:
	rmtree(tmp);
	free(ko), free(root), free(tmp);
}

/* A module file that is an absolute link in a sysroot's module tree
 * is followed inside the sysroot: the host file it names is never
 * packed, and the module is an error naming it (issue 24, item 3). */
static void test_module_link_stays_in_sysroot(void)
{
	static const char modinfo[] = "license=GPL\0name=evil\0";
	char *tmp, *root, *host_ko, *link, *cmd;
	struct modules *m = NULL;
	struct image *img;
	int r;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	tmp = mktmp();
	root = xasprintf("%s/root", tmp);
	host_ko = xasprintf("%s/outside/evil.ko", tmp);
	CHECK(write_text(host_ko, "") == 0);
	CHECK(write_modinfo_ko(host_ko, modinfo, sizeof(modinfo)) == 0);
	link = xasprintf("%s/lib/modules/%s/kernel/x/evil.ko", root, kver);
	CHECK(write_text(link, "") == 0 && unlink(link) == 0);
	CHECK(symlink(host_ko, link) == 0);
	cmd = xasprintf("%s/lib/modules/%s/modules.builtin", root, kver);
	CHECK(write_text(cmd, "kernel/y/builtin.ko\n") == 0);
	free(cmd);
	cmd = xasprintf("depmod -b '%s' '%s' 2>/dev/null", root, kver);
	CHECK(run(cmd) == 0);
	free(cmd);
	cmd = xasprintf("%s/lib/modules/%s", root, kver);
	CHECK(modules_open(&m, root, cmd, kver, "/lib/firmware") == 0);
	img = image_new();
	r = m ? modules_add(m, "evil", true) : -1;
	if (r == 0)
		r = modules_emit(m, img, NULL);
	CHECK(r < 0);
	free(cmd);
	/* the sysroot has no /tmp: the first component missing is named */
	cmd = xasprintf("module evil: %s/tmp: No such file or directory", root);
	CHECK_STR(err_msg(), cmd);
	free(cmd);
	cmd = xasprintf("/lib/modules/%s/kernel/x/evil.ko", kver);
	CHECK(!image_has(img, cmd));
	free(cmd);
	image_free(img);
	modules_free(m);
	if (!test_cur_failed)
		rmtree(tmp);
	free(link), free(host_ko), free(root), free(tmp);
}

static void test_modprobe_d(void)
{
	struct modules *m;
	struct image *img;
	struct sink *s;
	char *tmp, *got;
	size_t len;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	m = open_host();
	if (!m)
		return;
	CHECK(modules_add(m, "ext4", true) == 0);
	tmp = mktmp();
	char *etc = xasprintf("%s/etc", tmp), *lib = xasprintf("%s/lib", tmp);
	char *p = xasprintf("%s/a.conf", etc);
	CHECK(write_text(p, "# comment about ext4\n"
			    "options ext4 foo=1\n"
			    "options btrfs bar=2\n"
			    "blacklist ext4\n"
			    "blacklist nouveau\n"
			    "alias fs-myext ext4\n"
			    "alias fs-other btrfs\n"
			    "install ext4 /bin/true\n"
			    "softdep jbd2 pre: crc32c\n"
			    "  options \\\n  mbcache x=1\n") == 0);
	free(p);
	p = xasprintf("%s/a.conf", lib); /* hidden by etc/a.conf */
	CHECK(write_text(p, "options ext4 hidden=1\n") == 0);
	free(p);
	p = xasprintf("%s/b.conf", lib);
	CHECK(write_text(p, "options jbd2 z=3\n") == 0);
	free(p);
	p = xasprintf("%s/c.conf", lib); /* nothing for us: not written */
	CHECK(write_text(p, "options btrfs y=1\n") == 0);
	free(p);
	p = xasprintf("%s/ignored.txt", lib);
	CHECK(write_text(p, "options ext4 no=1\n") == 0);
	free(p);
	p = xasprintf("%s:%s:%s/nonexistent", etc, lib, tmp);
	img = image_new();
	CHECK(modules_emit(m, img, p) == 0);
	free(p);
	CHECK(!image_has(img, "/etc/modprobe.d/c.conf"));
	CHECK(!image_has(img, "/etc/modprobe.d/ignored.txt"));
	s = image_cpio(img);
	got = cpio_file(s, "etc/modprobe.d/a.conf", &len);
	CHECK_STR(got, "options ext4 foo=1\n"
		       "blacklist ext4\n"
		       "alias fs-myext ext4\n"
		       "softdep jbd2 pre: crc32c\n"
		       "options   mbcache x=1\n");
	free(got);
	got = cpio_file(s, "etc/modprobe.d/b.conf", &len);
	CHECK_STR(got, "options jbd2 z=3\n");
	free(got);
	sink_free(s);
	image_free(img);
	modules_free(m);
	rmtree(tmp);
	free(tmp);
	free(etc);
	free(lib);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_generic(void)
{
	static const char *const must[] = { "ahci", "ata_piix", "nvme", "virtio_blk", "virtio_scsi",
					    "virtio_pci", "sd_mod", "usb_storage", "uas", "xhci_pci",
					    "dm_crypt", "dm_mod", "raid1", "raid456", "ext4", "xfs",
					    "btrfs", "vfat", "megaraid_sas", "mpt3sas", "usbhid",
					    "hid_generic", "mmc_block", "sdhci_pci",
					    /* network roots: issue 11 */
					    "virtio_net", "e1000", "e1000e", "igb", "r8169",
					    "nfs", "nfsv4", "sunrpc", "iscsi_tcp", "libiscsi",
					    "scsi_transport_iscsi", "nbd",
					    /* NVMe over TCP: issue 27 */
					    "nvme_tcp", "nvme_fabrics",
					    /* SAN roots: issue 25 */
					    "qla2xxx", "lpfc", "scsi_transport_fc", "dm_multipath",
					    "scsi_dh_alua" };
	struct modules *m;
	struct image *img;
	unsigned long long bytes = 0;
	double t0, t1, t2;

	if (!kver[0])
		SKIP("no kernel installed under /lib/modules");
	t0 = now();
	m = open_host();
	if (!m)
		return;
	t1 = now();
	CHECK(modules_add_generic(m) == 0);
	img = image_new();
	CHECK(modules_emit(m, img, "/etc/modprobe.d:/lib/modprobe.d:/usr/lib/modprobe.d") == 0);
	t2 = now();
	struct sink *s = image_cpio(img);
	size_t cpio_len;
	sink_mem_data(s, &cpio_len);
	printf("# generic: cpio %zu bytes written in %.3f s\n", cpio_len, now() - t2);
	/* the FC HBAs are in the image itself; a firmware file the host
	 * lacks (Debian's non-free firmware-qlogic) costs a warning, not
	 * the build */
	{
		static const char *const fc[] = { "qla2xxx", "lpfc" };
		for (size_t i = 0; i < ARRAY_SIZE(fc); i++) {
			const struct mod *mod = modules_find(m, fc[i]);
			char *rel = mod ? strstr(mod->path, "/kernel/") : NULL;
			char *name = rel ? xasprintf("lib/modules/%s%s", kver, rel) : NULL, *got;
			size_t gl = 0;
			got = name ? cpio_file(s, name, &gl) : NULL;
			if (!got)
				printf("# the image lacks %s (%s)\n", fc[i], name ? name : "?");
			CHECK(got != NULL && gl > 0);
			free(got);
			free(name);
		}
	}
	sink_free(s);
	for (size_t i = 0; i < m->n; i++) {
		struct stat st;
		if (stat(m->mods[i]->path, &st) == 0)
			bytes += (unsigned long long)st.st_size;
	}
	if (getenv("TEST_MODULES_LIST"))
		for (size_t i = 0; i < m->n; i++)
			printf("# mod %s\n", m->mods[i]->path);
	printf("# generic: %zu modules, %llu bytes (on disk), open %.3f s, add_generic+emit %.3f s\n",
	       m->n, bytes, t1 - t0, t2 - t1);
	for (size_t i = 0; i < ARRAY_SIZE(must); i++) {
		if (!modules_find(m, must[i]))
			printf("# generic set lacks %s\n", must[i]);
		CHECK(modules_find(m, must[i]) != NULL);
	}
	/* Things no boot needs stay out. */
	CHECK(modules_find(m, "scsi_debug") == NULL);
	CHECK(modules_find(m, "rpcsec_gss_krb5") == NULL);
	CHECK(modules_find(m, "iwlwifi") == NULL);
	image_free(img);
	modules_free(m);
}

int main(void)
{
	log_set_sink(capture, NULL);
	if (!find_kernel())
		printf("# no kernel with modules.dep under /lib/modules\n");
	RUN(test_open_without_indexes);
	RUN(test_ext4_brings_deps);
	RUN(test_alias_resolves);
	RUN(test_builtin_skipped);
	RUN(test_softdep_followed);
	RUN(test_missing_required);
	RUN(test_omit);
	RUN(test_compressed_decompressed);
	RUN(test_index_matches_depmod);
	RUN(test_generic_index_matches_depmod);
	RUN(test_firmware);
	RUN(test_firmware_wildcard);
	RUN(test_firmware_stays_in_sysroot);
	RUN(test_module_link_stays_in_sysroot);
	RUN(test_compressed_read_once);
	RUN(test_compressed_hostile);
	RUN(test_modprobe_d);
	RUN(test_generic);
	strv_free(&warnings);
	return test_done();
}
